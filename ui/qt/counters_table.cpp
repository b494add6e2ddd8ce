#include "ui/qt/counters_table.h"

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

QString percent(double p) { return QString::number(p, 'g', 3) + "%"; }

QFont cell_font(QFont f, bool bold) {
    f.setPointSizeF(font_points(11));
    f.setBold(bold);
    return f;
}

QLabel* cell(QWidget* parent, const QString& text, bool bold) {
    auto* label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setFont(cell_font(label->font(), bold));
    return label;
}

}  // namespace

CountersTable::CountersTable(QWidget* parent) : QWidget(parent) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setHorizontalSpacing(9);
    grid_->setVerticalSpacing(2);
    const char* heads[kColumns] = {"", "zero", "underflow", "twin flush", "subnormal", "overflow", "NaN", "Inf"};
    for (int c = 0; c < kColumns; ++c) grid_->addWidget(cell(this, heads[c], true), 0, c);
    grid_->itemAtPosition(0, kTwinFlushColumn)
        ->widget()
        ->setToolTip("Of the FP32 twin's values (times the loss scale in the scaled view), the share this format "
                     "flushes to zero: what the true values lose. The run's own underflow cannot show it once it "
                     "holds its values in the format: they are zeros there. A dash: no twin, or a format not measured.");
    grid_->setColumnStretch(kColumns, 1);  // the table keeps to the left
}

void CountersTable::show_rows(const std::vector<Row>& rows) {
    while (rows_.size() > rows.size()) {
        delete rows_.back().name;
        for (LiveText* value : rows_.back().values) delete value;
        rows_.pop_back();
    }
    while (rows_.size() < rows.size()) {
        Cells cells;
        const int r = static_cast<int>(rows_.size()) + 1;
        cells.name = cell(this, "", true);
        grid_->addWidget(cells.name, r, 0);
        for (int c = 1; c < kColumns; ++c) {
            auto* value = new LiveText(LiveText::Wrap::none, this);
            value->setFont(cell_font(value->font(), false));
            cells.values[static_cast<std::size_t>(c - 1)] = value;
            grid_->addWidget(value, r, c);
        }
        rows_.push_back(cells);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        const HistCounters& k = row.counters;
        Cells& cells = rows_[i];
        cells.name->setText(row.name);
        if (row.colour != cells.colour) {  // a style sheet is parsed and the label polished again at every set
            cells.colour = row.colour;
            cells.name->setStyleSheet(QString("color:%1").arg(row.colour.name()));
        }
        const QString texts[] = {percent(k.zero),     percent(k.underflow),
                                 k.twin_flush ? percent(*k.twin_flush) : QString("\u2013"),
                                 percent(k.subnormal), percent(k.overflow),
                                 percent(k.nan),      percent(k.inf)};
        for (std::size_t c = 0; c < cells.values.size(); ++c) cells.values[c]->set_text(texts[c]);
    }
}

int CountersTable::height_of_rows(int rows) const {
    const int line = grid_->itemAtPosition(0, 1)->widget()->sizeHint().height();  // "zero": every cell's font is the same size
    return (rows + 1) * line + rows * grid_->verticalSpacing();
}

}  // namespace plab::qt
