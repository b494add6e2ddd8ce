#pragma once
// The key of a chart whose series differ by line style as much as by colour
// (the loss panel: AMP and twin by colour; train, test and accuracy by solid,
// dashed and dotted lines with markers). Qt Charts' legend draws every line
// series as a square of its colour, which says nothing about the style. Each
// entry here is a short stretch of the series' own pen, with its marker when
// it has one, then its name; a heading (no pen) starts a group. Entries flow
// onto as many lines as the width needs.
#include <QPen>
#include <QString>
#include <QWidget>
#include <vector>

namespace plab::qt {

struct KeyEntry {
    QString text;
    QPen pen = QPen(Qt::NoPen);  // Qt::NoPen: a heading, drawn in the text colour
    bool marker = false;         // a dot on the sample, as the series draws at its points
};

class LineKey : public QWidget {
public:
    explicit LineKey(QWidget* parent = nullptr);
    void set_entries(std::vector<KeyEntry> entries);
    const std::vector<KeyEntry>& entries() const { return entries_; }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // Where each entry goes at `width`: its box, line by line.
    std::vector<QRect> lay_out(int width) const;
    int entry_width(const KeyEntry& e) const;

    std::vector<KeyEntry> entries_;
};

}  // namespace plab::qt
