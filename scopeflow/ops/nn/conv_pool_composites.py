"""TF's generic and 1-D convolution/pooling front ends, built from the existing ops (TF's
``nn_ops`` python functions): ``convolution``, ``pool``, ``with_space_to_batch``,
``atrous_conv2d`` (and its transpose), ``conv_transpose``, ``conv1d_transpose``,
``max_pool1d``/``avg_pool1d``, ``max_pool_v2``/``avg_pool_v2``, and TF's other names of
the convolution-gradient ops.

No op types of their own. A dilated convolution or pooling goes, as in TF, through
``SpaceToBatchND`` → a VALID op → ``BatchToSpaceND`` (``with_space_to_batch``), whose
paddings and crops are TF's ``required_space_to_batch_paddings``; a 1-D op is the 2-D one
between ``ExpandDims`` and ``Squeeze``. Op types, names, static shapes, values and
gradients are therefore TensorFlow 2.21's (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.space_ops import batch_to_space, space_to_batch
from scopeflow.ops.nn.conv3d_ops import (
    avg_pool3d,
    conv3d,
    conv3d_backprop_filter_v2,
    conv3d_transpose,
    max_pool3d,
)
from scopeflow.ops.nn.conv_composites import conv1d
from scopeflow.ops.nn.conv_geometry import get_sequence
from scopeflow.ops.nn.conv_ops import (
    conv2d,
    conv2d_backprop_input_op,
    conv2d_transpose,
    conv_call_attrs,
    depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_input,
)
from scopeflow.ops.nn.pool_ops import avg_pool, max_pool
from scopeflow.ops.nn.space_to_batch_util import base_paddings as _base_paddings
from scopeflow.ops.nn.space_to_batch_util import space_to_batch_call as _space_to_batch_call

__all__ = ["max_pool1d", "avg_pool1d", "max_pool_v2", "avg_pool_v2", "pool", "convolution",
           "conv_transpose", "conv1d_transpose", "atrous_conv2d", "atrous_conv2d_transpose",
           "with_space_to_batch", "conv3d_backprop_filter", "depthwise_conv2d_backprop_filter",
           "depthwise_conv2d_backprop_input"]

# TF's other names of the gradient ops (the same functions in TF).
conv3d_backprop_filter = conv3d_backprop_filter_v2
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input


def _lookup(new_name, new, old_name, old):
    """TF's ``deprecated_argument_lookup``."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new


# ── 1-D pooling and the rank-generic pooling entry points ────────────────────────────
def _pool1d(pool_fn, default_name, input, ksize, strides, padding, data_format, name):  # noqa: A002
    with name_scope(name, default_name, [input]) as name:
        if data_format is None:
            data_format = "NWC"
        channel = 1 if data_format.startswith("NC") else 2
        ksize = [1, *get_sequence(ksize, 1, channel, "ksize")]
        strides = [1, *get_sequence(strides, 1, channel, "strides")]
        axis = 1 if data_format == "NWC" else 2
        fmt = "NHWC" if data_format == "NWC" else "NCHW"
        input = array_ops.expand_dims(input, axis)  # noqa: A001
        result = pool_fn(input, ksize, strides, padding, data_format=fmt, name=name)
        return array_ops.squeeze(result, [axis])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Max pooling of ``[batch, width, channels]``: a ``MaxPool`` between ``ExpandDims`` and
    ``Squeeze`` (scope ``MaxPool1d``).

    >>> max_pool1d(tf.ones([1, 4, 2]), 2, 2, "VALID").name
    'MaxPool1d/Squeeze:0'
    """
    return _pool1d(max_pool, "MaxPool1d", input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Average pooling of ``[batch, width, channels]`` (scope ``AvgPool1D``).

    >>> avg_pool1d(tf.ones([1, 4, 2]), 2, 2, "VALID").name
    'AvgPool1D/Squeeze:0'
    """
    return _pool1d(avg_pool, "AvgPool1D", input, ksize, strides, padding, data_format, name)


def _rank_n(input, data_format):  # noqa: A002
    if input.shape.ndims is not None:
        n = input.shape.ndims - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError(f"`input` must have a static shape or a data format must be given. "
                         f"Received: input.shape={input.shape} and data_format={data_format}")
    if not 1 <= n <= 3:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={input.shape} of rank {n + 2}.")
    channel = n + 1 if data_format is None else (1 if data_format.startswith("NC") else n + 1)
    return n, channel


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling of a rank-3, -4 or -5 ``input`` (``max_pool1d``, ``MaxPool`` named
    ``MaxPool2d``, or ``MaxPool3D``), as TF2's ``tf.nn.max_pool``.

    >>> max_pool_v2(tf.ones([1, 4, 4, 2]), 2, 2, "VALID").name
    'MaxPool2d:0'
    """
    n, channel = _rank_n(input, data_format)
    ksize = get_sequence(ksize, n, channel, "ksize")
    strides = get_sequence(strides, n, channel, "strides")
    if n == 1:
        return max_pool1d(input, ksize, strides, padding, data_format=data_format, name=name)
    if n == 2:
        return max_pool(input, ksize, strides, padding,
                        data_format=data_format or "NHWC", name=name or "MaxPool2d")
    return max_pool3d(input, ksize, strides, padding, data_format=data_format or "NDHWC",
                      name=name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling of a rank-3, -4 or -5 ``input``, as TF2's ``tf.nn.avg_pool``.

    >>> avg_pool_v2(tf.ones([1, 4, 4, 2]), 2, 2, "VALID").name
    'AvgPool:0'
    """
    n, channel = _rank_n(input, data_format)
    ksize = get_sequence(ksize, n, channel, "ksize")
    strides = get_sequence(strides, n, channel, "strides")
    if n == 1:
        return avg_pool1d(input, ksize, strides, padding, data_format=data_format, name=name)
    if n == 2:
        return avg_pool(input, ksize, strides, padding, data_format=data_format or "NHWC",
                        name=name)
    return avg_pool3d(input, ksize, strides, padding, data_format=data_format or "NDHWC",
                      name=name)


# ── with_space_to_batch: the dilated op as SpaceToBatchND → VALID op → BatchToSpaceND ─
def _strides_and_rates(n, strides, dilation_rate):
    """TF's ``_get_strides_and_dilation_rate``: both as int32 arrays, checked."""
    if dilation_rate is None:
        dilation_rate = [1] * n
    elif len(dilation_rate) != n:
        raise ValueError(f"`len(dilation_rate)` should be {n}. Received: "
                         f"dilation_rate={dilation_rate} of length {len(dilation_rate)}")
    dilation_rate = np.array(dilation_rate, dtype=np.int32)
    if np.any(dilation_rate < 1):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: "
                         f"dilation_rate={dilation_rate}")
    if strides is None:
        strides = [1] * n
    elif len(strides) != n:
        raise ValueError(f"`len(strides)` should be {n}. Received: strides={strides} of "
                         f"length {len(strides)}")
    strides = np.array(strides, dtype=np.int32)
    if np.any(strides < 1):
        raise ValueError(f"all values of `strides` must be positive. Received: "
                         f"strides={strides}")
    if np.any(strides > 1) and np.any(dilation_rate > 1):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`."
                         f" Received: strides={strides} and dilation_rate={dilation_rate}")
    return strides, dilation_rate


def _spatial_dims(spatial_dims, n, data_format):
    start = 2 if data_format is not None and data_format.startswith("NC") else 1
    if spatial_dims is None:
        spatial_dims = range(start, n + start)
    orig = list(spatial_dims)
    spatial_dims = sorted({int(x) for x in orig})
    if spatial_dims != orig or any(x < 1 for x in spatial_dims):
        raise ValueError(f"`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={orig}")
    return spatial_dims


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """Runs ``op(converted_input, num_spatial_dims, padding)`` on the ``SpaceToBatchND`` of
    ``input`` (blocks of ``dilation_rate``), then ``BatchToSpaceND``: a dilated op from an
    undilated one, as TF.

    >>> with_space_to_batch(tf.ones([1, 4, 4, 1]), [2, 2], "VALID",
    ...                     lambda x, n, p: x).op.type
    'BatchToSpaceND'
    """
    input = convert_to_tensor(input, name="input")  # noqa: A001
    rate = constant_value(convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate"))
    if rate is None or np.ndim(rate) != 1:
        raise ValueError(f"`dilation_rate` must be a static vector. Received: "
                         f"dilation_rate={dilation_rate}")
    rate = np.asarray(rate, np.int32)
    if np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate}")
    n = len(rate)
    dims = _spatial_dims(spatial_dims, n, data_format)
    base = None if np.all(rate == 1) else _base_paddings(padding, filter_shape, rate, n)
    return _space_to_batch_call(input, rate, padding, base, dims,
                                lambda num, pad: lambda inp, _: op(inp, num, pad), data_format)


# ── pool / convolution / atrous_conv2d ───────────────────────────────────────────────
_POOL_OPS = {("MAX", 1): max_pool, ("MAX", 2): max_pool, ("MAX", 3): max_pool3d,
             ("AVG", 1): avg_pool, ("AVG", 2): avg_pool, ("AVG", 3): avg_pool3d}


def _check_pool_strides_and_rates(padding, window_shape, strides, dilation_rate):
    """TF's refusals: SAME with dilation, and strides larger than the window."""
    if padding == "SAME" and np.any(dilation_rate > 1):
        raise ValueError(f"pooling with 'SAME' padding is not implemented for "
                         f"`dilation_rate` > 1. Received: padding={padding} and "
                         f"dilation_rate={dilation_rate}")
    if np.any(strides > window_shape):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency "
                         f"between CPU and GPU implementations. Received: strides={strides}"
                         f" and window_shape={window_shape}")


def _pool_layout(n, window_shape, strides, data_format):
    """(window, strides, spatial dims, pooling op's data format) for ``n`` spatial dims;
    a 1-D pool runs as a 2-D one, so its window and strides gain a leading 1."""
    if data_format is None or not data_format.startswith("NC"):
        window = [1, *window_shape, 1]
        adj_strides = [1, *strides.tolist(), 1]
        spatial_dims = list(range(1, n + 1))
    else:
        window = [1, 1, *window_shape]
        adj_strides = [1, 1, *strides.tolist()]
        spatial_dims = list(range(2, n + 2))
    if n != 1:
        return window, adj_strides, spatial_dims, data_format or ("NDHWC" if n == 3 else "NHWC")
    if data_format is None or data_format == "NWC":
        fmt = "NHWC"
    elif data_format == "NCW":
        fmt = "NCHW"
    else:
        raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: "
                         f"data_format={data_format}")
    return [1, *window], [1, *adj_strides], spatial_dims, fmt


def _pool_builder(pool_op, n, spatial_dims, window, strides, fmt, scope):
    """``with_space_to_batch``'s op builder: the pooling op named ``scope`` (a 1-D pool
    between ``ExpandDims`` and ``Squeeze``)."""
    def build(_num, pad):
        def run(inp, _):
            if n == 1:
                inp = array_ops.expand_dims(inp, spatial_dims[0])
            result = pool_op(inp, window, strides, pad, data_format=fmt, name=scope)
            if n == 1:
                result = array_ops.squeeze(result, [spatial_dims[0]])
            return result
        return run
    return build


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None,  # noqa: A002
         name=None, data_format=None, dilations=None):
    """N-D (1, 2, 3) ``MAX``/``AVG`` pooling with optional dilation (VALID only), as TF's
    ``tf.nn.pool`` (scope ``max_pool``/``avg_pool``).

    >>> pool(tf.ones([1, 4, 4, 1]), [2, 2], "MAX", "VALID").name
    'max_pool:0'
    """
    dilation_rate = _lookup("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        n = len(window_shape)
        if n < 1 or n > 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                             f"window_shape={window_shape} of length {n}")
        input.shape.with_rank(n + 2)
        strides, dilation_rate = _strides_and_rates(n, strides, dilation_rate)
        _check_pool_strides_and_rates(padding, window_shape, strides, dilation_rate)
        key = (pooling_type, n)
        if key not in _POOL_OPS:
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        window, adj_strides, spatial_dims, fmt = _pool_layout(n, window_shape, strides,
                                                              data_format)
        build = _pool_builder(_POOL_OPS[key], n, spatial_dims, window, adj_strides, fmt, scope)
        base = None if np.all(dilation_rate == 1) else _base_paddings(
            padding, window_shape, dilation_rate, n)
        return _space_to_batch_call(input, dilation_rate, padding, base, spatial_dims, build,
                                    data_format)


def _conv_n(n, inp, filt, strides, padding, data_format, dilations, name):
    """The undilated N-D convolution (``conv1d``, ``Conv2D``, ``Conv3D``) named ``name``."""
    if n == 1:
        return conv1d(inp, filt, strides, padding, data_format=data_format,
                      dilations=dilations, name=name)
    if n == 2:
        return conv2d(inp, filt, strides, padding, data_format=data_format or "NHWC",
                      dilations=dilations, name=name)
    return conv3d(inp, filt, strides, padding, data_format=data_format or "NDHWC",
                  dilations=dilations, name=name)


def _as_conv_tensors(input, filter):  # noqa: A002
    """``input`` and ``filter`` as tensors, converted (as TF) in ``convolution_internal``."""
    if not isinstance(filter, Tensor) or not isinstance(input, Tensor):
        with name_scope("convolution_internal", None, [filter, input]):
            if not isinstance(filter, Tensor):
                filter = convert_to_tensor(filter, name="filters")  # noqa: A001
            if not isinstance(input, Tensor):
                input = convert_to_tensor(input, name="input")  # noqa: A001
    return input, filter


def _num_spatial_dims(input, filter):  # noqa: A002
    """The convolution's spatial rank (1, 2 or 3), from the filter's rank or the input's."""
    f_rank, in_rank = filter.shape.ndims, input.shape.ndims
    if f_rank:
        n = f_rank - 2
    elif in_rank:
        n = in_rank - 2
    else:
        raise ValueError(f"When `num_spatial_dims` is not set, one of `input.shape.rank` or "
                         f"`filters.shape.rank` must be known. Received: input.shape="
                         f"{input.shape} of rank {in_rank} and filters.shape={filter.shape} "
                         f"of rank {f_rank}")
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: "
                         f"num_spatial_dims={n}.")
    return n


def _check_input_channels(input, filter, in_dims, f_dims, n, channels_last):  # noqa: A002
    """TF's check that the input channels divide by the filter's output filters."""
    if in_dims is None or f_dims is None:
        return
    c_in = in_dims[-1] if channels_last else in_dims[1]
    if c_in is not None and f_dims[n] is not None and c_in % f_dims[n]:
        raise ValueError(f"The number of input channels is not divisible by the "
                         f"corresponding number of output filters. Received: "
                         f"input.shape={input.shape} with {c_in} channels and "
                         f"filters.shape={filter.shape} with {f_dims[n]} output "
                         f"filters.")


def _dilated_convolution(n, input, filter, padding, strides_seq, dil,  # noqa: A002
                         data_format, channels_last, scope):
    """The VALID convolution named ``scope`` inside ``with_space_to_batch``, as TF."""
    sp_strides = strides_seq[1:-1] if channels_last else strides_seq[2:]
    sp_dil = dil[1:-1] if channels_last else dil[2:]
    if input.shape.ndims is not None:
        input.shape.with_rank(n + 2)
    in_dims = input.shape.as_list() if input.shape.ndims is not None else None
    f_dims = filter.shape.as_list() if filter.shape.ndims is not None else None
    _check_input_channels(input, filter, in_dims, f_dims, n, channels_last)
    sp_strides, rate = _strides_and_rates(n, sp_strides, sp_dil)
    spatial_dims = list(range(1, n + 1)) if channels_last else list(range(2, n + 2))
    if padding == "SAME" and (f_dims is None or None in f_dims[:n]):
        raise ValueError("A dilated SAME convolution needs the filter's spatial shape "
                         "statically here.")
    base = _base_paddings(padding, f_dims, rate, n)
    full_strides = [1, *sp_strides.tolist(), 1] if channels_last \
        else [1, 1, *sp_strides.tolist()]

    def build(_num, pad):
        return lambda inp, filt: _conv_n(
            n, inp, filt, full_strides if n > 1 else int(sp_strides[0]), pad,
            data_format, None if n == 1 else [1] * (n + 2), scope)

    return _space_to_batch_call(input, rate, padding, base, spatial_dims, build,
                                data_format, filter)


def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None,  # noqa: A002
                data_format=None, filters=None, dilations=None):
    """N-D (1, 2, 3) convolution; a dilated one is ``with_space_to_batch`` of the VALID
    convolution, as TF (scope ``convolution``).

    >>> convolution(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), "VALID").name
    'convolution:0'
    """
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    dilation_rate = _lookup("dilations", dilations, "dilation_rate", dilation_rate)
    input, filter = _as_conv_tensors(input, filter)  # noqa: A001
    n = _num_spatial_dims(input, filter)
    channels_last = data_format is None or not data_format.startswith("NC")
    channel = n + 1 if channels_last else 1
    dil = get_sequence(1 if dilation_rate is None else list(np.ravel(dilation_rate)), n,
                       channel, "dilations")
    strides_seq = get_sequence(1 if strides is None else strides, n, channel, "strides")
    dilated = dilation_rate is not None and any(d != 1 for d in dil)
    with name_scope(name, None if name else "convolution", [input, filter]) as scope:
        if not dilated:
            return _conv_n(n, input, filter, strides_seq, padding, data_format, dil, scope)
        return _dilated_convolution(n, input, filter, padding, strides_seq, dil, data_format,
                                    channels_last, scope)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """A 2-D convolution dilated by ``rate`` in both spatial dims (``convolution``).

    >>> atrous_conv2d(tf.ones([1, 6, 6, 1]), tf.ones([2, 2, 1, 1]), 2, "VALID").op.type
    'BatchToSpaceND'
    """
    return convolution(input=value, filter=filters, padding=padding,
                       dilation_rate=np.broadcast_to(rate, (2,)), name=name)


# ── transposed convolutions ──────────────────────────────────────────────────────────
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose of ``conv1d``: a ``Conv2DBackpropInput`` between ``ExpandDims`` and
    ``Squeeze``; ``filters`` is ``[k, out, in]``.

    >>> conv1d_transpose(tf.ones([1, 3, 2]), tf.ones([2, 4, 2]), [1, 6, 4], 2).name
    'conv1d_transpose/Squeeze:0'
    """
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as name:
        if data_format is None or data_format == "NWC":
            fmt, start, channel = "NHWC", 1, 2
        elif data_format == "NCW":
            fmt, start, channel = "NCHW", 2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        strides = [1, *get_sequence(strides, 1, channel, "stride")]
        dilations = [1, *get_sequence(1 if dilations is None else dilations, 1, channel,
                                      "dilations")]
        input = array_ops.expand_dims(input, start)  # noqa: A001
        filters = array_ops.expand_dims(filters, 0)
        if not isinstance(output_shape, Tensor):
            output_shape = list(output_shape)
        output_shape = array_ops.concat(
            [output_shape[:start], [1], output_shape[start:]], 0)
        attrs = conv_call_attrs(strides, padding, fmt, dilations, "Conv2DBackpropInput")
        result = conv2d_backprop_input_op.bind(output_shape, filters, input, name=name,
                                               use_cudnn_on_gpu=True, **attrs)
        return array_ops.squeeze(result, [start])


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """``conv1d_transpose``, ``conv2d_transpose`` or ``conv3d_transpose`` by the length of
    ``output_shape`` (scope ``conv_transpose``).

    >>> conv_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 1]), [1, 4, 4, 1], 2).name
    'conv_transpose:0'
    """
    with name_scope(name, "conv_transpose", [input, output_shape]) as name:
        if isinstance(output_shape, Tensor):
            n = output_shape.shape.as_list()[0] - 2
        elif hasattr(output_shape, "__len__"):
            n = len(output_shape) - 2
        else:
            raise ValueError(f"`output_shape` must be a tensor or sized collection. Received: "
                             f"output_shape={output_shape}")
        if not 1 <= n <= 3:
            raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: "
                             f"output_shape={output_shape} of length {n + 2}.")
        if n == 1:
            return conv1d_transpose(input, filters, output_shape, strides, padding=padding,
                                    data_format=data_format or "NWC", dilations=dilations,
                                    name=name)
        channel = 1 if data_format and data_format.startswith("NC") else n + 1
        strides = get_sequence(strides, n, channel, "strides")
        dil = None if dilations is None else get_sequence(dilations, n, channel, "dilations")
        if n == 2:
            return conv2d_transpose(input, filters, output_shape, strides, padding=padding,
                                    data_format=data_format or "NHWC", dilations=dil,
                                    name=name)
        return conv3d_transpose(input, filters, output_shape, strides, padding=padding,
                                data_format=data_format or "NDHWC", dilations=dil, name=name)


def _checked_transpose_output_shape(output_shape, filters):
    """``output_shape`` (a tuple as a list), checked as TF: shape ``(4,)``, and a static
    channel count compatible with the filters'."""
    shape_t = convert_to_tensor(output_shape, name="output_shape")
    if not shape_t.shape.is_compatible_with(TensorShape([4])):
        raise ValueError(f"`output_shape` must have shape (4,). Received: "
                         f"output_shape={shape_t.shape}")
    if isinstance(output_shape, tuple):
        output_shape = list(output_shape)
    if isinstance(output_shape, (list, np.ndarray)) and \
            not filters.shape.dims[2].is_compatible_with(output_shape[3]):
        raise ValueError(f"`output_shape` channel count must be compatible with `filters` "
                         f"output channel count. Received: output_shape={output_shape} "
                         f"with channel count {output_shape[3]} and filters.shape="
                         f"{filters.shape} with output channel count "
                         f"{filters.shape.dims[3]}.")
    return output_shape


def _atrous_paddings(filters, rate, padding):
    """(top, bottom, left, right) padding of the dilated filter, as TF's transpose."""
    if padding == "VALID":
        return 0, 0, 0, 0
    if padding != "SAME":
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: "
                         f"padding={padding}")
    if filters.shape.is_fully_defined():
        fshape = filters.shape.as_list()
    else:
        fshape = array_ops.shape(filters)
    fh, fw = fshape[0], fshape[1]
    pad_h = fh + (fh - 1) * (rate - 1) - 1
    pad_w = fw + (fw - 1) * (rate - 1) - 1
    pad_top, pad_left = pad_h // 2, pad_w // 2
    return pad_top, pad_h - pad_top, pad_left, pad_w - pad_left


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d``: ``SpaceToBatchND``, a VALID
    ``Conv2DBackpropInput``, ``BatchToSpaceND`` (scope ``atrous_conv2d_transpose``).

    >>> atrous_conv2d_transpose(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]),
    ...                         [1, 4, 4, 1], 2, "SAME").op.type
    'BatchToSpaceND'
    """
    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]) as name:
        value = convert_to_tensor(value, name="value")
        filters = convert_to_tensor(filters, name="filters")
        if not value.shape.dims[3].is_compatible_with(filters.shape.dims[3]):
            raise ValueError(f"`value` channel count must be compatible with `filters` input "
                             f"channel count. Received: value.shape={value.shape} with channel "
                             f"count {value.shape.dims[3]} and filters.shape={filters.shape} "
                             f"with input channel count {filters.shape.dims[3]}.")
        if rate < 1:
            raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
        if rate == 1:
            return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1],
                                    padding=padding, data_format="NHWC")
        output_shape = _checked_transpose_output_shape(output_shape, filters)
        pad_top, pad_bottom, pad_left, pad_right = _atrous_paddings(filters, rate, padding)
        in_h = output_shape[1] + pad_top + pad_bottom
        in_w = output_shape[2] + pad_left + pad_right
        extra_b = (rate - in_h % rate) % rate
        extra_r = (rate - in_w % rate) % rate
        value = space_to_batch(value, [[0, extra_b], [0, extra_r]], block_size=rate)
        sizes = [rate * rate * output_shape[0], (in_h + extra_b) // rate,
                 (in_w + extra_r) // rate, output_shape[3]]
        if any(isinstance(s, Tensor) for s in sizes):
            sizes = array_ops.stack([math_ops.cast(s, dtypes.int32) for s in sizes])
        attrs = conv_call_attrs([1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1],
                                "Conv2DBackpropInput")
        value = conv2d_backprop_input_op.bind(sizes, filters, value, use_cudnn_on_gpu=True,
                                              **attrs)
        return batch_to_space(value, [[pad_top, pad_bottom + extra_b],
                                      [pad_left, pad_right + extra_r]], block_size=rate)
