"""Special functions and the zero-safe products: Erf, Erfc, Erfinv, Ndtri (and ``erfcinv``),
Lgamma, Digamma, Polygamma, Zeta (and ``lbeta``), Xlogy, Xdivy, Xlog1py, MulNoNan,
NextAfter, and the composites ``reciprocal_no_nan``, ``divide_no_nan`` and ``log_sigmoid``.

NumPy has no erf, lgamma or digamma, and scopeflow has no SciPy at run time. Every kernel
computes in float64 and rounds once to the tensor's dtype: ``erf``/``erfc``/``lgamma`` give
the C library's double functions (``math``) rounded (correctly rounded to float32 nearly
always, within an ulp of TF's Eigen/libm float kernels); digamma and the Hurwitz zeta are
the classic recurrence + asymptotic (Euler-Maclaurin) series, vectorised. For half and
float, ``erf``, ``lgamma`` and ``digamma`` get those same bits faster: a cheaper float64
approximation with an error bound decides the rounding, and the exact path runs only where
the bound straddles one (see ``_checked_round``); ``ndtri`` is
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
    try:     # no wrapper call per element unless some element raises
        out = np.fromiter(map(fn, flat), np.float64, count=len(flat))
    except (OverflowError, ValueError):
        out = np.fromiter(map(safe, flat), np.float64, count=len(flat))
    return out.reshape(np.shape(x))


def _erf64(x):
    return _map_math(math.erf, x, lambda v: math.nan)


# ── Checked fast paths (half and float) ──────────────────────────────────────────────
# A float32 (or half) result is the C library's double value rounded once; the C library
# is called element by element, so ~0.5 us an element. Instead a vectorised float64
# approximation (Cephes' rational functions, ~1e-15) is computed with an error bound far
# above its real error (2**-40 relative to its terms, ~1e-12): wherever ``value - bound``
# and ``value + bound`` round to the same float, so does the C library's double, which
# lies between them; only the few elements where they differ (~1e-4 of them, and NaNs
# and what an approximation leaves out, marked with a NaN bound) call the C library. The
# bits are the C library's whatever loops NumPy's SIMD dispatch picks for ``np.exp`` and
# ``np.log``: their few-ulp errors are inside the bound. Chunks keep temporaries in cache.
_CHUNK = 1 << 14
_BOUND = 2.0 ** -40


def _checked_round(x, approx, exact):
    """``exact(x)`` (float64 -> float64, the C library's) rounded to ``x``'s dtype, through
    ``approx(x64) -> (value, bound)`` (float64: |exact - value| <= bound, NaN: unknown)."""
    flat = x.ravel()
    out = np.empty(flat.shape, x.dtype)
    with np.errstate(all="ignore"):
        for lo in range(0, flat.size, _CHUNK):
            x64 = flat[lo:lo + _CHUNK].astype(np.float64)
            value, bound = approx(x64)
            below = (value - bound).astype(x.dtype)
            # a zero's sign is the exact value's: the C library's (lgamma(1) is +0)
            unsure = np.flatnonzero((below != (value + bound).astype(x.dtype)) | (below == 0))
            if unsure.size:
                below[unsure] = exact(x64[unsure]).astype(x.dtype)
            out[lo:lo + _CHUNK] = below
    return out.reshape(x.shape)


def _polevl(x, coef):
    """Cephes' ``polevl``: the polynomial ``coef[0] x**n + ... + coef[n]`` (Horner)."""
    y = coef[0] * x + coef[1]
    for c in coef[2:]:
        y *= x
        y += c
    return y


def _p1evl(x, coef):
    """Cephes' ``p1evl``: ``x**(n+1) + coef[0] x**n + ... + coef[n]`` (leading 1)."""
    y = x + coef[0]
    for c in coef[1:]:
        y *= x
        y += c
    return y


# Cephes ndtr.c: erf(x) = x T(x**2) / U(x**2) on |x| < 1, erfc(x) = e**(-x**2) P(x) / Q(x)
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
          7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U = (3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)


def _erf_approx(x):
    """erf of float64 ``x`` within 1e-15 relative (Cephes), and its bound; ``|x| >= 6``
    is +-1, as the C library's double (erfc(6) is below half an ulp of 1). Each branch
    runs on its own elements only."""
    ax = np.abs(x)
    inner = ax < 1
    value = np.empty_like(x)
    xi = x[inner]
    z = xi * xi
    value[inner] = xi * _polevl(z, _ERF_T) / _p1evl(z, _ERF_U)
    outer = ~inner
    t = np.minimum(ax[outer], 6.0)           # NaN stays NaN
    tail = np.exp(-t * t) * _polevl(t, _ERFC_P) / _p1evl(t, _ERFC_Q)
    value[outer] = np.copysign(1.0 - tail, x[outer])
    return value, np.abs(value) * _BOUND + (x - x)   # NaN, +-inf: unknown


def _erfc64(x):
    return _map_math(math.erfc, x, lambda v: math.nan)


# ── Erf ──────────────────────────────────────────────────────────────────────────────
def _erf_kernel(x):
    if x.dtype != np.float64:
        return _checked_round(x, _erf_approx, _erf64)
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
def _lgamma64(x):
    return _map_math(math.lgamma, x, lambda v: math.inf)   # poles: +inf


# Cephes gamma.c: lgamma on [2, 3) is log(z) + w B(w) / C(w) (w = x - 2, z the product
# of the recurrence's steps); from 13 up, Stirling's series (A in 1/x**2)
_LGAM_B = (-1.37825152569120859100E3, -3.88016315134637840924E4, -3.31612992738871184744E5,
           -1.16237097492762307383E6, -1.72173700820839662146E6, -8.53555664245765465627E5)
_LGAM_C = (-3.51815701436523470549E2, -1.70642106651881159223E4, -2.20528590553854454839E5,
           -1.13933444367982507207E6, -2.53252307177582951285E6, -2.01889141433532773231E6)
_LGAM_A = (8.11614167470508450300E-4, -5.95061904284301438324E-4, 7.93650340457716943945E-4,
           -2.77777777730099687205E-3, 8.33333333333331927722E-2)
_LOG_SQRT_2PI = 0.91893853320467274178


def _lgamma_small(x):
    """lgamma on (0, 13) and its bound: 1 or 2 steps up (x < 2) or up to 10 down to [2, 3)
    (Cephes), the bound relative to both terms and absolute (near the zeros 1 and 2)."""
    u = np.clip(x, 0.0, 13.0)
    below_1 = u < 1
    z = np.where(u < 2, 1.0 / np.where(below_1, u * (u + 1), u), 1.0)
    u = np.where(below_1, u + 2, np.where(u < 2, u + 1, u))
    steps = np.floor(u) - 2
    top = steps.max(initial=0.0)
    for k in range(1, 12 if np.isnan(top) else int(top) + 1):
        z = np.where(steps >= k, z * (u - k), z)
    w = u - np.maximum(steps, 0) - 2
    part = w * _polevl(w, _LGAM_B) / _p1evl(w, _LGAM_C)
    log_z = np.log(z)
    return log_z + part, (np.abs(log_z) + np.abs(part) + 1.0) * _BOUND


def _lgamma_large(x):
    """lgamma from 13 up by Stirling's series (Cephes), and its bound."""
    x = np.maximum(x, 13.0)
    head = (x - 0.5) * np.log(x)
    value = head - x + _LOG_SQRT_2PI + _polevl(1.0 / (x * x), _LGAM_A) / x
    return value, (head + x) * _BOUND


def _lgamma_approx(x):
    """lgamma of float64 ``x > 0`` and its bound (NaN, i.e. the C library, elsewhere)."""
    if x.max(initial=0.0) < 13:              # NaN: not here
        value, bound = _lgamma_small(x)
    elif x.min(initial=13.0) >= 13:
        value, bound = _lgamma_large(x)
    else:
        (small, small_bound), (large, large_bound) = _lgamma_small(x), _lgamma_large(x)
        large_x = x >= 13
        value = np.where(large_x, large, small)
        bound = np.where(large_x, large_bound, small_bound)
    return value, np.where(x > 0, bound, np.nan) + (x - x)   # and +inf: the C library


def _lgamma_kernel(x):
    if x.dtype != np.float64:
        return _checked_round(x, _lgamma_approx, _lgamma64)
    return _lgamma64(x)


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
    asymptotic series (truncation error < 1e-17 there); NaN at the poles, as TF. A chunk
    at a time (temporaries in cache), each element's arithmetic in the same order."""
    x = np.asarray(x, np.float64)
    flat = x.ravel()
    out = np.empty(flat.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for lo in range(0, flat.size, _CHUNK):
            out[lo:lo + _CHUNK] = _digamma_chunk(flat[lo:lo + _CHUNK])
    return out.reshape(x.shape)


def _digamma_chunk(x):
    neg = x < 0
    z = np.where(neg, 1 - x, x)
    reflect = None
    if neg.any():
        frac = x - np.floor(x)   # exact: pi * frac keeps tan's argument accurate
        reflect = np.where(neg, np.pi / np.tan(np.pi * frac), 0.0)
    acc = np.zeros_like(z)
    small = z < 10
    while small.any():           # at most 11 steps: z >= 1 below 0, z > 0 above
        acc = np.where(small, acc - 1 / z, acc)
        z = np.where(small, z + 1, z)
        small = z < 10
    inv2 = 1 / (z * z)
    series = np.zeros_like(z)
    for c in reversed(_PSI_SERIES):
        series = (series + c) * inv2
    out = acc + np.log(z) - 0.5 / z - series
    if reflect is not None:
        out -= reflect
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole | (x == -np.inf), np.nan, np.where(x == np.inf, np.inf, out))


def _digamma_approx(x):
    """psi of float64 ``x > 0`` by a fixed shift of 6 (psi(z) = psi(z + 6) - sum of
    1/(z + k), the reciprocals paired) and the asymptotic series at ``z + 6 >= 6``
    (truncation < 2e-13); the bound relative to the terms (so near psi's zero, 1.4616,
    ``_digamma64`` decides). NaN bound: ``_digamma64`` (x <= 0, NaN, inf)."""
    z2 = x * x
    shift = ((2 * x + 1) / (z2 + x) + (2 * x + 5) / (z2 + 5 * x + 6)
             + (2 * x + 9) / (z2 + 9 * x + 20))
    z = x + 6
    inv2 = 1 / (z * z)
    series = np.zeros_like(z)
    for c in reversed(_PSI_SERIES):
        series = (series + c) * inv2
    log_z = np.log(z)
    value = log_z - 0.5 / z - series - shift
    bound = (log_z + shift) * _BOUND + np.where(x > 0, 2e-13, np.nan) + (x - x)
    return value, bound


def _digamma_kernel(x):
    if x.dtype != np.float64:     # the float64 algorithm's value, rounded: checked
        return _checked_round(x, _digamma_approx, _digamma64)
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
    and for non-integer ``x`` at ``q <= 0``; +inf at ``x == 1`` and at the poles of ``q``.
    A chunk at a time (temporaries in cache), each element's arithmetic in the same order."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    shape = x.shape
    x, q = x.ravel(), q.ravel()
    out = np.empty(x.shape)
    with np.errstate(all="ignore"):
        for lo in range(0, x.size, _CHUNK):
            out[lo:lo + _CHUNK] = _zeta_chunk(x[lo:lo + _CHUNK], q[lo:lo + _CHUNK])
    return out.reshape(shape)


def _zeta_sum(x, q, s, done):
    """The direct sum's terms (from ``q + 1``) into ``s``: ``(s, a, b, done)``, ``a`` the
    last term's base, ``b`` the last term. The state is kept for the elements still
    summing only (a far negative ``q`` sums for thousands of steps), each element's
    finished values written back as it stops."""
    a, b = q.copy(), np.zeros_like(s)
    rows = np.arange(s.size)
    xs, as_, ss, bs, ds = x, a, s, b, done
    i = 0
    while True:
        live = ~ds & ((i < 9) | (as_ <= 9))
        if not live.all():
            stop = ~live
            at = rows[stop]
            a[at], b[at], s[at], done[at] = as_[stop], bs[stop], ss[stop], ds[stop]
            rows, xs, as_, ss, bs, ds = (v[live] for v in (rows, xs, as_, ss, bs, ds))
            if rows.size == 0:
                return s, a, b, done
        as_ = as_ + 1
        bs = np.power(as_, -xs)
        ss = ss + bs
        ds = np.abs(bs / ss) < _EPS          # every row here was live, not done
        i += 1


def _zeta_chunk(x, q):
    s = np.power(q, -x)
    q_pole = (q <= 0) & (q == np.floor(q))
    # Only valid, finite arguments enter the loops (q = -inf would never pass 9)
    done = (~np.isfinite(s) | (s == 0) | (x < 1) | np.isnan(x) | ~np.isfinite(q) | q_pole)
    s, w, b, done = _zeta_sum(x, q, s, done)
    tail = ~done
    if tail.any():
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
    n, x = np.asarray(n, np.float64), np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        # n's own factors before broadcasting: the order is a scalar, as a rule
        fact = np.exp(_map_math(math.lgamma, n + 1, lambda v: math.inf))
        sign = np.where(np.mod(n, 2) == 0, -1.0, 1.0)
        n, x, fact, sign = np.broadcast_arrays(n, x, fact, sign)
        out = sign * fact * _zeta64(n + 1, x)
    order_0 = n == 0
    if order_0.any():
        out[order_0] = _digamma64(x[order_0])
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

