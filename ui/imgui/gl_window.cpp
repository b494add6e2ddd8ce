#include "ui/imgui/gl_window.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <GL/gl.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "engine/common/error.h"
#include "ui/present/frame_pacing.h"

namespace plab::imgui {

namespace {

std::string& glfw_error() {
    static std::string message;
    return message;
}

void on_glfw_error(int code, const char* text) { glfw_error() = std::to_string(code) + ": " + (text ? text : ""); }

// DejaVu (Debian's fonts-dejavu-core) reads well large and holds the
// symbols the presenters' texts use; ImGui's built-in font is a fallback.
constexpr const char* kSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr const char* kSansBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
constexpr const char* kMono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
constexpr float kBodyPx = 17.0f, kHeadingPx = 19.0f;

// Latin-1 (x, /, ·), dashes and quotes, arrows (a sample's newline ↵ among
// them), <= and >=, squares and triangles, a sample's tick and cross.
const ImWchar kGlyphs[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2190, 0x2193, 0x21B5, 0x21B5, 0x2212, 0x2212,
                           0x2264, 0x2265, 0x25A0, 0x25BC, 0x2713, 0x2713, 0x2717, 0x2717, 0};

}  // namespace

GlWindow::GlWindow(const WindowOptions& options) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        throw Error("cannot start GLFW (" + glfw_error() + "); without a display run it under xvfb-run -a");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window_ = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window_) {
        glfwTerminate();
        throw Error("cannot open an OpenGL 3.3 window (" + glfw_error() + ")");
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(options.vsync ? 1 : 0);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed: nothing to remember between runs
    ImGui::StyleColorsDark();
    watch_input();
    ImGui_ImplGlfw_InitForOpenGL(window_, true);  // chains the callbacks watch_input set
    ImGui_ImplOpenGL3_Init("#version 330");
    load_fonts();
}

bool GlWindow::take_input_seen() {
    const bool seen = input_seen_;
    input_seen_ = false;
    return seen;
}

// Callbacks that only note that something happened; ImGui's backend,
// installed after them, calls them before its own handling.
void GlWindow::watch_input() {
    glfwSetWindowUserPointer(window_, this);
    glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { note_input(w); });
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { note_input(w); });
    glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { note_input(w); });
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int, int, int, int) { note_input(w); });
    glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int) { note_input(w); });
    glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { note_input(w); });
    glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { note_input(w); });
    glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { note_input(w); });
    glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { note_input(w); });
}

void GlWindow::note_input(GLFWwindow* window) {
    static_cast<GlWindow*>(glfwGetWindowUserPointer(window))->input_seen_ = true;
}

GlWindow::~GlWindow() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window_);
    glfwTerminate();
}

void GlWindow::load_fonts() {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    if (!std::filesystem::exists(kSans) || !std::filesystem::exists(kSansBold) || !std::filesystem::exists(kMono)) {
        ImFontConfig big;
        big.SizePixels = 13.0f * 2;
        ImFont* normal = atlas->AddFontDefault();
        ImFont* large = atlas->AddFontDefault(&big);
        fonts_ = {{normal, normal, normal}, {large, large, large}};  // the default font is monospace
        return;
    }
    auto add = [&](const char* file, float px) { return atlas->AddFontFromFileTTF(file, px, nullptr, kGlyphs); };
    fonts_.normal = {add(kSans, kBodyPx), add(kSansBold, kHeadingPx), add(kMono, kBodyPx)};
    fonts_.projector = {add(kSans, kBodyPx * kProjectorScale), add(kSansBold, kHeadingPx * kProjectorScale),
                        add(kMono, kBodyPx * kProjectorScale)};
}

bool GlWindow::should_close() const { return glfwWindowShouldClose(window_) != 0; }

void GlWindow::begin_frame(bool may_wait) {
    if (may_wait)
        glfwWaitEventsTimeout(FramePacing::kIdleWaitSeconds);
    else
        glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void GlWindow::render() {
    ImGui::Render();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    const ImVec4 bg = to_vec4(colour::background);  // the panels leave it to this clear
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void GlWindow::finish() { glFinish(); }

void GlWindow::swap() { glfwSwapBuffers(window_); }

Image GlWindow::read_frame() const {
    Image image;
    glfwGetFramebufferSize(window_, &image.width, &image.height);
    const std::size_t row = static_cast<std::size_t>(image.width) * 3;
    std::vector<unsigned char> bottom_up(row * static_cast<std::size_t>(image.height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, image.width, image.height, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
    // OpenGL's rows go bottom-up; an image file's top-down.
    image.rgb.resize(bottom_up.size());
    for (int y = 0; y < image.height; ++y)
        std::memcpy(&image.rgb[static_cast<std::size_t>(y) * row],
                    &bottom_up[static_cast<std::size_t>(image.height - 1 - y) * row], row);
    return image;
}

bool write_png(const std::string& path, const Image& image) {
    return stbi_write_png(path.c_str(), image.width, image.height, 3, image.rgb.data(), image.width * 3) != 0;
}

}  // namespace plab::imgui
