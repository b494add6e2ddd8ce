#pragma once
// The counters under the histograms: per layer and format, the percentage of
// values that are zero, flush to zero, land subnormal, overflow, are NaN or
// Inf, and of the FP32 twin's values the share the format flushes. A grid of plain-text cells: it changes with every histogram (every
// few steps while training), and a rich-text table cost a document layout
// on each change. The percentages are LiveText: a new number is a repaint,
// not a new layout of the window.
#include <QColor>
#include <QGridLayout>
#include <QLabel>
#include <QWidget>
#include <array>
#include <vector>

#include "ui/present/histogram_view.h"
#include "ui/qt/live_text.h"

namespace plab::qt {

class CountersTable : public QWidget {
    Q_OBJECT  // findChildren<CountersTable*> finds it

public:
    struct Row {
        QString name;   // "FP16", or "fc1 FP16" when several layers are listed
        QColor colour;  // of the format
        HistCounters counters;
    };

    explicit CountersTable(QWidget* parent = nullptr);
    void show_rows(const std::vector<Row>& rows);
    // The height of the heading and `rows` rows: what a scroll area around
    // the table shows of it (the rows just added are not laid out yet).
    int height_of_rows(int rows) const;

private:
    static constexpr int kColumns = 8;  // name, zero, underflow, twin flush, subnormal, overflow, NaN, Inf
    static constexpr int kTwinFlushColumn = 3;
    QGridLayout* grid_ = nullptr;
    struct Cells {
        QLabel* name = nullptr;
        std::array<LiveText*, kColumns - 1> values{};
        QColor colour;  // of the name, as last set
    };
    std::vector<Cells> rows_;
};

}  // namespace plab::qt
