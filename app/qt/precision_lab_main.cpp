// precision-lab: the Qt workbench. Without --screenshot it opens the window
// on a preset; with it, it trains --steps steps, renders the window (or one
// panel) into an image and exits, which is how the test suite and the README
// screenshots see it.
#include <CLI/CLI.hpp>

#include <QApplication>
#include <QFileInfo>
#include <QImageWriter>
#include <QPixmap>
#include <QSaveFile>
#include <QSettings>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend_choice.h"
#include "engine/common/error.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/main_window.h"
#if PLAB_HAVE_CUDA
#include "kernels/cuda_backend_factory.h"
#endif

namespace {

struct Options {
    std::string preset = "spirals-amp-fp16";
    std::int64_t steps = 0;
    std::string screenshot;
    std::string panel;
    bool dark = false;
    bool projector = false;
    std::int64_t fork_at = -1;
    std::vector<std::string> fork_set;
    std::int64_t after_fork = 0;
    std::string open;
    std::vector<std::string> what_if;
};

QString panel_ids(const plab::qt::MainWindow& w) {
    QString ids;
    for (const plab::qt::Panel* p : w.panels()) ids += (ids.isEmpty() ? "" : "|") + p->id();
    return ids;
}

// Lets the window lay itself out at its final size before anything is drawn.
void settle(QApplication& app) {
    for (int i = 0; i < 5; ++i) app.processEvents();
}

// Draws the panels, lets the session finish what drawing asked of it (the
// NaN panel asks for a trace of the first non-finite step), then draws
// again, laid out: what a person sees a moment after the window settles.
void draw_settled(QApplication& app, plab::qt::MainWindow& window) {
    window.redraw();
    window.session().wait_until_idle();
    settle(app);
    window.redraw();
    settle(app);
}

int take_screenshot(QApplication& app, plab::qt::MainWindow& window, const Options& o) {
    // Sized after the first layout, as MainWindow::show_fitted does, but the
    // same size whatever the screen: a screenshot is the same everywhere (in
    // projector mode a projector's 1920x1080).
    window.show();
    settle(app);
    window.resize(o.projector ? QSize(1920, 1080) : QSize(1600, 1000));
    settle(app);
    if (o.steps > 0) {
        window.session().step(o.steps);
        window.session().wait_until_idle();
    }
    if (o.fork_at >= 0) {
        plab::Session& session = window.session();
        session.fork(o.fork_at, o.fork_set);
        if (o.after_fork > 0) session.step(o.after_fork);
        session.wait_until_idle();
        const auto snap = session.snapshot();
        if (!snap->fork) {
            std::cerr << "precision-lab: --fork: " << snap->last_error << '\n';
            return 2;
        }
    }
    window.refresh();
    settle(app);
    draw_settled(app, window);  // once more at the laid-out plot widths
    QWidget* target = &window;
    if (!o.panel.empty()) {
        plab::qt::Panel* panel = window.panel(QString::fromStdString(o.panel));
        if (!panel) {
            std::cerr << "precision-lab: --panel: unknown panel '" << o.panel
                      << "'; allowed: " << panel_ids(window).toStdString() << '\n';
            return 2;
        }
        window.show_panel(panel);  // a tabbed panel comes to the front, laid out at its size
        settle(app);
        panel->settle_for_screenshot();
        settle(app);
        draw_settled(app, window);
        target = panel;
    }
    const QPixmap image = target->grab();
    // A temporary file beside the target, renamed when complete (QSaveFile):
    // a full disk never leaves a truncated image under the name.
    const QString path = QString::fromStdString(o.screenshot);
    const QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
    if (!QImageWriter::supportedImageFormats().contains(format)) {
        std::cerr << "precision-lab: --screenshot: '" << o.screenshot
                  << "' must end in an image format's suffix (.png, .jpg, .bmp, ...)\n";
        return 2;
    }
    QSaveFile file(path);
    QImageWriter writer(&file, format);
    if (!file.open(QIODevice::WriteOnly) || !writer.write(image.toImage()) || !file.commit()) {
        const QString why = writer.error() != QImageWriter::UnknownError ? writer.errorString() : file.errorString();
        std::cerr << "precision-lab: --screenshot: cannot write '" << o.screenshot << "': " << why.toStdString()
                  << '\n';
        return 2;
    }
    std::cout << "screenshot: " << o.screenshot << " (" << image.width() << "x" << image.height() << ")\n";
    return 0;
}

// Qt aborts when it finds no display to open (its platform plugin fails);
// say so in a line instead. QT_QPA_PLATFORM (offscreen, vnc, ...) counts as one.
bool has_display() {
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
        const char* v = std::getenv(name);
        if (v && *v) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App cli("Precision Lab workbench: watch mixed-precision training live", "precision-lab");
    CLI::Option* preset = cli.add_option("--preset", o.preset, "Preset name or .json file (default: the last one opened, "
                                                               "else spirals-amp-fp16)");
    cli.add_option("--steps", o.steps, "Steps to train before showing (with --screenshot: before the capture)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{10000000}));
    CLI::Option* screenshot =
        cli.add_option("--screenshot", o.screenshot, "Render into this image file (PNG, ...) and exit");
    cli.add_option("--panel", o.panel, "With --screenshot: only this panel (histograms|scale|loss|bits|divergence|events|nan|decision|scenario|speed|samples|sweep; sweep trains its default grid first)");
    CLI::Option* open = cli.add_option("--open", o.open,
                                       "Open a run record (plab run --out, File > Export run, or a PyTorch run "
                                       "recorded by plab_probe) in place of training a preset");
    cli.add_option("--what-if", o.what_if,
                   "With --open: replay the record's loss scaler with this scaler setting, e.g. "
                   "scaler.init_scale=1024 (repeatable), drawn over the recorded trajectory")
        ->needs(open);
    cli.add_flag("--dark", o.dark, "Dark theme");
    cli.add_flag("--projector", o.projector, "Projector mode: fonts and lines 1.5 times larger (View menu, F8)");
    CLI::Option* fork = cli.add_option("--fork", o.fork_at, "With --screenshot: fork the run at this step (<= --steps)")
                            ->check(CLI::NonNegativeNumber);
    cli.add_option("--fork-set", o.fork_set, "A change for the fork, KEY.PATH=VALUE (repeatable)")->needs(fork);
    cli.add_option("--after-fork", o.after_fork, "Steps both runs train after the fork")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{10000000}))
        ->needs(fork);
    cli.footer(
        "\nIn the window: Space play, P pause, S step, Shift+S 100 steps, Ctrl+R reset, Ctrl+F fork, Ctrl+E export run.\n"
        "Examples:\n"
        "  precision-lab                                          the last preset (first time: spirals-amp-fp16)\n"
        "  precision-lab --preset scaler-sawtooth --steps 300     open after 300 steps\n"
        "  precision-lab --steps 600 --screenshot shot.png        train, render the window into shot.png, exit\n"
        "  precision-lab --steps 600 --panel histograms --screenshot h.png\n"
        "  precision-lab --open run.jsonl                         look at a recorded run (your own PyTorch run: docs/probe.md)\n"
        "  precision-lab --open run.jsonl --what-if scaler.init_scale=1024 --panel scale --screenshot s.png\n"
        "Exit codes: 0 done; 2 bad input (the message names the option or preset field); 3 no display\n"
        "(DISPLAY and WAYLAND_DISPLAY unset: for a screenshot without one, set QT_QPA_PLATFORM=offscreen).");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "precision-lab: " << e.what() << " (see --help)\n";
        return 2;
    }
    if (screenshot->count() > 0 && o.screenshot.empty()) {
        std::cerr << "precision-lab: --screenshot: an empty file name; give the image file to write\n";
        return 2;
    }
    if (!o.open.empty() && (o.steps > 0 || o.fork_at >= 0 || preset->count() > 0)) {
        std::cerr << "precision-lab: --open shows a recorded run: it takes no --preset, --steps or --fork\n";
        return 2;
    }
    if ((!o.panel.empty() || o.fork_at >= 0) && o.screenshot.empty()) {
        std::cerr << "precision-lab: --panel and --fork need --screenshot\n";
        return 2;
    }

    if (!has_display()) {
        std::cerr << "precision-lab: no display (DISPLAY and WAYLAND_DISPLAY are unset); run it on a desktop, or "
                     "render with QT_QPA_PLATFORM=offscreen precision-lab --screenshot FILE\n";
        return 3;
    }
#if PLAB_HAVE_CUDA
    plab::set_cuda_backend_factory(plab::cuda_backend_factory());
#endif
    QApplication app(argc, argv);
    QApplication::setOrganizationName("PrecisionLab");
    QApplication::setApplicationName("precision-lab");
    const bool interactive = o.screenshot.empty();
    plab::qt::set_dark_theme(o.dark || (interactive && QSettings().value("theme/dark", false).toBool()));
    plab::qt::set_projector(o.projector || (interactive && QSettings().value("theme/projector", false).toBool()));
    const std::string fallback = o.preset;
    const bool remembered = interactive && preset->count() == 0 && o.open.empty();
    if (remembered) o.preset = QSettings().value("run/preset", QString::fromStdString(o.preset)).toString().toStdString();
    try {
        // The preset remembered from last time may have moved or been
        // deleted since: the workbench then opens on the default instead.
        std::unique_ptr<plab::qt::MainWindow> opened;
        try {
            opened = std::make_unique<plab::qt::MainWindow>(o.preset, interactive);
        } catch (const plab::Error& e) {
            if (!remembered || o.preset == fallback) throw;
            std::cerr << "precision-lab: the last preset opened no longer loads (" << e.what() << "); opening "
                      << fallback << '\n';
            opened = std::make_unique<plab::qt::MainWindow>(fallback, interactive);
        }
        plab::qt::MainWindow& window = *opened;
        if (!o.open.empty()) {
            window.open_run(o.open, interactive);
            if (!o.what_if.empty()) {
                plab::require_read_what_if(*window.record(), o.what_if);
                window.set_what_if(o.what_if);
            }
        }
        if (!interactive) return take_screenshot(app, window, o);
        window.show_fitted(QSize(1600, 1000));
        if (o.steps > 0) window.session().step(o.steps);
        return app.exec();
    } catch (const plab::Error& e) {
        std::cerr << "precision-lab: " << e.what() << '\n';
        return 2;
    }
}
