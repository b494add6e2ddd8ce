"""plab_probe's native scan (native_scan.c, built on first use) against its
torch scan on real training, and what happens where it cannot be built.
probe_engine_agreement.py holds both scans to the engine value by value.

    python3 native_test.py        (exit 77 without torch: skipped)"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
sys.path.insert(0, PYTHON_DIR)
try:
    import torch
except ImportError:
    print("native test: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

import plab_probe  # noqa: E402
from plab_probe import native  # noqa: E402

# The FP64 sums of |x| and x^2 go in another order in each scan: the FP32 of
# a mean or an rms may differ in its last bit. Everything else is exact.
SUMMED = ("mean_abs", "rms")


def train(path, activations=False):
    """Six AdamW steps of a small model with an embedding, a LayerNorm and
    bfloat16 autocast, histograms every second step."""
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Embedding(50, 32), torch.nn.LayerNorm(32), torch.nn.Linear(32, 64),
                                torch.nn.GELU(), torch.nn.Linear(64, 50))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(9)
    with plab_probe.Recorder(model, path, hist_every=2, optimizer=opt, activations=activations) as rec:
        for _ in range(6):
            x = torch.randint(0, 50, (16, 12), generator=g)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, 50).float(), x.reshape(-1))
            loss.backward()
            opt.step()
            rec.step(loss)
            opt.zero_grad()


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class NativeScanTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        if native.library() is None:
            self.fail(f"the native scan is not available here: {native.unavailable_reason}")

    def tearDown(self):
        self.dir.cleanup()

    def assert_same(self, a, b, where):
        if isinstance(a, dict):
            self.assertEqual(list(a), list(b), where)
            for key in a:
                if key in SUMMED and isinstance(a[key], float):
                    self.assertTrue(math.isclose(a[key], b[key], rel_tol=2e-7), f"{where}.{key}: {a[key]} {b[key]}")
                else:
                    self.assert_same(a[key], b[key], f"{where}.{key}")
        elif isinstance(a, list):
            self.assertEqual(len(a), len(b), where)
            for i, (x, y) in enumerate(zip(a, b)):
                self.assert_same(x, y, f"{where}[{i}]")
        else:
            self.assertEqual(a, b, where)

    def test_a_record_is_the_same_from_either_scan(self):
        with_native = os.path.join(self.dir.name, "native.jsonl")
        with_torch = os.path.join(self.dir.name, "torch.jsonl")
        train(with_native, activations=True)
        with native.torch_only():
            train(with_torch, activations=True)
        a, b = read(with_native), read(with_torch)
        self.assertEqual([r["type"] for r in a], ["run"] + ["step", "step", "hist"] * 3)
        # The header says which scan counted.
        self.assertEqual((a[0]["source"].pop("scan"), b[0]["source"].pop("scan")), ("native", "torch (asked for)"))
        for i, (x, y) in enumerate(zip(a, b)):
            self.assert_same(x, y, f"line {i + 1}")

    def test_the_torch_scan_serves_where_no_compiler_builds_it(self):
        script = ("import torch, plab_probe; from plab_probe import native; "
                  "s = plab_probe.tensor_stats(torch.tensor([0.0, 1.0, float('inf')])); "
                  "print(native.library() is None, s['zeros'], s['pos_infs'], s['amax']); "
                  "print(native.unavailable_reason)")
        cases = {  # a fresh cache each, so that nothing built before is found
            "no C compiler": {"PATH": "/nonexistent"},
            "could not build": {"CC": "/bin/false"},
        }
        for reason, settings in cases.items():
            env = dict(os.environ, PLAB_PROBE_CACHE=os.path.join(self.dir.name, reason), PYTHONPATH=PYTHON_DIR,
                       **settings)
            out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            first, said = out.stdout.splitlines()[:2]
            self.assertEqual(first, "True 1 1 1.0", reason)
            self.assertIn(reason, said)

    def test_it_is_built_once_into_its_cache(self):
        cache = os.path.join(self.dir.name, "cache")
        script = "from plab_probe import native; print(native.library() is not None)"
        env = dict(os.environ, PLAB_PROBE_CACHE=cache, PYTHONPATH=PYTHON_DIR)
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
            self.assertEqual(out.stdout.strip(), "True", out.stderr)
        built = os.listdir(cache)
        self.assertEqual(len(built), 1, built)
        self.assertTrue(built[0].startswith("native_scan-") and built[0].endswith(".so"), built)

    def test_a_build_removes_the_libraries_unused_for_a_month(self):
        cache = os.path.join(self.dir.name, "cache")
        os.makedirs(cache)
        month = native.UNUSED_DAYS * 86400
        ages = {"native_scan-old.so": month + 3600, "tmpcut.so.partial": month + 3600,  # removed
                "native_scan-recent.so": month - 3600, "notes.txt": 2 * month}  # kept
        for name, age in ages.items():
            path = os.path.join(cache, name)
            open(path, "wb").close()
            os.utime(path, (time.time() - age, time.time() - age))
        script = "from plab_probe import native; print(native.library() is not None)"
        env = dict(os.environ, PLAB_PROBE_CACHE=cache, PYTHONPATH=PYTHON_DIR)
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), "True", out.stderr)
        built = [n for n in os.listdir(cache) if n not in ages]
        self.assertEqual(sorted(set(os.listdir(cache)) - set(built)), ["native_scan-recent.so", "notes.txt"])
        self.assertEqual(len(built), 1, built)

        # Loading it again marks it used, so a month later it is still there.
        library = os.path.join(cache, built[0])
        os.utime(library, (time.time() - month - 3600,) * 2)
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), "True", out.stderr)
        self.assertGreater(os.stat(library).st_mtime, time.time() - 3600)


if __name__ == "__main__":
    unittest.main()
