"""Small ``tf.data`` names: ``NumpyIterator``, ``experimental.get_model_proto``,
``experimental.pad_to_cardinality`` and ``experimental.SHARD_HINT``.

``NumpyIterator`` and ``get_model_proto`` are eager-mode features in TF; in TF1 graph mode
(all scopeflow has) they fail as TF's do, with TF's errors.
"""

from __future__ import annotations

from collections.abc import Mapping

from scopeflow.data import experimental_ops
from scopeflow.data.dataset_ops import Dataset
from scopeflow.ops import array_ops

__all__ = ["NumpyIterator", "get_model_proto", "pad_to_cardinality", "SHARD_HINT"]

# The shard index placeholder tf.distribute's auto-sharding replaces (in ``shard`` calls).
SHARD_HINT = -1


class NumpyIterator:
    """TF's iterator of NumPy elements, which ``Dataset.as_numpy_iterator`` returns in eager
    mode. It iterates the dataset with Python's ``iter``, which a graph-mode dataset refuses:
    in TF1 graph mode making one raises TF's ``RuntimeError``."""

    __slots__ = ["_iterator"]

    def __init__(self, dataset):
        self._iterator = iter(dataset)

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator})"

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iterator)

    def next(self):
        return self.__next__()


def get_model_proto(iterator):
    """TF's autotuning model of an eager iterator. Graph-mode iterators (``tf.data.Iterator``
    of TF1) have none: TF raises ``ValueError`` for them, as here."""
    if isinstance(iterator, NumpyIterator):
        raise ValueError(f"{get_model_proto.__name__} is not supported in graph mode.")
    raise ValueError("Only supports `tf.data.Iterator`-typed `iterator`.")


def _padded(dataset, target, mask_key):
    if not isinstance(dataset._structure, Mapping):
        raise ValueError("`pad_to_cardinality` requires its input dataset to be a "
                         "dictionary.")
    # As TF in graph mode: the padding count is computed when the pipeline starts, and is
    # not checked (an input longer than `target` pads forever: repeat(-1)).
    padding = target - experimental_ops.cardinality(dataset)
    filler = {k: array_ops.zeros(s.shape, s.dtype) for k, s in dataset._structure.items()}
    filler[mask_key] = False
    filler_ds = Dataset.from_tensors(filler).repeat(padding)

    def valid(x):
        x[mask_key] = True
        return x

    return dataset.map(valid).concatenate(filler_ds)


def pad_to_cardinality(cardinality, mask_key="valid"):
    """Pads a dataset of dicts with zero elements up to ``cardinality`` elements; each
    element gets ``mask_key``: True for the dataset's own, False for the padding.

    >>> ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2]})
    >>> ds = ds.apply(tf.data.experimental.pad_to_cardinality(3))
    """
    target = cardinality
    return lambda dataset: _padded(dataset, target, mask_key)
