#include "ui/qt/bit_layout_panel.h"

#include <QScrollArea>

#include <QGridLayout>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/value_text.h"
#include "ui/present/bit_layout.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

QColor role_colour(BitRole role, bool set) {
    // Sign red, exponent green, mantissa blue (the usual textbook colours);
    // a set bit is the strong shade, a clear bit the pale one.
    switch (role) {
        case BitRole::sign: return set ? QColor(0xd6, 0x3a, 0x3a) : QColor(0xf3, 0xc4, 0xc4);
        case BitRole::exponent: return set ? QColor(0x2e, 0x9d, 0x4f) : QColor(0xc4, 0xe8, 0xcf);
        case BitRole::mantissa: return set ? QColor(0x2f, 0x6f, 0xd6) : QColor(0xc6, 0xd8, 0xf5);
    }
    return Qt::gray;
}

QString cell_style(BitRole role, bool set) {
    const QColor c = role_colour(role, set);
    const QString text = set ? "white" : "#333";
    return QString("QPushButton{background:%1;color:%2;border:1px solid #888;border-radius:2px;"
                   "font:bold 11pt monospace;padding:0;}")
        .arg(c.name(), text);
}

QString short_number(double x) { return QString::number(x, 'g', 3); }

// One line under the cells; the full-precision texts are in the tooltip.
QString info_text(const BitLayout& l, const CastReport& r) {
    return QString("<b>%1</b> &nbsp; <b>%2</b> %3 &nbsp; <span style='color:gray'>error %4 (rel %5) · ulp %6"
                   " · neighbours %7, %8</span> &nbsp; <span style='color:#d02020'>%9</span>")
        .arg(QString::fromStdString(l.value), QString::fromStdString(l.hex), QString::fromStdString(l.value_class),
             short_number(r.abs_error), short_number(r.rel_error), QString::fromStdString(l.ulp),
             QString::fromStdString(l.next_down), QString::fromStdString(l.next_up), QString::fromStdString(l.note));
}

QString info_tooltip(const BitLayout& l) {
    return QString("error %1 (relative %2)\nneighbours %3 and %4\nulp %5")
        .arg(QString::fromStdString(l.abs_error), QString::fromStdString(l.rel_error),
             QString::fromStdString(l.next_down), QString::fromStdString(l.next_up), QString::fromStdString(l.ulp));
}

}  // namespace

BitLayoutPanel::BitLayoutPanel(QWidget* parent) : Panel("bits", "Bit layout", parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout();
    top->addWidget(new QLabel("Value:", this));
    input_ = new QLineEdit(this);
    input_->setPlaceholderText("a number: 0.1, 65504, 1e-8, 0x1p-14, inf, nan");
    input_->setToolTip(QString::fromStdString("Accepts " + fp32_value_syntax()));
    QFont big = input_->font();
    big.setPointSizeF(font_points(12));
    input_->setFont(big);
    top->addWidget(input_, 1);
    layout->addLayout(top);
    error_ = new QLabel(this);
    error_->setStyleSheet("color:#d02020");
    error_->setWordWrap(true);  // a long message wraps instead of widening the dock for good
    error_->hide();
    layout->addWidget(error_);

    auto* grid_host = new QWidget(this);
    auto* grid = new QGridLayout(grid_host);
    grid->setHorizontalSpacing(1);
    grid->setVerticalSpacing(2);
    int r = 0;
    for (FormatId f : kAllFormats) {
        rows_.push_back(Row{f, {}, {}, nullptr});
        build_row(rows_.back(), grid_host, r++);
    }
    // Scrolled when the dock is short: the six formats' rows set no least
    // height for the window (a small screen's column holds them in part).
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(grid_host);
    scroll->setMinimumHeight(120);
    layout->addWidget(scroll, 1);
    connect(input_, &QLineEdit::returnPressed, this, [this] { typed(); });
    connect(input_, &QLineEdit::editingFinished, this, [this] { typed(); });
    set_value(value_);
}

void BitLayoutPanel::build_row(Row& row, QWidget* host, int grid_row) {
    auto* grid = static_cast<QGridLayout*>(host->layout());
    auto* label = new QLabel(QString::fromUtf8(std::string(format_display_name(row.format)).c_str()), host);
    QFont f = label->font();
    f.setPointSizeF(font_points(12));
    f.setBold(true);
    label->setFont(f);
    label->setMinimumWidth(56);
    // Each format takes two grid rows: its cells, and under them what they mean.
    grid->addWidget(label, 2 * grid_row, 0, 2, 1, Qt::AlignTop);
    auto* cells = new QWidget(host);
    auto* h = new QHBoxLayout(cells);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(1);
    const int bits = format_params(row.format).total_bits();
    const std::size_t index = rows_.size() - 1;
    for (int i = 0; i < bits; ++i) {
        auto* b = new QPushButton(cells);
        // FP32's 32 cells and its name in 530 pixels: the panel fits a small screen's column (1280 wide);
        // in projector mode as much larger as the fonts.
        b->setFixedSize(static_cast<int>(13 * theme().scale), static_cast<int>(24 * theme().scale));
        b->setFocusPolicy(Qt::NoFocus);
        const int position = bits - 1 - i;
        b->setToolTip(QString("bit %1: click to flip").arg(position));
        connect(b, &QPushButton::clicked, this, [this, index, position] { flip(index, position); });
        h->addWidget(b);
        row.cells.push_back(b);
    }
    h->addStretch(1);
    grid->addWidget(cells, 2 * grid_row, 1);
    row.info = new QLabel(host);
    row.info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row.info->setWordWrap(true);  // wraps in a narrow column instead of setting the window's least width
    grid->addWidget(row.info, 2 * grid_row + 1, 1);
    grid->setColumnStretch(1, 1);
}

void BitLayoutPanel::typed() {
    try {
        const float x = parse_fp32_value(input_->text().trimmed().toStdString());
        error_->hide();
        value_ = x;
        refresh();
    } catch (const Error& e) {
        error_->setText(QString::fromStdString(e.what()));
        error_->show();
    }
}

void BitLayoutPanel::set_value(float x) {
    value_ = x;
    input_->setText(QString::fromStdString(shortest_text(x)));
    error_->hide();
    refresh();
}

void BitLayoutPanel::refresh() {
    for (Row& row : rows_) {
        row.report = describe_cast(row.format, value_);
        const BitLayout l = make_bit_layout(row.report);
        for (std::size_t i = 0; i < row.cells.size() && i < l.cells.size(); ++i) {
            const BitCell& c = l.cells[i];
            row.cells[i]->setText(c.set ? "1" : "0");
            row.cells[i]->setStyleSheet(cell_style(c.role, c.set));
        }
        row.info->setText(info_text(l, row.report));
        row.info->setToolTip(info_tooltip(l));
    }
}

void BitLayoutPanel::flip(std::size_t row, int position) {
    const Row& r = rows_[row];
    set_value(decode(r.format, flip_bit(r.report.fields.code, position)));
}

}  // namespace plab::qt
