"""Op-table rows for CTCLoss, CTCGreedyDecoder and PreventGradient (scopeflow/ops/nn/
ctc_ops.py), the Dilation2D ops (morphology_ops.py) and MaxPoolWithArgmax with its gradient
op (pool_argmax_ops.py), these with direct-loop NumPy references. The CTC loss reference sums the probability of every frame-level path that
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


def _dilation_ref(x, w, stride=1, rate=1, padding="VALID"):
    """Direct loops: the max over in-image taps of input + filter."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[:2]
    ekh, ekw = (kh - 1) * rate + 1, (kw - 1) * rate + 1
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-wd // stride)
        pt = max((oh - 1) * stride + ekh - h, 0) // 2
        pl = max((ow - 1) * stride + ekw - wd, 0) // 2
    else:
        oh, ow, pt, pl = (h - ekh) // stride + 1, (wd - ekw) // stride + 1, 0, 0
    out = np.full((n, oh, ow, c), -np.inf)
    for y in range(oh):
        for xx in range(ow):
            for i in range(kh):
                for j in range(kw):
                    r, q = y * stride + i * rate - pt, xx * stride + j * rate - pl
                    if 0 <= r < h and 0 <= q < wd:
                        out[:, y, xx] = np.maximum(out[:, y, xx], x[:, r, q] + w[i, j])
    return out.astype(x.dtype)


DIL_X, DIL_W = rand(2, 6, 5, 2, seed=13), rand(2, 3, 2, seed=14)


def _dil_grads(which):
    def build(tf, x, w, dy):
        y = tf.nn.dilation2d(x, w, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        return tf.gradients(y, [x, w], grad_ys=dy)[which]
    return build


def _dil_grad_ref(which):
    def ref(x, w, dy):
        kh, kw = w.shape[:2]
        gx, gw = np.zeros_like(x), np.zeros_like(w)
        for b, y, q, c in np.ndindex(dy.shape):
            vals = [(x[b, y + i, q + j, c] + w[i, j, c], i, j) for i in range(kh) for j in range(kw)]
            best = max(v for v, _, _ in vals)
            _, i, j = next(t for t in vals if t[0] == best)   # the first maximum
            gx[b, y + i, q + j, c] += dy[b, y, q, c]
            gw[i, j, c] += dy[b, y, q, c]
        return [gx, gw][which]
    return ref


def _argmax_ref(x, k=2, s=2, with_batch=False):
    """VALID windows by loops: the max and TF's flat index of its first occurrence."""
    n, h, w, c = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out, idx = np.zeros((n, oh, ow, c), x.dtype), np.zeros((n, oh, ow, c), i64)
    for b, y, q, ch in np.ndindex(out.shape):
        win = [(x[b, y * s + i, q * s + j, ch], (y * s + i) * w + q * s + j)
               for i in range(k) for j in range(k)]
        best = max(v for v, _ in win)
        pos = next(p for v, p in win if v == best)
        out[b, y, q, ch] = best
        idx[b, y, q, ch] = pos * c + ch + (b * h * w * c if with_batch else 0)
    return [out, idx]


ARG_X = rand(2, 5, 4, 3, seed=16)


def _argmax_grad_ref(x, dy):
    _, idx = _argmax_ref(x, with_batch=True)
    g = np.zeros(x.size, x.dtype)
    np.add.at(g, idx.ravel(), dy.ravel())
    return g.reshape(x.shape)


ROWS = [
    OpCase("MaxPoolWithArgmax",
           lambda tf, x: list(tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")),
           _argmax_ref, [ARG_X], check_grad=False, id="plain"),
    OpCase("MaxPoolWithArgmax",
           lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "VALID",
                                                    include_batch_in_index=True)[0],
           lambda x: _argmax_ref(x)[0], [ARG_X], id="batch_index"),
    OpCase("MaxPoolGradWithArgmax",
           lambda tf, x, dy: tf.gradients(tf.nn.max_pool_with_argmax(x, 2, 2, "VALID")[0], x,
                                          grad_ys=dy)[0],
           _argmax_grad_ref, [ARG_X, rand(2, 2, 2, 3, seed=17)]),
    OpCase("Dilation2D", lambda tf, x, w: tf.nn.dilation2d(x, w, [1, 1, 1, 1], [1, 1, 1, 1],
                                                             "VALID"),
           _dilation_ref, [DIL_X, DIL_W], id="valid"),
    OpCase("Dilation2D", lambda tf, x, w: tf.nn.dilation2d(x, w, [1, 2, 2, 1], [1, 2, 2, 1],
                                                             "SAME"),
           lambda x, w: _dilation_ref(x, w, 2, 2, "SAME"), [DIL_X, DIL_W], id="same_rate"),
    OpCase("Dilation2DBackpropInput", _dil_grads(0), _dil_grad_ref(0),
           [DIL_X, DIL_W, rand(2, 5, 3, 2, seed=15)]),
    OpCase("Dilation2DBackpropFilter", _dil_grads(1), _dil_grad_ref(1),
           [DIL_X, DIL_W, rand(2, 5, 3, 2, seed=15)], rtol=1e-5, atol=1e-5),
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
