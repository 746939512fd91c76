"""Quantized NN ops: ``QuantizedConv2D``, ``QuantizedAvgPool``, ``QuantizedMaxPool`` and
``QuantizedReluX`` (``tf.nn.quantized_conv2d``, ``quantized_avg_pool``,
``quantized_max_pool``, ``quantized_relu_x``).

Each takes quantized integers with the float range ``[min, max]`` they stand for (MIN_FIRST
scheme, as ``tf.quantize(..., mode="MIN_FIRST")``) and returns integers with a range, as
TF's CPU kernels (``quantized_conv_ops.cc``, ``quantized_pooling_ops.cc``,
``quantized_activation_ops.cc``):

* QuantizedConv2D: integer convolution of ``(input - input_zero) * (filter -
  filter_zero)`` accumulated in int32 (``qint32`` out; padding stands for the real 0), over
  the range one input level times one filter level spans across qint32.
* QuantizedAvgPool: the mean of each window's real (unpadded) elements, rounded to the
  nearest integer (halves to even); the range passes through.
* QuantizedMaxPool: window maxima (padding never wins); the range passes through.
* QuantizedReluX: clamps to the integers that stand for 0 and ``max_value``.

TF 2.21's CPU kernels: QuantizedConv2D quint8 x quint8 (as here) and quint8 x qint8 (which
scopeflow refuses with UnimplementedError), the poolings qint8 and quint8; the poolings
here compute any quantized type the same way. TF 2.21 registers no kernel for
QuantizedReluX at all (running it raises "No OpKernel was registered"); scopeflow computes
it as TF's kernel source defines it. None of the ops has a gradient in TF.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.quantize_ops import QUANTIZED, limits
from scopeflow.ops.nn.conv_geometry import out_and_pads

__all__ = ["quantized_conv2d", "quantized_avg_pool", "quantized_max_pool",
           "quantized_relu_x"]

_F32 = np.float32
_Outputs = {name: collections.namedtuple(name, fields) for name, fields in (
    ("QuantizedConv2D", ["output", "min_output", "max_output"]),
    ("QuantizedAvgPool", ["output", "min_output", "max_output"]),
    ("QuantizedMaxPool", ["output", "min_output", "max_output"]),
    ("QuantizedReluX", ["activations", "min_activations", "max_activations"]))}


def scalar_to_quantized(value, lo, hi, T, clamp=True):
    """TF's scalar ``FloatToQuantized`` (``...Unclamped`` without ``clamp``), in double:
    ``round(value * s) - round(lo * s) + lowest`` with ``s = 2**bits / ((hi - lo) * 2**bits
    / (2**bits - 1))``; ``lowest`` for an empty range."""
    tmin, tmax, storage = limits(T)
    if float(lo) == float(hi):
        return tmin
    steps = float(2 ** (8 * storage.itemsize))
    scale = steps / (float(_F32(hi) - _F32(lo)) * (steps / (steps - 1.0)))
    q = int(_round(float(value) * scale) - _round(float(lo) * scale)) + tmin
    return min(max(q, tmin), tmax) if clamp else q


def _round(v):
    return np.copysign(np.floor(abs(v) + 0.5), v)


def _scalar(v):
    return _F32(np.asarray(v).reshape(-1)[0])


def _check_rank0(shapes):
    for s in shapes:
        if s.ndims is not None and s.ndims != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")


def _float32_inputs(op_type, names, dts):
    for name, d in zip(names, dts):
        if d is not dtypes.float32:
            raise TypeError(f"Input '{name}' of '{op_type}' Op has type {d.name} that does not "
                            "match expected type of float32.")


def _quantized_type(op_type, attr, d):
    if d not in QUANTIZED:
        raise TypeError(f"Value passed to parameter '{attr}' has DataType {d.name} not in "
                        "list of allowed values: qint8, quint8, qint32, qint16, quint16")


def _window_shape(x, ksize, strides, padding, channels=None, dilations=(1, 1, 1, 1)):
    """NHWC output shape of a window op over ``x`` (``channels``: the conv's out depth)."""
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    n, h, w, c = x.as_tuple() if x.ndims is not None else (None,) * 4
    oh = out_and_pads(h, ksize[0], strides[1], dilations[1], padding)[0]
    ow = out_and_pads(w, ksize[1], strides[2], dilations[2], padding)[0]
    return TensorShape([n, oh, ow, c if channels is None else channels])


def _windows(x, kh, kw, strides, padding, fill):
    """(N, oh, ow, kh, kw, C) window view of NHWC ``x`` padded with ``fill`` as TF's SAME
    (more after than before) or VALID, and the padded mask of real elements likewise."""
    n, h, w, c = x.shape
    oh, ph0, ph1 = out_and_pads(h, kh, strides[1], 1, padding)
    ow, pw0, pw1 = out_and_pads(w, kw, strides[2], 1, padding)
    pad = ((0, 0), (ph0, ph1), (pw0, pw1), (0, 0))
    xp = np.pad(x, pad, constant_values=fill)
    real = np.pad(np.ones((1, h, w, 1), np.int32), pad)
    view = np.lib.stride_tricks.sliding_window_view
    sh, sw = strides[1], strides[2]
    xw = view(xp, (kh, kw), axis=(1, 2))[:, :oh * sh:sh, :ow * sw:sw]
    rw = view(real, (kh, kw), axis=(1, 2))[:, :oh * sh:sh, :ow * sw:sw]
    return xw, rw


# ── QuantizedAvgPool / QuantizedMaxPool ──────────────────────────────────────────────
def _pool_shape(x, lo, hi, *, T, ksize, strides, padding):
    _check_rank0((lo, hi))
    return [_window_shape(x, ksize[1:3], strides, padding), TensorShape([]), TensorShape([])]


def _pool_dtype(op_type):
    def rule(x, lo, hi, *, T, **attrs):
        _quantized_type(op_type, "T", x)
        _float32_inputs(op_type, ("min_input", "max_input"), (lo, hi))
        return [x, dtypes.float32, dtypes.float32]
    return rule


def _check_pool(ksize, strides):
    if len(ksize) != 4 or len(strides) != 4:
        raise errors.InvalidArgumentError(None, None, "Sliding window ksize and strides "
                                          "fields must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the batch dimension.")
    if ksize[3] != strides[3]:
        raise errors.UnimplementedError(None, None, "Depthwise max pooling requires the depth "
                                        "window to equal the depth stride")
    if ksize[3] != 1:
        raise errors.UnimplementedError(None, None, "Depthwise max pooling is currently "
                                        "only implemented for CPU devices.")


def _avg_pool_kernel(x, lo, hi, *, T, ksize, strides, padding):
    _check_pool(ksize, strides)
    x = np.asarray(x)
    xw, rw = _windows(x.astype(np.int64), ksize[1], ksize[2], strides, padding, 0)
    sums = xw.sum(axis=(-2, -1))
    counts = rw.sum(axis=(-2, -1))
    # TF's mean goes through float into the quantized type (Eigen's ``lrint``): the
    # nearest integer, halves to even.
    out = np.rint(sums / counts).astype(np.int64)
    return out.astype(x.dtype), _scalar(lo), _scalar(hi)


def _max_pool_kernel(x, lo, hi, *, T, ksize, strides, padding):
    _check_pool(ksize, strides)
    x = np.asarray(x)
    xw, _ = _windows(x, ksize[1], ksize[2], strides, padding, np.iinfo(x.dtype).min)
    return xw.max(axis=(-2, -1)), _scalar(lo), _scalar(hi)


_POOL_ATTRS = {"T": None, "ksize": None, "strides": None, "padding": None}
quantized_avg_pool_op = OpDef(
    "QuantizedAvgPool", shape=_pool_shape, dtype=_pool_dtype("QuantizedAvgPool"),
    kernel=_avg_pool_kernel, attrs=_POOL_ATTRS, num_outputs=3, grad=NO_GRADIENT,
    input_names=("input", "min_input", "max_input"))
quantized_max_pool_op = OpDef(
    "QuantizedMaxPool", shape=_pool_shape, dtype=_pool_dtype("QuantizedMaxPool"),
    kernel=_max_pool_kernel, attrs=_POOL_ATTRS, num_outputs=3, grad=NO_GRADIENT,
    input_names=("input", "min_input", "max_input"))


def _create(op_def, values, name, attrs):
    """``op_def``'s op with all outputs as TF's namedtuple; Python ranges become float32
    constants inside the op's name scope."""
    graph = next((v.graph for v in values if isinstance(v, Tensor)), get_default_graph())
    with graph.as_default(), graph.name_scope(name or op_def.type) as scope:
        tensors = []
        for v, n in zip(values, op_def.input_names):
            if not isinstance(v, Tensor):
                v = convert_to_tensor(v, name=n, dtype=dtypes.float32 if tensors else None)
            tensors.append(v)
        for key in [k for k, v in attrs.items() if v is None]:
            attrs[key] = tensors[0].dtype.base_dtype
        outputs = op_def.create(tensors, attrs, scope)._outputs
    return _Outputs[op_def.type](*outputs)


def _ints(v):
    return [int(i) for i in v]


def quantized_avg_pool(input, min_input, max_input, ksize, strides, padding,  # noqa: A002
                       name=None):
    """Average pooling of quantized ``input`` (NHWC): each window's mean over its real
    elements, rounded; returns (output, min_output, max_output), the range
    unchanged."""
    return _create(quantized_avg_pool_op, [input, min_input, max_input], name,
                   {"T": None, "ksize": _ints(ksize),
                    "strides": _ints(strides), "padding": padding})


def quantized_max_pool(input, min_input, max_input, ksize, strides, padding,  # noqa: A002
                       name=None):
    """Max pooling of quantized ``input`` (NHWC); returns (output, min_output,
    max_output), the range unchanged."""
    return _create(quantized_max_pool_op, [input, min_input, max_input], name,
                   {"T": None, "ksize": _ints(ksize),
                    "strides": _ints(strides), "padding": padding})


# ── QuantizedReluX ───────────────────────────────────────────────────────────────────
def _relu_x_shape(x, max_value, lo, hi, *, Tinput, out_type):
    return [x, TensorShape([]), TensorShape([])]


def _relu_x_dtype(x, max_value, lo, hi, *, Tinput, out_type):
    _quantized_type("QuantizedReluX", "Tinput", x)
    _quantized_type("QuantizedReluX", "out_type", out_type)
    _float32_inputs("QuantizedReluX", ("max_value", "min_features", "max_features"),
                    (max_value, lo, hi))
    return [out_type, dtypes.float32, dtypes.float32]


def _relu_x_kernel(x, max_value, lo, hi, *, Tinput, out_type):
    max_value, lo, hi = _scalar(max_value), _scalar(lo), _scalar(hi)
    if not max_value > 0:
        raise errors.InvalidArgumentError(
            None, None, f"max_value must be positive, but got: {max_value:g}")
    zero = scalar_to_quantized(0.0, lo, hi, Tinput)
    top = scalar_to_quantized(max_value, lo, hi, Tinput)
    x = np.asarray(x)
    out = np.minimum(np.maximum(x.astype(np.int64), zero), top)
    return out.astype(dtypes.storage_dtype(out_type)), lo, hi


quantized_relu_x_op = OpDef(
    "QuantizedReluX", shape=_relu_x_shape, dtype=_relu_x_dtype, kernel=_relu_x_kernel,
    attrs={"Tinput": None, "out_type": dtypes.quint8}, num_outputs=3, grad=NO_GRADIENT,
    input_names=("features", "max_value", "min_features", "max_features"))


def quantized_relu_x(features, max_value, min_features, max_features,
                     out_type=dtypes.quint8, name=None):
    """Quantized ``min(max(features, 0), max_value)``: the integers clamped to those
    standing for 0 and ``max_value``; returns (activations, min_activations,
    max_activations), the range unchanged."""
    return _create(quantized_relu_x_op, [features, max_value, min_features, max_features],
                   name, {"Tinput": None, "out_type": dtypes.as_dtype(out_type)})


# ── QuantizedConv2D ──────────────────────────────────────────────────────────────────
def _conv_shape(x, f, *ranges, Tinput, Tfilter, out_type, strides, padding, dilations):
    _check_rank0(ranges)
    if f.ndims is not None and f.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {f.ndims}")
    fd = f.as_tuple() if f.ndims is not None else (None,) * 4
    if None in fd[:2]:
        return [TensorShape([None if x.ndims is None else x.as_tuple()[0], None, None,
                             fd[3]]), TensorShape([]), TensorShape([])]
    out = _window_shape(x, fd[:2], strides, padding, channels=fd[3], dilations=dilations)
    return [out, TensorShape([]), TensorShape([])]


def _conv_dtype(x, f, *ranges, Tinput, Tfilter, out_type, **attrs):
    _quantized_type("QuantizedConv2D", "Tinput", x)
    _quantized_type("QuantizedConv2D", "Tfilter", f)
    _quantized_type("QuantizedConv2D", "out_type", out_type)
    _float32_inputs("QuantizedConv2D", ("min_input", "max_input", "min_filter",
                                        "max_filter"), ranges)
    return [out_type, dtypes.float32, dtypes.float32]


def level_product_range(lo_a, hi_a, Ta, lo_b, hi_b, Tb, Tc):
    """TF's ``QuantizationRangeForMultiplication``: the range over which one level of
    ``Tc`` is one level of ``a`` times one level of ``b``."""
    def one_level(lo, hi, T):
        tmin, tmax, _ = limits(T)
        return _F32((_F32(hi) - _F32(lo)) / _F32(tmax - tmin))
    step = one_level(lo_a, hi_a, Ta) * one_level(lo_b, hi_b, Tb)
    cmin, cmax, _ = limits(Tc)
    return _F32(step * _F32(cmin)), _F32(step * _F32(cmax))


def _conv_kernel(x, f, lo_x, hi_x, lo_f, hi_f, *, Tinput, Tfilter, out_type, strides,
                 padding, dilations):
    if strides[0] != 1 or strides[3] != 1:
        raise errors.InvalidArgumentError(None, None, "Current implementation does not yet "
                                          "support strides in the batch and depth dimensions.")
    if Tinput is not dtypes.quint8 or Tfilter is not dtypes.quint8:
        # TF's other CPU kernel (quint8 input, qint8 filter) scales the filter its own way,
        # which scopeflow does not reproduce; its remaining types have no kernel at all.
        raise errors.UnimplementedError(
            None, None, f"QuantizedConv2D runs quint8 inputs and filters only (got "
            f"{Tinput.name} and {Tfilter.name})")
    if strides[1] != strides[2]:
        raise errors.InvalidArgumentError(None, None, "Current implementation only supports "
                                          "equal length strides in the row and column "
                                          "dimensions.")
    if any(d != 1 for d in dilations):
        raise errors.InvalidArgumentError(None, None, "Current implementation only supports "
                                          "dilated rate as 1 in the row and column dimensions.")
    lo_x, hi_x, lo_f, hi_f = map(_scalar, (lo_x, hi_x, lo_f, hi_f))
    x_zero = scalar_to_quantized(0.0, lo_x, hi_x, Tinput, clamp=False)
    f_zero = scalar_to_quantized(0.0, lo_f, hi_f, Tfilter, clamp=False)
    f = np.asarray(f).astype(np.int64) - f_zero
    kh, kw, c, oc = f.shape
    xs = np.asarray(x).astype(np.int64) - x_zero
    if xs.shape[3] != c:
        raise errors.InvalidArgumentError(None, None, f"input and filter must have the same "
                                          f"depth: {xs.shape[3]} vs {c}")
    xw, _ = _windows(xs, kh, kw, strides, padding, 0)   # padding is the real zero
    out = np.einsum("nhwcij,ijco->nhwo", xw, f, optimize=True)
    out = out.astype(np.int64).astype(np.int32)   # int32 accumulation wraps
    lo, hi = level_product_range(lo_x, hi_x, Tinput, lo_f, hi_f, Tfilter, out_type)
    return out.astype(dtypes.storage_dtype(out_type)), lo, hi


quantized_conv2d_op = OpDef(
    "QuantizedConv2D", shape=_conv_shape, dtype=_conv_dtype, kernel=_conv_kernel,
    attrs={"Tinput": None, "Tfilter": None, "out_type": dtypes.qint32, "strides": None,
           "padding": None, "dilations": [1, 1, 1, 1]},
    num_outputs=3, grad=NO_GRADIENT,
    input_names=("input", "filter", "min_input", "max_input", "min_filter", "max_filter"))


def quantized_conv2d(input, filter, min_input, max_input, min_filter, max_filter,  # noqa: A002
                     strides, padding, out_type=dtypes.qint32, dilations=(1, 1, 1, 1),
                     name=None):
    """2-D convolution of quantized NHWC ``input`` with a quantized HWIO ``filter``, each
    over its own range; returns (output, min_output, max_output) in ``out_type``."""
    graph = next((v.graph for v in (input, filter) if isinstance(v, Tensor)),
                 get_default_graph())
    with graph.as_default():
        input = convert_to_tensor(input, name="input")  # noqa: A001
        filter = convert_to_tensor(filter, name="filter")  # noqa: A001
    return _create(quantized_conv2d_op,
                   [input, filter, min_input, max_input, min_filter, max_filter], name,
                   {"Tinput": input.dtype.base_dtype, "Tfilter": filter.dtype.base_dtype,
                    "out_type": dtypes.as_dtype(out_type), "strides": _ints(strides),
                    "padding": padding, "dilations": _ints(dilations)})
