"""PyTorch as an outside oracle for the lab's GPT (engine/model/tiny_gpt.h).

The engine trains its model in FP32 with plain SGD for 100 steps and writes
the initial parameters, each step's batch and loss, and the first step's
gradients (engine_oracle gpt). Here torch builds the same network from its
own ops (F.layer_norm, F.gelu, a -inf causal mask, F.cross_entropy,
autograd), loads the same parameters, trains on the same batches, and
every step's loss must agree within 1e-5 relative; the first step's
gradients within 1e-4 of each tensor's largest (plus 1e-9).

    python3 torch_gpt_test.py ORACLE      (exit 77 without torch: skipped)"""
import json
import math
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("torch gpt oracle: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

STEPS = 100


def forward(p, spec, ids, targets):
    T, d, H = spec["context"], spec["width"], spec["heads"]
    dh = d // H
    x = p["wte"][ids] + p["wpe"][torch.arange(len(ids)) % T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)

    def linear(h, name):
        return h @ p[name + ".weight"] + p[name + ".bias"]

    def norm(h, name):
        return F.layer_norm(h, (d,), p[name + ".gamma"].reshape(d), p[name + ".beta"].reshape(d), eps=1e-5)

    for layer in range(spec["layers"]):
        n = f"h{layer}"
        h = norm(x, n + ".ln1")
        q, k, v = (linear(h, f"{n}.attn.{w}").reshape(-1, T, H, dh).transpose(1, 2) for w in "qkv")
        scores = (q @ k.transpose(-1, -2)) * spec["logit_scale"]
        att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        mixed = (att @ v).transpose(1, 2).reshape(-1, d)
        x = x + linear(mixed, n + ".attn.proj")
        x = x + linear(F.gelu(linear(norm(x, n + ".ln2"), n + ".mlp.fc")), n + ".mlp.proj")
    h = norm(x, "ln_f")
    logits = h @ p["wte"].T if spec["tied_head"] else linear(h, "head")
    return F.cross_entropy(logits, targets)


def main():
    out = subprocess.run([sys.argv[1], "gpt", str(STEPS)], check=True, capture_output=True, text=True).stdout
    lab = json.loads(out)
    spec = lab["spec"]
    torch.set_num_threads(1)
    p = {name: torch.tensor(t["values"], dtype=torch.float32).reshape(t["shape"]).requires_grad_()
         for name, t in lab["params"].items()}
    lr = torch.tensor(spec["learning_rate"], dtype=torch.float32)
    failures = []
    worst = 0.0
    for step, record in enumerate(lab["steps"]):
        ids = torch.tensor(record["ids"], dtype=torch.int64)
        targets = torch.tensor(record["targets"], dtype=torch.int64)
        loss = forward(p, spec, ids, targets)
        for t in p.values():
            t.grad = None
        loss.backward()
        rel = abs(loss.item() - record["loss"]) / abs(loss.item())
        worst = max(worst, rel)
        if rel > 1e-5:
            failures.append(f"step {step}: lab loss {record['loss']!r}, torch {loss.item()!r} ({rel:.2e} relative)")
        if step == 0:
            for name, t in p.items():
                mine = torch.tensor(lab["grads"][name], dtype=torch.float32).reshape(t.shape)
                top = t.grad.abs().max().item()
                err = (mine - t.grad).abs().max().item()
                # The key bias's true gradient is 0 (it shifts a query's logits
                # alike); both sides hold rounding noise near 1e-11 there.
                if not err <= 1e-4 * top + 1e-9:
                    failures.append(f"{name}: gradient off by {err:.3e}, largest {top:.3e}")
        with torch.no_grad():
            for t in p.values():
                t -= lr * t.grad
    print(f"torch {torch.__version__}: {STEPS} steps, loss {lab['steps'][0]['loss']:.4f} -> "
          f"{lab['steps'][-1]['loss']:.4f}, worst relative loss difference {worst:.2e}")
    if failures:
        print("\n".join(failures[:20]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
