# Generates the golden values of tests/optim/pytorch_golden_test.cpp from real
# PyTorch (any CPU build; not needed to build or run the tests):
#     ATEN_CPU_CAPABILITY=default python3 tests/optim/pytorch_golden.py
# ATEN_CPU_CAPABILITY=default selects ATen's kernels without fused multiply-add,
# the arithmetic the lab reproduces. Hyper-parameters are passed as the doubles
# of their FP32 values, as the lab stores them.
import struct, sys, torch
torch.set_num_threads(1)
def f32(x): return struct.unpack('f', struct.pack('f', x))[0]
def hexf(x): return float(x).hex()
N = 32
W0 = [((i * 53) % 101 - 50) * (64 + i) / 2048.0 for i in range(N)]
def grad(step):
    return [((i * 37 + step * 11) % 97 - 48) * (128 + i) / 8192.0 for i in range(N)]
def run(make_opt, steps=5):
    p = torch.nn.Parameter(torch.tensor(W0, dtype=torch.float32))
    opt = make_opt([p])
    out = []
    for s in range(1, steps + 1):
        p.grad = torch.tensor(grad(s), dtype=torch.float32)
        opt.step()
        out.append([hexf(v) for v in p.detach().tolist()])
    return out

def modern_adamw(lr, b1, b2, eps, wd, steps=5):
    # torch/optim/adam.py (2.x) _single_tensor_adam, decoupled weight decay, with tensor ops
    p = torch.tensor(W0, dtype=torch.float32)
    m = torch.zeros_like(p); v = torch.zeros_like(p)
    out = []
    for s in range(1, steps + 1):
        g = torch.tensor(grad(s), dtype=torch.float32)
        step = float(s)
        p.mul_(1 - lr * wd)
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        bc1 = 1 - b1 ** step
        bc2 = 1 - b2 ** step
        step_size = lr / bc1
        bc2_sqrt = bc2 ** 0.5
        denom = (v.sqrt() / bc2_sqrt).add_(eps)
        p.addcdiv_(m, denom, value=-step_size)
        out.append([hexf(x) for x in p.tolist()])
    return out

sgd_cases = [(0.1, 0.0, 0.0), (0.05, 0.9, 0.01), (0.3, 0.5, 0.1)]
adam_cases = [(1e-3, 0.9, 0.999, 1e-8, 0.0), (1e-2, 0.9, 0.999, 1e-8, 0.01), (0.1, 0.5, 0.9, 1e-3, 0.1)]
print("torch", torch.__version__, file=sys.stderr)
for lr, mom, wd in sgd_cases:
    lr, mom, wd = f32(lr), f32(mom), f32(wd)
    r = run(lambda ps: torch.optim.SGD(ps, lr=lr, momentum=mom, weight_decay=wd))
    print("SGD", lr, mom, wd); [print("  ", row) for row in r]
for lr, b1, b2, eps, wd in adam_cases:
    lr, b1, b2, eps, wd = map(f32, (lr, b1, b2, eps, wd))
    r = modern_adamw(lr, b1, b2, eps, wd)
    old = run(lambda ps: torch.optim.AdamW(ps, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd, foreach=False))
    print("ADAMW", lr, b1, b2, eps, wd); [print("  ", row) for row in r]
    print("  old-1.13-differs-at-step5:", sum(a != b for a, b in zip(r[-1], old[-1])))
