"""What the convolutions and poolings share: TF's window geometry and padding arithmetic,
the CPU kernels' run-time checks, the per-thread scratch buffers with the im2col / col2im
primitives over them, the normalising of the builders' arguments, and the declarations of
the convolutions' backprop ops and gradients, which TF writes alike for every rank.

Padding follows TF's arithmetic: ``VALID`` keeps whole windows, ``SAME`` gives
``ceil(in / stride)`` outputs with ``pad_total = max((out - 1) * stride + (k - 1) * dilation
+ 1 - in, 0)`` split ``pad_total // 2`` before and the rest after, ``EXPLICIT`` takes the
pairs given. A convolution is im2col plus GEMMs: the windows are copied into a contiguous
per-thread scratch matrix (never returned, so kernels stay pure functions of their inputs)
and multiplied by the filter in its own dtype (float32 stays float32). The ops themselves
are in :mod:`scopeflow.ops.nn.conv_ops`, :mod:`~scopeflow.ops.nn.pool_ops` and
:mod:`~scopeflow.ops.nn.conv3d_ops`.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.array_ops import _partial_dims
from scopeflow.ops.math.blas import split_rows

__all__ = ["out_and_pads", "spatial", "window_geometry", "static_dims", "nhwc_dims",
           "shape_in_format", "check_cpu_format", "check_strides", "scratch_buffer",
           "padded_nhwc", "tap_view", "im2col", "conv_gemm", "conv_filter_gemm", "col2im",
           "get_sequence", "channel_index", "one_of", "sizes_value", "sizes_shape", "backprop_op",
           "conv_family",
           "conv_grad", "backprop_input_grad", "backprop_filter_grad"]


# ── Geometry: TF's windowed output sizes and paddings ────────────────────────────────
def out_and_pads(size, k, stride, dilation, padding, explicit=(0, 0)):
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


def spatial(attrs_list, data_format):
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


def window_geometry(in_h, in_w, kh, kw, *, strides, padding, data_format,
                     dilations=(1, 1, 1, 1), explicit_paddings=()):
    """((oh, ph0, ph1), (ow, pw0, pw1)) for one op's attrs."""
    for attr, values in (("stride", strides), ("dilation", dilations)):
        if len(values) != 4:  # an imported NodeDef may hold anything
            raise ValueError(f"the {attr} attribute must contain 4 values, but got: "
                             f"{len(values)}")
    sh, sw = spatial(strides, data_format)
    dh, dw = spatial(dilations, data_format)
    eh, ew = _explicit_pairs(explicit_paddings, data_format)
    return (out_and_pads(in_h, kh, sh, dh, padding, eh),
            out_and_pads(in_w, kw, sw, dw, padding, ew))


def static_dims(shape: TensorShape, rank, what):
    """The dims of ``shape`` (``rank`` Nones when unknown); another rank is TF's error."""
    dims = shape.as_tuple()
    if dims is None:
        return (None,) * rank
    if len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)} ({what})")
    return dims


def nhwc_dims(dims, data_format):
    """(N, H, W, C) from dims in ``data_format``."""
    if data_format == "NCHW":
        return dims[0], dims[2], dims[3], dims[1]
    return dims


def shape_in_format(n, h, w, c, data_format):
    """The shape of (N, H, W, C) laid out in ``data_format``: ``nhwc_dims``'s inverse."""
    return TensorShape([n, c, h, w] if data_format == "NCHW" else [n, h, w, c])


# ── Runtime checks shared by the kernels (TF's CPU kernel messages) ──────────────────
def check_cpu_format(op_type, data_format, kind="conv"):
    """TF's CPU kernels run NHWC only; convs and pools word the refusal differently."""
    if data_format == "NHWC":
        return
    if kind == "conv":
        raise errors.UnimplementedError(
            None, None, f"The {op_type} op currently only supports the NHWC tensor format on "
            f"the CPU. The op was given the format: {data_format}")
    raise errors.InvalidArgumentError(
        None, None, f"Default {kind} only supports NHWC on device type CPU")


def check_strides(strides, dilations=(1, 1, 1, 1)):
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


def scratch_buffer(role, shape, dtype):
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


def padded_nhwc(x, ph, pw, value=0, role="pad"):
    """``x`` (NHWC) padded spatially by (before, after) pairs, into a scratch buffer."""
    if ph == (0, 0) and pw == (0, 0):
        return x
    n, h, w, c = x.shape
    out = scratch_buffer(role, (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), x.dtype)
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


def tap_view(xp, i, j, oh, ow, sh, sw, dh, dw):
    """The (N, oh, ow, C) view of padded ``xp`` seen by kernel tap (i, j)."""
    return xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]


def im2col(xp, kh, kw, oh, ow, sh, sw, dh, dw, role="cols"):
    """The (N*oh*ow, kh*kw*C) window matrix of padded NHWC ``xp``: one copy, contiguous."""
    n, _, _, c = xp.shape
    cols = scratch_buffer(role, (n, oh, ow, kh, kw, c), xp.dtype)
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


def conv_gemm(xp, kh, kw, oh, ow, sh, sw, dh, dw, wmat):
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
            cols = im2col(xp[s:e], kh, kw, oh, ow, sh, sw, dh, dw)
            np.matmul(cols, wmat, out=out[s:e].reshape(-1, co))

    split_rows(task, n, 2.0 * n * oh * ow * k * co, _CONV_SPLIT_FLOPS)
    return out.reshape(n, oh, ow, co)


def conv_filter_gemm(xp, kh, kw, oh, ow, sh, sw, dh, dw, dy):
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
            cols = im2col(xp[s:e], kh, kw, oh, ow, sh, sw, dh, dw)
            np.matmul(cols.T, dy[s:e].reshape(-1, co), out=tmp)
            acc += tmp
        partials.append(acc)

    split_rows(task, n, 2.0 * n * oh * ow * k * co, _CONV_SPLIT_FLOPS)
    out = partials[0]
    for p in partials[1:]:
        out += p
    return out


def col2im(dcols, padded_shape, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw):
    """Sums the (N*oh*ow, kh*kw*C) window gradients back onto the input (NHWC, unpadded)."""
    n, hp, wp, c = padded_shape
    dc = dcols.reshape(n, oh, ow, kh, kw, c)
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and hp == oh and wp == ow:
        dxp = dc.reshape(n, oh, ow, c).copy()
    else:
        dxp = np.zeros(padded_shape, dcols.dtype)
        for i in range(kh):
            for j in range(kw):
                tap_view(dxp, i, j, oh, ow, sh, sw, dh, dw)[...] += dc[:, :, :, i, j]
    if ph == (0, 0) and pw == (0, 0):
        return dxp
    return np.ascontiguousarray(dxp[:, ph[0]:hp - ph[1], pw[0]:wp - pw[1]])


# ── The builders' arguments (TF's ``_get_sequence`` and friends) ─────────────────────
def get_sequence(value, n, channel_index, name):
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


def channel_index(data_format):
    """The channel axis of a 4-D (or 5-D) ``data_format``: 1 for NC..., else 3."""
    return 1 if data_format and data_format.startswith("NC") else 3


def one_of(a, b, name_a, name_b):
    """The one of TF1's and TF2's names for an argument that was given."""
    if a is not None and b is not None:
        raise ValueError(f"Only one of '{name_a}' and '{name_b}' may be given")
    if a is None and b is None:
        raise ValueError(f"'{name_a}' must be given")
    return a if a is not None else b


def sizes_value(t):
    """Partial static value of a 4-element sizes tensor (also through ShapeN outputs)."""
    if t.op.type == "ShapeN":
        dims = t.op.inputs[t.value_index].shape.as_tuple()
        return list(dims) if dims is not None else None
    return _partial_dims(t)


def sizes_shape(sizes, rank, what):
    """The static shape a backprop op's sizes input (``input_sizes``, ``filter_sizes``)
    gives its output: the dims known so far, a negative one unknown; ``rank`` unknown dims
    when its value is unknown (TF's shape functions then apply ``WithRank(rank)``)."""
    dims = sizes_value(sizes)
    if dims is not None and len(dims) != rank:
        raise ValueError(f"{what} must be {rank}-dimensional, got {len(dims)}")
    return TensorShape([None] * rank if dims is None else [d if d is None or d >= 0 else None
                                                           for d in dims])


# ── The backprop ops and the gradients, as TF declares them for 2-D, depthwise and 3-D ──
def _check_sizes(sizes, allowed, what, op_type):
    """TF's TypeErrors for a sizes input of the wrong integer type (a fixed int32 input
    words it differently from a type attr's list)."""
    if len(allowed) == 1 and sizes not in allowed:
        raise TypeError(f"Input '{what}' of '{op_type}' Op has type {sizes.name} that does "
                        f"not match expected type of {allowed[0].name}.")
    check_dtype(sizes, allowed, what)


def backprop_op(op_type, wrt, rank, dtype, attrs, shape=None, sizes_types=(dtypes.int32,)):
    """The OpDef of a convolution's gradient with respect to ``wrt`` (``"input"`` or
    ``"filter"``): its inputs are ``(input_sizes, filter, out_backprop)`` or ``(input,
    filter_sizes, out_backprop)``, its static shape the sizes input's value (a ``rank``-D
    ``sizes_shape``, unless ``shape`` gives the rule), its dtype ``dtype`` of the two other
    inputs, in their order (the sizes input one of ``sizes_types``: int32 in TF's OpDefs but
    Conv3DBackpropInputV2's Tshape); its gradient ``backprop_input_grad`` or
    ``backprop_filter_grad`` (``conv_family`` names the other ops)."""
    if wrt == "input":
        names = ("input_sizes", "filter", "out_backprop")

        def sizes_rule(sizes, w, dy, **attrs):
            return sizes_shape(sizes, rank, "input_sizes")

        def dtype_rule(sizes, w, dy, **attrs):
            _check_sizes(sizes, sizes_types, "input_sizes", op_type)
            return dtype(w, dy)
    else:
        names = ("input", "filter_sizes", "out_backprop")

        def sizes_rule(x, sizes, dy, **attrs):
            return sizes_shape(sizes, rank, "filter_sizes")

        def dtype_rule(x, sizes, dy, **attrs):
            _check_sizes(sizes, sizes_types, "filter_sizes", op_type)
            return dtype(x, dy)
    grad = backprop_input_grad if wrt == "input" else backprop_filter_grad
    return OpDef(op_type, shape=from_tensors(shape or sizes_rule), dtype=dtype_rule,
                 attrs=attrs, grad=grad, input_names=names)


# Op type -> (convolution, its input backprop, its filter backprop), each op of a family.
_CONV_FAMILY: dict = {}


def _conv_family(op):
    """The family of ``op``'s type, and ``op``'s attrs (the convolution's) to pass on."""
    family = _CONV_FAMILY[op.type]
    return family, {k: op.get_attr(k) for k in family[0].attrs}


def conv_grad(op, dy):
    """TF's gradient of Conv2D and Conv3D: the two backprops, sizes from one ``ShapeN``."""
    (_, input_op, filter_op), attrs = _conv_family(op)
    x, w = op.inputs
    sx, sw = array_ops.shape_n([x, w])
    return [input_op.bind(sx, w, dy, **attrs), filter_op.bind(x, sw, dy, **attrs)]


def backprop_input_grad(op, dy):
    """TF's gradient of a convolution's input backprop: the filter backprop and the
    convolution."""
    (conv_op, _, filter_op), attrs = _conv_family(op)
    _, w, out_backprop = op.inputs
    return [None, filter_op.bind(dy, array_ops.shape(w), out_backprop, **attrs),
            conv_op.bind(dy, w, **attrs)]


def backprop_filter_grad(op, dy):
    """TF's gradient of a convolution's filter backprop: the input backprop and the
    convolution."""
    (conv_op, input_op, _), attrs = _conv_family(op)
    x, _, out_backprop = op.inputs
    return [input_op.bind(array_ops.shape(x), dy, out_backprop, **attrs), None,
            conv_op.bind(x, dy, **attrs)]


def conv_family(conv_op, input_op, filter_op):
    """Makes ``input_op`` and ``filter_op`` the backprops of ``conv_op`` for ``conv_grad``,
    ``backprop_input_grad`` and ``backprop_filter_grad``, which pass on all of
    ``conv_op``'s attrs."""
    family = (conv_op, input_op, filter_op)
    for op_def in family:
        _CONV_FAMILY[op_def.type] = family
