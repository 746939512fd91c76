"""Special integrals: Dawsn (Dawson's integral), Expint (the exponential integral Ei),
FresnelCos and FresnelSin (``C`` and ``S``, with ``pi t^2 / 2``), Spence (the dilogarithm
``Li2(1 - x)``), as ``tf.math.special.*``.

As for the Bessel functions (bessel_ops.py), each is built from analytic parts evaluated as
Chebyshev series from ``_bessel_tables``: Dawson's ``F(x) / x`` in ``x**2`` up to 4 and
``x F(x)`` in ``1/x**2`` above; Fresnel's ``C / x`` and ``S / x**3`` in ``x**2`` up to 2.5,
then the auxiliary ``f``, ``g`` (``C = 1/2 + f sin t - g cos t``, ``t = pi x^2 / 2``);
``Ei(x) - log x`` up to 6, ``x e^-x Ei(x)`` in ``1/x`` above. Spence needs no table:
``Li2`` by its Bernoulli series in ``-log(1 - z)``, after the reflections that bring ``z``
to [-1, 1/2]. In float64, rounded once to the dtype. Special values are TF 2.21's, as
observed: Expint NaN for negative ``x`` (and at +-inf), -inf at 0; Fresnel +-1/2 at +-inf
(and exactly 1/2 past 36974, as Cephes); Spence NaN below 0 and at inf, ``pi^2 / 6`` at 0.
Gradients are TF's (math_grad.py).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, control_dependencies, name_scope
from scopeflow.framework.opdef import OpDef, same_shape
from scopeflow.ops.math.arithmetic_ops import equal
from scopeflow.ops.math.bessel_ops import _cheb
from scopeflow.ops.math.elementwise_ops import cos, exp, log, sin, square
from scopeflow.ops.math.reduction_ops import ones_like, where
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]

_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)
# B_2k / (2k + 1)!: Li2(z) = u - u^2/4 + sum_k B_2k u^(2k+1) / (2k + 1)!, u = -log(1 - z)
_LI2_SERIES = (1 / 36, -1 / 3600, 1 / 211680, -1 / 10886400, 1 / 526901760,
               -4.064761645144226e-11, 8.921691020456453e-13, -1.9939295860721076e-14,
               4.518980029619918e-16, -1.0356517612181247e-17, 2.3952186210261867e-19,
               -5.581302285784567e-21, 1.3091507554183213e-22, -3.0874198024267403e-24)


def _dawsn(x):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = np.where(np.isinf(ax), 0.0, np.nan)
    small = ax <= 4.0
    large = (ax > 4.0) & np.isfinite(ax)
    out[small] = _cheb("DAWSN_SMALL", ax[small] ** 2) * ax[small]
    out[large] = _cheb("DAWSN_LARGE", 1.0 / ax[large] ** 2) / ax[large]
    return np.copysign(out, x)


def _fresnel(x, which):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = np.where(np.isinf(ax), 0.5, np.nan)
    small = ax <= 2.5
    mid = (ax > 2.5) & (ax <= 36974.0)
    out[ax > 36974.0] = 0.5
    xs = ax[small]
    if which == "c":
        out[small] = _cheb("FRESNEL_C_SMALL", xs * xs) * xs
    else:
        out[small] = _cheb("FRESNEL_S_SMALL", xs * xs) * xs ** 3
    xm = ax[mid]
    w = 1.0 / (xm * xm)
    f = _cheb("FRESNEL_F", w) / xm
    g = _cheb("FRESNEL_G", w) / xm ** 3
    t = np.pi * xm * xm / 2
    if which == "c":
        out[mid] = 0.5 + f * np.sin(t) - g * np.cos(t)
    else:
        out[mid] = 0.5 - f * np.cos(t) - g * np.sin(t)
    return np.copysign(out, x)


def _expint(x):
    x = np.asarray(x, np.float64)
    out = np.full(x.shape, np.nan)
    out[x == 0] = -np.inf
    small = (x > 0) & (x <= 6.0)
    large = (x > 6.0) & np.isfinite(x)
    out[small] = _cheb("EI_SMALL", x[small]) + np.log(x[small])
    xl = x[large]
    with np.errstate(over="ignore"):
        out[large] = _cheb("EI_LARGE", 1.0 / xl) * np.exp(xl) / xl
    return out


def _li2_near_zero(z):
    """Li2(z) for z in [-1, 1/2], by the Bernoulli series in u = -log(1 - z) (|u| < 0.7)."""
    u = -np.log1p(-z)
    u2 = u * u
    acc = np.zeros_like(u)
    for c in reversed(_LI2_SERIES):
        acc = acc * u2 + c
    return u - u2 / 4 + acc * u2 * u


def _spence(x):
    """TF's spence(x) = Li2(1 - x), x >= 0."""
    x = np.asarray(x, np.float64)
    out = np.full(x.shape, np.nan)
    pi2_6 = np.pi ** 2 / 6
    out[x == 0] = pi2_6
    z = 1.0 - x
    with np.errstate(all="ignore"):
        a = (x > 0) & (x < 0.5)           # z in (1/2, 1): reflect to 1 - z = x
        out[a] = pi2_6 - np.log(z[a]) * np.log(x[a]) - _li2_near_zero(x[a])
        b = (x >= 0.5) & (x <= 2.0)       # z in [-1, 1/2]
        out[b] = _li2_near_zero(z[b])
        c = (x > 2.0) & np.isfinite(x)    # z < -1: invert to 1/z in (-1, 0)
        out[c] = -pi2_6 - 0.5 * np.log(-z[c]) ** 2 - _li2_near_zero(1.0 / z[c])
    return out


def _rounded(fn, x, *args):
    """``fn(x, *args)`` (float64) rounded once to ``x``'s dtype; inf and NaN are values here,
    not warnings."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(x, *args)).astype(x.dtype)


def _dawsn_kernel(x):
    return _rounded(_dawsn, x)


def _expint_kernel(x):
    return _rounded(_expint, x)


def _fresnel_cos_kernel(x):
    return _rounded(_fresnel, x, "c")


def _fresnel_sin_kernel(x):
    return _rounded(_fresnel, x, "s")


def _spence_kernel(x):
    return _rounded(_spence, x)


def _op(op_type, kernel):
    return OpDef(op_type, shape=same_shape, dtype=_same_dtype_in(_TYPES), kernel=kernel,
                 input_names=("x",))


dawsn_op = _op("Dawsn", _dawsn_kernel)
expint_op = _op("Expint", _expint_kernel)
fresnel_cos_op = _op("FresnelCos", _fresnel_cos_kernel)
fresnel_sin_op = _op("FresnelSin", _fresnel_sin_kernel)
spence_op = _op("Spence", _spence_kernel)
_OPS = {op.type: op for op in (dawsn_op, expint_op, fresnel_cos_op, fresnel_sin_op, spence_op)}


def _builder(op_type, scope, doc):
    def build(x, name=None) -> Tensor:
        with name_scope(name, scope, [x]):
            return _OPS[op_type].bind(x)
    build.__name__ = build.__qualname__ = scope
    build.__doc__ = doc
    return build


dawsn = _builder("Dawsn", "dawsn",
                 "Elementwise Dawson's integral ``exp(-x^2) int_0^x exp(t^2) dt``.")
expint = _builder("Expint", "expint", "Elementwise exponential integral ``Ei(x)`` (NaN below 0).")
fresnel_cos = _builder("FresnelCos", "fresnel_cos",
                       "Elementwise Fresnel integral ``C(x) = int_0^x cos(pi t^2 / 2) dt``.")
fresnel_sin = _builder("FresnelSin", "fresnel_sin",
                       "Elementwise Fresnel integral ``S(x) = int_0^x sin(pi t^2 / 2) dt``.")
spence = _builder("Spence", "spence",
                  "Elementwise Spence's function ``int_1^x log(t) / (1 - t) dt`` (x >= 0).")


# ── gradients (TF's math_grad.py) ────────────────────────────────────────────────────
@dawsn_op.def_grad
def _dawsn_grad(op, dy):
    with control_dependencies([dy]):
        x, y = op.inputs[0], op.outputs[0]
        return [dy * (1.0 - 2 * x * y)]


@expint_op.def_grad
def _expint_grad(op, dy):
    with control_dependencies([dy]):
        x = op.inputs[0]
        return [dy * (exp(x) / x)]


@fresnel_cos_op.def_grad
def _fresnel_cos_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * cos((np.pi / 2.0) * square(op.inputs[0]))]


@fresnel_sin_op.def_grad
def _fresnel_sin_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * sin((np.pi / 2.0) * square(op.inputs[0]))]


@spence_op.def_grad
def _spence_grad(op, dy):
    with control_dependencies([dy]):
        x = op.inputs[0]
        return [dy * where(equal(x, 1.0), -ones_like(x), log(x) / (1 - x))]
