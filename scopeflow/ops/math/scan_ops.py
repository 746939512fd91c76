"""Scans along one axis: ``Cumsum``, ``Cumprod`` and ``CumulativeLogsumexp``.

Each takes ``x`` and a scalar ``axis`` tensor and the attrs ``exclusive`` (the first
element of the scan is the identity, so each output excludes its own input) and
``reverse`` (scan from the end). Their kernels accumulate sequentially along the axis in
the input's own dtype, as TF's scan does, so float32 results round as TF's. Each gradient
is the scan run the other way (TF's ``math_grad``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOATS, INDEX, NUMERIC
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.ops.math.arithmetic_ops import (
    add,
    div_no_nan,
    greater,
    less,
    multiply,
    negative,
    subtract,
)
from scopeflow.ops.math.elementwise_ops import exp, log
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.op_helpers import _const_like

__all__ = ["cumsum", "cumprod", "cumulative_logsumexp"]

def _scan_shape(x, axis, *, exclusive, reverse):
    # TF's shape function only forwards x's shape; the axis is checked when the kernel runs.
    return x


def _scan_dtype_in(allowed):
    def rule(x, axis, *, exclusive, reverse):
        check_dtype(axis, INDEX, "axis")
        return check_dtype(x, allowed, "x")
    return rule


def _scan(ufunc, identity, x, axis, exclusive, reverse):
    """The three kernels' body: ``ufunc.accumulate`` along ``axis`` in ``x``'s dtype,
    shifted by one (``identity`` first) when ``exclusive``, from the end when ``reverse``."""
    x = np.asarray(x)
    axis = np.asarray(axis)
    if axis.ndim != 0:
        raise InvalidArgumentError(None, None, f"ScanOp: axis must be a scalar, not "
                                   f"[{','.join(map(str, axis.shape))}]")
    nd, ax = x.ndim, int(axis)
    if not -nd <= ax < nd:
        raise InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range "
                                   f"[{-nd}, {nd}), but got {ax}")
    ax %= nd
    if reverse:
        x = np.flip(x, ax)
    out = ufunc.accumulate(x, axis=ax, dtype=x.dtype)
    if exclusive and x.shape[ax]:
        first = np.full_like(np.take(out, [0], axis=ax), identity)
        out = np.concatenate([first, np.take(out, np.arange(x.shape[ax] - 1), axis=ax)], ax)
    if reverse:
        out = np.flip(out, ax)
    return np.ascontiguousarray(out)


def _scan_op(op_type, allowed, kernel):
    return OpDef(op_type, shape=_scan_shape, dtype=_scan_dtype_in(allowed), kernel=kernel,
                 attrs={"exclusive": False, "reverse": False}, input_names=("x", "axis"))


def _bind_scan(op_def, default_name, x, axis, exclusive, reverse, name):
    """TF's wrappers: the op under a name scope of its type, ``x`` converted as ``x``."""
    with name_scope(name, default_name, [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return op_def.bind(x, axis, exclusive=bool(exclusive), reverse=bool(reverse),
                           name=scope)


# ── Cumsum ───────────────────────────────────────────────────────────────────────────
def _cumsum_kernel(x, axis, *, exclusive, reverse):
    return _scan(np.add, 0, x, axis, exclusive, reverse)


# TF's numbertypes include bfloat16 (the scans accept it, unlike most math here)
_NUMBERTYPES = NUMERIC + (dtypes.bfloat16,)
cumsum_op = _scan_op("Cumsum", _NUMBERTYPES, _cumsum_kernel)


@cumsum_op.def_grad
def _cumsum_grad(op, dy):
    """TF's ``_CumsumGrad``: the same sum, accumulated from the other end."""
    return [cumsum(dy, op.inputs[1], exclusive=op.get_attr("exclusive"),
                   reverse=not op.get_attr("reverse")), None]


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running sum of ``x`` along ``axis``.

    >>> tf.Session().run(tf.cumsum([1, 2, 3], exclusive=True))
    array([0, 1, 3], dtype=int32)
    """
    return _bind_scan(cumsum_op, "Cumsum", x, axis, exclusive, reverse, name)


# ── Cumprod ──────────────────────────────────────────────────────────────────────────
def _cumprod_kernel(x, axis, *, exclusive, reverse):
    return _scan(np.multiply, 1, x, axis, exclusive, reverse)


cumprod_op = _scan_op("Cumprod", _NUMBERTYPES, _cumprod_kernel)


@cumprod_op.def_grad
def _cumprod_grad(op, dy):
    """TF's ``_CumprodGrad``: ``cumsum(cumprod(x) * dy, reversed) / x`` (0 where x is 0,
    which is where TF's rule is known to be wrong too)."""
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(multiply(prod, dy), axis, exclusive=exclusive, reverse=not reverse)
    return [div_no_nan(out, x), None]


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running product of ``x`` along ``axis``.

    >>> tf.Session().run(tf.cumprod([1., 2., 3.], reverse=True))
    array([6., 6., 3.], dtype=float32)
    """
    return _bind_scan(cumprod_op, "Cumprod", x, axis, exclusive, reverse, name)


# ── CumulativeLogsumexp ──────────────────────────────────────────────────────────────
class _TFLogAddExp:
    """TF's ``LogSumExp`` scan step, ``max + log1p(exp(min - max))`` from an accumulator
    that starts at -Inf, with ``min``/``max`` as Eigen's (``std::min``/``std::max``: a NaN
    element leaves the accumulator's side), so a NaN element counts as the accumulator
    itself and ``Inf`` after ``Inf`` is NaN. ``np.logaddexp`` agrees wherever the input
    holds no NaN and no +Inf; this slower step runs only where it does."""

    @staticmethod
    def accumulate(x, axis, dtype):
        out = np.empty_like(x, dtype=dtype)
        acc = np.full(np.delete(x.shape, axis), -np.inf, dtype)
        with np.errstate(invalid="ignore"):
            for i in range(x.shape[axis]):
                t = np.take(x, i, axis=axis)
                lo, hi = np.where(t < acc, t, acc), np.where(acc < t, t, acc)
                acc = np.where(hi < np.finfo(dtype).min, hi, np.log1p(np.exp(lo - hi)) + hi)
                acc = acc.astype(dtype, copy=False)
                np.moveaxis(out, axis, 0)[i] = acc
        return out


def _cumulative_logsumexp_kernel(x, axis, *, exclusive, reverse):
    step = _TFLogAddExp if np.isnan(x).any() or np.isposinf(x).any() else np.logaddexp
    return _scan(step, -np.inf, x, axis, exclusive, reverse)


cumulative_logsumexp_op = _scan_op("CumulativeLogsumexp", FLOATS, _cumulative_logsumexp_kernel)


@cumulative_logsumexp_op.def_grad
def _cumulative_logsumexp_grad(op, dy):
    """TF's ``_CumulativeLogsumexpGrad``: the positive and negative parts of ``dy`` are
    scanned in log space from the other end, so nothing overflows."""
    x, axis = op.inputs
    out = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    lowest = _const_like(dy.dtype.min, dy)
    zero = _const_like(0, dy)
    log_pos = where_v2(greater(dy, zero), log(dy), lowest)
    log_neg = where_v2(less(dy, zero), log(negative(dy)), lowest)
    pos = exp(add(cumulative_logsumexp(subtract(log_pos, out), axis=axis, reverse=not reverse,
                                       exclusive=exclusive), x))
    neg = exp(add(cumulative_logsumexp(subtract(log_neg, out), axis=axis, reverse=not reverse,
                                       exclusive=exclusive), x))
    return [subtract(pos, neg), None]


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Running ``log(sum(exp(x)))`` along ``axis``, computed without overflow.

    >>> round(float(tf.Session().run(tf.math.cumulative_logsumexp([0., 0.]))[1]), 4)
    0.6931
    """
    return _bind_scan(cumulative_logsumexp_op, "CumulativeLogsumexp", x, axis, exclusive,
                      reverse, name)
