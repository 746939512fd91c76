"""Scans, the remaining segment reductions, the statistics composites and
HistogramFixedWidth: NumPy references and gradients, then the same graphs under TF."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.errors import InvalidArgumentError

X = np.array([[1.5, -2.0, 3.0, 0.5], [4.0, 5.5, -6.0, 2.0], [0.25, 1.0, 2.0, -3.0]], np.float32)


def _run(fetches):
    with tf.Session() as s:
        return s.run(fetches)


def test_scans_match_numpy_and_their_flags():
    out = _run([tf.cumsum(X, 1, exclusive=True), tf.cumprod(X, 0, reverse=True),
                tf.math.cumulative_logsumexp(X, 1, exclusive=True, reverse=True)])
    np.testing.assert_array_equal(out[0][:, 0], 0)
    np.testing.assert_allclose(out[0][:, 1:], np.cumsum(X, 1)[:, :-1], rtol=1e-6)
    np.testing.assert_allclose(out[1], np.flip(np.cumprod(np.flip(X, 0), 0), 0), rtol=1e-6)
    want = np.flip(np.logaddexp.accumulate(np.flip(X, 1), 1), 1)
    np.testing.assert_array_equal(out[2][:, -1], -np.inf)
    np.testing.assert_allclose(out[2][:, :-1], want[:, 1:], rtol=1e-6)


def test_scan_axis_errors_are_tfs():
    with pytest.raises(InvalidArgumentError, match=r"Expected scan axis in the range \[-2, 2\)"):
        _run(tf.cumsum(X, 2))
    with pytest.raises(InvalidArgumentError, match="axis must be a scalar, not"):
        _run(tf.cumsum(X, [0]))
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.math.cumulative_logsumexp([1, 2])


def test_cumprod_gradient_is_the_reversed_scan():
    x = tf.constant(X.astype(np.float64))
    (g,) = _run(tf.gradients(tf.reduce_sum(tf.cumprod(x, 1)), x))
    xs = X.astype(np.float64)
    want = np.array([[sum(np.prod(np.delete(r[:k + 1], j)) for k in range(j, 4))
                      for j in range(4)] for r in xs])
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_segment_reductions_and_empty_segments():
    d = np.array([3.0, np.nan, 1.0, 4.0, 2.0], np.float32)
    ids = [0, 0, 2, 2, 2]
    mx, mn, pr, me = _run([tf.segment_max(d, ids), tf.segment_min(d, ids),
                           tf.segment_prod(d, ids), tf.segment_mean(d[2:], [1, 1, 1])])
    np.testing.assert_array_equal(mx, [3, 0, 4])   # NaN skipped, empty 0
    np.testing.assert_array_equal(mn, [3, 0, 1])
    np.testing.assert_array_equal(pr[1:], [1, 8])   # empty product 1
    np.testing.assert_allclose(me, [0, 7 / 3])
    umx, umn, upr = _run([tf.unsorted_segment_max([1, 2], [0, 2], 3),
                          tf.unsorted_segment_min([1.0, 2.0], [0, -1], 2),
                          tf.unsorted_segment_prod([2.0, 3.0], [1, 1], 2)])
    assert umx.tolist() == [1, np.iinfo(np.int32).min, 2]
    assert umn.tolist() == [1.0, float(np.finfo(np.float32).max)]
    assert upr.tolist() == [1.0, 6.0]
    with pytest.raises(InvalidArgumentError, match="segment ids are not increasing"):
        _run(tf.segment_max([1.0, 2.0, 3.0], [0, 2, 1]))
    with pytest.raises(InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range"):
        _run(tf.unsorted_segment_max([1.0, 2.0], [0, 5], 3))


def test_segment_max_gradient_splits_ties():
    d = tf.constant([2.0, 2.0, 1.0])
    (g,) = _run(tf.gradients(tf.segment_max(d, [0, 0, 1]), d))
    np.testing.assert_array_equal(g, [0.5, 0.5, 1.0])
    d = tf.constant([0.0, 3.0, 4.0])
    (g,) = _run(tf.gradients(tf.segment_prod(d, [0, 0, 0]), d))
    np.testing.assert_array_equal(g, [12.0, 0.0, 0.0])  # one zero: the others' product


def test_statistics_composites():
    v, s, e, c, p = _run([tf.math.reduce_variance(X, 1), tf.math.reduce_std(X),
                          tf.math.reduce_euclidean_norm(X, 0), tf.count_nonzero(X > 1, 1),
                          tf.math.polyval([2.0, 0.0, -1.0], X)])
    np.testing.assert_allclose(v, X.var(1), rtol=1e-6)
    np.testing.assert_allclose(s, X.std(), rtol=1e-6)
    np.testing.assert_allclose(e, np.sqrt((X * X).sum(0)), rtol=1e-6)
    assert c.tolist() == (X > 1).sum(1).tolist() and c.dtype == np.int64
    np.testing.assert_allclose(p, 2 * X * X - 1, rtol=1e-6)
    with pytest.raises(TypeError, match="Input must be either real or complex"):
        tf.math.reduce_variance([1, 2])
    with pytest.raises(ValueError, match="coeffs must be list type"):
        tf.math.polyval((1.0,), 2.0)
    assert tf.accumulate_n([tf.constant(X)] * 3).op.type == "AddN"


def test_histogram_fixed_width_clamps_to_the_end_bins():
    h = _run(tf.histogram_fixed_width([-5.0, 0.0, 0.99, 1.0, 9.0], [0.0, 2.0], nbins=2))
    assert h.tolist() == [3, 2]
    with pytest.raises(InvalidArgumentError, match=r"value_range\[0\] < value_range\[1\]"):
        _run(tf.histogram_fixed_width([1.0], [2.0, 1.0], nbins=3))


_LIVE = """
x = tf.constant(X)
outs = [tf.cumsum(x, 1, exclusive=True, reverse=True), tf.cumprod(x, 0),
        tf.math.cumulative_logsumexp(x, 1), tf.math.reduce_variance(x, 0),
        tf.math.reduce_std(x, 1, keepdims=True), tf.math.reduce_euclidean_norm(x),
        tf.count_nonzero(x > 0, reduction_indices=0), tf.math.polyval([1.0, -2.0, 0.5], x),
        tf.segment_max(x, [0, 0, 2]), tf.segment_min(x, [0, 1, 1]), tf.segment_mean(x, [0, 0, 1]),
        tf.segment_prod(x, [1, 1, 1]), tf.unsorted_segment_max(x, [2, -1, 0], 3),
        tf.unsorted_segment_min(x, [1, 1, 0], 2), tf.unsorted_segment_prod(x, [0, 2, 0], 3),
        tf.unsorted_segment_mean(x, [0, 2, 0], 3), tf.unsorted_segment_sqrt_n(x, [0, 2, 0], 3),
        tf.histogram_fixed_width(x, [-4.0, 4.0], nbins=6)]
grads = tf.gradients([tf.reduce_sum(o * o) for o in outs[:6] + outs[8:17]], x)
with tf.Session() as s:
    vals = s.run(outs + grads)
print(json.dumps([[o.name, o.op.type, o.shape.as_list() if o.shape.ndims is not None else None]
                  for o in outs] + [v.tolist() for v in vals]))
"""


def test_live_against_tf(tf1):
    want = tf1("tf.disable_v2_behavior()\nX = np.array(" + repr(X.tolist())
               + ", np.float32)\n" + _LIVE)
    ns = {"tf": tf, "np": np, "X": X, "json": __import__("json")}
    code = _LIVE.replace("print(json.dumps(", "RESULT = (").replace("))\n", ")\n")
    exec(compile(code, "<live>", "exec"), ns)  # the same graph, built by scopeflow
    got = ns["RESULT"]
    assert len(got) == len(want)
    meta = len([w for w in want if isinstance(w, list) and len(w) == 3 and isinstance(w[0], str)])
    assert got[:meta] == want[:meta]
    for g, w in zip(got[meta:], want[meta:]):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=1e-6, atol=1e-6)
