"""The narrow formats a recorded tensor is measured against, and where their
rounding classes begin, derived exactly (fractions.Fraction) from each
format's bit layout: the probe's statistics must count what the lab's
engine counts, value for value."""
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Format:
    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    max_finite: Fraction  # E4M3 has no Inf: its top codes above 448 are NaN

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(2) ** (1 - self.bias - self.mantissa_bits)

    @property
    def min_normal(self) -> Fraction:
        return Fraction(2) ** (1 - self.bias)


# The lab's range formats, in the order records list them.
RANGE_FORMATS = (
    Format("fp16", 5, 10, 15, Fraction(65504)),
    Format("bf16", 8, 7, 127, Fraction(2) ** 127 * (2 - Fraction(1, 2**7))),
    Format("e4m3", 4, 3, 7, Fraction(448)),
    Format("e5m2", 5, 2, 15, Fraction(57344)),
)


@dataclass(frozen=True)
class Boundary:
    """A class of magnitudes begins at `value`: at it (inclusive) or above it.
    Every boundary is a midpoint between neighbouring values of a format, and
    round-to-nearest-even decides which side the midpoint itself falls on."""

    value: Fraction
    inclusive: bool


def _ulp_at(f: Format, x: Fraction) -> Fraction:
    """The spacing of f's normal values in x's binade."""
    exponent = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** exponent > x:
        exponent -= 1
    return Fraction(2) ** (exponent - f.mantissa_bits)


def _mantissa_is_odd(f: Format, x: Fraction) -> bool:
    return (x / _ulp_at(f, x)).numerator % 2 == 1


def boundaries(f: Format):
    """(nonzero, normal, overflow): where values stop rounding to zero, start
    rounding to a normal number, and start rounding past the largest finite
    value (to Inf, or for E4M3 where a saturating cast would clamp)."""
    # Halfway to the smallest subnormal ties to zero (even): above it only.
    nonzero = Boundary(f.min_subnormal / 2, inclusive=False)
    # The largest subnormal has an all-ones (odd) mantissa: its midpoint
    # with the smallest normal ties up to the normal.
    normal = Boundary(f.min_normal - f.min_subnormal / 2, inclusive=True)
    # The next value past the largest finite one would be one ulp up; the
    # midpoint ties away from the largest finite value when its mantissa is odd.
    overflow = Boundary(f.max_finite + _ulp_at(f, f.max_finite) / 2,
                        inclusive=_mantissa_is_odd(f, f.max_finite))
    return nonzero, normal, overflow
