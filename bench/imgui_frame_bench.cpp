// Frames of the ImGui live view while the session trains flat out on its
// worker thread with a long history behind it: each frame takes the latest
// snapshot, runs every panel's presenter over it (decimated to pixel
// columns) and draws. Prints frames per second and the frame-time
// distribution, split into the CPU time that builds the frame (events,
// presenters, ImGui widgets and draw lists) and the GL draw (glFinish
// included), which under Mesa's software llvmpipe is the slow part; and what
// a frame submits (vertices, triangles, draw calls, the heaviest draw lists).
// What costs llvmpipe is triangles by the blocks of pixels they touch, more
// than pixels covered: added to a frame, a thousand thin quads cost several
// times one rectangle of as many pixels, so plotted lines drawn as many thin
// triangles and a background fill per plot are each much of a draw
// (docs/perf.md). Hence: no fill per nested window or plot (the GL clear
// shows through), lines a whole pixel wide (ImGui's texture path, 2 triangles
// a segment instead of 6), a column per line width, and a noisy column a bar
// rather than a stroke there and back.
// The CPU time by thread (UI, llvmpipe, the rest) moves less than wall time
// when another process shares the cores: compare that first.
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/dev/bench/imgui_frame_bench [seconds] [history steps] [--projector|--empty]   (--help: usage)
// --empty draws nothing but the cleared window: the floor the GL driver sets.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <imgui.h>

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

// What one frame hands the GL: vertices, indices (three per triangle) and draw calls.
void count_submitted(const ImDrawData& d, Times& vertices, Times& indices, Times& commands) {
    int calls = 0;
    for (int i = 0; i < d.CmdListsCount; ++i) calls += d.CmdLists[i]->CmdBuffer.Size;
    vertices.ms.push_back(d.TotalVtxCount);
    indices.ms.push_back(d.TotalIdxCount);
    commands.ms.push_back(calls);
}

// Pixels a draw list's triangles cover, overlaps counted each time: what a
// software rasterizer pays for, beside the triangle count.
double covered_pixels(const ImDrawList& l) {
    double area = 0;
    for (int i = 0; i + 2 < l.IdxBuffer.Size; i += 3) {
        const ImVec2 a = l.VtxBuffer[l.IdxBuffer[i]].pos, b = l.VtxBuffer[l.IdxBuffer[i + 1]].pos,
                     c = l.VtxBuffer[l.IdxBuffer[i + 2]].pos;
        area += std::fabs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2;
    }
    return area;
}

// CPU time this process's threads have run (Linux's schedstat, in ms): this
// thread (the UI: it builds the frame and drives the GL), llvmpipe's
// rasterizer threads, and the rest (the trainer). Unlike wall time it hardly
// moves when another process shares the cores.
struct ThreadTimes {
    double ui = 0, llvmpipe = 0, other = 0;
};

ThreadTimes thread_times() {
    ThreadTimes t;
    const std::string self = std::to_string(getpid());  // the main thread's id
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream schedstat(task.path() / "schedstat"), comm(task.path() / "comm");
        double ns = 0;
        std::string name;
        schedstat >> ns;
        std::getline(comm, name);
        (task.path().filename() == self ? t.ui : name.starts_with("llvmpipe") ? t.llvmpipe : t.other) += ns / 1e6;
    }
    return t;
}

// The draw lists of the last frame that cover the most pixels, by window.
void print_heaviest_lists() {
    const ImDrawData& d = *ImGui::GetDrawData();
    std::vector<const ImDrawList*> lists(d.CmdLists, d.CmdLists + d.CmdListsCount);
    std::sort(lists.begin(), lists.end(), [](auto* a, auto* b) { return covered_pixels(*a) > covered_pixels(*b); });
    double total = 0;
    for (const ImDrawList* l : lists) total += covered_pixels(*l);
    std::printf("draw lists of the last frame (%d lists) cover %.2f M pixels, overlaps counted; the most:\n",
                d.CmdListsCount, total / 1e6);
    for (std::size_t i = 0; i < std::min<std::size_t>(lists.size(), 6); ++i)
        std::printf("  %7.0f k pixels %7d vertices %7d indices %4d draw calls  %s\n", covered_pixels(*lists[i]) / 1e3,
                    lists[i]->VtxBuffer.Size, lists[i]->IdxBuffer.Size, lists[i]->CmdBuffer.Size,
                    lists[i]->_OwnerName ? lists[i]->_OwnerName : "?");
}

// The command line: [seconds] [history steps] [--projector|--empty], or --help.
struct Options {
    double seconds = 10.0;
    long history = 100000;
    bool projector = false, empty = false;
};

constexpr const char* kUsage =
    "usage: imgui_frame_bench [SECONDS] [HISTORY] [--projector | --empty]\n"
    "  Frames of the live view for SECONDS (default 10) while spirals-amp-fp16 trains flat out,\n"
    "  after HISTORY steps (default 100000) trained first. Run it under\n"
    "  xvfb-run -a -s \"-screen 0 1600x1000x24\" for the README's conditions.\n"
    "  --projector  the projector look        --empty  only the cleared window (the driver's floor)\n";

// Exits 0 on --help, 2 on anything it does not know.
Options parse(int argc, char** argv) {
    Options o;
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        char* end = nullptr;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (a == "--projector") {
            o.projector = true;
        } else if (a == "--empty") {
            o.empty = true;
        } else if (positional == 0 && (o.seconds = std::strtod(argv[i], &end)) > 0 && *end == 0) {
            ++positional;
        } else if (positional == 1 && (o.history = std::strtol(argv[i], &end, 10)) >= 0 && *end == 0) {
            ++positional;
        } else {
            std::fprintf(stderr, "imgui_frame_bench: unexpected '%s'\n%s", argv[i], kUsage);
            std::exit(2);
        }
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const double seconds = o.seconds;
    const long history = o.history;
    const bool projector = o.projector, empty = o.empty;
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
    Times vertices, indices, commands;  // counts, not ms
    const ThreadTimes cpu0 = thread_times();
    const Clock::time_point run = Clock::now();
    while (ms_since(run) < seconds * 1000) {
        const Clock::time_point t0 = Clock::now();
        window.begin_frame();
        if (!empty) app.frame();
        const Clock::time_point t1 = Clock::now();
        window.render();
        window.finish();
        count_submitted(*ImGui::GetDrawData(), vertices, indices, commands);
        build.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        draw.ms.push_back(ms_since(t1));
        window.swap();
        frame.ms.push_back(ms_since(t0));
    }
    const double elapsed = ms_since(run) / 1000;
    const ThreadTimes cpu1 = thread_times();
    const std::int64_t trained = app.session().snapshot()->step - step0;
    app.session().pause();
    std::printf("%zu frames in %.1f s: %.1f frames/s while training %lld more steps (%.0f steps/s)%s\n", frame.ms.size(),
                elapsed, static_cast<double>(frame.ms.size()) / elapsed, static_cast<long long>(trained),
                static_cast<double>(trained) / elapsed, projector ? ", projector" : (empty ? ", empty frames" : ""));
    std::printf("frame ms:            median %6.2f  p95 %6.2f\n", frame.at(0.5), frame.at(0.95));
    std::printf("  build (CPU) ms:    median %6.2f  p95 %6.2f   (events, presenters, ImGui draw lists)\n", build.at(0.5),
                build.at(0.95));
    std::printf("  GL draw ms:        median %6.2f  p95 %6.2f   (ImGui::Render, OpenGL, glFinish)\n", draw.at(0.5),
                draw.at(0.95));
    std::printf("submitted a frame:   median %.0f vertices, %.0f indices (%.0f triangles), %.0f draw calls\n",
                vertices.at(0.5), indices.at(0.5), indices.at(0.5) / 3, commands.at(0.5));
    const double n = std::max<double>(1, static_cast<double>(frame.ms.size()));
    std::printf("CPU ms a frame:      UI thread %.2f + llvmpipe's threads %.2f = %.2f   (trainer and others %.2f)\n",
                (cpu1.ui - cpu0.ui) / n, (cpu1.llvmpipe - cpu0.llvmpipe) / n,
                (cpu1.ui - cpu0.ui + cpu1.llvmpipe - cpu0.llvmpipe) / n, (cpu1.other - cpu0.other) / n);
    print_heaviest_lists();
    return 0;
}
