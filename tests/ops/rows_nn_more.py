"""Op-table rows for CTCLoss, CTCGreedyDecoder and PreventGradient (scopeflow/ops/nn/
ctc_ops.py). The CTC loss reference sums the probability of every frame-level path that
collapses to the label (brute force over all C**T paths), independent of the kernel's
forward-backward recursion."""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.ops.nn.ctc_ops import prevent_gradient_op

from .op_table import OpCase, rand

f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64

CTC_X = rand(4, 2, 3, seed=11)                  # [time, batch, classes]; blank = 2
CTC_LABELS = ([[0, 0], [0, 1], [1, 0]], [0, 1, 1], [2, 2])
CTC_SEQ = np.array([4, 3], i32)


def _collapse(path, blank, merge=True):
    out, prev = [], None
    for c in path:
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


def _ctc_brute(x, labels, seq_len, merge=True):
    """-log of the summed softmax probability of all paths that collapse to each label."""
    n_t, batch, n_c = x.shape
    p = np.exp(x - x.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    out = []
    for b in range(batch):
        n = seq_len[b]
        total = sum(np.prod([p[t, b, c] for t, c in enumerate(path)])
                    for path in itertools.product(range(n_c), repeat=n)
                    if _collapse(path, n_c - 1, merge) == labels[b])
        out.append(-np.log(total))
    return np.array(out, x.dtype)


def _ctc_build(merge=True):
    def build(tf, x):
        idx, vals, shape = CTC_LABELS
        sp = tf.SparseTensor(np.array(idx, i64), np.array(vals, i32), shape)
        return tf.nn.ctc_loss(sp, x, CTC_SEQ, ctc_merge_repeated=merge)
    return build


def _greedy_ref(x):
    best = x.argmax(-1)
    decoded = [_collapse(best[:n, b], x.shape[2] - 1) for b, n in enumerate(CTC_SEQ)]
    idx = [[b, i] for b, d in enumerate(decoded) for i in range(len(d))]
    vals = [c for d in decoded for c in d]
    lp = -np.array([[x[:n, b].max(-1).sum()] for b, n in enumerate(CTC_SEQ)], x.dtype)
    return [np.array(idx, i64).reshape(-1, 2), np.array(vals, i64),
            np.array([2, max(len(d) for d in decoded)], i64), lp]


def _greedy_build(tf, x):
    (d,), lp = tf.nn.ctc_greedy_decoder(x, CTC_SEQ)
    return [d.indices, d.values, d.dense_shape, lp]


ROWS = [
    OpCase("CTCLoss", _ctc_build(), lambda x: _ctc_brute(x, [[0, 1], [1]], CTC_SEQ),
           [CTC_X], rtol=1e-5, id="merge"),
    OpCase("CTCLoss", _ctc_build(False),
           lambda x: _ctc_brute(x, [[0, 1], [1]], CTC_SEQ, merge=False), [CTC_X], rtol=1e-5,
           id="no_merge"),
    OpCase("CTCGreedyDecoder", _greedy_build, _greedy_ref,
           [np.repeat(rand(3, 2, 3, seed=12), 2, axis=0)[:4]], check_grad=False),
    # Its gradient raises (TF's second derivative of ctc_loss): no numeric check.
    OpCase("PreventGradient", lambda tf, x: prevent_gradient_op.bind(x, message="no"),
           lambda x: x, [rand(2, 3)], check_grad=False),
]
