"""What plab_probe costs a training step: one model trained with and
without a Recorder, interleaved over rounds, printed as the recorder's
share of a step: per round against the plain run of the same round, the
median over rounds (this machine is noisy, and its noise drifts slowly).

    /usr/bin/python3 bench/probe_overhead.py [--device cpu|cuda] [--hist-every 10] [--rounds 5] [--torch-scan]

Models (--model): 'lm', a GPT-style language model, and 'mlp', the
probe's worst case (see model_for); under bfloat16 autocast on the CPU,
FP16 autocast with a GradScaler and 4x the width and batch on CUDA."""
import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402

import plab_probe  # noqa: E402
from plab_probe import native  # noqa: E402


class TinyLM(torch.nn.Module):
    """A GPT-style language model: token and position embeddings, pre-norm
    transformer blocks (torch's own), a vocabulary head."""

    def __init__(self, vocab, width, layers, context):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.position = torch.nn.Embedding(context, width)
        block = torch.nn.TransformerEncoderLayer(width, 4, 4 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = torch.nn.TransformerEncoder(block, layers)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        return self.head(self.blocks(self.embed(tokens) + self.position(positions)))


def model_for(name, device):
    """(model, input, target): the 'lm' is what a person trains on a CPU
    (4 blocks of width 256, a 4096-token vocabulary, 32 sequences of 128
    tokens a step); the 'mlp' the probe's worst case, little compute per
    parameter (784-1024-1024-512-10, batch 256)."""
    torch.manual_seed(0)
    scale = 4 if device == "cuda" else 1
    if name == "lm":
        vocab, context, batch = 4096, 128, 32 * scale
        model = TinyLM(vocab, 256 * scale, 4, context)
        x = torch.randint(0, vocab, (batch, context))
        y = torch.randint(0, vocab, (batch * context,))
    else:
        width, batch = 1024 * scale, 256 * scale
        model = torch.nn.Sequential(torch.nn.Linear(784, width), torch.nn.GELU(), torch.nn.Linear(width, width),
                                    torch.nn.GELU(), torch.nn.Linear(width, 512), torch.nn.GELU(), torch.nn.Linear(512, 10))
        x = torch.randn(batch, 784)
        y = torch.randint(0, 10, (batch,))
    return model.to(device), x.to(device), y.to(device)


def run(name, device, steps, recorder_options, path, torch_scan=False):
    if torch_scan:
        with native.torch_only():
            return run(name, device, steps, recorder_options, path)
    model, x, y = model_for(name, device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16
    scaler = torch.cuda.amp.GradScaler() if device == "cuda" else None
    rec = plab_probe.Recorder(model, path, scaler=scaler, optimizer=opt, **recorder_options) if recorder_options else None
    start, in_step = None, 0.0
    for step in range(steps + 3):
        if step == 3:  # warm-up steps excluded
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
        with torch.autocast(device, dtype=amp_dtype):
            loss = torch.nn.functional.cross_entropy(model(x).reshape(y.shape[0], -1), y)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        if rec:
            t = time.perf_counter()
            rec.step(loss)
            if start is not None:
                in_step += time.perf_counter() - t
        opt.zero_grad()
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / steps
    if rec:
        rec.close()
    return seconds, in_step / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--model", choices=["lm", "mlp"], default="lm")
    parser.add_argument("--hist-every", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--torch-scan", action="store_true",
                        help="also the recorder with its torch scan where it would use the native one")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("probe_overhead: --device cuda, but torch sees no CUDA device", file=sys.stderr)
        return 2
    hist, traced = {"hist_every": args.hist_every, "trace_nan": False}, {"hist_every": args.hist_every}
    variants = {  # name: (recorder options, torch scan)
        "plain": (None, False),
        f"recorder hist_every={args.hist_every}": (hist, False),
        f"recorder hist_every={args.hist_every} trace_nan": (traced, False),
    }
    if args.torch_scan:
        variants.update({f"  torch scan, hist_every={args.hist_every}": (hist, True),
                         f"  torch scan, hist_every={args.hist_every} trace_nan": (traced, True)})
    rounds = []  # per round: name -> (seconds a step, of it in step())
    with tempfile.TemporaryDirectory() as d:
        for _ in range(args.rounds):
            rounds.append({name: run(args.model, args.device, args.steps, options, os.path.join(d, "run.jsonl"),
                                     torch_scan) for name, (options, torch_scan) in variants.items()})
    params = sum(p.numel() for p in model_for(args.model, "cpu")[0].parameters())
    print(f"torch {torch.__version__}, {args.device}, {torch.get_num_threads()} threads, model {args.model} "
          f"({params / 1e6:.2f} M parameters), {args.steps} steps, {args.rounds} rounds, "
          f"scan {native.scan_used(torch.device(args.device))}")
    print("  the best round's ms/step; the median over rounds of the overhead against the plain run of the "
          "same round")
    for name in variants:
        best = min(r[name][0] for r in rounds)
        line = f"  {name:40s} {best * 1e3:8.2f} ms/step"
        if name != "plain":
            whole = statistics.median((r[name][0] - r["plain"][0]) / r["plain"][0] for r in rounds)
            inside = statistics.median(r[name][1] / r["plain"][0] for r in rounds)
            line += f"  overhead {100 * whole:+.1f}% of a step, of it in step() {100 * inside:.1f}%"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
