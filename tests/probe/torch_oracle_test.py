"""PyTorch as an outside oracle for the engine's casts and loss scaler.

Casts: FP32 values rounded
to FP16 and BF16 by torch (its own conversion code, c10::Half and
c10::BFloat16) and by the engine's shared cast (the engine_oracle program),
compared bit for bit over every value each format can hold, the midpoints
between neighbours and the FP32 values either side of them, and random bit
patterns. NaN inputs must give NaN in both; the payload is each side's own.
Scaler: the dynamic scaler's scale and growth tracker after each update of
scripted overflow sequences, against torch._amp_update_scale_.

    python3 torch_oracle_test.py ORACLE      (exit 77 without torch: skipped)"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("torch oracle: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)


def fp32_neighbours(x: torch.Tensor, reach: int) -> torch.Tensor:
    """Every value of x and the `reach` FP32 values either side of it."""
    bits = x.float().view(torch.int32).to(torch.int64)
    steps = torch.arange(-reach, reach + 1, dtype=torch.int64)
    near = (bits[:, None] + steps[None, :]).reshape(-1)
    near = near[(near >= -(2**31)) & (near < 2**31)]
    return near.to(torch.int32).view(torch.float32)


def samples(dtype: torch.dtype) -> torch.Tensor:
    codes = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)
    held = codes.view(dtype).float()  # every value of the format, NaN and Inf included
    finite = held[torch.isfinite(held)].unique()
    midpoints = (finite[1:].double() + finite[:-1].double()) / 2  # exact in FP64, then to FP32 below
    g = torch.Generator().manual_seed(11)
    random = torch.randint(-(2**31), 2**31, (300_000,), generator=g, dtype=torch.int64).to(torch.int32)
    return torch.cat([fp32_neighbours(held, 2), fp32_neighbours(midpoints.float(), 2), random.view(torch.float32)])


def engine_codes(oracle: str, fmt: str, x: torch.Tensor) -> torch.Tensor:
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        f.write(x.numpy().astype("<f4").tobytes())
        path = f.name
    try:
        out = subprocess.run([oracle, "cast", fmt, path], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return torch.tensor(json.loads(out), dtype=torch.int64)


# (init_scale, growth_factor, backoff_factor, growth_interval): GradScaler's
# defaults, factors whose products round in FP32, and a scale whose growth
# overflows FP32 (PyTorch keeps the old scale then).
SCALER_CASES = [(65536.0, 2.0, 0.5, 2000), (3.0, 1.7, 0.3, 3), (2.0**126, 2.0, 0.5, 2), (1000.0, 2.0, 0.9, 1)]


def torch_scaler_states(device, init, growth, backoff, interval, flags):
    """torch._amp_update_scale_, GradScaler.update's kernel, step by step."""
    scale = torch.full((1,), init, dtype=torch.float32, device=device)
    tracker = torch.zeros(1, dtype=torch.int32, device=device)
    states = []
    for f in flags:
        found_inf = torch.full((1,), float(f == "1"), dtype=torch.float32, device=device)
        torch._amp_update_scale_(scale, tracker, found_inf, growth, backoff, interval)
        states.append((float(scale), int(tracker)))
    return states


def check_scaler(oracle: str) -> int:
    """The lab's dynamic scaler against PyTorch's on scripted overflow
    sequences, bit for bit. Debian's torch 1.13 has the kernel for CUDA only:
    without a device this check is skipped (its line says so)."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(5)
    failures = 0
    for init, growth, backoff, interval in SCALER_CASES:
        flags = "".join("1" if v < 0.15 else "0" for v in torch.rand(400, generator=g).tolist()) + "0" * 40
        try:
            theirs = torch_scaler_states(device, init, growth, backoff, interval, flags)
        except RuntimeError as e:
            print(f"torch oracle scaler: skipped, torch {torch.__version__} has no {device} kernel for "
                  f"_amp_update_scale_ ({str(e).splitlines()[0][:60]})")
            return 0
        out = subprocess.run([oracle, "scaler", repr(init), repr(growth), repr(backoff), str(interval), flags],
                             check=True, capture_output=True, text=True).stdout
        ours = [(float(a), int(b)) for a, b in json.loads(out)]
        differ = [i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b]
        for i in differ[:5]:
            print(f"scaler {init, growth, backoff, interval} update {i + 1}: torch {theirs[i]}, engine {ours[i]}")
        print(f"torch oracle scaler {init, growth, backoff, interval} on {device}: {len(flags)} updates, "
              f"{len(differ)} differ")
        failures += len(differ) + (len(theirs) != len(ours))
    return failures


def main() -> int:
    oracle = sys.argv[1]
    failures = check_scaler(oracle)
    for fmt, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        x = samples(dtype)
        theirs = x.to(dtype).view(torch.int16).to(torch.int64) & 0xFFFF
        ours = engine_codes(oracle, fmt, x)
        nan_in = torch.isnan(x)
        nan_out = torch.isnan(ours.to(torch.int16).view(dtype).float())
        differ = (theirs != ours) & ~nan_in
        bad_nan = nan_in & ~nan_out
        for i in torch.nonzero(differ).reshape(-1)[:20].tolist():
            bits = int(x[i : i + 1].view(torch.int32)) & 0xFFFFFFFF
            print(f"{fmt}: {float(x[i])!r} (0x{bits:08x}): torch 0x{int(theirs[i]):04x}, engine 0x{int(ours[i]):04x}")
        print(f"torch oracle {fmt}: {x.numel()} values, {int(differ.sum())} differ, "
              f"{int(bad_nan.sum())} NaN inputs not NaN")
        failures += int(differ.sum()) + int(bad_nan.sum())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
