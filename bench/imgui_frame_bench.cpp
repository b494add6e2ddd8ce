// Frames of the ImGui live view while the session trains flat out on its
// worker thread with a long history behind it: each frame takes the latest
// snapshot, runs every panel's presenter over it (decimated to pixel
// columns) and draws. Prints frames per second and the frame-time
// distribution, split into the CPU time that builds the frame (events,
// presenters, ImGui widgets and draw lists) and the GL draw (glFinish
// included), which under Mesa's software llvmpipe is the slow part.
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/dev/bench/imgui_frame_bench [seconds] [history steps] [--projector]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/train/preset_io.h"
#include "ui/imgui/gl_window.h"
#include "ui/imgui/live_app.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Times {
    std::vector<double> ms;
    double at(double q) {
        std::sort(ms.begin(), ms.end());
        return ms.empty() ? 0 : ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1))];
    }
};

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
    const long history = argc > 2 ? std::atol(argv[2]) : 100000;
    const bool projector = argc > 3 && std::strcmp(argv[3], "--projector") == 0;
    plab::RunConfig config = plab::load_preset("spirals-amp-fp16");
    config.steps = 10000000;  // the most a config allows: long enough to train through the whole measurement
    plab::imgui::GlWindow window({1600, 1000, false, "imgui_frame_bench"});
    plab::imgui::LiveApp app("spirals-amp-fp16", config, window.fonts());
    app.set_projector(projector);

    const Clock::time_point start = Clock::now();
    app.session().step(history);
    app.session().wait_until_idle();
    const double history_s = ms_since(start) / 1000;
    std::printf("history: %ld steps trained in %.1f s (%.0f steps/s)\n", history, history_s,
                static_cast<double>(history) / history_s);

    app.session().play();
    const std::int64_t step0 = app.session().snapshot()->step;
    Times frame, build, draw;
    const Clock::time_point run = Clock::now();
    while (ms_since(run) < seconds * 1000) {
        const Clock::time_point t0 = Clock::now();
        window.begin_frame();
        app.frame();
        const Clock::time_point t1 = Clock::now();
        window.render();
        window.finish();
        build.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        draw.ms.push_back(ms_since(t1));
        window.swap();
        frame.ms.push_back(ms_since(t0));
    }
    const double elapsed = ms_since(run) / 1000;
    const std::int64_t trained = app.session().snapshot()->step - step0;
    app.session().pause();
    std::printf("%zu frames in %.1f s: %.1f frames/s while training %lld more steps (%.0f steps/s)%s\n", frame.ms.size(),
                elapsed, static_cast<double>(frame.ms.size()) / elapsed, static_cast<long long>(trained),
                static_cast<double>(trained) / elapsed, projector ? ", projector" : "");
    std::printf("frame ms:            median %6.2f  p95 %6.2f\n", frame.at(0.5), frame.at(0.95));
    std::printf("  build (CPU) ms:    median %6.2f  p95 %6.2f   (events, presenters, ImGui draw lists)\n", build.at(0.5),
                build.at(0.95));
    std::printf("  GL draw ms:        median %6.2f  p95 %6.2f   (ImGui::Render, OpenGL, glFinish)\n", draw.at(0.5),
                draw.at(0.95));
    return 0;
}
