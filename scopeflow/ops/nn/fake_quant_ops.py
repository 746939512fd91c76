"""Fake quantization: the ``FakeQuantWithMinMaxArgs``, ``FakeQuantWithMinMaxVars`` and
``FakeQuantWithMinMaxVarsPerChannel`` ops, their ``...Gradient`` ops and the gradients TF
registers for the forward ops (each forward op's gradient is its ``...Gradient`` op).

The kernels follow TF's ``fake_quant_ops_functor.h`` in float32: the range ``[min, max]``
is nudged so that zero is exactly representable (the zero point rounded half away from
zero, as ``std::round``), inputs are clamped to the nudged range and rounded to the
``2**num_bits`` (or one fewer with ``narrow_range``) levels. The gradients pass ``grad``
through where the input lies inside the nudged range; the Vars variants also sum the
gradient of the inputs below (above) the range into ``min`` (``max``), per channel (last
axis) for PerChannel. ``num_bits`` outside [2, 16] and (Args only) ``min >= max`` raise
``InvalidArgumentError`` when the op runs, as TF's kernel constructors do.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.opdef import OpDef, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.op_helpers import _apply

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]

_F32 = np.float32

# What TF's generated wrappers of the Vars gradient ops return.
_VarsGradOutputs = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
_PerChannelGradOutputs = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])


def _float32_rule(op_type, names):
    """TF's fake-quant ops take float32 only (no type attr)."""
    def rule(*dts, **attrs):
        for name, d in zip(names, dts):
            if d is not dtypes.float32:
                raise TypeError(f"Input '{name}' of '{op_type}' Op has type {d.name} that "
                                "does not match expected type of float32.")
        return dtypes.float32
    return rule


def _f32(v):
    """A float attr's value: TF stores ``AttrValue.f`` as float32."""
    return float(_F32(v))


def _check_bits(num_bits):
    if not 2 <= num_bits <= 16:
        raise errors.InvalidArgumentError(None, None,
                                          "num_bits must be between 2 and 16, inclusive")


def _nudge(min_val, max_val, num_bits, narrow_range):
    """TF's ``Nudge``: (nudged_min, nudged_max, scale, zero point less quant_min),
    float32, elementwise over ``min_val``/``max_val`` (scalars or per-channel vectors)."""
    min_val = np.asarray(min_val, _F32)
    max_val = np.asarray(max_val, _F32)
    qmin = _F32(1 if narrow_range else 0)
    qmax = _F32((1 << num_bits) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (max_val - min_val) / (qmax - qmin)
        zero_from_min = qmin - min_val / scale
    rounded = np.sign(zero_from_min) * np.floor(np.abs(zero_from_min) + _F32(0.5))
    zero = np.where(zero_from_min < qmin, qmin,
                    np.where(zero_from_min > qmax, qmax, rounded)).astype(_F32)
    return ((qmin - zero) * scale).astype(_F32), ((qmax - zero) * scale).astype(_F32), \
        scale.astype(_F32), (zero - qmin).astype(_F32)


def _quantize(x, nudged_min, nudged_max, scale, zero):
    """The level ``round((clamp(x) - nudged_min) / scale)``, dequantized as
    ``(level - zero) * scale`` (``zero``: the zero point less quant_min), which is
    bit-identical to TF's float32 results where ``level * scale + nudged_min`` is not."""
    clamped = np.maximum(np.minimum(x, nudged_max), nudged_min)
    shifted = clamped - nudged_min
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return ((np.floor(shifted / scale + _F32(0.5)) - zero) * scale).astype(_F32)


def _in_range(x, nudged_min, nudged_max):
    return (x >= nudged_min) & (x <= nudged_max)


# ── FakeQuantWithMinMaxArgs ──────────────────────────────────────────────────────────
_ARGS_ATTRS = {"min": -6.0, "max": 6.0, "num_bits": 8, "narrow_range": False}


def _check_args(min, max, num_bits):
    if min >= max:
        raise errors.InvalidArgumentError(
            None, None, f"min has to be smaller than max, was: {min:g} >= {max:g}")
    _check_bits(num_bits)


def _args_kernel(x, *, min, max, num_bits, narrow_range):
    _check_args(min, max, num_bits)
    return _quantize(x, *_nudge(min, max, num_bits, narrow_range))


def _args_grad_kernel(grad, x, *, min, max, num_bits, narrow_range):
    _check_args(min, max, num_bits)
    if grad.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"gradient and input must be the same size: {grad.shape} vs {x.shape}")
    lo, hi, _, _ = _nudge(min, max, num_bits, narrow_range)
    return (grad * _in_range(x, lo, hi)).astype(_F32)


fake_quant_args_op = OpDef(
    "FakeQuantWithMinMaxArgs", shape=lambda x, **a: x,
    dtype=_float32_rule("FakeQuantWithMinMaxArgs", ("inputs",)), kernel=_args_kernel,
    attrs=_ARGS_ATTRS, input_names=("inputs",))

fake_quant_args_grad_op = OpDef(
    "FakeQuantWithMinMaxArgsGradient", shape=lambda g, x, **a: merge_shapes(g, x),
    dtype=_float32_rule("FakeQuantWithMinMaxArgsGradient", ("gradients", "inputs")),
    kernel=_args_grad_kernel, attrs=_ARGS_ATTRS, grad=None,
    input_names=("gradients", "inputs"))


def _attrs_of(op, names):
    return {n: op.get_attr(n) for n in names}


@fake_quant_args_op.def_grad
def _args_grad(op, grad):
    return fake_quant_args_grad_op.bind(
        grad, op.inputs[0], **_attrs_of(op, ("min", "max", "num_bits", "narrow_range")))


def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8, narrow_range=False,
                                 name=None):
    """``inputs`` quantized to ``num_bits`` levels over the nudged ``[min, max]`` (float
    attrs) and dequantized again: float32 in, float32 out.

    >>> fake_quant_with_min_max_args([0.3], min=-1.0, max=1.0).dtype.name
    'float32'
    """
    return _apply(fake_quant_args_op, [inputs], name=name, min=_f32(min), max=_f32(max),
                  num_bits=int(num_bits), narrow_range=bool(narrow_range))


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6, num_bits=8,
                                          narrow_range=False, name=None):
    """``gradients`` where ``inputs`` lies in the nudged ``[min, max]``, else 0 (the
    gradient of ``fake_quant_with_min_max_args``)."""
    return _apply(fake_quant_args_grad_op, [gradients, inputs], name=name, min=_f32(min),
                  max=_f32(max), num_bits=int(num_bits), narrow_range=bool(narrow_range))


# ── FakeQuantWithMinMaxVars ──────────────────────────────────────────────────────────
_VARS_ATTRS = {"num_bits": 8, "narrow_range": False}


def _scalar(s, what):
    if s.ndims is not None and s.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")


def _vars_shape(x, lo, hi, **attrs):
    _scalar(lo, "min")
    _scalar(hi, "max")
    return x


def _vars_kernel(x, lo, hi, *, num_bits, narrow_range):
    _check_bits(num_bits)
    return _quantize(x, *_nudge(lo, hi, num_bits, narrow_range))


def _vars_grad_shape(g, x, lo, hi, **attrs):
    _scalar(lo, "min")
    _scalar(hi, "max")
    return [merge_shapes(g, x), TensorShape([]), TensorShape([])]


def _vars_grad_kernel(grad, x, lo, hi, *, num_bits, narrow_range):
    _check_bits(num_bits)
    if grad.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"gradient and input must be the same size: {grad.shape} vs {x.shape}")
    nlo, nhi, _, _ = _nudge(lo, hi, num_bits, narrow_range)
    dx = (grad * _in_range(x, nlo, nhi)).astype(_F32)
    dmin = (grad * (x < nlo)).sum(dtype=_F32)
    dmax = (grad * (x > nhi)).sum(dtype=_F32)
    return dx, _F32(dmin), _F32(dmax)


fake_quant_vars_op = OpDef(
    "FakeQuantWithMinMaxVars", shape=_vars_shape,
    dtype=_float32_rule("FakeQuantWithMinMaxVars", ("inputs", "min", "max")),
    kernel=_vars_kernel, attrs=_VARS_ATTRS, input_names=("inputs", "min", "max"))

_vars_grad_dtype = _float32_rule("FakeQuantWithMinMaxVarsGradient",
                                 ("gradients", "inputs", "min", "max"))
fake_quant_vars_grad_op = OpDef(
    "FakeQuantWithMinMaxVarsGradient", shape=_vars_grad_shape,
    dtype=lambda *d, **a: [_vars_grad_dtype(*d)] * 3, kernel=_vars_grad_kernel,
    attrs=_VARS_ATTRS, num_outputs=3, grad=None, input_names=("gradients", "inputs", "min", "max"))


@fake_quant_vars_op.def_grad
def _vars_grad(op, grad):
    return list(fake_quant_vars_grad_op.bind(grad, *op.inputs,
                                             **_attrs_of(op, ("num_bits", "narrow_range"))))


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False,
                                 name=None):
    """``fake_quant_with_min_max_args`` with the range given by scalar float32 tensors
    (typically variables), which get gradients too."""
    return _apply(fake_quant_vars_op, [inputs, min, max], name=name, num_bits=int(num_bits),
                  narrow_range=bool(narrow_range))


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8,
                                          narrow_range=False, name=None):
    """(backprops for ``inputs``, for ``min``, for ``max``) of
    ``fake_quant_with_min_max_vars``."""
    attrs = {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
    return _VarsGradOutputs(*_create(fake_quant_vars_grad_op, [gradients, inputs, min, max],
                                     name, attrs))


def _create(op_def, values, name, attrs):
    """``op_def``'s op (all outputs): as TF's op helper, Python values become float32
    constants inside the op's name scope (``.../min``)."""
    graph = next((v.graph for v in values if isinstance(v, Tensor)), get_default_graph())
    with graph.as_default(), graph.name_scope(name or op_def.type) as scope:
        tensors = [v if isinstance(v, Tensor) else
                   convert_to_tensor(v, name=n, preferred_dtype=dtypes.float32)
                   for v, n in zip(values, op_def.input_names)]
        return tuple(op_def.create(tensors, attrs, scope)._outputs)


# ── FakeQuantWithMinMaxVarsPerChannel ────────────────────────────────────────────────
def _vector(s):
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")


def _merge_dim(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _channels(x, lo, hi):
    """The channel count of ``x``'s last axis and the min/max vectors, checked pairwise
    as TF's shape function (which leaves ``x``'s own shape as it is)."""
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    _vector(lo)
    _vector(hi)
    last = None if x.ndims is None else x.as_tuple()[-1]
    m = None if lo.ndims is None else lo.as_tuple()[0]
    M = None if hi.ndims is None else hi.as_tuple()[0]
    _merge_dim(last, m)
    _merge_dim(last, M)
    _merge_dim(m, M)
    return _merge_dim(_merge_dim(last, m), M)


def _pc_shape(x, lo, hi, **attrs):
    _channels(x, lo, hi)
    return x


def _pc_check(x, lo, hi):
    if x.ndim < 1 or lo.shape != (x.shape[-1],) or hi.shape != (x.shape[-1],):
        raise errors.InvalidArgumentError(
            None, None, f"min and max must be vectors of the inputs' last dimension "
            f"{x.shape[-1:]}: got {lo.shape} and {hi.shape}")


def _pc_kernel(x, lo, hi, *, num_bits, narrow_range):
    _check_bits(num_bits)
    _pc_check(x, lo, hi)
    return _quantize(x, *_nudge(lo, hi, num_bits, narrow_range))


def _pc_grad_shape(g, x, lo, hi, **attrs):
    xs = merge_shapes(g, x)
    if xs.ndims is not None and xs.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {xs.ndims}")
    _vector(lo)
    _vector(hi)
    # TF merges min with max, then that with the inputs' last dim (shape-merge messages).
    d = merge_shapes(merge_shapes(lo, hi), TensorShape([None if xs.ndims is None else
                                                        xs.as_tuple()[-1]]))
    return [xs, d, d]


def _pc_grad_kernel(grad, x, lo, hi, *, num_bits, narrow_range):
    _check_bits(num_bits)
    _pc_check(x, lo, hi)
    if grad.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"gradient and input must be the same size: {grad.shape} vs {x.shape}")
    nlo, nhi, _, _ = _nudge(lo, hi, num_bits, narrow_range)
    axes = tuple(range(x.ndim - 1))
    dx = (grad * _in_range(x, nlo, nhi)).astype(_F32)
    dmin = (grad * (x < nlo)).sum(axis=axes, dtype=_F32)
    dmax = (grad * (x > nhi)).sum(axis=axes, dtype=_F32)
    return dx, dmin.astype(_F32), dmax.astype(_F32)


fake_quant_pc_op = OpDef(
    "FakeQuantWithMinMaxVarsPerChannel", shape=_pc_shape,
    dtype=_float32_rule("FakeQuantWithMinMaxVarsPerChannel", ("inputs", "min", "max")),
    kernel=_pc_kernel, attrs=_VARS_ATTRS, input_names=("inputs", "min", "max"))

_pc_grad_dtype = _float32_rule("FakeQuantWithMinMaxVarsPerChannelGradient",
                               ("gradients", "inputs", "min", "max"))
fake_quant_pc_grad_op = OpDef(
    "FakeQuantWithMinMaxVarsPerChannelGradient", shape=_pc_grad_shape,
    dtype=lambda *d, **a: [_pc_grad_dtype(*d)] * 3, kernel=_pc_grad_kernel,
    attrs=_VARS_ATTRS, num_outputs=3, grad=None, input_names=("gradients", "inputs", "min", "max"))


@fake_quant_pc_op.def_grad
def _pc_grad(op, grad):
    return list(fake_quant_pc_grad_op.bind(grad, *op.inputs,
                                           **_attrs_of(op, ("num_bits", "narrow_range"))))


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,
                                             name=None):
    """``fake_quant_with_min_max_vars`` with one range per channel: ``min``/``max`` are
    vectors matching ``inputs``' last axis."""
    return _apply(fake_quant_pc_op, [inputs, min, max], name=name, num_bits=int(num_bits),
                  narrow_range=bool(narrow_range))


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,
                                                      narrow_range=False, name=None):
    """(backprops for ``inputs``, per-channel for ``min``, for ``max``) of
    ``fake_quant_with_min_max_vars_per_channel``."""
    attrs = {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}
    return _PerChannelGradOutputs(*_create(fake_quant_pc_grad_op,
                                           [gradients, inputs, min, max], name, attrs))
