"""The example of README's "Look at your own run": it trains and records,
and the lab reads its record back as the example's own printout says.

    python3 example_test.py PLAB      (exit 77 without torch: skipped)"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch  # noqa: F401
except ImportError:
    print("example: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "record_a_pytorch_run.py")
STEPS = 30


def main(plab):
    with tempfile.TemporaryDirectory() as folder:
        record = os.path.join(folder, "run.jsonl")
        done = subprocess.run([sys.executable, EXAMPLE, "--out", record, "--steps", str(STEPS), "--device", "cpu"],
                              capture_output=True, text=True, check=True)
        assert f"record: {record}" in done.stdout, done.stdout
        with open(record, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f]
        header, steps = lines[0], [r for r in lines if r["type"] == "step"]
        assert header["config"]["name"] == "sorted-transformer", header["config"]
        assert [s["step"] for s in steps] == list(range(1, STEPS + 1))
        # Every weight of the model is recorded: the embedding, per encoder
        # layer the attention's in and out projections, the two feed-forward
        # Linears and the two LayerNorms, and the head.
        names = [layer["name"] for layer in header["layers"]]
        assert names[0] == "embed" and names[-1] == "head" and len(names) == 1 + 2 * 6 + 1, names
        assert "encoder.layers.1.self_attn.in_proj" in names, names
        assert sum(1 for r in lines if r["type"] == "hist") == STEPS // 10
        summary = subprocess.run([plab, "summary", record], capture_output=True, text=True, check=True).stdout
        assert f"{STEPS} steps on PyTorch" in summary, summary
        # Bad input is refused by name, exit 2, nothing written.
        bad = subprocess.run([sys.executable, EXAMPLE, "--out", os.path.join(folder, "x.jsonl"), "--steps", "0"],
                             capture_output=True, text=True)
        assert bad.returncode == 2 and "--steps: 0" in bad.stderr, bad.stderr
        assert not os.path.exists(os.path.join(folder, "x.jsonl"))
    print(f"example: {STEPS} steps recorded, {len(names)} layers, read back by plab summary")


if __name__ == "__main__":
    main(sys.argv[1])
