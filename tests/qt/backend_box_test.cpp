// The toolbar's backend chooser: the CPU always; the GPU by name when the
// build and the machine have one, else present but disabled, saying why.
// Tests register no CUDA factory, so here it says the build has none.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>

#include "engine/backend/backend_choice.h"
#include "ui/qt/main_window.h"

namespace {

QComboBox* backend_box(plab::qt::MainWindow& window) {
    for (QComboBox* box : window.findChildren<QComboBox*>())
        if (box->findData("cuda") >= 0) return box;
    return nullptr;
}

TEST(BackendBox, OffersTheCpuAndSaysWhyThereIsNoGpu) {
    ASSERT_EQ(plab::cuda_unavailable_reason(), "this build has no CUDA backend");
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    QComboBox* box = backend_box(window);
    ASSERT_NE(box, nullptr);
    ASSERT_EQ(box->count(), 2);
    EXPECT_EQ(box->currentData().toString(), "cpu");
    EXPECT_EQ(box->itemText(0), "CPU (exact emulation)");
    EXPECT_EQ(box->itemText(1), "GPU: this build has no CUDA backend");
    const auto* model = qobject_cast<QStandardItemModel*>(box->model());
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->item(0)->isEnabled());
    EXPECT_FALSE(model->item(1)->isEnabled());
    EXPECT_TRUE(box->toolTip().contains("this build has no CUDA backend"));
}

}  // namespace
