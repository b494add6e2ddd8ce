#include "ui/qt/counters_table.h"

namespace plab::qt {

namespace {

QString percent(double p) { return QString::number(p, 'g', 3) + "%"; }

QLabel* cell(QWidget* parent, const QString& text, bool bold) {
    auto* label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    QFont f = label->font();
    f.setPointSizeF(11);
    f.setBold(bold);
    label->setFont(f);
    return label;
}

}  // namespace

CountersTable::CountersTable(QWidget* parent) : QWidget(parent) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setHorizontalSpacing(14);
    grid_->setVerticalSpacing(2);
    const char* heads[kColumns] = {"", "zero", "underflow", "subnormal", "overflow", "NaN", "Inf"};
    for (int c = 0; c < kColumns; ++c) grid_->addWidget(cell(this, heads[c], true), 0, c);
    grid_->setColumnStretch(kColumns, 1);  // the table keeps to the left
}

void CountersTable::show_rows(const std::vector<Row>& rows) {
    while (rows_.size() > rows.size()) {
        for (QLabel* label : rows_.back()) delete label;
        rows_.pop_back();
    }
    while (rows_.size() < rows.size()) {
        std::array<QLabel*, kColumns> labels{};
        const int r = static_cast<int>(rows_.size()) + 1;
        for (int c = 0; c < kColumns; ++c) {
            labels[static_cast<std::size_t>(c)] = cell(this, "", c == 0);
            grid_->addWidget(labels[static_cast<std::size_t>(c)], r, c);
        }
        rows_.push_back(labels);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        const HistCounters& k = row.counters;
        std::array<QLabel*, kColumns>& labels = rows_[i];
        labels[0]->setText(row.name);
        labels[0]->setStyleSheet(QString("color:%1").arg(row.colour.name()));
        const double values[] = {k.zero, k.underflow, k.subnormal, k.overflow, k.nan, k.inf};
        for (int c = 1; c < kColumns; ++c) labels[static_cast<std::size_t>(c)]->setText(percent(values[c - 1]));
    }
}

}  // namespace plab::qt
