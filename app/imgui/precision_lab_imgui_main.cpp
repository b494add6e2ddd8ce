// precision-lab-imgui: the live view, for demos and quick diagnosis. Without
// --screenshot it opens its window on a preset and runs until closed; with
// it, it trains --steps steps, renders one frame into a PNG and exits, which
// is how the test suite and the README see it.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "ui/imgui/gl_window.h"
#include "ui/imgui/live_app.h"
#include "ui/present/frame_pacing.h"
#include "ui/present/live_keys.h"

namespace {

constexpr int kBadInput = 2;
constexpr int kNoWindow = 3;

struct Options {
    std::string preset = "spirals-amp-fp16";
    std::int64_t steps = 0;
    bool play = false;
    bool projector = false;
    bool help_overlay = false;
    std::string size = "1600x1000";
    std::string screenshot;
    std::string open;
    std::vector<std::string> what_if;
};

std::string keys_text() {
    std::string text = "\nKeys in the window:\n";
    for (const plab::KeyHelp& k : plab::live_key_help()) {
        std::string keys = k.keys_text;
        keys.resize(std::max<std::size_t>(keys.size(), 12), ' ');
        text += "  " + keys + k.what + "\n";
    }
    return text;
}

// "1600x1000" -> width, height; false unless both are 320..8192.
bool parse_size(const std::string& text, int& width, int& height) {
    static const std::regex shape("([0-9]{3,4})x([0-9]{3,4})");
    std::smatch m;
    if (!std::regex_match(text, m, shape)) return false;
    width = std::stoi(m[1].str());
    height = std::stoi(m[2].str());
    return width >= 320 && width <= 8192 && height >= 240 && height <= 8192;
}

// A few frames: ImGui sizes its child windows from the frame before, and
// what a frame asks of the session (the NaN panel's trace) is done before
// the next one.
int take_screenshot(plab::imgui::GlWindow& window, plab::imgui::LiveApp& app, const std::string& file) {
    plab::imgui::Image image;
    for (int i = 0; i < 4; ++i) {
        window.begin_frame();
        app.frame();
        window.render();
        if (i == 3) image = window.read_frame();
        window.swap();
        app.session().wait_until_idle();
    }
    if (!plab::imgui::write_png(file, image)) {
        std::cerr << "precision-lab-imgui: --screenshot: cannot write '" << file << "'\n";
        return kBadInput;
    }
    std::cout << "screenshot: " << file << " (" << image.width << "x" << image.height << ")\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App cli("Precision Lab live view: one window, huge plots, keyboard driven (Dear ImGui)", "precision-lab-imgui");
    cli.add_option("--preset", o.preset, "Preset name or .json file (default spirals-amp-fp16; `plab presets` lists them)");
    cli.add_option("--steps", o.steps, "Steps to train at start (with --screenshot: before the capture)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{10000000}));
    cli.add_flag("--play", o.play, "Start training at once (as if Space was pressed)");
    CLI::Option* open = cli.add_option("--open", o.open,
                                       "Show a run record (plab run --out, the workbench's export, or a PyTorch run "
                                       "recorded by plab_probe) in place of training a preset");
    cli.add_option("--what-if", o.what_if,
                   "With --open: replay the record's loss scaler with this scaler setting, e.g. "
                   "scaler.init_scale=1024 (repeatable)")
        ->needs(open);
    cli.add_flag("--projector", o.projector, "Start in projector mode: large fonts, thick lines (key P toggles)");
    cli.add_flag("--help-overlay", o.help_overlay, "Start with the key help shown (key H toggles)");
    cli.add_option("--size", o.size, "Window size WIDTHxHEIGHT, 320x240 to 8192x8192 (default 1600x1000)");
    cli.add_option("--screenshot", o.screenshot, "Render one frame into this PNG file after --steps steps, then exit");
    cli.footer(keys_text() +
               "\nExamples:\n"
               "  precision-lab-imgui                                        spirals-amp-fp16, paused at step 0\n"
               "  precision-lab-imgui --preset scaler-sawtooth --play        train at once\n"
               "  precision-lab-imgui --preset overflow-nan --steps 60       open on the first NaN's diagnosis\n"
               "  precision-lab-imgui --steps 600 --screenshot shot.png      train, render shot.png, exit\n"
               "  precision-lab-imgui --open run.jsonl                       a recorded run (docs/probe.md)\n"
               "  xvfb-run -a -s \"-screen 0 1600x1000x24\" precision-lab-imgui --steps 600 --screenshot shot.png\n"
               "                                                             the same without a display\n"
               "\nExit codes: 0 done; 2 bad input (the message names the option or preset field);\n"
               "3 no window could be opened (no display or no OpenGL 3.3: try xvfb-run -a).");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "precision-lab-imgui: " << e.what() << " (see --help)\n";
        return kBadInput;
    }
    int width = 0, height = 0;
    if (!parse_size(o.size, width, height)) {
        std::cerr << "precision-lab-imgui: --size: '" << o.size
                  << "' is not WIDTHxHEIGHT with WIDTH 320..8192 and HEIGHT 240..8192, e.g. 1600x1000\n";
        return kBadInput;
    }
    if (!o.screenshot.empty() && !o.screenshot.ends_with(".png")) {
        std::cerr << "precision-lab-imgui: --screenshot: '" << o.screenshot << "' must end in .png (PNG is the only format)\n";
        return kBadInput;
    }
    if (!o.open.empty() && (o.steps > 0 || o.play)) {
        std::cerr << "precision-lab-imgui: --open shows a recorded run: it takes no --steps or --play\n";
        return kBadInput;
    }
    plab::RunConfig config;
    try {
        config = plab::load_preset(o.preset);
    } catch (const plab::Error& e) {
        std::cerr << "precision-lab-imgui: --preset: " << e.what() << '\n';
        return kBadInput;
    }
    std::unique_ptr<plab::imgui::GlWindow> window;
    try {
        window = std::make_unique<plab::imgui::GlWindow>(
            plab::imgui::WindowOptions{width, height, o.screenshot.empty(), "Precision Lab live: " + o.preset});
    } catch (const plab::Error& e) {
        std::cerr << "precision-lab-imgui: " << e.what() << '\n';
        return kNoWindow;
    }
    try {
        plab::imgui::LiveApp app(o.preset, config, window->fonts());
        app.set_projector(o.projector);
        app.show_help(o.help_overlay);
        if (!o.open.empty()) {
            app.open_record(o.open);
            if (!o.what_if.empty()) {
                plab::require_read_what_if(*app.record(), o.what_if);
                app.set_what_if(o.what_if);
            }
        }
        if (o.steps > 0) app.session().step(o.steps);
        if (!o.screenshot.empty()) {
            app.session().wait_until_idle();
            return take_screenshot(*window, app, o.screenshot);
        }
        if (o.play) app.session().play();
        plab::FramePacing pacing;
        while (!window->should_close()) {
            window->begin_frame(pacing.may_wait());
            pacing.note_frame(window->take_input_seen(), app.busy());
            app.frame();
            window->render();
            window->swap();
        }
        return 0;
    } catch (const plab::Error& e) {
        std::cerr << "precision-lab-imgui: " << e.what() << '\n';
        return kBadInput;
    }
}
