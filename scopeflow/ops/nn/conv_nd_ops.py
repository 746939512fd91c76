"""TF's generic N-D ``Conv`` op (``tf.conv``) and the ``Conv2DBackprop*V2`` ops.

``Conv`` is one op for 2-D and 3-D convolutions with any number of leading batch dims
(``batch_dims``), channels last or first and ``groups``. Its shape rule is TF's: the
standard rank (input rank minus the extra batch dims) must be 4 or 5 and equal the
filter's rank. On a CPU TF runs it through its Conv2D/Conv3D kernels, so it refuses
channels-first layouts, groups other than 1, strides or dilations in the batch and depth
dims, and 3-D dilations; the kernel here makes the same checks and then runs scopeflow's
Conv2D/Conv3D kernels over the flattened batch. TF registers no gradient for ``Conv``.

``Conv2DBackpropInputV2``/``Conv2DBackpropFilterV2`` take the input (filter) tensor itself
instead of its sizes. TF builds them (the output has the input's or the filter's shape)
but registers no CPU kernel and no gradient, so running one fails as in TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, same_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.nn.conv3d_ops import conv3d_op
from scopeflow.ops.nn.conv_geometry import out_and_pads
from scopeflow.ops.nn.conv_ops import conv2d_op

__all__ = ["conv", "conv2d_backprop_input_v2", "conv2d_backprop_filter_v2"]

_CONV_TYPES = FLOATS + (dtypes.int32,)   # TF's Conv T: half, bfloat16, float, double, int32
_CONV_ATTRS = {"strides": None, "padding": None, "explicit_paddings": [],
               "data_format": "CHANNELS_LAST", "dilations": [], "batch_dims": 1, "groups": 1}
_ENUM_NAMES = {"float16": "DT_HALF", "bfloat16": "DT_BFLOAT16", "float32": "DT_FLOAT",
               "float64": "DT_DOUBLE", "int32": "DT_INT32"}
_PADDINGS = ("SAME", "VALID", "EXPLICIT")
_FORMATS = ("CHANNELS_FIRST", "CHANNELS_LAST")


def _check_conv_attrs(rank, attrs):
    """TF's attr checks of the Conv shape function (``rank``: the standard rank)."""
    strides, dilations = attrs["strides"], attrs["dilations"] or [1] * rank
    if len(strides) != rank:
        raise ValueError(f"Stride attribute should contain {rank} values, but got: "
                         f"{len(strides)}")
    if len(dilations) != rank:
        raise ValueError(f"Conv requires the dilation attribute to contain {rank} values, "
                         f"but got: {len(dilations)}")
    explicit = attrs["explicit_paddings"]
    if attrs["padding"] == "EXPLICIT":
        if rank == 5:
            raise ValueError("Explicit padding not supported for 3D Convolution")
        if len(explicit) != 2 * rank:
            raise ValueError(f"explicit_paddings attribute must contain {2 * rank} values, "
                             f"but got: {len(explicit)}")
    elif explicit:
        raise ValueError("explicit_paddings attribute must be empty if the padding attribute "
                         "is not EXPLICIT")
    return strides, dilations


def _split(dims, batch_dims, channels_first):
    """(batch dims, spatial dims, channel dim) of an input's dims."""
    batch, rest = dims[:batch_dims], dims[batch_dims:]
    if channels_first:
        return batch, rest[1:], rest[0]
    return batch, rest[:-1], rest[-1]


def _conv_shape(x, w, **attrs):
    if x.ndims is None or w.ndims is None:
        return TensorShape(None)
    batch_dims = attrs["batch_dims"]
    rank = x.ndims - batch_dims + 1
    if rank not in (4, 5):
        raise ValueError("Input tensor must be rank 4 or 5, excluding extra batch dimensions, "
                         f"but got: {rank}")
    if w.ndims != rank:
        raise ValueError("Input tensor rank must be the same as filter rank.")
    strides, dilations = _check_conv_attrs(rank, attrs)
    first = attrs["data_format"] == "CHANNELS_FIRST"
    batch, space, depth = _split(list(x.as_tuple()), batch_dims, first)
    *ks, in_depth, out_depth = w.as_tuple()
    if depth is not None and in_depth is not None:
        if depth % in_depth:
            raise ValueError(f"Depth of input ({depth}) is not a multiple of input depth of "
                             f"filter ({in_depth})")
        if depth // in_depth != attrs["groups"]:
            raise ValueError("Input depth divided by filter input depth does not match with "
                             f"groups parameter ({attrs['groups']})")
    sp = slice(2, rank) if first else slice(1, rank - 1)
    pads = attrs["explicit_paddings"]
    pairs = [tuple(pads[2 * i:2 * i + 2]) for i in range(rank)][sp] if pads else \
        [(0, 0)] * (rank - 2)
    out = []
    for size, k, s, d, pair in zip(space, ks, strides[sp], dilations[sp], pairs):
        out.append(None if k is None else
                   out_and_pads(size, k, s, d, attrs["padding"], pair)[0])
    return TensorShape(batch + ([out_depth] + out if first else out + [out_depth]))


def _conv_dtype(x, w, **attrs):
    return check_dtype(same_dtype(x, w, op_type="Conv"), _CONV_TYPES, "input")


def _check_conv_kernel(rank, attrs):
    """TF's CPU Conv kernel refusals (it runs the Conv2D/Conv3D launchers)."""
    if attrs["data_format"] == "CHANNELS_FIRST":
        op, fmt = ("Conv2D", "NCHW") if rank == 4 else ("Conv3D", "NCDHW")
        raise errors.UnimplementedError(
            None, None, f"The {op} op currently only supports the NHWC tensor format on the "
            f"CPU. The op was given the format: {fmt}")
    if attrs["groups"] != 1:
        raise errors.UnimplementedError(
            None, None, "Grouped/Depthwise Convolutions are not supported yet.")
    strides, dilations = attrs["strides"], attrs["dilations"] or [1] * rank
    if strides[0] != 1 or strides[-1] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not support strides in the batch and "
            "depth dimensions.")
    if dilations[0] != 1 or dilations[-1] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not support dilation rates in the batch "
            "and depth dimensions.")
    if rank == 5 and any(d != 1 for d in dilations):
        raise errors.InvalidArgumentError(
            None, None, "CPU implementation of Conv3D currently only supports dilated rates "
            "of 1.")
    return list(strides), list(dilations)


def _conv_kernel(x, w, **attrs):
    """Flattens the batch dims into one and runs the Conv2D/Conv3D kernel."""
    rank = w.ndim
    strides, dilations = _check_conv_kernel(rank, attrs)
    batch = x.shape[:attrs["batch_dims"]]
    flat = x.reshape((int(np.prod(batch, dtype=np.int64)),) + x.shape[attrs["batch_dims"]:])
    if rank == 4:
        y = conv2d_op.kernel(
            flat, w, strides=strides, use_cudnn_on_gpu=True, padding=attrs["padding"],
            explicit_paddings=list(attrs["explicit_paddings"]), data_format="NHWC",
            dilations=dilations)
    else:
        y = conv3d_op.kernel(flat, w, strides=strides, padding=attrs["padding"],
                                      data_format="NDHWC", dilations=dilations)
    return np.asarray(y).reshape(batch + y.shape[1:])


conv_op = OpDef("Conv", shape=_conv_shape, dtype=_conv_dtype, kernel=_conv_kernel,
                attrs=_CONV_ATTRS, grad=NO_GRADIENT, input_names=("input", "filter"))


def _check_choice(value, allowed, attr):
    if value not in allowed:
        listed = ", ".join(f'"{a}"' for a in allowed)
        raise ValueError(f"Attr '{attr}' of 'Conv' Op passed string '{value}' not in: "
                         f"{listed}.")


def conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002
         data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1,
         name=None) -> Tensor:
    """TF's raw ``Conv`` op: a 2-D or 3-D convolution, ``batch_dims`` leading batch dims.

    >>> x = tf.ones([2, 5, 5, 3]); w = tf.ones([3, 3, 3, 4])
    >>> tf.conv(x, w, strides=[1, 2, 2, 1], padding="VALID").shape.as_list()
    [2, 2, 2, 4]
    """
    _check_choice(padding, _PADDINGS, "padding")
    _check_choice(data_format, _FORMATS, "data_format")
    return conv_op.bind(input, filter, strides=[int(s) for s in strides], padding=padding,
                        explicit_paddings=[int(p) for p in explicit_paddings],
                        data_format=data_format, dilations=[int(d) for d in dilations],
                        batch_dims=int(batch_dims), groups=int(groups), name=name)


# ── Conv2DBackprop{Input,Filter}V2: built as TF, no CPU kernel ───────────────────────
_V2_ATTRS = {"strides": None, "use_cudnn_on_gpu": True, "padding": None,
             "explicit_paddings": [], "data_format": "NHWC", "dilations": [1, 1, 1, 1]}


def _rank4(shape):
    if shape.ndims is None:
        return TensorShape([None] * 4)
    if shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims}")
    return shape


def _v2_dtype(op_type):
    def rule(x, w, dy, **attrs):
        return check_dtype(same_dtype(x, w, dy, op_type=op_type), _CONV_TYPES, "input")
    return rule


def _refuse_without_cpu_kernel(op_type, x, attrs):
    """TF's error for an op with no CPU kernel, naming its attrs as TF lists them."""
    listed = ", ".join(f"{k}={_attr_text(v)}" for k, v in attrs.items())
    raise errors.InvalidArgumentError(
        None, None, f"No OpKernel was registered to support Op '{op_type}' with these "
        f"attrs: [{listed}, T={_ENUM_NAMES[dtypes.as_dtype(x.dtype).name]}]\n"
        "Registered devices: [CPU]\nRegistered kernels:\n  <no registered kernels>\n")


def _backprop_input_v2_kernel(x, w, dy, **attrs):
    _refuse_without_cpu_kernel("Conv2DBackpropInputV2", x, attrs)


def _backprop_filter_v2_kernel(x, w, dy, **attrs):
    _refuse_without_cpu_kernel("Conv2DBackpropFilterV2", x, attrs)


def _attr_text(v):
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(str(i) for i in v) + "]"
    return str(v)


def _backprop_input_v2_shape(x, w, dy, **attrs):
    return _rank4(x)


def _backprop_filter_v2_shape(x, w, dy, **attrs):
    return _rank4(w)


conv2d_backprop_input_v2_op = OpDef(
    "Conv2DBackpropInputV2", shape=_backprop_input_v2_shape,
    dtype=_v2_dtype("Conv2DBackpropInputV2"), kernel=_backprop_input_v2_kernel,
    attrs=_V2_ATTRS, grad=NO_GRADIENT, input_names=("input", "filter", "out_backprop"))
conv2d_backprop_filter_v2_op = OpDef(
    "Conv2DBackpropFilterV2", shape=_backprop_filter_v2_shape,
    dtype=_v2_dtype("Conv2DBackpropFilterV2"), kernel=_backprop_filter_v2_kernel,
    attrs=_V2_ATTRS, grad=NO_GRADIENT, input_names=("input", "filter", "out_backprop"))


def _v2_attrs(strides, padding, use_cudnn_on_gpu, explicit_paddings, data_format, dilations):
    return {"strides": [int(s) for s in strides], "padding": padding,
            "use_cudnn_on_gpu": bool(use_cudnn_on_gpu),
            "explicit_paddings": [int(p) for p in explicit_paddings],
            "data_format": data_format, "dilations": [int(d) for d in dilations]}


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                             use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                             dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """TF's raw ``Conv2DBackpropInputV2``: the input's gradient, given the input tensor
    (only its shape matters) instead of its sizes. TF has no CPU kernel for it."""
    return conv2d_backprop_input_v2_op.bind(
        input, filter, out_backprop, name=name,
        **_v2_attrs(strides, padding, use_cudnn_on_gpu, explicit_paddings, data_format,
                    dilations))


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                              dilations=(1, 1, 1, 1), name=None) -> Tensor:
    """TF's raw ``Conv2DBackpropFilterV2``: the filter's gradient, given the filter tensor
    (only its shape matters) instead of its sizes. TF has no CPU kernel for it."""
    return conv2d_backprop_filter_v2_op.bind(
        input, filter, out_backprop, name=name,
        **_v2_attrs(strides, padding, use_cudnn_on_gpu, explicit_paddings, data_format,
                    dilations))
