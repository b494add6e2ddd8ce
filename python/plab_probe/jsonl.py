"""JSON Lines in the lab's number style (docs/telemetry.md): an FP32 field
is written as the shortest decimal that reads back as the same FP32 value,
NaN and infinities as the strings "nan", "inf", "-inf"."""
import json
import math
import struct


def float32_text(x: float) -> str:
    """The shortest %g text that reads back as x's FP32 value."""
    want = struct.pack("<f", x)
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        if struct.pack("<f", float(text)) == want:
            return text
    return repr(x)


def _non_finite(x: float):
    """JSON has no NaN or infinity: the lab writes them as strings."""
    if math.isnan(x):
        return '"nan"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    return None


class F32(float):
    """A float the writer prints as an FP32 value."""


def _encode(value) -> str:
    if isinstance(value, float) and _non_finite(value):
        return _non_finite(value)
    if isinstance(value, F32):
        return float32_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + _encode(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_encode(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to a record")


def line(record: dict) -> str:
    return _encode(record) + "\n"
