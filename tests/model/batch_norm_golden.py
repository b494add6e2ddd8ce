# Generates tests/model/batch_norm_golden.h, PyTorch's nn.BatchNorm1d on the
# inputs batch_norm_test.cpp builds from the same formulas (any CPU build of
# PyTorch; not needed to build or run the tests):
#     /usr/bin/python3 tests/model/batch_norm_golden.py > tests/model/batch_norm_golden.h
# Two training forwards (the first also backward), then an evaluation
# forward on a third batch with the running statistics they left.
import sys, torch
torch.set_num_threads(1)
ROWS, COLS = 8, 5
def x(batch, i, j): return ((i * 37 + j * 11 + batch * 5) % 29 - 14) / 4.0 * (1 + j) + 2.0 * j
def dy(i, j): return ((i * 13 + j * 7) % 17 - 8) / 16.0
def gamma(j): return 0.5 + 0.25 * j
def beta(j): return (j - 2) / 8.0
def batch(b): return torch.tensor([[x(b, i, j) for j in range(COLS)] for i in range(ROWS)], dtype=torch.float32)

bn = torch.nn.BatchNorm1d(COLS)  # eps 1e-5, momentum 0.1
with torch.no_grad():
    bn.weight.copy_(torch.tensor([gamma(j) for j in range(COLS)]))
    bn.bias.copy_(torch.tensor([beta(j) for j in range(COLS)]))
bn.train()
x0 = batch(0).requires_grad_(True)
y0 = bn(x0)
y0.backward(torch.tensor([[dy(i, j) for j in range(COLS)] for i in range(ROWS)], dtype=torch.float32))
running_mean_1, running_var_1 = bn.running_mean.clone(), bn.running_var.clone()
bn(batch(1))
bn.eval()
with torch.no_grad():
    y_eval = bn(batch(2))

def array(name, t):
    values = ", ".join(float(v).hex() for v in t.detach().flatten().tolist())
    return f"inline const std::vector<float> {name} = {{{values}}};"

print("// Written by tests/model/batch_norm_golden.py with PyTorch", torch.__version__, "(do not edit).")
print("#pragma once")
print("#include <vector>")
print("namespace plab::batch_norm_golden {")
for name, t in [("kY0", y0), ("kDx0", x0.grad), ("kDgamma0", bn.weight.grad), ("kDbeta0", bn.bias.grad),
                ("kRunningMean1", running_mean_1), ("kRunningVar1", running_var_1),
                ("kRunningMean2", bn.running_mean), ("kRunningVar2", bn.running_var), ("kYEval", y_eval)]:
    print(array(name, t))
print("}  // namespace plab::batch_norm_golden")
