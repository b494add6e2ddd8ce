#pragma once
// A spin box for a loss scale: it shows powers of two as such ("2^-30") and
// other values in short scientific or decimal form ("3e-08", "1.5"), takes
// either typed in, and steps by factors of two. A QDoubleSpinBox with fixed
// decimals cannot hold a min_scale of 2^-30 (it shows 0.000000).
#include <QDoubleSpinBox>

namespace plab::qt {

class ScaleSpinBox : public QDoubleSpinBox {
public:
    // Values in [lo, hi]; at lo the box shows `at_lo` instead when it is given ("none").
    ScaleSpinBox(double lo, double hi, const QString& at_lo, QWidget* parent);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
    void stepBy(int steps) override;
};

}  // namespace plab::qt
