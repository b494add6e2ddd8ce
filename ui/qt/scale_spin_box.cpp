#include "ui/qt/scale_spin_box.h"

#include <algorithm>
#include <cmath>

#include "ui/present/scale_text.h"

namespace plab::qt {

ScaleSpinBox::ScaleSpinBox(double lo, double hi, const QString& at_lo, QWidget* parent, Values values)
    : QDoubleSpinBox(parent), values_(values) {
    // QDoubleSpinBox rounds every value to its decimals: enough of them for
    // the smallest FP32 subnormal (2^-149, about 1.4e-45) to survive.
    setDecimals(64);
    setRange(lo, hi);
    setSpecialValueText(at_lo);
    // The value follows the text only when the edit ends: what is typed on the
    // way to "1e30" ("1e3") is no value, and a text out of range goes back to
    // the value before the edit, not to one of its own prefixes.
    setKeyboardTracking(false);
}

QString ScaleSpinBox::textFromValue(double value) const { return QString::fromStdString(scale_text(value)); }

double ScaleSpinBox::valueFromText(const QString& text) const {
    if (!specialValueText().isEmpty() && text == specialValueText()) return minimum();
    return read(text).value_or(value());
}

std::optional<double> ScaleSpinBox::read(const QString& text) const {
    const std::string t = text.toStdString();
    return values_ == Values::powers_of_two ? parse_power_of_two_scale(t) : parse_scale_text(t);
}

// A text that reads as a scale in range is acceptable; anything else may be
// on its way to one ("2^", "1e-"), and is put back to the last value if it
// is still not one when the edit ends.
QValidator::State ScaleSpinBox::validate(QString& text, int&) const {
    if (!specialValueText().isEmpty() && text == specialValueText()) return QValidator::Acceptable;
    const std::optional<double> v = read(text);
    return v && *v >= minimum() && *v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

// A step is a factor of two (the scaler's own growth and backoff); from 0 ("none") up is 1.
void ScaleSpinBox::stepBy(int steps) {
    const double v = value();
    const double next = v > 0 ? std::ldexp(v, steps) : (steps > 0 ? 1.0 : v);
    setValue(std::clamp(next, minimum(), maximum()));
}

}  // namespace plab::qt
