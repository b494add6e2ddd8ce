"""A tensor's statistics and log2 histogram, as the lab's records hold them
(docs/telemetry.md): counts exact, with the engine's class thresholds
(thresholds.py); magnitudes summed in FP64.

Every function takes the tensor as held and divisors: the statistics are
those of x / divisor as an exact real number (a gradient's unscaled view is
its scaled values with divisor S; its scaled view, from unscaled values, has
divisor 1 / S). All views of a tensor, and on a histogram step its
histograms, come from one scan of its FP32 bit patterns, in chunks through
scratch buffers that are kept: allocating a tensor-sized temporary per
operation costs more than the operation on the CPU (fresh pages), a chunk
that fits a core's cache is cheaper to pass over again, and chunks bound
the scratch memory on a GPU. The counts take integer work only; the
histogram of a power-of-two divisor reads the exponent of |x|^4 in FP64
(see _scan).

On the CPU, native_scan.c does the same counting in one pass wherever a C
compiler could build it (native.py); on a GPU device_scan.py does it in
whole-chunk operations read back once per tensor. The torch scan here
serves a CPU without a compiler; the tests hold all three to the same
counts."""
import struct
import sys
import threading
from fractions import Fraction
from functools import lru_cache

import torch

from . import device_scan, native
from .formats import RANGE_FORMATS
from .jsonl import F32
from .thresholds import (BINS, BINS_PER_BINADE, LOW_LOG2, POS_INF_BITS, U_SLOTS, float_of_bits, histogram_edges,
                         range_thresholds)

CHUNK = 1 << 18  # elements per scan step: 256 Ki, so that a chunk's passes stay in a core's L2 (docs/perf.md)
_FIXED = (1, POS_INF_BITS, POS_INF_BITS + 1)  # below these: zeros, finite values, all but NaN
# The int16 that holds the top bits of an int32 (and of an FP64), by byte order.
_HIGH_HALF, _HIGH_QUARTER = (1, 3) if sys.byteorder == "little" else (0, 0)


def to_float32(x: float) -> F32:
    """x rounded to FP32 (the lab stores these statistics as floats), to
    nearest even, beyond the largest float to Inf; an F32, which a record
    writes as one."""
    try:
        return F32(struct.unpack("<f", struct.pack("<f", x))[0])
    except OverflowError:
        return F32(torch.tensor(x, dtype=torch.float64).float().item())


_ZERO = F32(0.0)


class _Scratch:
    """Reused buffers of CHUNK elements per device and thread, each cut to
    the chunk's length when asked for."""

    _by_key = {}

    def __init__(self, buffers, n):
        self.buffers, self.n = buffers, n

    def __getitem__(self, name):
        return self.buffers[name][:self.n]

    @classmethod
    def get(cls, device, n):
        key = (device, threading.get_ident())
        s = cls._by_key.get(key)
        if s is None:
            s = cls._by_key[key] = {
                "value": torch.empty(CHUNK, dtype=torch.float32, device=device),
                "wide": torch.empty(CHUNK, dtype=torch.float64, device=device),
                "bits": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "fraction": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "u": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "clamped": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "top": torch.empty(CHUNK, dtype=torch.bfloat16, device=device),
                "flag": torch.empty(CHUNK, dtype=torch.bool, device=device),
            }
        return cls(s, n)


def _chunks(x: torch.Tensor):
    """(FP32 values, |x| bit patterns, scratch) of each chunk of x. Every
    dtype a model holds (FP16, BF16) converts to FP32 exactly."""
    flat = x.detach().reshape(-1)
    for start in range(0, flat.numel(), CHUNK):
        part = flat[start:start + CHUNK]
        scratch = _Scratch.get(flat.device, part.numel())
        if part.dtype != torch.float32 or not part.is_contiguous():
            part = scratch["value"].copy_(part)
        yield part, torch.bitwise_and(part.view(torch.int32), 0x7FFFFFFF, out=scratch["bits"]), scratch


def _top_halves_by_conversion(device) -> bool:
    """Whether converting FP32 values whose low 16 bits are zero to BF16
    gives their top 16 bits on this device, subnormals included (a
    conversion that flushed them, or a platform's own rounding, would not):
    the contiguous key _Counts bincounts. Checked once per device; a
    flush-to-zero mode set later (torch.set_flush_denormal) is not seen,
    and under one the FP64 sums drop subnormals too, as they did before."""
    ok = _TOP_BY_CONVERSION.get(device)
    if ok is None:
        patterns = [0, 1 << 16, 0x7F0000, 0x800000, 0x3F800000, 0x3FFF0000, 0x7F7F0000, POS_INF_BITS]
        bits = torch.tensor(patterns, dtype=torch.int32, device=device)
        try:
            converted = bits.view(torch.float32).to(torch.bfloat16).view(torch.int16).tolist()
        except RuntimeError:  # a device without BF16
            converted = None
        ok = _TOP_BY_CONVERSION[device] = converted == [p >> 16 for p in patterns]
    return ok


_TOP_BY_CONVERSION = {}


class _Counts:
    """Counts below many thresholds at once, from the top 16 bits of each
    |x| bit pattern (128 buckets a binade). One bincount of them gives the
    elements below every bucket; a threshold inside a bucket (its low 16
    bits not zero) whose bucket holds elements is counted over the chunk
    exactly, a clamp to {t - 1, t} and an int32 sum. The key takes no shift
    and no lookup: on the CPU a shift, a comparison or a per-element lookup
    each cost about as much as the bincount, a mask or a conversion a
    quarter of it (docs/perf.md)."""

    def __init__(self, thresholds):
        self.thresholds = thresholds
        buckets = [t >> 16 for t in thresholds]
        # Running totals over the buckets, read at b - 1 for every threshold (the elements below its
        # bucket b; none for b = 0) and at b for one inside its bucket (the two differ when it is occupied).
        self.reads = [(i, t, b, t & 0xFFFF != 0) for i, (t, b) in enumerate(zip(thresholds, buckets))]
        self.index = [max(b - 1, 0) for b in buckets] + [b for _, _, b, inside in self.reads if inside]
        self.inside_rank = {i: r for r, i in enumerate(i for i, _, _, inside in self.reads if inside)}
        self.on_device = {}

    def add(self, bits, scratch, counts, has_nan=True):
        """Adds to counts[t] the elements of the chunk with bits < t, for every
        threshold t. has_nan: whether the chunk may hold a NaN. Returns the
        count of each bucket when every value is its bucket's start (low 16
        bits zero, as a gradient from BF16 arithmetic), else None."""
        top = torch.bitwise_and(bits, 0x7FFF0000, out=scratch["clamped"])
        # Values at their buckets' starts lie below every threshold inside their bucket (unless a NaN
        # was moved into +Inf's, below). Checking costs a pass when it holds and stops at the first
        # other value when not.
        on_starts = not has_nan and torch.equal(top, bits)
        if _top_halves_by_conversion(bits.device):
            # The top halves as a contiguous int16 tensor: masked to them, then converted to BF16, which
            # is then exact. Two cheap passes; bincount would copy a strided view at more cost. A NaN
            # converts to a NaN of BF16's own choosing (negative on some), so with any NaN it goes as +Inf
            # (the buckets above +Inf's hold no threshold).
            halves = scratch["top"].copy_((top.clamp(max=POS_INF_BITS) if has_nan else top).view(torch.float32))
            per_bucket = torch.bincount(halves.view(torch.int16))
        else:
            per_bucket = torch.bincount(bits.view(torch.int16)[_HIGH_HALF::2])
        # Up to the highest occupied bucket only (the running total is the chunk's length from there on).
        index = self.on_device.get(per_bucket.device)
        if index is None:
            index = self.on_device[per_bucket.device] = torch.tensor(self.index, device=per_bucket.device)
        index = index.clamp(max=per_bucket.numel() - 1)
        running = (per_bucket.cumsum(0) if on_starts else per_bucket.cumsum_(0)).index_select(0, index).tolist()
        below = [running[i] if b else 0 for i, _, b, _ in self.reads]
        upto = iter(running[len(self.reads):])
        if on_starts:  # the whole of a threshold's bucket lies below it
            split = []
            for i, _, _, inside in self.reads:
                if inside:
                    below[i] = next(upto)
        else:
            split = [(i, t) for i, t, _, inside in self.reads if inside and next(upto) > below[i]]
        m = bits.numel()
        for i, t in split:  # t splits a bucket that holds elements: 1 where bits >= t, else 0
            at_or_above = torch.clamp(bits, t - 1, t, out=scratch["clamped"]).sub_(t - 1).sum(dtype=torch.int32)
            below[i] = m - int(at_or_above)
        for (_, t, _, _), n in zip(self.reads, below):
            counts[t] += n
        return per_bucket if on_starts else None


def _bucket_sums(per_bucket):
    """(sum of |x|, sum of x^2) in FP64 of values that each sit at their
    bucket's start, from the buckets' counts: each count times the value
    (or its square) is exact in FP64, summed as the values would be."""
    device = per_bucket.device
    tables = _BUCKET_VALUES.get(device)
    if tables is None:
        starts = (torch.arange(POS_INF_BITS >> 16, dtype=torch.int32) << 16).view(torch.float32).double()
        tables = _BUCKET_VALUES[device] = (starts.to(device), (starts * starts).to(device))
    counts = per_bucket.double()
    n = counts.numel()  # the highest occupied bucket + 1, below +Inf's: a finite chunk
    return float((counts * tables[0][:n]).sum()), float((counts * tables[1][:n]).sum())


_BUCKET_VALUES = {}


def _fraction(part: int, n: int) -> F32:
    return _ZERO if part == 0 else to_float32(part / n)


def _stats_of(n, counts, pos_infs, amax, sum_abs, sum_sq, divisors, per_view) -> list:
    finite = counts[POS_INF_BITS]
    out = []
    for d, view in zip(divisors, per_view):
        d = float(d)
        stats = {
            "count": n,
            "zeros": counts[1],
            "nans": n - counts[POS_INF_BITS + 1],
            "pos_infs": pos_infs,
            "neg_infs": counts[POS_INF_BITS + 1] - finite - pos_infs,
            "amax": _ZERO,
            "mean_abs": _ZERO,
            "rms": _ZERO,
        }
        if finite > 0:
            stats["amax"] = to_float32(amax / d)
            stats["mean_abs"] = to_float32(sum_abs / finite / d)
            stats["rms"] = to_float32((sum_sq / finite) ** 0.5 / d)
        for f, (nonzero, normal, overflow) in zip(RANGE_FORMATS, view):
            stats[f.name] = {
                "underflow": _fraction(counts[nonzero] - counts[1], n),
                "subnormal": _fraction(counts[normal] - counts[nonzero], n),
                "overflow": _fraction(finite - counts[overflow], n),
            }
        out.append(stats)
    return out


@lru_cache(maxsize=64)
def _plan(divisors: tuple):
    """(thresholds of every view, their _Counts): one union for all views."""
    per_view = [range_thresholds(d) for d in divisors]
    thresholds = sorted({t for view in per_view for f in view for t in f} | set(_FIXED))
    return per_view, _Counts(thresholds)


def _power_of_two(d: float):
    """k with d = 2^k, else None."""
    q = Fraction(d)
    if q.numerator & (q.numerator - 1) or q.denominator & (q.denominator - 1):
        return None
    return q.numerator.bit_length() - q.denominator.bit_length()


@lru_cache(maxsize=64)
def _fourth_power_bins(k: int, device) -> torch.Tensor:
    """Bin of each top-16-bit key of |x|^4 in FP64 (sign, exponent E, 4 bits
    of fraction), for divisor 2^k: floor(log2 |x|^4) = E - 1023 is
    floor(4 log2 |x|), so the bin is E - 1023 - 4k - 4 LOW_LOG2, clamped.
    Zeros (E = 0), Inf and NaN (E = 2047) go to the dropped slot BINS."""
    exponent = torch.arange(1 << 15, dtype=torch.int64) >> 4
    bins = (exponent - 1023 - BINS_PER_BINADE * (k + LOW_LOG2)).clamp_(0, BINS - 1)
    bins[(exponent == 0) | (exponent == 2047)] = BINS
    return bins.to(device)


def _scan(x: torch.Tensor, divisors, totals: dict = None, hist: bool = False):
    """(tensor_stats of x for each divisor, and with `hist` its log2
    histograms or None) from one scan of x.

    The histogram of a power-of-two divisor comes from the same scan: |x| in
    FP64 (exact), squared in place (exact: 48 significant bits) for the sum
    of squares, squared again. That one rounds, by at most 2^-53 of the
    value, while an FP32 |x| below a quarter-binade edge 2^(k/4) has |x|^4
    below 2^k by more than 2^-24 of it (for every 2^k up to 2^96, the reach
    of a 24-bit significand's fourth power, the largest significand below
    misses by at least 2^-23.8 of it). So the exponent of |x|^4 is exactly
    floor(4 log2 |x|), the quarter-binade bin, read from the top 16 bits of
    the FP64 pattern; probe_engine_agreement.py feeds the float just below
    every edge. Other divisors get their histogram from log2_histogram's
    exact edges, in a second scan."""
    divisors = tuple(float(d) for d in divisors)
    per_view, counter = _plan(divisors)
    if native.can_scan(x):
        return _one_pass_scan(x, divisors, per_view, counter.thresholds, totals, hist, native.scan)
    if device_scan.serves(x):
        return _one_pass_scan(x, divisors, per_view, counter.thresholds, totals, hist, device_scan.scan)
    counts = dict.fromkeys(counter.thresholds, 0)
    powers = [_power_of_two(d) for d in divisors] if hist else []
    fourth = hist and any(k is not None for k in powers)
    keys = None  # bincount of |x|^4's top 16 bits, over the finite values
    n, pos_infs, amax_bits, sum_abs, sum_sq = 0, 0, 0, 0.0, 0.0
    for values, bits, scratch in _chunks(x):
        m = bits.numel()
        n += m
        high = int(bits.max())
        on_starts = counter.add(bits, scratch, counts, has_nan=high > POS_INF_BITS)
        if high >= POS_INF_BITS:  # some Inf or NaN: the sums skip them
            pos_infs += int(torch.isposinf(values).sum())
            bits = bits[bits < POS_INF_BITS]
            high = int(bits.max()) if bits.numel() else 0
        elif on_starts is not None and not fourth:  # the sums from the buckets, no pass in FP64
            amax_bits = max(amax_bits, high)
            chunk_abs, chunk_sq = _bucket_sums(on_starts)
            sum_abs += chunk_abs
            sum_sq += chunk_sq
            continue
        if bits.numel():
            amax_bits = max(amax_bits, high)
            # |x| in FP64 through kept scratch: a sum with dtype=float64 would
            # convert into a fresh tensor-sized temporary.
            wide = scratch["wide"][:bits.numel()].copy_(bits.view(torch.float32))
            sum_abs += float(wide.sum())
            # Squared in place and summed rather than torch.dot: a BLAS such as OpenBLAS hands a long dot
            # to threads of its own, which wait for a core whenever the machine is busy.
            sum_sq += float(wide.mul_(wide).sum())
            if fourth:
                key = torch.bincount(wide.mul_(wide).view(torch.int16)[_HIGH_QUARTER::4], minlength=1 << 15)
                keys = key if keys is None else keys.add_(key)
    finite = counts[POS_INF_BITS]
    if totals is not None:
        totals.update(sum_sq=sum_sq, non_finite=n - finite)
    stats = _stats_of(n, counts, pos_infs, float_of_bits(amax_bits), sum_abs, sum_sq, divisors, per_view)
    if not hist:
        return stats, None
    others = iter(_edge_histograms(x, [d for d, k in zip(divisors, powers) if k is None]))
    hists = []
    for k, s in zip(powers, stats):
        if k is None:
            hists.append(next(others))
            continue
        bins = torch.zeros(BINS + 1, dtype=torch.int64)
        if keys is not None:  # else nothing finite
            bins = bins.to(keys.device).index_add_(0, _fourth_power_bins(k, keys.device), keys)
        hists.append({"zeros": s["zeros"], "nans": s["nans"], "pos_infs": s["pos_infs"], "neg_infs": s["neg_infs"],
                      "bins": bins[:BINS].tolist()})
    return stats, hists


def _one_pass_scan(x: torch.Tensor, divisors, per_view, thresholds, totals: dict, hist: bool, scan):
    """_scan's result from one pass that counts below every threshold at
    once (native.scan on the CPU, device_scan.scan on a GPU), the
    histograms' bins too when every view shares its bin edges (a gradient's
    views do: their divisors are powers of two apart)."""
    edge_sets = {histogram_edges(d)[1] for d in divisors} if hist else set()
    shared = next(iter(edge_sets)) if len(edge_sets) == 1 else None
    below, t, u = scan(x, thresholds, shared)
    counts = dict(zip(thresholds, below))
    if totals is not None:
        totals.update(sum_sq=t.sum_sq, non_finite=t.count - counts[POS_INF_BITS])
    infs = counts[POS_INF_BITS + 1] - counts[POS_INF_BITS]
    pos_infs = int(torch.isposinf(x).sum()) if infs else 0
    stats = _stats_of(t.count, counts, pos_infs, float_of_bits(t.amax_bits), t.sum_abs, t.sum_sq, divisors, per_view)
    if not hist:
        return stats, None
    s = stats[0]
    special = (s["zeros"], s["pos_infs"] + s["neg_infs"], s["pos_infs"])
    return stats, _edge_histograms(x, divisors, {shared: u} if shared else {}, special)


def tensor_stats_views(x: torch.Tensor, divisors, totals: dict = None) -> list:
    """tensor_stats of x for each divisor, from one scan of x. `totals`, when
    given, receives x's own "sum_sq" (FP64, over the finite values) and
    "non_finite" count."""
    return _scan(x, divisors, totals)[0]


def tensor_views(x: torch.Tensor, divisors, totals: dict = None, hist: bool = True):
    """(tensor_stats_views, log2_histogram_views or, without `hist`, None)
    of x, sharing one scan."""
    return _scan(x, divisors, totals, hist)


def tensor_stats(x: torch.Tensor, divisor: float = 1.0) -> dict:
    """count, zeros, nans, pos_infs, neg_infs, amax, mean_abs, rms (over the
    finite values) and, per range format, the fractions of count that
    underflow, land subnormal or overflow: the keys and order of a record's
    statistics object."""
    return tensor_stats_views(x, (divisor,))[0]


def _add_unclamped_bins(bits, scratch, significand_min, counts):
    """Adds the counts of u = 5 E + #{k : M >= significand_min[k]} over the
    chunk, E the biased exponent field and M the significand with its hidden
    bit. Normal numbers land in u = 5..1274, zeros and subnormals below, Inf
    and NaN above."""
    fraction = torch.bitwise_and(bits, 0x7FFFFF, out=scratch["fraction"])
    u = torch.bitwise_right_shift(bits, 23, out=scratch["u"]).mul_(5)
    for m in significand_min:
        u.add_(torch.ge(fraction, m - (1 << 23), out=scratch["flag"]))
    counts += torch.bincount(u, minlength=U_SLOTS)


def _subnormal_bins(x: torch.Tensor, offset: int, significand_min, bins: list):
    """FP32 subnormals into bins, normalised exactly in FP64 (few tensors hold any)."""
    for values, bits, _ in _chunks(x):
        tiny = values[(bits > 0) & (bits < (1 << 23))]
        if tiny.numel() == 0:
            continue
        mantissa, exponent = torch.frexp(tiny.abs().double())  # |x| = m 2^E, m in [0.5, 1)
        significand = (mantissa * 2.0**24).to(torch.int64)
        index = 4 * (exponent.to(torch.int64) - 1) + offset - 1
        for m in significand_min:
            index += (significand >= m).to(torch.int64)
        for i, c in enumerate(torch.bincount(index.clamp_(0, BINS - 1), minlength=BINS).tolist()):
            bins[i] += c


def _special_counts(x: torch.Tensor):
    """(zeros, Inf, +Inf) of x, for the few tensors that hold them."""
    zeros = infs = pos_infs = 0
    for values, bits, _ in _chunks(x):
        zeros += int((bits == 0).sum())
        infs += int((bits == POS_INF_BITS).sum())
        pos_infs += int(torch.isposinf(values).sum())
    return zeros, infs, pos_infs


def log2_histogram_views(x: torch.Tensor, divisors) -> list:
    """log2_histogram of x for each divisor."""
    return _scan(x, divisors, hist=True)[1]


@lru_cache(maxsize=64)
def _slot_bins(offset: int, device) -> torch.Tensor:
    """The bin of each normal number's slot u = 5 E + (edges passed), u from
    5 to 5 * 255 - 1, for bins with this offset (thresholds.histogram_edges)."""
    u = torch.arange(5, 5 * 255, dtype=torch.int64)
    return (4 * (u // 5 - 127) + offset + u % 5 - 1).clamp_(0, BINS - 1).to(device)


def _edge_histograms(x: torch.Tensor, divisors, by_edges: dict = None, special=None) -> list:
    """log2_histogram of x for each divisor, from each bin's exact edges.
    Divisors whose bin edges differ by whole binades (powers of two apart)
    share one scan. by_edges: u counts (_add_unclamped_bins, an int64
    tensor) a scan already made, by significand minima; special: (zeros,
    Inf, +Inf) when known."""
    by_edges = dict(by_edges or {})
    out = []
    for d in divisors:
        offset, significand_min = histogram_edges(float(d))
        if significand_min not in by_edges:
            counts = None
            for _, bits, scratch in _chunks(x):
                if counts is None:
                    counts = torch.zeros(U_SLOTS, dtype=torch.int64, device=bits.device)
                _add_unclamped_bins(bits, scratch, significand_min, counts)
            by_edges[significand_min] = counts if counts is not None else torch.zeros(U_SLOTS, dtype=torch.int64)
        counts = by_edges[significand_min]
        normal = counts[5:5 * 255]  # the normal numbers: |x| = M 2^(E - 127 - 23)
        bins = torch.zeros(BINS, dtype=torch.int64, device=counts.device).index_add_(
            0, _slot_bins(offset, counts.device), normal).tolist()
        # Zeros and subnormals (E = 0) share u's first five slots, Inf and
        # NaN (E = 255) its last: told apart only when there are any.
        tiny, non_finite = (int(n) for n in torch.stack((counts[:5].sum(), counts[5 * 255:].sum())).tolist())
        if (tiny or non_finite) and special is None:
            special = _special_counts(x)
        zeros, infs, pos_infs = special if tiny or non_finite else (0, 0, 0)
        if tiny > zeros:
            _subnormal_bins(x, offset, significand_min, bins)
        out.append({"zeros": zeros, "nans": non_finite - infs, "pos_infs": pos_infs, "neg_infs": infs - pos_infs,
                    "bins": bins})
    return out


def log2_histogram(x: torch.Tensor, divisor: float = 1.0) -> dict:
    """The quarter-binade histogram of |x| / divisor: bin i counts
    2^(-64 + i/4) <= |x| / divisor < 2^(-64 + (i+1)/4), clamped to the 384
    bins; zeros, NaN and infinities counted apart. The keys of a record's
    histogram object, with every bin (writers trim them)."""
    return log2_histogram_views(x, (divisor,))[0]
