#include "ui/qt/guide_text.h"

#include <QAbstractTextDocumentLayout>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <cmath>

namespace plab::qt {

GuideText::GuideText(QWidget* parent) : QTextBrowser(parent) {
    setFrameShape(QFrame::NoFrame);
    setOpenLinks(false);
    // The panel's own background, as the label it replaces had (and it follows a theme switch).
    viewport()->setBackgroundRole(QPalette::Window);
}

void GuideText::paintEvent(QPaintEvent* event) {
    QTextBrowser::paintEvent(event);
    const int cut = cut_line_top();
    if (cut < 0) return;
    QPainter painter(viewport());
    const QColor background = viewport()->palette().color(viewport()->backgroundRole());
    painter.fillRect(QRect(0, cut, viewport()->width(), viewport()->height() - cut), background);
}

int GuideText::cut_line_top() const {
    const int top = verticalScrollBar()->value();
    const double bottom = top + viewport()->height();
    for (QTextBlock b = document()->begin(); b.isValid(); b = b.next()) {
        const QTextLayout* layout = b.layout();
        if (!layout) continue;
        const double y = layout->position().y();  // the block's place in the document
        for (int i = 0; i < layout->lineCount(); ++i) {
            const QTextLine line = layout->lineAt(i);
            const double line_top = y + line.y();
            if (line_top >= bottom) return -1;
            if (line_top + line.height() > bottom + 0.5) return std::max(0, static_cast<int>(std::floor(line_top)) - top);
        }
    }
    return -1;
}

}  // namespace plab::qt
