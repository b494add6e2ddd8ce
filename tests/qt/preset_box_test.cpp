// The toolbar's preset chooser tells what each preset shows: its file's
// one-line description, on the entries of the list and on the closed chooser.
#include <gtest/gtest.h>

#include <QComboBox>
#include <filesystem>
#include <fstream>

#include "ui/qt/main_window.h"
#include "temp_path.h"

namespace {

// assets/presets/spirals-amp-fp16.json's "description".
const QString kSpirals =
    "3-arm spirals in AMP FP16 with PyTorch's dynamic loss scaler (2^16, doubled after 2000 clean steps): no "
    "overflow, and loss and accuracy track the FP32 twin";

TEST(PresetBox, EachPresetShowsItsDescription) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    QComboBox* box = window.preset_box();
    const int i = box->findText("spirals-amp-fp16");
    ASSERT_GE(i, 0);
    EXPECT_EQ(box->itemData(i, Qt::ToolTipRole).toString(), "<p>" + kSpirals.toHtmlEscaped() + "</p>");
    EXPECT_EQ(box->toolTip(), "<p>spirals-amp-fp16: " + kSpirals.toHtmlEscaped() + "</p>");
    EXPECT_EQ(box->statusTip(), "spirals-amp-fp16: " + kSpirals);
    for (int k = 0; k < box->count(); ++k) {  // every shipped preset loads and has a description
        const QString about = box->itemData(k, Qt::ToolTipRole).toString();
        EXPECT_FALSE(about.startsWith("<p>does not load") || about == "<p>(no description)</p>") << about.toStdString();
    }
}

// A preset opened from a file, not in the library's list, is what the
// closed chooser names (it joins the list), not the preset shown before.
TEST(PresetBox, APresetFileOpenedNamesItself) {
    const std::filesystem::path file = plab::testing_support::temp_path("plab-preset-box-test", ".json");
    {
        std::ofstream out(file);
        out << R"({"name": "my-demo", "description": "a copy for the class", "steps": 10})";
    }
    plab::qt::MainWindow window(file.string(), false);
    QComboBox* box = window.preset_box();
    EXPECT_EQ(box->currentText().toStdString(), file.string());
    EXPECT_GE(box->findText("spirals-amp-fp16"), 0);  // the library's presets are still there
    std::filesystem::remove(file);
}

}  // namespace
