"""A tensor's statistics and log2 histogram, as the lab's records hold them
(docs/telemetry.md): counts exact, with the engine's class thresholds
(thresholds.py); magnitudes summed in FP64.

Every function takes the tensor as held and divisors: the statistics are
those of x / divisor as an exact real number (a gradient's unscaled view is
its scaled values with divisor S; its scaled view, from unscaled values, has
divisor 1 / S). All views of a tensor come from one scan of its FP32 bit
patterns, integer work only, in chunks through scratch buffers that are
kept: allocating a tensor-sized temporary per operation costs more than the
operation on the CPU (fresh pages), and chunks bound the scratch memory on
a GPU."""
import struct
import threading

import torch

from .formats import RANGE_FORMATS
from .thresholds import BINS, POS_INF_BITS, histogram_edges, range_thresholds

CHUNK = 1 << 21  # elements per scan step: 2 Mi, 58 MiB of scratch at most
_FIXED = (1, POS_INF_BITS, POS_INF_BITS + 1)  # below these: zeros, finite values, all but NaN
_U_SLOTS = 5 * 256  # u = 5 E + (bin edges passed within the binade), see _add_unclamped_bins


def to_float32(x: float) -> float:
    """x rounded to FP32 (the lab stores these statistics as floats), to
    nearest even, beyond the largest float to Inf."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return torch.tensor(x, dtype=torch.float64).float().item()


class _Scratch:
    """Reused buffers of CHUNK elements per device and thread."""

    _by_key = {}

    @classmethod
    def get(cls, device, n):
        key = (device, threading.get_ident())
        s = cls._by_key.get(key)
        if s is None:
            s = cls._by_key[key] = {
                "value": torch.empty(CHUNK, dtype=torch.float32, device=device),
                "wide": torch.empty(CHUNK, dtype=torch.float64, device=device),
                "bits": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "exponent": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "fraction": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "u": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "lookup": torch.empty(CHUNK, dtype=torch.int32, device=device),
                "flag": torch.empty(CHUNK, dtype=torch.bool, device=device),
            }
        return {k: v[:n] for k, v in s.items()}


def _chunks(x: torch.Tensor):
    """(FP32 values, |x| bit patterns, scratch) of each chunk of x. Every
    dtype a model holds (FP16, BF16) converts to FP32 exactly."""
    flat = x.detach().reshape(-1)
    for start in range(0, flat.numel(), CHUNK):
        part = flat[start:start + CHUNK]
        scratch = _Scratch.get(flat.device, part.numel())
        if part.dtype != torch.float32 or not part.is_contiguous():
            part = scratch["value"].copy_(part)
        torch.bitwise_and(part.view(torch.int32), 0x7FFFFFFF, out=scratch["bits"])
        yield part, scratch["bits"], scratch


class _BinadeKey:
    """Counts below many thresholds at once. Each element gets a key: its
    binade (the exponent field) times `slots`, plus how many of the
    thresholds inside that binade its fraction field reaches (each rank
    looked up per binade through index_select). One bincount of the keys
    then answers every threshold: the elements of the binades below it,
    and those of its own binade below its rank. No element is compared one
    by one and nothing is compacted (masked_select cost more than the rest
    of the scan together).

    Binade 0 (zeros and FP32 subnormals) holds more thresholds than the
    others (format boundaries far below FP32's normal range). Ranks cost a
    lookup each over the whole chunk, so its thresholds past the others'
    rank count are counted exactly over its elements instead, and only when
    it holds a value other than zero (a model rarely does)."""

    def __init__(self, thresholds, device):
        self.thresholds = thresholds
        inside = {}  # binade -> sorted fraction fields of the thresholds that split it
        for t in thresholds:
            if t & 0x7FFFFF:
                inside.setdefault(t >> 23, []).append(t & 0x7FFFFF)
        for fractions in inside.values():
            fractions.sort()
        self.inside = inside
        ranks = max((len(f) for e, f in inside.items() if e != 0), default=0)
        ranks = max(ranks, 1 if 0 in inside else 0)  # binade 0's first threshold is zero's own (1)
        self.slots = ranks + 1
        unreachable = 1 << 23  # above every fraction field
        self.tables = [torch.tensor([inside[e][r] if r < len(inside.get(e, ())) else unreachable for e in range(256)],
                                    dtype=torch.int32, device=device) for r in range(ranks)]

    def add(self, bits, scratch, counts):
        """Adds to counts[t] the elements of the chunk with bits < t, for every threshold t."""
        exponent = torch.bitwise_right_shift(bits, 23, out=scratch["exponent"])
        ranks = len(self.tables)
        # key = slots E + ranks - #{ranks not reached}: (fraction - threshold) >> 31 is -1 below the
        # threshold and 0 from it on, all in int32 in place (a comparison's bool would be converted
        # into a fresh int32 tensor to be added).
        key = torch.mul(exponent, self.slots, out=scratch["u"]).add_(ranks)
        if ranks:
            fraction = torch.bitwise_and(bits, 0x7FFFFF, out=scratch["fraction"])
            for table in self.tables:
                below = torch.index_select(table, 0, exponent, out=scratch["lookup"])
                key.add_(torch.sub(fraction, below, out=below).bitwise_right_shift_(31))
        per_key = torch.bincount(key, minlength=256 * self.slots).tolist()
        below = [0] * 257  # elements below binade e
        for e in range(256):
            below[e + 1] = below[e] + sum(per_key[e * self.slots:(e + 1) * self.slots])
        tiny = None  # binade 0's values other than zero, when a threshold past its ranks needs them
        for t in self.thresholds:
            e, f = t >> 23, t & 0x7FFFFF
            n = below[e]
            rank = self.inside[e].index(f) if f else -1
            if rank >= self.slots - 1:  # binade 0, past its ranks: zeros lie below, the rest compared
                if tiny is None:
                    subnormals = below[1] - per_key[0]
                    tiny = bits[(bits > 0) & (bits < (1 << 23))] if subnormals else bits[:0]
                n += per_key[0] + int((tiny < t).sum())
            elif f:  # those of its binade whose fraction reaches fewer of its thresholds than f's rank
                n += sum(per_key[e * self.slots:e * self.slots + rank + 1])
            counts[t] += n


def _fraction(part: int, n: int) -> float:
    return 0.0 if part == 0 else to_float32(part / n)


def tensor_stats_views(x: torch.Tensor, divisors, totals: dict = None) -> list:
    """tensor_stats of x for each divisor, from one scan of x. `totals`, when
    given, receives x's own "sum_sq" (FP64, over the finite values) and
    "non_finite" count."""
    per_view = [range_thresholds(float(d)) for d in divisors]
    thresholds = sorted({t for view in per_view for f in view for t in f} | set(_FIXED))
    counts = dict.fromkeys(thresholds, 0)
    binade_key = _BinadeKey(thresholds, x.device)
    n, pos_infs, amax, sum_abs, sum_sq = 0, 0, 0.0, 0.0, 0.0
    for values, bits, scratch in _chunks(x):
        n += bits.numel()
        before = counts[POS_INF_BITS]
        binade_key.add(bits, scratch, counts)
        if counts[POS_INF_BITS] - before < bits.numel():  # some Inf or NaN: the sums skip them
            pos_infs += int(torch.isposinf(values).sum())
            values = values[bits < POS_INF_BITS]
        if values.numel():
            low, high = torch.aminmax(values)
            amax = max(amax, -float(low), float(high))
            m = values.numel()
            # In FP64 (x^2 is exact there), through kept scratch: a sum with
            # dtype=float64 would convert into a fresh tensor-sized temporary.
            wide = scratch["wide"][:m].copy_(values)
            sum_sq += float(torch.dot(wide, wide))
            sum_abs += float(wide.abs_().sum())
    finite = counts[POS_INF_BITS]
    if totals is not None:
        totals.update(sum_sq=sum_sq, non_finite=n - finite)
    out = []
    for d, view in zip(divisors, per_view):
        d = float(d)
        stats = {
            "count": n,
            "zeros": counts[1],
            "nans": n - counts[POS_INF_BITS + 1],
            "pos_infs": pos_infs,
            "neg_infs": counts[POS_INF_BITS + 1] - finite - pos_infs,
            "amax": 0.0,
            "mean_abs": 0.0,
            "rms": 0.0,
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
    counts += torch.bincount(u, minlength=_U_SLOTS)


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
    """log2_histogram of x for each divisor. Divisors whose bin edges differ
    by whole binades (powers of two apart) share one scan."""
    by_edges = {}
    special = None  # (zeros, Inf, +Inf), counted once for every view, when some view needs it
    out = []
    for d in divisors:
        offset, significand_min = histogram_edges(float(d))
        if significand_min not in by_edges:
            counts = None
            for _, bits, scratch in _chunks(x):
                if counts is None:
                    counts = torch.zeros(_U_SLOTS, dtype=torch.int64, device=bits.device)
                _add_unclamped_bins(bits, scratch, significand_min, counts)
            by_edges[significand_min] = counts.tolist() if counts is not None else [0] * _U_SLOTS
        counts = by_edges[significand_min]
        bins = [0] * BINS
        for u in range(5, 5 * 255):  # the normal numbers: |x| = M 2^(E - 127 - 23)
            if counts[u]:
                e, above = divmod(u, 5)
                bins[min(max(4 * (e - 127) + offset + above - 1, 0), BINS - 1)] += counts[u]
        # Zeros and subnormals (E = 0) share u's first five slots, Inf and
        # NaN (E = 255) its last: told apart only when there are any.
        tiny, non_finite = sum(counts[:5]), sum(counts[5 * 255:])
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
