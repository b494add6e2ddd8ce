#include "ui/qt/scenario_panel.h"

#include <QHBoxLayout>

#include "ui/present/fork_summary.h"
#include "ui/present/scenario_view.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

ScenarioPanel::ScenarioPanel(Fork fork, Start start, QWidget* parent)
    : Panel("scenario", "Scenario", parent), fork_(std::move(fork)), start_(std::move(start)) {
    auto* layout = new QVBoxLayout(this);
    auto* heading = new QHBoxLayout();
    title_ = heading_label(this);
    heading->addWidget(title_, 1);
    auto* start_button = new QPushButton("▶ Start", this);
    start_button->setToolTip("The scenario from step 0, playing at the chosen pace (its forks go)");
    connect(start_button, &QPushButton::clicked, this, [this] { start_(); });
    heading->addWidget(start_button);
    layout->addLayout(heading);
    // A long guide scrolls; the buttons below it stay in view.
    guide_ = new GuideText(this);
    guide_->setFont(body_font(guide_->font()));
    layout->addWidget(guide_, 1);
    buttons_ = new QVBoxLayout();
    layout->addLayout(buttons_);
    fork_state_ = body_label(this);
    layout->addWidget(fork_state_);
}

void ScenarioPanel::show_snapshot(const SessionSnapshot& snapshot) {
    if (!snapshot.main.config) return;
    fork_state_->setText(QString::fromStdString(fork_summary(snapshot)));
    const RunConfig& config = *snapshot.main.config;
    if (config.name + "\n" + config.guide == shown_guide_) return;
    shown_guide_ = config.name + "\n" + config.guide;
    const ScenarioView v = make_scenario_view(config);
    title_->setText(QString::fromStdString(v.title));
    QString html = "<p><i>" + QString::fromStdString(v.description).toHtmlEscaped() + "</i></p>";
    if (!v.no_guide.empty()) html += "<p>" + QString::fromStdString(v.no_guide).toHtmlEscaped() + "</p>";
    for (const GuidePart& p : v.parts) {
        html += "<p>";
        if (!p.heading.empty())
            html += QString("<b style='color:%1'>%2:</b> ").arg(theme().amp.name(), QString::fromStdString(p.heading));
        html += QString::fromStdString(p.text).toHtmlEscaped() + "</p>";
    }
    guide_->setHtml(html);
    for (QPushButton* b : shown_buttons_) b->deleteLater();
    shown_buttons_.clear();
    for (const std::vector<std::string>& change : v.try_changes) {
        QStringList parts;
        for (const std::string& a : change) parts << QString::fromStdString(a);
        auto* b = new QPushButton(QString("Try %1 side by side (a fork from step 0)").arg(parts.join(", ")), this);
        b->setToolTip("Trains the preset again from step 0 with this change, beside the run as shipped; "
                      "the loss and loss-scale panels draw both.");
        b->setMinimumHeight(30);
        connect(b, &QPushButton::clicked, this, [this, change] { fork_(0, change); });
        buttons_->addWidget(b);
        shown_buttons_.push_back(b);
    }
}

}  // namespace plab::qt
