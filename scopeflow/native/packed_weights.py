"""Constant filters packed once: oneDNN's copy of a filter in its own blocked layout, kept
for filters that cannot change (a frozen graph's weights, ``tf.constant``), as TF's oneDNN
convolutions cache theirs.

A conv plan whose kernel wants the weights in another layout reorders them on every call:
for ResNet-50 that is 100 MB copied per run, a fifth of a batch-1 inference. A filter is
cacheable when neither it nor any array it views is writeable, down to an owner that is
an immutable buffer (``bytes``) or a read-only array owning its memory: what scopeflow's
constants are (``constant_op``, ``tensor_proto``), and never a variable's value or an
array a kernel writes. The cache holds the filter weakly: an entry dies with its array,
so an id cannot be reused for another filter while its entry lives.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

__all__ = ["cacheable", "PackedWeights"]


def cacheable(w: np.ndarray) -> bool:
    """Whether ``w``'s values can never change: read-only all the way to its owner."""
    a = w
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        if a.base is None:
            return a.flags.owndata
        a = a.base
    return isinstance(a, bytes)


class PackedWeights:
    """Packed buffers by (plan key, filter), for :func:`cacheable` filters only."""

    def __init__(self):
        self._entries: dict = {}
        self._lock = threading.Lock()

    def get(self, plan_key, w):
        """The packed buffer of ``w`` for the plan, or None."""
        entry = self._entries.get((plan_key, id(w)))
        if entry is None or entry[0]() is not w:
            return None
        return entry[1]

    def put(self, plan_key, w, packed) -> None:
        key = (plan_key, id(w))
        with self._lock:
            self._entries[key] = (weakref.ref(w), packed)
        weakref.finalize(w, self._drop, key, packed)

    def _drop(self, key, packed) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[1] is packed:
                del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
