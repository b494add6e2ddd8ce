// The events panel as a person uses it: rows newest first from a hand-made
// log, a click on a row jumps to that row's step, a kind unticked leaves the
// table.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QItemSelectionModel>
#include <QTableView>
#include <QTest>
#include <vector>

#include "engine/train/preset_io.h"
#include "ui/qt/events_panel.h"

namespace plab {
namespace {

// `steps` steps in a log keeping 4 records and 8 series points. After ten
// the series holds 1-2, 3-4, 5-6, 7-8, 9-10 and the records 7-10. Step 2
// overflows and backs off (from the series only), steps 9 and 11 grow, an
// edit after step 5.
SessionSnapshot snapshot_of(std::int64_t steps) {
    RunLog log(RunLogLimits{4, 8, 100});
    for (std::int64_t s = 1; s <= steps; ++s) {
        StepRecord r;
        r.step = s;
        r.loss = 1;
        r.scale = r.scale_after = 1024;
        if (s == 2) {
            r.found_inf = r.skipped = r.backoff = true;
            r.scale_after = 512;
        }
        if (s == 9 || s == 11) r.growth = true;
        log.append(r);
        if (s == 5) log.add_edit(5, "scaler.growth_interval=4");
    }
    SessionSnapshot snap;
    snap.main.config = std::make_shared<const RunConfig>(load_preset("scaler-sawtooth"));
    snap.main.log = log.view();
    return snap;
}

QString cell(const QTableView* t, int row, int column) {
    return t->model()->data(t->model()->index(row, column)).toString();
}

void click_row(QTableView* t, int row) {
    const QRect r = t->visualRect(t->model()->index(row, 2));
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, r.center());
}

TEST(EventsPanel, RowsNewestFirstAClickJumpsAndTheSelectionStays) {
    std::vector<std::int64_t> jumps;
    qt::EventsPanel panel([&](std::int64_t step) { jumps.push_back(step); });
    panel.resize(800, 450);
    panel.show();
    panel.show_snapshot(snapshot_of(10));
    QTableView* t = panel.table();
    ASSERT_EQ(t->model()->rowCount(), 4);
    EXPECT_EQ(cell(t, 0, 0), "9");
    EXPECT_EQ(cell(t, 0, 1), "growth");
    EXPECT_EQ(cell(t, 1, 2), "scaler.growth_interval=4");
    EXPECT_EQ(cell(t, 2, 0), "1-2");
    EXPECT_EQ(cell(t, 2, 1), "backoff");
    EXPECT_EQ(cell(t, 3, 1), "overflow");

    click_row(t, 0);
    click_row(t, 1);
    click_row(t, 3);
    EXPECT_EQ(jumps, (std::vector<std::int64_t>{9, 5, 1}));

    // A newer event comes in above: the selected overflow row stays selected.
    panel.show_snapshot(snapshot_of(11));
    ASSERT_EQ(t->model()->rowCount(), 5);
    EXPECT_EQ(cell(t, 0, 0), "11");
    const QModelIndexList selected = t->selectionModel()->selectedRows();
    ASSERT_EQ(selected.size(), 1);
    EXPECT_EQ(selected.front().row(), 4);

    panel.kind_box(EventKind::backoff)->setChecked(false);
    ASSERT_EQ(t->model()->rowCount(), 4);
    EXPECT_EQ(cell(t, 3, 1), "overflow");
    panel.kind_box(EventKind::backoff)->setChecked(true);
    EXPECT_EQ(t->model()->rowCount(), 5);
}

}  // namespace
}  // namespace plab
