"""The second round of kernel speed-ups (bench/profiles/kernels_round2.md): BatchMatMulV2 on
one OpenBLAS thread, MirrorPadGrad's edge folding, UnsortedSegmentSum's sorted sum and
DivNoNan's plain divide. Each is compared bit for bit with the kernel it replaced (written
out here as the reference) on random inputs with NaN, +-inf, -0.0, integer dtypes and
empty tensors, and the ops' values with TF's. Any NaN equals any NaN: NumPy's loops pick
either operand's NaN sign depending on the code path, and TF defines none either."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.ops.array.indexing_ops import _unsorted_segment_sum_kernel
from scopeflow.ops.array.slicing_ops import _check_paddings, _mirror_pad_grad_kernel
from scopeflow.ops.math import blas
from scopeflow.ops.math.arithmetic_ops import _div_no_nan_kernel
from scopeflow.ops.math.matmul_ops import _batch_matmul_kernel

SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 3e38, -3e38, 1e-40, 2.0, -7.5])


def same_bits(a, b):
    """Same dtype, shape and bits, any NaN matching any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "c":
        return same_bits(a.real.copy(), b.real.copy()) and same_bits(a.imag.copy(),
                                                                     b.imag.copy())
    if a.dtype.kind == "f":
        na, nb = np.isnan(a), np.isnan(b)
        if not np.array_equal(na, nb):
            return False
        a, b = np.where(na, 0, a), np.where(nb, 0, b)
    return a.tobytes() == b.tobytes()


def _sprinkle(rng, x, frac=0.2):
    x = np.array(x, np.float64)
    mask = rng.random(x.shape) < frac
    x[mask] = rng.choice(SPECIALS, int(mask.sum()))
    return x


# ── the kernels these replaced ─────────────────────────────────────────────────────
def old_mirror_pad_grad(dy, paddings, mode):
    out = dy.copy()
    np_mode = "reflect" if mode == "REFLECT" else "symmetric"
    for axis, (a, b) in enumerate(_check_paddings(dy, paddings)):
        n = out.shape[axis] - a - b
        if max(a, b) > n - (mode == "REFLECT"):
            raise InvalidArgumentError(None, None, "too large")
        source = np.pad(np.arange(n), (a, b), mode=np_mode)
        folded = np.zeros(out.shape[:axis] + (n,) + out.shape[axis + 1:], dy.dtype)
        np.add.at(folded, (builtins.slice(None),) * axis + (source,), out)
        out = folded
    return out


def old_div_no_nan(x, y):
    out = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(y)), dtype=np.result_type(x, y))
    np.divide(x, y, out=out, where=np.asarray(y) != 0)
    return out


def old_unsorted_segment_sum(data, ids, n):
    ids = ids.reshape(-1).astype(np.int64)
    rows = data.reshape((ids.size, -1) if ids.size else (0, int(np.prod(data.shape[1:]))))
    keep = ids >= 0
    ids, rows = ids[keep], rows[keep]
    width = rows.shape[1]
    out_shape = (n,) + data.shape[1:]
    if data.dtype.kind == "f" and width:
        flat = (ids[:, None] * width + np.arange(width)).reshape(-1)
        acc = np.float32 if data.dtype == np.float16 else data.dtype
        out = np.bincount(flat, weights=rows.reshape(-1), minlength=n * width)
        return out.astype(acc).astype(data.dtype).reshape(out_shape)
    out = np.zeros((n, width), data.dtype)
    np.add.at(out, ids, rows)
    return out.reshape(out_shape)


# ── MirrorPadGrad ──────────────────────────────────────────────────────────────────
def test_mirror_pad_grad_matches_the_scatter_add():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(600):
        rank = int(rng.integers(0, 4))
        mode = "REFLECT" if rng.random() < 0.5 else "SYMMETRIC"
        inner = rng.integers(0, 6, rank)
        pads = np.array([[rng.integers(0, max(d - (mode == "REFLECT"), 0) + 1)
                          for _ in range(2)] for d in inner], np.int32).reshape(rank, 2)
        shape = tuple(int(d + p.sum()) for d, p in zip(inner, pads))
        dtype = rng.choice([np.float32, np.float64, np.float16, np.complex64, np.int32,
                            np.uint8])
        with np.errstate(all="ignore"):
            x = _sprinkle(rng, rng.standard_normal(shape) * 50).astype(dtype) \
                if np.dtype(dtype).kind in "fc" else \
                (rng.standard_normal(shape) * 50).astype(np.int64).astype(dtype)
        try:
            with np.errstate(all="ignore"):
                want = old_mirror_pad_grad(x, pads, mode)
        except InvalidArgumentError:  # e.g. an empty REFLECT axis: the new kernel too
            with pytest.raises(InvalidArgumentError, match="too large"):
                _mirror_pad_grad_kernel(x, pads, mode=mode)
            continue
        got = _mirror_pad_grad_kernel(x, pads, mode=mode)
        assert same_bits(want, got), (shape, pads.tolist(), mode, dtype)
        assert not np.shares_memory(got, x)
        checked += 1
    assert checked > 400


def test_mirror_pad_grad_zero_signs_and_errors():
    dy = np.full((2, 3), -0.0, np.float32)
    # the old scatter-add into zeros gives +0.0 on every folded axis, padded or not
    assert not np.signbit(_mirror_pad_grad_kernel(dy, np.zeros((2, 2), np.int32),
                                                  mode="REFLECT")).any()
    assert np.signbit(_mirror_pad_grad_kernel(np.float32(-0.0), np.zeros((0, 2), np.int32),
                                              mode="REFLECT"))
    with pytest.raises(InvalidArgumentError, match="too large"):
        _mirror_pad_grad_kernel(np.ones(5, np.float32), np.array([[2, 1]]), mode="REFLECT")


# ── DivNoNan ───────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
def test_div_no_nan_matches_the_masked_divide(dtype):
    rng = np.random.default_rng(1)
    shapes = [((), ()), ((5,), ()), ((), (5,)), ((0,), (0,)), ((0, 3), (1, 3)),
              ((4, 1), (1, 6)), ((33, 17), (33, 17)), ((2, 300), (300,))]
    for sx, sy in shapes:
        for zeros in (0.0, 0.005, 0.4, 1.0):
            x = _sprinkle(rng, rng.standard_normal(sx) * 10)
            y = _sprinkle(rng, rng.standard_normal(sy) * 10)
            y = np.where(rng.random(sy) < zeros, rng.choice([0.0, -0.0], sy), y)
            with np.errstate(all="ignore"):
                if np.dtype(dtype).kind == "c":
                    x = x + 1j * _sprinkle(rng, np.zeros(sx), 0.5)
                    y = y + 1j * _sprinkle(rng, np.zeros(sy), 0.5)
                x, y = np.asarray(x).astype(dtype), np.asarray(y).astype(dtype)
                want = old_div_no_nan(x, y)
            got = _div_no_nan_kernel(x, y)
            assert isinstance(got, np.ndarray)
            assert same_bits(want, got), (sx, sy, zeros)


# ── UnsortedSegmentSum ─────────────────────────────────────────────────────────────
def test_unsorted_segment_sum_matches_the_bincount():
    rng = np.random.default_rng(2)
    for trial in range(400):
        count = int(rng.choice([0, 1, 7, 60, 500]))
        width = tuple(int(w) for w in rng.choice([1, 3, 4, 8, 64], int(rng.integers(0, 3))))
        n = int(rng.integers(1, 40))
        ids = rng.integers(-2 if trial % 3 == 0 else 0, n, count)
        dtype = rng.choice([np.float16, np.float32, np.float64, np.int32, np.int64])
        data = rng.standard_normal((count,) + width) * 100
        if trial % 2:
            data = _sprinkle(rng, data)
        if trial % 7 == 0:
            data = -np.zeros_like(data)  # segments of -0.0 sum to +0.0 (from +0.0)
        with np.errstate(all="ignore"):
            data = data.astype(dtype) if np.dtype(dtype).kind == "f" else \
                data.astype(np.int64).astype(dtype)
            want = old_unsorted_segment_sum(data, ids, n)
        got = _unsorted_segment_sum_kernel(data, ids.astype(np.int32), np.int32(n))
        assert same_bits(want, got), (dtype, count, width, n)


def test_unsorted_segment_sum_long_segments_take_the_bincount():
    # one segment of 200 rows: more steps than the sorted sum takes, same bits anyway
    rng = np.random.default_rng(3)
    data = rng.standard_normal((300, 8)).astype(np.float32)
    ids = np.r_[np.zeros(200, np.int64), rng.integers(0, 5, 100)]
    assert same_bits(old_unsorted_segment_sum(data, ids, 5),
                     _unsorted_segment_sum_kernel(data, ids, 5))


# ── BatchMatMulV2 ──────────────────────────────────────────────────────────────────
def _one_thread_matmul(x, y):
    """``np.matmul`` with OpenBLAS on one thread (what the kernel computes, as MatMul's
    gemm): OpenBLAS's own threading changes the rounding of some float64 products."""
    set_threads, get_threads = blas._BLAS_THREADS
    with blas._BLAS_LOCK:
        before = get_threads()
        set_threads(1)
        try:
            return np.matmul(x, y)
        finally:
            set_threads(before)


@pytest.mark.skipif(blas._BLAS_THREADS is None, reason="NumPy's OpenBLAS not found")
def test_batch_matmul_matches_one_thread_openblas():
    rng = np.random.default_rng(4)
    shapes = [((8, 96, 96), (8, 96, 96)), ((4, 1, 100, 70), (3, 70, 90)),
              ((2, 3, 64, 80), (80, 64)), ((64, 80), (2, 3, 80, 64)), ((300, 200), (200, 300)),
              ((0, 70, 70), (0, 70, 70)), ((5, 100, 0), (5, 0, 100)), ((9, 129, 1), (9, 1, 131)),
              ((3, 2, 2), (3, 2, 2))]
    for dtype in (np.float32, np.float64, np.float16, np.complex64, np.int32):
        for sx, sy in shapes:
            for adj_x, adj_y in ((False, False), (True, False), (False, True)):
                x = _sprinkle(rng, rng.standard_normal(sx) * 3, 0.01)
                y = rng.standard_normal(sy) * 3
                if np.dtype(dtype).kind == "c":
                    x, y = x + 1j * rng.standard_normal(sx), y + 1j * rng.standard_normal(sy)
                with np.errstate(all="ignore"):
                    x, y = x.astype(dtype), y.astype(dtype)
                xa = np.conj(np.swapaxes(x, -1, -2)) if adj_x else x
                ya = np.conj(np.swapaxes(y, -1, -2)) if adj_y else y
                got = _batch_matmul_kernel(xa, ya, adj_x=adj_x, adj_y=adj_y)
                with np.errstate(all="ignore"):
                    assert same_bits(_one_thread_matmul(x, y), got), (dtype, sx, sy, adj_x)


def test_batch_matmul_shape_errors():
    for sx, sy in (((3, 4, 5), (3, 6, 7)), ((2, 4, 5), (3, 5, 7))):
        with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible"):
            _batch_matmul_kernel(np.ones(sx), np.ones(sy), adj_x=False, adj_y=False)


# ── the ops against TF ─────────────────────────────────────────────────────────────
def _ours():
    rng = np.random.default_rng(5)
    img = rng.uniform(0, 1, (2, 9, 11, 3)).astype(np.float32)
    x = np.array([1.0, -2.0, 0.0, np.inf, 3.0, -0.0, np.nan], np.float32)
    y = np.array([0.0, -0.0, 0.0, 0.0, np.inf, 2.0, 1.0], np.float32)
    a = rng.standard_normal((3, 40, 30)).astype(np.float32)
    b = rng.standard_normal((3, 30, 20)).astype(np.float32)
    tf.reset_default_graph()
    pi = tf.placeholder(tf.float32, img.shape)
    sobel = tf.image.sobel_edges(pi)
    patches = tf.extract_image_patches(pi, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    pad = tf.pad(pi, [[0, 0], [2, 1], [0, 3], [0, 0]], mode="SYMMETRIC")
    fetches = {
        "sobel_grad": tf.gradients(tf.reduce_sum(sobel * sobel), pi)[0],
        "patches_grad": tf.gradients(tf.reduce_sum(patches * patches), pi)[0],
        "pad_grad": tf.gradients(tf.reduce_sum(pad * pad), pi)[0],
        "div": tf.math.divide_no_nan(x, y),
        "matmul": tf.matmul(a, b, adjoint_b=False),
    }
    with tf.Session() as sess:
        out = sess.run(fetches, {pi: img})
    return {k: np.asarray(v) for k, v in out.items()}, (img, x, y, a, b)


TF_CODE = """
tf.disable_v2_behavior()
rng = np.random.default_rng(5)
img = rng.uniform(0, 1, (2, 9, 11, 3)).astype(np.float32)
x = np.array([1.0, -2.0, 0.0, np.inf, 3.0, -0.0, np.nan], np.float32)
y = np.array([0.0, -0.0, 0.0, 0.0, np.inf, 2.0, 1.0], np.float32)
a = rng.standard_normal((3, 40, 30)).astype(np.float32)
b = rng.standard_normal((3, 30, 20)).astype(np.float32)
pi = tf.placeholder(tf.float32, img.shape)
sobel = tf.image.sobel_edges(pi)
patches = tf.extract_image_patches(pi, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
pad = tf.pad(pi, [[0, 0], [2, 1], [0, 3], [0, 0]], mode="SYMMETRIC")
fetches = {
    "sobel_grad": tf.gradients(tf.reduce_sum(sobel * sobel), pi)[0],
    "patches_grad": tf.gradients(tf.reduce_sum(patches * patches), pi)[0],
    "pad_grad": tf.gradients(tf.reduce_sum(pad * pad), pi)[0],
    "div": tf.math.divide_no_nan(x, y),
    "matmul": tf.matmul(a, b),
}
with tf.Session() as sess:
    out = sess.run(fetches, {pi: img})
print(json.dumps({k: np.asarray(v).astype(np.float64).tolist() for k, v in out.items()}))
"""


def test_against_tf(tf1):
    ours, _ = _ours()
    theirs = tf1(TF_CODE)
    for key, got in ours.items():
        want = np.asarray(theirs[key], np.float64)
        assert got.shape == want.shape, key
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-5, atol=2e-5,
                                   err_msg=key)
    # DivNoNan: 0 for any zero divisor (0/0, inf/0 and -0.0 included), NaN / 1 stays NaN
    np.testing.assert_array_equal(ours["div"][:4], 0.0)
    assert np.isnan(ours["div"][6]) and np.isnan(theirs["div"][6])
