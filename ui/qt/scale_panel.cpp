#include "ui/qt/scale_panel.h"

#include <QApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStyleOptionProgressBar>
#include <QStylePainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <optional>

#include "engine/common/number_text.h"
#include "ui/present/axis_ticks.h"
#include "ui/present/live_keys.h"
#include "ui/present/scale_text.h"
#include "ui/present/scale_trajectory.h"
#include "ui/present/scaler_fields.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// Keeps a scroll area (scrolling up and down only) as wide as its widget
// asks, whenever that changes: the fields' widths follow their fonts (a
// projector's are larger) and values, which a width taken once, when the
// panel is made, would miss, cutting off the fields' right ends.
class WidthFollower : public QObject {
public:
    explicit WidthFollower(QScrollArea* area) : QObject(area), area_(area) {
        area->widget()->installEventFilter(this);
        follow();
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::LayoutRequest || event->type() == QEvent::FontChange ||
            event->type() == QEvent::Polish)
            follow();
        return QObject::eventFilter(watched, event);
    }

private:
    void follow() {
        area_->setMinimumWidth(area_->widget()->sizeHint().width() + area_->verticalScrollBar()->sizeHint().width());
    }
    QScrollArea* area_;
};

QScatterSeries* marker_series(const QString& name, const QColor& colour, QScatterSeries::MarkerShape shape,
                              double size) {
    auto* s = new QScatterSeries();
    s->setName(name);
    s->setColor(colour);
    s->setBorderColor(colour);
    s->setMarkerShape(shape);
    s->setMarkerSize(size);
    return s;
}

}  // namespace

// The growth tracker's bar. QProgressBar::setValue repaints at once (a
// synchronous repaint() whenever its "%v / %m" text changes: every frame
// while training); this bar leaves QProgressBar's own value alone and paints
// its own in the frame's paint, in the same style. Its text sits on a chip
// of the field's colour: the style draws it in one colour over both the
// filled and the empty part, and over the fill it could not be read. For a
// scaler that never grows it shows a note instead of a count.
class TrackerBar : public QProgressBar {
public:
    explicit TrackerBar(QWidget* parent) : QProgressBar(parent) {}

    void show_progress(int value, int maximum) {
        if (value == value_ && maximum == maximum_ && note_.isEmpty()) return;
        value_ = value;
        maximum_ = maximum;
        note_.clear();
        update();
    }

    void show_note(const QString& note) {
        if (note == note_) return;
        note_ = note;
        update();
    }

    // As QProgressBar's "%v / %m" reads (none before a value is set), or the note.
    QString text() const override {
        if (!note_.isEmpty()) return note_;
        if (value_ < 0) return {};
        QLocale l = locale();
        l.setNumberOptions(l.numberOptions() | QLocale::OmitGroupSeparator);
        return l.toString(value_) + " / " + l.toString(maximum_);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QStylePainter painter(this);
        QStyleOptionProgressBar option;
        initStyleOption(&option);
        option.minimum = 0;
        option.maximum = maximum_;
        option.progress = note_.isEmpty() ? value_ : 0;
        option.textVisible = false;
        painter.drawControl(QStyle::CE_ProgressBar, option);
        draw_text(painter);
    }

private:
    void draw_text(QPainter& painter) const {
        const QString t = text();
        if (t.isEmpty()) return;
        QRect chip = fontMetrics().boundingRect(t).adjusted(-5, -1, 5, 1);
        chip.moveCenter(rect().center());
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette().color(QPalette::Base));
        painter.drawRoundedRect(chip, 3, 3);
        painter.setPen(palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::Text));
        painter.drawText(rect(), Qt::AlignCenter, t);
    }

    int value_ = -1;  // QProgressBar's "no value yet"
    int maximum_ = 100;
    QString note_;  // shown instead of the count when not empty
};

ScalePanel::ScalePanel(Setter set, QWidget* parent) : Panel("scale", "Loss scale", parent), set_(std::move(set)) {
    QChart* chart = make_chart();
    const Theme& t = theme();
    line_ = new QLineSeries();
    line_->setName("scale");
    QPen pen(t.amp);
    pen.setWidthF(line_width(2));
    line_->setPen(pen);
    fork_line_ = new QLineSeries();
    fork_line_->setName("fork");
    QPen fork_pen(t.fork);
    fork_pen.setWidthF(line_width(2));
    fork_pen.setStyle(Qt::DashLine);
    fork_line_->setPen(fork_pen);
    overflow_ = marker_series("overflow (skipped)", t.overflow, QScatterSeries::MarkerShapeCircle, 10);
    backoff_ = marker_series("backoff", t.backoff, QScatterSeries::MarkerShapeRectangle, 9);
    growth_ = marker_series("growth", t.growth, QScatterSeries::MarkerShapeRectangle, 9);
    edit_ = marker_series("edit", t.edit, QScatterSeries::MarkerShapeRectangle, 12);
    fork_overflow_ = marker_series("fork overflow", t.fork, QScatterSeries::MarkerShapeCircle, 8);
    x_ = make_value_axis("step", chart, Qt::AlignBottom);
    x_->setLabelFormat("%d");
    chart->legend()->hide();  // too narrow for five entries: the key sits under the chart
    y_ = make_value_axis("log2 scale", chart, Qt::AlignLeft);
    y_->setLabelFormat("%d");
    for (QXYSeries* s :
         std::initializer_list<QXYSeries*>{line_, fork_line_, overflow_, backoff_, growth_, edit_, fork_overflow_}) {
        chart->addSeries(s);
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    view_ = make_chart_view(chart, this);
    // A short plot (a small screen, projector mode) keeps a whole title: "log2 S", not "log2 sc...".
    connect(chart, &QChart::plotAreaChanged, this,
            [this](const QRectF& area) { fit_axis_title(y_, {"log2 scale", "log2 S"}, area.height()); });
    line_item_ = new SeriesItem(chart, line_);
    fork_item_ = new SeriesItem(chart, fork_line_);
    const std::pair<QScatterSeries*, ScaleEventKind> marker_kinds[] = {{overflow_, ScaleEventKind::overflow},
                                                                      {backoff_, ScaleEventKind::backoff},
                                                                      {growth_, ScaleEventKind::growth},
                                                                      {edit_, ScaleEventKind::edit}};
    for (const auto& [series, kind] : marker_kinds) {
        const auto style = series->markerShape() == QScatterSeries::MarkerShapeCircle ? SeriesItem::Style::circles
                                                                                     : SeriesItem::Style::squares;
        auto* item = new SeriesItem(chart, series, style, series->markerSize());
        item->setZValue(6);  // markers over the line
        item->on_hover([this, kind = kind](const XY& p, bool state) { hovered(kind, QPointF(p.x, p.y), state); });
        marker_items_[static_cast<int>(kind)] = item;
    }
    fork_overflow_item_ = new SeriesItem(chart, fork_overflow_, SeriesItem::Style::circles, fork_overflow_->markerSize());
    fork_overflow_item_->setZValue(5);

    auto* layout = new QHBoxLayout(this);
    auto* left = new QVBoxLayout();
    left->addWidget(view_, 1);
    // The summary changes every frame: live text (a repaint, no new layout);
    // the colour key is rich but set once.
    summary_ = new LiveText(LiveText::Wrap::words, this);
    QFont f = summary_->font();
    f.setPointSizeF(font_points(11.5));
    summary_->setFont(f);
    left->addWidget(summary_);
    auto* key = key_ = new QLabel(key_text(overflow_->name(), fork_line_->name()), this);
    key->setTextFormat(Qt::RichText);
    key->setWordWrap(true);  // the key wraps instead of widening the window
    key->setFont(f);
    left->addWidget(key);
    layout->addLayout(left, 1);
    // Scrolled when the dock is short: ten rows of scaler fields set no
    // least height for the window on a small screen.
    auto* controls = new QScrollArea(this);
    controls->setWidgetResizable(true);
    controls->setFrameShape(QFrame::NoFrame);
    controls->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    controls->setWidget(make_controls());
    new WidthFollower(controls);
    controls->setMinimumHeight(140);
    layout->addWidget(controls);
}

// The colour key under the chart (rich text, set only when a name changes).
QString ScalePanel::key_text(const QString& overflow, const QString& fork) const {
    const Theme& t = theme();
    auto dot = [](const QColor& c, const QString& what) {
        return QString("<span style='color:%1'>&#9632;</span>&nbsp;%2 &nbsp; ").arg(c.name(), what);
    };
    return dot(t.amp, "scale") + dot(t.overflow, overflow) + dot(t.backoff, "backoff") + dot(t.growth, "growth") +
           dot(t.edit, "edit") + dot(t.fork, fork);
}

QWidget* ScalePanel::make_controls() {
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    kind_ = new QComboBox(box);
    for (ScalerKind k : kAllScalerKinds) kind_->addItem(QString::fromUtf8(std::string(scaler_kind_name(k)).c_str()));
    form->addRow("kind", kind_);
    init_scale_ = new ScaleSpinBox(std::ldexp(1.0, kInitScaleLog2Min), std::ldexp(1.0, kInitScaleLog2Max), {}, box,
                                   ScaleSpinBox::Values::powers_of_two);
    form->addRow("init_scale", init_scale_);
    growth_factor_ = new QDoubleSpinBox(box);
    growth_factor_->setRange(1.0, 1024.0);
    growth_factor_->setDecimals(3);
    form->addRow("growth_factor", growth_factor_);
    backoff_factor_ = new QDoubleSpinBox(box);
    backoff_factor_->setRange(0.001, 0.999);
    backoff_factor_->setDecimals(3);
    backoff_factor_->setSingleStep(0.05);
    form->addRow("backoff_factor", backoff_factor_);
    growth_interval_ = new QSpinBox(box);
    growth_interval_->setRange(1, 1000000);
    form->addRow("growth_interval", growth_interval_);
    hysteresis_ = new QSpinBox(box);
    hysteresis_->setRange(1, 1000);
    form->addRow("hysteresis", hysteresis_);
    // FP32's whole positive range: the smallest subnormal up to the largest power of two.
    min_scale_ = new ScaleSpinBox(std::ldexp(1.0, -149), std::ldexp(1.0, 127), {}, box);
    form->addRow("min_scale", min_scale_);
    max_scale_ = new ScaleSpinBox(0.0, std::ldexp(1.0, 127), "none", box);
    form->addRow("max_scale", max_scale_);
    form->addRow("scale now", make_live_scale_row(box));
    tracker_ = new TrackerBar(box);
    tracker_->setToolTip("clean steps since the last growth or backoff, of growth_interval");
    form->addRow("to next growth", tracker_);

    fields_ = {
        {init_scale_, "init_scale", [this] { return shortest_text(init_scale_->value()); }},
        {growth_factor_, "growth_factor", [this] { return shortest_text(growth_factor_->value()); }},
        {backoff_factor_, "backoff_factor", [this] { return shortest_text(backoff_factor_->value()); }},
        {growth_interval_, "growth_interval", [this] { return std::to_string(growth_interval_->value()); }},
        {hysteresis_, "hysteresis", [this] { return std::to_string(hysteresis_->value()); }},
        {min_scale_, "min_scale", [this] { return shortest_text(min_scale_->value()); }},
        {max_scale_, "max_scale", [this] { return shortest_text(max_scale_->value()); }}};
    connect(kind_, &QComboBox::activated, this, [this](int i) { send("kind", kind_->itemText(i).toStdString()); });
    // A spin box edit is sent when it is finished (Enter or focus out), not per keystroke.
    for (const Field& f : fields_)
        connect(f.box, &QAbstractSpinBox::editingFinished, this, [this, f] { send(f.name, f.text()); });
    box->setMaximumWidth(static_cast<int>(260 * theme().scale));  // projector mode: as much wider as its fonts
    return box;
}

// The scale the next step uses, and what ÷2 and ×2 would do to it: the
// live view's Down and Up keys' requests (a notice where no scale can
// change: no scaler, a float's limit, a record).
void ScalePanel::show_live_scale(const SessionSnapshot& snapshot) {
    live_scale_->setText(QString::fromStdString(scale_text(live_loss_scale(snapshot.main))));
    const LiveKey keys[] = {LiveKey::down, LiveKey::up};
    for (std::size_t i = 0; i < 2; ++i) {
        live_scale_requests_[i] = snapshot.record ? std::nullopt : session_request(live_action(keys[i]), snapshot);
        const bool edit = live_scale_requests_[i] && live_scale_requests_[i]->kind == SessionRequest::Kind::set;
        live_scale_buttons_[i]->setEnabled(edit);
        live_scale_buttons_[i]->setToolTip(QString::fromStdString(
            live_scale_requests_[i] ? live_scale_requests_[i]->said : "a record's scale is what it was"));
    }
}

// The live scale with ÷2 and ×2: the scale the next step uses, changed now
// (init_scale is where a run starts; an edit of it restarts the scale too).
QWidget* ScalePanel::make_live_scale_row(QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    live_scale_ = new QLabel("—", row);
    // As wide as the widest scale from the start: the column keeps its width as the scale moves.
    live_scale_->setMinimumWidth(live_scale_->fontMetrics().horizontalAdvance("2^-149"));
    h->addWidget(live_scale_, 1);
    for (std::size_t i = 0; i < 2; ++i) {
        auto* b = new QPushButton(i == 0 ? "÷2" : "×2", row);
        b->setMaximumWidth(static_cast<int>(40 * theme().scale));
        connect(b, &QPushButton::clicked, this, [this, i] {
            if (live_scale_requests_[i] && live_scale_requests_[i]->kind == SessionRequest::Kind::set)
                set_(live_scale_requests_[i]->assignment);
        });
        live_scale_buttons_[i] = b;
        h->addWidget(b);
    }
    return row;
}

// The presenter's text of the marker of this kind nearest the hovered point.
void ScalePanel::hovered(ScaleEventKind kind, const QPointF& point, bool state) {
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const ScaleMarker* nearest = nullptr;
    for (const ScaleMarker& m : markers_)
        if (m.kind == kind && (!nearest || std::abs(m.step - point.x()) < std::abs(nearest->step - point.x())))
            nearest = &m;
    if (nearest) QToolTip::showText(QCursor::pos(), QString::fromStdString(nearest->text));
}

// Enter and the focus out that follows both finish an edit: the gate lets
// through the first, and none where the value did not change.
void ScalePanel::send(const std::string& field, const std::string& value) {
    if (edits_.finished(field, value)) set_("scaler." + field + "=" + value);
}

// A field the run's kind does not read is disabled, its tooltip naming the kinds that do.
void ScalePanel::show_field_use(ScalerKind kind) {
    for (const Field& f : fields_) {
        f.box->setEnabled(scaler_uses(kind, f.name));
        f.box->setToolTip(QString::fromStdString(scaler_field_tooltip(kind, f.name)));
    }
}

void ScalePanel::show_config(const ScalerConfig& s) {
    // A field being edited keeps what the person is typing.
    auto quiet = [](QWidget* w) { return !w->hasFocus(); };
    const QSignalBlocker blocks[] = {QSignalBlocker(kind_),           QSignalBlocker(init_scale_),
                                     QSignalBlocker(growth_factor_),  QSignalBlocker(backoff_factor_),
                                     QSignalBlocker(growth_interval_), QSignalBlocker(hysteresis_),
                                     QSignalBlocker(min_scale_),       QSignalBlocker(max_scale_)};
    (void)blocks;
    if (quiet(kind_)) kind_->setCurrentIndex(static_cast<int>(s.kind));
    if (quiet(init_scale_)) init_scale_->setValue(s.init_scale);
    if (quiet(growth_factor_)) growth_factor_->setValue(s.growth_factor);
    if (quiet(backoff_factor_)) backoff_factor_->setValue(s.backoff_factor);
    if (quiet(growth_interval_)) growth_interval_->setValue(s.growth_interval);
    if (quiet(hysteresis_)) hysteresis_->setValue(s.hysteresis);
    if (quiet(min_scale_)) min_scale_->setValue(s.min_scale);
    if (quiet(max_scale_)) max_scale_->setValue(s.max_scale);
    // What each control now shows is what a finished edit is compared with.
    if (quiet(kind_)) edits_.shown("kind", kind_->currentText().toStdString());
    for (const Field& f : fields_)
        if (quiet(f.box)) edits_.shown(f.name, f.text());
    show_field_use(s.kind);
}

void ScalePanel::show_snapshot(const SessionSnapshot& snapshot) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    // Markers one per marker_columns_for() pitch: they stand apart, and every
    // scatter point costs Qt Charts an item of its own.
    const int columns = plot_columns(view_);
    const ScaleTrajectory t = make_scale_trajectory(run.log, *run.config, columns, marker_columns_for(view_->chart()->plotArea().width()));
    const QString overflow_key = QString::fromStdString(t.overflow_key);
    // On a record, the dashed line is its scaler replayed under the edited settings.
    const QString fork_key = snapshot.record ? "what-if (replayed)" : "fork";
    if (overflow_->name() != overflow_key || fork_line_->name() != fork_key) {  // the scaler kind changed, or the source
        overflow_->setName(overflow_key);
        fork_line_->setName(fork_key);
        key_->setText(key_text(overflow_key, fork_key));
    }
    std::optional<ScaleTrajectory> f;
    if (snapshot.fork && snapshot.fork->config)
        f = make_scale_trajectory(snapshot.fork->log, *snapshot.fork->config, columns, marker_columns_for(view_->chart()->plotArea().width()));
    const ScaleAxes axes = scale_axes(t, f);
    const double step_max = axes.step_max, log2_min = axes.log2_min, log2_max = axes.log2_max;
    const AxisSpan steps = steps_.follow({t.step_min, step_max}, live());
    set_step_range(x_, steps.lo, steps.hi);
    // Room for the overflow markers above the line and for a marker on the
    // lowest scale below it (whole, not cut by the axis); ticks every 1, 2, 4, 8, ... binades.
    set_ticked_range(y_, log2_min - 0.3, log2_max + 0.5, binade_interval(log2_min, log2_max + 0.5, 8));
    line_item_->set_points(t.line);
    fork_line_->setVisible(f.has_value());
    fork_item_->set_points(f ? f->line : std::vector<XY>{});
    // The fork's (or the what-if's) overflows, on its dashed line, under the run's own markers.
    std::vector<XY> fork_overflows;
    if (f)
        for (const ScaleMarker& m : f->markers)
            if (m.kind == ScaleEventKind::overflow) fork_overflows.push_back({m.step, m.log2_scale});
    fork_overflow_item_->set_points(fork_overflows);
    markers_ = t.markers;
    std::vector<XY> kinds[4];
    // Overflows sit a little above the line: an overflow and its backoff share a
    // step, and one marker must not hide the other.
    for (const ScaleMarker& m : t.markers)
        kinds[static_cast<int>(m.kind)].push_back(
            {m.step, m.log2_scale + (m.kind == ScaleEventKind::overflow ? 0.45 : 0.0)});
    for (int k = 0; k < 4; ++k) marker_items_[k]->set_points(kinds[k]);
    show_live_scale(snapshot);
    if (tracker_->isEnabled() != t.growth_note.empty()) tracker_->setEnabled(t.growth_note.empty());
    if (t.growth_note.empty())
        tracker_->show_progress(std::min(t.growth_tracker, t.growth_interval), t.growth_interval);
    else
        tracker_->show_note(QString::fromStdString(t.growth_note));
    summary_->set_text(QString::fromStdString(snapshot.record && f ? "recorded: " + t.summary + " — what-if: " + f->summary
                                                                    : t.summary));
    // Setting a spin box repaints it even to the same value: only on an edit,
    // or when the focus moved (a field left keeps what it showed while typed in).
    // A record's fields show its what-if once there is one: the settings being tried.
    const RunView& edited = snapshot.record && snapshot.fork && snapshot.fork->config ? *snapshot.fork : run;
    if (edited.config != shown_config_ || QApplication::focusWidget() != shown_focus_) {
        shown_config_ = edited.config;
        shown_focus_ = QApplication::focusWidget();
        show_config(edited.config->scaler);
    }
}

QString ScalePanel::tracker_text() const { return tracker_->text(); }

bool ScalePanel::what_if_shown() const { return fork_line_->isVisible() && fork_line_->name().startsWith("what-if"); }

}  // namespace plab::qt
