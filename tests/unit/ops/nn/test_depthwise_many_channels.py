"""DepthwiseConv2dNative with a channel multiplier of 1 over many channels (MobileNet's
layers) takes the per-tap path with whole channel rows: TF's values, live, for strides,
paddings, dilations and dtypes, and a NaN stays in its windows."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import scopeflow as tf

CASES = [((1, 9, 9, 32), [1, 1, 1, 1], "SAME", [1, 1, 1, 1], "float32"),
         ((2, 10, 9, 48), [1, 2, 2, 1], "SAME", [1, 1, 1, 1], "float32"),
         ((1, 11, 11, 64), [1, 2, 2, 1], "VALID", [1, 1, 1, 1], "float64"),
         ((1, 12, 12, 32), [1, 1, 1, 1], "SAME", [1, 2, 2, 1], "float32"),
         ((1, 8, 8, 40), [1, 1, 1, 1], "VALID", [1, 1, 1, 1], "float16")]


def _inputs(i, shape, dtype):
    rng = np.random.RandomState(i)
    x = rng.normal(size=shape).astype(dtype)
    w = rng.normal(size=(3, 3, shape[3], 1)).astype(dtype)
    if i == 0:
        x[0, 4, 4, 5] = np.nan
    return x, w


def _ours(x, w, strides, padding, dilations):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.nn.depthwise_conv2d_native(x, w, strides, padding,
                                                      dilations=dilations))


def test_nan_stays_in_its_windows():
    x, w = _inputs(0, (1, 9, 9, 32), "float32")
    y = _ours(x, w, [1, 1, 1, 1], "SAME", [1, 1, 1, 1])
    assert np.isnan(y[0, 3:6, 3:6, 5]).all() and np.isnan(y).sum() == 9


def test_values_match_tf(tf1):
    """TF draws the same inputs (NumPy's RandomState, the same seeds) and convolves them."""
    import inspect
    theirs = tf1(inspect.getsource(_inputs) + textwrap.dedent(f"""
        out = []
        for i, (shape, strides, padding, dilations, dtype) in enumerate({CASES!r}):
            x, w = _inputs(i, shape, dtype)
            y = tf.nn.depthwise_conv2d_native(x, w, strides, padding, dilations=dilations)
            out.append(tf.Session().run(y).astype(np.float64).tolist())
        print(json.dumps(out).replace("NaN", "null"))
    """))
    for i, (shape, strides, padding, dilations, dtype) in enumerate(CASES):
        x, w = _inputs(i, shape, dtype)
        got = _ours(x, w, strides, padding, dilations)
        want = np.array(theirs[i], dtype=np.float64)   # null -> nan
        assert got.dtype == np.dtype(dtype)
        tol = 2e-2 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("c", [31, 32])
def test_both_paths_agree(c):
    """Either side of the switch (31 channels: banded GEMM; 32: taps) gives the same."""
    x, w = _inputs(3, (1, 10, 10, c), "float32")
    y = _ours(x, w, [1, 1, 1, 1], "SAME", [1, 1, 1, 1])
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = sum(xp[:, i:i + 10, j:j + 10, :] * w[i, j, :, 0] for i in range(3) for j in range(3))
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
