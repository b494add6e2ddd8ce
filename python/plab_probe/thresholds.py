"""Statistics thresholds for one divisor, as FP32 bit patterns.

The statistics of x / divisor treat the quotient as an exact real number. For
a class boundary T and a float x >= 0, x / divisor lies in the class exactly
when x does at or above the smallest FP32 magnitude whose quotient does, so
each boundary becomes one bit pattern: bit patterns of non-negative floats
order like their values, and a tensor is classified with integer compares.
Everything here is exact integer and Fraction arithmetic, computed once per
divisor."""
import struct
from fractions import Fraction
from functools import lru_cache

from .formats import RANGE_FORMATS, Boundary, boundaries

POS_INF_BITS = 0x7F800000
BINS_PER_BINADE = 4
LOW_LOG2 = -64
BINS = (32 - LOW_LOG2) * BINS_PER_BINADE  # 384, as the lab's Log2Histogram
# Every scan's exact-edge histogram counts u = 5 E + (bin edges passed within
# the binade) for each biased exponent E: the bins follow from these slots.
U_SLOTS = 5 * 256


def float_of_bits(u: int) -> float:
    return struct.unpack("<f", struct.pack("<I", u))[0]


def _in_class(u: int, boundary: Boundary, divisor: Fraction) -> bool:
    if u >= POS_INF_BITS:
        return True
    q = Fraction(float_of_bits(u)) / divisor
    return q >= boundary.value if boundary.inclusive else q > boundary.value


def magnitude_threshold(boundary: Boundary, divisor: float) -> int:
    """The smallest FP32 magnitude bit pattern whose quotient by `divisor`
    lies in the class that begins at `boundary` (+Inf's when none does)."""
    d = Fraction(divisor)
    lo, hi = 0, POS_INF_BITS
    while lo < hi:
        mid = (lo + hi) // 2
        if _in_class(mid, boundary, d):
            hi = mid
        else:
            lo = mid + 1
    return lo


@lru_cache(maxsize=256)
def range_thresholds(divisor: float):
    """Per range format, in RANGE_FORMATS order: the (nonzero, normal,
    overflow) thresholds of |x| bits for x / divisor."""
    if not (divisor > 0 and divisor != float("inf")):
        raise ValueError(f"divisor: {divisor!r} is not finite and > 0")
    return tuple(tuple(magnitude_threshold(b, divisor) for b in boundaries(f)) for f in RANGE_FORMATS)


@lru_cache(maxsize=256)
def histogram_edges(divisor: float):
    """(offset, significand_min) for the quarter-binade bins of |x| / divisor.

    With |x| = M * 2^(e - 23), M a 24-bit significand in [2^23, 2^24), the
    bin is floor(4 log2(|x| / divisor)) - 4 * LOW_LOG2, clamped to the bins.
    Writing divisor^4 = s^4 * 2^(4q) (s odd) and T = floor(log2 divisor^4),
    that is 4e + offset + #{k : M >= significand_min[k]} - 1 with
    offset = -T - 4 * LOW_LOG2 and significand_min[k] the smallest M with
    M^4 * 2^(T - 4q) >= s^4 * 2^(92 + k), all in integers."""
    d = Fraction(divisor)
    if d <= 0:
        raise ValueError(f"divisor: {divisor!r} is not > 0")
    s, q = d.numerator, 0
    while s % 2 == 0:
        s //= 2
        q += 1
    den = d.denominator
    q -= den.bit_length() - 1  # the denominator is a power of two
    s4 = s**4
    top = s4.bit_length() - 1  # T - 4q
    offset = -(top + 4 * q) - BINS_PER_BINADE * LOW_LOG2
    mins = []
    for k in range(BINS_PER_BINADE):
        target = s4 << (92 + k)
        lo, hi = 1 << 23, 1 << 24
        while lo < hi:
            mid = (lo + hi) // 2
            if (mid**4) << top >= target:
                hi = mid
            else:
                lo = mid + 1
        mins.append(lo)
    return offset, tuple(mins)
