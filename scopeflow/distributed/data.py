"""Each worker reads its own part of the data: the MNIST ``DataSet`` split by rank.

For ``tf.data`` pipelines use ``Dataset.shard(sfd.size(), sfd.rank())``, as TF's.
"""

from __future__ import annotations

from scopeflow.datasets.mnist import DataSet
from scopeflow.distributed import _world
from scopeflow.framework import dtypes

__all__ = ["shard_data_set"]


def shard_data_set(data_set, num_shards=None, index=None, seed=None) -> DataSet:
    """The examples ``index, index + num_shards, ...`` of an MNIST ``DataSet`` as a new
    ``DataSet`` (``Dataset.shard``'s split); by default this worker's share
    (``num_shards=size()``, ``index=rank()``).

    Its ``next_batch`` shuffles its own share (seeded as ``DataSet`` is, by ``seed`` or
    the graph seed), so N workers with batch b see disjoint batches that together make
    one batch of N·b per step.

    >>> import numpy as np
    >>> import scopeflow.distributed as sfd
    >>> from scopeflow.datasets.mnist import DataSet
    >>> full = DataSet(np.zeros((10, 2, 2, 1), np.uint8), np.arange(10), seed=1)
    >>> part = sfd.shard_data_set(full, num_shards=3, index=1, seed=1)
    >>> part.num_examples, part.labels.tolist()
    (3, [1, 4, 7])
    """
    if num_shards is None or index is None:
        world = _world.get_world("shard_data_set")
        num_shards = world.size if num_shards is None else num_shards
        index = world.rank if index is None else index
    num_shards, index = int(num_shards), int(index)
    if num_shards <= 0:
        raise ValueError(f"num_shards must be greater than zero, got {num_shards}")
    if not 0 <= index < num_shards:
        raise ValueError(f"index must be in [0, {num_shards}), got {index}")
    if data_set.num_examples < num_shards:
        raise ValueError(f"cannot split {data_set.num_examples} examples into {num_shards} "
                         f"non-empty shards")
    images, labels = data_set.images[index::num_shards], data_set.labels[index::num_shards]
    # uint8 and reshape=False: the images are taken as they are (already scaled/flattened)
    return DataSet(images, labels, dtype=dtypes.uint8, reshape=False, seed=seed)
