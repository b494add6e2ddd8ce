#pragma once
// The application's style with what the dark theme needs on top: Fusion
// outlines a check box in the window colour darkened, which on a dark window
// is no outline at all, so an unchecked box all but vanished. In the dark
// theme the box gets an outline that shows (dimmer when disabled).
#include <QProxyStyle>

namespace plab::qt {

class ThemeStyle : public QProxyStyle {
public:
    ThemeStyle() = default;
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget = nullptr) const override;
};

}  // namespace plab::qt
