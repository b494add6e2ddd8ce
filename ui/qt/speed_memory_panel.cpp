#include "ui/present/record_notes.h"
#include "ui/qt/speed_memory_panel.h"

#include <QHeaderView>
#include <QVBoxLayout>

#include "engine/common/error.h"
#include "ui/present/recipe_comparison_view.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

SpeedMemoryPanel::SpeedMemoryPanel(QWidget* parent) : Panel("speed", "Speed & memory", parent) {
    auto* layout = new QVBoxLayout(this);
    title_ = heading_label(this);
    layout->addWidget(title_);
    table_ = new QTableWidget(this);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(table_);
    notes_ = body_label(this);
    layout->addWidget(notes_);
    layout->addStretch(1);
}

void SpeedMemoryPanel::show_snapshot(const SessionSnapshot& snapshot) {
    const std::shared_ptr<const RunConfig>& config = snapshot.main.config;
    if (!config || config == shown_) return;
    shown_ = config;
    if (snapshot.record && !snapshot.record->source.empty()) {  // the lab's own record: its config's model
        title_->setText(QString::fromStdString(record_gap_text(RecordGap::speed, *snapshot.record)));
        table_->clear();
        table_->setRowCount(0);
        notes_->clear();
        return;
    }
    show_config(*config);
}

void SpeedMemoryPanel::show_config(const RunConfig& config) {
    RecipeComparisonView view;
    try {
        view = recipe_comparison_view(compare_recipes(config, nullptr), config, "",
                                      "the workbench measures memory only");
    } catch (const Error& e) {
        title_->setText(QString::fromStdString(e.what()));
        table_->clear();
        table_->setRowCount(0);
        notes_->clear();
        return;
    }
    title_->setText("Memory by tensor class: " + QString::fromStdString(view.title));
    table_->clear();
    table_->setColumnCount(static_cast<int>(view.columns.size()));
    table_->setRowCount(static_cast<int>(view.rows.size()));
    QStringList headers;
    for (const std::string& c : view.columns) headers << QString::fromStdString(c);
    table_->setHorizontalHeaderLabels(headers);
    for (std::size_t r = 0; r < view.rows.size(); ++r)
        for (std::size_t c = 0; c < view.rows[r].size(); ++c) {
            auto* item = new QTableWidgetItem(QString::fromStdString(view.rows[r][c]));
            item->setTextAlignment(c == 0 ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
            table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
        }
    // As tall as its rows: the notes follow right under the table.
    table_->setFixedHeight(table_->horizontalHeader()->height() + table_->verticalHeader()->length() +
                           2 * table_->frameWidth());
    notes_->setText(QString::fromStdString(view.claim + "\n\n" + view.times + "\n\n" + view.storage));
}

}  // namespace plab::qt
