"""JSON Lines in the lab's number style (docs/telemetry.md): an FP32 field
is written as the shortest decimal that reads back as the same FP32 value,
NaN and infinities as the strings "nan", "inf", "-inf"."""
import json
import math
import struct


def float32_text(x: float) -> str:
    """The shortest %g text that reads back as x's FP32 value."""
    if x == 0:  # 0.0 and -0.0 are one key of a dict, not one text
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    text = _FLOAT32_TEXT.get(x)
    if text is None:
        if len(_FLOAT32_TEXT) >= _CACHED_TEXTS:
            _FLOAT32_TEXT.clear()
        text = _FLOAT32_TEXT[x] = _shortest_float32_text(x)
    return text


def _shortest_float32_text(x: float) -> str:
    want = struct.pack("<f", x)
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        try:
            if struct.pack("<f", float(text)) == want:
                return text
        except OverflowError:  # near FP32's largest value a short text can round past it
            continue
    return repr(x)


# A record repeats many values (0, 1, the same fractions layer after layer):
# their texts are kept, which halves the time to write a step line.
_CACHED_TEXTS = 1 << 16
_FLOAT32_TEXT = {}
_KEY_TEXT = {}


def _non_finite(x: float):
    """JSON has no NaN or infinity: the lab writes them as strings."""
    if math.isnan(x):
        return '"nan"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    return None


class F32(float):
    """A float the writer prints as an FP32 value."""


class Ints(list):
    """A list of ints only (a histogram's bins), written without looking at
    each value's kind: a step's histograms hold thousands."""


def _key(k) -> str:
    text = _KEY_TEXT.get(k)
    if text is None:
        text = _KEY_TEXT[k] = json.dumps(str(k))
    return text


def _encode(value) -> str:
    # The kinds a record is made of come first, each tested once.
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return _non_finite(value)
        return float32_text(value) if isinstance(value, F32) else repr(value)
    if type(value) is int:
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(_key(k) + ":" + _encode(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        if type(value) is Ints:
            return "[" + ",".join(map(str, value)) + "]"
        return "[" + ",".join(_encode(v) for v in value) + "]"
    if isinstance(value, (bool, str, int)) or value is None:
        return json.dumps(value)
    raise TypeError(f"cannot write {type(value).__name__} to a record")


def line(record: dict) -> str:
    return _encode(record) + "\n"


INDEX_VERSION = 1


def _unscaled_gradient_amax(layers) -> float:
    """The largest finite amax of the layers' unscaled weight and activation
    gradients, as the lab reads it from a step's layers (NaN without any)."""
    if not layers:
        return math.nan
    amax = 0.0
    for layer in layers:
        for key in ("grad_unscaled", "act_grad_unscaled"):
            v = layer.get(key, {}).get("amax")
            if v is not None and math.isfinite(v) and v > amax:
                amax = v
    return amax


class RecordFile:
    """A record and its index beside it (PATH.index, docs/telemetry.md "The
    index"): one index line per record line, where it is and, for a step,
    its fields without the layers. The lab then reads a long record's steps
    from the index and only the newest steps' layers from the record."""

    def __init__(self, path: str):
        self._record = open(path, "wb")  # first: a path that cannot be written fails before the index exists
        try:
            self._index = open(path + ".index", "wb")
        except OSError:
            self._record.close()
            raise
        self._bytes = 0
        self._lines = 0

    def write(self, record: dict):
        text = line(record).encode("utf-8")
        at, self._bytes, self._lines = self._bytes, self._bytes + len(text), self._lines + 1
        self._record.write(text)
        if self._lines == 1:
            entry = {"type": "index", "version": INDEX_VERSION, "header_bytes": self._bytes}
        else:
            entry = {"type": record["type"], "at": at, "end": self._bytes, "line": self._lines}
            if record["type"] == "step":
                entry["grad_amax"] = F32(_unscaled_gradient_amax(record.get("layers")))
                entry.update((k, v) for k, v in record.items() if k not in ("type", "layers"))
        self._index.write(line(entry).encode("utf-8"))

    def flush(self):
        """The record first: its index never names a line the record does not hold yet."""
        self._record.flush()
        self._index.flush()

    def close(self):
        self._record.close()
        self._index.close()
