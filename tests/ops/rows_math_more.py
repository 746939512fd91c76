"""Op-table rows for the remaining math ops of issue 35: tf.bitwise, the counting ops
(Bincount, DenseBincount), the incomplete gamma and beta functions, the Bessel functions,
ApproxTopK."""

from __future__ import annotations

import math

import numpy as np

from .op_table import OpCase

f32, f64, i8, i32, i64, u8 = np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8


def _a(values, dtype):
    return np.array(values, dtype=dtype)


def _shift_ref(x, y, left):
    bits = x.dtype.itemsize * 8
    s = np.clip(y.astype(np.int64), 0, bits - 1)
    wide = x.astype(np.int64)
    out = (wide << s) if left else (wide >> s)
    return out.astype(x.dtype)   # wraps around, as the C kernel does


_X8 = _a([1, -1, -128, 127, 64, -8, 3], i8)
_Y8 = _a([0, 7, 8, -1, 100, 3, 1], i8)

ROWS = [
    OpCase("BitwiseAnd", lambda tf, x, y: tf.bitwise.bitwise_and(x, y), np.bitwise_and,
           [_a([12, -1, 0, 255], i32), _a([10, 7, 5, 15], i32)], id="BitwiseAnd-and"),
    OpCase("BitwiseOr", lambda tf, x, y: tf.bitwise.bitwise_or(x, y), np.bitwise_or,
           [_a([[12, 1], [0, 200]], u8), _a([10, 2], u8)], id="BitwiseOr-or_broadcast"),
    OpCase("BitwiseXor", lambda tf, x, y: tf.bitwise.bitwise_xor(x, y), np.bitwise_xor,
           [_a([12, -1, 0, 2**40], i64), _a([10, 7, 5, 3], i64)], id="BitwiseXor-xor"),
    OpCase("Invert", lambda tf, x: tf.bitwise.invert(x), np.invert,
           [_a([0, 5, -128, 127], i8)], id="Invert-invert"),
    OpCase("LeftShift", lambda tf, x, y: tf.bitwise.left_shift(x, y),
           lambda x, y: _shift_ref(x, y, True), [_X8, _Y8], id="LeftShift-left_clamped"),
    OpCase("RightShift", lambda tf, x, y: tf.bitwise.right_shift(x, y),
           lambda x, y: _shift_ref(x, y, False), [_X8, _Y8], id="RightShift-right_clamped"),
    OpCase("DenseBincount", lambda tf, x: tf.bincount(x),
           lambda x: np.bincount(x).astype(i32), [_a([1, 2, 2, 5, 0, 5, 5], i32)],
           id="DenseBincount-counts"),
    OpCase("DenseBincount", lambda tf, x, w: tf.bincount(x, weights=w, minlength=8),
           lambda x, w: np.bincount(x.ravel(), w.ravel(), minlength=8).astype(f32),
           [_a([[1, 2], [2, 5]], i32), _a([[0.5, 1.0], [2.0, 4.0]], f32)], id="DenseBincount-weighted",
           check_grad=False),
    OpCase("DenseBincount", lambda tf, x: tf.bincount(x, maxlength=3, dtype=tf.int64),
           lambda x: np.bincount(x)[:3].astype(i64), [_a([1, 2, 2, 5, 0], i64)],
           id="DenseBincount-maxlength"),
    OpCase("ApproxTopK", lambda tf, x: list(tf.math.approx_max_k(x, 2)),
           lambda x: [np.sort(x, axis=-1)[..., ::-1][..., :2],
                      np.argsort(-x, axis=-1, kind="stable")[..., :2].astype(i32)],
           [np.array([[[0.5, -1.0, 2.0, 0.25], [3.0, 1.5, -2.0, 0.0]]], f32)],
           id="ApproxTopK-max"),
    OpCase("Igamma", lambda tf, a, x: tf.igamma(a, x),
           lambda a, x: -np.expm1(-x) if np.all(a == 1) else None,
           [_a([1.0, 1.0, 1.0], f64), _a([0.1, 1.0, 7.0], f64)], id="Igamma-exponential"),
    OpCase("Igamma", lambda tf, a, x: tf.igamma(a, x),
           lambda a, x: np.broadcast_to(np.vectorize(lambda v: math.erf(math.sqrt(v)))(x),
                                        (2, 3)).astype(f32),
           [_a([[0.5], [0.5]], f32), _a([0.2, 1.5, 4.0], f32)], id="Igamma-half_broadcast"),
    OpCase("Igammac", lambda tf, a, x: tf.igammac(a, x),
           lambda a, x: np.vectorize(lambda v: math.erfc(math.sqrt(v)))(x),
           [_a([0.5, 0.5, 0.5], f64), _a([0.2, 1.5, 4.0], f64)], id="Igammac-half"),
    OpCase("IgammaGradA", lambda tf, a, x: tf.gradients(tf.igamma(a, x), a)[0],
           # dP/da at a = 1: -E1(x)-free form: d/da P(a, x)|a=1 via the series by hand
           lambda a, x: (np.array([_igamma_grad_a_ref(1.0, v) for v in x])),
           [_a([1.0, 1.0], f64), _a([0.5, 2.0], f64)], id="IgammaGradA-a1", check_grad=False),
    # a and b are constants here: TF's gradient is only x's (None for a and b)
    OpCase("Betainc", lambda tf, x: tf.betainc(_a([2.5, 0.5, 4.0], x.dtype.as_numpy_dtype),
                                               _a([1.0, 1.0, 1.0], x.dtype.as_numpy_dtype), x),
           lambda x: x ** _a([2.5, 0.5, 4.0], f64), [_a([0.3, 0.6, 0.9], f64)],
           id="Betainc-b1"),
    OpCase("Betainc", lambda tf, x: tf.betainc(tf.constant(1.0, x.dtype),
                                               _a([2.0, 3.5], x.dtype.as_numpy_dtype), x),
           lambda x: (1 - (1 - x) ** _a([2.0, 3.5], f64)).astype(f32),
           [_a([0.25, 0.5], f32)], id="Betainc-a1_scalar", rtol=1e-5),
]


# Bessel functions: references from their power series (plain Python, no SciPy), at
# points away from the kernels' interval boundaries and below the series' cancellation
def _bessel_series(order, x, kind):
    """I_n (kind "i") or J_n ("j") by the power series sum (+-x^2/4)^k / (k! (k+n)!)."""
    sign = 1.0 if kind == "i" else -1.0
    out = []
    for v in np.ravel(x):
        term = (v / 2) ** order / math.factorial(order)
        total, k = term, 0
        while abs(term) > 1e-18 * abs(total) or k < 5:
            k += 1
            term *= sign * (v * v / 4) / (k * (k + order))
            total += term
        out.append(total)
    return np.array(out).reshape(np.shape(x))


_BX = _a([0.3, 1.7, 4.2, 6.5, 9.0], f64)
ROWS += [
    OpCase("BesselI0", lambda tf, x: tf.math.bessel_i0(x), lambda x: _bessel_series(0, x, "i"),
           [_BX], id="BesselI0-series"),
    OpCase("BesselI0e", lambda tf, x: tf.math.bessel_i0e(x),
           lambda x: _bessel_series(0, x, "i") * np.exp(-np.abs(x)), [-_BX], id="BesselI0e-neg"),
    OpCase("BesselI1", lambda tf, x: tf.math.bessel_i1(x), lambda x: _bessel_series(1, x, "i"),
           [-_BX], id="BesselI1-odd"),
    OpCase("BesselI1e", lambda tf, x: tf.math.special.bessel_i1e(x),
           lambda x: _bessel_series(1, x, "i") * np.exp(-np.abs(x)), [_BX], id="BesselI1e"),
    OpCase("BesselJ0", lambda tf, x: tf.math.special.bessel_j0(x),
           lambda x: _bessel_series(0, x, "j"), [-_BX[:4]], id="BesselJ0-series"),
    OpCase("BesselJ1", lambda tf, x: tf.math.special.bessel_j1(x),
           lambda x: _bessel_series(1, x, "j"), [_BX[:4]], id="BesselJ1-series",
           rtol=1e-9, atol=1e-12),
]
# K and Y: values by identities with the ops above (their own references are SciPy's, in
# tests/unit/ops/math/test_math_more.py against TF); here: their gradients, numerically
for _op, _fn in (("BesselK0", "bessel_k0"), ("BesselK0e", "bessel_k0e"),
                 ("BesselK1", "bessel_k1"), ("BesselK1e", "bessel_k1e"),
                 ("BesselY0", "bessel_y0"), ("BesselY1", "bessel_y1")):
    ROWS.append(OpCase(_op, lambda tf, x, _fn=_fn: getattr(tf.math.special, _fn)(x),
                       lambda x: None, [_a([0.4, 1.9, 3.3, 7.5, 12.0], f64)],
                       id=f"{_op}-gradient", check_values=False))


# The special integrals, against references by quadrature/series in plain Python
def _simpson(f, a, b, n=2000):
    h = (b - a) / n
    total = f(a) + f(b) + sum((4 if i % 2 else 2) * f(a + i * h) for i in range(1, n))
    return total * h / 3


def _quad(f, x):
    return np.array([_simpson(f, 0.0, v) for v in np.ravel(x)]).reshape(np.shape(x))


_IX = _a([0.2, 0.9, 1.7, 3.1, 4.6], f64)
ROWS += [
    OpCase("Dawsn", lambda tf, x: tf.math.special.dawsn(x),
           lambda x: np.exp(-x * x) * _quad(lambda t: math.exp(t * t), x), [_IX],
           id="Dawsn-quadrature", rtol=1e-9),
    OpCase("FresnelCos", lambda tf, x: tf.math.special.fresnel_cos(x),
           lambda x: _quad(lambda t: math.cos(math.pi * t * t / 2), x), [-_IX],
           id="FresnelCos-quadrature", rtol=1e-9),
    OpCase("FresnelSin", lambda tf, x: tf.math.special.fresnel_sin(x),
           lambda x: _quad(lambda t: math.sin(math.pi * t * t / 2), x), [_IX],
           id="FresnelSin-quadrature", rtol=1e-8),
    OpCase("Expint", lambda tf, x: tf.math.special.expint(x),
           # Ei(x) = gamma + log x + sum x^k / (k k!)
           lambda x: np.array([0.5772156649015329 + math.log(v) + sum(
               v ** k / (k * math.factorial(k)) for k in range(1, 80)) for v in x]),
           [_IX], id="Expint-series", rtol=1e-12),
    OpCase("Spence", lambda tf, x: tf.math.special.spence(x),
           # spence(x) = Li2(1 - x) = sum (1 - x)^k / k^2 for |1 - x| <= 1/2
           lambda x: np.array([sum((1 - v) ** k / k ** 2 for k in range(1, 120)) for v in x]),
           [_a([0.55, 0.9, 1.2, 1.45], f64)], id="Spence-series", rtol=1e-12),
]


def _igamma_grad_a_ref(a, x, terms=200):
    """dP/da from the series P = x^a e^-x sum_n x^n / Gamma(a + n + 1), differentiated
    term by term in plain Python (math.lgamma and a digamma by its own series)."""
    def digamma(z):
        acc = 0.0
        while z < 20:
            acc -= 1 / z
            z += 1
        return acc + math.log(z) - 1 / (2 * z) - 1 / (12 * z * z) + 1 / (120 * z ** 4)
    total = 0.0
    for n in range(terms):
        t = math.exp((a + n) * math.log(x) - x - math.lgamma(a + n + 1))
        total += t * (math.log(x) - digamma(a + n + 1))
    return total
