"""What Keras records on a symbolic tensor: its history (the layer, node index and tensor
index that made it) and its mask.

scopeflow's ``Tensor`` has fixed slots, so the records live in weak maps keyed by the
tensor (tensors hash by identity); ``_keras_history``/``_keras_mask`` read them.
"""

from __future__ import annotations

import weakref

_HISTORY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MASK: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def get_history(tensor):
    """``(layer, node_index, tensor_index)`` of a Keras tensor, or ``None``."""
    try:
        return _HISTORY.get(tensor)
    except TypeError:
        return None


def set_history(tensor, history):
    _HISTORY[tensor] = history


def get_mask(tensor):
    try:
        return _MASK.get(tensor)
    except TypeError:
        return None


def set_mask(tensor, mask):
    if mask is None:
        _MASK.pop(tensor, None)
    else:
        _MASK[tensor] = mask
