// The histogram panel's "all layers" choice: one small chart per layer on a
// shared x range, and a counters row per layer and chosen format; at a
// transformer's 37 tensors, the chooser grouped by block and a filter that
// narrows it and the small charts alike.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QValueAxis>
#include <cmath>

#include "ui/qt/chart_kit.h"
#include "ui/qt/counters_table.h"
#include "ui/qt/histogram_chart.h"
#include "ui/qt/histogram_panel.h"
#include "ui/qt/layer_combo.h"
#include "ui/qt/live_text.h"
#include "ui/qt/main_window.h"

namespace {

QComboBox* layer_chooser(QWidget* panel) {
    for (QComboBox* box : panel->findChildren<QComboBox*>())
        if (box->findText("all layers") >= 0) return box;
    return nullptr;
}

// Distinct colours in the image: a blank or single-colour widget has one or two.
int colours(const QImage& image) {
    QList<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            if (!seen.contains(image.pixel(x, y)) && seen.size() < 64) seen.append(image.pixel(x, y));
    return static_cast<int>(seen.size());
}

// The window shown and trained `steps` steps, its panels up to date; the histogram panel.
plab::qt::Panel* histograms_after(plab::qt::MainWindow& window, int steps) {
    window.show();
    window.session().step(steps);
    window.session().wait_until_idle();
    window.refresh();
    return window.panel("histograms");
}

TEST(HistogramPanel, AllLayersShowsSmallMultiplesAndEveryLayersCounters) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    plab::qt::Panel* panel = histograms_after(window, 20);  // histograms every 10 steps
    ASSERT_NE(panel, nullptr);
    QComboBox* layers = layer_chooser(panel);
    ASSERT_NE(layers, nullptr);
    ASSERT_EQ(layers->count(), 4);  // fc1, fc2, fc3, all layers
    EXPECT_EQ(layers->currentText(), "fc3");  // the output layer first

    layers->setCurrentIndex(layers->findText("all layers"));
    panel->resize(1000, 700);
    QApplication::processEvents();
    int shown = 0;
    for (plab::qt::HistogramChart* chart : panel->findChildren<plab::qt::HistogramChart*>()) {
        if (!chart->isVisible()) continue;
        ++shown;
        EXPECT_GT(colours(chart->grab().toImage()), 4) << "a small chart is blank";
    }
    EXPECT_EQ(shown, 3);
    QString counters;  // every label's text, in creation order: the counters table's row names among them
    for (QLabel* label : panel->findChildren<QLabel*>()) counters += label->text() + "|";
    for (const char* row : {"fc1 FP16", "fc2 FP16", "fc3 FP16", "fc1 BF16", "fc3 BF16"})
        EXPECT_TRUE(counters.contains(QString("|") + row + "|")) << row;
    panel->grab().save(QString::fromStdString(::testing::TempDir() + "histograms_all_layers.png"));

    layers->setCurrentIndex(0);  // back to one layer: one large chart
    QApplication::processEvents();
    shown = 0;
    for (plab::qt::HistogramChart* chart : panel->findChildren<plab::qt::HistogramChart*>()) shown += chart->isVisible();
    EXPECT_EQ(shown, 1);
}

// Six blocks of six tensors and the head, as the tiny GPT names them.
std::vector<std::string> six_block_names() {
    std::vector<std::string> names;
    for (int b = 0; b < 6; ++b)
        for (const char* part : {"attn.q", "attn.k", "attn.v", "attn.proj", "mlp.fc", "mlp.proj"})
            names.push_back("h" + std::to_string(b) + "." + part);
    names.push_back("head");
    return names;
}

// One step that took histograms: every layer's gradients spread over a few binades.
plab::SessionSnapshot transformer_snapshot() {
    plab::SessionSnapshot s;
    s.main.config = std::make_shared<plab::RunConfig>();
    s.main.layer_names = six_block_names();
    auto record = std::make_shared<plab::StepRecord>();
    record->step = 10;
    std::vector<plab::LayerHistograms> histograms(s.main.layer_names.size());
    for (std::size_t l = 0; l < histograms.size(); ++l)
        for (int bin = 200; bin < 220; ++bin) histograms[l].grad.bins[static_cast<std::size_t>(bin)] = 10 + bin % 7 + l;
    record->histograms = std::make_shared<const std::vector<plab::LayerHistograms>>(std::move(histograms));
    record->layers.resize(s.main.layer_names.size());
    s.main.log.recent.push_back(record);
    return s;
}

int visible_charts(QWidget* panel) {
    int shown = 0;
    for (plab::qt::HistogramChart* chart : panel->findChildren<plab::qt::HistogramChart*>()) shown += chart->isVisible();
    return shown;
}

TEST(HistogramPanel, ATransformersLayersGroupByBlockAndTheFilterNarrowsAllLayers) {
    plab::qt::HistogramPanel panel([](float) {});
    panel.resize(1000, 700);
    panel.show();
    panel.show_snapshot(transformer_snapshot());
    auto* layers = panel.findChild<plab::qt::LayerCombo*>();
    auto* filter = panel.findChild<QLineEdit*>();
    ASSERT_NE(layers, nullptr);
    ASSERT_NE(filter, nullptr);
    ASSERT_EQ(layers->count(), 44);  // 6 headers, 36 tensors, head, all layers
    EXPECT_EQ(layers->itemText(0), "h0");
    EXPECT_FALSE(qobject_cast<QStandardItemModel*>(layers->model())->item(0)->isEnabled());  // a header
    EXPECT_EQ(layers->itemText(1), "    attn.q");
    EXPECT_EQ(layers->chosen(), 36u);  // the head, nearest the loss

    filter->setText("h1.");  // block h1 alone: the head is filtered out, its last layer is shown
    EXPECT_EQ(layers->count(), 8);
    EXPECT_EQ(layers->chosen(), 11u);
    filter->clear();  // the head again: it was never chosen away from
    EXPECT_EQ(layers->chosen(), 36u);

    layers->setCurrentIndex(layers->findText("all layers"));
    QApplication::processEvents();
    QApplication::processEvents();  // the counters' new rows are shown a turn later
    EXPECT_EQ(visible_charts(&panel), 37);
    for (plab::qt::HistogramChart* chart : panel.findChildren<plab::qt::HistogramChart*>()) {
        if (!chart->isVisible()) continue;
        EXPECT_GE(chart->height(), 110) << "a small chart squeezed instead of scrolled";
    }
    panel.grab().save(QString::fromStdString(::testing::TempDir() + "histograms_37_layers.png"));

    filter->setText("ATTN.Q");  // any case: the six query projections, still all layers
    QApplication::processEvents();
    EXPECT_EQ(layers->chosen(), plab::kAllLayers);
    EXPECT_EQ(visible_charts(&panel), 6);
    panel.grab().save(QString::fromStdString(::testing::TempDir() + "histograms_attn_q.png"));
}

QComboBox* tensor_chooser(QWidget* panel) {
    for (QComboBox* box : panel->findChildren<QComboBox*>())
        if (box->findText("activation grads") >= 0) return box;
    return nullptr;
}

// The shown labels' texts, "|"-separated: the small charts' titles and the counters' row names among them.
QString shown_labels(QWidget* panel) {
    QString texts = "|";
    for (QLabel* label : panel->findChildren<QLabel*>())
        if (label->isVisibleTo(panel)) texts += label->text() + "|";
    return texts;
}

// The GPT's position-embedding table follows its matmul layers: a chart of
// its own in "all layers", which for activations has none to count.
TEST(HistogramPanel, AnEmbeddingTableHasItsChartButNoActivationCounters) {
    plab::qt::MainWindow window("tiny-gpt-embedding-underflow", false);
    plab::qt::Panel* panel = histograms_after(window, 10);  // histograms every 10 steps
    ASSERT_NE(panel, nullptr);
    QComboBox* layers = layer_chooser(panel);
    QComboBox* tensor = tensor_chooser(panel);
    ASSERT_NE(layers, nullptr);
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(layers->currentText(), "wpe");  // the scenario's guide asks for it
    EXPECT_EQ(tensor->currentText(), "weight grads");
    layers->setCurrentIndex(layers->findText("all layers"));
    panel->resize(1000, 900);
    QApplication::processEvents();
    QApplication::processEvents();  // the counters' new rows are shown a turn later
    EXPECT_EQ(visible_charts(panel), 14);  // 2 blocks of 6, the head, wpe
    EXPECT_TRUE(shown_labels(panel).contains("|<b>wpe</b>|"));
    EXPECT_TRUE(shown_labels(panel).contains("|wpe FP16|"));
    panel->grab().save(QString::fromStdString(::testing::TempDir() + "histograms_gpt_weight_grads.png"));

    tensor->setCurrentIndex(tensor->findText("activation grads"));
    QApplication::processEvents();
    QApplication::processEvents();
    EXPECT_EQ(visible_charts(panel), 14);
    EXPECT_TRUE(shown_labels(panel).contains("|head FP16|"));
    EXPECT_FALSE(shown_labels(panel).contains("|wpe FP16|"));
    panel->grab().save(QString::fromStdString(::testing::TempDir() + "histograms_gpt_activation_grads.png"));
}

// After Reset nothing is left of the old run's histogram: no counters row,
// no bars, only the caption saying why there is nothing yet.
TEST(HistogramPanel, AResetLeavesNoStaleHistogramOrCounters) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    plab::Session& session = window.session();
    session.step(10);
    session.wait_until_idle();
    window.refresh();
    plab::qt::Panel* panel = window.panel("histograms");
    ASSERT_NE(panel, nullptr);
    auto format_rows = [&] {
        int n = 0;
        for (QLabel* label : panel->findChildren<QLabel*>())
            n += label->text() == "FP16" || label->text() == "BF16";
        return n;
    };
    EXPECT_EQ(format_rows(), 2);
    auto* chart = panel->findChildren<plab::qt::HistogramChart*>().value(0);
    ASSERT_NE(chart, nullptr);
    ASSERT_NE(chart->bar_count(), 0);

    session.reset();
    session.wait_until_idle();
    window.refresh();
    EXPECT_EQ(format_rows(), 0);
    EXPECT_EQ(chart->bar_count(), 0);
}

// With the scaler off, FP16 holds fc1's weight gradients as zeros: the chart
// has no bars, the twin's dashed outline shows where the true gradients lie,
// the FP16 band says what it does to them, and the counters' twin flush
// column says how many it took (all) while the run's underflow reads 0.
TEST(HistogramPanel, TheTwinShowsWhatUnderflowTook) {
    plab::qt::MainWindow window("underflow-no-scaling", false);
    plab::qt::Panel* panel = histograms_after(window, 10);  // histograms every 10 steps
    ASSERT_NE(panel, nullptr);
    QComboBox* layers = layer_chooser(panel);
    ASSERT_NE(layers, nullptr);
    layers->setCurrentIndex(layers->findText("fc1"));
    panel->resize(900, 700);
    QApplication::processEvents();
    auto* chart = panel->findChildren<plab::qt::HistogramChart*>().value(0);
    ASSERT_NE(chart, nullptr);
    EXPECT_EQ(chart->bar_count(), 0u);
    EXPECT_GT(chart->ghost_points(), 0);
    const QStringList labels = chart->band_labels();
    EXPECT_TRUE(labels.filter("FP16 flushes to 0").size() == 1) << labels.join(" | ").toStdString();
    auto* table = panel->findChildren<plab::qt::CountersTable*>().value(0);
    ASSERT_NE(table, nullptr);
    const QList<plab::qt::LiveText*> cells = table->findChildren<plab::qt::LiveText*>();
    ASSERT_GE(cells.size(), 7);  // the FP16 row first: zero, underflow, twin flush, ...
    EXPECT_EQ(cells[0]->text(), "100%");
    EXPECT_EQ(cells[1]->text(), "0%");
    EXPECT_EQ(cells[2]->text(), "100%");
}

// While training, one layer's x range holds every histogram step shown so
// far instead of jumping to each step's own bins.
TEST(HistogramPanel, TheXRangeStaysSteadyWhileTraining) {
    plab::qt::MainWindow window("scaler-sawtooth", false);
    window.show();
    plab::qt::Panel* panel = window.panel("histograms");
    ASSERT_NE(panel, nullptr);
    plab::Session& session = window.session();
    std::pair<double, double> envelope{0, 0};
    int jumps = 0;
    for (int i = 0; i < 8; ++i) {
        session.step(10);
        session.wait_until_idle();
        panel->set_live(true);  // as while training (the window sets it from the session)
        panel->show_snapshot(*session.snapshot());
        auto* chart = panel->findChildren<plab::qt::HistogramChart*>().value(0);
        ASSERT_NE(chart, nullptr);
        const auto [lo, hi] = chart->x_range();
        if (i > 0 && (lo > envelope.first || hi < envelope.second)) ++jumps;  // narrower than before: it jumped
        envelope = i == 0 ? std::pair{lo, hi} : std::pair{std::min(envelope.first, lo), std::max(envelope.second, hi)};
    }
    EXPECT_EQ(jumps, 0);
}

// A short histogram chart labels fewer fractions rather than having Qt
// Charts elide every label to "...": as many as its height holds.
TEST(HistogramPanel, AShortChartLabelsWhatItsHeightHolds) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    plab::qt::Panel* panel = histograms_after(window, 20);
    ASSERT_NE(panel, nullptr);
    auto* chart = panel->findChildren<plab::qt::HistogramChart*>().value(0);
    ASSERT_NE(chart, nullptr);
    for (int height : {170, 400}) {
        chart->setFixedHeight(height);
        QApplication::processEvents();
        QValueAxis* y = nullptr;
        for (QAbstractAxis* a : chart->chart()->axes(Qt::Vertical)) y = qobject_cast<QValueAxis*>(a);
        ASSERT_NE(y, nullptr);
        const int labels = static_cast<int>(std::floor((y->max() - y->min()) / y->tickInterval() + 1e-9)) + 1;
        const int room = plab::qt::vertical_label_room(chart->chart(), y->labelsFont());
        EXPECT_LE(labels, std::max(room, 2)) << "chart " << height << " px tall";
        EXPECT_GE(labels, 2) << "chart " << height << " px tall";
    }
}

}  // namespace
