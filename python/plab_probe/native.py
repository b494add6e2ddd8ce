"""The one-pass scan of native_scan.c, compiled on first use with the
system's C compiler and loaded through ctypes.

The compiled library is kept in a cache directory ($PLAB_PROBE_CACHE, else
$XDG_CACHE_HOME/plab_probe or ~/.cache/plab_probe), named by a hash of the
source and the compiler command, and written under a temporary name first,
so that ranks starting together do not read a half-written file. Loading a
library marks it used; building one removes the libraries in its directory
unused for UNUSED_DAYS (those of older sources: each source edit is a new
name). Without
a compiler (or with PLAB_PROBE_NATIVE=0) `library()` is None, and stats.py
scans with torch operations: the same counts, about twice the cost."""
import ctypes
import functools
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import torch

from .thread_switch import ThreadSwitch
from .thresholds import U_SLOTS

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native_scan.c")
# No -march=native: a cache on a shared home directory may serve other machines.
_FLAGS = ["-O3", "-shared", "-fPIC", "-std=c11"]
DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}
# A library on a home directory shared by several machines stays while any of them loads it.
UNUSED_DAYS = 30


class _Totals(ctypes.Structure):
    _fields_ = [("count", ctypes.c_int64), ("amax_bits", ctypes.c_uint32),
                ("sum_abs", ctypes.c_double), ("sum_sq", ctypes.c_double)]


def _cache_dir() -> str:
    if os.environ.get("PLAB_PROBE_CACHE"):
        return os.environ["PLAB_PROBE_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "plab_probe")


def _compiler():
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _ours(directory: str) -> bool:
    """Whether a library found in `directory` can only have been put there by
    this user: it is loaded into the process. A missing one is made."""
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        return True
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _mark_used(library: str):
    try:
        os.utime(library)
    except OSError:
        pass  # a read-only cache still serves; only its pruning goes by the build time


def _prune(directory: str, keep: str):
    """Removes the libraries (and builds cut off half-way) in `directory`
    that no process has loaded for UNUSED_DAYS, `keep` aside."""
    too_old = time.time() - UNUSED_DAYS * 86400
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        ours = name.startswith("native_scan-") and name.endswith(".so")
        if path == keep or not (ours or name.endswith(".so.partial")):
            continue
        try:
            if os.stat(path).st_mtime < too_old:
                os.unlink(path)
        except OSError:
            pass  # another process removed or is replacing it


def _build():
    """The loaded library, compiling it when the cache lacks it; None when
    it cannot be had (the reason goes to `unavailable_reason`)."""
    global unavailable_reason
    if os.environ.get("PLAB_PROBE_NATIVE", "1") == "0":
        unavailable_reason = "PLAB_PROBE_NATIVE=0"
        return None
    compiler = _compiler()
    if compiler is None:
        unavailable_reason = "no C compiler (cc, gcc or clang) on PATH"
        return None
    with open(_SOURCE, "rb") as f:
        source = f.read()
    # A home directory shared by machines of other kinds keeps one library for each.
    machine = [sys.platform, platform.machine()]
    key = hashlib.sha256(source + " ".join([compiler] + _FLAGS + machine).encode()).hexdigest()[:16]
    for directory in (_cache_dir(), os.path.join(tempfile.gettempdir(), f"plab_probe-{os.getuid()}")):
        library = os.path.join(directory, f"native_scan-{key}.so")
        try:
            if not _ours(directory):
                unavailable_reason = f"{directory} belongs to another user or others may write to it"
                continue
            if not os.path.exists(library):
                os.makedirs(directory, mode=0o755, exist_ok=True)
                fd, partial = tempfile.mkstemp(dir=directory, suffix=".so.partial")
                os.close(fd)
                try:
                    subprocess.run([compiler] + _FLAGS + ["-o", partial, _SOURCE], check=True, capture_output=True)
                    os.replace(partial, library)
                finally:
                    if os.path.exists(partial):
                        os.unlink(partial)
                _prune(directory, keep=library)
            else:
                _mark_used(library)
            return _bind(ctypes.CDLL(library))
        except (OSError, subprocess.CalledProcessError) as e:
            detail = e.stderr.decode(errors="replace").strip() if isinstance(e, subprocess.CalledProcessError) else e
            unavailable_reason = f"{compiler} could not build {os.path.basename(_SOURCE)} in {directory}: {detail}"
    return None


def _bind(lib):
    scan = lib.plab_scan
    scan.restype = ctypes.c_int
    scan.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_void_p, ctypes.c_int64,
                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Totals)]
    return scan


_lock = threading.Lock()
_library = None
_tried = False
unavailable_reason = None


def library():
    """The bound plab_scan, built on first call; None when unavailable."""
    global _library, _tried
    with _lock:
        if not _tried:
            _tried = True
            _library = _build()
    return _library


# Within `with torch_only():` this thread scans with torch operations even
# where the native scan is available: how the tests hold the two to each other.
torch_only = ThreadSwitch()


def scan_used(device: torch.device) -> str:
    """How a model's tensors on `device` are scanned, for a record's header:
    "native", "device" (device_scan.py, a GPU's), or "torch" with why not
    native."""
    if device.type != "cpu":
        return "device"
    if torch_only.on:
        return "torch (asked for)"
    return "native" if library() is not None else f"torch ({unavailable_reason})"


def can_scan(x: torch.Tensor) -> bool:
    return (x.device.type == "cpu" and x.dtype in DTYPES and not torch_only.on
            and library() is not None)


@functools.lru_cache(maxsize=64)
def _threshold_array(thresholds: tuple):
    return (ctypes.c_uint32 * len(thresholds))(*thresholds)


def scan(x: torch.Tensor, thresholds, significand_min=None):
    """(below, totals, u_counts) of a CPU tensor: below[k] the values whose
    magnitude bits are < thresholds[k] (sorted), totals the count, largest
    finite magnitude bits and FP64 sums of |x| and x^2 over the finite
    values; with significand_min, the U_SLOTS counts (an int64 tensor) of
    u = 5 E + #{k : M >= significand_min[k]} (stats._edge_histograms).
    Infinities' signs are not told apart: few tensors hold any."""
    values = x.detach().contiguous()
    n_thresholds = len(thresholds)
    t = _threshold_array(tuple(thresholds))
    below = (ctypes.c_int64 * n_thresholds)()
    totals = _Totals()
    if significand_min is not None:
        s = (ctypes.c_uint32 * 4)(*significand_min)
        u = torch.zeros(U_SLOTS, dtype=torch.int64)
    else:
        s = u = None
    status = library()(values.data_ptr(), values.numel(), DTYPES[values.dtype], t, n_thresholds, s, below,
                       u.data_ptr() if u is not None else None, ctypes.byref(totals))
    if status == -1:
        raise MemoryError("plab_probe: the native scan could not allocate its 300 KB of counters")
    if status != 0:
        raise ValueError(f"plab_probe: {n_thresholds} thresholds for one scan, more than the native scan's 254")
    return list(below), totals, u
