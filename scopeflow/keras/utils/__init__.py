"""``tf.keras.utils``: serialization helpers, ``Progbar``, ``to_categorical``,
``normalize``, ``Sequence``."""

from __future__ import annotations

import numpy as np

from scopeflow.keras.utils.generic_utils import (
    CustomObjectScope,
    Progbar,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    serialize_keras_object,
)

__all__ = ["CustomObjectScope", "Progbar", "custom_object_scope", "deserialize_keras_object",
           "get_custom_objects", "serialize_keras_object", "to_categorical", "normalize",
           "Sequence"]


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class indices as one-hot rows: ``to_categorical([0, 2], 3)``."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """``x`` scaled to unit ``order``-norm along ``axis``."""
    l2 = np.atleast_1d(np.linalg.norm(x, order, axis))
    l2[l2 == 0] = 1
    return x / np.expand_dims(l2, axis)


class Sequence:
    """A dataset of batches: ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass

    def __iter__(self):
        yield from (self[i] for i in range(len(self)))
