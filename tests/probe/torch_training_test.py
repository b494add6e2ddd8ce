"""PyTorch trains the lab's MLP: the lab's initial weights, training set and
batch order exported by `plab run --export-init`, loaded into torch, trained
with torch's own layers, loss and optimizer, and its FP32 training losses
compared with the lab's record step by step (1e-5 relative over 200 steps:
the two sum their matrix products in different orders).

    python3 torch_training_test.py PLAB      (exit 77 without torch: skipped)"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy
    import torch
except ImportError:
    print("torch training: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

STEPS = 200
TOLERANCE = 1e-5


def lab_run(plab, preset, folder):
    record = os.path.join(folder, "run.jsonl")
    subprocess.run([plab, "run", "--preset", preset, "--steps", str(STEPS), "--set", "twin=false",
                    "--hist-every", "0", "--export-init", folder, "--quiet", "--out", record], check=True)
    with open(record, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    return lines[0], [r["loss"] for r in lines if r["type"] == "step"]


def torch_losses(header, folder):
    config = header["config"]
    load = lambda name: torch.from_numpy(numpy.load(os.path.join(folder, name)))  # noqa: E731
    params = []
    for layer in header["layers"]:
        params.append(torch.nn.Parameter(load(layer["name"] + ".weight.npy")))  # in x out, as the lab holds it
        params.append(torch.nn.Parameter(load(layer["name"] + ".bias.npy")))
    activation = {"relu": torch.relu, "tanh": torch.tanh,
                  "gelu": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}[config["model"]["activation"]]
    o = config["optimizer"]
    if o["kind"] == "adamw":
        opt = torch.optim.AdamW(params, lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"],
                                weight_decay=o["weight_decay"])
    else:
        opt = torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"])
    x_all, y_all, batches = load("train_x.npy"), load("train_y.npy").long(), load("batches.npy").long()
    losses = []
    for step in range(STEPS):
        rows = batches[step]
        h = x_all[rows]
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = activation(h)
        loss = torch.nn.functional.cross_entropy(h, y_all[rows])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses


def main():
    plab = sys.argv[1]
    torch.set_num_threads(1)
    failures = 0
    for preset in ("spirals-fp32",):
        with tempfile.TemporaryDirectory() as folder:
            header, lab = lab_run(plab, preset, folder)
            if header["config"]["optimizer"]["accumulation"] != 1 or header["config"]["optimizer"]["clip_norm"] != 0:
                raise SystemExit(f"{preset}: the test trains without accumulation or clipping")
            ours = torch_losses(header, folder)
        worst = max(abs(a - b) / abs(a) for a, b in zip(lab, ours))
        bad = [i + 1 for i, (a, b) in enumerate(zip(lab, ours)) if abs(a - b) > TOLERANCE * abs(a)]
        print(f"torch training {preset}: {len(lab)} steps, loss {lab[0]:.6f} -> {lab[-1]:.6f}, "
              f"largest relative difference {worst:.2e}, {len(bad)} steps beyond {TOLERANCE}")
        failures += len(bad) + (len(lab) != STEPS)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
