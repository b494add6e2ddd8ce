#include "ui/present/record_notes.h"
#include "ui/qt/nan_panel.h"

#include "ui/present/fork_summary.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

NanPanel::NanPanel(Fork fork, Trace trace, QWidget* parent)
    : Panel("nan", "NaN / overflow diagnosis", parent), fork_(std::move(fork)), trace_(std::move(trace)) {
    auto* layout = new QVBoxLayout(this);
    headline_ = heading_label(this);
    layout->addWidget(headline_);
    detail_ = body_label(this);
    layout->addWidget(detail_);
    buttons_ = new QVBoxLayout();
    layout->addLayout(buttons_);
    fork_state_ = body_label(this);
    layout->addWidget(fork_state_);
    layout->addStretch(1);
}

void NanPanel::show_snapshot(const SessionSnapshot& snapshot) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const NanDiagnosis d = diagnose_first_nonfinite(run.log, *run.config, run.layer_names,
                                                    snapshot.trace ? &*snapshot.trace : nullptr);
    if (trace_ && trace_asker_.should_ask(d, TraceAsker::Clock::now())) trace_(d.step);
    show_diagnosis(d, snapshot.record != nullptr);
    fork_state_->setText(QString::fromStdString(snapshot.record ? record_gap_text(RecordGap::remedies, *snapshot.record)
                                                                : fork_summary(snapshot)));
}

// On a record the remedies are listed, not offered: there is no run to fork.
void NanPanel::show_diagnosis(const NanDiagnosis& d, bool recorded) {
    std::string key = d.headline + "|" + d.traced + (recorded ? "|recorded" : "");
    for (const Remedy& r : d.remedies) key += "|" + r.label;
    if (key == shown_key_) return;
    shown_key_ = key;
    headline_->setText(QString::fromStdString(d.headline));
    headline_->setStyleSheet(d.found ? QString("color:%1").arg(theme().overflow.name()) : QString("color:%1").arg(theme().growth.name()));
    detail_->setText(QString::fromStdString(d.traced.empty() ? d.detail : d.traced + "\n\n" + d.detail));
    for (QPushButton* b : shown_buttons_) {  // out of the layout now, deleted once idle
        buttons_->removeWidget(b);
        b->hide();
        b->deleteLater();
    }
    shown_buttons_.clear();
    if (!d.found) return;
    if (recorded) {
        QString text = detail_->text();
        for (const Remedy& r : d.remedies) text += "\n• " + QString::fromStdString(r.label) + ": " + QString::fromStdString(r.why);
        if (!d.remedies.empty()) detail_->setText(text);
        return;
    }
    auto add = [this](const QString& text, const QString& tip, std::int64_t at, std::vector<std::string> changes) {
        auto* b = new QPushButton(text, this);
        b->setToolTip(tip);
        b->setMinimumHeight(30);
        connect(b, &QPushButton::clicked, this, [this, at, changes] { fork_(at, changes); });
        buttons_->addWidget(b);
        shown_buttons_.push_back(b);
    };
    add(QString("Rewind to step %1 (a fork, no change)").arg(d.last_finite_step),
        "Replays the run up to the last finite step on a fork, to try a change by hand", d.last_finite_step, {});
    for (const Remedy& r : d.remedies) {
        QString tip = QString::fromStdString(r.why) + "\nOn a fork from step " + QString::number(d.last_finite_step) + ":";
        for (const std::string& c : r.changes) tip += "\n  " + QString::fromStdString(c);
        add(QString::fromStdString(r.label) + QString(" (fork from step %1)").arg(d.last_finite_step), tip,
            d.last_finite_step, r.changes);
    }
}

}  // namespace plab::qt
