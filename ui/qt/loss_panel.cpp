#include "ui/qt/loss_panel.h"

#include <QLegendMarker>
#include <QVBoxLayout>
#include <cmath>
#include <optional>

#include "ui/qt/chart_kit.h"

namespace plab::qt {


LossPanel::LossPanel(QWidget* parent) : Panel("loss", "Loss and accuracy", parent) {
    QChart* chart = make_chart();
    const Theme& t = theme();
    x_ = make_value_axis("step", chart, Qt::AlignBottom);
    x_->setLabelFormat("%d");
    loss_axis_ = new QLogValueAxis(chart);
    style_axis(loss_axis_, "loss (log)");
    loss_axis_->setLabelFormat("%g");
    chart->addAxis(loss_axis_, Qt::AlignLeft);
    acc_axis_ = make_value_axis("test accuracy % (dotted)", chart, Qt::AlignRight);
    acc_axis_->setRange(0, 100);
    acc_axis_->setLabelFormat("%d");
    acc_axis_->setGridLineVisible(false);
    view_ = make_chart_view(chart, this);
    // Qt's legend draws a line series as a square of its colour: the key below shows each line's style.
    chart->legend()->hide();

    // The twin's lines go in first so that the AMP run's are drawn over them:
    // where the two agree, the AMP colour shows.
    const ChartLine train_twin = add_line("train twin", t.twin, Qt::SolidLine, loss_axis_);
    const ChartLine test_twin = add_line("test twin", t.twin, Qt::DashLine, loss_axis_);
    const ChartLine acc_twin = add_line("acc twin", t.twin.darker(130), Qt::DotLine, acc_axis_);
    const ChartLine train_amp = add_line("train AMP", t.amp, Qt::SolidLine, loss_axis_);
    const ChartLine test_amp = add_line("test AMP", t.amp, Qt::DashLine, loss_axis_);
    const ChartLine acc_amp = add_line("acc AMP", t.amp.darker(130), Qt::DotLine, acc_axis_);
    fork_ = add_line("train fork", t.fork, Qt::SolidLine, loss_axis_);
    loss_ = {train_amp, train_twin, test_amp, test_twin};  // LossCurves order
    acc_ = {acc_amp, acc_twin};
    // Accuracy also has a dot at each evaluation: a dotted line alone could pass for a loss.
    for (ChartLine& line : acc_) {
        line.series->setBrush(line.series->pen().color());
        line.marks = new SeriesItem(chart, line.series, SeriesItem::Style::circles, 6);
        line.marks->setZValue(line.item->zValue());
    }
    marks_ = new EdgeMarks(chart, x_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(view_, 1);
    key_ = new LineKey(this);
    layout->addWidget(key_);
    // Live text: the summaries change every frame, and a label's change lays the whole window out again.
    summary_ = new LiveText(LiveText::Wrap::none, this);
    QFont s = summary_->font();
    s.setPointSizeF(font_points(11.5));
    summary_->setFont(s);
    layout->addWidget(summary_);
    fork_summary_ = new LiveText(LiveText::Wrap::none, this);
    fork_summary_->setFont(s);
    fork_summary_->set_colour(t.fork);
    layout->addWidget(fork_summary_);
}

ChartLine LossPanel::add_line(const QString& name, const QColor& colour, Qt::PenStyle style,
                                    QAbstractAxis* y) {
    auto* s = new QLineSeries();
    s->setName(name);
    QPen pen(colour);
    // Train loss has a point per column: a 1-pixel pen keeps QPainter off its slow
    // wide-stroke path; the sparse test curves can afford a wider one.
    pen.setWidthF(line_width(style == Qt::SolidLine ? 1 : 2));
    pen.setStyle(style);
    s->setPen(pen);
    // Added in the order of the series, so the AMP run is drawn over its twin here too.
    ChartLine line = plab::qt::add_line(view_->chart(), s, x_, y);
    line.item->setZValue(5 + 0.01 * static_cast<double>(view_->chart()->series().size()));
    return line;
}

// The presenter lists only the curves the run has (no twin curves without a
// twin), in the order of `lines`; the twin's lines hide without a twin.
void LossPanel::show_curves(const std::vector<ChartLine>& lines, const std::vector<Curve>& curves, bool twin,
                            double y_scale) {
    std::size_t next = 0;
    for (const ChartLine& line : lines) {
        const bool wanted = twin || !line.series->name().contains("twin");
        line.series->setVisible(wanted);
        if (!wanted) continue;
        std::vector<XY> points = next < curves.size() ? curves[next].points : std::vector<XY>{};
        for (XY& p : points) p.y *= y_scale;
        line.item->set_points(points);
        if (line.marks) line.marks->set_points(points);
        ++next;
    }
}

// Loss lines under one heading, accuracy under another, AMP before twin;
// twin entries only with a twin, the fork's only with a fork.
void LossPanel::show_key(bool twin, bool fork) {
    const int shown = (twin ? 1 : 0) + (fork ? 2 : 0);
    if (shown == key_shown_) return;
    key_shown_ = shown;
    auto entry = [](const QString& text, const ChartLine& line, bool marker) {
        return KeyEntry{text, line.series->pen(), marker};
    };
    std::vector<KeyEntry> e{{"loss (left, log):"}, entry("train AMP", loss_[0], false),
                            entry("test AMP", loss_[2], false)};
    if (twin) {
        e.push_back(entry("train twin", loss_[1], false));
        e.push_back(entry("test twin", loss_[3], false));
    }
    if (fork) e.push_back(entry("train fork", fork_, false));
    e.push_back({"test accuracy (right):"});
    e.push_back(entry("AMP", acc_[0], true));
    if (twin) e.push_back(entry("twin", acc_[1], true));
    key_->set_entries(std::move(e));
}

// NaN and Inf in the overflow colour at the top; a loss of 0 in its run's colour at the bottom.
void LossPanel::show_marks(const std::vector<LossMark>& marks) {
    const Theme& t = theme();
    std::vector<EdgeMark> edge;
    for (const LossMark& m : marks) {
        const QColor run = m.fork ? t.fork : m.twin ? t.twin : t.amp;
        edge.push_back({m.x, m.top, m.finite ? run : t.overflow, QString::fromStdString(m.text)});
    }
    marks_->set_marks(std::move(edge));
}

void LossPanel::show_snapshot(const SessionSnapshot& snapshot) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const bool twin = run.config->twin;
    const LossCurves c =
        make_loss_curves(run.log, twin, plot_columns(view_), run.config->model.kind == ModelKind::gpt);
    std::optional<LossCurves> f;
    // A record's fork is its loss scaler replayed under other settings: it has no loss.
    if (snapshot.fork && !snapshot.record) {
        // The fork's train loss over the main run's, from the step it branched at.
        f = make_loss_curves(snapshot.fork->log, false, plot_columns(view_));
        fork_summary_->set_text(
            QString("fork from step %1: %2").arg(snapshot.fork->forked_at).arg(QString::fromStdString(f->summary)));
    }
    // While training, the axes move in steps (the loss's in decades: its axis is logarithmic).
    const LossAxes axes = loss_axes(c, f);
    const double loss_min = axes.loss_min, loss_max = axes.loss_max;
    const AxisSpan steps = steps_.follow({axes.step_min, axes.step_max}, live());
    set_step_range(x_, steps.lo, steps.hi);
    const AxisSpan decades{std::log10(loss_min), std::log10(loss_max)};
    if (live() && std::isfinite(decades.lo) && std::isfinite(decades.hi)) {
        const AxisSpan shown = decades_.next(decades);
        loss_axis_->setRange(std::pow(10.0, shown.lo), std::pow(10.0, shown.hi));
    } else {
        decades_.reset();
        loss_axis_->setRange(loss_min, loss_max);
    }
    show_curves(loss_, c.loss, twin, 1.0);
    show_curves(acc_, c.accuracy, twin, 100.0);  // the axis is in percent
    fork_.series->setVisible(f.has_value());
    for (QLegendMarker* m : view_->chart()->legend()->markers(fork_.series)) m->setVisible(f.has_value());
    fork_.item->set_points(f && !f->loss.empty() ? f->loss.front().points : std::vector<XY>{});
    summary_->set_text(QString::fromStdString(c.summary));
    fork_summary_->setVisible(f.has_value());
    show_key(twin, f.has_value());
    show_marks(f ? marks_with_fork(c.marks, f->marks) : c.marks);
}

}  // namespace plab::qt
