"""Op-table rows for the math ops (the families scopeflow/ops/math_ops.py re-exports)."""

from __future__ import annotations

import math
import statistics

import numpy as np

from .op_table import OpCase, rand

f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64


def _a(values, dtype):
    return np.array(values, dtype=dtype)


def _pos(*shape, dtype=f32):
    return rand(*shape, dtype=dtype, low=0.1, high=3.0)


def _bools(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).random(shape) > 0.5


def _ints(*shape, low=-5, high=6, dtype=i32, seed=0):
    return np.random.default_rng(seed + sum(shape)).integers(low, high, shape).astype(dtype)


def _nonzero_ints(*shape, dtype=i32, seed=1):
    x = _ints(*shape, dtype=dtype, seed=seed)
    return np.where(x == 0, 3, x).astype(dtype)


def _trunc_div(x, y):
    return (np.trunc(x / y)).astype(x.dtype)


def _int_mean(x, axis=None, keepdims=False):
    s = np.sum(x, axis=axis, dtype=np.int64, keepdims=keepdims)
    n = x.size // max(np.size(s), 1)
    return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)


def _sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(f64)))).astype(x.dtype)


def _select_ref(c, t, e):
    return np.where(c.reshape(c.shape + (1,) * (t.ndim - c.ndim)) if c.ndim else c, t, e)


def _adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _away(*shape, dtype=f32, seed=0):
    """Values in [-2, -0.3] U [0.3, 2]: away from the kinks at 0 (Abs, Sign)."""
    x = rand(*shape, dtype=dtype, seed=seed, low=0.3, high=2.0)
    signs = np.where(np.random.default_rng(seed + 11).random(shape) > 0.5, 1, -1)
    return (x * signs).astype(dtype)


def _distinct(*shape, dtype=f32, seed=0):
    """Values whose pairwise gaps exceed 0.05 (no ties for max/min/clip kinks)."""
    n = int(np.prod(shape))
    vals = np.random.default_rng(seed + n).permutation(n) * 0.1 - 0.05 * n + 0.025
    return vals.reshape(shape).astype(dtype)


def _segment_ref(data, ids, n):
    out = np.zeros((n,) + data.shape[ids.ndim:], data.dtype)
    for i in np.ndindex(ids.shape):
        if ids[i] >= 0:
            out[ids[i]] += data[i]
    return out


ROWS = [
    # ── elementwise binary ──────────────────────────────────────────────────────────
    OpCase("AddV2", lambda tf, x, y: tf.add(x, y), np.add, [rand(2, 3), rand(3)]),
    OpCase("AddV2", lambda tf, x, y: x + y, np.add, [rand(4, 1), rand(1, 5)],
           id="AddV2-operator-broadcast"),
    OpCase("AddV2", lambda tf, x: x + 1, lambda x: x + 1, [_ints(3, 2)], id="AddV2-int-scalar"),
    OpCase("AddV2", lambda tf, x: 2.5 + x, lambda x: 2.5 + x, [rand(3, dtype=f64)],
           id="AddV2-radd-f64"),
    OpCase("Sub", lambda tf, x, y: tf.subtract(x, y), np.subtract, [rand(2, 3), rand(2, 1)]),
    OpCase("Sub", lambda tf, x: 1 - x, lambda x: 1 - x, [_ints(4, dtype=i64)], id="Sub-rsub"),
    OpCase("Mul", lambda tf, x, y: x * y, np.multiply, [rand(3, 1, 2), rand(4, 2)]),
    OpCase("Mul", lambda tf, x: tf.scalar_mul(3, x), lambda x: 3 * x, [_ints(5)],
           id="Mul-scalar_mul"),
    OpCase("Mul", lambda tf, x: x * 1.0, lambda x: x,
           [_a([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-45, -3.5], f32)], id="Mul-by-one",
           check_grad=False),  # (special values; Mul's gradient has rows above)
    OpCase("RealDiv", lambda tf, x, y: x / y, np.divide, [rand(2, 3), _pos(3)]),
    OpCase("RealDiv", lambda tf, x, y: x / y,
           lambda x, y: x.astype(f64) / y.astype(f64), [_ints(2, 3), _nonzero_ints(2, 3)],
           id="RealDiv-truediv-int32-to-float64"),
    OpCase("RealDiv", lambda tf, x, y: tf.truediv(x, y),
           lambda x, y: x.astype(f32) / y.astype(f32),
           [_ints(4, dtype=np.int16), _nonzero_ints(4, dtype=np.int16)],
           id="RealDiv-truediv-int16-to-float32"),
    OpCase("RealDiv", lambda tf, x, y: tf.realdiv(x, y), _trunc_div,
           [_a([-7, 7, -7, 7, 6], i32), _a([2, 2, -2, -2, 3], i32)], id="RealDiv-int-truncates"),
    OpCase("RealDiv", lambda tf, x, y: tf.div(x, y), np.divide, [rand(3), _pos(3)],
           id="RealDiv-div-float"),
    OpCase("FloorDiv", lambda tf, x, y: tf.div(x, y), np.floor_divide,
           [_a([-7, 7, -7, 7], i32), _a([2, 2, -2, -2], i32)], id="FloorDiv-div-int"),
    OpCase("FloorDiv", lambda tf, x, y: x // y, np.floor_divide, [rand(2, 3), _pos(3)]),
    OpCase("FloorDiv", lambda tf, x, y: tf.floordiv(x, y), np.floor_divide,
           [_ints(3, 4, dtype=i64), _nonzero_ints(4, dtype=i64)], id="FloorDiv-int64"),
    OpCase("FloorMod", lambda tf, x, y: x % y, np.mod,
           [_a([-7, 7, -7, 7], i32), _a([3, 3, -3, -3], i32)]),
    OpCase("FloorMod", lambda tf, x, y: tf.mod(x, y), np.mod, [rand(2, 3), _pos(2, 3)],
           id="FloorMod-float"),
    OpCase("FloorDiv", lambda tf, x, y: tf.floor_div(x, y), np.floor_divide,
           [_a([-7, 7, -7, 7], i32), _a([2, 2, -2, -2], i32)], id="FloorDiv-floor_div"),
    OpCase("TruncateDiv", lambda tf, x, y: tf.truncatediv(x, y), _trunc_div,
           [_a([-7, 7, -7, 7, 0], i32), _a([2, 2, -2, -2, 5], i32)]),
    OpCase("TruncateDiv", lambda tf, x, y: tf.truncatediv(x, y), _trunc_div,
           [_ints(3, 4, dtype=i64), _nonzero_ints(4, dtype=i64)], id="TruncateDiv-int64"),
    OpCase("TruncateDiv", lambda tf, x, y: tf.truncatediv(x, y),
           lambda x, y: np.trunc(x / y), [rand(2, 3), _pos(3)], id="TruncateDiv-float"),
    OpCase("TruncateMod", lambda tf, x, y: tf.truncatemod(x, y), np.fmod,
           [_a([-7, 7, -7, 7], i32), _a([3, 3, -3, -3], i32)]),
    OpCase("TruncateMod", lambda tf, x, y: tf.truncatemod(x, y), np.fmod,
           [rand(2, 3), _pos(3)], id="TruncateMod-float"),
    OpCase("Pow", lambda tf, x, y: x ** y, np.power, [_pos(2, 3), rand(3)]),
    OpCase("Pow", lambda tf, x: tf.pow(x, 3), lambda x: x ** 3, [_ints(5)], id="Pow-int"),
    OpCase("Pow", lambda tf, x: 2.0 ** x, lambda x: np.float32(2.0) ** x, [rand(4)],
           id="Pow-rpow"),
    OpCase("Pow", lambda tf, x, y: tf.pow(x, y), np.power,
           [_a([0.0, 0.0, 1.5, 0.7], f32), _a([2.0, 3.0, 2.5, -1.5], f32)], id="Pow-x-zero"),
    OpCase("Pow", lambda tf, x, y: tf.pow(x, y), np.power, [_pos(3, 1), rand(1, 2, seed=3)],
           id="Pow-broadcast-both"),
    OpCase("RealDiv", lambda tf, x, y: tf.divide(x, y), np.divide, [rand(3, 1), _pos(1, 4)],
           id="RealDiv-broadcast-both"),
    OpCase("Maximum", lambda tf, x, y: tf.maximum(x, y), np.maximum, [rand(2, 3), rand(3)]),
    OpCase("Maximum", lambda tf, x, y: tf.maximum(x, y), np.maximum,
           [_distinct(3, 1), _distinct(1, 4, seed=2) + 0.01], id="Maximum-broadcast-both"),
    OpCase("Maximum", lambda tf, x: tf.maximum(x, 0), lambda x: np.maximum(x, 0), [_ints(6)],
           id="Maximum-int-scalar"),
    OpCase("Minimum", lambda tf, x, y: tf.minimum(x, y), np.minimum, [rand(2, 3), rand(2, 1)]),
    OpCase("Minimum", lambda tf, x, y: tf.minimum(x, y), np.minimum,
           [_distinct(4), _distinct(2, 1, seed=3) + 0.01], id="Minimum-broadcast-both"),
    OpCase("Minimum", lambda tf, x: tf.clip_by_value(x, -0.5, 0.5),
           lambda x: np.clip(x, -0.5, 0.5), [rand(3, 4)], id="Minimum-clip_by_value"),
    OpCase("Maximum", lambda tf, x: tf.clip_by_value(x, -2, 2), lambda x: np.clip(x, -2, 2),
           [_ints(7)], id="Maximum-clip_by_value-int"),
    OpCase("ClipByValue", lambda tf, x: tf.saturate_cast(x * 100, tf.uint8),
           lambda x: np.clip(x * 100, 0, 255).astype(np.uint8), [rand(10)]),
    OpCase("ClipByValue", lambda tf, x, lo, hi: tf.math_ops.clip_by_value_op.bind(x, lo, hi),
           np.clip, [_distinct(3, 4), _a(-0.33, f32), _a(0.41, f32)],
           id="ClipByValue-scalar-bounds"),
    OpCase("ClipByValue", lambda tf, x, lo, hi: tf.math_ops.clip_by_value_op.bind(x, lo, hi),
           np.clip, [_distinct(2, 3), _distinct(2, 3, seed=1) - 0.51,
                     _distinct(2, 3, seed=2) + 0.47], id="ClipByValue-elementwise-bounds"),
    OpCase("SquaredDifference", lambda tf, x, y: tf.squared_difference(x, y),
           lambda x, y: (x - y) ** 2, [rand(2, 3), rand(3)]),
    OpCase("SquaredDifference", lambda tf, x, y: tf.squared_difference(x, y),
           lambda x, y: (x - y) ** 2, [rand(3, 1), rand(1, 2)], id="SquaredDifference-both"),
    OpCase("AddN", lambda tf, x, y, z: tf.add_n([x, y, z]), lambda x, y, z: x + y + z,
           [rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)]),
    OpCase("AddN", lambda tf, x, y: tf.add_n([x, y]), np.add, [_ints(4), _ints(4, seed=3)],
           id="AddN-int"),
    # ── elementwise unary ───────────────────────────────────────────────────────────
    OpCase("Neg", lambda tf, x: -x, np.negative, [rand(2, 3)]),
    OpCase("Neg", lambda tf, x: tf.negative(x), np.negative, [_ints(5)], id="Neg-int"),
    OpCase("Abs", lambda tf, x: abs(x), np.abs, [_away(2, 3)]),
    OpCase("Abs", lambda tf, x: tf.abs(x), np.abs, [_ints(5, dtype=i64)], id="Abs-int64"),
    OpCase("Sign", lambda tf, x: tf.sign(x), np.sign, [_a([-2.0, 0.0, 3.5], f32)],
           check_grad=False),
    OpCase("Sign", lambda tf, x: tf.sign(x) * x, lambda x: np.sign(x) * x, [_away(2, 3)],
           id="Sign-grad-away-from-0"),
    OpCase("Sign", lambda tf, x: tf.sign(x), np.sign, [_ints(6)], id="Sign-int"),
    OpCase("Square", lambda tf, x: tf.square(x), np.square, [rand(2, 3)]),
    OpCase("Square", lambda tf, x: tf.square(x), np.square, [_ints(4)], id="Square-int"),
    OpCase("Reciprocal", lambda tf, x: tf.reciprocal(x), np.reciprocal, [_pos(3, 2)]),
    OpCase("Sqrt", lambda tf, x: tf.sqrt(x), np.sqrt, [_pos(2, 3)]),
    OpCase("Sqrt", lambda tf, x: tf.sqrt(x), np.sqrt, [_pos(4, dtype=f64)], id="Sqrt-f64"),
    OpCase("Rsqrt", lambda tf, x: tf.rsqrt(x), lambda x: 1 / np.sqrt(x), [_pos(2, 3)],
           rtol=1e-5),
    OpCase("Exp", lambda tf, x: tf.exp(x), np.exp, [rand(2, 3)], rtol=1e-5),
    OpCase("Exp", lambda tf, x: tf.exp(x), np.exp, [rand(3, dtype=np.float16)], rtol=1e-3,
           id="Exp-f16"),
    OpCase("Log", lambda tf, x: tf.log(x), np.log, [_pos(2, 3)], rtol=1e-5),
    OpCase("Log1p", lambda tf, x: tf.log1p(x), np.log1p, [_pos(2, 3)], rtol=1e-5),
    OpCase("Sin", lambda tf, x: tf.sin(x), np.sin, [rand(2, 3)], rtol=1e-5),
    OpCase("Cos", lambda tf, x: tf.cos(x), np.cos, [rand(2, 3)], rtol=1e-5),
    OpCase("Tanh", lambda tf, x: tf.tanh(x), np.tanh, [rand(2, 3)], rtol=1e-5),
    OpCase("Sigmoid", lambda tf, x: tf.sigmoid(x), _sigmoid,
           [_a([-100, -20, -1, 0, 1, 20, 100], f32)], rtol=1e-5),
    OpCase("Sigmoid", lambda tf, x: tf.sigmoid(x), _sigmoid, [rand(3, 4, dtype=f64)],
           rtol=1e-12, id="Sigmoid-f64"),
    OpCase("Round", lambda tf, x: tf.round(x), np.round,
           [_a([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6], f32)]),
    OpCase("Floor", lambda tf, x: tf.floor(x), np.floor, [rand(2, 3)]),
    OpCase("Ceil", lambda tf, x: tf.ceil(x), np.ceil, [rand(2, 3)]),
    OpCase("Conj", lambda tf, x: tf.conj(x), np.conj,
           [(rand(3) + 1j * rand(3, seed=4)).astype(np.complex64)]),
    # ── comparisons and logic ───────────────────────────────────────────────────────
    OpCase("Less", lambda tf, x, y: x < y, np.less, [rand(2, 3), rand(3)]),
    OpCase("LessEqual", lambda tf, x, y: tf.less_equal(x, y), np.less_equal,
           [_ints(2, 3), _ints(3, seed=5)]),
    OpCase("Greater", lambda tf, x: x > 0, lambda x: x > 0, [rand(4)]),
    OpCase("GreaterEqual", lambda tf, x, y: x >= y, np.greater_equal, [rand(2, 3), rand(2, 1)]),
    OpCase("Equal", lambda tf, x, y: tf.equal(x, y), np.equal, [_ints(3, 4), _ints(4, seed=2)]),
    OpCase("Equal", lambda tf, x, y: tf.equal(x, y), np.equal, [_bools(5), _bools(5, seed=3)],
           id="Equal-bool"),
    OpCase("NotEqual", lambda tf, x: tf.not_equal(x, 1.0), lambda x: x != 1.0,
           [_a([1.0, 2.0, np.nan], f32)]),
    OpCase("LogicalAnd", lambda tf, x, y: x & y, np.logical_and, [_bools(2, 3), _bools(3)]),
    OpCase("LogicalOr", lambda tf, x, y: tf.logical_or(x, y), np.logical_or,
           [_bools(4), _bools(4, seed=7)]),
    OpCase("LogicalNot", lambda tf, x: ~x, np.logical_not, [_bools(5)]),
    OpCase("IsNan", lambda tf, x: tf.is_nan(x), np.isnan,
           [_a([1.0, np.nan, np.inf, -np.inf, 0.0], f32)]),
    OpCase("IsInf", lambda tf, x: tf.is_inf(x), np.isinf,
           [_a([1.0, np.nan, np.inf, -np.inf, 0.0], np.float64)]),
    OpCase("IsFinite", lambda tf, x: tf.math.is_finite(x), np.isfinite,
           [_a([1.0, np.nan, np.inf, -np.inf, 0.0], np.float16)]),
    OpCase("LogicalAnd", lambda tf, x, y: x ^ y, np.logical_xor, [_bools(6), _bools(6, seed=9)],
           id="LogicalAnd-xor"),
    OpCase("Select", lambda tf, c, x, y: tf.where(c, x, y), _select_ref,
           [_bools(2, 3), rand(2, 3), rand(2, 3, seed=1)]),
    OpCase("Select", lambda tf, c, x, y: tf.where(c, x, y), _select_ref,
           [_bools(2), _ints(2, 3), _ints(2, 3, seed=1)], id="Select-vector-condition"),
    OpCase("Select", lambda tf, c, x, y: tf.where(c, x, y), _select_ref,
           [np.array(True), rand(3), rand(3, seed=1)], id="Select-scalar-condition"),
    OpCase("Select", lambda tf, c, x, y: tf.where(c, x, y), _select_ref,
           [_a([True, False, True], bool), rand(3, 2), rand(3, 2, seed=1)],
           id="Select-vector-condition-float"),
    OpCase("Where", lambda tf, c: tf.where(c), lambda c: np.argwhere(c), [_bools(3, 4)]),
    OpCase("Where", lambda tf, x: tf.where(x), lambda x: np.argwhere(x), [_ints(2, 2, 3)],
           id="Where-int-input"),
    # ── reductions ──────────────────────────────────────────────────────────────────
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x), lambda x: np.sum(x), [rand(2, 3)], rtol=1e-5),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, 1), lambda x: np.sum(x, 1), [rand(2, 3)],
           rtol=1e-5, id="Sum-axis1"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, -1, keepdims=True),
           lambda x: np.sum(x, -1, keepdims=True), [rand(2, 3, 4)], rtol=1e-5,
           id="Sum-neg-axis-keepdims"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, [0, 2]), lambda x: np.sum(x, (0, 2)),
           [rand(2, 3, 4)], rtol=1e-5, id="Sum-axis-list"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, reduction_indices=[1], keep_dims=True),
           lambda x: np.sum(x, 1, keepdims=True), [_ints(3, 4)], id="Sum-tf1-aliases-int"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, keepdims=True),
           lambda x: np.sum(x, keepdims=True), [rand(2, 3)], rtol=1e-5, id="Sum-all-keepdims"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x, 0), lambda x: np.sum(x, 0, dtype=f32)
           .astype(np.float16), [rand(8, 2, dtype=np.float16)], rtol=1e-3, atol=1e-3,
           id="Sum-f16"),
    OpCase("Sum", lambda tf, x: tf.reduce_sum(x), lambda x: np.sum(x), [rand(dtype=f32)],
           id="Sum-scalar-input"),
    OpCase("Mean", lambda tf, x: tf.reduce_mean(x, 0), lambda x: np.mean(x, 0), [rand(4, 3)],
           rtol=1e-5),
    OpCase("Mean", lambda tf, x: tf.reduce_mean(x, [0, -1], keepdims=True),
           lambda x: np.mean(x, (0, 2), keepdims=True), [rand(2, 3, 4)], rtol=1e-5,
           id="Mean-axes-keepdims"),
    OpCase("Mean", lambda tf, x: tf.reduce_mean(x), lambda x: np.mean(x), [rand(3, 2)],
           rtol=1e-5, id="Mean-all"),
    OpCase("Mean", lambda tf, x: tf.reduce_mean(x, 1), lambda x: _int_mean(x, 1),
           [_a([[-3, -4], [5, 6], [1, 2]], i32)], id="Mean-int-truncates"),
    OpCase("Mean", lambda tf, x: tf.reduce_mean(x), lambda x: _int_mean(x),
           [_a([2**30, 2**30, 2**30], i32)], id="Mean-int-no-overflow"),
    OpCase("Max", lambda tf, x: tf.reduce_max(x, 1), lambda x: np.max(x, 1), [rand(3, 4)]),
    OpCase("Max", lambda tf, x: tf.reduce_max(x), lambda x: np.max(x), [_ints(3, 4)],
           id="Max-int-all"),
    OpCase("Min", lambda tf, x: tf.reduce_min(x, [0, 1], keepdims=True),
           lambda x: np.min(x, (0, 1), keepdims=True), [rand(2, 3, 2)]),
    OpCase("Prod", lambda tf, x: tf.reduce_prod(x, -1), lambda x: np.prod(x, -1), [rand(2, 3)],
           rtol=1e-5),
    OpCase("Prod", lambda tf, x: tf.reduce_prod(x, 1, keepdims=True),
           lambda x: np.prod(x, 1, keepdims=True),
           [_a([[0.0, 2.0, 3.0], [1.5, 0.0, 0.0], [1.0, -2.0, 3.0], [0.0, 0.5, 0.0]], f32)],
           id="Prod-zeros"),
    OpCase("Prod", lambda tf, x: tf.reduce_prod(x, [0, 2]), lambda x: np.prod(x, (0, 2)),
           [rand(2, 3, 2)], rtol=1e-5, id="Prod-axis-list"),
    OpCase("Max", lambda tf, x: tf.reduce_max(x, [0, 2], keepdims=True),
           lambda x: np.max(x, (0, 2), keepdims=True), [_distinct(2, 3, 2)],
           id="Max-axes-keepdims"),
    OpCase("Min", lambda tf, x: tf.reduce_min(x), lambda x: np.min(x), [_distinct(3, 2)],
           id="Min-all"),
    OpCase("Prod", lambda tf, x: tf.reduce_prod(x), lambda x: np.prod(x, dtype=i32),
           [_ints(2, 2, low=1, high=4)], id="Prod-int"),
    OpCase("All", lambda tf, x: tf.reduce_all(x, 1), lambda x: np.all(x, 1), [_bools(3, 2)]),
    OpCase("Any", lambda tf, x: tf.reduce_any(x), lambda x: np.any(x), [_bools(3, 2)]),
    OpCase("Max", lambda tf, x: tf.reduce_logsumexp(x, 1),
           lambda x: np.log(np.sum(np.exp(x.astype(f64)), 1)).astype(f32), [rand(3, 4)],
           rtol=1e-5, id="Max-reduce_logsumexp"),
    OpCase("ArgMax", lambda tf, x: tf.argmax(x, 1), lambda x: np.argmax(x, 1), [rand(3, 4)]),
    OpCase("ArgMax", lambda tf, x: tf.argmax(x), lambda x: np.argmax(x, 0), [rand(3, 4)],
           id="ArgMax-default-axis0"),
    OpCase("ArgMax", lambda tf, x: tf.argmax(x, -1, output_type=tf.int32),
           lambda x: np.argmax(x, -1).astype(i32), [_ints(2, 5)], id="ArgMax-int32-output"),
    OpCase("ArgMin", lambda tf, x: tf.argmin(x, dimension=0), lambda x: np.argmin(x, 0),
           [rand(3, 4)]),
    OpCase("ArgMax", lambda tf, x: tf.arg_max(x, 1), lambda x: np.argmax(x, 1), [rand(3, 4)],
           id="ArgMax-arg_max"),
    OpCase("ArgMin", lambda tf, x: tf.arg_min(x, dimension=-1, output_type=tf.int32),
           lambda x: np.argmin(x, -1).astype(i32), [rand(3, 4)], id="ArgMin-arg_min"),
    # ── linear algebra ──────────────────────────────────────────────────────────────
    OpCase("MatMul", lambda tf, a, b: tf.matmul(a, b), np.matmul, [rand(2, 3), rand(3, 4)],
           rtol=1e-5),
    OpCase("MatMul", lambda tf, a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
           lambda a, b: a.T @ b.T, [rand(3, 2), rand(4, 3)], rtol=1e-5, id="MatMul-transposes"),
    OpCase("MatMul", lambda tf, a, b: a @ b, np.matmul, [_ints(2, 3), _ints(3, 2, seed=1)],
           id="MatMul-int-operator"),
    OpCase("MatMul", lambda tf, a, b: tf.matmul(a, b, transpose_a=True),
           lambda a, b: a.T @ b, [rand(3, 2), rand(3, 4)], rtol=1e-5, id="MatMul-transpose_a"),
    OpCase("MatMul", lambda tf, a, b: tf.matmul(a, b, transpose_b=True),
           lambda a, b: a @ b.T, [rand(2, 3), rand(4, 3)], rtol=1e-5, id="MatMul-transpose_b"),
    OpCase("MatMul", lambda tf, a, b: tf.matmul(a, b, adjoint_b=True),
           lambda a, b: a @ _adj(b), [rand(2, 3), rand(4, 3)], rtol=1e-5, id="MatMul-adjoint"),
    OpCase("MatMul", lambda tf, a, b: tf.tensordot(a, b, 1), np.matmul,
           [rand(2, 3), rand(3, 4)], rtol=1e-5, id="MatMul-tensordot-1"),
    OpCase("MatMul", lambda tf, a, b: tf.tensordot(a, b, [[1, 0], [0, 2]]),
           lambda a, b: np.tensordot(a, b, [[1, 0], [0, 2]]), [rand(2, 3, 4), rand(3, 5, 2)],
           rtol=1e-5, id="MatMul-tensordot-lists"),
    OpCase("MatMul", lambda tf, a, b: tf.tensordot(a, b, 0),
           lambda a, b: np.tensordot(a, b, 0), [rand(2), rand(3)], id="MatMul-tensordot-outer"),
    OpCase("BatchMatMulV2", lambda tf, a, b: tf.matmul(a, b), np.matmul,
           [rand(5, 2, 3), rand(3, 4)], rtol=1e-5),
    OpCase("BatchMatMulV2", lambda tf, a, b: tf.matmul(a, b), np.matmul,
           [rand(4, 1, 2, 3), rand(5, 3, 6)], rtol=1e-5, id="BatchMatMulV2-broadcast-batch"),
    OpCase("BatchMatMulV2", lambda tf, a, b: tf.matmul(a, b, transpose_a=True, adjoint_b=True),
           lambda a, b: _adj(a) @ _adj(b), [rand(3, 4, 2), rand(3, 5, 4)], rtol=1e-5,
           id="BatchMatMulV2-adjoints"),
    # ── casts and sequences ─────────────────────────────────────────────────────────
    OpCase("Cast", lambda tf, x: tf.cast(x, tf.int32), lambda x: np.trunc(x).astype(i32),
           [_a([-1.7, 1.7, 2.5, -0.5, 0.0], f32)]),
    OpCase("Cast", lambda tf, x: tf.to_float(x), lambda x: x.astype(f32), [_ints(2, 3)],
           id="Cast-to_float"),
    OpCase("Cast", lambda tf, x: tf.cast(x, tf.float32), lambda x: x.astype(f32), [_bools(4)],
           id="Cast-bool-to-float"),
    OpCase("Cast", lambda tf, x: tf.cast(x, tf.bool), lambda x: x != 0,
           [_a([0.0, 0.5, -1.0], f32)], id="Cast-float-to-bool"),
    OpCase("Cast", lambda tf, x: tf.to_int64(x), lambda x: x.astype(i64), [rand(3, dtype=f64)],
           id="Cast-to_int64"),
    OpCase("Cast", lambda tf, x: tf.cast(x, tf.float64) * 2.0, lambda x: x.astype(f64) * 2,
           [rand(2, 3)], id="Cast-float-to-float"),
    # ── segments ────────────────────────────────────────────────────────────────────
    OpCase("UnsortedSegmentSum", lambda tf, d, i: tf.math.unsorted_segment_sum(d, i, 4),
           lambda d, i: _segment_ref(d, i, 4), [rand(6, 3), _a([0, 3, 0, -1, 2, 3], i32)],
           rtol=1e-5),
    OpCase("UnsortedSegmentSum", lambda tf, d, i: tf.unsorted_segment_sum(d, i, 3),
           lambda d, i: _segment_ref(d, i, 3), [rand(2, 3, dtype=f64), _a([[2, 0, 2], [1, 1, 0]],
                                                                          i64)],
           id="UnsortedSegmentSum-2d-ids"),
    OpCase("UnsortedSegmentSum", lambda tf, d, i: tf.unsorted_segment_sum(d, i, 2),
           lambda d, i: _segment_ref(d, i, 2), [_ints(5, 2), _a([1, 1, 0, 1, -3], i32)],
           id="UnsortedSegmentSum-int"),
    OpCase("UnsortedSegmentSum", lambda tf, d, i: tf.unsorted_segment_sum(d, i, 3),
           lambda d, i: _segment_ref(d, i, 3),
           [(rand(4) + 1j * rand(4, seed=2)).astype(np.complex64), _a([2, 0, 2, 1], i32)],
           rtol=1e-5, id="UnsortedSegmentSum-complex"),
    OpCase("Range", lambda tf: tf.range(1, 10, 3), lambda: np.arange(1, 10, 3, dtype=i32)),
    OpCase("Range", lambda tf: tf.range(0.0, 1.0, 0.3),
           lambda: np.arange(4, dtype=f32) * f32(0.3), id="Range-float"),
    OpCase("Range", lambda tf: tf.range(5, 1, -1), lambda: np.arange(5, 1, -1, dtype=i32),
           id="Range-negative-delta"),
    OpCase("LinSpace", lambda tf: tf.array_ops.lin_space_op.bind(-1.0, 2.0, 4),
           lambda: np.array([-1, 0, 1, 2], f32)),
]

ROWS += [
    OpCase("SelectV2", lambda tf, c, x, y: tf.where_v2(c, x, y),
           lambda c, x, y: np.where(c, x, y),
           [np.array([[True], [False]]), rand(2, 3), rand(3, seed=3)], id="SelectV2-broadcast"),
    OpCase("DivNoNan", lambda tf, x, y: tf.div_no_nan(x, y),
           lambda x, y: np.where(y != 0, x / np.where(y != 0, y, 1), 0).astype(np.float32),
           [rand(2, 3), np.array([1.5, 0.0, -2.0], np.float32)], check_grad=False,
           id="DivNoNan-zero"),
    OpCase("DivNoNan", lambda tf, x, y: tf.div_no_nan(x, y), lambda x, y: x / y,
           [rand(2, 3), rand(3, low=1.0, high=2.0, seed=5)], id="DivNoNan"),
]

# Scans (Cumsum, Cumprod, CumulativeLogsumexp), EuclideanNorm and HistogramFixedWidth.
_SCAN_X = rand(3, 4, seed=11)


def _scan_ref(fn, identity, axis, exclusive=False, reverse=False):
    def ref(x):
        y = np.flip(x, axis) if reverse else x
        out = fn(y, axis=axis).astype(x.dtype)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis), identity),
                                  np.take(out, range(x.shape[axis] - 1), axis)], axis)
        return np.flip(out, axis) if reverse else out
    return ref


def _logcumsumexp(x, axis):
    return np.logaddexp.accumulate(x, axis=axis)


ROWS += [
    OpCase("Cumsum", lambda tf, x: tf.cumsum(x, 1), _scan_ref(np.cumsum, 0, 1), [_SCAN_X]),
    OpCase("Cumsum", lambda tf, x: tf.math.cumsum(x, 0, exclusive=True, reverse=True),
           _scan_ref(np.cumsum, 0, 0, True, True), [_SCAN_X], id="Cumsum-exclusive-reverse"),
    OpCase("Cumsum", lambda tf, x: tf.cumsum(x, -1, exclusive=True),
           _scan_ref(np.cumsum, 0, 1, True), [_a([[1, 2, 3], [4, 5, 6]], i64)],
           id="Cumsum-int64"),
    OpCase("Cumprod", lambda tf, x: tf.cumprod(x, 1), _scan_ref(np.cumprod, 1, 1),
           [_pos(3, 4)], rtol=1e-5),
    OpCase("Cumprod", lambda tf, x: tf.math.cumprod(x, 0, exclusive=True, reverse=True),
           _scan_ref(np.cumprod, 1, 0, True, True), [_pos(3, 4)], rtol=1e-5,
           id="Cumprod-exclusive-reverse"),
    OpCase("CumulativeLogsumexp", lambda tf, x: tf.math.cumulative_logsumexp(x, 1),
           _scan_ref(_logcumsumexp, -np.inf, 1), [_SCAN_X], rtol=1e-5),
    OpCase("CumulativeLogsumexp",
           lambda tf, x: tf.math.cumulative_logsumexp(x, 0, exclusive=True, reverse=True),
           _scan_ref(_logcumsumexp, -np.inf, 0, True, True), [_SCAN_X.astype(f64)],
           id="CumulativeLogsumexp-exclusive-reverse", check_grad=False),
    OpCase("EuclideanNorm", lambda tf, x: tf.math.reduce_euclidean_norm(x, 1),
           lambda x: np.sqrt((x * x).sum(1)), [_SCAN_X], rtol=1e-5),
    OpCase("EuclideanNorm", lambda tf, x: tf.math.reduce_euclidean_norm(x, keepdims=True),
           lambda x: np.sqrt((x * x).sum()).reshape(1, 1), [_SCAN_X], rtol=1e-5,
           id="EuclideanNorm-all-keepdims"),
    OpCase("EuclideanNorm", lambda tf, x: tf.math.reduce_euclidean_norm(x, 1),
           lambda x: _a([5, 13], i32), [_a([[3, -4], [5, 12]], i32)], id="EuclideanNorm-int"),
    OpCase("HistogramFixedWidth",
           lambda tf, v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5),
           lambda v: _a([2, 1, 1, 0, 1], i32), [_a([0.0, 1.0, 2.0, 5.0, -1.0], f32)]),
    OpCase("HistogramFixedWidth",
           lambda tf, v: tf.histogram_fixed_width(v, [0, 5], nbins=3, dtype=tf.int64),
           lambda v: _a([3, 2, 1], i64), [_a([0, 1, 2, 5, -1, 3], i32)],
           id="HistogramFixedWidth-int64"),
]

# Trigonometric/hyperbolic functions, Expm1, Rint, and the special functions
# (scopeflow/ops/math/special_ops.py). References in float64 from Python's math module (the
# C library), rounded to the input's dtype; digamma/zeta from their series definitions.


def _via_math(fn):
    def ref(x):
        return np.vectorize(fn, otypes=[f64])(x.astype(f64)).astype(x.dtype)
    return ref


def _digamma_ref(x):
    """psi(x) = -gamma + sum_k (1/(k+1) - 1/(k+x)), summed far enough for 1e-9 (x > 0)."""
    k = np.arange(200000, dtype=f64)[:, None]
    flat = x.astype(f64).ravel()[None, :]
    out = -0.5772156649015329 + np.sum(1 / (k + 1) - 1 / (k + flat), axis=0)
    return (out + (flat - 1) / 200000).reshape(x.shape).astype(x.dtype)  # the tail, to 1/N


def _zeta_ref(s, q):
    """Direct sum plus the integral tail, for s >= 2 and q > 0 (1e-9 relative)."""
    k = np.arange(20000, dtype=f64)
    s, q = np.broadcast_arrays(s.astype(f64), q.astype(f64))
    out = np.array([np.sum((k + b) ** -a) + (20000 + b) ** (1 - a) / (a - 1)
                    - 0.5 * (20000 + b) ** -a for a, b in zip(s.ravel(), q.ravel())])
    return out.reshape(s.shape).astype(np.float32)


def _normal_cdf(x):
    return 0.5 * np.vectorize(math.erfc, otypes=[f64])(-x / np.sqrt(2.0))


_unit = rand(2, 3, low=-0.9, high=0.9)
_normals = rand(7, low=-6.0, high=6.0, dtype=f64)
_prob = rand(2, 3, low=0.05, high=0.95)

ROWS += [
    OpCase("Expm1", lambda tf, x: tf.expm1(x), np.expm1, [rand(2, 3)], rtol=1e-6),
    OpCase("Expm1", lambda tf, x: tf.math.expm1(x), np.expm1, [rand(4, dtype=f64)],
           id="Expm1-f64"),
    OpCase("Tan", lambda tf, x: tf.tan(x), np.tan, [rand(2, 3, low=-1.2, high=1.2)], rtol=1e-5),
    OpCase("Asin", lambda tf, x: tf.asin(x), np.arcsin, [_unit], rtol=1e-5),
    OpCase("Acos", lambda tf, x: tf.math.acos(x), np.arccos, [_unit], rtol=1e-5),
    OpCase("Atan", lambda tf, x: tf.atan(x), np.arctan, [rand(2, 3)], rtol=1e-5),
    OpCase("Atan2", lambda tf, y, x: tf.atan2(y, x), np.arctan2,
           [rand(2, 3), rand(3, low=0.5, high=2.0, seed=4)], rtol=1e-5),
    OpCase("Sinh", lambda tf, x: tf.sinh(x), np.sinh, [rand(2, 3)], rtol=1e-5),
    OpCase("Cosh", lambda tf, x: tf.cosh(x), np.cosh, [rand(2, 3)], rtol=1e-5),
    OpCase("Asinh", lambda tf, x: tf.asinh(x), np.arcsinh, [rand(2, 3)], rtol=1e-5),
    OpCase("Acosh", lambda tf, x: tf.acosh(x), np.arccosh, [rand(2, 3, low=1.2, high=4.0)],
           rtol=1e-5),
    OpCase("Atanh", lambda tf, x: tf.atanh(x), np.arctanh, [_unit], rtol=1e-5),
    OpCase("Rint", lambda tf, x: tf.rint(x), np.rint,
           [_a([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -3.2], f32)]),
    OpCase("Erf", lambda tf, x: tf.erf(x), _via_math(math.erf), [rand(2, 3)], rtol=2e-7),
    OpCase("Erf", lambda tf, x: tf.math.erf(x), _via_math(math.erf), [rand(5, dtype=f64)],
           rtol=1e-15, id="Erf-f64"),
    OpCase("Erfc", lambda tf, x: tf.erfc(x), _via_math(math.erfc), [rand(2, 3, high=5.0)],
           rtol=2e-7),
    OpCase("Lgamma", lambda tf, x: tf.lgamma(x), _via_math(math.lgamma),
           [rand(2, 3, low=0.2, high=6.0)], rtol=1e-6, atol=1e-6),
    OpCase("Lgamma", lambda tf, x: tf.lgamma(x), _via_math(math.lgamma),
           [_a([-2.5, -0.5, 0.5, 1.0, 2.0, 30.0], f64)], rtol=1e-14, id="Lgamma-f64-negative"),
    OpCase("Digamma", lambda tf, x: tf.digamma(x), _digamma_ref,
           [rand(2, 3, low=0.5, high=5.0, dtype=f64)], rtol=1e-8),
    # (the order and the exponent are constants: TF gives them no gradient)
    OpCase("Polygamma", lambda tf, x: tf.polygamma(tf.constant([1.0, 2.0, 1.0]), x),
           lambda x: (_zeta_ref(_a([2.0, 3.0, 2.0], f32), x) * _a([1, -2, 1], f32)).astype(f32),
           [rand(2, 3, low=0.5, high=3.0)], rtol=1e-5, atol=0),
    OpCase("Zeta", lambda tf, q: tf.zeta(tf.constant([2.0, 3.0, 4.5]), q),
           lambda q: _zeta_ref(_a([2.0, 3.0, 4.5], f32), q),
           [rand(2, 3, low=0.5, high=3.0)], rtol=1e-6),
    OpCase("Ndtri", lambda tf, p: tf.math.ndtri(p), _via_math(statistics.NormalDist().inv_cdf),
           [_prob], rtol=1e-6, id="Ndtri"),
    OpCase("Ndtri", lambda tf, p: tf.math.ndtri(p), lambda p: _normals,
           [_normal_cdf(_normals)], rtol=1e-12,
           check_grad=False, id="Ndtri-inverts-cdf"),
    OpCase("Erfinv", lambda tf, x: tf.math.erfinv(tf.math.erf(x)), lambda x: x,
           [rand(2, 3, low=-2.0, high=2.0, dtype=f64)], rtol=1e-12, atol=1e-15),
    OpCase("Xlogy", lambda tf, x, y: tf.math.xlogy(x, y),
           lambda x, y: np.where(x == 0, 0, x * np.log(y)).astype(f32),
           [rand(2, 3), rand(3, low=0.1, high=3.0, seed=2)], rtol=1e-5),
    OpCase("Xlogy", lambda tf, x, y: tf.math.xlogy(x, y), lambda x, y: np.zeros(3, f32),
           [_a([0.0, 0.0, 0.0], f32), _a([0.0, -1.0, np.inf], f32)], check_grad=False,
           id="Xlogy-zero-x"),
    OpCase("Xdivy", lambda tf, x, y: tf.math.xdivy(x, y),
           lambda x, y: np.where(x == 0, 0, x / y).astype(f32),
           [rand(2, 3), rand(3, low=0.1, high=3.0, seed=2)], rtol=1e-6),
    OpCase("Xlog1py", lambda tf, x, y: tf.math.xlog1py(x, y),
           lambda x, y: (x * np.log1p(y)).astype(f32), [rand(2, 3), rand(3, low=0.1, high=3.0, seed=2)],
           rtol=1e-5),
    OpCase("MulNoNan", lambda tf, x, y: tf.math.multiply_no_nan(x, y),
           lambda x, y: np.where(y == 0, 0, x * y).astype(f32),
           [_a([np.nan, np.inf, 2.0], f32), _a([0.0, 0.0, 3.0], f32)], check_grad=False,
           id="MulNoNan-zero"),
    OpCase("MulNoNan", lambda tf, x, y: tf.math.multiply_no_nan(x, y), np.multiply,
           [rand(2, 3), rand(2, 3, seed=4)]),
    OpCase("NextAfter", lambda tf, x, y: tf.math.nextafter(x, y), np.nextafter,
           [rand(2, 3), rand(3, seed=4)], rtol=0, atol=0),
]
