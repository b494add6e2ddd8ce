// The Speed & memory panel as a person sees it: for a GPT preset the
// framework's table with a row per recipe and no lab table, for an MLP both;
// every table shown whole (no column or row cut off: the panel scrolls).
#include <gtest/gtest.h>

#include <QHeaderView>
#include <QTableWidget>
#include <memory>

#include "engine/train/preset_io.h"
#include "ui/qt/speed_memory_panel.h"

namespace {

plab::SessionSnapshot snapshot_of(const std::string& preset) {
    plab::SessionSnapshot s;
    s.main.config = std::make_shared<const plab::RunConfig>(plab::load_preset(preset));
    return s;
}

// A table at its fixed size holds all of its columns and rows.
void expect_whole(const QTableWidget* t) {
    EXPECT_GE(t->width(), t->horizontalHeader()->length()) << "columns cut off";
    EXPECT_GE(t->height(), t->horizontalHeader()->sizeHint().height() + t->verticalHeader()->length())
        << "rows cut off";
}

TEST(SpeedMemoryPanel, AGptShowsWhatPyTorchHoldsAndSaysWhyNotTheLabsBuffers) {
    plab::qt::SpeedMemoryPanel panel;
    panel.resize(500, 400);  // narrower than the tables: they must not be squeezed
    panel.show_snapshot(snapshot_of("tiny-gpt-amp-fp16"));
    const QTableWidget* t = panel.framework_table();
    ASSERT_EQ(t->rowCount(), 7);
    EXPECT_EQ(t->item(2, 0)->text(), "amp-fp16");
    EXPECT_EQ(t->horizontalHeaderItem(2)->text(), "16-bit/FP8 copies");
    EXPECT_TRUE(t->item(2, 5)->text().contains('\n'));  // FP32 and FP16 activations, a line each
    expect_whole(t);
    EXPECT_EQ(panel.lab_table()->rowCount(), 0);
    EXPECT_TRUE(panel.lab_text().contains("this model has attention blocks")) << panel.lab_text().toStdString();
}

TEST(SpeedMemoryPanel, AnMlpShowsBothTables) {
    plab::qt::SpeedMemoryPanel panel;
    panel.resize(500, 400);  // narrower than the tables: they must not be squeezed
    panel.show_snapshot(snapshot_of("spirals-amp-fp16"));
    ASSERT_EQ(panel.framework_table()->rowCount(), 7);
    ASSERT_EQ(panel.lab_table()->rowCount(), 4);
    EXPECT_EQ(panel.lab_table()->item(3, 0)->text(), "amp-bf16");
    expect_whole(panel.framework_table());
    expect_whole(panel.lab_table());
}

}  // namespace
