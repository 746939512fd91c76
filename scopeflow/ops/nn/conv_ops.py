"""Convolution and bias (NHWC; NCHW where TF's CPU kernels accept it), with gradients.

Padding follows TF's arithmetic: ``VALID`` keeps whole windows, ``SAME`` gives
``ceil(in / stride)`` outputs with ``pad_total = max((out - 1) * stride + (k - 1) * dilation
+ 1 - in, 0)`` split ``pad_total // 2`` before and the rest after, ``EXPLICIT`` takes the
pairs given. Convolution is im2col plus one GEMM: the windows are copied once into a
contiguous per-thread scratch matrix (never returned, so kernels stay pure functions of
their inputs) and multiplied by the filter in its own dtype (float32 stays float32).
The backprop ops are the TF ones (``Conv2DBackpropInput``/``Conv2DBackpropFilter``...), so
autodiff builds the same graph as TF. As TF's CPU kernels, convolutions refuse NCHW at
run time (``BiasAdd`` accepts it). Pooling, which shares the window geometry, is in
:mod:`scopeflow.ops.nn.pool_ops`.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, NUMERIC
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.native import backends
from scopeflow.ops import array_ops
from scopeflow.ops.array_ops import _partial_dims
from scopeflow.ops.math.blas import gemm as _gemm
from scopeflow.ops.math.blas import parallel_ufunc
from scopeflow.ops.math.blas import split_rows as _split_rows
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


# ── Geometry: TF's windowed output sizes and paddings ────────────────────────────────
def _out_and_pads(size, k, stride, dilation, padding, explicit=(0, 0)):
    """(output size, pad before, pad after) of one spatial dim; ``None`` sizes stay None."""
    ek = (k - 1) * dilation + 1
    if padding == "VALID":
        before, after = 0, 0
    elif padding == "EXPLICIT":
        before, after = explicit
    elif padding != "SAME":  # an imported NodeDef's attr (the builders check theirs)
        raise ValueError(f"Value for attr 'padding' of \"{padding}\" is not in the list of "
                         f"allowed values: \"SAME\", \"VALID\", \"EXPLICIT\"")
    if size is None:
        return None, None, None
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + ek - size, 0)
        return out, total // 2, total - total // 2
    if size + before + after < ek:
        raise ValueError(f"Negative dimension size caused by subtracting {ek} from "
                         f"{size + before + after}")
    return (size + before + after - ek) // stride + 1, before, after


def _spatial(attrs_list, data_format):
    """The (H, W) entries of a 4-element attr list in ``data_format``."""
    return (attrs_list[2], attrs_list[3]) if data_format == "NCHW" else \
        (attrs_list[1], attrs_list[2])


def _hw_axes(data_format):
    return (2, 3, 1) if data_format == "NCHW" else (1, 2, 3)


def _explicit_pairs(explicit_paddings, data_format):
    if not explicit_paddings:
        return (0, 0), (0, 0)
    h, w, _ = _hw_axes(data_format)
    p = list(explicit_paddings)
    return (p[2 * h], p[2 * h + 1]), (p[2 * w], p[2 * w + 1])


def _window_geometry(in_h, in_w, kh, kw, *, strides, padding, data_format,
                     dilations=(1, 1, 1, 1), explicit_paddings=()):
    """((oh, ph0, ph1), (ow, pw0, pw1)) for one op's attrs."""
    for attr, values in (("stride", strides), ("dilation", dilations)):
        if len(values) != 4:  # an imported NodeDef may hold anything
            raise ValueError(f"the {attr} attribute must contain 4 values, but got: "
                             f"{len(values)}")
    sh, sw = _spatial(strides, data_format)
    dh, dw = _spatial(dilations, data_format)
    eh, ew = _explicit_pairs(explicit_paddings, data_format)
    return (_out_and_pads(in_h, kh, sh, dh, padding, eh),
            _out_and_pads(in_w, kw, sw, dw, padding, ew))


def _dims4(shape: TensorShape, what):
    dims = shape.as_tuple()
    if dims is None:
        return (None,) * 4
    if len(dims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(dims)} ({what})")
    return dims


def _layout(dims, data_format):
    """(N, H, W, C) from dims in ``data_format``."""
    if data_format == "NCHW":
        return dims[0], dims[2], dims[3], dims[1]
    return dims


def _in_format(n, h, w, c, data_format):
    return TensorShape([n, c, h, w] if data_format == "NCHW" else [n, h, w, c])


# ── Runtime checks shared by the kernels (TF's CPU kernel messages) ──────────────────
def _check_cpu_format(op_type, data_format, kind="conv"):
    if data_format == "NHWC":
        return
    if kind == "conv":
        raise errors.UnimplementedError(
            None, None, f"The {op_type} op currently only supports the NHWC tensor format on "
            f"the CPU. The op was given the format: {data_format}")
    raise errors.InvalidArgumentError(
        None, None, f"Default {kind} only supports NHWC on device type CPU")


def _check_strides(strides, dilations=(1, 1, 1, 1)):
    if strides[0] != 1 or strides[3] != 1:
        raise errors.UnimplementedError(
            None, None, "Current implementation does not yet support strides in the batch and "
            "depth dimensions.")
    if dilations[0] != 1 or dilations[3] != 1:
        raise errors.UnimplementedError(
            None, None, "Current implementation does not yet support dilations in the batch "
            "and depth dimensions.")


# ── Scratch buffers and the im2col / col2im primitives ───────────────────────────────
_SCRATCH = threading.local()


def _scratch(role, shape, dtype):
    """A per-thread reusable buffer (uninitialized). Kernels never return it.

    Reusing one allocation per role avoids page-faulting tens of MB on every step.
    """
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    buf = bufs.get(role)
    if buf is None or buf.nbytes < nbytes:
        buf = bufs[role] = np.empty(max(nbytes, 1), np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)


def _padded(x, ph, pw, value=0, role="pad"):
    """``x`` (NHWC) padded spatially by (before, after) pairs, into a scratch buffer."""
    if ph == (0, 0) and pw == (0, 0):
        return x
    n, h, w, c = x.shape
    out = _scratch(role, (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), x.dtype)
    if ph[0]:
        out[:, :ph[0]] = value
    if ph[1]:
        out[:, h + ph[0]:] = value
    if pw[0]:
        out[:, ph[0]:h + ph[0], :pw[0]] = value
    if pw[1]:
        out[:, ph[0]:h + ph[0], w + pw[0]:] = value
    out[:, ph[0]:h + ph[0], pw[0]:w + pw[0]] = x
    return out


def _tap(xp, i, j, oh, ow, sh, sw, dh, dw):
    """The (N, oh, ow, C) view of padded ``xp`` seen by kernel tap (i, j)."""
    return xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]


def _im2col(xp, kh, kw, oh, ow, sh, sw, dh, dw, role="cols"):
    """The (N*oh*ow, kh*kw*C) window matrix of padded NHWC ``xp``: one copy, contiguous."""
    n, _, _, c = xp.shape
    cols = _scratch(role, (n, oh, ow, kh, kw, c), xp.dtype)
    # NOTE: one strided copy of the whole window view: with dilation 1 each (kw, C) row of
    # a window is contiguous in ``xp``, so NumPy copies it as one block (memcpy speed).
    s = xp.strides
    view = np.lib.stride_tricks.as_strided(
        xp, (n, oh, ow, kh, kw, c), (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3]),
        writeable=False)
    np.copyto(cols, view)
    return cols.reshape(n * oh * ow, kh * kw * c)


_CHUNK_BYTES = 1 << 20  # im2col block per GEMM call: stays in cache between copy and GEMM
_CONV_SPLIT_FLOPS = 2e7  # the im2col copy is split too, so smaller jobs gain from 2 threads


def _chunk_images(oh, ow, k, itemsize):
    return max(1, _CHUNK_BYTES // max(1, oh * ow * k * itemsize))


def _conv_gemm(xp, kh, kw, oh, ow, sh, sw, dh, dw, wmat):
    """``im2col(xp) @ wmat`` as (N, oh, ow, CO): blocks of images, over two threads.

    Each block's window matrix is built in a per-thread scratch and consumed by its GEMM
    while still in cache; the two halves of the batch run on two threads (see blas).
    """
    n = xp.shape[0]
    k, co = wmat.shape
    out = np.empty((n, oh * ow, co), np.result_type(xp, wmat))
    step = _chunk_images(oh, ow, k, xp.dtype.itemsize)

    def task(lo, hi):
        for s in range(lo, hi, step):
            e = min(hi, s + step)
            cols = _im2col(xp[s:e], kh, kw, oh, ow, sh, sw, dh, dw)
            np.matmul(cols, wmat, out=out[s:e].reshape(-1, co))

    _split_rows(task, n, 2.0 * n * oh * ow * k * co, _CONV_SPLIT_FLOPS)
    return out.reshape(n, oh, ow, co)


def _conv_filter_gemm(xp, kh, kw, oh, ow, sh, sw, dh, dw, dy):
    """``im2col(xp).T @ dy`` (``dy`` as (N, oh*ow, CO)): per-block GEMMs summed per thread."""
    n, co = dy.shape[0], dy.shape[-1]
    k = kh * kw * xp.shape[3]
    dtype = np.result_type(xp, dy)
    step = _chunk_images(oh, ow, k, xp.dtype.itemsize)
    partials = []

    def task(lo, hi):
        acc = np.zeros((k, co), dtype)
        tmp = np.empty((k, co), dtype)
        for s in range(lo, hi, step):
            e = min(hi, s + step)
            cols = _im2col(xp[s:e], kh, kw, oh, ow, sh, sw, dh, dw)
            np.matmul(cols.T, dy[s:e].reshape(-1, co), out=tmp)
            acc += tmp
        partials.append(acc)

    _split_rows(task, n, 2.0 * n * oh * ow * k * co, _CONV_SPLIT_FLOPS)
    out = partials[0]
    for p in partials[1:]:
        out += p
    return out


def _col2im(dcols, padded_shape, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw):
    """Sums the (N*oh*ow, kh*kw*C) window gradients back onto the input (NHWC, unpadded)."""
    n, hp, wp, c = padded_shape
    dc = dcols.reshape(n, oh, ow, kh, kw, c)
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and hp == oh and wp == ow:
        dxp = dc.reshape(n, oh, ow, c).copy()
    else:
        dxp = np.zeros(padded_shape, dcols.dtype)
        for i in range(kh):
            for j in range(kw):
                _tap(dxp, i, j, oh, ow, sh, sw, dh, dw)[...] += dc[:, :, :, i, j]
    if ph == (0, 0) and pw == (0, 0):
        return dxp
    return np.ascontiguousarray(dxp[:, ph[0]:hp - ph[1], pw[0]:wp - pw[1]])


def _conv_setup(op_type, in_shape, kh, kw, attrs):
    """Checks attrs; returns geometry: (oh, ph, sh, dh), (ow, pw, sw, dw)."""
    data_format = attrs["data_format"]
    _check_cpu_format(op_type, data_format)
    _check_strides(attrs["strides"], attrs.get("dilations", (1, 1, 1, 1)))
    _, h, w, _ = in_shape
    try:
        (oh, *ph), (ow, *pw) = _window_geometry(
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
    n, h, wd, c = _layout(_dims4(x, "input"), data_format)
    kh, kw, ci, co = _dims4(w, "filter")
    if c is not None and ci is not None and c % ci:
        raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                         f"({ci})")
    (oh, _, _), (ow, _, _) = _window_geometry(
        h, wd, kh or 1, kw or 1, strides=strides, padding=padding, data_format=data_format,
        dilations=dilations, explicit_paddings=explicit_paddings)
    if kh is None:
        oh = None
    if kw is None:
        ow = None
    return _in_format(n, oh, ow, co, data_format)


def _conv_dtype(*dts, **attrs):
    return check_dtype(same_dtype(*dts), _CONV_TYPES, "T")


conv2d_op = OpDef("Conv2D", shape=_conv2d_shape, dtype=_conv_dtype, attrs=_CONV_ATTRS,
                  input_names=("input", "filter"))


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
    return _conv_gemm(_padded(x, ph, pw), kh, kw, oh, ow, sh, sw, dh, dw,
                      w.reshape(kh * kw * ci, co))


def _conv2d_native(x, w, rows, cols, bias=None, relu=False):
    """The conv on oneDNN (plus ``bias``, fused, and ReLU, when given), or None when the
    backend can't take it; ``rows``/``cols`` are ``_conv_setup``'s geometry."""
    (oh, ph, sh, dh), (ow, pw, sw, dw) = rows, cols
    native = _native(x, w) if bias is None else _native(x, w, bias)
    geometry = native and _native_geometry(ph, pw, sh, sw, dh, dw)
    if not geometry:
        return None
    n, kh, kw, ci, co = x.shape[0], *w.shape
    out = np.empty((n, oh, ow, co), np.float32)

    def part(lo, hi):
        y = out[lo:hi]
        if native.conv2d(x[lo:hi], w, *geometry, (oh, ow), out=y, bias=bias) is None:
            return False
        if relu:
            # NumPy's maximum, as the Relu kernel, on the part just written (still in
            # cache): oneDNN's ReLU post-op would turn a NaN into 0.
            np.maximum(y, _zeros_like_cached(y), out=y)
        return True

    if _native_over_batch(native, part, n, 2.0 * out.size * kh * kw * ci):
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


def _conv_attrs(op):
    return {k: op.get_attr(k) for k in _CONV_ATTRS}


@conv2d_op.def_grad
def _conv2d_grad(op, dy):
    x, w = op.inputs
    sx, sw = array_ops.shape_n([x, w])
    attrs = _conv_attrs(op)
    return [conv2d_backprop_input_op.bind(sx, w, dy, **attrs),
            conv2d_backprop_filter_op.bind(x, sw, dy, **attrs)]


def _seq(value, n, channel_index, name):
    """TF's ``_get_sequence``: an int or n-list of spatial values as a 4-element list."""
    if value is None:
        raise ValueError(f"{name} must be given")
    if isinstance(value, int):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    if len(value) == n + 2:
        return value
    if len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")
    out = [1] * (n + 2)
    start = 2 if channel_index == 1 else 1
    out[start:start + n] = value
    return out


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


def _channel_index(data_format):
    return 1 if data_format and data_format.startswith("NC") else 3


def _conv_call_attrs(strides, padding, data_format, dilations, op_type="Conv2D"):
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    ci = _channel_index(data_format)
    padding, explicit = _conv_padding(padding, data_format, op_type)
    return {"strides": _seq(strides, 2, ci, "strides"), "padding": padding,
            "explicit_paddings": explicit, "data_format": data_format,
            "dilations": _seq(dilations if dilations is not None else 1, 2, ci, "dilations")}


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """2-D convolution of NHWC ``input`` with an ``[kh, kw, in, out]`` filter (a ``Conv2D``).

    ``padding`` is ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [t, b], [l, r], [0, 0]]``.

    >>> x = tf.ones([1, 4, 4, 1]); w = tf.ones([3, 3, 1, 2])
    >>> tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape.as_list()
    [1, 2, 2, 2]
    """
    filter = _one_of(filter, filters, "filter", "filters")
    attrs = _conv_call_attrs(strides, padding, data_format, dilations)
    return conv2d_op.bind(input, filter, use_cudnn_on_gpu=bool(use_cudnn_on_gpu), name=name,
                          **attrs)


def _one_of(a, b, name_a, name_b):
    if a is not None and b is not None:
        raise ValueError(f"Only one of '{name_a}' and '{name_b}' may be given")
    if a is None and b is None:
        raise ValueError(f"'{name_a}' must be given")
    return a if a is not None else b


def _sizes_value(t):
    """Partial static value of a 4-element sizes tensor (also through ShapeN outputs)."""
    if t.op.type == "ShapeN":
        dims = t.op.inputs[t.value_index].shape.as_tuple()
        return list(dims) if dims is not None else None
    return _partial_dims(t)


# ── Conv2DBackpropInput (also conv2d_transpose) ──────────────────────────────────────
def _conv2d_backprop_input_shape(sizes, w, dy, **attrs):
    dims = _sizes_value(sizes)
    if dims is not None and len(dims) != 4:
        raise ValueError(f"input_sizes must be 4-dimensional, got {len(dims)}")
    _, _, ci, co = _dims4(w.shape, "filter")
    c_dy = _layout(_dims4(dy.shape, "out_backprop"), attrs["data_format"])[3]
    if co is not None and c_dy is not None and co != c_dy:
        raise ValueError(f"Dimensions must be equal, but are {c_dy} and {co}")
    return TensorShape(None if dims is None else [d if d is None or d >= 0 else None
                                                  for d in dims])


def _backprop_input_dtype(sizes, w, dy, **attrs):
    """The dtype rule of the ``*BackpropInput`` ops: ``filter`` and ``out_backprop``'s."""
    return _conv_dtype(w, dy)


conv2d_backprop_input_op = OpDef(
    "Conv2DBackpropInput", shape=from_tensors(_conv2d_backprop_input_shape),
    dtype=_backprop_input_dtype, attrs=_CONV_ATTRS,
    input_names=("input_sizes", "filter", "out_backprop"))


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
        return _conv_gemm(_padded(dy, (top, bottom), (left, right)), kh, kw, h, wd, 1, 1,
                          dh, dw, w_t)
    padded = (n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c)
    dcols = _scratch("dcols", (n * oh * ow, kh * kw * ci), dy.dtype)
    _gemm(dy.reshape(-1, co), w.reshape(kh * kw * ci, co).T, out=dcols)
    return _col2im(dcols, padded, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw)


@conv2d_backprop_input_op.def_grad
def _conv2d_backprop_input_grad(op, dy):
    sizes, w, out_backprop = op.inputs
    attrs = _conv_attrs(op)
    return [None,
            conv2d_backprop_filter_op.bind(dy, array_ops.shape(w), out_backprop, **attrs),
            conv2d_op.bind(dy, w, **attrs)]


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    filter = _one_of(filter, filters, "filter", "filters")
    attrs = _conv_call_attrs(strides, padding, data_format, dilations, "Conv2DBackpropInput")
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
    value = _one_of(value, input, "value", "input")
    filter = _one_of(filter, filters, "filter", "filters")
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        attrs = _conv_call_attrs(strides, padding, data_format, dilations,
                                 "Conv2DBackpropInput")
        filter = convert_to_tensor(filter, name="filter")
        if not isinstance(output_shape, Tensor):
            shape_list = list(output_shape)
            if len(shape_list) != 4:
                raise ValueError(f"output_shape must have shape (4,), got ({len(shape_list)},)")
            out_c = shape_list[_channel_index(attrs["data_format"])]
            fc = filter.shape.as_tuple()
            if fc is not None and isinstance(out_c, int) and fc[2] is not None \
                    and out_c != fc[2]:
                raise ValueError(f"output_shape does not match filter's output channels, "
                                 f"{out_c} != {fc[2]}")
        return conv2d_backprop_input_op.bind(output_shape, filter, value, name=scope, **attrs)


# ── Conv2DBackpropFilter ─────────────────────────────────────────────────────────────
def _conv2d_backprop_filter_shape(x, sizes, dy, **attrs):
    dims = _sizes_value(sizes)
    if dims is not None and len(dims) != 4:
        raise ValueError(f"filter_sizes must be 4-dimensional, got {len(dims)}")
    return TensorShape(None if dims is None else [d if d is None or d >= 0 else None
                                                  for d in dims])


def _backprop_filter_dtype(x, sizes, dy, **attrs):
    """The dtype rule of the ``*BackpropFilter`` ops: ``input`` and ``out_backprop``'s."""
    return _conv_dtype(x, dy)


conv2d_backprop_filter_op = OpDef(
    "Conv2DBackpropFilter", shape=from_tensors(_conv2d_backprop_filter_shape),
    dtype=_backprop_filter_dtype, attrs=_CONV_ATTRS,
    input_names=("input", "filter_sizes", "out_backprop"))


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
    return _conv_filter_gemm(_padded(x, ph, pw), kh, kw, oh, ow, sh, sw, dh, dw,
                             dy.reshape(dy.shape[0], -1, co)).reshape(kh, kw, ci, co)


@conv2d_backprop_filter_op.def_grad
def _conv2d_backprop_filter_grad(op, dy):
    x, sizes, out_backprop = op.inputs
    attrs = _conv_attrs(op)
    return [conv2d_backprop_input_op.bind(array_ops.shape(x), dy, out_backprop, **attrs),
            None,
            conv2d_op.bind(x, dy, **attrs)]


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1),
                           name=None) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    attrs = _conv_call_attrs(strides, padding, data_format, dilations, "Conv2DBackpropFilter")
    return conv2d_backprop_filter_op.bind(input, filter_sizes, out_backprop, name=name,
                                          use_cudnn_on_gpu=bool(use_cudnn_on_gpu), **attrs)


# ── DepthwiseConv2dNative (+ backprops) ──────────────────────────────────────────────
def _depthwise_shape(x, w, **attrs):
    data_format = attrs["data_format"]
    n, h, wd, c = _layout(_dims4(x, "input"), data_format)
    kh, kw, ci, m = _dims4(w, "filter")
    if c is not None and ci is not None and c != ci:
        raise ValueError(f"Dimensions must be equal, but are {c} and {ci}")
    c = c if c is not None else ci
    (oh, _, _), (ow, _, _) = _window_geometry(
        h, wd, kh or 1, kw or 1, strides=attrs["strides"], padding=attrs["padding"],
        data_format=data_format, dilations=attrs["dilations"],
        explicit_paddings=attrs["explicit_paddings"])
    oc = None if c is None or m is None else c * m
    return _in_format(n, oh if kh is not None else None, ow if kw is not None else None, oc,
                      data_format)


depthwise_op = OpDef("DepthwiseConv2dNative", shape=_depthwise_shape, dtype=_conv_dtype,
                     attrs=_DW_ATTRS, input_names=("input", "filter"))


@depthwise_op.def_kernel
def _depthwise_kernel(x, w, **attrs):
    kh, kw, c, m = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNative", x.shape, kh, kw,
                                                     attrs)
    xp = _padded(x, ph, pw)
    out = np.zeros((x.shape[0], oh, ow, c, m), np.result_type(x, w))
    for i in range(kh):
        for j in range(kw):
            out += _tap(xp, i, j, oh, ow, sh, sw, dh, dw)[..., None] * w[i, j]
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
    attrs = _conv_call_attrs(strides, padding, data_format, dilations,
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
        attrs = _conv_call_attrs(strides, padding, data_format, rate, "DepthwiseConv2dNative")
        return depthwise_op.bind(input, filter, name=scope, **attrs)


def _depthwise_backprop_input_shape(sizes, w, dy, **attrs):
    return _conv2d_backprop_filter_shape(None, sizes, dy)


depthwise_backprop_input_op = OpDef(
    "DepthwiseConv2dNativeBackpropInput", shape=from_tensors(_depthwise_backprop_input_shape),
    dtype=_backprop_input_dtype, attrs=_DW_ATTRS,
    input_names=("input_sizes", "filter", "out_backprop"))


@depthwise_backprop_input_op.def_kernel
def _depthwise_backprop_input_kernel(sizes, w, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    kh, kw, c, m = w.shape
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNativeBackpropInput",
                                                     in_shape, kh, kw, attrs)
    _check_out_backprop("DepthwiseConv2dNativeBackpropInput", dy, oh, ow, in_shape, (kh, kw))
    n, h, wd, _ = in_shape
    dxp = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dy.dtype)
    dy5 = dy.reshape(n, oh, ow, c, m)
    for i in range(kh):
        for j in range(kw):
            _tap(dxp, i, j, oh, ow, sh, sw, dh, dw)[...] += np.einsum("nhwcm,cm->nhwc", dy5,
                                                                      w[i, j])
    return np.ascontiguousarray(dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd])


@depthwise_backprop_input_op.def_grad
def _depthwise_backprop_input_grad(op, dy):
    sizes, w, out_backprop = op.inputs
    attrs = {k: op.get_attr(k) for k in _DW_ATTRS}
    return [None,
            depthwise_backprop_filter_op.bind(dy, array_ops.shape(w), out_backprop, **attrs),
            depthwise_op.bind(dy, w, **attrs)]


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                                           padding, data_format="NHWC",
                                           dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its input."""
    attrs = _conv_call_attrs(strides, padding, data_format, dilations,
                             "DepthwiseConv2dNativeBackpropInput")
    return depthwise_backprop_input_op.bind(input_sizes, filter, out_backprop, name=name,
                                            **attrs)


depthwise_backprop_filter_op = OpDef(
    "DepthwiseConv2dNativeBackpropFilter", shape=from_tensors(_conv2d_backprop_filter_shape),
    dtype=_backprop_filter_dtype, attrs=_DW_ATTRS,
    input_names=("input", "filter_sizes", "out_backprop"))


@depthwise_backprop_filter_op.def_kernel
def _depthwise_backprop_filter_kernel(x, sizes, dy, **attrs):
    kh, kw, c, m = (int(v) for v in sizes)
    (oh, ph, sh, dh), (ow, pw, sw, dw) = _conv_setup("DepthwiseConv2dNativeBackpropFilter",
                                                     x.shape, kh, kw, attrs)
    _check_out_backprop("DepthwiseConv2dNativeBackpropFilter", dy, oh, ow, x.shape, (kh, kw))
    xp = _padded(x, ph, pw)
    n = x.shape[0]
    dy3 = dy.reshape(n * oh * ow, c, m)
    dw_ = np.empty((kh, kw, c, m), np.result_type(x, dy))
    for i in range(kh):
        for j in range(kw):
            tap = _tap(xp, i, j, oh, ow, sh, sw, dh, dw).reshape(n * oh * ow, c)
            dw_[i, j] = np.einsum("pc,pcm->cm", tap, dy3)
    return dw_


@depthwise_backprop_filter_op.def_grad
def _depthwise_backprop_filter_grad(op, dy):
    x, sizes, out_backprop = op.inputs
    attrs = {k: op.get_attr(k) for k in _DW_ATTRS}
    return [depthwise_backprop_input_op.bind(array_ops.shape(x), dy, out_backprop, **attrs),
            None,
            depthwise_op.bind(x, dy, **attrs)]


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its filter."""
    attrs = _conv_call_attrs(strides, padding, data_format, dilations,
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
