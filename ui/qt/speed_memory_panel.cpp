#include "ui/qt/speed_memory_panel.h"

#include <QHeaderView>
#include <QScrollArea>
#include <QVBoxLayout>

#include "engine/common/error.h"
#include "ui/present/record_notes.h"
#include "ui/present/speed_memory_view.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

void fill_table(QTableWidget* table, const std::vector<std::string>& columns,
                const std::vector<std::vector<std::string>>& rows) {
    table->clear();
    table->setColumnCount(static_cast<int>(columns.size()));
    table->setRowCount(static_cast<int>(rows.size()));
    QStringList headers;
    for (const std::string& c : columns) headers << QString::fromStdString(c);
    table->setHorizontalHeaderLabels(headers);
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            auto* item = new QTableWidgetItem(QString::fromStdString(rows[r][c]));
            item->setTextAlignment(c == 0 ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignRight | Qt::AlignVCenter));
            table->setItem(static_cast<int>(r), static_cast<int>(c), item);
        }
    // Its whole size, rows (a cell may hold a line per format) and columns:
    // the notes follow right under it, and the panel scrolls as a whole.
    table->resizeColumnsToContents();
    table->resizeRowsToContents();
    table->setFixedSize(table->horizontalHeader()->length() +
                            2 * table->frameWidth(),
                        table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length() +
                            2 * table->frameWidth());
    table->setVisible(!rows.empty());
}

}  // namespace

SpeedMemoryPanel::SpeedMemoryPanel(QWidget* parent) : Panel("speed", "Speed & memory", parent) {
    auto* host = new QWidget(this);
    auto* layout = new QVBoxLayout(host);
    framework_ = add_section(layout, host);
    lab_ = add_section(layout, host);
    layout->addStretch(1);
    // Two tables and their notes: scrolled when the dock is short.
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(host);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
}

SpeedMemoryPanel::Section SpeedMemoryPanel::add_section(QLayout* layout, QWidget* host) {
    Section s{heading_label(host), new QTableWidget(host), body_label(host)};
    s.table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    s.table->setSelectionMode(QAbstractItemView::NoSelection);
    s.table->verticalHeader()->hide();
    s.table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    s.table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    s.table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(s.title);
    layout->addWidget(s.table);
    layout->addWidget(s.notes);
    return s;
}

void SpeedMemoryPanel::clear(Section& s, const QString& title) {
    s.title->setText(title);
    fill_table(s.table, {}, {});
    s.notes->clear();
}

void SpeedMemoryPanel::show_snapshot(const SessionSnapshot& snapshot) {
    const std::shared_ptr<const RunConfig>& config = snapshot.main.config;
    if (!config || config == shown_) return;
    shown_ = config;
    if (snapshot.record && !snapshot.record->source.empty()) {  // the lab's own record: its config's model
        clear(framework_, QString::fromStdString(record_gap_text(RecordGap::speed, *snapshot.record)));
        clear(lab_, {});
        return;
    }
    show_config(*config);
}

void SpeedMemoryPanel::show_config(const RunConfig& config) {
    SpeedMemoryView view;
    try {
        view = speed_memory_view(config);
    } catch (const Error& e) {
        clear(framework_, QString::fromStdString(e.what()));
        clear(lab_, {});
        return;
    }
    framework_.title->setText("What PyTorch holds: " + QString::fromStdString(view.framework.title));
    fill_table(framework_.table, view.framework.columns, view.framework.rows);
    framework_.notes->setText(QString::fromStdString(view.framework.note));
    if (!view.lab) {
        clear(lab_, "The lab's own buffers");
        lab_.notes->setText(QString::fromStdString(view.no_lab));
        return;
    }
    lab_.title->setText("The lab's own buffers: " + QString::fromStdString(view.lab->title));
    fill_table(lab_.table, view.lab->columns, view.lab->rows);
    lab_.notes->setText(QString::fromStdString(view.lab->claim + "\n\n" + view.lab->times + "\n\n" + view.lab->storage));
}

}  // namespace plab::qt
