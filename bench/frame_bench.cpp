// Frames of the whole workbench while the session trains flat out on its
// worker thread: each frame takes the latest snapshot, hands it to every
// shown panel and paints the window (offscreen). The goal is 60 frames a
// second, the UI thread never waiting for the trainer, and each panel's
// update within 5 ms.
//
// Wall-clock frame times are noisy on a small shared machine, so it also
// reports the UI thread's CPU time per frame, and per panel the time of its
// show_snapshot and of its paint events.
//   QT_QPA_PLATFORM=offscreen build/dev/bench/frame_bench [seconds] [--panel ID]... [--history STEPS] [--shot PATH]
// --panel raises that panel's tab before measuring (e.g. divergence);
// --history trains that many steps first, for a long history;
// --shot saves the window as the last frame drew it, mid-training.
#include <QApplication>
#include <QChartView>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QElapsedTimer>
#include <QPaintEvent>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "ui/qt/main_window.h"

namespace {

using plab::qt::Panel;

std::int64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

const Panel* panel_of(const QWidget* w) {
    for (; w; w = w->parentWidget())
        if (const auto* p = dynamic_cast<const Panel*>(w)) return p;
    return nullptr;
}

// Wall and UI-thread CPU nanoseconds, summed over a frame.
struct Cost {
    std::int64_t wall = 0, cpu = 0;
};

// Times `fn` into `cost`.
template <typename Fn>
void timed(Cost& cost, Fn fn) {
    QElapsedTimer clock;
    clock.start();
    const std::int64_t cpu0 = thread_cpu_ns();
    fn();
    cost.cpu += thread_cpu_ns() - cpu0;
    cost.wall += clock.nsecsElapsed();
}

// Books the time of every paint event to the panel whose widget it is for
// (nullptr: the window's own widgets: toolbar, dock titles, status bar), and
// of every other event the frame's processEvents() dispatches to its type
// (layout requests, the update request that holds the paints, ...).
class TimedApp : public QApplication {
public:
    using QApplication::QApplication;
    std::map<const Panel*, Cost> paint;
    std::map<int, Cost> events;     // by QEvent::Type, outermost events only
    const QObject* frame = nullptr;  // the bench's frame timer, whose event is the frame itself

    bool notify(QObject* receiver, QEvent* event) override {
        bool done = false;
        auto dispatch = [&] {
            ++depth_;
            done = QApplication::notify(receiver, event);
            --depth_;
        };
        const bool top = depth_ == (frame_depth_ >= 0 ? frame_depth_ + 1 : 0);
        if (receiver == frame && event->type() == QEvent::Timer) {
            frame_depth_ = depth_;
            dispatch();
            frame_depth_ = -1;
        } else if (event->type() == QEvent::Paint && !painting_ && receiver->isWidgetType()) {
            painting_ = true;
            Cost c;
            timed(c, dispatch);
            Cost& p = paint[panel_of(static_cast<QWidget*>(receiver))];
            p.wall += c.wall;
            p.cpu += c.cpu;
            painted_.wall += c.wall;
            painted_.cpu += c.cpu;
            painting_ = false;
        } else if (top) {
            // Less the paints inside it: they are booked to their panels.
            const Cost before = painted_;
            Cost c;
            timed(c, dispatch);
            Cost& e = events[event->type()];
            e.wall += c.wall - (painted_.wall - before.wall);
            e.cpu += c.cpu - (painted_.cpu - before.cpu);
        } else {
            dispatch();
        }
        return done;
    }

private:
    int depth_ = 0;
    int frame_depth_ = -1;
    bool painting_ = false;
    Cost painted_;  // all paints so far
};

struct Quantiles {
    double median = 0, p95 = 0, max = 0, mean = 0;
};

Quantiles quantiles(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]; };
    double sum = 0;
    for (double x : v) sum += x;
    return {at(0.5), at(0.95), v.back(), sum / static_cast<double>(v.size())};
}

}  // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApp app(argc, argv);
    double seconds = 5.0;
    long long history = 0;
    std::vector<QString> raise;
    QString shot;  // --shot PATH: the window as the last frame left it, still training
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--panel") && i + 1 < argc)
            raise.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--shot") && i + 1 < argc)
            shot = argv[++i];
        else if (!std::strcmp(argv[i], "--history") && i + 1 < argc)
            history = std::atoll(argv[++i]);
        else
            seconds = std::atof(argv[i]);
    }
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.stop_frame_timer();  // every frame is this bench's, so that none goes unmeasured
    window.resize(1600, 1000);
    window.show();
    for (const QString& id : raise) {
        if (Panel* p = window.panel(id)) window.show_panel(p);
        else std::fprintf(stderr, "no panel '%s'\n", id.toUtf8().constData());
    }
    window.session().set("steps=10000000");  // long enough to train through the whole measurement
    if (history > 0) {
        window.session().step(history);
        window.session().wait_until_idle();
    }
    const std::int64_t step0 = window.session().snapshot()->step;
    QApplication::processEvents();
    window.refresh();
    window.session().play();

    // Per frame: wall and UI-thread CPU time, and each panel's update and paint.
    std::vector<double> wall_ms, cpu_ms;
    struct Series {
        std::vector<double> wall, cpu;  // ms per frame, 0 where it did nothing
    };
    std::map<const Panel*, Series> update_ms, paint_ms;
    std::map<const Panel*, Cost> update;
    window.route_panel_updates([&](Panel& p, const plab::SessionSnapshot& s) {
        timed(update[&p], [&] { p.show_snapshot(s); });
    });
    auto book = [](std::map<const Panel*, Series>& per_frame, std::map<const Panel*, Cost>& costs, std::size_t frame) {
        for (auto& [panel, c] : costs) per_frame[panel];
        for (auto& [panel, v] : per_frame) {
            v.wall.resize(frame, 0.0);
            v.cpu.resize(frame, 0.0);
            const auto c = costs.find(panel);
            if (c == costs.end()) continue;
            v.wall.back() = static_cast<double>(c->second.wall) / 1e6;
            v.cpu.back() = static_cast<double>(c->second.cpu) / 1e6;
        }
        costs.clear();
    };
    // How often each panel's chart axes change range: each change lays the axis out again.
    std::map<std::string, long> axis_moves;
    for (const QChartView* view : window.findChildren<QChartView*>()) {
        const Panel* panel = panel_of(view);
        for (QAbstractAxis* axis : view->chart()->axes()) {
            const std::string key = (panel ? panel->id().toStdString() : std::string("?")) +
                                    (axis->orientation() == Qt::Horizontal ? " x" : " y");
            auto count = [&axis_moves, key] { ++axis_moves[key]; };
            if (auto* v = qobject_cast<QValueAxis*>(axis)) QObject::connect(v, &QValueAxis::rangeChanged, count);
            if (auto* l = qobject_cast<QLogValueAxis*>(axis)) QObject::connect(l, &QLogValueAxis::rangeChanged, count);
        }
    }
    app.paint.clear();
    app.events.clear();
    QElapsedTimer clock;
    clock.start();
    const std::int64_t cpu_start = thread_cpu_ns();
    QTimer frames;
    app.frame = &frames;
    QObject::connect(&frames, &QTimer::timeout, [&] {
        QElapsedTimer t;
        t.start();
        const std::int64_t cpu0 = thread_cpu_ns();
        window.refresh();
        QApplication::processEvents();  // the paint events the refresh posted, as the screen would take them
        cpu_ms.push_back(static_cast<double>(thread_cpu_ns() - cpu0) / 1e6);
        wall_ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        book(update_ms, update, wall_ms.size());
        book(paint_ms, app.paint, wall_ms.size());
        if (clock.elapsed() > seconds * 1000) app.quit();
    });
    frames.start(16);
    app.exec();
    if (!shot.isEmpty()) window.grab().save(shot);
    const double thread_cpu = static_cast<double>(thread_cpu_ns() - cpu_start) / 1e6;
    const double elapsed = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    const auto snap = window.session().snapshot();
    window.session().pause();

    const std::size_t n = wall_ms.size();
    std::printf("%zu frames in %.1f s: %.1f frames/s while training %lld steps (%.0f steps/s), history %lld..%lld\n", n,
                elapsed, static_cast<double>(n) / elapsed, static_cast<long long>(snap->step - step0),
                static_cast<double>(snap->step - step0) / elapsed, static_cast<long long>(step0),
                static_cast<long long>(snap->step));
    const Quantiles w = quantiles(wall_ms), c = quantiles(cpu_ms);
    std::printf("frame wall ms:          median %6.2f  p95 %6.2f  max %6.2f\n", w.median, w.p95, w.max);
    std::printf("frame UI-thread CPU ms: median %6.2f  p95 %6.2f  max %6.2f  (all UI-thread CPU / frames: %.2f)\n",
                c.median, c.p95, c.max, thread_cpu / static_cast<double>(n));
    std::printf("per frame, ms    update: CPU mean / p95 / max, wall mean   paint: CPU mean / p95 / max, wall mean\n");
    auto name = [](const Panel* p) { return p ? p->id().toStdString() : std::string("(window)"); };
    std::map<std::string, std::pair<Series, Series>> rows;
    for (auto& [panel, v] : update_ms) rows[name(panel)].first = v;
    for (auto& [panel, v] : paint_ms) rows[name(panel)].second = v;
    for (const auto& [id, r] : rows) {
        const Quantiles uc = quantiles(r.first.cpu), uw = quantiles(r.first.wall);
        const Quantiles pc = quantiles(r.second.cpu), pw = quantiles(r.second.wall);
        std::printf("%-16s %11.2f %6.2f %6.2f %6.2f %18.2f %6.2f %6.2f %6.2f\n", id.c_str(), uc.mean, uc.p95, uc.max,
                    uw.mean, pc.mean, pc.p95, pc.max, pw.mean);
    }
    std::printf("axis range changes per frame:");
    for (const auto& [key, moves] : axis_moves)
        std::printf("  %s %.2f", key.c_str(), static_cast<double>(moves) / static_cast<double>(n));
    std::printf("\n");
    std::printf("other events (by QEvent::Type, paints left out), CPU ms per frame:");
    for (const auto& [type, cost] : app.events)
        if (cost.cpu > 0.01 * 1e6 * static_cast<double>(n))
            std::printf("  type %d: %.2f", type, static_cast<double>(cost.cpu) / 1e6 / static_cast<double>(n));
    std::printf("\n");
    return 0;
}
