"""The scan of a tensor on a GPU: native_scan.c's counting in whole-chunk
torch operations that stay on the device, read back once per tensor.

The CPU's torch scan (stats.py) reads a few values back per 256 Ki chunk,
and on a GPU every read waits for the device to drain its queue: thousands
of waits a step for a model of tens of millions of parameters. Here the
chunks are 2 Mi values, whose temporaries (about 40 MB) come from torch's
caching allocator, and nothing is read until the tensor is done. The
counts are the same integer compares on each value's magnitude bits:
searchsorted places every value among the sorted thresholds, and a
bincount of the places gives the values below each."""
from functools import lru_cache

import torch

from .thread_switch import ThreadSwitch
from .thresholds import POS_INF_BITS, U_SLOTS

CHUNK = 1 << 21


class Totals:
    def __init__(self, count, amax_bits, sum_abs, sum_sq):
        self.count, self.amax_bits, self.sum_abs, self.sum_sq = count, amax_bits, sum_abs, sum_sq


@lru_cache(maxsize=64)
def _on_device(thresholds: tuple, device) -> torch.Tensor:
    return torch.tensor(thresholds, dtype=torch.int32, device=device)


def scan(x: torch.Tensor, thresholds, significand_min=None):
    """(below, totals, u_counts) as native.scan gives them, for a tensor on
    any device: below[k] the values whose magnitude bits are < thresholds[k]
    (sorted); totals the count, largest finite magnitude bits and FP64 sums
    of |x| and x^2 over the finite values; with significand_min, the U_SLOTS
    counts (an int64 tensor on the device) of u = 5 E + #{k : M >= min[k]}."""
    device = x.device
    sorted_thresholds = _on_device(tuple(thresholds), device)
    flat = x.detach().reshape(-1)
    places = torch.zeros(len(thresholds) + 1, dtype=torch.int64, device=device)
    sums = torch.zeros(2, dtype=torch.float64, device=device)
    amax = torch.zeros((), dtype=torch.int32, device=device)
    u = torch.zeros(U_SLOTS, dtype=torch.int64, device=device) if significand_min is not None else None
    for start in range(0, flat.numel(), CHUNK):
        values = flat[start:start + CHUNK].float()  # FP16 and BF16 widen exactly; FP32 is not copied
        bits = values.view(torch.int32) & 0x7FFFFFFF
        # The number of thresholds at or below each value: below threshold k lie the values placed at k or lower.
        places += torch.bincount(torch.searchsorted(sorted_thresholds, bits, right=True, out_int32=True),
                                 minlength=len(thresholds) + 1)
        finite = bits.masked_fill(bits >= POS_INF_BITS, 0)  # Inf and NaN add nothing to the sums
        amax = torch.maximum(amax, finite.max())
        wide = finite.view(torch.float32).double()
        sums += torch.stack((wide.sum(), wide.square().sum()))
        if u is not None:
            fraction = bits & 0x7FFFFF
            slot = (bits >> 23) * 5
            for m in significand_min:
                slot += fraction >= m - (1 << 23)
            u += torch.bincount(slot, minlength=U_SLOTS)
    # One read for the tensor: counts below 2^53 are exact in FP64.
    read = torch.cat((places.cumsum(0)[:-1].double(), amax.double().view(1), sums)).tolist()
    n = len(thresholds)
    below = [int(v) for v in read[:n]]
    return below, Totals(flat.numel(), int(read[n]), read[n + 1], read[n + 2]), u


# Within `with on_cpu_too():` this thread scans CPU tensors this way too:
# how the tests hold it to the engine on a machine without a GPU.
on_cpu_too = ThreadSwitch()


def serves(x: torch.Tensor) -> bool:
    return x.device.type != "cpu" or on_cpu_too.on
