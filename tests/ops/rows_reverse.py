"""Op-table rows for ReverseV2 and ReverseSequence (scopeflow/ops/array/reverse_ops.py)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand


def _reverse_sequence_ref(x, lengths, seq_axis, batch_axis):
    out = np.array(x)
    for b, n in enumerate(lengths):
        index = [slice(None)] * x.ndim
        index[batch_axis], index[seq_axis] = b, slice(0, n)
        src = list(index)
        src[seq_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        out[tuple(index)] = x[tuple(src)]
    return out


X234 = rand(2, 3, 4)
LENS = np.array([3, 0], np.int32)
TIME_LENS = np.array([2, 3, 1], np.int64)

ROWS = [
    # ── ReverseV2 ──
    OpCase("ReverseV2", lambda tf, x: tf.reverse(x, [-1, 0]), lambda x: x[::-1, :, ::-1],
           [X234], id="reverse_neg_axes"),
    OpCase("ReverseV2", lambda tf, x, a: tf.reverse(x, a), lambda x, a: np.flip(x, 1),
           [X234, np.array([1], np.int64)], id="reverse_fed_axis"),
    # ── ReverseSequence ──
    OpCase("ReverseSequence", lambda tf, x, n: tf.reverse_sequence(x, n, 1, 0),
           lambda x, n: _reverse_sequence_ref(x, n, 1, 0), [X234, LENS], id="seq_batch_major"),
    OpCase("ReverseSequence", lambda tf, x, n: tf.reverse_sequence(x, n, 0, 1),
           lambda x, n: _reverse_sequence_ref(x, n, 0, 1), [rand(3, 3, 2), TIME_LENS],
           id="seq_time_major"),
]
