"""3-D convolution and pooling (NDHWC), with TF's gradient ops.

``Conv3D`` is im2col plus one GEMM: a strided window view of the padded input is copied
once into a ``(N*od*oh*ow, kd*kh*kw*C)`` matrix and multiplied by the filter reshaped to
``(kd*kh*kw*C, out)``. ``Conv3DBackpropFilterV2`` is the transposed product of the same
matrix with ``dy``; ``Conv3DBackpropInputV2`` multiplies ``dy`` by the filter's transpose
and adds each kernel tap's slab back into the padded input (one vectorised add per tap); it
is also ``conv3d_transpose``, as in TF.
Pooling reads one strided window view (``MaxPool3D``, ``AvgPool3D``) and scatters back one
slab per window tap (``MaxPool3DGrad``: every element equal to its window's max takes the
gradient, ties included, as TF's CPU kernel; ``AvgPool3DGrad``: SAME edge windows divide
by their real element count). Padding is TF's arithmetic
(:func:`scopeflow.ops.nn.conv_geometry.out_and_pads`). As TF's CPU kernels, only NDHWC runs.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.nn.conv_geometry import (
    backprop_op,
    conv_family,
    conv_grad,
    get_sequence,
    one_of,
    out_and_pads,
    sizes_shape,
    static_dims,
)

__all__ = ["conv3d", "conv3d_backprop_input_v2", "conv3d_backprop_filter_v2", "conv3d_transpose",
           "max_pool3d", "avg_pool3d"]

_CONV3D_ATTRS = {"strides": None, "padding": None, "data_format": "NDHWC",
                 "dilations": [1, 1, 1, 1, 1]}


# ── Geometry and the im2col / col2im primitives ───────────────────────────────────────
def _geometry3(in_dhw, k_dhw, strides, dilations, padding):
    """[(out, pad before, pad after)] for the three spatial dims (None sizes stay None)."""
    return [out_and_pads(s, k if k is not None else 1, st, d, padding)
            for s, k, st, d in zip(in_dhw, k_dhw, strides[1:4], dilations[1:4])]


def _check_conv3d_attrs(op_type, attrs):
    """TF's CPU kernels: NDHWC only, strides of 1 in N and C, dilation rates of 1."""
    if attrs["data_format"] != "NDHWC":
        raise errors.InvalidArgumentError(
            None, None, f"CPU implementation of {op_type} currently only supports the NHWC "
            "tensor format.")
    s = attrs["strides"]
    if s[0] != 1 or s[4] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not yet support strides in the batch "
            "and depth dimensions.")
    if any(d != 1 for d in attrs["dilations"]):
        raise errors.InvalidArgumentError(
            None, None, f"CPU implementation of {op_type} currently only supports dilated "
            "rates of 1.")


def _ndhwc(dims, data_format):
    """(N, D, H, W, C) from dims in ``data_format``."""
    if data_format == "NCDHW":
        return dims[0], dims[2], dims[3], dims[4], dims[1]
    return tuple(dims)


def _in_format5(n, d, h, w, c, data_format):
    return TensorShape([n, c, d, h, w] if data_format == "NCDHW" else [n, d, h, w, c])


def _spatial3(attr_list, data_format):
    """The attr list reordered as NDHWC (strides, dilations, ksize)."""
    return list(_ndhwc(attr_list, data_format))


def _setup3(op_type, in_shape, k_dhw, attrs):
    _check_conv3d_attrs(op_type, attrs)
    geo = _geometry3(in_shape[1:4], k_dhw, attrs["strides"], attrs["dilations"],
                     attrs["padding"])
    return geo, tuple(attrs["strides"][1:4]), tuple(attrs["dilations"][1:4])


def _pad3(x, geo):
    pads = [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)]
    if all(p == (0, 0) for p in pads):
        return x
    return np.pad(x, pads)


def _im2col3(xp, k_dhw, out_dhw, strides, dilations):
    """The (N*od*oh*ow, kd*kh*kw*C) window matrix of padded NDHWC ``xp`` (one copy)."""
    n, c = xp.shape[0], xp.shape[4]
    s = xp.strides
    shape = (n, *out_dhw, *k_dhw, c)
    view = np.lib.stride_tricks.as_strided(
        xp, shape, (s[0], s[1] * strides[0], s[2] * strides[1], s[3] * strides[2],
                    s[1] * dilations[0], s[2] * dilations[1], s[3] * dilations[2], s[4]),
        writeable=False)
    # The column count spelled out: with an empty batch, -1 could not be inferred.
    return np.ascontiguousarray(view).reshape(n * int(np.prod(out_dhw)),
                                              int(np.prod(k_dhw)) * c)


def _col2im3(dcols, padded_shape, k_dhw, out_dhw, strides, dilations, geo):
    """Adds each kernel tap's (N, od, oh, ow, C) slab of ``dcols`` into the padded input and
    returns the unpadded part."""
    n, c = padded_shape[0], padded_shape[4]
    (od, oh, ow), (kd, kh, kw) = out_dhw, k_dhw
    (sd, sh, sw), (dd, dh, dw) = strides, dilations
    dxp = np.zeros(padded_shape, dcols.dtype)
    cols = dcols.reshape(n, od, oh, ow, kd, kh, kw, c)
    for a in range(kd):
        for b in range(kh):
            for e in range(kw):
                dxp[:, a * dd:a * dd + (od - 1) * sd + 1:sd,
                    b * dh:b * dh + (oh - 1) * sh + 1:sh,
                    e * dw:e * dw + (ow - 1) * sw + 1:sw] += cols[:, :, :, :, a, b, e]
    (_, d0, _), (_, h0, _), (_, w0, _) = geo
    d, h, w = (padded_shape[i + 1] - geo[i][1] - geo[i][2] for i in range(3))
    return np.ascontiguousarray(dxp[:, d0:d0 + d, h0:h0 + h, w0:w0 + w])


def _check_out_backprop3(op_type, dy, out_dhw, n, co):
    want = (n, *out_dhw, co)
    if tuple(dy.shape) != want:
        raise errors.InvalidArgumentError(
            None, None, f"{op_type}: Computed out_backprop shape {list(want)} doesn't match "
            f"out_backprop shape {list(dy.shape)}")


# ── Conv3D ───────────────────────────────────────────────────────────────────────────
def _conv3d_dtype(*dts, **attrs):
    """TF's Conv3D ``T``: floating types only."""
    return check_dtype(same_dtype(*dts), FLOATS, "T")


def _conv3d_shape(x, w, *, strides, padding, data_format, dilations):
    n, d, h, wd, c = _ndhwc(static_dims(x, 5, "input"), data_format)
    kd, kh, kw, ci, co = static_dims(w, 5, "filter")
    if c is not None and ci is not None and c % ci:
        raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                         f"({ci})")
    if c is not None and ci:  # TF's group checks (an empty channel dimension: no groups)
        if c // ci == 0:
            raise ValueError("Number of groups must not be 0")
        if co is not None and co % (c // ci):
            raise ValueError(f"Depth of output ({co}) is not a multiple of the number of "
                             f"groups ({c // ci})")
    geo = _geometry3((d, h, wd), (kd, kh, kw), _spatial3(strides, data_format),
                     _spatial3(dilations, data_format), padding)
    out = [o if k is not None else None for (o, _, _), k in zip(geo, (kd, kh, kw))]
    return _in_format5(n, *out, co, data_format)


conv3d_op = OpDef("Conv3D", shape=_conv3d_shape, dtype=_conv3d_dtype, attrs=_CONV3D_ATTRS,
                  grad=conv_grad, input_names=("input", "filter"))


@conv3d_op.def_kernel
def _conv3d_kernel(x, w, **attrs):
    kd, kh, kw, ci, co = w.shape
    geo, strides, dilations = _setup3("Conv3D", x.shape, (kd, kh, kw), attrs)
    if x.shape[4] != ci:
        raise errors.UnimplementedError(
            None, None, f"Conv3D: grouped convolution (input depth {x.shape[4]}, filter depth "
            f"{ci}) is not supported")
    out_dhw = tuple(o for o, _, _ in geo)
    cols = _im2col3(_pad3(x, geo), (kd, kh, kw), out_dhw, strides, dilations)
    y = cols @ w.reshape(-1, co)
    return y.reshape(x.shape[0], *out_dhw, co).astype(x.dtype, copy=False)


def _conv3d_call_attrs(strides, padding, data_format, dilations, op_type):
    data_format = data_format or "NDHWC"
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be 'NDHWC' or 'NCDHW', got {data_format!r}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string '{padding}' not in: "
                         '"SAME", "VALID".')
    ci = 1 if data_format == "NCDHW" else 4
    return {"strides": get_sequence(strides, 3, ci, "strides"), "padding": padding,
            "data_format": data_format,
            "dilations": get_sequence(dilations if dilations is not None else 1, 3, ci,
                                      "dilations")}


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None) -> Tensor:
    """3-D convolution of NDHWC ``input`` with a ``[kd, kh, kw, in, out]`` filter (a
    ``Conv3D``).

    >>> x = tf.ones([1, 4, 4, 4, 1]); w = tf.ones([3, 3, 3, 1, 2])
    >>> tf.nn.conv3d(x, w, [1, 2, 2, 2, 1], "SAME").shape.as_list()
    [1, 2, 2, 2, 2]
    """
    filter = one_of(filter, filters, "filter", "filters")
    attrs = _conv3d_call_attrs(strides, padding, data_format, dilations, "Conv3D")
    return conv3d_op.bind(input, filter, name=name, **attrs)


# ── Conv3DBackpropInputV2 ────────────────────────────────────────────────────────────
conv3d_backprop_input_v2_op = backprop_op("Conv3DBackpropInputV2", "input", 5, _conv3d_dtype,
                                          _CONV3D_ATTRS, sizes_types=INDEX)


@conv3d_backprop_input_v2_op.def_kernel
def _conv3d_backprop_input_kernel(sizes, w, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    kd, kh, kw, ci, co = w.shape
    geo, strides, dilations = _setup3("Conv3DBackpropInputV2", in_shape, (kd, kh, kw), attrs)
    out_dhw = tuple(o for o, _, _ in geo)
    _check_out_backprop3("Conv3DBackpropInputV2", dy, out_dhw, in_shape[0], co)
    padded = (in_shape[0], *(in_shape[i + 1] + geo[i][1] + geo[i][2] for i in range(3)),
              in_shape[4])
    dcols = dy.reshape(-1, co) @ w.reshape(-1, co).T
    return _col2im3(dcols, padded, (kd, kh, kw), out_dhw, strides, dilations,
                    geo).astype(dy.dtype, copy=False)


def conv3d_backprop_input_v2(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                             data_format="NDHWC", dilations=(1, 1, 1, 1, 1),
                             name=None) -> Tensor:
    """The gradient of ``conv3d`` with respect to its input, of shape ``input_sizes``."""
    attrs = _conv3d_call_attrs(strides, padding, data_format, dilations,
                               "Conv3DBackpropInputV2")
    return conv3d_backprop_input_v2_op.bind(input_sizes, filter, out_backprop, name=name,
                                            **attrs)


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None) -> Tensor:
    """The transpose of ``conv3d`` (a ``Conv3DBackpropInputV2``): a ``[kd, kh, kw, out, in]``
    filter, ``output_shape`` the 5-element shape of the result. Its gradient is TF's: a
    ``Conv3D`` for ``value``, a ``Conv3DBackpropFilterV2`` for ``filter``.

    >>> y = tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 3]), tf.ones([3, 3, 3, 4, 3]),
    ...                            [1, 4, 4, 4, 4], [1, 2, 2, 2, 1])
    >>> y.shape.as_list()
    [1, 4, 4, 4, 4]
    """
    value = one_of(value, input, "value", "input")
    filter = one_of(filter, filters, "filter", "filters")
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        attrs = _conv3d_call_attrs(strides, padding, data_format, dilations,
                                   "Conv3DBackpropInputV2")
        filter = convert_to_tensor(filter, name="filter")
        if not isinstance(output_shape, Tensor):
            output_shape = list(output_shape)
            if len(output_shape) != 5:
                dims = filter.shape.as_tuple()
                fshape = "?" if dims is None else \
                    "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
                raise ValueError(
                    f"Shape must be rank 5 but is rank {len(output_shape)} for "
                    f"'{scope.rstrip('/')}' (op: 'Conv3DBackpropInputV2') with input shapes: "
                    f"[{len(output_shape)}], {fshape}.")
        return conv3d_backprop_input_v2_op.bind(output_shape, filter, value, name=scope,
                                                **attrs)


# ── Conv3DBackpropFilterV2 ───────────────────────────────────────────────────────────
conv3d_backprop_filter_v2_op = backprop_op("Conv3DBackpropFilterV2", "filter", 5,
                                           _conv3d_dtype, _CONV3D_ATTRS)
conv_family(conv3d_op, conv3d_backprop_input_v2_op, conv3d_backprop_filter_v2_op)


@conv3d_backprop_filter_v2_op.def_kernel
def _conv3d_backprop_filter_kernel(x, sizes, dy, **attrs):
    kd, kh, kw, ci, co = (int(v) for v in sizes)
    geo, strides, dilations = _setup3("Conv3DBackpropFilterV2", x.shape, (kd, kh, kw), attrs)
    out_dhw = tuple(o for o, _, _ in geo)
    _check_out_backprop3("Conv3DBackpropFilterV2", dy, out_dhw, x.shape[0], co)
    cols = _im2col3(_pad3(x, geo), (kd, kh, kw), out_dhw, strides, dilations)
    dw = cols.T @ dy.reshape(-1, co)
    return dw.reshape(kd, kh, kw, ci, co).astype(x.dtype, copy=False)


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                              data_format="NDHWC", dilations=(1, 1, 1, 1, 1),
                              name=None) -> Tensor:
    """The gradient of ``conv3d`` with respect to its filter, of shape ``filter_sizes``."""
    attrs = _conv3d_call_attrs(strides, padding, data_format, dilations,
                               "Conv3DBackpropFilterV2")
    return conv3d_backprop_filter_v2_op.bind(input, filter_sizes, out_backprop, name=name,
                                             **attrs)


# ── Pooling: shared geometry ─────────────────────────────────────────────────────────
# TF's MaxPool3D (and MaxPool3DGrad) take half/bfloat16/float only; AvgPool3D adds double.
_MAX_POOL3D_TYPES = (dtypes.float16, dtypes.float32)
_POOL3D_ATTRS = {"ksize": None, "strides": None, "padding": None, "data_format": "NDHWC"}


def _pool3d_shape(x, *, ksize, strides, padding, data_format):
    n, d, h, w, c = _ndhwc(static_dims(x, 5, "input"), data_format)
    geo = _geometry3((d, h, w), _spatial3(ksize, data_format)[1:4],
                     _spatial3(strides, data_format), (1,) * 5, padding)
    return _in_format5(n, *(o for o, _, _ in geo), c, data_format)


def _pool3d_setup(in_shape, attrs):
    if attrs["data_format"] != "NDHWC":
        raise errors.InvalidArgumentError(
            None, None, "Default Pooling3DOp only supports NDHWC on device type CPU")
    ksize, strides = attrs["ksize"], attrs["strides"]
    if ksize[0] != 1 or strides[0] != 1 or ksize[4] != 1 or strides[4] != 1:
        raise errors.UnimplementedError(
            None, None, "Pooling is not yet supported on the batch nor channel dimension.")
    geo = _geometry3(in_shape[1:4], ksize[1:4], strides, (1,) * 5, attrs["padding"])
    return geo, tuple(ksize[1:4]), tuple(strides[1:4])


def _window_view(xp, k_dhw, out_dhw, strides):
    """The read-only (N, od, oh, ow, kd, kh, kw, C) window view of padded NDHWC ``xp``."""
    s = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, (xp.shape[0], *out_dhw, *k_dhw, xp.shape[4]),
        (s[0], s[1] * strides[0], s[2] * strides[1], s[3] * strides[2], s[1], s[2], s[3],
         s[4]), writeable=False)


def _tap_slab(xp, a, b, e, out_dhw, strides):
    """The (N, od, oh, ow, C) view of padded ``xp`` seen by window tap (a, b, e)."""
    (od, oh, ow), (sd, sh, sw) = out_dhw, strides
    return xp[:, a:a + (od - 1) * sd + 1:sd, b:b + (oh - 1) * sh + 1:sh,
              e:e + (ow - 1) * sw + 1:sw]


def _unpad3(xp, geo, in_shape):
    (_, d0, _), (_, h0, _), (_, w0, _) = geo
    return np.ascontiguousarray(xp[:, d0:d0 + in_shape[1], h0:h0 + in_shape[2],
                                   w0:w0 + in_shape[3]])


def _pool3d_call(op_def, input, ksize, strides, padding, data_format, name):  # noqa: A002
    data_format = data_format or "NDHWC"
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_def.type}' Op passed string '{padding}' not "
                         'in: "SAME", "VALID".')
    ci = 1 if data_format == "NCDHW" else 4
    return op_def.bind(input, name=name, ksize=get_sequence(ksize, 3, ci, "ksize"),
                       strides=get_sequence(strides, 3, ci, "strides"), padding=padding,
                       data_format=data_format)


def _pool3d_attrs(op):
    return {k: op.get_attr(k) for k in _POOL3D_ATTRS}


def _require_cpu_kernel(op_type, x, missing):
    """TF 2.21 registers these pools' CPU kernels for fewer dtypes than their OpDefs allow
    (checked: neither has a half kernel): running one fails at run time as TF's does. (TF
    has no double AvgPool3D kernel either; scopeflow keeps its own, which the op table's
    float64 gradient checks use.)"""
    if x.dtype in missing:
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op '{op_type}' with these "
            f"attrs: [T={_TF_ENUM_NAMES[x.dtype.type]}]")


_TF_ENUM_NAMES = {np.float16: "DT_HALF"}

# ── MaxPool3D ────────────────────────────────────────────────────────────────────────
def _max_pool3d_dtype(x, **attrs):
    return check_dtype(x, _MAX_POOL3D_TYPES, "input")


max_pool3d_op = OpDef("MaxPool3D", shape=_pool3d_shape, dtype=_max_pool3d_dtype,
                      attrs=_POOL3D_ATTRS, input_names=("input",))


@max_pool3d_op.def_kernel
def _max_pool3d_kernel(x, **attrs):
    """TF's CPU MaxPool3D (Eigen's reduction of padded patches): over each window's taps
    in (d, h, w) order, padding included as the dtype's lowest value, the running max is
    replaced by each tap unless strictly greater. So a NaN is kept only until a later tap
    replaces it, and a VALID window of -inf pools to -inf (checked against TF 2.21)."""
    _require_cpu_kernel("MaxPool3D", x, (np.float16,))
    geo, k_dhw, strides = _pool3d_setup(x.shape, attrs)
    pads = [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)]
    xp = np.pad(x, pads, constant_values=np.finfo(x.dtype).min)
    out_dhw = tuple(o for o, _, _ in geo)
    taps = [_tap_slab(xp, a, b, e, out_dhw, strides) for a in range(k_dhw[0])
            for b in range(k_dhw[1]) for e in range(k_dhw[2])]
    out = taps[0].copy()
    keep = np.empty(out.shape, bool)
    for t in taps[1:]:
        np.greater(out, t, out=keep)
        np.copyto(out, t, where=~keep)
    return out


def _real_taps(geo, in_dhw, k_dhw, strides):
    """Each window tap ``(a, b, e)`` (in d, h, w order) with where it reads a real input
    (not padding), as a (1, od, oh, ow, 1) mask."""
    starts = [np.arange(out) * s - before for (out, before, _), s in zip(geo, strides)]
    for a in range(k_dhw[0]):
        for b in range(k_dhw[1]):
            for e in range(k_dhw[2]):
                inside = [(st + k >= 0) & (st + k < size)
                          for st, k, size in zip(starts, (a, b, e), in_dhw)]
                real = inside[0][:, None, None] & inside[1][None, :, None] \
                    & inside[2][None, None, :]
                yield (a, b, e), real[None, :, :, :, None]


@max_pool3d_op.def_grad
def _max_pool3d_grad(op, dy):
    return [max_pool3d_grad_op.bind(op.inputs[0], op.outputs[0], dy, **_pool3d_attrs(op))]


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """3-D max pooling (a ``MaxPool3D``) of NDHWC ``input``.

    >>> tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 1]), 2, 2, "VALID").shape.as_list()
    [1, 2, 2, 2, 1]
    """
    return _pool3d_call(max_pool3d_op, input, ksize, strides, padding, data_format, name)


# ── MaxPool3DGrad: dy to every input within 1e-5 of its window's max, as TF's CPU ─────
def _max_pool3d_grad_shape(x, y, dy, **attrs):
    return x


def _max_pool3d_grad_dtype(x, y, dy, **attrs):
    check_dtype(x, _MAX_POOL3D_TYPES, "orig_input")
    return check_dtype(same_dtype(y, dy), _MAX_POOL3D_TYPES, "orig_output")


max_pool3d_grad_op = OpDef(
    "MaxPool3DGrad", shape=_max_pool3d_grad_shape, dtype=_max_pool3d_grad_dtype,
    attrs=_POOL3D_ATTRS, input_names=("orig_input", "orig_output", "grad"),
    # TF has MaxPool3DGradGrad; without it, raise rather than give 0
    grad=NO_GRADIENT)


@max_pool3d_grad_op.def_kernel
def _max_pool3d_grad_kernel(x, y, dy, **attrs):
    """TF's CPU MaxPool3DGrad: ``dy`` to every input of a window within 1e-5 of its
    ``orig_output`` (``|x - y| < 1e-5``: not to NaN or -inf inputs, and to near-ties too),
    each window's slice added in turn with the outputs' width outermost, as TF's loops."""
    geo, k_dhw, strides = _pool3d_setup(x.shape, attrs)
    out_dhw = tuple(o for o, _, _ in geo)
    pads = [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)]
    xp = np.pad(x, pads)
    dxp = np.zeros(xp.shape, dy.dtype)
    near = x.dtype.type(1e-5)
    # An input shared by overlapping windows takes their dy in TF's order when the taps
    # go backwards with depth innermost (output order: width, then height, then depth).
    taps = sorted(_real_taps(geo, x.shape[1:4], k_dhw, strides),
                  key=lambda tap_real: tuple(-i for i in tap_real[0][::-1]))
    with np.errstate(invalid="ignore"):
        for tap, real in taps:
            hit = (np.abs(_tap_slab(xp, *tap, out_dhw, strides) - y) < near) & real
            _tap_slab(dxp, *tap, out_dhw, strides)[...] += np.where(hit, dy, 0)
    return _unpad3(dxp, geo, x.shape)


# ── AvgPool3D (SAME windows average over their real elements only, as TF) ────────────
def _avg3d_counts(in_dhw, geo, k_dhw, strides, dtype):
    """How many real (unpadded) elements each output window covers, as (1, od, oh, ow, 1)."""
    per_dim = []
    for size, (out, before, _), k, s in zip(in_dhw, geo, k_dhw, strides):
        start = np.arange(out) * s - before
        per_dim.append(np.minimum(start + k, size) - np.maximum(start, 0))
    counts = per_dim[0][:, None, None] * per_dim[1][None, :, None] * per_dim[2][None, None, :]
    return counts.astype(dtype)[None, :, :, :, None]


def _avg_pool3d_dtype(x, **attrs):
    return check_dtype(x, FLOATS, "input")


avg_pool3d_op = OpDef("AvgPool3D", shape=_pool3d_shape, dtype=_avg_pool3d_dtype,
                      attrs=_POOL3D_ATTRS, input_names=("input",))


@avg_pool3d_op.def_kernel
def _avg_pool3d_kernel(x, **attrs):
    _require_cpu_kernel("AvgPool3D", x, (np.float16,))
    geo, k_dhw, strides = _pool3d_setup(x.shape, attrs)
    out_dhw = tuple(o for o, _, _ in geo)
    sums = _window_view(_pad3(x, geo), k_dhw, out_dhw, strides).sum(axis=(4, 5, 6))
    return (sums / _avg3d_counts(x.shape[1:4], geo, k_dhw, strides, x.dtype)).astype(
        x.dtype, copy=False)


@avg_pool3d_op.def_grad
def _avg_pool3d_grad(op, dy):
    return [avg_pool3d_grad_op.bind(array_ops.shape(op.inputs[0]), dy, **_pool3d_attrs(op))]


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None) -> Tensor:  # noqa: A002
    """3-D average pooling (an ``AvgPool3D``); ``SAME`` edge windows average their real
    elements.

    >>> tf.nn.avg_pool3d(tf.ones([1, 3, 3, 3, 1]), 2, 2, "SAME").shape.as_list()
    [1, 2, 2, 2, 1]
    """
    return _pool3d_call(avg_pool3d_op, input, ksize, strides, padding, data_format, name)


# ── AvgPool3DGrad ────────────────────────────────────────────────────────────────────
def _avg_pool3d_grad_shape(sizes, dy, **attrs):
    return sizes_shape(sizes, 5, "orig_input_shape")


def _avg_pool3d_grad_dtype(sizes, dy, **attrs):
    return check_dtype(dy, FLOATS, "grad")


avg_pool3d_grad_op = OpDef(
    "AvgPool3DGrad", shape=from_tensors(_avg_pool3d_grad_shape), dtype=_avg_pool3d_grad_dtype,
    attrs=_POOL3D_ATTRS, input_names=("orig_input_shape", "grad"))


@avg_pool3d_grad_op.def_kernel
def _avg_pool3d_grad_kernel(sizes, dy, **attrs):
    in_shape = tuple(int(v) for v in sizes)
    geo, (kd, kh, kw), strides = _pool3d_setup(in_shape, attrs)
    out_dhw = tuple(o for o, _, _ in geo)
    g = dy / _avg3d_counts(in_shape[1:4], geo, (kd, kh, kw), strides, dy.dtype)
    padded = (in_shape[0], *(in_shape[i + 1] + geo[i][1] + geo[i][2] for i in range(3)),
              in_shape[4])
    dxp = np.zeros(padded, dy.dtype)
    for a in range(kd):
        for b in range(kh):
            for e in range(kw):
                _tap_slab(dxp, a, b, e, out_dhw, strides)[...] += g
    return _unpad3(dxp, geo, in_shape)


@avg_pool3d_grad_op.def_grad
def _avg_pool3d_grad_grad(op, dy):
    return [None, avg_pool3d_op.bind(dy, **_pool3d_attrs(op))]
