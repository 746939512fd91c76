"""The regularized incomplete gamma and beta functions: Igamma (``P(a, x)``), Igammac
(``Q(a, x) = 1 - P``), IgammaGradA (``dP/da``) and Betainc (``I_x(a, b)``).

Computed in float64 and rounded once to the tensor's dtype, vectorised: ``P`` by its power
series where ``x <= a + 1`` (or ``x < 1``) and ``Q`` by its continued fraction (modified
Lentz) elsewhere, each element iterating until its own term no longer counts; ``dP/da``
carries the derivative through the same series and fraction (forward mode), as Eigen's
kernel does. ``I_x(a, b)`` is the continued fraction on whichever of ``x`` and ``1 - x``
converges (the symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)``). Domains and special values are
TF 2.21's, as observed: NaN for ``a <= 0`` or ``x < 0`` (igamma), for ``a, b <= 0`` or ``x``
outside [0, 1] (betainc); ``P(a, 0) = 0``, ``P(a, inf) = 1``.

Gradients are TF's (math_grad.py): Igamma's w.r.t. ``a`` is IgammaGradA, w.r.t. ``x`` the
density ``exp(-x + (a - 1) log x - lgamma(a))``; Igammac's are their negatives; Betainc's
only w.r.t. ``x``.
"""

from __future__ import annotations

import math

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, control_dependencies
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    OpDef,
    broadcast_shape,
    broadcasting,
    merge_shapes,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.math.elementwise_ops import exp, log
from scopeflow.ops.math.special_ops import _digamma64, _map_math, lgamma, xlog1py, xlogy
from scopeflow.ops.op_helpers import _apply, _same_dtype_in

__all__ = ["igamma", "igammac", "betainc"]

_F32_64 = (dtypes.float32, dtypes.float64)
_EPS = np.finfo(np.float64).eps
_TINY = 1e-300
_MAX_ITER = 20000


def _lgamma64(x):
    return _map_math(math.lgamma, x, lambda v: math.inf)


def _igamma_parts(a, x, want_grad=False):
    """``(P, Q, dP/da)`` in float64 over broadcast ``a``, ``x`` (``dP/da`` only when
    asked, else None)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    dp = np.full(a.shape, np.nan) if want_grad else None
    valid = (a > 0) & (x >= 0)            # NaN inputs fail both tests
    zero_x = valid & (x == 0)
    inf_x = valid & np.isinf(x) & np.isfinite(a)
    inf_a = valid & np.isinf(a) & np.isfinite(x)
    for mask, pv, qv in ((zero_x, 0.0, 1.0), (inf_x, 1.0, 0.0), (inf_a, 0.0, 1.0)):
        p[mask], q[mask] = pv, qv
        if want_grad:
            dp[mask] = 0.0
    finite = valid & (x > 0) & np.isfinite(x) & np.isfinite(a)
    with np.errstate(all="ignore"):
        series = finite & ((x <= a + 1) | (x < 1))
        fraction = finite & ~series
        for idx, fn in ((np.flatnonzero(series), _igamma_series),
                        (np.flatnonzero(fraction), _igammac_fraction)):
            if idx.size == 0:
                continue
            ai, xi = a[idx], x[idx]
            log_x = np.log(xi)
            ax = ai * log_x - xi - _lgamma64(ai)
            pref = np.exp(ax)
            value, dvalue = fn(ai, xi, want_grad)
            if fn is _igamma_series:
                p[idx] = np.minimum(value * pref, 1.0)
                q[idx] = 1.0 - p[idx]
                sign = 1.0
            else:
                q[idx] = np.minimum(value * pref, 1.0)
                p[idx] = 1.0 - q[idx]
                sign = -1.0
            if want_grad:
                dp[idx] = sign * pref * (dvalue + value * (log_x - _digamma64(ai)))
    # Eigen's igamma answers x == 0 before checking a (0 for any a, NaN too), and both
    # Inf reach its series / continued fraction, which give 0.
    p[x == 0] = 0.0
    both_inf = np.isposinf(a) & np.isposinf(x)
    p[both_inf], q[both_inf] = 0.0, 0.0
    out = (p.reshape(shape), q.reshape(shape))
    return out + ((dp.reshape(shape) if want_grad else None),)


def _igamma_series(a, x, want_grad):
    """``sum_n x**n / (a (a+1) ... (a+n))`` (so ``P = exp(a log x - x - lgamma a) * sum``)
    and its derivative in ``a``."""
    term = 1.0 / a
    total = term.copy()
    dterm = -term / a
    dtotal = dterm.copy()
    ap = a.copy()
    active = np.arange(a.size)
    for _ in range(_MAX_ITER):
        ap[active] += 1.0
        ratio = x[active] / ap[active]
        term[active] *= ratio
        total[active] += term[active]
        if want_grad:
            dterm[active] = dterm[active] * ratio - term[active] / ap[active]
            dtotal[active] += dterm[active]
        done = np.abs(term[active]) <= np.abs(total[active]) * _EPS
        if want_grad:
            done &= np.abs(dterm[active]) <= np.abs(dtotal[active]) * _EPS
        active = active[~done]
        if active.size == 0:
            break
    return total, dtotal


def _igammac_fraction(a, x, want_grad):
    """The continued fraction of ``Q / exp(a log x - x - lgamma a)`` (modified Lentz) and
    its derivative in ``a``, carried through each step."""
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    dc = np.zeros(a.shape)
    dd = d * d           # d(1/b)/da with db/da = -1
    dh = dd.copy()
    active = np.arange(a.size)
    for i in range(1, _MAX_ITER):
        ai, bi = a[active], b[active] + 2.0 * i
        an = -i * (i - ai)
        dan = float(i)
        den = an * d[active] + bi
        dden = dan * d[active] + an * dd[active] - 1.0
        small = np.abs(den) < _TINY
        den = np.where(small, _TINY, den)
        dden = np.where(small, 0.0, dden)
        cc = c[active]
        cn = bi + an / cc
        dcn = -1.0 + dan / cc - an * dc[active] / (cc * cc)
        small = np.abs(cn) < _TINY
        cn = np.where(small, _TINY, cn)
        dcn = np.where(small, 0.0, dcn)
        dn = 1.0 / den
        ddn = -dden * dn * dn
        delta = dn * cn
        ddelta = ddn * cn + dn * dcn
        dh[active] = dh[active] * delta + h[active] * ddelta
        h[active] *= delta
        c[active], dc[active], d[active], dd[active] = cn, dcn, dn, ddn
        done = np.abs(delta - 1.0) <= _EPS
        if want_grad:
            done &= np.abs(ddelta) <= _EPS * np.abs(dh[active] / np.where(h[active] == 0, 1,
                                                                            h[active]))
        active = active[~done]
        if active.size == 0:
            break
    return h, dh


def _igamma_kernel(a, x):
    return _igamma_parts(a, x)[0].astype(np.result_type(a, x))


def _igammac_kernel(a, x):
    return _igamma_parts(a, x)[1].astype(np.result_type(a, x))


def _igamma_grad_a_kernel(a, x):
    return _igamma_parts(a, x, True)[2].astype(np.result_type(a, x))


def _binary(op_type, kernel, names=("a", "x"), **kw):
    return OpDef(op_type, shape=broadcasting(broadcast_shape),
                 dtype=_same_dtype_in(_F32_64, names[0]), kernel=kernel, input_names=names,
                 **kw)


igamma_op = _binary("Igamma", _igamma_kernel)
igammac_op = _binary("Igammac", _igammac_kernel)
igamma_grad_a_op = _binary("IgammaGradA", _igamma_grad_a_kernel,
                           grad=NO_GRADIENT)  # TF registers none


def _igamma_partials(op, grad):
    a, x = op.inputs
    with control_dependencies([grad]):
        partial_a = igamma_grad_a_op.bind(a, x)
        partial_x = exp(-x + (a - 1) * log(x) - lgamma(a))
        return partial_a * grad, partial_x * grad


@igamma_op.def_grad
def _igamma_grad(op, grad):
    """TF's: IgammaGradA for ``a``; the gamma density for ``x``."""
    return list(_igamma_partials(op, grad))


@igammac_op.def_grad
def _igammac_grad(op, grad):
    """The negatives of Igamma's (``Q = 1 - P``)."""
    da, dx = _igamma_partials(op, grad)
    return [-da, -dx]


def igamma(a, x, name=None) -> Tensor:
    """The lower regularized incomplete gamma function ``P(a, x)``.

    >>> float(tf.Session().run(tf.igamma(1.0, 2.0)))   # 1 - exp(-2)
    0.8646647334098816
    """
    return _apply(igamma_op, [a, x], name)


def igammac(a, x, name=None) -> Tensor:
    """The upper regularized incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _apply(igammac_op, [a, x], name)


# ── Betainc ──────────────────────────────────────────────────────────────────────────
def _betacf(a, b, x):
    """The continued fraction of ``I_x(a, b)`` (modified Lentz), for ``x`` below the mean.

    Each element iterates until its own step no longer counts. The state lives in arrays
    of the elements still iterating, compacted only once 40% of them have finished
    (finished ones ride along, their results already taken), not gathered and scattered
    back every step."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    out = d.copy()
    state = [np.arange(a.size), a, b, x, qab, qap, qam, np.ones(a.shape), d, d.copy()]
    live = np.ones(a.size, bool)
    for m in range(1, _MAX_ITER if a.size else 1):
        c, d, h = _betacf_step(m, *state[1:])
        state[7:] = c, d, h
        finished = live & ~(np.abs(d * c - 1.0) > _EPS)   # delta = dn * cn, as the step's
        if finished.any():
            out[state[0][finished]] = h[finished]
            live &= ~finished
            left = np.count_nonzero(live)
            if left == 0:
                return out
            if left < 0.6 * live.size:
                state = [v[live] for v in state]
                live = np.ones(left, bool)
    out[state[0][live]] = state[9][live]
    return out


def _betacf_step(m, aa_, bb, xx, qa, qp, qm, c, d, h):
    """One step (two partial numerators) of the fraction: the new ``(c, d, h)``."""
    m2 = 2 * m
    num = m * (bb - m) * xx / ((qm + m2) * (aa_ + m2))
    dn = 1.0 + num * d
    dn = 1.0 / np.where(np.abs(dn) < _TINY, _TINY, dn)
    cn = 1.0 + num / c
    cn = np.where(np.abs(cn) < _TINY, _TINY, cn)
    hn = h * dn * cn
    num = -(aa_ + m) * (qa + m) * xx / ((aa_ + m2) * (qp + m2))
    dn = 1.0 + num * dn
    dn = 1.0 / np.where(np.abs(dn) < _TINY, _TINY, dn)
    cn = 1.0 + num / cn
    cn = np.where(np.abs(cn) < _TINY, _TINY, cn)
    return cn, dn, hn * (dn * cn)


def _betainc64(a, b, x):
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    shape = a.shape
    a, b, x = a.ravel(), b.ravel(), x.ravel()
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1) & np.isfinite(a) & np.isfinite(b)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    inner = valid & (x > 0) & (x < 1)
    with np.errstate(all="ignore"):
        direct = inner & (x < (a + 1) / (a + b + 2))
        mirror = inner & ~direct
        for idx, flip in ((np.flatnonzero(direct), False), (np.flatnonzero(mirror), True)):
            if idx.size == 0:
                continue
            ai, bi, xi = a[idx], b[idx], x[idx]
            log_front = (_lgamma64(ai + bi) - _lgamma64(ai) - _lgamma64(bi)
                         + ai * np.log(xi) + bi * np.log1p(-xi))
            front = np.exp(log_front)
            if flip:
                out[idx] = 1.0 - front * _betacf(bi, ai, 1.0 - xi) / bi
            else:
                out[idx] = front * _betacf(ai, bi, xi) / ai
    return out.reshape(shape)


def _betainc_shape(a, b, x):
    """TF's: the non-scalar inputs' shapes must agree (no broadcasting beyond scalars)."""
    out = TensorShape(None)
    known_scalar = []
    for s in (a, b, x):
        if s.ndims == 0:
            known_scalar.append(True)
            continue
        known_scalar.append(False)
        out = merge_shapes(out, s)
    return TensorShape([]) if all(known_scalar) else out


def _betainc_kernel(a, b, x):
    return _betainc64(a, b, x).astype(np.result_type(a, b, x))


betainc_op = OpDef("Betainc", shape=broadcasting(_betainc_shape),
                   dtype=_same_dtype_in(_F32_64, "a"), kernel=_betainc_kernel,
                   input_names=("a", "b", "x"))


@betainc_op.def_grad
def _betainc_grad(op, grad):
    """TF's: only ``x``'s, the beta density, computed in log space (``xlog1py``/``xlogy``
    give the tails' limits at ``a = 1`` or ``b = 1``)."""
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log_beta)
    return [None, None, partial_x * grad]


def betainc(a, b, x, name=None) -> Tensor:
    """The regularized incomplete beta function ``I_x(a, b)``.

    >>> float(tf.Session().run(tf.betainc(2.0, 3.0, 0.5)))
    0.6875
    """
    return _apply(betainc_op, [a, b, x], name)
