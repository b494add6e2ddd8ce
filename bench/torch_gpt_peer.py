#!/usr/bin/env python3
"""PyTorch CPU peer of bench/gpt_bench: the same GPT (sizes as gpt_bench's
defaults) in eager PyTorch, forward and backward of one batch per pass, in
FP32 and under CPU autocast to BF16 (eager CPU has no FP16 autocast), with
one thread and with all of them. With --lab PATH it also runs gpt_bench in
the same invocation, so the ratios come from one run on one machine.

  /usr/bin/python3 bench/torch_gpt_peer.py --lab build/dev/bench/gpt_bench
"""
import argparse
import json
import subprocess
import time

import torch
import torch.nn.functional as F


def make_params(vocab, context, width, layers, gen):
    def w(*shape):
        return (0.02 * torch.randn(*shape, generator=gen)).requires_grad_()

    p = {"wte": w(vocab, width), "wpe": w(context, width)}
    for l in range(layers):
        for name, shape in (("q", (width, width)), ("k", (width, width)), ("v", (width, width)),
                            ("proj", (width, width)), ("fc", (width, 4 * width)), ("mlp_proj", (4 * width, width))):
            p[f"{l}.{name}.w"] = w(*shape)
            p[f"{l}.{name}.b"] = torch.zeros(shape[1], requires_grad=True)
        for n in ("ln1", "ln2"):
            p[f"{l}.{n}.g"] = torch.ones(width, requires_grad=True)
            p[f"{l}.{n}.b"] = torch.zeros(width, requires_grad=True)
    p["lnf.g"] = torch.ones(width, requires_grad=True)
    p["lnf.b"] = torch.zeros(width, requires_grad=True)
    return p


def loss_of(p, ids, targets, context, width, heads, layers):
    dh = width // heads
    x = p["wte"][ids] + p["wpe"][torch.arange(ids.numel()) % context]
    mask = torch.triu(torch.ones(context, context, dtype=torch.bool), diagonal=1)
    for l in range(layers):
        h = F.layer_norm(x, (width,), p[f"{l}.ln1.g"], p[f"{l}.ln1.b"])
        q, k, v = ((h @ p[f"{l}.{n}.w"] + p[f"{l}.{n}.b"]).reshape(-1, context, heads, dh).transpose(1, 2)
                   for n in "qkv")
        att = torch.softmax((q @ k.transpose(-1, -2) * dh ** -0.5).masked_fill(mask, float("-inf")), dim=-1)
        mixed = (att @ v).transpose(1, 2).reshape(-1, width)
        x = x + mixed @ p[f"{l}.proj.w"] + p[f"{l}.proj.b"]
        h = F.layer_norm(x, (width,), p[f"{l}.ln2.g"], p[f"{l}.ln2.b"])
        x = x + F.gelu(h @ p[f"{l}.fc.w"] + p[f"{l}.fc.b"]) @ p[f"{l}.mlp_proj.w"] + p[f"{l}.mlp_proj.b"]
    h = F.layer_norm(x, (width,), p["lnf.g"], p["lnf.b"])
    return F.cross_entropy((h @ p["wte"].T).float(), targets)


def passes_per_second(args, autocast, seconds):
    gen = torch.Generator().manual_seed(1)
    p = make_params(args.vocab, args.context, args.width, args.layers, gen)
    rows = args.batch * args.context
    ids = torch.randint(0, args.vocab, (rows,), generator=gen)
    targets = torch.randint(0, args.vocab, (rows,), generator=gen)

    def one():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_of(p, ids, targets, args.context, args.width, args.heads, args.layers)
        for t in p.values():
            t.grad = None
        loss.backward()

    one()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        one()
        done += 1
    return done / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--context", type=int, default=32)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=62)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--lab", help="path of gpt_bench, run in the same invocation")
    args = ap.parse_args()
    out = {"torch": torch.__version__, "threads_available": torch.get_num_threads()}
    all_threads = torch.get_num_threads()
    for threads in sorted({1, all_threads}):
        torch.set_num_threads(threads)
        out[f"torch_fp32_{threads}_threads"] = passes_per_second(args, False, args.seconds)
        out[f"torch_autocast_bf16_{threads}_threads"] = passes_per_second(args, True, args.seconds)
    if args.lab:
        lab = json.loads(subprocess.run([args.lab, "--seconds", str(args.seconds)], check=True,
                                        capture_output=True, text=True).stdout)
        out["lab"] = lab["passes_per_s"]
        out["lab_fp32_over_torch_fp32_1_thread"] = lab["passes_per_s"]["fp32"] / out["torch_fp32_1_threads"]
        out["lab_op_share_percent"] = lab["amp_fp16_op_share_percent"]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
