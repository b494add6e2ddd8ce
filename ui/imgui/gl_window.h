#pragma once
// The live view's one OS window: GLFW, an OpenGL 3.3 core context, Dear
// ImGui with its GLFW and OpenGL3 backends (both in Debian's libimgui.a),
// and the fonts for the normal and projector sizes. Also reads the frame
// back for --screenshot.
#include <string>
#include <vector>

#include "ui/imgui/look.h"

struct GLFWwindow;

namespace plab::imgui {

struct WindowOptions {
    int width = 1600;
    int height = 1000;
    bool vsync = true;  // off for the frame benchmark: frames as fast as they can be made
    std::string title = "Precision Lab live";
};

// An RGB image, rows top first.
struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgb;
};

class GlWindow {
public:
    // Throws plab::Error when no window can be opened (no display, no OpenGL 3.3).
    explicit GlWindow(const WindowOptions& options);
    ~GlWindow();
    GlWindow(const GlWindow&) = delete;
    GlWindow& operator=(const GlWindow&) = delete;

    bool should_close() const;
    // Events (waiting up to FramePacing::kIdleWaitSeconds for one when
    // `may_wait`), the backends' and ImGui's NewFrame.
    void begin_frame(bool may_wait = false);
    // Whether any input or window event arrived since the last call.
    bool take_input_seen();
    void render();       // ImGui::Render and the GL draw of its lists
    void finish();       // waits for the GL draw to complete (for timing)
    void swap();
    Image read_frame() const;  // the frame just rendered (before swap)

    const Fonts& fonts() const { return fonts_; }
    GLFWwindow* handle() const { return window_; }  // for tests that feed it GLFW events

private:
    void load_fonts();
    void watch_input();
    static void note_input(GLFWwindow* window);

    GLFWwindow* window_ = nullptr;
    Fonts fonts_;
    bool input_seen_ = false;  // set by the GLFW callbacks ImGui's own chain to
};

// Writes `image` as a PNG file; false when the file cannot be written.
bool write_png(const std::string& path, const Image& image);

}  // namespace plab::imgui
