"""TensorFlow's own cumulative-scan tests (control_flow/scan_ops_test.py: ``tf.cumsum`` and
``tf.cumprod``, graph mode), rewritten against the public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name (``CumsumTest.testX`` is
``test_cumsum_x``, ``CumprodTest.testX`` is ``test_cumprod_x``). The tests use only names
that real TensorFlow's ``tf.compat.v1`` has too, so
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None


@contextlib.contextmanager
def _session():
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _equal(want, got):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))


def _close(want, got, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))


VALID_DTYPES = (np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64,
                np.complex128, tf.bfloat16.as_numpy_dtype)


def _np_reverse(x, axis):
    axis = axis + x.ndim if axis < 0 else axis
    return x[tuple(slice(None, None, -1) if i == axis else slice(None)
                   for i in range(x.ndim))]


def _np_scan(func, x, axis, exclusive, reverse):
    """NumPy's cumsum / cumprod with TF's ``exclusive`` and ``reverse`` options."""
    axis = axis + x.ndim if axis < 0 else axis
    if reverse:
        x = _np_reverse(x, axis)
    if exclusive:
        head = tuple(slice(0, 1) if i == axis else slice(None) for i in range(x.ndim))
        init = tuple(slice(0, -1) if i == axis else slice(None) for i in range(x.ndim))
        first = np.zeros_like(x[head]) if func is np.cumsum else np.ones_like(x[head])
        x = np.concatenate([first, func(x[init], axis)], axis=axis)
    else:
        x = func(x, axis=axis)
    return _np_reverse(x, axis) if reverse else x


_OPS = {"cumsum": (np.cumsum, lambda: tf.cumsum), "cumprod": (np.cumprod, lambda: tf.cumprod)}


def _compare_all(kind, x, axis):
    np_func, tf_func = _OPS[kind]
    for exclusive in (True, False):
        for reverse in (True, False):
            want = _np_scan(np_func, x, axis, exclusive, reverse)
            with _session() as sess:
                got = sess.run(tf_func()(x, axis, exclusive, reverse))
            tol = 1e-2 if x.dtype == tf.bfloat16.as_numpy_dtype else 1e-6
            if x.dtype == np.float16:
                tol = 1e-3
            np.testing.assert_allclose(np.asarray(got, np.complex128),
                                       np.asarray(want, np.complex128), rtol=tol, atol=tol)
            assert got.shape == want.shape


def _check_empty(kind):
    for dtype in VALID_DTYPES:
        for axis in (-1, 0):
            _compare_all(kind, np.zeros([0]).astype(dtype), axis)


def _check_axis_type(kind):
    for dtype in VALID_DTYPES:
        x = np.arange(1, 6).reshape([5]).astype(dtype)
        for axis_dtype in (tf.int64, tf.int32):
            with _session() as sess:
                sess.run(_OPS[kind][1]()(x, tf.constant(0, axis_dtype)))


def _check_nan(kind, dtypes):
    for dtype in dtypes:
        for nan_idx in range(0, 5):
            x = np.arange(1, 6).reshape([5]).astype(dtype)
            x[nan_idx] = np.nan
            for axis in (-1, 0):
                _compare_all(kind, x, axis)


def _check_nd(kind, start, shape, axes):
    for dtype in VALID_DTYPES:
        x = np.arange(start, start + int(np.prod(shape))).reshape(shape).astype(dtype)
        for axis in axes:
            _compare_all(kind, x, axis)


def _check_invalid_axis(kind):
    x = np.arange(0, 10).reshape([2, 5]).astype(np.float32)
    op = _OPS[kind][1]()
    with _session() as sess:
        t = tf.convert_to_tensor(x)
        for axis in (-3, 2):
            with _raises(tf.errors.InvalidArgumentError,
                         re.escape("Expected scan axis in the range [-2, 2)")):
                sess.run(op(t, axis))
        with _raises(tf.errors.InvalidArgumentError, "axis must be a scalar"):
            sess.run(op(t, [0]))


def _check_gradient(kind, shape, axis, exclusive, reverse):
    start = 0 if kind == "cumsum" else 1
    x = np.arange(start, start + int(np.prod(shape))).reshape(shape).astype(np.float64)
    with _session():
        t = tf.convert_to_tensor(x)
        result = _OPS[kind][1]()(t, axis, exclusive, reverse)
        jacob_t, jacob_n = tf.test.compute_gradient(t, shape, result, shape, x_init_value=x,
                                                    delta=1)
    np.testing.assert_allclose(jacob_t, jacob_n, rtol=1e-8, atol=1e-8)


# ── CumsumTest ───────────────────────────────────────────────────────────────────────
def test_cumsum_empty():
    _check_empty("cumsum")


def test_cumsum_axis_type():
    _check_axis_type("cumsum")


def test_cumsum_nan():
    _check_nan("cumsum", (np.float16, np.float32, np.float64, tf.bfloat16.as_numpy_dtype))


def test_cumsum_1d():
    _check_nd("cumsum", 1, [5], (-1, 0))


def test_cumsum_2d():
    _check_nd("cumsum", 0, [2, 5], (-2, -1, 0, 1))


def test_cumsum_3d():
    _check_nd("cumsum", 0, [2, 2, 5], (-3, -2, -1, 0, 1, 2))


def test_cumsum_6d():
    _check_nd("cumsum", 1, [2, 2, 3, 3, 2, 2], range(-6, 6, 3))


def test_cumsum_large():
    for dtype in VALID_DTYPES:
        if dtype in (np.float16, tf.bfloat16.as_numpy_dtype):
            continue  # TF's test skips them too (NumPy 2's own float16/bfloat16 cumsum)
        _compare_all("cumsum", np.ones([1000000], dtype=dtype) / 1024, 0)


def test_cumsum_invalid_axis():
    _check_invalid_axis("cumsum")


def test_cumsum_gradient():
    for axis in (-1, 0):
        _check_gradient("cumsum", [50], axis, False, False)


def test_cumsum_gradient_reverse():
    for axis in (-1, 0):
        _check_gradient("cumsum", [50], axis, False, True)


def test_cumsum_gradient_exclusive():
    for axis in (-1, 0):
        _check_gradient("cumsum", [50], axis, True, False)


def test_cumsum_gradient_exclusive_reverse():
    for axis in (-1, 0):
        _check_gradient("cumsum", [50], axis, True, True)


def test_cumsum_gradient_2d():
    for axis in (-1, 0, 1):
        for exclusive in (True, False):
            for reverse in (True, False):
                _check_gradient("cumsum", [5, 10], axis, exclusive, reverse)


# ── CumprodTest ──────────────────────────────────────────────────────────────────────
def test_cumprod_empty():
    _check_empty("cumprod")


def test_cumprod_axis_type():
    _check_axis_type("cumprod")


def test_cumprod_nan():
    _check_nan("cumprod", (np.float16, np.float32, np.float64))


def test_cumprod_1d():
    _check_nd("cumprod", 1, [5], (-1, 0))


def test_cumprod_2d():
    _check_nd("cumprod", 1, [2, 5], (-2, -1, 0, 1))


def test_cumprod_3d():
    _check_nd("cumprod", 1, [2, 2, 5], (-3, -2, -1, 0, 1, 2))


def test_cumprod_6d():
    _check_nd("cumprod", 1, [2, 2, 3, 3, 2, 2], range(-6, 6, 3))


def test_cumprod_invalid_axis():
    _check_invalid_axis("cumprod")


def test_cumprod_gradient():
    for axis in (-1, 0):
        _check_gradient("cumprod", [8], axis, False, False)


def test_cumprod_gradient_reverse():
    for axis in (-1, 0):
        _check_gradient("cumprod", [8], axis, False, True)


def test_cumprod_gradient_exclusive():
    for axis in (-1, 0):
        _check_gradient("cumprod", [8], axis, True, False)


def test_cumprod_gradient_exclusive_reverse():
    for axis in (-1, 0):
        _check_gradient("cumprod", [8], axis, True, True)


def test_cumprod_gradient_2d():
    for axis in (-2, -1, 0, 1):
        for exclusive in (True, False):
            for reverse in (True, False):
                _check_gradient("cumprod", [2, 4], axis, exclusive, reverse)


# ── TF tests not ported ──────────────────────────────────────────────────────────────
SKIPPED = {}  # every test of scan_ops_test.py is ported

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
