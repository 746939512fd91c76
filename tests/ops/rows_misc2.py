"""Op-table rows for the generic ``Conv`` op (scopeflow/ops/nn/conv_nd_ops.py),
RaggedFillEmptyRows and its gradient op (scopeflow/ops/array/ragged_fill_ops.py) and the
other ops of the misc2 group (fractional pools, Sobol samples, candidate sampling)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand


def _conv_ref(x, w, stride=1):
    """A direct NHWC VALID convolution (loops over the small filter only)."""
    kh, kw, _, co = w.shape
    n, h, wd, _ = x.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, co), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + stride * oh:stride, j:j + stride * ow:stride, :]
            out += patch.astype(np.float64) @ w[i, j].astype(np.float64)
    return out.astype(x.dtype)


def _fill_ref(rowids, values, nrows, default):
    rows = [[v for r, v in zip(rowids, values) if r == i] or [default] for i in range(nrows)]
    out_rowids = np.array([i for i, r in enumerate(rows) for _ in r], np.int64)
    out_values = np.array([v for r in rows for v in r], values.dtype)
    empty = np.array([not (rowids == i).any() for i in range(nrows)])
    starts = np.cumsum([0] + [len(r) for r in rows[:-1]])
    seen = {}
    reverse = []
    for r in rowids:
        reverse.append(starts[r] + seen.get(r, 0))
        seen[r] = seen.get(r, 0) + 1
    return [out_rowids, out_values, empty, np.array(reverse, np.int64)]


ROWS = [
    OpCase("Conv", lambda tf, x, w: tf.conv(x, w, [1, 1, 1, 1], "VALID"),
           lambda x, w: _conv_ref(x, w), [rand(2, 5, 6, 3), rand(3, 2, 3, 4, seed=1)],
           rtol=1e-5, atol=1e-5, check_grad=False, id="Conv-2d"),
    OpCase("Conv", lambda tf, x, w: tf.conv(x, w, [1, 2, 2, 1], "VALID", batch_dims=2),
           lambda x, w: _conv_ref(x.reshape(6, 7, 7, 2), w, 2).reshape(2, 3, 3, 3, 5),
           [rand(2, 3, 7, 7, 2), rand(3, 3, 2, 5, seed=2)], rtol=1e-5, atol=1e-5,
           check_grad=False, id="Conv-batch_dims2"),
    OpCase("RaggedFillEmptyRows",
           lambda tf, r, v: list(tf.ragged_fill_empty_rows(r, v, 6, np.float32(-1.0))),
           lambda r, v: _fill_ref(r, v, 6, np.float32(-1.0)),
           [np.array([4, 0, 2, 0], np.int64), rand(4)], id="RaggedFillEmptyRows"),
    OpCase("RaggedFillEmptyRowsGrad",
           lambda tf, m, g: list(tf.ragged_fill_empty_rows_grad(m, g)),
           lambda m, g: [g[m], np.float32(g.sum() - g[m].sum())],
           [np.array([0, 1, 3], np.int64), rand(5)], rtol=1e-5, atol=1e-5,
           id="RaggedFillEmptyRowsGrad"),
]

EXEMPT = {
    "Conv2DBackpropInputV2": "TF registers no CPU kernel: tests/unit/ops/nn/test_conv_nd.py "
                             "checks the graph and the run-time error against TF",
    "Conv2DBackpropFilterV2": "TF registers no CPU kernel: tests/unit/ops/nn/test_conv_nd.py "
                              "checks the graph and the run-time error against TF",
}
