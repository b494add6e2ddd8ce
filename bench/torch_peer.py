#!/usr/bin/env python3
"""PyTorch peer of `plab bench --backend cuda`: the same models trained in
eager PyTorch in FP32, TF32 and with torch.autocast and GradScaler, with and without the lab's
telemetry (per-layer statistics and log2 histograms of weights, weight grads,
activations and activation grads, scaled and unscaled) and an FP32 twin
stepped in lock-step, on the same GPU. With --plab it also runs
`plab bench --backend cuda --json` in the same invocation, so the ratios in
its table come from one run on one machine.

  python3 bench/torch_peer.py                                  # the small MLP, every variant
  python3 bench/torch_peer.py --model wide --steps 50          # 4096-wide, 4 hidden layers, batch 8192
  python3 bench/torch_peer.py --plab build-gpu/app/plab --json # and the lab's figures beside them

The small model is the lab's default preset (spirals, 2-64-64-3 ReLU MLP,
AdamW lr 0.002); --batch 512 reproduces the figure README.md quotes for
PyTorch. Steps/s are the best of --rounds timed runs after --warmup steps,
with torch.cuda.synchronize() around each timed run.
"""
import argparse
import json
import math
import subprocess
import sys
import time

import torch

# Quarter-binade log2 histogram from 2^-64 to 2^32 (docs/DESIGN.md, "Telemetry").
LOW_EXP, HIGH_EXP, BINS_PER_BINADE = -64, 32, 4
BINS = (HIGH_EXP - LOW_EXP) * BINS_PER_BINADE
# For each of FP16, BF16, E4M3, E5M2: below this |x| flushes to zero (half the
# smallest subnormal), below min normal it is subnormal, above max+half-ulp it overflows.
RANGES = {
    "fp16": (2.0**-25, 2.0**-14, 65520.0),
    "bf16": (2.0**-134, 2.0**-126, 3.3961775e38),
    "e4m3": (2.0**-10, 2.0**-6, 464.0),
    "e5m2": (2.0**-17, 2.0**-14, 61440.0),
}


def spirals(n, classes=3, noise=0.05, seed=1, device="cuda"):
    g = torch.Generator().manual_seed(seed)
    per = n // classes
    t = torch.linspace(0.0, 1.0, per).repeat(classes)
    k = torch.arange(classes).repeat_interleave(per)
    angle = 4.0 * math.pi * t + 2.0 * math.pi * k / classes
    x = torch.stack([t * torch.cos(angle), t * torch.sin(angle)], dim=1)
    x = x + noise * torch.randn(x.shape, generator=g)
    return x.to(device), k.to(device)


def mlp(widths, device):
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(device)
    for m in model:
        if isinstance(m, torch.nn.Linear):
            torch.nn.init.kaiming_uniform_(m.weight, nonlinearity="relu")
            torch.nn.init.zeros_(m.bias)
    return model


def make_scaler(enabled):
    # torch.amp.GradScaler("cuda") since 2.3; torch.cuda.amp.GradScaler before.
    cls = getattr(torch.amp, "GradScaler", None)
    if cls is not None:
        return cls("cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                   enabled=enabled)
    return torch.cuda.amp.GradScaler(init_scale=2.0**16, growth_interval=2000, enabled=enabled)


class Telemetry:
    """The lab's per-tensor statistics, computed on the GPU with the results left there
    (the lab copies its results back asynchronously too)."""

    def __init__(self, model, hist_every):
        self.linears = [m for m in model if isinstance(m, torch.nn.Linear)]
        self.hist_every = hist_every
        self.acts, self.act_grads = {}, {}
        self.results = []
        for i, m in enumerate(self.linears):
            m.register_forward_hook(self._forward_hook(i))

    def _forward_hook(self, i):
        def hook(_module, _inputs, out):
            self.acts[i] = out.detach()
            if out.requires_grad:
                out.register_hook(lambda g: self.act_grads.__setitem__(i, g.detach()))
        return hook

    @staticmethod
    def stats(x, divisor):
        a = x.float().abs() / divisor
        finite = torch.isfinite(a)
        af = torch.where(finite, a, torch.zeros_like(a))
        nonzero = (af > 0) & finite
        out = [a.numel(), (a == 0).sum(), torch.isnan(a).sum(), torch.isinf(a).sum(), af.amax(), af.mean(),
               af.square().mean().sqrt()]
        for flush, normal, over in RANGES.values():
            out += [(nonzero & (af < flush)).sum(), (nonzero & (af >= flush) & (af < normal)).sum(),
                    (finite & (af >= over)).sum()]
        return torch.stack([torch.as_tensor(v, device=x.device, dtype=torch.float32) for v in out])

    @staticmethod
    def histogram(x, divisor):
        a = x.float().abs() / divisor
        a = a[torch.isfinite(a) & (a > 0)]
        bins = torch.floor((torch.log2(a) - LOW_EXP) * BINS_PER_BINADE).clamp(0, BINS - 1)
        return torch.histc(bins, bins=BINS, min=0, max=BINS - 1)

    def record(self, step, scale):
        per_step = []
        take_hist = self.hist_every > 0 and step % self.hist_every == 0
        for i, m in enumerate(self.linears):
            tensors = [(m.weight, 1.0), (m.weight.grad, 1.0), (m.weight.grad, scale), (self.acts[i], 1.0),
                       (self.act_grads[i], 1.0), (self.act_grads[i], scale)]
            for t, d in tensors:
                per_step.append(self.stats(t, d))
                if take_hist:
                    per_step.append(self.histogram(t, d))
        self.results.append(per_step)


def twin_compare(model, twin):
    out = []
    for m, r in zip([m for m in model if isinstance(m, torch.nn.Linear)],
                    [m for m in twin if isinstance(m, torch.nn.Linear)]):
        d = m.weight.detach() - r.weight.detach()
        out.append(torch.stack([d.norm() / r.weight.norm(),
                                torch.nn.functional.cosine_similarity(m.weight.grad.flatten(),
                                                                      r.weight.grad.flatten(), dim=0)]))
    return out


def run(args, recipe, telemetry, twin, steps):
    torch.manual_seed(args.seed)
    x, y = spirals(args.samples, device="cuda")
    model = mlp(args.widths, "cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    ref = ref_opt = None
    if twin:
        ref = mlp(args.widths, "cuda")
        ref.load_state_dict(model.state_dict())
        ref_opt = torch.optim.AdamW(ref.parameters(), lr=args.lr, weight_decay=0.0)
    # TF32: FP32 tensors, matrix products on the TF32 tensor cores (off by default in PyTorch).
    torch.backends.cuda.matmul.allow_tf32 = recipe == "tf32"
    dtype = {"amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}.get(recipe)
    scaler = make_scaler(recipe == "amp-fp16")
    tele = Telemetry(model, args.hist_every) if telemetry else None
    g = torch.Generator(device="cuda").manual_seed(args.seed)
    loss_fn = torch.nn.CrossEntropyLoss()

    def one_step(step):
        rows = torch.randint(0, x.shape[0], (args.batch,), device="cuda", generator=g)
        xb, yb = x[rows], y[rows]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            loss = loss_fn(model(xb), yb)
        scale = scaler.get_scale() if scaler.is_enabled() else 1.0  # a host sync, as GradScaler users pay
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        if tele:
            tele.record(step, scale)
        scaler.step(opt)
        scaler.update()
        if ref is not None:
            ref_opt.zero_grad(set_to_none=True)
            loss_fn(ref(xb), yb).backward()
            ref_opt.step()
            if tele:
                tele.results[-1] += twin_compare(model, ref)
        if tele and len(tele.results) > 64:
            tele.results.clear()  # kept on the GPU a while, as a viewer would take them

    for s in range(args.warmup):
        one_step(s)
    best = float("inf")
    for _ in range(args.rounds):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for s in range(steps):
            one_step(s)
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return steps / best


def peak_memory(args, recipe):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    run(args, recipe, telemetry=False, twin=False, steps=3)
    return torch.cuda.max_memory_allocated()


def plab_figures(plab, steps):
    out = subprocess.run([plab, "bench", "--backend", "cuda", "--json", "--steps", str(steps)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=["small", "wide"], default="small",
                   help="small: 2-64-64-3 (the default preset); wide: 2-4096x4-3, batch 8192")
    p.add_argument("--batch", type=int, help="rows per step (default 512 small, 8192 wide)")
    p.add_argument("--steps", type=int, default=1000, help="timed steps per round")
    p.add_argument("--rounds", type=int, default=3, help="timed rounds; the best counts")
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--hist-every", type=int, default=10, help="histograms every K steps (0: never), as the preset")
    p.add_argument("--samples", type=int, default=1536)
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--plab", help="path of plab: also run `plab bench --backend cuda --json` and show the ratios")
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("torch_peer.py: no CUDA device: this benchmark needs the GPU", file=sys.stderr)
        return 2
    if args.model == "small":
        args.widths, args.batch = [2, 64, 64, 3], args.batch or 512
    else:
        args.widths, args.batch = [2] + [4096] * 4 + [3], args.batch or 8192
        args.samples = max(args.samples, args.batch)

    variants = [("fp32", "fp32", False, False), ("tf32", "tf32", False, False), ("amp_fp16", "amp-fp16", False, False),
                ("amp_bf16", "amp-bf16", False, False), ("amp_fp16_telemetry", "amp-fp16", True, False),
                ("amp_fp16_telemetry_twin", "amp-fp16", True, True)]
    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "model": args.model,
              "batch": args.batch, "steps_per_s": {}}
    for name, recipe, tele, twin in variants:
        result["steps_per_s"][name] = run(args, recipe, tele, twin, args.steps)
    result["peak_bytes"] = {r: peak_memory(args, r) for r in ("fp32", "amp-fp16")}
    result["peak_amp_vs_fp32"] = result["peak_bytes"]["amp-fp16"] / result["peak_bytes"]["fp32"]
    if args.plab:
        lab = plab_figures(args.plab, args.steps)
        result["plab"] = lab
        result["plab_default_vs_torch_telemetry_twin"] = (lab["steps_per_s"]["default"] /
                                                          result["steps_per_s"]["amp_fp16_telemetry_twin"])
        result["plab_amp_vs_torch_amp"] = lab["steps_per_s"]["amp_fp16"] / result["steps_per_s"]["amp_fp16"]
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"PyTorch {result['torch']} on {result['device']}: {args.model} MLP {args.widths}, batch {args.batch}")
    for name, rate in result["steps_per_s"].items():
        print(f"  {rate:10.1f} steps/s  {1000.0 / rate:8.3f} ms/step  {name}")
    print(f"  peak memory AMP-FP16 / FP32: {result['peak_amp_vs_fp32']:.2f} "
          f"({result['peak_bytes']['amp-fp16'] / 2**20:.0f} MiB / {result['peak_bytes']['fp32'] / 2**20:.0f} MiB)")
    if args.plab:
        print(f"  plab default (twin, telemetry) / torch AMP with telemetry and twin: "
              f"{result['plab_default_vs_torch_telemetry_twin']:.2f}x")
        print(f"  plab AMP-FP16 / torch AMP-FP16: {result['plab_amp_vs_torch_amp']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
