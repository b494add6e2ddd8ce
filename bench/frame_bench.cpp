// Frames of the whole workbench while the session trains flat out on its
// worker thread: each frame takes the latest snapshot, hands it to every
// panel and paints the window (offscreen). Prints frames per second and the
// frame-time distribution; the goal is 60 frames a second, the UI thread never
// waiting for the trainer.
//   QT_QPA_PLATFORM=offscreen build/dev/bench/frame_bench [seconds]
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "ui/qt/main_window.h"

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.resize(1600, 1000);
    window.show();
    window.session().set("steps=1000000");  // long enough to train through the whole measurement
    window.session().play();

    std::vector<double> frame_ms;
    QElapsedTimer clock;
    clock.start();
    QTimer frames;
    QObject::connect(&frames, &QTimer::timeout, [&] {
        QElapsedTimer t;
        t.start();
        window.refresh();
        QApplication::processEvents();  // the paint events the refresh posted, as the screen would take them
        frame_ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (clock.elapsed() > seconds * 1000) app.quit();
    });
    frames.start(16);
    app.exec();
    const auto snap = window.session().snapshot();
    window.session().pause();
    std::sort(frame_ms.begin(), frame_ms.end());
    auto at = [&](double q) { return frame_ms[static_cast<std::size_t>(q * static_cast<double>(frame_ms.size() - 1))]; };
    std::printf("%zu frames in %.1f s: %.1f frames/s while training %lld steps (%.0f steps/s)\n", frame_ms.size(),
                seconds, static_cast<double>(frame_ms.size()) / seconds, static_cast<long long>(snap->step),
                static_cast<double>(snap->step) / seconds);
    std::printf("frame time ms: median %.2f, p95 %.2f, max %.2f\n", at(0.5), at(0.95), frame_ms.back());
    return 0;
}
