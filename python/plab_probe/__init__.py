"""plab_probe: record a PyTorch training run in Precision Lab's run format.

    import plab_probe
    with plab_probe.Recorder(model, "run.jsonl", scaler=scaler, hist_every=10) as rec:
        for batch in data:
            ...                      # forward, backward, optimizer / scaler step
            rec.step(loss)           # once per optimizer step, before zero_grad()

The record opens in the lab (precision-lab --open run.jsonl) and is
described in docs/probe.md. The statistics are the lab's own, count for
count: plab_probe.tensor_stats and plab_probe.log2_histogram."""
__version__ = "0.1.0"

from .recorder import Recorder  # noqa: E402
from .stats import log2_histogram, tensor_stats  # noqa: E402

__all__ = ["Recorder", "tensor_stats", "log2_histogram", "__version__"]
