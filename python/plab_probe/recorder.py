"""Recorder: a PyTorch training run written in Precision Lab's run format
(docs/probe.md), one step record per optimizer step.

    rec = plab_probe.Recorder(model, "run.jsonl", scaler=scaler, hist_every=10)
    for x, y in batches:
        ...
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        rec.step(loss)            # after the update, before zero_grad
        optimizer.zero_grad()
    rec.close()
"""
import math
import os
import weakref

import torch

from . import __version__, native
from .jsonl import F32, Ints, RecordFile
from .stats import tensor_views
from .thresholds import BINS, BINS_PER_BINADE, LOW_LOG2

RECORD_VERSION = 1
# The first non-finite value is written for at most this many steps: a run
# that has diverged would otherwise write one line per step from then on.
NAN_LINES = 100
# Checks kept between two step() calls at the most (a step of a very deep
# model with many micro-batches stays below it).
MAX_CHECKS = 100_000


class _Layer:
    """One recorded weight: a module's `weight` (or `<name>_weight`, as
    MultiheadAttention's in_proj_weight) and the module that holds it."""

    def __init__(self, name, module, weight):
        self.name, self.module, self.weight = name, module, weight


def _layers_of(model: torch.nn.Module):
    """Every weight parameter of the model, in registration order (the
    forward order of most models), named by its module's path ("blocks.0.fc1";
    "blocks.0.attn.in_proj" for an in_proj_weight)."""
    out = []
    for path, module in model.named_modules():
        for key, param in module.named_parameters(recurse=False):
            if key == "weight" or key.endswith("_weight"):
                name = path if key == "weight" else ".".join(filter(None, (path, key[: -len("_weight")])))
                out.append(_Layer(name or type(module).__name__.lower(), module, param))
    return out


def _dtype_name(dtype: torch.dtype) -> str:
    return {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32", torch.float64: "fp64"}.get(
        dtype, str(dtype).replace("torch.", ""))


def _distributed():
    """(rank, world_size) of an initialised torch.distributed group, else (0, 1)."""
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _rank_path(path: str, rank: int, world_size: int) -> str:
    """Each rank writes its own record: "{rank}" in the path is replaced, or
    ".rankN" goes before the extension."""
    if "{rank}" in path:
        return path.replace("{rank}", str(rank))
    if world_size == 1:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}.rank{rank}{ext}"


def _first_tensor(value):
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (tuple, list)):
        for v in value:
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _non_finite_counts(x: torch.Tensor) -> torch.Tensor:
    return torch.stack((torch.isnan(x).sum(), torch.isinf(x).sum()))


def _has_non_finite(x: torch.Tensor) -> bool:
    """A sum, no temporary (a strided tensor is summed where it lies, not
    copied): a NaN or Inf makes it non-finite. Only when it is not finite,
    which a sum of finite values can also be, are the values checked one by
    one; FP16 sums in FP32, where a sum of finite values cannot overflow."""
    if x.numel() == 0:
        return False
    values = x.detach()
    total = values.sum(dtype=torch.float32) if values.dtype == torch.float16 else values.sum()
    return not math.isfinite(float(total)) and not bool(torch.isfinite(values).all())


def _scaler_config(scaler) -> dict:
    if scaler is None or not scaler.is_enabled():
        return {"kind": "none"}
    s = scaler.state_dict()
    return {
        "kind": "dynamic",
        "init_scale": F32(scaler.get_scale()),
        "growth_factor": F32(s["growth_factor"]),
        "backoff_factor": F32(s["backoff_factor"]),
        "growth_interval": int(s["growth_interval"]),
        "hysteresis": 1,  # GradScaler backs off at every overflow
    }


def _summed_bias(module):
    """The bias whose gradient is a plain sum of the module's output
    gradient (a Linear's over the rows, a convolution's over the batch and
    positions), when it is trained; else None. IEEE addition keeps a NaN or
    Inf, so a finite bias gradient proves the output gradient finite."""
    bias = getattr(module, "bias", None)
    summed = isinstance(module, (torch.nn.Linear, torch.nn.modules.conv._ConvNd))
    return bias if summed and isinstance(bias, torch.nn.Parameter) and bias.requires_grad else None


class _Watch:
    """Forward and backward hooks on the recorded layers (activations) and on
    every leaf module (the first non-finite value). On a GPU each check's
    counts stay on the device and are read once per step, so the device is
    not synchronised per module. On the CPU a check sums the tensor at once;
    the gradient of a Linear's or a convolution's output waits instead for
    its bias gradient, the sum autograd takes of it anyway, and is summed
    only when that is not finite."""

    def __init__(self, model, layers, activations: bool, trace_nan: bool):
        self.activations = activations
        self.trace_nan = trace_nan
        self.acts = {}  # layer name -> (output, grad w.r.t. output)
        self.checks = []  # (phase, module name, op, tensor kind, dtype, (NaN count, Inf count) on the device)
        self.order = 0  # checks made this step, in the order the hooks ran
        self.found = None  # on the CPU: (order, the first non-finite check with its counts)
        self.waiting = {}  # id(bias) -> [(order, phase, module name, op, kind, output gradient)]
        self.eager = set()  # id(bias) of biases whose gradient did not come: their module's are summed at once
        self.checked = {}  # id -> (weak reference, version) of each tensor checked this step
        self.handles = []
        recorded = {id(l.module): l.name for l in layers if l.weight is getattr(l.module, "weight", None)}
        for name, module in model.named_modules():
            is_leaf = next(module.children(), None) is None
            if id(module) in recorded and activations or (is_leaf and trace_nan):
                bias = _summed_bias(module) if trace_nan else None
                self.handles.append(module.register_forward_hook(self._forward_hook(name, recorded.get(id(module)), bias)))
                if bias is not None:
                    self.handles.append(bias.register_hook(self._bias_hook(bias)))

    def _forward_hook(self, name, layer, bias):
        def hook(module, inputs, output):
            out = _first_tensor(output)
            # Evaluation passes (no grad) between steps are not the step's.
            if out is None or not out.is_floating_point() or not torch.is_grad_enabled():
                return
            if self.order >= MAX_CHECKS:  # step() is not being called: keep the first ones
                return
            op = type(module).__name__.lower()
            if self.trace_nan:
                self._check("forward", name, op, "output", out)
            if layer is not None and self.activations:
                self.acts[layer] = [out.detach(), None]
            if out.requires_grad:
                out.register_hook(self._backward_hook(name, op, layer, bias))

        return hook

    def _backward_hook(self, name, op, layer, bias):
        def hook(grad):
            if self.trace_nan:
                if bias is not None and grad.device.type == "cpu" and id(bias) not in self.eager:
                    self._wait_for_bias(bias, name, op, grad)
                else:
                    self._check("backward", name, op, "output_grad", grad)
            if layer is not None and self.activations and layer in self.acts:
                self.acts[layer][1] = grad.detach()

        return hook

    def _check(self, phase, name, op, kind, x):
        """A GPU keeps each check's counts on the device, read once at step();
        on the CPU reading a value costs nothing, so a tensor is summed at
        once and only a non-finite one is counted."""
        if self._seen(x):
            return
        order = self._next()
        if x.device.type != "cpu":
            self.checks.append((phase, name, op, kind, x.dtype, _non_finite_counts(x.detach())))
        elif self.found is None and _has_non_finite(x):
            self._found(order, phase, name, op, kind, x)

    def _next(self):
        self.order += 1
        return self.order

    def _found(self, order, phase, name, op, kind, x):
        if self.found is None or order < self.found[0]:
            nans, infs = _non_finite_counts(x.detach()).tolist()
            self.found = (order, (phase, name, op, kind, x.dtype, nans, infs))

    def _wait_for_bias(self, bias, name, op, grad):
        if self._seen(grad):
            return
        self.waiting.setdefault(id(bias), []).append((self._next(), "backward", name, op, "output_grad", grad))

    def _bias_hook(self, bias):
        def hook(grad):
            waiting = self.waiting.pop(id(bias), ())
            if waiting and _has_non_finite(grad):  # or its sum overflowed: the gradients decide
                self._settle(waiting)

        return hook

    def _settle(self, waiting):
        for order, phase, name, op, kind, grad in waiting:
            if _has_non_finite(grad):
                self._found(order, phase, name, op, kind, grad)

    def _seen(self, x):
        """Whether this very tensor, unchanged since, was checked this step:
        a module that hands its input on (a Dropout with p=0, an Identity)
        outputs the tensor the module before it did, and the hooks of both
        receive the same gradient. Checked once, it is reported under the
        first module, the one that made it."""
        seen = self.checked.get(id(x))
        if seen is not None and seen[0]() is x and seen[1] == x._version:
            return True
        self.checked[id(x)] = (weakref.ref(x), x._version)
        return False

    def first_non_finite(self):
        """The first check, in the order the hooks ran, that found a NaN or
        Inf, with its counts: (phase, module, op, kind, dtype, nans, infs)."""
        for bias, waiting in self.waiting.items():  # a bias gradient that never came
            self._settle(waiting)
            # As under a sharded model that hands autograd other tensors: its gradients would wait to the step's
            # end, every one kept alive, so they are summed at once from now on.
            self.eager.add(bias)
        self.waiting = {}
        if self.found is not None:
            return self.found[1]
        if not self.checks:
            return None
        counts = torch.stack([c[5] for c in self.checks]).tolist()  # one read for the step
        for check, (nans, infs) in zip(self.checks, counts):
            if nans or infs:
                return check[:5] + (nans, infs)
        return None

    def next_step(self):
        self.checks = []
        self.order = 0
        self.found = None
        self.waiting = {}
        self.checked = {}
        self.acts = {}

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []


class Recorder:
    """Writes `model`'s training to `path` in the lab's run format.

    scaler       a torch.cuda.amp.GradScaler / torch.amp.GradScaler (or None):
                 the scale, its updates and the skipped steps come from it.
    hist_every   a "hist" line with every layer's log2 histograms every K
                 steps (0: none).
    optimizer    when given, each step records its learning rate.
    activations  also record each layer's output and output gradient
                 (forward hooks; keeps one activation per layer alive).
    trace_nan    name the first NaN or Inf of a step (forward and backward
                 hooks on every leaf module, the weights after the update).
    name         the run's name in the header (default: the model's class).
    """

    def __init__(self, model, path, scaler=None, hist_every=10, *, optimizer=None, activations=False,
                 trace_nan=True, name=None):
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
        if not isinstance(hist_every, int) or hist_every < 0:
            raise ValueError(f"hist_every: {hist_every!r} is not an integer >= 0 (0: no histograms)")
        self.model = model
        self.scaler = scaler if scaler is not None and scaler.is_enabled() else None
        self.hist_every = hist_every
        self.optimizer = optimizer
        self.layers = _layers_of(model)
        if not self.layers:
            raise ValueError("model: no module holds a weight parameter (`weight` or `*_weight`), so there is "
                             "nothing to record")
        self.rank, self.world_size = _distributed()
        self.path = _rank_path(os.fspath(path), self.rank, self.world_size)
        self.steps = 0
        self.nan_lines = 0
        self._scale = self.scaler.get_scale() if self.scaler else 1.0
        self._file = RecordFile(self.path)  # first: a path that cannot be written leaves no hooks
        self._file.write(self._header(name or type(model).__name__))
        self._watch = _Watch(model, self.layers, activations, trace_nan)

    # --- the record's lines -------------------------------------------------

    def _header(self, name: str) -> dict:
        config = {
            "name": name,
            "description": "a PyTorch run recorded by plab_probe",
            "scaler": _scaler_config(self.scaler),
            "telemetry": {"enabled": True, "hist_every": self.hist_every},
        }
        if self.optimizer is not None:
            config["optimizer"] = {"kind": type(self.optimizer).__name__.lower(),
                                   "lr": F32(self.optimizer.param_groups[0]["lr"])}
        device = next(self.model.parameters()).device
        return {
            "type": "run",
            "version": RECORD_VERSION,
            "backend": f"PyTorch {torch.__version__} ({device.type})",
            "config": config,
            "layers": [{"name": l.name, "shape": "x".join(str(s) for s in l.weight.shape)} for l in self.layers],
            "histogram": {"low_log2": LOW_LOG2, "bins_per_binade": BINS_PER_BINADE, "bins": BINS},
            "source": {"probe": __version__, "torch": torch.__version__, "rank": self.rank,
                       "world_size": self.world_size, "scan": native.scan_used(device)},
        }

    def step(self, loss):
        """Records the optimizer step just taken: call it once per step,
        after scaler.update() (or optimizer.step()), before zero_grad()."""
        if self._file is None:
            raise RuntimeError("Recorder.step: the recorder is closed")
        self.steps += 1
        scale = self._scale
        scale_after = self.scaler.get_scale() if self.scaler else 1.0
        self._scale = scale_after
        grad_totals = {}  # id(weight) -> its gradient's FP64 sum of squares and non-finite count
        with_hist = bool(self.hist_every) and self.steps % self.hist_every == 0
        hist_layers = [] if with_hist else None
        layers = [self._layer_stats(layer, scale, grad_totals, hist_layers) for layer in self.layers]
        squares = sum(_squares_of_gradients(self.model, grad_totals))  # biases too: non-finite when any value is
        # The scaler's verdict where there is one: it backs off exactly when it found an Inf or NaN.
        found_inf = scale_after < scale if self.scaler else not math.isfinite(squares)
        record = {
            "type": "step",
            "step": self.steps,
            "loss": F32(float(loss.detach().float()) if isinstance(loss, torch.Tensor) else float(loss)),
            "scale": F32(scale),
            "scale_after": F32(scale_after),
        }
        if self.scaler:
            record["growth_tracker"] = int(self.scaler.state_dict()["_growth_tracker"])
        record.update({"found_inf": found_inf, "skipped": found_inf and self.scaler is not None,
                       "backoff": scale_after < scale, "growth": scale_after > scale})
        first = _first_non_finite_layer(layers)
        if first is not None:
            record["first_nonfinite_layer"] = first
        record["grad_norm"] = F32(math.sqrt(squares) if math.isfinite(squares) else squares)
        if self.optimizer is not None:
            record["lr"] = F32(self.optimizer.param_groups[0]["lr"])
        record["layers"] = layers
        self._file.write(record)
        if with_hist:
            self._file.write({"type": "hist", "step": self.steps, "layers": hist_layers})
        self._trace(scale, layers)
        self._watch.next_step()
        self._file.flush()  # a run killed later keeps every step recorded so far

    def _views(self, layer, scale):
        """(tensor, [(key, divisor), ...]) of each tensor a layer's record
        describes. The gradient in .grad is unscaled by the time of step()
        (the scaler unscales it in place): its scaled view, as backward held
        it, is the same values with divisor 1 / S."""
        views = [(layer.weight, [("weight", 1.0)])]
        if layer.weight.grad is not None:
            views.append((layer.weight.grad, [("grad", 1.0 / scale), ("grad_unscaled", 1.0)]))
        act = self._watch.acts.get(layer.name)
        if act is not None:
            views.append((act[0], [("act", 1.0)]))
            if act[1] is not None:  # the output gradient is held scaled
                views.append((act[1], [("act_grad", 1.0), ("act_grad_unscaled", scale)]))
        return views

    def _layer_stats(self, layer, scale, grad_totals: dict, hist_layers: list = None) -> dict:
        """The layer's statistics; with hist_layers, its histograms from the
        same scans go there too."""
        out = {"name": layer.name}
        hists = {"name": layer.name}
        for tensor, keys in self._views(layer, scale):
            totals = grad_totals.setdefault(id(layer.weight), {}) if tensor is layer.weight.grad else None
            stats, hist = tensor_views(tensor, [d for _, d in keys], totals, hist=hist_layers is not None)
            for (key, _), s in zip(keys, stats):
                out[key] = s
            for (key, _), h in zip(keys, hist or ()):
                hists[key] = _histogram_record(h)
        if hist_layers is not None:
            hist_layers.append(hists)
        return out

    def _trace(self, scale, layers):
        if not self._watch.trace_nan or self.nan_lines >= NAN_LINES:
            return
        check = self._watch.first_non_finite() or self._non_finite_weight_grad(layers)
        if check is None:
            check = self._non_finite_weight(layers)
        if check is None:
            return
        phase, module, op, kind, dtype, nans, infs = check
        self.nan_lines += 1
        what = {"output": "output", "output_grad": "gradient w.r.t. its output", "weight_grad": "weight gradient",
                "weight": "weight after the update"}
        self._file.write({
            "type": "nan", "step": self.steps, "phase": phase, "layer": module, "op": op, "tensor": kind,
            "format": _dtype_name(dtype), "nans": nans, "infs": infs, "scale": F32(scale),
            "diagnosis": f"step {self.steps}, {phase}: {module} ({op}) {what[kind]} holds {nans} NaN and "
                         f"{infs} Inf in {_dtype_name(dtype)}, the first non-finite value of the step",
        })

    def _non_finite_weight_grad(self, layers):
        """A weight gradient that overflowed while no module output's
        gradient did (the sum over the batch is what overflowed): the first
        such layer in backward order, from its statistics."""
        index = _first_non_finite_layer(layers)
        if index is None:
            return None
        layer, g = self.layers[index], layers[index]["grad_unscaled"]
        return ("backward", layer.name, "grad", "weight_grad", layer.weight.grad.dtype, g["nans"],
                g["pos_infs"] + g["neg_infs"])

    def _non_finite_weight(self, layers):
        """The first parameter, in registration order, holding a NaN or Inf
        after the update: weights from their statistics, the rest summed."""
        stats = {id(layer.weight): record["weight"] for layer, record in zip(self.layers, layers)}
        for name, p in self.model.named_parameters():
            s = stats.get(id(p))
            if s is not None:
                nans, infs = s["nans"], s["pos_infs"] + s["neg_infs"]
            elif _has_non_finite(p):
                nans, infs = _non_finite_counts(p.detach()).tolist()
            else:
                continue
            if nans or infs:
                return ("optimizer", name.rsplit(".", 1)[0], "update", "weight", p.dtype, nans, infs)
        return None

    # --- life -----------------------------------------------------------------

    def close(self):
        """Removes the hooks and closes the record (idempotent)."""
        if hasattr(self, "_watch"):
            self._watch.remove()
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _squares_of_gradients(model, grad_totals: dict) -> list:
    """Each parameter gradient's FP64 sum of squares, in parameter order:
    from the statistics where a layer's were taken, else summed here, read
    once per device (on a GPU every read waits for the device)."""
    parts, summed = [], {}  # summed: device -> [(index into parts, its sum on the device)]
    for p in model.parameters():
        if p.grad is None:
            continue
        t = grad_totals.get(id(p))
        if t is None:
            g = p.grad.detach().double()
            summed.setdefault(g.device, []).append((len(parts), g.mul_(g).sum()))  # not torch.dot: see stats.py
            parts.append(None)
        else:
            parts.append(math.inf if t["non_finite"] else t["sum_sq"])
    for pending in summed.values():
        for (index, _), value in zip(pending, torch.stack([v for _, v in pending]).tolist()):
            parts[index] = value
    return parts


def _first_non_finite_layer(layers):
    """Index into layers of the first, in backward order (the last layer
    first), whose weight gradient holds a NaN or Inf, from its statistics."""
    for index in range(len(layers) - 1, -1, -1):
        g = layers[index].get("grad_unscaled")
        if g is not None and g["nans"] + g["pos_infs"] + g["neg_infs"] > 0:
            return index
    return None


def _histogram_record(h: dict) -> dict:
    """Trimmed as the lab writes it: from the first to the last occupied bin."""
    bins = h["bins"]
    first, last = 0, len(bins)
    while first < last and bins[first] == 0:
        first += 1
    while last > first and bins[last - 1] == 0:
        last -= 1
    return {"zeros": h["zeros"], "nans": h["nans"], "pos_infs": h["pos_infs"], "neg_infs": h["neg_infs"],
            "first_bin": first, "bins": Ints(bins[first:last])}
