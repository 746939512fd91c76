"""Normalization ops: FusedBatchNormV3 (with FusedBatchNormGradV3) and LRN (with LRNGrad).

Each op is one block (rules, NumPy kernel, gradient, public builder). Fused batch norm
computes in float32 whatever ``x``'s float type (as TF's CPU kernel); LRN in float64. The
normalizations built from other ops (``batch_normalization``, ``moments``,
``l2_normalize``) are in :mod:`scopeflow.ops.nn.nn_composites`. Op types, default names,
values and gradients follow TensorFlow 2.21 with TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import constant_op
from scopeflow.ops.math.blas import gemm
from scopeflow.ops.math.reduction_ops import _sum_accumulator
from scopeflow.ops.nn import batch_norm_blocks
from scopeflow.ops.nn.nn_rules import merge_same_shape, same_dtype_in

__all__ = ["fused_batch_norm", "lrn", "local_response_normalization"]


# ── FusedBatchNormV3 / FusedBatchNormGradV3 ──────────────────────────────────────────
def _channel_axis(data_format, ndim):
    return 1 if data_format.startswith("NC") else ndim - 1


def _bn_reduce_axes(ndim, data_format):
    c = _channel_axis(data_format, ndim)
    return tuple(i for i in range(ndim) if i != c), c


def _bn_bcast(v, ndim, c):
    shape = [1] * ndim
    shape[c] = -1
    return v.reshape(shape)


def _fused_bn_shape(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                    data_format, is_training):
    if x.ndims is not None and x.ndims not in (4, 5):
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    c = None
    if x.ndims is not None:
        c = x.as_tuple()[_channel_axis(data_format, x.ndims)]
    for v in (scale, offset):
        if v.ndims is not None and v.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {v.ndims}")
        if v.ndims == 1 and c is None:
            c = v.as_tuple()[0]
    vec = TensorShape([c])
    return [x, vec, vec, vec, vec, TensorShape(None)]


def _fused_bn_dtype(x, scale, offset, mean, variance, **attrs):
    check_dtype(x, FLOATS, "T")
    u = check_dtype(scale, (dtypes.float32,), "U")
    return [x, u, u, u, u, u]


def _fused_bn_kernel(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                     data_format, is_training):
    axes, c = _bn_reduce_axes(x.ndim, data_format)
    xf = x.astype(np.float32, copy=False)
    if is_training:
        n = x.size // max(x.shape[c], 1)
        wide = _sum_accumulator(xf, axes)  # float64 for long sums, as Mean's
        batch_mean = xf.mean(axis=axes, dtype=wide).astype(np.float32)
        centered = xf - _bn_bcast(batch_mean, x.ndim, c)
        batch_var = np.square(centered).mean(axis=axes, dtype=wide).astype(np.float32)
        run_var = batch_var * np.float32(n / (n - 1) if n > 1 else 1)
        factor = np.float32(exponential_avg_factor)
        if factor != 1:
            run_mean = (1 - factor) * mean + factor * batch_mean
            run_var = (1 - factor) * variance + factor * run_var
        else:
            run_mean = batch_mean
        inv = 1 / np.sqrt(batch_var + np.float32(epsilon))
        y = centered
        saved_mean, saved_var = batch_mean, batch_var
    else:
        if batch_norm_blocks.takes(x, c):
            y = batch_norm_blocks.normalize(x, mean, inference_multiplier(
                scale, variance, epsilon), offset)
            return inference_outputs(y, mean, variance)
        inv = 1 / np.sqrt(variance + np.float32(epsilon))
        run_mean, run_var = mean.copy(), variance.copy()
        saved_mean, saved_var = mean.copy(), variance.copy()
        y = xf - _bn_bcast(mean, x.ndim, c)
    y *= _bn_bcast(inv * scale, x.ndim, c)
    y += _bn_bcast(offset, x.ndim, c)
    return (y.astype(x.dtype, copy=False), run_mean, run_var, saved_mean, saved_var,
            np.zeros([0], np.float32))


def inference_multiplier(scale, variance, epsilon):
    """What an inference batch norm multiplies ``x - mean`` by, per channel."""
    return 1 / np.sqrt(variance + np.float32(epsilon)) * scale


def inference_outputs(y, mean, variance, count=6):
    """A FusedBatchNorm's outputs (its first ``count``) in inference: ``y``, then the given
    statistics as its running and saved ones."""
    return (y, mean.copy(), variance.copy(), mean.copy(), variance.copy(),
            np.zeros([0], np.float32))[:count]


_BN_ATTRS = {"epsilon": 1e-4, "exponential_avg_factor": 1.0, "data_format": "NHWC",
             "is_training": True}
fused_bn_op = OpDef("FusedBatchNormV3", shape=_fused_bn_shape, dtype=_fused_bn_dtype,
                    kernel=_fused_bn_kernel, num_outputs=6, attrs=dict(_BN_ATTRS),
                    input_names=("x", "scale", "offset", "mean", "variance"))


def _fused_bn_grad_shape(dy, x, scale, r1, r2, r3, **attrs):
    vec = TensorShape([scale.as_tuple()[0] if scale.ndims == 1 else None])
    return [merge_shapes(dy, x), vec, vec, TensorShape([0]), TensorShape([0])]


def _fused_bn_grad_dtype(dy, x, scale, r1, r2, r3, **attrs):
    check_dtype(x, FLOATS, "T")
    return [x, scale, scale, scale, scale]


def _fused_bn_grad_kernel(dy, x, scale, saved_mean, saved_var, r3, *, epsilon,
                          data_format, is_training):
    axes, c = _bn_reduce_axes(x.ndim, data_format)
    dyf = dy.astype(np.float32, copy=False)
    inv = 1 / np.sqrt(saved_var + np.float32(epsilon))
    x_hat = x.astype(np.float32) - _bn_bcast(saved_mean, x.ndim, c)
    x_hat *= _bn_bcast(inv, x.ndim, c)
    wide = _sum_accumulator(dyf, axes)
    d_offset = dyf.sum(axis=axes, dtype=wide).astype(np.float32)
    d_scale = (dyf * x_hat).sum(axis=axes, dtype=wide).astype(np.float32)
    if is_training:
        n = np.float32(x.size // max(x.shape[c], 1))
        x_hat *= _bn_bcast(d_scale / n, x.ndim, c)
        dx = dyf - _bn_bcast(d_offset / n, x.ndim, c)
        dx -= x_hat
        dx *= _bn_bcast(scale * inv, x.ndim, c)
    else:
        dx = dyf * _bn_bcast(scale * inv, x.ndim, c)
    empty = np.zeros([0], np.float32)
    return dx.astype(x.dtype, copy=False), d_scale, d_offset, empty, empty.copy()


fused_bn_grad_op = OpDef(
    "FusedBatchNormGradV3", shape=_fused_bn_grad_shape, dtype=_fused_bn_grad_dtype,
    kernel=_fused_bn_grad_kernel, num_outputs=5,
    grad=NO_GRADIENT,  # TF has a second-order rule; without one, raise rather than give 0
    attrs={"epsilon": 1e-4, "data_format": "NHWC", "is_training": True},
    input_names=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2",
                 "reserve_space_3"))


@fused_bn_op.def_grad
def _fused_bn_grad(op, dy, *unused):
    x, scale = op.inputs[0], op.inputs[1]
    dx, dscale, doffset, _, _ = fused_bn_grad_op.bind(
        dy, x, scale, op.outputs[3], op.outputs[4], op.outputs[5],
        epsilon=op.get_attr("epsilon"), data_format=op.get_attr("data_format"),
        is_training=op.get_attr("is_training"))
    return [dx, dscale, doffset, None, None]


# ── FusedBatchNorm / FusedBatchNormV2 ────────────────────────────────────────────────
# TF 1.x's fused batch norms, in the GraphDefs TF 1.x wrote (frozen model-zoo graphs) and
# from optimize_for_inference's fuse_decomposed_batch_norm: FusedBatchNormV3's values
# without its sixth output (V1: every input of type T; V2: scale..variance of type U).
def _fused_bn_v1_shape(x, scale, offset, mean, variance, **attrs):
    return _fused_bn_shape(x, scale, offset, mean, variance, **attrs)[:5]


def _fused_bn_v1_dtype(x, scale, offset, mean, variance, **attrs):
    return _fused_bn_dtype(x, scale, offset, mean, variance, **attrs)[:5]


def _fused_bn_v1_kernel(x, scale, offset, mean, variance, **attrs):
    return _fused_bn_kernel(x, scale, offset, mean, variance, **attrs)[:5]


fused_bn_v1_op = OpDef("FusedBatchNorm", shape=_fused_bn_v1_shape, dtype=_fused_bn_v1_dtype,
                       kernel=_fused_bn_v1_kernel, num_outputs=5, attrs=dict(_BN_ATTRS),
                       input_names=("x", "scale", "offset", "mean", "variance"))
fused_bn_v2_op = OpDef("FusedBatchNormV2", shape=_fused_bn_v1_shape, dtype=_fused_bn_v1_dtype,
                       kernel=_fused_bn_v1_kernel, num_outputs=5, attrs=dict(_BN_ATTRS),
                       input_names=("x", "scale", "offset", "mean", "variance"))


# Their gradients, as TF's rules emit them (TF 1.x training graphs hold these): the
# V3 gradient's values from the saved statistics, without its third reserve input.
def _fused_bn_grad_v1_shape(dy, x, scale, r1, r2, **attrs):
    return _fused_bn_grad_shape(dy, x, scale, r1, r2, None, **attrs)


def _fused_bn_grad_v1_dtype(dy, x, scale, r1, r2, **attrs):
    return _fused_bn_grad_dtype(dy, x, scale, r1, r2, None, **attrs)


def _fused_bn_grad_v1_kernel(dy, x, scale, saved_mean, saved_var, **attrs):
    return _fused_bn_grad_kernel(dy, x, scale, saved_mean, saved_var, None, **attrs)


_BN_GRAD_V1_INPUTS = ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2")
fused_bn_grad_v1_op = OpDef(
    "FusedBatchNormGrad", shape=_fused_bn_grad_v1_shape, dtype=_fused_bn_grad_v1_dtype,
    kernel=_fused_bn_grad_v1_kernel, num_outputs=5, grad=NO_GRADIENT,
    attrs={"epsilon": 1e-4, "data_format": "NHWC", "is_training": True},
    input_names=_BN_GRAD_V1_INPUTS)
fused_bn_grad_v2_op = OpDef(
    "FusedBatchNormGradV2", shape=_fused_bn_grad_v1_shape, dtype=_fused_bn_grad_v1_dtype,
    kernel=_fused_bn_grad_v1_kernel, num_outputs=5, grad=NO_GRADIENT,
    attrs={"epsilon": 1e-4, "data_format": "NHWC", "is_training": True},
    input_names=_BN_GRAD_V1_INPUTS)


def _fused_bn_v1_grad(op, dy, *unused):
    """FusedBatchNorm(V2)'s gradient: FusedBatchNormGrad(V2) of the saved statistics
    (outputs 3 and 4), as TF's ``_FusedBatchNormGrad``."""
    grad_op = fused_bn_grad_v1_op if op.type == "FusedBatchNorm" else fused_bn_grad_v2_op
    dx, dscale, doffset, _, _ = grad_op.bind(
        dy, op.inputs[0], op.inputs[1], op.outputs[3], op.outputs[4],
        epsilon=op.get_attr("epsilon"), data_format=op.get_attr("data_format"),
        is_training=op.get_attr("is_training"))
    return [dx, dscale, doffset, None, None]


fused_bn_v1_op.def_grad(_fused_bn_v1_grad)
fused_bn_v2_op.def_grad(_fused_bn_v1_grad)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """Batch normalization of a 4-D/5-D ``x`` in one op; returns ``(y, mean, variance)``.

    Training: the batch statistics (the returned variance is Bessel-corrected, as TF's).
    Inference: the given ``mean`` and ``variance``.

    >>> y, m, v = fused_batch_norm(tf.ones([2, 1, 1, 3]), [1.0] * 3, [0.0] * 3)
    >>> y.op.type
    'FusedBatchNormV3'
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is "
                         "False or `exponential_avg_factor` != 1.0. Received: "
                         f"`mean` {mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_op.constant(np.zeros([0], np.float32))
    if variance is None:
        variance = constant_op.constant(np.zeros([0], np.float32))
    epsilon = max(epsilon, 1.001e-5)
    outs = fused_bn_op.bind(x, scale, offset, mean, variance, epsilon=float(epsilon),
                            exponential_avg_factor=float(exponential_avg_factor),
                            data_format=data_format, is_training=bool(is_training), name=name)
    return outs[0], outs[1], outs[2]


# ── LRN / LRNGrad ────────────────────────────────────────────────────────────────────
def _window_sum(a, r):
    """``sum(a[..., d - r : d + r + 1])`` along the last axis (clipped at the edges), as
    TF's CPU kernel takes it: a product with a 0/1 band matrix. So a NaN/Inf in a pixel
    spreads NaN (Inf * 0) to the channels whose window misses it, Inf to the rest; and one
    single-threaded GEMM (:func:`gemm`) beats a cumulative sum plus a gather along the
    channel axis ~10x."""
    depth = a.shape[-1]
    band = (np.abs(np.arange(depth)[:, None] - np.arange(depth)) <= r).astype(a.dtype)
    if a.size == 0:
        return np.zeros_like(a)
    with np.errstate(invalid="ignore"):
        return gemm(a.reshape(-1, depth), band).reshape(a.shape)


def _compute_dtype(x):
    """float32 for float32 and narrower (TF's CPU kernel's float), float64 for double."""
    return np.float64 if x.dtype == np.float64 else np.float32


def _lrn_norm(x, depth_radius, bias, alpha):
    xc = x.astype(_compute_dtype(x), copy=False)
    return xc.dtype.type(bias) + xc.dtype.type(alpha) * _window_sum(xc * xc, depth_radius), xc


def _pow(norm, exponent):
    """``norm ** exponent``; TF's ``-0.5`` as a reciprocal square root (a pow costs ~3x)."""
    if exponent == -0.5:
        return 1 / np.sqrt(norm)
    return norm ** norm.dtype.type(exponent)


def _lrn_kernel(x, *, depth_radius, bias, alpha, beta):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "input must be 4-dimensional")
    norm, xc = _lrn_norm(x, depth_radius, bias, alpha)
    return (xc * _pow(norm, -beta)).astype(x.dtype, copy=False)


_LRN_ATTRS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}


def _rank4(x, *rest, **attrs):
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    return merge_same_shape(x, *rest)


lrn_op = OpDef("LRN", shape=_rank4, dtype=same_dtype_in(FLOATS, ("input",)),
               kernel=_lrn_kernel, attrs=dict(_LRN_ATTRS), input_names=("input",))


def _lrn_grad_kernel(dy, x, y, *, depth_radius, bias, alpha, beta):
    norm, xc = _lrn_norm(x, depth_radius, bias, alpha)
    dyc = dy.astype(xc.dtype, copy=False)
    scaled = _pow(norm, -beta)
    inner = _window_sum(dyc * xc * (scaled / norm), depth_radius)
    two_ab = xc.dtype.type(2 * alpha * beta)
    return (dyc * scaled - two_ab * xc * inner).astype(x.dtype, copy=False)


lrn_grad_op = OpDef("LRNGrad", shape=_rank4,
                    dtype=same_dtype_in(FLOATS, ("input_grads", "input_image",
                                                   "output_image")),
                    kernel=_lrn_grad_kernel, attrs=dict(_LRN_ATTRS), grad=NO_GRADIENT,
                    input_names=("input_grads", "input_image", "output_image"))


@lrn_op.def_grad
def _lrn_grad(op, dy):
    attrs = {k: op.get_attr(k) for k in _LRN_ATTRS}
    return [lrn_grad_op.bind(dy, op.inputs[0], op.outputs[0], **attrs)]


def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None) -> Tensor:  # noqa: A002
    """Local response normalization over the last axis of a 4-D tensor.

    >>> lrn(tf.ones([1, 1, 1, 3])).op.type
    'LRN'
    """
    return lrn_op.bind(input, depth_radius=int(depth_radius), bias=float(bias),
                       alpha=float(alpha), beta=float(beta), name=name)


local_response_normalization = lrn
