"""What each operation of plab_probe's scan costs on this machine, per
element of a chunk, and what the chunk size does to a whole scan: the
figures behind the choices in python/plab_probe/stats.py (docs/perf.md).

    /usr/bin/python3 bench/probe_scan_ops.py [--rounds 5]

Operations are timed on 256 Ki values shaped like a Linear layer's weights
(uniform in +-1/16); CPU time, the best of the rounds."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402

from plab_probe import stats  # noqa: E402


def best(f, rounds, calls):
    f()
    out = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            f()
        out = min(out, (time.process_time() - start) / calls)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    n = 1 << 18
    x = torch.rand(n) / 8 - 1 / 16
    bits = torch.bitwise_and(x.view(torch.int32), 0x7FFFFFFF)
    top = torch.bitwise_and(bits, 0x7FFF0000)
    halves = top.view(torch.float32).to(torch.bfloat16)
    out32 = torch.empty(n, dtype=torch.int32)
    out16 = torch.empty(n, dtype=torch.bfloat16)
    flag = torch.empty(n, dtype=torch.bool)
    wide = torch.empty(n, dtype=torch.float64).copy_(bits.view(torch.float32))
    scratch = wide.clone()
    table = torch.zeros(256, dtype=torch.int32)
    exponent = torch.bitwise_right_shift(bits, 23)
    t = 0x3A800001  # E4M3's first nonzero magnitude, as a threshold
    ops = {
        "and (|x| bits)": lambda: torch.bitwise_and(x.view(torch.int32), 0x7FFFFFFF, out=out32),
        "right shift": lambda: torch.bitwise_right_shift(bits, 23, out=out32),
        "compare into bool": lambda: torch.ge(bits, t, out=flag),
        "index_select (lookup)": lambda: torch.index_select(table, 0, exponent, out=out32),
        "bincount, strided top halves": lambda: torch.bincount(bits.view(torch.int16)[stats._HIGH_HALF::2]),
        "mask to top halves": lambda: torch.bitwise_and(bits, 0x7FFF0000, out=out32),
        "convert masked to BF16": lambda: out16.copy_(top.view(torch.float32)),
        "bincount, contiguous int16": lambda: torch.bincount(halves.view(torch.int16)),
        "count >= t: clamp, sub, int32 sum": lambda: int(
            torch.clamp(bits, t - 1, t, out=out32).sub_(t - 1).sum(dtype=torch.int32)),
        "count >= t: compare, sum": lambda: int(torch.ge(bits, t, out=flag).sum()),
        "max (int32)": lambda: int(bits.max()),
        "copy to FP64": lambda: scratch.copy_(bits.view(torch.float32)),
        "sum (FP64)": lambda: float(wide.sum()),
        "dot (FP64)": lambda: float(torch.dot(wide, wide)),
        "square in place, sum (FP64)": lambda: float(scratch.mul_(scratch).sum()),
    }
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {n} values, CPU time, best of "
          f"{args.rounds} rounds")
    for name, f in ops.items():
        print(f"  {name:36s} {best(f, args.rounds, 200) * 1e9 / n:6.2f} ns a value")
    whole = torch.rand(1 << 20) / 8 - 1 / 16
    saved = stats.CHUNK
    print("tensor_stats_views over 1 Mi values, by chunk size:")
    for chunk in (1 << 21, 1 << 19, 1 << 18, 1 << 16):
        stats.CHUNK = chunk
        stats._Scratch._by_key.clear()
        ms = best(lambda: stats.tensor_stats_views(whole, [1.0]), args.rounds, 20) * 1e3
        print(f"  chunk {chunk:8d}: {ms:6.2f} ms")
    stats.CHUNK = saved
    return 0


if __name__ == "__main__":
    sys.exit(main())
