// A person opens a recorded run in the workbench: every panel shows the
// record, the run controls rest, a scaler setting typed in the loss-scale
// panel replays the record's scaler (the what-if), Reset clears it, and a
// preset chosen afterwards trains again.
#include <gtest/gtest.h>

#include <QAction>
#include <QSpinBox>
#include <QTest>
#include <QToolBar>
#include <filesystem>
#include <fstream>

#include "error_text.h"
#include <QTableView>

#include "ui/qt/events_panel.h"
#include "ui/qt/histogram_panel.h"
#include "ui/qt/main_window.h"
#include "ui/qt/scale_panel.h"
#include "cli/written_run.h"
#include "temp_path.h"

namespace {

std::string saved_record(const std::string& preset, int steps) {
    const plab::WrittenRun written = plab::train_and_write(preset, steps);
    const auto path = plab::testing_support::temp_path("plab-qt-open-" + preset, ".jsonl");
    std::ofstream(path, std::ios::binary) << written.text;
    return path.string();
}

QAction* toolbar_action(plab::qt::MainWindow& window, const QString& text) {
    for (QToolBar* bar : window.findChildren<QToolBar*>())
        for (QAction* a : bar->actions())
            if (a->text() == text) return a;
    return nullptr;
}

TEST(OpenRecord, TheWorkbenchShowsARecordAndReplaysATypedScalerSetting) {
    const std::string file = saved_record("scaler-sawtooth", 120);
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    window.open_run(file, false);
    ASSERT_NE(window.record(), nullptr);
    window.refresh();
    QAction* play = toolbar_action(window, "▶ Play");
    ASSERT_NE(play, nullptr);
    EXPECT_FALSE(play->isEnabled());
    EXPECT_TRUE(window.windowTitle().contains("recorded run"));

    QSpinBox* box = window.scale_panel()->growth_interval_box();
    const int recorded = window.record()->config.scaler.growth_interval;
    EXPECT_EQ(box->value(), recorded);  // the record's own setting
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, "7");
    QTest::keyClick(box, Qt::Key_Return);  // editingFinished: a what-if, not a live edit
    window.refresh();
    EXPECT_EQ(window.session().snapshot()->main.log.edits.size(), 0u);  // the session is untouched
    // The what-if is the record's scaler replayed with growth every 7 steps,
    // drawn as the fork of what the panels are shown.
    const auto shown = window.snapshot();
    ASSERT_TRUE(shown->record && shown->fork);
    EXPECT_EQ(shown->record->replayed, "scaler.growth_interval=7");
    EXPECT_EQ(shown->fork->config->scaler.growth_interval, 7);
    EXPECT_EQ(shown->fork->log.totals.steps, 120);
    EXPECT_EQ(box->value(), 7);
    EXPECT_TRUE(window.scale_panel()->what_if_shown());

    QAction* reset = toolbar_action(window, "⟲ Reset");
    ASSERT_NE(reset, nullptr);
    reset->trigger();
    EXPECT_FALSE(window.scale_panel()->what_if_shown());
    EXPECT_EQ(box->value(), recorded);

    // A bad record leaves the record shown as it was.
    const auto bad = plab::testing_support::temp_path("plab-qt-open-bad", ".jsonl");
    std::ofstream(bad) << "step,loss\n1,0.5\n";
    EXPECT_EQ(plab::testing_support::error_of([&] { window.open_run(bad.string(), false); }),
              bad.string() + " line 1: not a run record (not JSON Lines)");
    EXPECT_EQ(window.record()->file, file);
}

// A click on an event older than the steps the opened record holds shows
// that step's histograms, read again from the file.
TEST(OpenRecord, AnOldEventShowsItsHistogramsFromTheFile) {
    const std::string file = saved_record("scaler-sawtooth", static_cast<int>(plab::kOpenedLayerSteps) + 200);
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.resize(1600, 1000);
    window.show();
    window.open_run(file, false);
    auto* events = static_cast<plab::qt::EventsPanel*>(window.panel("events"));
    window.show_panel(events);
    window.redraw();
    QTableView* table = events->table();
    const int every = window.record()->config.telemetry.hist_every;
    // The oldest event after the first histogram step: before the steps the record holds.
    int last = table->model()->rowCount() - 1;
    while (last > 0 && events->shown().rows[static_cast<std::size_t>(last)].step < every) --last;
    const std::int64_t step = events->shown().rows[static_cast<std::size_t>(last)].step;
    ASSERT_GE(step, every);
    ASSERT_LT(step, 200) << "the event should lie before the steps the record holds";
    table->scrollTo(table->model()->index(last, 2));
    const QRect r = table->visualRect(table->model()->index(last, 2));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, r.center());
    auto* histograms = static_cast<plab::qt::HistogramPanel*>(window.panel("histograms"));
    ASSERT_NE(histograms->shown_record(), nullptr);
    EXPECT_EQ(histograms->shown_record()->step, step / every * every);
    EXPECT_TRUE(histograms->shown_record()->histograms);
}

}  // namespace
