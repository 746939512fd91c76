"""TF's fused gradient ops of elementwise functions: TanhGrad, SigmoidGrad, SqrtGrad,
RsqrtGrad, ReciprocalGrad and InvGrad, each ``(y, dy)`` with ``y`` the function's output.

TF's own gradient rules emit these, so every training graph TF wrote with a tanh, sigmoid
(LSTMs, GRUs), sqrt, rsqrt (batch norm) or reciprocal holds them, and such a ``.meta``
imports here only with them. scopeflow's own rules build the same formulas from
elementwise ops (``elementwise_ops``); these kernels are the vectorized (packet) forms of
TF's functors in ``cwise_ops.h``, which TF runs on arrays, in their order of operations,
with ``mul_no_nan`` where TF has it (a zero factor gives 0 even against inf or NaN).
Their gradients are TF's (``math_grad.py``), so second derivatives through an imported
graph work.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX
from scopeflow.framework.graph import Tensor, control_dependencies
from scopeflow.framework.opdef import OpDef, merge_shapes
from scopeflow.ops.math.arithmetic_ops import conj, multiply, realdiv, subtract
from scopeflow.ops.op_helpers import _const_like, _same_dtype_in

__all__ = ["tanh_grad", "sigmoid_grad", "sqrt_grad", "rsqrt_grad", "reciprocal_grad"]


def _same_shapes(y, dy, **attrs):
    return merge_shapes(y, dy)


def _grad_op(op_type, kernel):
    """The OpDef of ``<Fn>Grad(y, dy)`` (same shapes, a float or complex dtype)."""
    return OpDef(op_type, shape=_same_shapes, dtype=_same_dtype_in(FLOAT_OR_COMPLEX),
                 kernel=kernel, input_names=("y", "dy"))


def _mul_no_nan(a, b):
    """Eigen's ``mul_no_nan_op``: ``a * b``, and 0 where ``b`` is 0."""
    out = a * b
    zero = b == 0
    if zero.any():
        out = np.where(zero, np.zeros_like(out), out)
    return out


def _one(y):
    return y.dtype.type(1)


# ── TanhGrad ─────────────────────────────────────────────────────────────────────────
def _tanh_grad_kernel(y, dy):
    y = np.conj(y)
    return dy * (_one(y) - y * y)


tanh_grad_op = _grad_op("TanhGrad", _tanh_grad_kernel)


@tanh_grad_op.def_grad
def _tanh_grad_grad(op, grad):
    with control_dependencies([grad]):
        a, b = conj(op.inputs[0]), conj(op.inputs[1])
        return [multiply(multiply(multiply(grad, _const_like(-2.0, a)), b), a),
                tanh_grad(a, grad)]


def tanh_grad(y, dy, name=None) -> Tensor:
    """``dy * (1 - y * y)``: the gradient of ``y = tanh(x)``."""
    return tanh_grad_op.bind(y, dy, name=name)


# ── SigmoidGrad ──────────────────────────────────────────────────────────────────────
def _sigmoid_grad_kernel(y, dy):
    y = np.conj(y)
    return dy * (y * (_one(y) - y))


sigmoid_grad_op = _grad_op("SigmoidGrad", _sigmoid_grad_kernel)


@sigmoid_grad_op.def_grad
def _sigmoid_grad_grad(op, grad):
    with control_dependencies([grad]):
        a, b = conj(op.inputs[0]), conj(op.inputs[1])
        gb = multiply(grad, b)
        return [subtract(gb, multiply(multiply(_const_like(2.0, a), gb), a)),
                sigmoid_grad(a, grad)]


def sigmoid_grad(y, dy, name=None) -> Tensor:
    """``dy * y * (1 - y)``: the gradient of ``y = sigmoid(x)``."""
    return sigmoid_grad_op.bind(y, dy, name=name)


# ── SqrtGrad ─────────────────────────────────────────────────────────────────────────
def _sqrt_grad_kernel(y, dy):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _mul_no_nan(y.dtype.type(0.5) / np.conj(y), dy)


sqrt_grad_op = _grad_op("SqrtGrad", _sqrt_grad_kernel)


@sqrt_grad_op.def_grad
def _sqrt_grad_grad(op, grad):
    a, y = op.inputs[0], op.outputs[0]
    with control_dependencies([grad]):
        ga = realdiv(grad, a)
        return [multiply(_const_like(-1.0, a), multiply(conj(ga), y)),
                multiply(_const_like(0.5, a), ga)]


def sqrt_grad(y, dy, name=None) -> Tensor:
    """``0.5 * dy / y``: the gradient of ``y = sqrt(x)``."""
    return sqrt_grad_op.bind(y, dy, name=name)


# ── RsqrtGrad ────────────────────────────────────────────────────────────────────────
def _rsqrt_grad_kernel(y, dy):
    y = np.conj(y)
    return _mul_no_nan(y.dtype.type(-0.5) * (y * y), _mul_no_nan(y, dy))


rsqrt_grad_op = _grad_op("RsqrtGrad", _rsqrt_grad_kernel)


@rsqrt_grad_op.def_grad
def _rsqrt_grad_grad(op, grad):
    a, b = op.inputs
    with control_dependencies([grad]):
        ca, cg = conj(a), conj(grad)
        return [multiply(multiply(multiply(_const_like(-1.5, a), cg), b), multiply(ca, ca)),
                rsqrt_grad(ca, grad)]


def rsqrt_grad(y, dy, name=None) -> Tensor:
    """``-0.5 * dy * y**3``: the gradient of ``y = rsqrt(x)``."""
    return rsqrt_grad_op.bind(y, dy, name=name)


# ── ReciprocalGrad, InvGrad ──────────────────────────────────────────────────────────
def _reciprocal_grad_kernel(y, dy):
    y = np.conj(y)
    return _mul_no_nan(-(y * y), dy)


reciprocal_grad_op = _grad_op("ReciprocalGrad", _reciprocal_grad_kernel)
inv_grad_op = _grad_op("InvGrad", _reciprocal_grad_kernel)


def _reciprocal_grad_grad(op, grad):
    b = op.inputs[1]
    with control_dependencies([grad]):
        ca, cg = conj(op.inputs[0]), conj(grad)
        return [multiply(multiply(multiply(cg, _const_like(-2.0, ca)), b), ca),
                reciprocal_grad(ca, grad)]


reciprocal_grad_op.def_grad(_reciprocal_grad_grad)
inv_grad_op.def_grad(_reciprocal_grad_grad)


def reciprocal_grad(y, dy, name=None) -> Tensor:
    """``-dy * y * y``: the gradient of ``y = 1 / x``."""
    return reciprocal_grad_op.bind(y, dy, name=name)
