"""Op-table row for the lookup-table op of tf.data.experimental (``DatasetInitializer``'s
``InitializeTableFromDataset``): the row fills a table from a dataset of (key, value) pairs
and looks keys up after it, in one run. Tables, errors and the graph are compared with live
TF in tests/unit/data/test_data_experimental_more.py."""

from __future__ import annotations

import numpy as np

from ops.op_table import OpCase

_KEYS = np.array([3, 1, 4, 5], dtype=np.int64)
_VALS = np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32)


def _filled_then_lookup(tf, q):
    pairs = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices(_KEYS),
                                 tf.data.Dataset.from_tensor_slices(_VALS)))
    table = tf.lookup.StaticHashTable(tf.data.experimental.DatasetInitializer(pairs), -1.0)
    with tf.control_dependencies([table.initializer]):
        return table.lookup(q)


def _reference(q):
    table = dict(zip(_KEYS.tolist(), _VALS.tolist()))
    return np.vectorize(lambda k: table.get(k, -1.0), otypes=[np.float32])(q)


ROWS = [
    OpCase("InitializeTableFromDataset", _filled_then_lookup, _reference,
           [np.array([4, 2, 3, 5, 9], dtype=np.int64)], id="int64_to_float",
           check_grad=False),
]
