"""Ragged ops (scopeflow/ragged/, scopeflow/ops/strings/unicode_ragged_ops.py): expected
values are TF 2.21's outputs for the same inputs. Live comparisons with TF:
tests/unit/ragged/test_ragged.py."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.strings import unicode_ragged_ops
from scopeflow.ragged import ragged_ops
from scopeflow.ragged.ragged_tensor import RaggedTensor

from .op_table import OpCase


def _expect(*want):
    def check(*got):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert np.asarray(g).tolist() == w, (g, w)
    return check


def _rt(values, splits):
    return RaggedTensor.from_row_splits(values, splits)


ROWS = [
    OpCase("RaggedRange", lambda tf, a, b, d: list(ragged_ops.range(a, b, d).nested_row_splits)
           + [ragged_ops.range(a, b, d).flat_values],
           _expect([0, 1, 3, 3], [3, 5, 7]),
           [np.array([3, 5, 9], np.int32), np.array([5, 9, 2], np.int32),
            np.array(2, np.int32)], check_values=False, check_grad=False),
    OpCase("RaggedTensorToTensor", lambda tf, v, s: _rt(v, s).to_tensor(default_value=-1.0),
           _expect([[1.0, 2.0], [-1.0, -1.0], [3.0, -1.0]]),
           [np.array([1.0, 2.0, 3.0], np.float32), np.array([0, 2, 2, 3], np.int64)],
           check_values=False, check_grad=False),
    OpCase("RaggedTensorToSparse",
           lambda tf, v, s: list(_rt(v, s).to_sparse().components()),
           _expect([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [3, 2]),
           [np.array([1, 2, 3], np.int32), np.array([0, 2, 2, 3], np.int64)],
           check_values=False, check_grad=False),
    OpCase("UnicodeDecode",
           lambda tf, x: list(unicode_ragged_ops.unicode_decode(x, "UTF-8").nested_row_splits)
           + [unicode_ragged_ops.unicode_decode(x, "UTF-8").flat_values],
           _expect([0, 2, 5], [104, 233, 97, 65533, 98]),
           [np.array(["h\xe9".encode(), b"a\xffb"], dtype=object)], check_values=False),
    OpCase("UnicodeDecodeWithOffsets",
           lambda tf, x: [t.flat_values for t in
                          unicode_ragged_ops.unicode_decode_with_offsets(x, "UTF-8")],
           _expect([104, 233, 97, 65533, 98], [0, 1, 0, 1, 2]),
           [np.array(["h\xe9".encode(), b"a\xffb"], dtype=object)], check_values=False),
]
