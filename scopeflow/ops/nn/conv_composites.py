"""Convolutions TF builds from other ops: ``conv1d`` (ExpandDims, Conv2D, Squeeze) and
``separable_conv2d`` (DepthwiseConv2dNative, then a 1x1 Conv2D), with TF's op names.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops import array_ops, constant_op
from scopeflow.ops.nn.conv_geometry import get_sequence, one_of
from scopeflow.ops.nn.conv_ops import conv2d_op, conv_call_attrs, depthwise_op
from scopeflow.ops.nn.space_to_batch_util import base_paddings, space_to_batch_call

__all__ = ["conv1d", "separable_conv2d"]


def _conv1d_layout(data_format):
    """(2-D data format, the inserted spatial axis) for ``NWC``/``NCW``, as TF's."""
    if data_format in (None, "NHWC", "NWC"):
        return "NHWC", -3
    if data_format in ("NCHW", "NCW"):
        return "NCHW", -2
    raise ValueError('data_format must be "NWC" or "NCW".')


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None) -> Tensor:  # noqa: A002
    """1-D convolution of ``[batch, width, in]`` (``NWC``) with a ``[k, in, out]`` filter.

    As TF: ``ExpandDims`` of both, a ``Conv2D`` named after the scope (``conv1d``), then
    ``conv1d/Squeeze``.

    >>> tf.nn.conv1d(tf.ones([1, 5, 2]), tf.ones([3, 2, 4]), 1, "VALID").shape.as_list()
    [1, 3, 4]
    """
    value = one_of(value, input, "value", "input")
    if filters is None:
        raise ValueError("'filters' must be given")
    if stride is None:
        raise ValueError("stride must be given")
    if isinstance(padding, str):
        padding = padding.upper()
    fmt, axis = _conv1d_layout(data_format)
    ci = 1 if fmt == "NCHW" else 2
    strides = [1, *get_sequence(stride, 1, ci, "stride")]
    dil = [1, *get_sequence(1 if dilations is None else dilations, 1, ci, "dilations")]
    with name_scope(name, "conv1d", [value, filters]) as scope:
        value = array_ops.expand_dims(value, axis)
        filters = array_ops.expand_dims(filters, 0)
        attrs = conv_call_attrs(strides, padding, fmt, dil)
        result = conv2d_op.bind(value, filters, name=scope,
                                use_cudnn_on_gpu=True if use_cudnn_on_gpu is None
                                else bool(use_cudnn_on_gpu), **attrs)
        return array_ops.squeeze(result, [axis])


def _check_pointwise_filter(pointwise_filter):
    """TF's check that the pointwise filter is a rank-4 1x1 filter."""
    pointwise_filter.shape.assert_has_rank(4)
    dims = pointwise_filter.shape.as_tuple()
    if dims[0] not in (1, None) or dims[1] not in (1, None):
        raise ValueError(f"Dimension must be 1 but is {dims[0] if dims[0] != 1 else dims[1]} "
                         "for pointwise_filter")


def _separable_rate(rate):
    """``rate`` (None, an int or a pair) as a list of two ints."""
    rate = [1, 1] if rate is None else ([int(rate)] * 2 if isinstance(rate, int)
                                        else [int(r) for r in rate])
    if len(rate) != 2:
        raise ValueError(f"rate must be of length 2, got {rate}")
    return rate


def _space_to_batch_constants(depthwise_filter, rate):
    """The ``Shape`` and ``dilation_rate`` nodes TF's ``with_space_to_batch`` adds (the
    filter's shape, folded to a constant when static, and the rate), so the graph's node
    names are TF's; returns the filter's static dims."""
    fdims = depthwise_filter.shape.as_tuple()
    if depthwise_filter.shape.is_fully_defined():
        constant_op.constant(np.array(fdims, np.int32), name="Shape")
    else:
        array_ops.shape(depthwise_filter, name="Shape")
    constant_op.constant(np.array(rate, np.int32), dtype=dtypes.int32, name="dilation_rate")
    return fdims


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     rate=None, name=None, data_format=None, dilations=None) -> Tensor:
    """A depthwise convolution (``separable_conv2d/depthwise``) then a 1x1 ``Conv2D``
    (named after the scope, ``separable_conv2d``) mixing its ``C * M`` channels.

    ``rate`` (or ``dilations``) dilates the depthwise step through SpaceToBatchND and
    BatchToSpaceND around a VALID depthwise op, as TF's graph.

    >>> y = tf.nn.separable_conv2d(tf.ones([1, 4, 4, 2]), tf.ones([2, 2, 2, 3]),
    ...                            tf.ones([1, 1, 6, 5]), [1, 1, 1, 1], "VALID")
    >>> y.name, y.shape.as_list()
    ('separable_conv2d:0', [1, 3, 3, 5])
    """
    rate = rate if rate is not None else dilations
    with name_scope(name, "separable_conv2d",
                    [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        _check_pointwise_filter(pointwise_filter)
        rate = _separable_rate(rate)
        fdims = _space_to_batch_constants(depthwise_filter, rate)
        st = list(strides) if not isinstance(strides, int) else [1, strides, strides, 1]
        if rate != [1, 1] and any(int(v) != 1 for v in st):
            raise ValueError("strides > window_shape not supported due to inconsistency "
                             "between CPU and GPU implementations")
        fmt = data_format or "NHWC"

        def build(_n, pad):
            attrs = conv_call_attrs(st, pad, fmt, None, "DepthwiseConv2dNative")
            return lambda inp, _: depthwise_op.bind(inp, depthwise_filter, name="depthwise",
                                                    **attrs)

        if rate == [1, 1]:
            depthwise = build(2, padding)(input, None)
        else:
            # TF's with_space_to_batch: SpaceToBatchND, the VALID depthwise, BatchToSpaceND.
            if fdims is None or None in fdims[:2]:
                raise ValueError("A dilated separable_conv2d needs the depthwise filter's "
                                 "spatial shape statically here.")
            rate_arr = np.array(rate, np.int32)
            depthwise = space_to_batch_call(
                input, rate_arr, padding, base_paddings(padding, fdims, rate_arr, 2),
                [2, 3] if fmt == "NCHW" else [1, 2], build, fmt)
        return conv2d_op.bind(depthwise, pointwise_filter, name=scope, use_cudnn_on_gpu=True,
                              **conv_call_attrs([1, 1, 1, 1], "VALID", fmt, None))
