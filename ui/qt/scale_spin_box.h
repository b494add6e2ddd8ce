#pragma once
// A spin box for a loss scale: it shows powers of two as such ("2^-30") and
// other values in short scientific or decimal form ("3e-08", "1.5"), takes
// either typed in, and steps by factors of two. A QDoubleSpinBox with fixed
// decimals cannot hold a min_scale of 2^-30 (it shows 0.000000).
#include <QDoubleSpinBox>
#include <optional>

namespace plab::qt {

class ScaleSpinBox : public QDoubleSpinBox {
public:
    // What a typed value becomes: itself, or the nearest power of two
    // (parse_power_of_two_scale), for a scale that must stay one.
    enum class Values { any, powers_of_two };

    // Values in [lo, hi]; at lo the box shows `at_lo` instead when it is given ("none").
    ScaleSpinBox(double lo, double hi, const QString& at_lo, QWidget* parent, Values values = Values::any);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& pos) const override;
    void stepBy(int steps) override;

private:
    std::optional<double> read(const QString& text) const;

    Values values_;
};

}  // namespace plab::qt
