"""A real PyTorch training recorded with plab_probe, for the lab to open.

A small Transformer encoder learns to tell whether a sequence of tokens is
sorted. On the CPU it trains under bfloat16 autocast (no loss scaling); with
a GPU, under float16 autocast with a GradScaler. Then:

    precision-lab --open run.jsonl      # every panel on the record
    plab summary run.jsonl              # the headless account
    plab replay run.jsonl --search      # GradScaler settings proposed on it

Run it from the repository root (it finds python/ there) or after
`pip install ./python`:

    python3 examples/record_a_pytorch_run.py --out run.jsonl --steps 300
"""
import argparse
import os
import sys
import time

import torch

try:
    import plab_probe
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import plab_probe


class SortedClassifier(torch.nn.Module):
    def __init__(self, vocab=32, width=64, heads=4, layers=2, length=16):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.position = torch.nn.Parameter(torch.randn(length, width) * 0.02)
        block = torch.nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, dropout=0.0,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(block, layers)
        self.head = torch.nn.Linear(width, 2)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens) + self.position)
        return self.head(h.mean(dim=1))


def batch(generator, size, length, vocab, device):
    """Half the sequences sorted, half not: label 1 when sorted."""
    tokens = torch.randint(0, vocab, (size, length), generator=generator)
    sorted_rows = torch.rand(size, generator=generator) < 0.5
    tokens[sorted_rows] = tokens[sorted_rows].sort(dim=1).values
    labels = (tokens[:, 1:] >= tokens[:, :-1]).all(dim=1).long()
    return tokens.to(device), labels.to(device)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="run.jsonl", help="the record to write (default: run.jsonl)")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps (default: 300)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                        help="where to train (default: the GPU when there is one)")
    parser.add_argument("--init-scale", type=float, default=2.0 ** 16,
                        help="GradScaler's init_scale on the GPU (default: 65536, PyTorch's)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps: {args.steps} is not a step count (1, 2, ...)")
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          (args.device if args.device != "auto" else "cpu"))
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device is available to PyTorch")

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    model = SortedClassifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    on_gpu = device.type == "cuda"
    dtype = torch.float16 if on_gpu else torch.bfloat16
    scaler = torch.cuda.amp.GradScaler(init_scale=args.init_scale) if on_gpu else None

    started = time.perf_counter()
    with plab_probe.Recorder(model, args.out, scaler=scaler, hist_every=10, optimizer=optimizer,
                             name="sorted-transformer") as rec:
        for step in range(1, args.steps + 1):
            tokens, labels = batch(generator, 64, 16, 32, device)
            with torch.autocast(device.type, dtype=dtype):
                loss = torch.nn.functional.cross_entropy(model(tokens), labels)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            rec.step(loss)
            optimizer.zero_grad(set_to_none=True)
            if step % 50 == 0 or step == args.steps:
                print(f"step {step}/{args.steps}  loss {loss.item():.4f}", file=sys.stderr)
    print(f"{args.steps} steps on {device.type} ({str(dtype).replace('torch.', '')} autocast) in "
          f"{time.perf_counter() - started:.1f} s; record: {args.out}\n"
          f"open it: precision-lab --open {args.out}")


if __name__ == "__main__":
    main()
