"""plab_probe.Recorder on real PyTorch training: the record's lines, its
scaler fields against the scaler's own trajectory, the first non-finite
value, histograms that add up to the statistics, bad arguments, and a
two-process gloo run where each rank writes its own record.

    python3 recorder_test.py        (exit 77 without torch: skipped)"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
try:
    import torch
except ImportError:
    print("recorder test: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

import plab_probe  # noqa: E402


class RuleScaler:
    """GradScaler's interface and rule (torch/amp/grad_scaler.py) on the CPU,
    where Debian's torch 1.13 has no GradScaler: on found_inf the step is
    skipped, the scale multiplied by backoff_factor and the tracker reset;
    after growth_interval clean steps in a row the scale grows."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._tracker = 0
        self._found_inf = False
        self.history = []  # (scale used, found_inf, scale after)

    def is_enabled(self):
        return True

    def get_scale(self):
        return self._scale

    def state_dict(self):
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._tracker}

    def scale(self, loss):
        return loss * self._scale

    def step(self, optimizer):
        inv = torch.tensor(1.0 / self._scale, dtype=torch.float64).float()
        self._found_inf = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.mul_(inv)
                    self._found_inf |= not bool(torch.isfinite(p.grad).all())
        if not self._found_inf:
            optimizer.step()

    def update(self):
        before = self._scale
        if self._found_inf:
            self._scale *= self._backoff_factor
            self._tracker = 0
        else:
            self._tracker += 1
            if self._tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._tracker = 0
        self.history.append((before, self._found_inf, self._scale))


def f32(x):
    return float(torch.tensor(x, dtype=torch.float64).float())


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


TRAJECTORY = ("step", "scale", "scale_after", "found_inf", "skipped", "backoff", "growth", "growth_tracker")


def recorded_trajectory(path):
    return [tuple(r[k] for k in TRAJECTORY) for r in read(path) if r["type"] == "step"]


def replayed(path, *args):
    """The trajectory plab replay predicts for the record at `path`."""
    out = subprocess.run([os.environ["PLAB_EXE"], "replay", path, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    return [tuple(r[k] for k in TRAJECTORY) for r in lines if r["type"] == "step"]


def mlp():
    torch.manual_seed(3)
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
                               torch.nn.Linear(32, 4))


def batch(step):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randn(64, 8, generator=g), torch.randint(0, 4, (64,), generator=g)


def train_with_an_infinite_weight(model, path, module, after_step=lambda step: None):
    """Two SGD steps recorded at `path`; before the second, one weight of
    `module` is Inf. after_step(step) follows each."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with plab_probe.Recorder(model, path, optimizer=opt) as rec:
        for step in (1, 2):
            if step == 2:
                with torch.no_grad():
                    module.weight[0, 0] = float("inf")
            x, y = batch(step)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            rec.step(loss)
            opt.zero_grad()
            after_step(step)


class RecorderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "run.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def train_with_scaler(self, steps, overflow_steps, **options):
        """AdamW under a loss scaler; on `overflow_steps` the loss is
        multiplied by 1e38 so that the scaled backward overflows FP32."""
        model = mlp()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scaler = RuleScaler(init_scale=2.0**10, growth_interval=3)
        with plab_probe.Recorder(model, self.path, scaler=scaler, optimizer=opt, **options) as rec:
            for step in range(1, steps + 1):
                x, y = batch(step)
                loss = torch.nn.functional.cross_entropy(model(x), y)
                scaled = scaler.scale(loss * (1e38 if step in overflow_steps else 1.0))
                scaled.backward()
                scaler.step(opt)
                scaler.update()
                rec.step(loss)
                opt.zero_grad()
        return model, scaler

    def test_header_names_the_layers_in_forward_order_and_the_scaler(self):
        self.train_with_scaler(2, set())
        header = read(self.path)[0]
        self.assertEqual(header["type"], "run")
        self.assertEqual(header["version"], 1)
        self.assertEqual([(l["name"], l["shape"]) for l in header["layers"]], [("0", "32x8"), ("2", "32x32"), ("4", "4x32")])
        self.assertEqual(header["histogram"], {"low_log2": -64, "bins_per_binade": 4, "bins": 384})
        self.assertEqual(header["config"]["scaler"], {"kind": "dynamic", "init_scale": 1024, "growth_factor": 2,
                                                      "backoff_factor": 0.5, "growth_interval": 3, "hysteresis": 1})
        self.assertEqual(header["source"]["world_size"], 1)

    def test_scale_fields_follow_the_scaler_step_by_step(self):
        _, scaler = self.train_with_scaler(12, {2, 3, 9})
        steps = [r for r in read(self.path) if r["type"] == "step"]
        self.assertEqual(len(steps), 12)
        for record, (used, found_inf, after) in zip(steps, scaler.history):
            self.assertEqual(record["scale"], used)
            self.assertEqual(record["scale_after"], after)
            self.assertEqual(record["found_inf"], found_inf)
            self.assertEqual(record["skipped"], found_inf)
            self.assertEqual(record["backoff"], after < used)
            self.assertEqual(record["growth"], after > used)
        self.assertEqual([r["step"] for r in steps if r["found_inf"]], [2, 3, 9])
        self.assertTrue(any(r["growth"] for r in steps))  # growth_interval 3: clean runs grow the scale

    def test_an_overflow_names_the_first_layer_in_backward_order_and_the_module(self):
        self.train_with_scaler(3, {2}, trace_nan=True)
        lines = read(self.path)
        step2 = next(r for r in lines if r["type"] == "step" and r["step"] == 2)
        self.assertEqual(step2["first_nonfinite_layer"], 2)  # the last Linear: backward reaches it first
        self.assertNotIn("first_nonfinite_layer", next(r for r in lines if r["type"] == "step" and r["step"] == 1))
        nan = [r for r in lines if r["type"] == "nan"]
        self.assertEqual(len(nan), 1)
        self.assertEqual((nan[0]["step"], nan[0]["phase"]), (2, "backward"))
        self.assertEqual(nan[0]["format"], "fp32")
        self.assertGreater(nan[0]["nans"] + nan[0]["infs"], 0)

    def test_an_infinite_weight_is_named_in_the_forward_pass_without_a_scaler(self):
        model = mlp()
        train_with_an_infinite_weight(model, self.path, model[2])
        lines = read(self.path)
        nan = [r for r in lines if r["type"] == "nan"]
        self.assertEqual([(r["step"], r["phase"], r["layer"], r["op"], r["tensor"]) for r in nan],
                         [(2, "forward", "2", "linear", "output")])
        self.assertEqual(nan[0]["nans"] + nan[0]["infs"], 64)  # row 0 of fc2 feeds output column 0 of every sample
        step2 = [r for r in lines if r["type"] == "step"][1]
        self.assertEqual((step2["found_inf"], step2["skipped"], step2["scale"]), (True, False, 1))
        self.assertIn(step2["grad_norm"], ("inf", "nan"))

    def test_statistics_are_the_probes_of_the_tensors_as_they_stood(self):
        model = mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        with plab_probe.Recorder(model, self.path, optimizer=opt, hist_every=1) as rec:
            x, y = batch(1)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            rec.step(loss)
            weight, grad = model[2].weight.detach().clone(), model[2].weight.grad.clone()
        step = read(self.path)[1]
        layer = step["layers"][1]
        want_weight = plab_probe.tensor_stats(weight)
        self.assertEqual(layer["weight"]["count"], 32 * 32)
        # A record's FP32 fields are the shortest text of the FP32 value: it reads back exactly.
        self.assertEqual(f32(layer["weight"]["amax"]), want_weight["amax"])
        self.assertEqual({k: f32(v) for k, v in layer["grad"]["fp16"].items()}, plab_probe.tensor_stats(grad)["fp16"])
        self.assertEqual(f32(step["loss"]), float(loss))
        norm = math.sqrt(sum(float(p.grad.double().pow(2).sum()) for p in model.parameters()))
        self.assertAlmostEqual(step["grad_norm"], norm, delta=norm * 1e-6)
        self.assertEqual(step["lr"], 0.1)

    def test_histogram_lines_add_up_to_the_counts_every_k_steps(self):
        self.train_with_scaler(6, {4}, hist_every=2, activations=True)
        lines = read(self.path)
        hists = [r for r in lines if r["type"] == "hist"]
        self.assertEqual([h["step"] for h in hists], [2, 4, 6])
        steps = {r["step"]: r for r in lines if r["type"] == "step"}
        for h in hists:
            for layer, stats in zip(h["layers"], steps[h["step"]]["layers"]):
                self.assertEqual(layer["name"], stats["name"])
                for key in ("weight", "grad", "grad_unscaled", "act", "act_grad", "act_grad_unscaled"):
                    hist, s = layer[key], stats[key]
                    total = sum(hist["bins"]) + hist["zeros"] + hist["nans"] + hist["pos_infs"] + hist["neg_infs"]
                    self.assertEqual(total, s["count"], f"step {h['step']} {layer['name']}.{key}")
                    self.assertEqual(hist["zeros"], s["zeros"])

    @unittest.skipUnless(os.environ.get("PLAB_EXE"), "PLAB_EXE (the plab program) not given")
    def test_the_lab_reads_the_record(self):
        self.train_with_scaler(12, {2, 3, 9}, hist_every=4, activations=True)
        out = subprocess.run([os.environ["PLAB_EXE"], "summary", self.path], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("Sequential: 12 steps on PyTorch", out.stdout)
        self.assertIn("recorded by plab_probe " + plab_probe.__version__, out.stdout)
        self.assertIn("3 overflows, 3 skipped steps, 3 backoffs", out.stdout)
        self.assertIn("first non-finite value: step 2, backward", out.stdout)
        self.assertIn("(3 histogram lines)", out.stdout)

    def test_the_index_says_where_every_line_is_and_each_steps_fields(self):
        self.train_with_scaler(12, {2, 3, 9}, hist_every=4, activations=True)
        with open(self.path, "rb") as f:
            record = f.read()
        with open(self.path + ".index", encoding="utf-8") as f:
            index = [json.loads(text) for text in f]
        lines = record.split(b"\n")[:-1]
        self.assertEqual(index[0], {"type": "index", "version": 1, "header_bytes": len(lines[0]) + 1})
        self.assertEqual(len(index), len(lines))
        at = len(lines[0]) + 1
        for number, (entry, text) in enumerate(zip(index[1:], lines[1:]), start=2):
            self.assertEqual((entry["at"], entry["end"], entry["line"]), (at, at + len(text) + 1, number))
            self.assertEqual(record[entry["at"]:entry["end"]], text + b"\n")
            at = entry["end"]
            line = json.loads(text)
            self.assertEqual(entry["type"], line["type"])
            if line["type"] != "step":
                self.assertEqual(set(entry), {"type", "at", "end", "line"})
                continue
            layers = line.pop("layers")
            fields = {k: v for k, v in entry.items() if k not in ("at", "end", "line", "grad_amax")}
            self.assertEqual(fields, line)
            amaxes = [layer[key]["amax"] for layer in layers for key in ("grad_unscaled", "act_grad_unscaled")]
            finite = [a for a in amaxes if not isinstance(a, str)]  # "nan", "inf" are strings
            self.assertEqual(entry["grad_amax"], max(finite + [0]))
        self.assertEqual({e["type"] for e in index[1:]}, {"step", "hist", "nan"})

    def test_the_non_finite_check_is_exact_where_a_sum_overflows(self):
        from plab_probe.recorder import _has_non_finite
        big = torch.full((1000,), 60000.0, dtype=torch.float16)  # finite, but its FP16 sum is Inf
        self.assertFalse(_has_non_finite(big))
        self.assertFalse(_has_non_finite(torch.full((10,), 3e38)))
        for bad in (math.nan, math.inf, -math.inf):
            x = torch.zeros(100)
            x[37] = bad
            self.assertTrue(_has_non_finite(x), bad)
        both = torch.tensor([math.inf, -math.inf, 1.0], dtype=torch.bfloat16)
        self.assertTrue(_has_non_finite(both))
        self.assertFalse(_has_non_finite(torch.zeros(0)))
        strided = torch.zeros(40, 30)
        strided[3, 29] = math.nan
        self.assertTrue(_has_non_finite(strided.t()))
        self.assertTrue(_has_non_finite(strided[:, 29]))
        self.assertFalse(_has_non_finite(strided[:, :29].t()))

    def test_a_finite_fp16_tensor_is_settled_by_its_sum_alone(self):
        # Summed in FP32, 1000 values of 60000 stay finite: no value-by-value pass.
        from unittest import mock
        from plab_probe.recorder import _has_non_finite
        big = torch.full((1000,), 60000.0, dtype=torch.float16)
        with mock.patch("torch.isfinite", side_effect=AssertionError("a value-by-value check")):
            self.assertFalse(_has_non_finite(big))

    def test_a_tensor_a_module_hands_on_is_checked_once_under_the_module_that_made_it(self):
        from unittest import mock
        from plab_probe import recorder
        torch.manual_seed(3)
        model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Dropout(0.0), torch.nn.Linear(32, 4))
        model.train()
        checked = []

        def after(step):
            if step == 1:
                # Forward: the first Linear's output (the Dropout's too) and the head's; backward: the bias
                # gradients that settle the head's output gradient and the one the Dropout and the first Linear
                # share. (The biases, after the update, are checked as parameters.)
                outputs = [t for t in checked if not isinstance(t, torch.nn.Parameter)]
                self.assertEqual(sorted(tuple(t.shape) for t in outputs), [(4,), (32,), (64, 4), (64, 32)])
                self.assertEqual(len({id(t) for t in outputs}), 4)
            checked.clear()

        real = recorder._has_non_finite
        with mock.patch.object(recorder, "_has_non_finite", side_effect=lambda x: checked.append(x) or real(x)):
            train_with_an_infinite_weight(model, self.path, model[0], after)
        nan = [r for r in read(self.path) if r["type"] == "nan"]
        self.assertEqual([(r["step"], r["phase"], r["layer"], r["op"]) for r in nan], [(2, "forward", "0", "linear")])

    def train_with_a_nan_loss_gradient(self, backward=lambda loss, model: loss.backward()):
        """Two SGD steps of mlp(); at the second the loss is multiplied by NaN
        after the model, so the first non-finite value is the gradient of
        the head's output, a Linear's: the one its bias gradient settles."""
        model = mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        with plab_probe.Recorder(model, self.path, optimizer=opt) as rec:
            for step in (1, 2):
                x, y = batch(step)
                loss = torch.nn.functional.cross_entropy(model(x), y) * (math.nan if step == 2 else 1.0)
                backward(loss, model)
                opt.step()
                rec.step(loss)
                opt.zero_grad()
            return rec

    def test_a_linears_output_gradient_is_named_from_its_bias_gradient(self):
        self.train_with_a_nan_loss_gradient()
        nan = [r for r in read(self.path) if r["type"] == "nan"]
        self.assertEqual([(r["step"], r["phase"], r["layer"], r["op"], r["tensor"], r["nans"], r["infs"]) for r in nan],
                         [(2, "backward", "4", "linear", "output_grad", 64 * 4, 0)])

    def test_an_output_gradient_whose_bias_gradient_never_comes_is_still_named(self):
        def weights_only(loss, model):  # the biases get no gradient: their hooks never run
            weights = [model[0].weight, model[2].weight, model[4].weight]
            for w, g in zip(weights, torch.autograd.grad(loss, weights)):
                w.grad = g

        rec = self.train_with_a_nan_loss_gradient(weights_only)
        nan = [r for r in read(self.path) if r["type"] == "nan"]
        self.assertEqual([(r["step"], r["phase"], r["layer"], r["tensor"], r["nans"]) for r in nan],
                         [(2, "backward", "4", "output_grad", 64 * 4)])
        # After the first step they no longer wait, so that no step keeps every output gradient alive.
        self.assertEqual(rec._watch.eager, {id(rec.model[0].bias), id(rec.model[2].bias), id(rec.model[4].bias)})

    def test_a_waiting_gradient_settled_late_is_still_the_first(self):
        from plab_probe.recorder import _Watch
        model = torch.nn.Linear(2, 2)
        watch = _Watch(model, [], activations=False, trace_nan=True)
        nan = torch.full((3, 2), math.nan)
        watch._wait_for_bias(model.bias, "early", "linear", nan)  # waits for the bias gradient
        watch._check("backward", "late", "gelu", "output_grad", nan.clone())  # found at once
        watch._bias_hook(model.bias)(torch.full((2,), math.nan))  # the early one is settled afterwards
        self.assertEqual(watch.first_non_finite()[:2], ("backward", "early"))
        watch.remove()

    def test_a_bias_gradient_whose_sum_overflows_does_not_name_a_finite_output_gradient(self):
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.0)
        with plab_probe.Recorder(model, self.path, optimizer=opt) as rec:
            x = torch.zeros(64, 4)  # the weight gradient stays 0; the bias's is 64 x 1e37, beyond FP32
            (model(x).sum() * 1e37).backward()
            rec.step(torch.tensor(0.0))
        lines = read(self.path)
        self.assertEqual(lines[1]["layers"][0]["grad"]["nans"] + lines[1]["layers"][0]["grad"]["pos_infs"], 0)
        self.assertIn(lines[1]["grad_norm"], ("inf", "nan"))  # the bias gradient overflowed
        self.assertEqual([r for r in lines if r["type"] == "nan"], [])

    def test_a_float32_field_is_its_shortest_text_from_fp32s_largest_to_zeros_sign(self):
        from plab_probe.jsonl import float32_text
        import struct
        biggest = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
        self.assertEqual(float32_text(biggest), "3.4028235e+38")  # shorter texts round past it, to Inf
        self.assertEqual(float32_text(-biggest), "-3.4028235e+38")
        self.assertEqual((float32_text(0.0), float32_text(-0.0), float32_text(0.0)), ("0", "-0", "0"))
        self.assertEqual(float32_text(0.1), "0.1")
        self.assertEqual(float32_text(2.0**-149), "1e-45")
        # Every text reads back to its FP32 value, and one digit fewer would not (a sample of bit patterns).
        for bits in range(0x00000001, 0x7F800000, 0x00F0F0F1):
            x = struct.unpack("<f", struct.pack("<I", bits))[0]
            text = float32_text(x)
            self.assertEqual(struct.pack("<f", float(text)), struct.pack("<f", x), text)
            digits = len(text.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
            if digits > 1:
                try:
                    shorter = struct.pack("<f", float(f"{x:.{digits - 1}g}"))
                except OverflowError:
                    continue
                self.assertNotEqual(shorter, struct.pack("<f", x), text)

    def test_an_index_steps_gradient_amax_is_the_largest_finite_of_its_layers(self):
        from plab_probe.jsonl import RecordFile
        f = RecordFile(self.path)
        f.write({"type": "run", "version": 1})
        layers = [{"grad_unscaled": {"amax": 2.0}, "act_grad_unscaled": {"amax": 3.0}},
                  {"grad_unscaled": {"amax": math.inf}}, {"grad_unscaled": {"amax": math.nan}}]
        f.write({"type": "step", "step": 1, "layers": layers})
        f.write({"type": "step", "step": 2, "layers": []})
        f.close()
        with open(self.path + ".index", encoding="utf-8") as f:
            entries = [json.loads(text) for text in f][1:]
        self.assertEqual([e["grad_amax"] for e in entries], [3, "nan"])

    @unittest.skipUnless(os.environ.get("PLAB_EXE"), "PLAB_EXE (the plab program) not given")
    def test_the_lab_reads_the_same_run_with_the_index_and_without(self):
        self.train_with_scaler(12, {2, 3, 9}, hist_every=4, activations=True)
        summary = [os.environ["PLAB_EXE"], "summary", self.path]
        indexed = subprocess.run(summary, capture_output=True, text=True)
        os.remove(self.path + ".index")
        whole = subprocess.run(summary, capture_output=True, text=True)
        self.assertEqual((indexed.returncode, indexed.stdout, indexed.stderr), (0, whole.stdout, whole.stderr))
        self.assertIn("3 overflows, 3 skipped steps", indexed.stdout)

    @unittest.skipUnless(os.environ.get("PLAB_EXE"), "PLAB_EXE (the plab program) not given")
    def test_replaying_the_records_own_scaler_gives_its_trajectory(self):
        self.train_with_scaler(40, {2, 3, 9, 10, 11, 25})
        self.assertEqual(replayed(self.path), recorded_trajectory(self.path))
        # From scale 1, growing every 3 clean steps: the recorded overflows came at 2^10 and above, so the
        # early ones do not recur below that scale.
        lower = replayed(self.path, "--set", "scaler.init_scale=1")
        self.assertEqual(lower[0][:2], (1, 1))
        self.assertLess(sum(s[TRAJECTORY.index("found_inf")] for s in lower), 6)

    def test_bad_arguments_name_the_field(self):
        with self.assertRaisesRegex(ValueError, "hist_every"):
            plab_probe.Recorder(mlp(), self.path, hist_every=-1)
        with self.assertRaisesRegex(ValueError, "weight"):
            plab_probe.Recorder(torch.nn.ReLU(), self.path)
        with self.assertRaisesRegex(TypeError, "model"):
            plab_probe.Recorder("not a model", self.path)
        model = mlp()
        with self.assertRaises(FileNotFoundError):
            plab_probe.Recorder(model, os.path.join(self.dir.name, "no such folder", "run.jsonl"))
        self.assertFalse(any(m._forward_hooks for m in model.modules()), "a failed recorder left hooks behind")


@unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
class CudaTest(unittest.TestCase):
    """A real GradScaler under FP16 autocast on the GPU, where the probe keeps
    its NaN checks on the device: the record follows the scaler's own
    trajectory, overflows included, and names each overflow's first
    non-finite value."""

    def test_a_gradscaler_run_with_overflows(self):
        model = mlp().cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scaler = torch.cuda.amp.GradScaler(init_scale=2.0**40, growth_interval=4)  # overflows until it backs off
        trajectory = []
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.jsonl")
            with plab_probe.Recorder(model, path, scaler=scaler, optimizer=opt, hist_every=5) as rec:
                for step in range(1, 41):
                    x, y = batch(step)
                    before = scaler.get_scale()
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
                    trajectory.append((before, scaler.get_scale()))
                    rec.step(loss)
                    opt.zero_grad()
            lines = read(path)
        steps = [r for r in lines if r["type"] == "step"]
        self.assertEqual([(r["scale"], r["scale_after"]) for r in steps], trajectory)
        overflows = [r["step"] for r in steps if r["found_inf"]]
        self.assertGreater(len(overflows), 5)  # 2^40 down to FP16's range takes several backoffs
        self.assertTrue(all(r["skipped"] == r["found_inf"] for r in steps))
        nan_steps = [r["step"] for r in lines if r["type"] == "nan"]
        self.assertEqual(nan_steps, overflows)
        self.assertTrue(all(r["phase"] == "backward" and r["format"] in ("fp16", "fp32")
                            for r in lines if r["type"] == "nan"))

    @unittest.skipUnless(torch.cuda.is_available() and os.environ.get("PLAB_EXE"), "no CUDA device or no PLAB_EXE")
    def test_replaying_a_gradscaler_record_gives_its_trajectory(self):
        model = mlp().cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scaler = torch.cuda.amp.GradScaler(init_scale=2.0**40, growth_interval=4)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.jsonl")
            with plab_probe.Recorder(model, path, scaler=scaler, optimizer=opt, hist_every=0) as rec:
                for step in range(1, 61):
                    x, y = batch(step)
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
                    rec.step(loss)
                    opt.zero_grad()
            self.assertEqual(replayed(path), recorded_trajectory(path))


def _ddp_worker(rank, world_size, init_file, path):
    torch.distributed.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world_size)
    model = torch.nn.parallel.DistributedDataParallel(mlp())
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    with plab_probe.Recorder(model, path, optimizer=opt, hist_every=2) as rec:
        for step in range(1, 5):
            x, y = batch(10 * step + rank)  # each rank its own shard
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            rec.step(loss)
            opt.zero_grad()
    torch.distributed.destroy_process_group()


class DistributedTest(unittest.TestCase):
    def test_each_rank_writes_its_own_record_and_the_all_reduced_gradients_agree(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.jsonl")
            torch.multiprocessing.spawn(_ddp_worker, args=(2, os.path.join(d, "init"), path), nprocs=2)
            records = [read(os.path.join(d, f"run.rank{r}.jsonl")) for r in range(2)]
        for rank, lines in enumerate(records):
            self.assertEqual(lines[0]["source"]["rank"], rank)
            self.assertEqual(lines[0]["source"]["world_size"], 2)
            self.assertEqual(lines[0]["layers"][0]["name"], "module.0")
        steps = [[r for r in lines if r["type"] == "step"] for lines in records]
        self.assertEqual(len(steps[0]), 4)
        for a, b in zip(*steps):
            self.assertNotEqual(a["loss"], b["loss"])  # each rank's own shard
            self.assertEqual(a["layers"], b["layers"])  # DDP averaged the gradients: the same weights and grads


if __name__ == "__main__":
    unittest.main()
