"""Op-table rows for tf.data.experimental's graph ops; their datasets against TF are in
tests/unit/data/test_data_experimental.py."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

EXEMPT = {"DatasetToTFRecord": "writes a file and returns nothing to compare; written files "
          "read back against TF in tests/unit/data/test_data_experimental.py"}

_X = rand(5, 3)


def _cardinality(tf, x):
    return tf.data.experimental.cardinality(tf.data.Dataset.from_tensor_slices(x).batch(2))


ROWS = [
    OpCase("DatasetCardinality", _cardinality,
           lambda x: np.int64(-(-x.shape[0] // 2)), [_X]),
]
