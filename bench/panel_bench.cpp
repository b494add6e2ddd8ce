// The Qt side of a redraw: a panel takes a snapshot with 100k (or 1M) steps
// of history and paints itself, offscreen, at 1600x900 — what one frame of
// the workbench costs for that panel. Compare with plot_bench (the presenters
// alone). Target: <= 5 ms.
//   build/dev/bench/panel_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <memory>

#include "bench/synthetic_run.h"
#include "engine/train/run_config.h"
#include "ui/qt/loss_panel.h"
#include "ui/qt/scale_panel.h"

namespace {

plab::SessionSnapshot snapshot_of(std::int64_t steps) {
    plab::SessionSnapshot s;
    s.step = steps;
    s.main.config = std::make_shared<const plab::RunConfig>();
    s.main.steps_done = steps;
    s.main.log = plab::bench::synthetic_log_of(steps).view();
    return s;
}

// Alternating between two snapshots, so every iteration really redraws.
template <typename PanelT, typename... Args>
void redraw(benchmark::State& state, Args... args) {
    PanelT panel(args...);
    panel.resize(1600, 900);
    panel.show();
    QApplication::processEvents();
    const plab::SessionSnapshot a = snapshot_of(state.range(0));
    const plab::SessionSnapshot b = snapshot_of(state.range(0) - 1);
    QImage image(panel.size(), QImage::Format_ARGB32_Premultiplied);
    bool flip = false;
    for (auto _ : state) {
        panel.show_snapshot(flip ? a : b);
        flip = !flip;
        QPainter painter(&image);
        panel.render(&painter);
    }
}

void scale_panel(benchmark::State& state) { redraw<plab::qt::ScalePanel>(state, [](const std::string&) {}); }
void loss_panel(benchmark::State& state) { redraw<plab::qt::LossPanel>(state); }

}  // namespace

BENCHMARK(scale_panel)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(loss_panel)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
