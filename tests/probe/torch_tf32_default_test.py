"""PyTorch as the oracle for the claim that it uses TF32 automatically: its
matmul TF32 switch is off by default (since 1.12) while cuDNN's convolution
switch is on, and the lab's tf32-automatic claim says so and holds.

    python3 torch_tf32_default_test.py PLAB      (exit 77 without torch: skipped)"""
import subprocess
import sys

try:
    import torch
except ImportError:
    print("tf32 default: torch is not installed for", sys.executable, "- skipped")
    sys.exit(77)


def version_at_least(text: str, major: int, minor: int) -> bool:
    parts = text.split("+")[0].split(".")
    return (int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()))) >= (major, minor)


def main() -> int:
    failures = []
    if not version_at_least(torch.__version__, 1, 12):
        print("tf32 default: torch", torch.__version__, "predates 1.12 (TF32 was on then) - skipped")
        return 77
    if torch.backends.cuda.matmul.allow_tf32 is not False:
        failures.append("torch.backends.cuda.matmul.allow_tf32 defaults to %r" % torch.backends.cuda.matmul.allow_tf32)
    if torch.backends.cudnn.allow_tf32 is not True:
        failures.append("torch.backends.cudnn.allow_tf32 defaults to %r" % torch.backends.cudnn.allow_tf32)
    claim = subprocess.run([sys.argv[1], "claims", "tf32-automatic"], capture_output=True, text=True)
    if claim.returncode != 0 or "allow_tf32 = True" not in claim.stdout:
        failures.append("plab claims tf32-automatic: exit %d\n%s%s" % (claim.returncode, claim.stdout, claim.stderr))
    for f in failures:
        print("FAIL:", f)
    print("tf32 default: torch", torch.__version__, "matmul off, cuDNN on;", "ok" if not failures else "FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
