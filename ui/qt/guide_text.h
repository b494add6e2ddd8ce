#pragma once
// Rich text that scrolls and never shows a line sliced by its bottom edge: a
// read-only text view that blanks the line the edge cuts through (the
// scroll bar says there is more). A QLabel in a QScrollArea showed the top
// half of the last line, which reads as garbled text.
#include <QTextBrowser>

namespace plab::qt {

class GuideText : public QTextBrowser {
public:
    explicit GuideText(QWidget* parent = nullptr);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // Where, in the viewport, the line cut by its bottom edge begins; -1 when no line is cut.
    int cut_line_top() const;
};

}  // namespace plab::qt
