"""``tf.queue``: TF1's queues (``tf.queue.FIFOQueue`` is ``tf.FIFOQueue``)."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.data_flow.queue_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
