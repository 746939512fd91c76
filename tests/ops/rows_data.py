"""Op-table rows for tf.data's iterator ops; datasets and iterators against TF are in
tests/unit/data/test_data_vs_tf.py, their errors and saved positions in tests/unit/data/test_data.py."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

_WHY = "an iterator resource op (no array to compare: it starts, saves or restores an " \
    "iterator); covered by tests/unit/data/test_data.py"
EXEMPT = {op: _WHY for op in ["MakeIterator", "SerializeIterator", "DeserializeIterator"]}

_X = rand(4, 3)


def _first(tf, x):
    return tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(x)).get_next()


def _handle(tf, x):
    return tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensors(x)).string_handle()


def _is_handle(h):
    assert isinstance(np.asarray(h, dtype=object).item(), bytes)


ROWS = [
    OpCase("IteratorGetNext", _first, lambda x: x[0], [_X]),
    OpCase("IteratorV2", lambda tf, x: _first(tf, x * 2.0), lambda x: x[0] * 2.0, [_X]),
    OpCase("IteratorToStringHandle", _handle, _is_handle, [_X], check_values=False),
]
