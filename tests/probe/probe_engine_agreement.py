"""The probe counts what the engine counts: identical tensors through
plab_probe's statistics and histogram, on each of its scans (native, torch
and the GPU's, here on CPU tensors), and through the engine's (the engine_oracle program), compared
count by count and bin by bin.

    python3 probe_engine_agreement.py ORACLE

Exit 0: they agree; 1: a difference (printed); 77: no torch here (skipped)."""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
try:
    import torch
except ImportError:
    print("probe agreement: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

from plab_probe import device_scan, native  # noqa: E402
from plab_probe.formats import RANGE_FORMATS, boundaries  # noqa: E402
from plab_probe.stats import log2_histogram, log2_histogram_views, tensor_stats, tensor_stats_views  # noqa: E402

DIVISORS = [1.0, 65536.0, 2.0**-24, 3.0, 1.0 / 3.0, 0.1, 1.5, 1e-30, 6.02e23, 2.0**100, 2.0**-100]


def f32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def neighbours(x: float, reach: int = 2):
    """FP32 values around x: its rounding and `reach` steps either side."""
    x = f32(x)
    if not math.isfinite(x):
        return []
    u = struct.unpack("<I", struct.pack("<f", abs(x)))[0]
    out = []
    for k in range(u - reach, u + reach + 1):
        if 0 <= k < 0x7F800000:
            out.append(struct.unpack("<f", struct.pack("<I", k))[0])
    return out


def edge_values():
    """Values at every class boundary and bin edge, times every divisor."""
    values = [0.0, -0.0, math.nan, math.inf, -math.inf, 3.4028234663852886e38, 1e-45, 1.1754943508222875e-38]
    for d in DIVISORS:
        for f in RANGE_FORMATS:
            for b in boundaries(f):
                values += neighbours(float(b.value) * d)
        for i in range(-260, 140):  # quarter-binade edges, past both clamps
            values += neighbours(2.0 ** (i / 4) * d, reach=1)
    return values


def random_values(n: int):
    g = torch.Generator().manual_seed(7)
    bits = torch.randint(-(2**31), 2**31, (n,), generator=g, dtype=torch.int64).to(torch.int32)
    patterns = bits.view(torch.float32)  # every kind of float, NaN payloads too
    log2 = torch.rand(n, generator=g, dtype=torch.float64) * 300 - 160
    sign = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0).double()
    wide = (sign * torch.pow(2.0, log2)).float()  # dense across the binades, subnormals included
    return torch.cat([patterns, wide])


def run_oracle(oracle: str, x: torch.Tensor):
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        f.write(x.numpy().astype("<f4").tobytes())
        path = f.name
    try:
        out = subprocess.run([oracle, "stats", path] + [repr(d) for d in DIVISORS], check=True, capture_output=True, text=True)
    finally:
        os.unlink(path)
    return [json.loads(line) for line in out.stdout.splitlines()]


def compare(label: str, probe: dict, engine: dict, problems: list):
    for key, want in engine.items():
        got = probe.get(key)
        if isinstance(want, dict):
            compare(f"{label}.{key}", got, want, problems)
        elif want is None:  # JSON has no Inf: the oracle writes null
            if got is None or math.isfinite(got):
                problems.append(f"{label}.{key}: probe {got!r}, engine Inf")
        elif key in ("mean_abs", "rms"):  # FP64 sums in another order: the last bits of an FP32 may differ
            if not math.isclose(got, want, rel_tol=2e-7, abs_tol=0):
                problems.append(f"{label}.{key}: probe {got!r}, engine {want!r}")
        elif got != want:
            problems.append(f"{label}.{key}: probe {got!r}, engine {want!r}")


def check_scan(oracle: str, tensors: dict, problems: list, path: str):
    """Every tensor through one of the probe's two CPU scans."""
    for name, x in tensors.items():  # every divisor's view from one scan
        lines = run_oracle(oracle, x)
        for line, stats, hist in zip(lines, tensor_stats_views(x, DIVISORS), log2_histogram_views(x, DIVISORS)):
            d = line["divisor"]
            compare(f"{path} {name}/{d!r}.stats", stats, line["stats"], problems)
            compare(f"{path} {name}/{d!r}.hist", hist, line["hist"], problems)
            # Alone, a view's bins come from the scan itself (views that share bin edges do too).
            compare(f"{path} {name}/{d!r}.hist alone", log2_histogram(x, d), line["hist"], problems)
    # A model's FP16 and BF16 tensors are measured as their exact FP32 values.
    x = tensors["random"]
    for dtype in (torch.float16, torch.bfloat16):
        held = x.to(dtype)
        for line in run_oracle(oracle, held.float()):
            d = line["divisor"]
            compare(f"{path} {dtype}/{d!r}.stats", tensor_stats(held, d), line["stats"], problems)
            compare(f"{path} {dtype}/{d!r}.hist", log2_histogram(held, d), line["hist"], problems)
    # Finite values that BF16 holds, as a gradient from BF16 arithmetic: every value at the start of its
    # bucket of the top 16 bits, so the torch scan takes the sums from the buckets' counts.
    held = x.to(torch.bfloat16)
    held = held[torch.isfinite(held)]
    for line in run_oracle(oracle, held.float()):
        d = line["divisor"]
        compare(f"{path} finite bf16/{d!r}.stats", tensor_stats(held, d), line["stats"], problems)
        compare(f"{path} finite bf16/{d!r}.hist", log2_histogram(held, d), line["hist"], problems)


def main() -> int:
    oracle = sys.argv[1]
    tensors = {
        "edges": torch.tensor(edge_values(), dtype=torch.float32),
        "random": random_values(200_000),
        "empty": torch.zeros(0, dtype=torch.float32),
    }
    problems = []
    # Both CPU scans: the one pass of native_scan.c, which ./lab's compiler builds, and torch operations.
    if native.library() is None:
        print(f"probe agreement: the native scan is not available ({native.unavailable_reason})")
        return 1
    check_scan(oracle, tensors, problems, "native")
    with native.torch_only():
        if native.can_scan(tensors["random"]):
            problems.append("native.torch_only() left the native scan on")
        check_scan(oracle, tensors, problems, "torch")
        # A GPU's scan (device_scan.py), here on the CPU's tensors.
        with device_scan.on_cpu_too():
            if not device_scan.serves(tensors["random"]):
                problems.append("device_scan.on_cpu_too() left the device scan off")
            check_scan(oracle, tensors, problems, "device")
    # On a GPU, the device scan on the device's own tensors.
    if torch.cuda.is_available():
        for name, x in tensors.items():
            for line, stats, hist in zip(run_oracle(oracle, x), tensor_stats_views(x.cuda(), DIVISORS),
                                         log2_histogram_views(x.cuda(), DIVISORS)):
                d = line["divisor"]
                compare(f"cuda {name}/{d!r}.stats", stats, line["stats"], problems)
                compare(f"cuda {name}/{d!r}.hist", hist, line["hist"], problems)
    for p in problems[:40]:
        print(p)
    total = sum(x.numel() for x in tensors.values())
    print(f"probe agreement: {total} values x {len(DIVISORS)} divisors, three scans, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
