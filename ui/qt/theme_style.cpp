#include "ui/qt/theme_style.h"

#include <QPainter>
#include <QStyleOption>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

void ThemeStyle::drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                               const QWidget* widget) const {
    QProxyStyle::drawPrimitive(element, option, painter, widget);
    if (element != PE_IndicatorCheckBox || !theme().dark) return;
    const bool enabled = option->state & State_Enabled;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(enabled ? QColor(0xa0, 0xa6, 0xb0) : QColor(0x5a, 0x5f, 0x68));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(option->rect.adjusted(0, 0, -1, -1));
    painter->restore();
}

}  // namespace plab::qt
