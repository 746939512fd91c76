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


def _frac_ref(x, rows, cols, reduce, overlapping=False):
    """Pooling over the given TF sequences (windows end one before the next boundary,
    or on it when overlapping)."""
    h, w = x.shape[1:3]
    out = np.empty((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            r1 = min(rows[i + 1] + (1 if overlapping else 0), h)
            c1 = min(cols[j + 1] + (1 if overlapping else 0), w)
            out[:, i, j] = reduce(x[:, rows[i]:r1, cols[j]:c1], axis=(1, 2))
    return out


# TF 2.21's sequences (seed 1, seed2 2): 10 rows -> 6, 9 columns -> 5. The rows fetch
# only the pooled output: TF's static shape of the sequence outputs is the output length,
# one less than they hold (tests/unit/ops/nn/test_fractional_pool.py compares them).
_ROWS_12 = ([0, 1, 3, 4, 6, 8, 10], [0, 2, 3, 5, 7, 9])
_ROWS_12_PSEUDO = ([0, 2, 3, 5, 7, 8, 10], [0, 2, 3, 5, 7, 9])

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

ROWS += [
    OpCase("FractionalMaxPool",
           lambda tf, x: tf.nn.fractional_max_pool(x, [1., 1.44, 1.73, 1.], False, False,
                                                   True, 1, 2).output,
           lambda x: _frac_ref(x, *_ROWS_12, np.max),
           [rand(2, 10, 9, 2, seed=5)], id="FractionalMaxPool-random"),
    OpCase("FractionalAvgPool",
           lambda tf, x: tf.nn.fractional_avg_pool(x, [1., 1.44, 1.73, 1.], True, True,
                                                   True, 1, 2).output,
           lambda x: _frac_ref(x, *_ROWS_12_PSEUDO, np.mean, True),
           [rand(2, 10, 9, 2, seed=6)], rtol=1e-5, atol=1e-5, id="FractionalAvgPool-pseudo"),
    OpCase("FractionalMaxPoolGrad",
           lambda tf, x: tf.gradients(tf.nn.fractional_max_pool(
               x, [1., 1.44, 1.73, 1.], False, False, True, 1, 2).output, x)[0],
           lambda x: _frac_max_grad_ref(x), [rand(1, 10, 9, 1, seed=7)], check_grad=False,
           id="FractionalMaxPoolGrad"),
    OpCase("FractionalAvgPoolGrad",
           lambda tf, x: tf.gradients(tf.nn.fractional_avg_pool(
               x, [1., 1.44, 1.73, 1.], False, False, True, 1, 2).output, x)[0],
           lambda x: _frac_avg_grad_ref(x), [rand(1, 10, 9, 1, seed=8)], check_grad=False,
           rtol=1e-5, atol=1e-6, id="FractionalAvgPoolGrad"),
]


def _frac_max_grad_ref(x):
    rows, cols = _ROWS_12
    g = np.zeros_like(x)
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            win = x[0, rows[i]:rows[i + 1], cols[j]:cols[j + 1], 0]
            a, b = np.unravel_index(np.argmax(win), win.shape)
            g[0, rows[i] + a, cols[j] + b, 0] += 1
    return g


def _frac_avg_grad_ref(x):
    rows, cols = _ROWS_12
    g = np.zeros_like(x)
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            n = (rows[i + 1] - rows[i]) * (cols[j + 1] - cols[j])
            g[0, rows[i]:rows[i + 1], cols[j]:cols[j + 1], 0] += 1 / n
    return g


ROWS += [
    # TF 2.21's first run for seed 1 (all weights still 1): candidates and counts
    OpCase("LearnedUnigramCandidateSampler",
           lambda tf: list(tf.nn.learned_unigram_candidate_sampler(
               tf.constant(np.array([[1], [3]], np.int64)), 1, 4, True, 10, seed=1)),
           lambda: [np.array([7, 9, 3, 2], np.int64), np.full((2, 1), 0.4, np.float32),
                    np.full(4, 0.4, np.float32)], [], id="LearnedUnigram-unique"),
]

ROWS += [
    # Sobol points 4..7 of the first three dimensions (TF 2.21 gives these)
    OpCase("SobolSample", lambda tf: tf.math.sobol_sample(3, 4, skip=3),
           lambda: np.array([[0.375, 0.375, 0.625], [0.875, 0.875, 0.125],
                             [0.625, 0.125, 0.875], [0.125, 0.625, 0.375]], np.float32), [],
           id="SobolSample"),
]


EXEMPT = {
    "Conv2DBackpropInputV2": "TF registers no CPU kernel: tests/unit/ops/nn/test_conv_nd.py "
                             "checks the graph and the run-time error against TF",
    "Conv2DBackpropFilterV2": "TF registers no CPU kernel: tests/unit/ops/nn/test_conv_nd.py "
                              "checks the graph and the run-time error against TF",
}
