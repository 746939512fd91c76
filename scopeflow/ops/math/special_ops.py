"""Special functions and the zero-safe products: Erf, Erfc, Erfinv, Ndtri (and ``erfcinv``),
Lgamma, Digamma, Polygamma, Zeta (and ``lbeta``), Xlogy, Xdivy, Xlog1py, MulNoNan,
NextAfter, and the composites ``reciprocal_no_nan``, ``divide_no_nan`` and ``log_sigmoid``.

NumPy has no erf, lgamma or digamma, and scopeflow has no SciPy at run time. Every kernel
computes in float64 and rounds once to the tensor's dtype: ``erf``/``erfc``/``lgamma`` call
the C library's double functions through ``math`` (correctly rounded to float32 nearly
always, within an ulp of TF's Eigen/libm float kernels); digamma and the Hurwitz zeta are
the classic recurrence + asymptotic (Euler-Maclaurin) series, vectorised; ``ndtri`` is
Acklam's rational approximation polished by a Halley step on ``erfc`` (about 1e-15
relative), and ``erfinv`` TF's ``ndtri((x + 1) / 2) / sqrt(2)``. Special values (poles, infinities,
out-of-domain inputs) are TF 2.21's, as observed, including its quirks (float64
``erf(+-inf)`` is NaN).

Above ``elementwise_ops``: the gradients use ``exp``, ``square`` and ``ones_like``.
``log_sigmoid`` needs Softplus, whose family (nn) imports the math facade; it finds the
OpDef by type in the registry instead of importing upward.
"""

from __future__ import annotations

import math

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX, FLOATS
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import REGISTRY, OpDef, broadcast_shape, broadcasting, same_shape
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import (
    cast,
    conj,
    div_no_nan,
    div_no_nan_op,
    negative,
    not_equal,
)
from scopeflow.ops.math.elementwise_ops import exp, square
from scopeflow.ops.math.reduction_ops import ones_like, reduce_sum, zeros_like
from scopeflow.ops.op_helpers import _apply, _same_dtype_in

__all__ = ["erf", "erfc", "erfinv", "ndtri", "erfcinv", "lgamma", "digamma", "polygamma", "zeta",
           "lbeta", "xlogy", "xdivy", "xlog1py", "multiply_no_nan", "nextafter",
           "reciprocal_no_nan", "divide_no_nan", "log_sigmoid"]

F32_64 = (dtypes.float32, dtypes.float64)   # TF's {float, double}: Polygamma, Zeta, NextAfter
_EPS = np.finfo(np.float64).eps


def _float_unary(op_type, kernel):
    """The OpDef of a real floating-point elementwise function (TF: half, bfloat16, float,
    double)."""
    return OpDef(op_type, shape=same_shape, dtype=_same_dtype_in(FLOATS), kernel=kernel,
                 input_names=("x",))


def _binary(op_type, kernel, allowed, names):
    return OpDef(op_type, shape=broadcasting(broadcast_shape),
                 dtype=_same_dtype_in(allowed, names[0]), kernel=kernel, input_names=names)


def _map_math(fn, x, special):
    """``fn`` (a ``math`` function of one double) over float64 ``x``; ``special(v)`` where
    it raises (poles, overflow)."""
    def safe(v):
        try:
            return fn(v)
        except (OverflowError, ValueError):
            return special(v)
    flat = np.asarray(x, np.float64).ravel().tolist()
    return np.fromiter(map(safe, flat), np.float64, count=len(flat)).reshape(np.shape(x))


def _erf64(x):
    return _map_math(math.erf, x, lambda v: math.nan)


def _erfc64(x):
    return _map_math(math.erfc, x, lambda v: math.nan)


# ── Erf ──────────────────────────────────────────────────────────────────────────────
def _erf_kernel(x):
    out = _erf64(x)
    if x.dtype == np.float64:
        out[np.isinf(x)] = np.nan   # TF 2.21's double kernel (Eigen) gives NaN at +-inf
    return out.astype(x.dtype)


erf_op = _float_unary("Erf", _erf_kernel)


@erf_op.def_grad
def _erf_grad(op, dy):
    two_over_root_pi = constant(2 / np.sqrt(np.pi), dtype=dy.dtype)
    with control_dependencies([dy]):
        x = conj(op.inputs[0])
        return [dy * two_over_root_pi * exp(-square(x))]


def erf(x, name=None) -> Tensor:
    """Elementwise Gauss error function."""
    return erf_op.bind(x, name=name)


# ── Erfc ─────────────────────────────────────────────────────────────────────────────
def _erfc_kernel(x):
    return _erfc64(x).astype(x.dtype)


erfc_op = _float_unary("Erfc", _erfc_kernel)


@erfc_op.def_grad
def _erfc_grad(op, dy):
    minus_two_over_root_pi = constant(-2 / np.sqrt(np.pi), dtype=dy.dtype)
    with control_dependencies([dy]):
        x = conj(op.inputs[0])
        return [dy * minus_two_over_root_pi * exp(-square(x))]


def erfc(x, name=None) -> Tensor:
    """Elementwise complementary error function ``1 - erf(x)``, accurate for large ``x``."""
    return erfc_op.bind(x, name=name)


# ── Ndtri ────────────────────────────────────────────────────────────────────────────
_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00, 1.0)


def _lower_ndtri64(p):
    """ndtri for float64 ``p`` in (0, 0.5]: Acklam's approximation (1.2e-9 relative), then
    one Halley step on ``erfc`` (exact in the lower half, where ``erfc``'s argument is
    positive), which triples the digits."""
    central = p > 0.02425
    q = p - 0.5
    r = q * q
    x_central = q * np.polyval(_ACKLAM_A, r) / np.polyval(_ACKLAM_B, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.sqrt(-2.0 * np.log(p))
        x_tail = np.polyval(_ACKLAM_C, t) / np.polyval(_ACKLAM_D, t)
        x = np.where(central, x_central, x_tail)
        e = 0.5 * _erfc64(-x / np.sqrt(2.0)) - p
        u = e * np.sqrt(2 * np.pi) * np.exp(x * x / 2)
        return x - u / (1 + x * u / 2)


def _ndtri64(p):
    p = np.asarray(p, np.float64)
    upper = p > 0.5
    lower_p = np.where(upper, 1.0 - p, p)   # exact: Sterbenz
    ok = (lower_p > 0) & (lower_p <= 0.5)
    x = np.zeros_like(p)
    x[ok] = _lower_ndtri64(lower_p[ok])
    x = np.where(upper, -x, x)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


def _ndtri_kernel(x):
    return _ndtri64(x).astype(x.dtype)


ndtri_op = _float_unary("Ndtri", _ndtri_kernel)


@ndtri_op.def_grad
def _ndtri_grad(op, dy):
    root_two_pi = constant(np.sqrt(2 * np.pi), dtype=dy.dtype)
    with control_dependencies([dy]):
        return [dy * root_two_pi * exp(square(op.outputs[0]) / 2.0)]


def ndtri(x, name=None) -> Tensor:
    """Elementwise inverse of the standard normal CDF (NaN outside [0, 1])."""
    with name_scope(name, "ndtri", [x]):
        return ndtri_op.bind(x)


# ── Erfinv ───────────────────────────────────────────────────────────────────────────
def _erfinv_kernel(x):
    """TF's kernel (Eigen) is ``ndtri((x + 1) / 2) / sqrt(2)``, the sum rounded to the
    dtype (float for half): so 0 for tiny ``|x|`` in float32, and an absolute, not
    relative, 1e-16 in float64. Computed the same way here, to give TF's values."""
    work = np.float64 if x.dtype == np.float64 else np.float32
    p = (x.astype(work) + work(1)) * work(0.5)
    with np.errstate(invalid="ignore"):
        return (_ndtri64(p) / np.sqrt(2.0)).astype(work).astype(x.dtype)


erfinv_op = _float_unary("Erfinv", _erfinv_kernel)


@erfinv_op.def_grad
def _erfinv_grad(op, dy):
    root_pi_over_two = constant(np.sqrt(np.pi) / 2, dtype=dy.dtype)
    with control_dependencies([dy]):
        return [dy * root_pi_over_two * exp(square(op.outputs[0]))]


def erfinv(x, name=None) -> Tensor:
    """Elementwise inverse error function (NaN outside [-1, 1])."""
    with name_scope(name, "erfinv", [x]):
        return erfinv_op.bind(x)


# ── erfcinv (composite: Mul, Ndtri, Neg, Mul) ────────────────────────────────────────
def erfcinv(x, name=None) -> Tensor:
    """Inverse complementary error function, as TF builds it: ``-ndtri(0.5 * x) * sqrt(0.5)``."""
    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


# ── Lgamma ───────────────────────────────────────────────────────────────────────────
def _lgamma_kernel(x):
    return _map_math(math.lgamma, x, lambda v: math.inf).astype(x.dtype)  # poles: +inf


lgamma_op = _float_unary("Lgamma", _lgamma_kernel)


@lgamma_op.def_grad
def _lgamma_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * digamma(conj(op.inputs[0]))]


def lgamma(x, name=None) -> Tensor:
    """Elementwise ``log(|Gamma(x)|)`` (+inf at the poles 0, -1, -2, ...)."""
    return lgamma_op.bind(x, name=name)


# ── Digamma ──────────────────────────────────────────────────────────────────────────
# Bernoulli terms of psi's asymptotic series: B_2k / (2k), for z**-2k, k = 1..7
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma64(x):
    """Reflection below 0, the recurrence psi(z) = psi(z + 1) - 1/z up to z >= 10, then the
    asymptotic series (truncation error < 1e-17 there); NaN at the poles, as TF."""
    x = np.asarray(x, np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = x < 0
        frac = x - np.floor(x)   # exact: pi * frac keeps tan's argument accurate
        reflect = np.where(neg, np.pi / np.tan(np.pi * frac), 0.0)
        z = np.where(neg, 1 - x, x)
        acc = np.zeros_like(z)
        small = z < 10
        while np.any(small):
            acc[small] -= 1 / z[small]
            z[small] += 1
            small = z < 10
        inv2 = 1 / (z * z)
        series = np.zeros_like(z)
        for c in reversed(_PSI_SERIES):
            series = (series + c) * inv2
        out = acc + np.log(z) - 0.5 / z - series - reflect
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole | (x == -np.inf), np.nan, np.where(x == np.inf, np.inf, out))


def _digamma_kernel(x):
    return _digamma64(x).astype(x.dtype)


digamma_op = _float_unary("Digamma", _digamma_kernel)


@digamma_op.def_grad
def _digamma_grad(op, dy):
    with control_dependencies([dy]):
        x = conj(op.inputs[0])
        return [dy * polygamma(constant(1, dtype=x.dtype), x)]


def digamma(x, name=None) -> Tensor:
    """Elementwise psi, the derivative of ``lgamma`` (NaN at 0, -1, -2, ...)."""
    return digamma_op.bind(x, name=name)


# ── Zeta ─────────────────────────────────────────────────────────────────────────────
# Cephes' Euler-Maclaurin denominators: (2k)! / B_2k
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _zeta64(x, q):
    """The Hurwitz zeta ``sum_k (k + q)**-x`` (Cephes' method, vectorised): the sum's first
    terms until they are negligible or ``q + k > 9``, then the Euler-Maclaurin tail, each
    element stopping where its next term no longer counts. TF's domain: NaN for ``x < 1``
    and for non-integer ``x`` at ``q <= 0``; +inf at ``x == 1`` and at the poles of ``q``."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    x, q = x.copy(), q.copy()
    with np.errstate(all="ignore"):
        s = np.power(q, -x)
        a = q.copy()
        q_pole = (q <= 0) & (q == np.floor(q))
        # Only valid, finite arguments enter the loops (q = -inf would never pass 9)
        done = (~np.isfinite(s) | (s == 0) | (x < 1) | np.isnan(x) | ~np.isfinite(q)
                | q_pole)
        i = 0
        b = np.zeros_like(s)
        while True:
            live = ~done & ((i < 9) | (a <= 9))
            if not live.any():
                break
            a[live] += 1
            b[live] = np.power(a[live], -x[live])
            s[live] += b[live]
            done |= live & (np.abs(b / s) < _EPS)
            i += 1
        tail = ~done
        w = a
        s = np.where(tail, s + b * w / (x - 1) - 0.5 * b, s)
        fac = np.ones_like(s)
        k = 0.0
        for denom in _ZETA_A:
            fac = fac * (x + k)
            b = b / w
            t = fac * b / denom
            s = np.where(tail, s + t, s)
            tail &= ~(np.abs(t / s) < _EPS)
            k += 1
            fac = fac * (x + k)
            b = b / w
            k += 1
    out = np.where(q == np.inf, 0.0, s)
    out = np.where(q_pole, np.inf, out)
    out = np.where((q <= 0) & ~q_pole & (x != np.floor(x)), np.nan, out)
    out = np.where(x == 1, np.inf, out)
    return np.where((x < 1) | np.isnan(x) | np.isnan(q), np.nan, out)


def _zeta_kernel(x, q):
    return _zeta64(x, q).astype(np.result_type(x, q))


zeta_op = _binary("Zeta", _zeta_kernel, F32_64, ("x", "q"))


@zeta_op.def_grad
def _zeta_grad(op, dy):
    with control_dependencies([dy]):   # TF: none for x
        x, q = conj(op.inputs[0]), conj(op.inputs[1])
        return [None, -x * zeta(x + 1, q) * dy]


def zeta(x, q, name=None) -> Tensor:
    """Elementwise Hurwitz zeta function ``sum_{k>=0} (k + q)**-x``."""
    return _apply(zeta_op, [x, q], name)


# ── Polygamma ────────────────────────────────────────────────────────────────────────
def _polygamma64(n, x):
    """psi^(n)(x) = (-1)**(n+1) n! zeta(n + 1, x) for integer n >= 1; digamma at n = 0; NaN
    for other n, as TF."""
    n, x = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        fact = np.exp(_map_math(math.lgamma, n + 1, lambda v: math.inf))
        sign = np.where(np.mod(n, 2) == 0, -1.0, 1.0)
        out = sign * fact * _zeta64(n + 1, x)
    out = np.where(n == 0, _digamma64(x), out)
    return np.where((n < 0) | (n != np.floor(n)), np.nan, out)


def _polygamma_kernel(a, x):
    return _polygamma64(a, x).astype(np.result_type(a, x))


polygamma_op = _binary("Polygamma", _polygamma_kernel, F32_64, ("a", "x"))


@polygamma_op.def_grad
def _polygamma_grad(op, dy):
    with control_dependencies([dy]):   # TF: none for the order
        n, x = conj(op.inputs[0]), conj(op.inputs[1])
        return [None, polygamma(n + 1, x) * dy]


def polygamma(a, x, name=None) -> Tensor:
    """Elementwise polygamma function psi^(a)(x): the a-th derivative of digamma."""
    return _apply(polygamma_op, [a, x], name)


# ── lbeta (composite: Lgamma, Sum, Sum, Lgamma, Sub) ─────────────────────────────────
def lbeta(x, name=None) -> Tensor:
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (-inf for
    an empty last axis)."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduce_sum(lgamma(x), axis=[-1])
        log_gamma_sum_x = lgamma(reduce_sum(x, axis=[-1]))
        return log_prod_gamma_x - log_gamma_sum_x   # the operator: TF names it "sub"


# ── Xlogy, Xdivy, Xlog1py (0 wherever x is 0) ────────────────────────────────────────
def _zero_where_x_zero(x, value):
    return np.where(np.asarray(x) == 0, np.zeros((), value.dtype), value)


def _xlogy_kernel(x, y):
    with np.errstate(all="ignore"):
        return _zero_where_x_zero(x, x * np.log(y))


def _xdivy_kernel(x, y):
    with np.errstate(all="ignore"):
        return _zero_where_x_zero(x, x / y)


def _xlog1py_kernel(x, y):
    with np.errstate(all="ignore"):
        return _zero_where_x_zero(x, x * np.log1p(y))


xlogy_op = _binary("Xlogy", _xlogy_kernel, FLOAT_OR_COMPLEX, ("x", "y"))
xdivy_op = _binary("Xdivy", _xdivy_kernel, FLOAT_OR_COMPLEX, ("x", "y"))
xlog1py_op = _binary("Xlog1py", _xlog1py_kernel, FLOAT_OR_COMPLEX, ("x", "y"))


def _nonzero_indicator(x):
    """TF's ``cast(x != 0, x.dtype)``: the gradients' factor that is 0 where ``x`` is 0."""
    return cast(not_equal(x, cast(0.0, x.dtype)), x.dtype)


@xlogy_op.def_grad
def _xlogy_grad(op, dy):
    x, y = op.inputs
    with control_dependencies([dy]):
        return [xlogy_op.bind(_nonzero_indicator(x), y) * dy, xdivy_op.bind(x, y) * dy]


@xdivy_op.def_grad
def _xdivy_grad(op, dy):
    x, y = op.inputs
    with control_dependencies([dy]):
        return [xdivy_op.bind(_nonzero_indicator(x), y) * dy,
                xdivy_op.bind(negative(x), y ** 2) * dy]


@xlog1py_op.def_grad
def _xlog1py_grad(op, dy):
    x, y = op.inputs
    with control_dependencies([dy]):
        return [xlog1py_op.bind(_nonzero_indicator(x), y) * dy,
                xdivy_op.bind(x, y + 1.0) * dy]


def xlogy(x, y, name=None) -> Tensor:
    """Elementwise ``x * log(y)``, but 0 wherever ``x`` is 0 (even where ``log(y)`` is not
    finite)."""
    return _apply(xlogy_op, [x, y], name)


def xdivy(x, y, name=None) -> Tensor:
    """Elementwise ``x / y``, but 0 wherever ``x`` is 0 (even where ``y`` is 0)."""
    with name_scope(name, "xdivy", [x]):
        return _apply(xdivy_op, [x, y])


def xlog1py(x, y, name=None) -> Tensor:
    """Elementwise ``x * log1p(y)``, but 0 wherever ``x`` is 0."""
    with name_scope(name, "xlog1py", [x]):
        return _apply(xlog1py_op, [x, y])


# ── MulNoNan ─────────────────────────────────────────────────────────────────────────
def _mul_no_nan_kernel(x, y):
    with np.errstate(all="ignore"):
        out = np.multiply(x, y)
    return np.where(np.asarray(y) == 0, np.zeros((), out.dtype), out)


mul_no_nan_op = _binary("MulNoNan", _mul_no_nan_kernel, FLOAT_OR_COMPLEX, ("x", "y"))


@mul_no_nan_op.def_grad
def _mul_no_nan_grad(op, dy):
    x, y = op.inputs
    return [mul_no_nan_op.bind(dy, y), mul_no_nan_op.bind(x, dy)]


def multiply_no_nan(x, y, name=None) -> Tensor:
    """Elementwise ``x * y``, but 0 wherever ``y`` is 0 (even where ``x`` is NaN or inf)."""
    with name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got "
                            f"{x.dtype.base_dtype!r} != {y.dtype.base_dtype!r}")
        return mul_no_nan_op.bind(x, y, name=scope)


# ── NextAfter ────────────────────────────────────────────────────────────────────────
nextafter_op = _binary("NextAfter", np.nextafter, F32_64, ("x1", "x2"))


@nextafter_op.def_grad
def _nextafter_grad(op, dy):
    x1, x2 = op.inputs   # TF: 1 for x1, 0 for x2
    with control_dependencies([dy]):
        return [ones_like(x1) * dy, zeros_like(x2) * dy]


def nextafter(x1, x2, name=None) -> Tensor:
    """Elementwise the next representable value after ``x1`` towards ``x2``."""
    return _apply(nextafter_op, [x1, x2], name)


# ── reciprocal_no_nan (composite: DivNoNan) ──────────────────────────────────────────
def reciprocal_no_nan(x, name=None) -> Tensor:
    """Elementwise ``1 / x``, but 0 where ``x`` is 0 (a ``DivNoNan`` of a constant one)."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant(1, dtype=x.dtype.base_dtype, name="one")
        return div_no_nan_op.bind(one, x, name=scope)


# TF's tf.math.divide_no_nan is its tf.div_no_nan, under the TF2 name.
divide_no_nan = div_no_nan


# ── log_sigmoid (composite: Neg, Softplus, Neg) ──────────────────────────────────────
def log_sigmoid(x, name=None) -> Tensor:
    """Elementwise ``log(1 / (1 + exp(-x)))``, as TF builds it: ``-softplus(-x)``."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return negative(REGISTRY["Softplus"].bind(negative(x)), name=scope)

