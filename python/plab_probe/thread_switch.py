"""A switch that is on for one thread within a `with` block: how the tests
and the bench choose a scan without changing it for other threads."""
import threading


class ThreadSwitch:
    """`with switch():` turns it on for this thread until the block ends;
    `switch.on` says whether it is on here."""

    def __init__(self):
        self._local = threading.local()

    def __call__(self):
        return self

    def __enter__(self):
        self._local.on = True
        return self

    def __exit__(self, *exc):
        self._local.on = False
        return False

    @property
    def on(self) -> bool:
        return getattr(self._local, "on", False)
