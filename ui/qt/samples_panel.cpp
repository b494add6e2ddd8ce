#include "ui/qt/samples_panel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

QString escaped(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

// The mark of departed text: the overflow colour washed into the window's.
QString departed_background() {
    const QColor a = theme().overflow, b = theme().window;
    const auto mix = [](int x, int y) { return (x + 3 * y) / 4; };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue())).name();
}

QString split_html(const SplitText& t) {
    QString html = escaped(t.same);
    if (!t.departed.empty())
        html += QString("<span style='background-color:%1; text-decoration: underline'>%2</span>")
                    .arg(departed_background(), escaped(t.departed));
    return html;
}

QString label_cell(const QString& text, const QColor& colour) {
    return QString("<td style='padding-right:12px'><b style='color:%1'>%2</b></td>").arg(colour.name(), text);
}

// Monospace, so the model's characters stand above the twin's; wrapped at
// the same width, so their wrapped lines line up too.
QString text_cell(const QString& html) {
    const QString mono = QFontDatabase::systemFont(QFontDatabase::FixedFont).family();
    return QString("<td><span style=\"font-family:'%1'; white-space:pre-wrap\">%2</span></td>").arg(mono, html);
}

QString free_text_html(const SampleStep& step, bool twin) {
    QString html = "<table cellspacing='4'>";
    for (const SampleRow& r : step.rows) {
        html += "<tr>" + label_cell("prompt", theme().text) + text_cell(escaped(r.prompt)) + "</tr>";
        html += "<tr>" + label_cell("model", theme().amp) + text_cell(split_html(r.model)) + "</tr>";
        if (twin) html += "<tr>" + label_cell("twin", theme().twin) + text_cell(split_html(r.twin)) + "</tr>";
    }
    return html + "</table>";
}

QString verdict(bool exact) {
    return exact ? QString("<span style='color:%1'>\u2713</span>").arg(theme().growth.name())
                 : QString("<span style='color:%1'>\u2717</span>").arg(theme().overflow.name());
}

QString answers_html(const SampleStep& step, bool twin) {
    QString html = "<table cellspacing='6'><tr>" + label_cell("problem", theme().text) +
                   label_cell("answer", theme().text) + label_cell("model", theme().amp) +
                   (twin ? label_cell("twin", theme().twin) : QString()) + "</tr>";
    for (const SampleRow& r : step.rows) {
        html += "<tr>" + text_cell(escaped(r.prompt)) + text_cell(escaped(r.expected)) +
                text_cell(split_html(r.model) + " " + verdict(r.model_exact));
        if (twin) html += text_cell(split_html(r.twin) + " " + verdict(r.twin_exact));
        html += "</tr>";
    }
    return html + "</table>";
}

}  // namespace

SamplesPanel::SamplesPanel(QWidget* parent) : Panel("samples", "Samples", parent) {
    auto* layout = new QVBoxLayout(this);
    title_ = heading_label(this);
    layout->addWidget(title_);
    chooser_ = new QWidget(this);
    auto* row = new QHBoxLayout(chooser_);
    row->setContentsMargins(0, 0, 0, 0);
    auto* label = body_label(chooser_);
    label->setText("Step:");
    row->addWidget(label);
    steps_ = new QComboBox(chooser_);
    steps_->setFont(body_font(steps_->font()));
    steps_->setToolTip("The samples of an earlier step; the newest is followed until another is picked.");
    row->addWidget(steps_, 1);
    layout->addWidget(chooser_);
    note_ = body_label(this);
    layout->addWidget(note_);
    text_ = new GuideText(this);
    text_->setFont(body_font(text_->font()));
    layout->addWidget(text_, 1);
    connect(steps_, &QComboBox::activated, this, [this](int index) {
        picked_ = index <= 0 ? -1 : view_.steps[static_cast<std::size_t>(index)].step;
        show_step(index);
    });
}

void SamplesPanel::show_snapshot(const SessionSnapshot& snapshot) {
    SamplesView view = make_samples_view(snapshot);
    std::string key = view.title + "\n" + view.note;
    for (const SampleStep& s : view.steps) key += "\n" + std::to_string(s.step);
    if (key == shown_key_) return;
    shown_key_ = std::move(key);
    view_ = std::move(view);
    title_->setText(QString::fromStdString(view_.title));
    title_->setVisible(!view_.title.empty());
    note_->setText(QString::fromStdString(view_.note));
    note_->setVisible(!view_.note.empty());
    fill_steps();
}

// Keeps the reader's pick while its step is still among the samples.
void SamplesPanel::fill_steps() {
    const QSignalBlocker quiet(steps_);
    steps_->clear();
    for (const SampleStep& s : view_.steps) steps_->addItem(QString::fromStdString(s.label + ": " + s.summary));
    const int index = picked_step_index(view_, picked_);
    if (index <= 0) picked_ = -1;
    chooser_->setVisible(!view_.steps.empty());
    steps_->setCurrentIndex(index);
    show_step(index);
}

void SamplesPanel::show_step(int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= view_.steps.size()) {
        text_->clear();
        return;
    }
    const SampleStep& step = view_.steps[static_cast<std::size_t>(index)];
    QString html = view_.answers ? answers_html(step, view_.twin) : free_text_html(step, view_.twin);
    if (view_.twin)
        html += QString("<p><span style='background-color:%1; text-decoration: underline'>Marked</span>: from the "
                        "first character where the model's text departs from its FP32 twin's.</p>")
                    .arg(departed_background());
    text_->setHtml(html);
}

}  // namespace plab::qt
