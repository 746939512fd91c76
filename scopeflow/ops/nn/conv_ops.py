"""Convolution and bias (NHWC; NCHW where TF's CPU kernels accept it), with gradients.

Padding is TF's arithmetic and a convolution is im2col plus one GEMM, in the filter's own
dtype (float32 stays float32), over per-thread scratch buffers: both are
:mod:`scopeflow.ops.nn.conv_geometry`'s, shared with pooling
(:mod:`scopeflow.ops.nn.pool_ops`) and the 3-D ops. Conv2D and its two backprops run on
oneDNN where :mod:`scopeflow.native.backends` lists it and it takes the operands, else on
NumPy. The backprop ops are the TF ones (``Conv2DBackpropInput``/``Conv2DBackpropFilter``...),
so autodiff builds the same graph as TF. As TF's CPU kernels, convolutions refuse NCHW at
run time (``BiasAdd`` accepts it).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, NUMERIC
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.native import backends
from scopeflow.ops import array_ops
from scopeflow.ops.math.blas import gemm as _gemm
from scopeflow.ops.math.blas import parallel_ufunc
from scopeflow.ops.math.blas import split_rows as _split_rows
from scopeflow.ops.nn import depthwise_gemm, depthwise_taps
from scopeflow.ops.nn.conv_geometry import (
    backprop_op,
    channel_index,
    check_cpu_format,
    check_strides,
    col2im,
    conv_family,
    conv_filter_gemm,
    conv_gemm,
    conv_grad,
    get_sequence,
    nhwc_dims,
    one_of,
    padded_nhwc,
    scratch_buffer,
    shape_in_format,
    sizes_shape,
    static_dims,
    tap_view,
    window_geometry,
)
from scopeflow.ops.nn.nn_activation_ops import _zeros_like_cached

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv2d_transpose",
           "depthwise_conv2d", "depthwise_conv2d_native",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
           "bias_add"]

_CONV_TYPES = FLOATS + (dtypes.int32,)  # TF's Conv2D T (bfloat16 aside, as dtype_groups)
_CONV_ATTRS = {"strides": None, "use_cudnn_on_gpu": True, "padding": None,
               "explicit_paddings": [], "data_format": "NHWC", "dilations": [1, 1, 1, 1]}
_DW_ATTRS = {"strides": None, "padding": None, "explicit_paddings": [], "data_format": "NHWC",
             "dilations": [1, 1, 1, 1]}


# ── What the 2-D conv kernels share: checked geometry, the native path ───────────────
def _conv_setup(op_type, in_shape, kh, kw, attrs):
    """Checks attrs; returns geometry: (oh, ph, sh, dh), (ow, pw, sw, dw)."""
    data_format = attrs["data_format"]
    check_cpu_format(op_type, data_format)
    check_strides(attrs["strides"], attrs.get("dilations", (1, 1, 1, 1)))
    _, h, w, _ = in_shape
    try:
        (oh, *ph), (ow, *pw) = window_geometry(
            h, w, kh, kw, strides=attrs["strides"], padding=attrs["padding"],
            data_format=data_format, dilations=attrs.get("dilations", (1, 1, 1, 1)),
            explicit_paddings=attrs.get("explicit_paddings", ()))
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, f"{op_type}: {e}") from None
    (sh, sw), (dh, dw) = attrs["strides"][1:3], attrs.get("dilations", (1, 1, 1, 1))[1:3]
    return (oh, tuple(ph), sh, dh), (ow, tuple(pw), sw, dw)


def _native(*arrays):
    """Conv2D's native backend for these operands, or None (the registry's choice)."""
    return backends.native("Conv2D", *arrays)


def _native_geometry(ph, pw, sh, sw, dh, dw):
    """(strides, dilations, pads) in the backend's terms, or None for negative padding."""
    if min(ph + pw) < 0:
        return None
    return (sh, sw), (dh, dw), (ph, pw)


# oneDNN's team is one thread on two cores (see scopeflow.native.onednn), so a large conv
# pass is split over the batch instead, its halves run on our two GEMM threads, which
# block rather than spin when the step's other threads want a core. From this many FLOPs
# (about 0.3 ms of work): below, the hand-off costs more than it gives.
_NATIVE_SPLIT_FLOPS = 2e7


def _native_over_batch(native, run, n, flops):
    """Runs ``run(lo, hi)``, a native pass over batch rows ``[lo, hi)`` that returns False
    when oneDNN can't take it, over the whole batch; True when every part ran."""
    ran = []

    def part(lo, hi):
        ran.append(run(lo, hi))

    if native.threads > 1:
        part(0, n)
    else:
        _split_rows(part, n, flops, min_flops=_NATIVE_SPLIT_FLOPS)
    return all(ran)


def _input_rows(x, lo, hi, sh, dh, kh, ph):
    """The input rows output rows ``[lo, hi)`` read, and the (top, bottom) padding around
    them, for a conv over that band alone (the same windows as over the whole image)."""
    start = lo * sh - ph[0]
    end = (hi - 1) * sh - ph[0] + (kh - 1) * dh + 1
    h = x.shape[1]
    return x[:, max(0, start):min(h, end)], (max(0, -start), max(0, end - h))


def _native_split(native, by_batch, by_rows, n, oh, flops):
    """Runs a native forward pass over the batch (``by_batch(lo, hi)``), or, for a batch of
    one, over two bands of output rows (``by_rows(lo, hi)``) on the two GEMM threads:
    batch-1 inference would otherwise leave one core idle. True when every part ran."""
    if n != 1 or oh < 2 or native.threads > 1:
        return _native_over_batch(native, by_batch, n, flops)
    ran = []
    _split_rows(lambda lo, hi: ran.append(by_rows(lo, hi)), oh, flops,
                min_flops=_NATIVE_SPLIT_FLOPS)
    return all(ran)


def _check_out_backprop(op_type, dy, oh, ow, in_shape, k):
    if dy.shape[1:3] != (oh, ow):
        raise errors.InvalidArgumentError(
            None, None, f"{op_type}: Size of out_backprop doesn't match computed: actual = "
            f"{dy.shape[1:3]}, computed = {(oh, ow)} (input: {tuple(in_shape[1:3])}, filter: "
            f"{k})")


# ── Conv2D ───────────────────────────────────────────────────────────────────────────
def _conv2d_shape(x, w, *, strides, padding, data_format, dilations, explicit_paddings,
                  use_cudnn_on_gpu):
    for attr, values in (("stride", strides), ("dilation", dilations)):
        if len(values) != 4:
            raise ValueError(f"Conv2D requires the {attr} attribute to contain 4 values, but "
                             f"got: {len(values)}")
    n, h, wd, c = nhwc_dims(static_dims(x, 4, "input"), data_format)
    kh, kw, ci, co = static_dims(w, 4, "filter")
    if c is not None and ci is not None and c % ci:
        raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                         f"({ci})")
    (oh, _, _), (ow, _, _) = window_geometry(
        h, wd, kh or 1, kw or 1, strides=strides, padding=padding, data_format=data_format,
        dilations=dilations, explicit_paddings=explicit_paddings)
    if kh is None:
        oh = None
    if kw is None:
        ow = None
    return shape_in_format(n, oh, ow, co, data_format)


def _conv_dtype(*dts, **attrs):
    return check_dtype(same_dtype(*dts), _CONV_TYPES, "T")


conv2d_op = OpDef("Conv2D", shape=_conv2d_shape, dtype=_conv_dtype, attrs=_CONV_ATTRS,
                  grad=conv_grad, input_names=("input", "filter"))


@conv2d_op.def_kernel
def _conv2d_kernel(x, w, **attrs):
    kh, kw, ci, co = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("Conv2D", x.shape, kh, kw, attrs)
    n, _, _, c = x.shape
    if c != ci:
        raise errors.UnimplementedError(
            None, None, f"Conv2D: grouped convolution (input depth {c}, filter depth {ci}) is "
            "not supported")
    out = _conv2d_native(x, w, (oh, ph, sh, dh), (ow, pw, sw, dw))
    if out is not None:
        return out
    return conv_gemm(padded_nhwc(x, ph, pw), kh, kw, oh, ow, sh, sw, dh, dw,
                      w.reshape(kh * kw * ci, co))


def _conv2d_native(x, w, rows, cols, bias=None, relu=False, post=()):
    """The conv on oneDNN (plus ``bias``, fused, and ReLU, when given; ``post``: the
    backend's per-channel post-ops), or None when the backend can't take it;
    ``rows``/``cols`` are ``_conv_setup``'s geometry."""
    (oh, ph, sh, dh), (ow, pw, sw, dw) = rows, cols
    vectors = ([] if bias is None else [bias]) + [v for _, v in post]
    native = _native(x, w, *vectors)
    geometry = native and _native_geometry(ph, pw, sh, sw, dh, dw)
    if not geometry:
        return None
    n, kh, kw, ci, co = x.shape[0], *w.shape
    strides, dilations, _ = geometry
    out = np.empty((n, oh, ow, co), np.float32)

    def run(x_part, y, pads):
        if native.conv2d(x_part, w, strides, dilations, pads, y.shape[1:3], out=y,
                         bias=bias, post=post) is None:
            return False
        if relu:
            # NumPy's maximum, as the Relu kernel, on the part just written (still in
            # cache): oneDNN's ReLU post-op would turn a NaN into 0.
            np.maximum(y, _zeros_like_cached(y), out=y)
        return True

    def by_batch(lo, hi):
        return run(x[lo:hi], out[lo:hi], (ph, pw))

    def by_rows(lo, hi):
        band, pads_h = _input_rows(x, lo, hi, sh, dh, kh, ph)
        return band.shape[1] > 0 and run(band, out[:, lo:hi], (pads_h, pw))

    if _native_split(native, by_batch, by_rows, n, oh, 2.0 * out.size * kh * kw * ci):
        return out
    return None


def conv2d_with_bias_native(x, w, b, conv_attrs, relu):
    """Conv2D plus ``b`` (a vector of the output channels) and, with ``relu``, a ReLU, as
    one oneDNN call (TF's ``_FusedConv2D``), or None where the backend can't take it: the
    kernel ``consumer_fusion`` (runtime/passes) runs for Conv2D, BiasAdd and Relu."""
    kh, kw = w.shape[:2]
    rows, cols = _conv_setup("Conv2D", x.shape, kh, kw, conv_attrs)
    if x.shape[3] != w.shape[2] or b.shape != (w.shape[3],):
        return None
    return _conv2d_native(x, w, rows, cols, bias=b, relu=relu)


def conv2d_with_post_native(x, w, conv_attrs, post):
    """Conv2D whose finished sums are combined with vectors of the output channels, in
    order (``post``: ``(name, vector)`` pairs, name ``"sub"``, ``"mul"`` or ``"add"``), as
    one oneDNN call with the separate elementwise ops' bits, or None where the backend
    can't take it (an inference batch norm after a conv: ``consumer_fusion``)."""
    kh, kw = w.shape[:2]
    rows, cols = _conv_setup("Conv2D", x.shape, kh, kw, conv_attrs)
    if x.shape[3] != w.shape[2] or any(v.shape != (w.shape[3],) for _, v in post):
        return None
    return _conv2d_native(x, w, rows, cols, post=post)


def _conv_padding(padding, data_format, op_type="Conv2D"):
    """(padding string, explicit_paddings list) from a string or a list of pairs."""
    if isinstance(padding, (list, tuple)):
        pairs = [list(p) for p in padding]
        if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
            raise ValueError(f"When padding is a list, it must be of the form "
                             f"[[0, 0], [pad_top, pad_bottom], [pad_left, pad_right], [0, 0]] "
                             f"(NHWC) but got {padding}")
        c = 1 if data_format == "NCHW" else 3
        if pairs[0] != [0, 0] or pairs[c] != [0, 0]:
            raise ValueError(f"{op_type}: explicit padding of the batch and depth dimensions "
                             f"must be 0, got {padding}")
        return "EXPLICIT", [int(v) for p in pairs for v in p]
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string '{padding}' not in: "
                         '"SAME", "VALID", "EXPLICIT".')
    return padding, []


def conv_call_attrs(strides, padding, data_format, dilations, op_type="Conv2D"):
    """The checked attrs of a 2-D conv op from a builder's arguments (also conv1d's and
    separable_conv2d's)."""
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    ci = channel_index(data_format)
    padding, explicit = _conv_padding(padding, data_format, op_type)
    return {"strides": get_sequence(strides, 2, ci, "strides"), "padding": padding,
            "explicit_paddings": explicit, "data_format": data_format,
            "dilations": get_sequence(dilations if dilations is not None else 1, 2, ci,
                                      "dilations")}


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """2-D convolution of NHWC ``input`` with an ``[kh, kw, in, out]`` filter (a ``Conv2D``).

    ``padding`` is ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [t, b], [l, r], [0, 0]]``.

    >>> x = tf.ones([1, 4, 4, 1]); w = tf.ones([3, 3, 1, 2])
    >>> tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape.as_list()
    [1, 2, 2, 2]
    """
    filter = one_of(filter, filters, "filter", "filters")
    attrs = conv_call_attrs(strides, padding, data_format, dilations)
    return conv2d_op.bind(input, filter, use_cudnn_on_gpu=bool(use_cudnn_on_gpu), name=name,
                          **attrs)


# ── Conv2DBackpropInput (also conv2d_transpose) ──────────────────────────────────────
def _conv2d_backprop_input_shape(sizes, w, dy, **attrs):
    shape = sizes_shape(sizes, 4, "input_sizes")
    _, _, ci, co = static_dims(w.shape, 4, "filter")
    c_dy = nhwc_dims(static_dims(dy.shape, 4, "out_backprop"), attrs["data_format"])[3]
    if co is not None and c_dy is not None and co != c_dy:
        raise ValueError(f"Dimensions must be equal, but are {c_dy} and {co}")
    # TF's shape function takes the batch from out_backprop (checked against input_sizes):
    # an unknown batch there stays unknown even when input_sizes is constant.
    if shape.ndims is not None and dy.shape.ndims is not None:
        n_sizes, n_dy = shape.as_tuple()[0], dy.shape.as_tuple()[0]
        if n_sizes is not None and n_dy is not None and n_sizes != n_dy:
            raise ValueError(f"Dimensions must be equal, but are {n_sizes} and {n_dy}")
        shape = TensorShape([n_dy, *shape.as_tuple()[1:]])
    return shape


conv2d_backprop_input_op = backprop_op("Conv2DBackpropInput", "input", 4, _conv_dtype,
                                       _CONV_ATTRS, shape=_conv2d_backprop_input_shape)


@conv2d_backprop_input_op.def_kernel
def _conv2d_backprop_input_kernel(sizes, w, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    kh, kw, ci, co = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("Conv2DBackpropInput", in_shape, kh, kw,
                                                     attrs)
    _check_out_backprop("Conv2DBackpropInput", dy, oh, ow, in_shape, (kh, kw))
    n, h, wd, c = in_shape
    native = backends.native("Conv2DBackpropInput", w, dy) \
        if dy.ndim == 4 and (c, n, co) == (ci, *dy.shape[::3]) else None
    geometry = native and _native_geometry(ph, pw, sh, sw, dh, dw)
    if geometry and n and h and wd:
        out = np.empty(in_shape, np.float32)
        if _native_over_batch(
                native, lambda lo, hi: native.conv2d_backprop_input(
                    (hi - lo, h, wd, c), w, dy[lo:hi], *geometry, out=out[lo:hi]) is not None,
                n, 2.0 * dy.size * kh * kw * ci):
            return out
    top, left = (kh - 1) * dh - ph[0], (kw - 1) * dw - pw[0]
    bottom, right = h + (kh - 1) * dh - oh - top, wd + (kw - 1) * dw - ow - left
    if sh == 1 and sw == 1 and min(top, left, bottom, right) >= 0:
        # Stride 1: a correlation of the padded dy with the flipped, transposed filter,
        # i.e. one more im2col + GEMM (no scatter-add).
        w_t = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(-1, ci)
        return conv_gemm(padded_nhwc(dy, (top, bottom), (left, right)), kh, kw, h, wd, 1, 1,
                          dh, dw, w_t)
    padded = (n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c)
    dcols = scratch_buffer("dcols", (n * oh * ow, kh * kw * ci), dy.dtype)
    _gemm(dy.reshape(-1, co), w.reshape(kh * kw * ci, co).T, out=dcols)
    return col2im(dcols, padded, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    filter = one_of(filter, filters, "filter", "filters")
    attrs = conv_call_attrs(strides, padding, data_format, dilations, "Conv2DBackpropInput")
    return conv2d_backprop_input_op.bind(input_sizes, filter, out_backprop, name=name,
                                         use_cudnn_on_gpu=bool(use_cudnn_on_gpu), **attrs)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None) -> Tensor:
    """The transpose of ``conv2d`` (a ``Conv2DBackpropInput``): ``[kh, kw, out, in]`` filter.

    >>> y = tf.nn.conv2d_transpose(tf.ones([1, 4, 4, 2]), tf.ones([3, 3, 5, 2]),
    ...                            [1, 8, 8, 5], [1, 2, 2, 1])
    >>> y.shape.as_list()
    [1, 8, 8, 5]
    """
    value = one_of(value, input, "value", "input")
    filter = one_of(filter, filters, "filter", "filters")
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        attrs = conv_call_attrs(strides, padding, data_format, dilations,
                                 "Conv2DBackpropInput")
        filter = convert_to_tensor(filter, name="filter")
        if not isinstance(output_shape, Tensor):
            shape_list = list(output_shape)
            if len(shape_list) != 4:
                raise ValueError(f"output_shape must have shape (4,), got ({len(shape_list)},)")
            out_c = shape_list[channel_index(attrs["data_format"])]
            fc = filter.shape.as_tuple()
            if fc is not None and isinstance(out_c, int) and fc[2] is not None \
                    and out_c != fc[2]:
                raise ValueError(f"output_shape does not match filter's output channels, "
                                 f"{out_c} != {fc[2]}")
        return conv2d_backprop_input_op.bind(output_shape, filter, value, name=scope, **attrs)


# ── Conv2DBackpropFilter ─────────────────────────────────────────────────────────────
conv2d_backprop_filter_op = backprop_op("Conv2DBackpropFilter", "filter", 4, _conv_dtype,
                                        _CONV_ATTRS)
conv_family(conv2d_op, conv2d_backprop_input_op, conv2d_backprop_filter_op)


@conv2d_backprop_filter_op.def_kernel
def _conv2d_backprop_filter_kernel(x, sizes, dy, **attrs):
    kh, kw, ci, co = (int(v) for v in sizes)
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("Conv2DBackpropFilter", x.shape, kh, kw,
                                                     attrs)
    _check_out_backprop("Conv2DBackpropFilter", dy, oh, ow, x.shape, (kh, kw))
    takes = dy.ndim == 4 and kh * kw * ci * co \
        and (x.shape[3], x.shape[0], dy.shape[3]) == (ci, dy.shape[0], co)
    native = backends.native("Conv2DBackpropFilter", x, dy) if takes else None
    geometry = native and _native_geometry(ph, pw, sh, sw, dh, dw)
    if geometry:
        parts = {}

        def run(lo, hi):
            parts[lo] = native.conv2d_backprop_filter(x[lo:hi], (kh, kw, ci, co), dy[lo:hi],
                                                      *geometry)
            return parts[lo] is not None

        if _native_over_batch(native, run, x.shape[0], 2.0 * dy.size * kh * kw * ci):
            # The parts' sum in batch order, so a result never depends on thread timing.
            out, *rest = (parts[lo] for lo in sorted(parts))
            for part in rest:
                out += part
            return out
    return conv_filter_gemm(padded_nhwc(x, ph, pw), kh, kw, oh, ow, sh, sw, dh, dw,
                             dy.reshape(dy.shape[0], -1, co)).reshape(kh, kw, ci, co)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1),
                           name=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    attrs = conv_call_attrs(strides, padding, data_format, dilations, "Conv2DBackpropFilter")
    return conv2d_backprop_filter_op.bind(input, filter_sizes, out_backprop, name=name,
                                          use_cudnn_on_gpu=bool(use_cudnn_on_gpu), **attrs)


# ── DepthwiseConv2dNative (+ backprops) ──────────────────────────────────────────────
def _depthwise_shape(x, w, **attrs):
    data_format = attrs["data_format"]
    n, h, wd, c = nhwc_dims(static_dims(x, 4, "input"), data_format)
    kh, kw, ci, m = static_dims(w, 4, "filter")
    if c is not None and ci is not None and c != ci:
        raise ValueError(f"Dimensions must be equal, but are {c} and {ci}")
    c = c if c is not None else ci
    (oh, _, _), (ow, _, _) = window_geometry(
        h, wd, kh or 1, kw or 1, strides=attrs["strides"], padding=attrs["padding"],
        data_format=data_format, dilations=attrs["dilations"],
        explicit_paddings=attrs["explicit_paddings"])
    oc = None if c is None or m is None else c * m
    return shape_in_format(n, oh if kh is not None else None, ow if kw is not None else None, oc,
                      data_format)


depthwise_op = OpDef("DepthwiseConv2dNative", shape=_depthwise_shape, dtype=_conv_dtype,
                     attrs=_DW_ATTRS, input_names=("input", "filter"))


def _depthwise_native(x, w, rows, cols):
    """The depthwise conv on oneDNN, split over the batch as Conv2D's, or None when the
    backend can't take it."""
    (oh, ph, sh, dh), (ow, pw, sw, dw) = rows, cols
    native = backends.native("DepthwiseConv2dNative", x, w)
    geometry = native and _native_geometry(ph, pw, sh, sw, dh, dw)
    if not geometry:
        return None
    kh, kw, c, m = w.shape
    strides, dilations, _ = geometry
    out = np.empty((x.shape[0], oh, ow, c * m), np.float32)

    def run(x_part, y, pads):
        return native.depthwise_conv2d(x_part, w, strides, dilations, pads, y.shape[1:3],
                                       out=y) is not None

    def by_batch(lo, hi):
        return run(x[lo:hi], out[lo:hi], (ph, pw))

    def by_rows(lo, hi):
        band, pads_h = _input_rows(x, lo, hi, sh, dh, kh, ph)
        return band.shape[1] > 0 and run(band, out[:, lo:hi], (pads_h, pw))

    if _native_split(native, by_batch, by_rows, x.shape[0], oh, 2.0 * out.size * kh * kw):
        return out
    return None


@depthwise_op.def_kernel
def _depthwise_kernel(x, w, **attrs):
    kh, kw, c, m = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNative", x.shape, kh, kw,
                                                     attrs)
    if x.shape[3] != c:
        if x.shape[3] % max(c, 1):
            raise errors.InvalidArgumentError(
                None, None, "input depth must be evenly divisible by filter depth: "
                f"{x.shape[3]} vs {c}")
        raise errors.UnimplementedError(
            None, None, f"DepthwiseConv2dNative: input depth {x.shape[3]} over filter depth "
            f"{c} (grouped) is not supported")
    out = _depthwise_native(x, w, (oh, ph, sh, dh), (ow, pw, sw, dw))
    if out is not None:
        return out
    if m == 1 and c >= 32:   # MobileNet's layers: taps over many channels beat C GEMMs
        return depthwise_taps.depthwise_taps_one_multiplier(
            padded_nhwc(x, ph, pw), w, oh, ow, (sh, sw), (dh, dw))
    if depthwise_gemm.fast_ok(attrs, x, w):
        return depthwise_gemm.depthwise_forward(x, w, ph, pw)
    xp = padded_nhwc(x, ph, pw)
    out = np.zeros((x.shape[0], oh, ow, c, m), np.result_type(x, w))
    for i in range(kh):
        for j in range(kw):
            out += tap_view(xp, i, j, oh, ow, sh, sw, dh, dw)[..., None] * w[i, j]
    return out.reshape(x.shape[0], oh, ow, c * m)


@depthwise_op.def_grad
def _depthwise_grad(op, dy):
    x, w = op.inputs
    attrs = {k: op.get_attr(k) for k in _DW_ATTRS}
    return [depthwise_backprop_input_op.bind(array_ops.shape(x), w, dy, **attrs),
            depthwise_backprop_filter_op.bind(x, array_ops.shape(w), dy, **attrs)]


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """Per-channel convolution: ``[kh, kw, C, M]`` filter gives ``C * M`` output channels."""
    attrs = conv_call_attrs(strides, padding, data_format, dilations,
                             "DepthwiseConv2dNative")
    return depthwise_op.bind(input, filter, name=name, **attrs)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None) -> Tensor:
    """Depthwise 2-D convolution (a ``DepthwiseConv2dNative`` named ``depthwise``).

    ``rate`` (or ``dilations``) is the spatial dilation; TF rewrites it with
    space_to_batch, here the op dilates directly (same values).

    >>> tf.nn.depthwise_conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 2]), [1, 1, 1, 1],
    ...                        "VALID").shape.as_list()
    [1, 3, 3, 6]
    """
    rate = rate if rate is not None else dilations
    with name_scope(name, "depthwise", [input, filter]) as scope:
        attrs = conv_call_attrs(strides, padding, data_format, rate, "DepthwiseConv2dNative")
        return depthwise_op.bind(input, filter, name=scope, **attrs)


def _depthwise_backprop_input_shape(sizes, w, dy, **attrs):
    """``sizes_shape`` of ``input_sizes``, its message naming ``filter_sizes`` (as ever)."""
    return sizes_shape(sizes, 4, "filter_sizes")


depthwise_backprop_input_op = backprop_op(
    "DepthwiseConv2dNativeBackpropInput", "input", 4, _conv_dtype, _DW_ATTRS,
    shape=_depthwise_backprop_input_shape)


@depthwise_backprop_input_op.def_kernel
def _depthwise_backprop_input_kernel(sizes, w, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    kh, kw, c, m = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNativeBackpropInput",
                                                     in_shape, kh, kw, attrs)
    _check_out_backprop("DepthwiseConv2dNativeBackpropInput", dy, oh, ow, in_shape, (kh, kw))
    if depthwise_gemm.fast_ok(attrs, w, dy):
        dx = depthwise_gemm.depthwise_input_grad(in_shape, w, dy, ph, pw)
        if dx is not None:
            return dx
    n, h, wd, _ = in_shape
    dxp = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dy.dtype)
    dy5 = dy.reshape(n, oh, ow, c, m)
    for i in range(kh):
        for j in range(kw):
            tap_view(dxp, i, j, oh, ow, sh, sw, dh, dw)[...] += np.einsum("nhwcm,cm->nhwc", dy5,
                                                                      w[i, j])
    return np.ascontiguousarray(dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd])


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                                           padding, data_format="NHWC",
                                           dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its input."""
    attrs = conv_call_attrs(strides, padding, data_format, dilations,
                             "DepthwiseConv2dNativeBackpropInput")
    return depthwise_backprop_input_op.bind(input_sizes, filter, out_backprop, name=name,
                                            **attrs)


depthwise_backprop_filter_op = backprop_op("DepthwiseConv2dNativeBackpropFilter", "filter", 4,
                                           _conv_dtype, _DW_ATTRS)
# The convolution's own gradient is _depthwise_grad's: two Shapes, not one ShapeN, as TF.
conv_family(depthwise_op, depthwise_backprop_input_op, depthwise_backprop_filter_op)


@depthwise_backprop_filter_op.def_kernel
def _depthwise_backprop_filter_kernel(x, sizes, dy, **attrs):
    kh, kw, c, m = (int(v) for v in sizes)
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNativeBackpropFilter",
                                                     x.shape, kh, kw, attrs)
    _check_out_backprop("DepthwiseConv2dNativeBackpropFilter", dy, oh, ow, x.shape, (kh, kw))
    if depthwise_gemm.fast_ok(attrs, x, dy):
        return depthwise_gemm.depthwise_filter_grad(x, dy, kh, kw, ph, pw)
    xp = padded_nhwc(x, ph, pw)
    n = x.shape[0]
    dy3 = dy.reshape(n * oh * ow, c, m)
    dw_ = np.empty((kh, kw, c, m), np.result_type(x, dy))
    for i in range(kh):
        for j in range(kw):
            tap = tap_view(xp, i, j, oh, ow, sh, sw, dh, dw).reshape(n * oh * ow, c)
            dw_[i, j] = np.einsum("pc,pcm->cm", tap, dy3)
    return dw_


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its filter."""
    attrs = conv_call_attrs(strides, padding, data_format, dilations,
                             "DepthwiseConv2dNativeBackpropFilter")
    return depthwise_backprop_filter_op.bind(input, filter_sizes, out_backprop, name=name,
                                             **attrs)


# ── BiasAdd ──────────────────────────────────────────────────────────────────────────
def _bias_axis(ndim, data_format):
    return ndim - 3 if data_format == "NCHW" else ndim - 1


def _bias_add_shape(x, b, *, data_format):
    dims, bd = x.as_tuple(), b.as_tuple()
    if bd is not None and len(bd) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(bd)}")
    if dims is None:
        return x
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    if data_format == "NCHW" and len(dims) < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {len(dims)}")
    axis = _bias_axis(len(dims), data_format)
    c, bc = dims[axis], None if bd is None else bd[0]
    if c is not None and bc is not None and c != bc:
        raise ValueError(f"Dimensions must be equal, but are {c} and {bc}")
    out = list(dims)
    out[axis] = c if c is not None else bc
    return TensorShape(out)


def _bias_add_dtype(x, b, **attrs):
    return check_dtype(same_dtype(x, b), NUMERIC, "T")


bias_add_op = OpDef("BiasAdd", shape=_bias_add_shape, dtype=_bias_add_dtype,
                    attrs={"data_format": "NHWC"}, input_names=("value", "bias"))


_LONG_ROW = 512  # elements: NumPy's per-row overhead is paid once per this many


def _channel_rows(x):
    """A C-contiguous NHWC ``x`` as a 2-D view whose rows hold whole channel vectors and
    are at least ``_LONG_ROW`` long (so per-channel work runs in long inner loops), and
    how many channel vectors each row holds."""
    c = x.shape[-1]
    per_row = 1
    for d in reversed(x.shape[:-1]):
        if per_row * c >= _LONG_ROW:
            break
        per_row *= d
    return x.reshape(-1, per_row * c), per_row


@bias_add_op.def_kernel
def _bias_add_kernel(x, b, *, data_format):
    if data_format == "NCHW":
        return x + b.reshape((-1,) + (1,) * 2)
    if x.size < 16 * _LONG_ROW or x.shape[-1] >= _LONG_ROW or not x.flags.c_contiguous \
            or x.shape[-1] != b.shape[0]:
        return x + b
    rows, per_row = _channel_rows(x)
    return parallel_ufunc(np.add, rows, np.tile(b, per_row)).reshape(x.shape)


@bias_add_op.def_grad
def _bias_add_grad(op, dy):
    return [dy, bias_add_grad_op.bind(dy, data_format=op.get_attr("data_format"))]


def bias_add(value, bias, data_format=None, name=None) -> Tensor:
    """Adds a 1-D ``bias`` along the channel dimension (last, or dim -3 for ``NCHW``).

    >>> tf.nn.bias_add(tf.zeros([2, 3]), [1., 2., 3.]).shape.as_list()
    [2, 3]
    """
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        return bias_add_op.bind(value, bias, data_format=data_format, name=scope)


# ── BiasAddGrad ──────────────────────────────────────────────────────────────────────
def _bias_add_grad_shape(dy, *, data_format):
    dims = dy.as_tuple()
    if dims is None:
        return TensorShape([None])
    return TensorShape([dims[_bias_axis(len(dims), data_format)]])


def _bias_add_grad_dtype(dy, **attrs):
    return check_dtype(dy, NUMERIC, "T")


bias_add_grad_op = OpDef("BiasAddGrad", shape=_bias_add_grad_shape, dtype=_bias_add_grad_dtype,
                         attrs={"data_format": "NHWC"}, input_names=("out_backprop",))


@bias_add_grad_op.def_kernel
def _bias_add_grad_kernel(dy, *, data_format):
    axis = _bias_axis(dy.ndim, data_format)
    if data_format == "NHWC" and dy.flags.c_contiguous and dy.size:
        # Column sums of long rows, then of their channel vectors: 7x faster than summing
        # rows of C elements, and closer to the exact sums (fewer additions in sequence).
        rows, per_row = _channel_rows(dy)
        return rows.sum(axis=0).reshape(per_row, dy.shape[-1]).sum(axis=0)
    return dy.sum(axis=tuple(a for a in range(dy.ndim) if a != axis))


@bias_add_grad_op.def_grad
def _bias_add_grad_grad(op, g):
    """``g`` broadcast back over the non-channel dims: reshape then tile (as TF)."""
    dy = op.inputs[0]
    shape = array_ops.shape(dy)
    data_format = op.get_attr("data_format")
    if data_format == "NCHW":
        lead, tail = shape[:-3], shape[-2:]
        expanded = array_ops.concat([array_ops.ones_like(lead), array_ops.shape(g),
                                     array_ops.ones_like(tail)], 0)
        multiples = array_ops.concat([lead, [1], tail], 0)
    else:
        lead = shape[:-1]
        expanded = array_ops.concat([array_ops.ones_like(lead), array_ops.shape(g)], 0)
        multiples = array_ops.concat([lead, [1]], 0)
    return [array_ops.tile(array_ops.reshape(g, expanded), multiples)]
