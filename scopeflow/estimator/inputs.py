"""``tf.estimator.inputs`` (``tf.compat.v1.estimator.inputs``): input functions over NumPy
arrays and pandas DataFrames.

TF builds these on feeding queues; scopeflow builds them on ``tf.data`` with the same
batches: rows in order (``shuffle=False``), ``num_epochs`` passes with a smaller last
batch, and with ``num_epochs=None`` batches that run on across the epochs' boundary.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.iterator_ops import make_one_shot_iterator

__all__ = ["numpy_input_fn", "pandas_input_fn"]

_TARGET_KEY = "__target_key__"


def _dataset_input_fn(columns, target_keys, batch_size, shuffle, num_epochs, queue_capacity,
                      seed, single_target):
    """The input fn over ``columns`` (an ordered dict of equal-length arrays)."""

    def input_fn():
        dataset = Dataset.from_tensor_slices(dict(columns))
        if shuffle:
            dataset = dataset.shuffle(queue_capacity, seed=seed, reshuffle_each_iteration=True)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        batch = make_one_shot_iterator(dataset).get_next()
        if not target_keys:
            return batch
        features = {k: v for k, v in batch.items() if k not in target_keys}
        if single_target:
            return features, batch[target_keys[0]]
        return features, {k: batch[k] for k in target_keys}

    return input_fn


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                   num_threads=1):
    """An input fn yielding ``(features, labels)`` batches of the arrays ``x`` (a dict of
    arrays, or one array: then the features are that one tensor) and ``y``."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")
    direct = not isinstance(x, dict)
    x_dict = collections.OrderedDict(sorted(x.items())) if not direct else \
        collections.OrderedDict([("__direct_np_input__", x)])
    if not x_dict and y is None:
        raise ValueError("x cannot be empty")
    columns = collections.OrderedDict((k, np.asarray(v)) for k, v in x_dict.items())
    target_keys = []
    single_target = not isinstance(y, dict)
    if y is not None:
        if isinstance(y, dict):
            overlap = set(y) & set(columns)
            if overlap:
                raise ValueError(f"{overlap} duplicate keys are found in both x and y: "
                                 f"{sorted(overlap)}")
            for k in sorted(y):
                columns[k] = np.asarray(y[k])
                target_keys.append(k)
        else:
            if _TARGET_KEY in columns:
                raise ValueError(f"{_TARGET_KEY} is a reserved key and can't be used in x.")
            columns[_TARGET_KEY] = np.asarray(y)
            target_keys.append(_TARGET_KEY)
    lengths = {k: len(v) for k, v in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"Length of tensors in x and y is mismatched. All elements in x and y "
                         f"must have the same length.\nShapes in x: "
                         f"{ {k: v.shape for k, v in columns.items() if k not in target_keys} }")
    inner = _dataset_input_fn(columns, target_keys, batch_size, shuffle, num_epochs,
                              queue_capacity, None, single_target)
    if not direct:
        return inner

    def input_fn():
        result = inner()
        if isinstance(result, tuple):
            return result[0]["__direct_np_input__"], result[1]
        return result["__direct_np_input__"]

    return input_fn


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                    num_threads=1, target_column="target"):
    """An input fn over a pandas DataFrame ``x`` (its columns are the features) and an
    optional Series/DataFrame ``y``; the index must match, as TF checks."""
    try:
        import pandas as pd  # noqa: PLC0415 - optional dependency, as in TF
    except ImportError as e:
        raise TypeError("pandas_input_fn should not be called without pandas installed") \
            from e
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")
    x = x.copy()
    columns = collections.OrderedDict((k, x[k].to_numpy()) for k in x.columns)
    target_keys = []
    single_target = True
    if y is not None:
        if target_column in x:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame "
                             f"already has a column with that name: {list(x.columns)}")
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                             f"Index for y: {y.index}\n")
        if isinstance(y, pd.DataFrame):
            single_target = False
            for k in y.columns:
                columns[k] = y[k].to_numpy()
                target_keys.append(k)
        else:
            columns[target_column] = y.to_numpy()
            target_keys.append(target_column)
    return _dataset_input_fn(columns, target_keys, batch_size, shuffle, num_epochs,
                             queue_capacity, None, single_target)
