#pragma once
// Panel 1, bit layout: one value in every format, one row each, with
// coloured sign / exponent / mantissa cells; clicking a cell flips that bit
// of that format's code and makes the result the value shown everywhere.
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <vector>

#include "engine/numeric/cast_report.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class BitLayoutPanel : public Panel {
public:
    explicit BitLayoutPanel(QWidget* parent = nullptr);

    void show_snapshot(const SessionSnapshot&) override {}  // shows what the person typed or picked
    // Shows x in every format (from a plot, or typed).
    void set_value(float x);
    float value() const { return value_; }

private:
    struct Row {
        FormatId format;
        CastReport report;
        std::vector<QPushButton*> cells;  // most significant first
        QLabel* info = nullptr;
    };

    void build_row(Row& row, QWidget* grid_parent, int grid_row);
    void typed();
    void refresh();
    void flip(std::size_t row, int position);

    float value_ = 1.0f / 3.0f;
    QLineEdit* input_ = nullptr;
    QLabel* error_ = nullptr;
    std::vector<Row> rows_;
};

}  // namespace plab::qt
