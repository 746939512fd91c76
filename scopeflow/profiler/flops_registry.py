"""The float-operation counts TF registers per op type (``ops.RegisterStatistics(..., "flops")``).

TF keeps these rules in ``python/profiler/internal/flops_registry.py`` and ``python/ops/nn_ops.py``;
they read the static shapes of a node's inputs and outputs in the graph. A shape that is not
fully defined raises ``ValueError`` (TF's ``assert_is_fully_defined``), which the profiler counts
as "no flops stats due to incomplete shapes"; an op type with no rule counts 0 flops.
Convolution and pooling rules accept only NHWC, as TF's do.
"""

from __future__ import annotations

import math


def _shape(graph, input_name):
    """The static shape of a NodeDef input string ('op', 'op:1'), fully defined or ValueError."""
    name = input_name if ":" in input_name else input_name + ":0"
    shape = graph.get_tensor_by_name(name).shape
    shape.assert_is_fully_defined()
    return shape.as_list()


def _count(dims):
    return math.prod(int(d) for d in dims)


def _unary(per_element):
    def rule(graph, node):
        return _count(_shape(graph, node.input[0])) * per_element
    return rule


def _binary(per_element):
    def rule(graph, node):
        return _count(_shape(graph, node.name)) * per_element
    return rule


def _reduction(reduce_flops, finalize_flops):
    def rule(graph, node):
        num_in = _count(_shape(graph, node.input[0]))
        num_out = _count(_shape(graph, node.name))
        return num_in * reduce_flops + num_out * (finalize_flops - reduce_flops)
    return rule


def _check_nhwc(node):
    if node.attr["data_format"].s != b"NHWC":
        raise ValueError("Only NHWC format is supported in flops computations")


def _pool(graph, node):
    _check_nhwc(node)
    return _count(node.attr["ksize"].list.i) * _count(_shape(graph, node.name))


def _avg_pool_grad(graph, node):
    _check_nhwc(node)
    return _count(node.attr["ksize"].list.i) * _count(_shape(graph, node.input[1])) * 2


def _max_pool_grad(graph, node):
    _check_nhwc(node)
    area = _count(node.attr["ksize"].list.i)
    orig_out = _count(_shape(graph, node.input[1]))
    return area * orig_out + orig_out


def _conv2d_backprop_input(graph, node):
    _check_nhwc(node)
    out = _shape(graph, node.name)
    kernel = _shape(graph, node.input[1])
    strides = node.attr["strides"].list.i
    # TF divides in floating point and truncates when it stores the count.
    return 2 * _count(out) * _count(kernel) / (out[-1] * strides[1] * strides[2])


def _conv2d_backprop_filter(graph, node):
    _check_nhwc(node)
    image = _shape(graph, node.input[0])
    kernel = _shape(graph, node.name)
    strides = node.attr["strides"].list.i
    return 2 * _count(image) * _count(kernel) / (image[-1] * strides[1] * strides[2])


def _add_n(graph, node):
    if not node.input:
        return 0
    return _count(_shape(graph, node.input[0])) * (len(node.input) - 1)


def _mat_mul(graph, node):
    a_shape = _shape(graph, node.input[0])
    k = a_shape[0] if node.attr["transpose_a"].b else a_shape[1]
    return k * _count(_shape(graph, node.name)) * 2


def _batch_mat_mul(graph, node):
    a_shape = _shape(graph, node.input[0])
    k = a_shape[-2] if node.attr["transpose_a"].b else a_shape[-1]
    return k * _count(_shape(graph, node.name)) * 2


def _conv(spatial_dims, with_in_depth):
    """Conv2D/Conv3D (filter window x in-depth) and depthwise/dilation (window only) rules."""
    def rule(graph, node):
        _shape(graph, node.input[0])
        filt = _shape(graph, node.input[1])
        output = _count(_shape(graph, node.name))
        window = _count(filt[:spatial_dims])
        if with_in_depth:
            window *= filt[spatial_dims]
        return output * window * 2
    return rule


def _bias_add(graph, node):
    return _count(_shape(graph, node.input[0]))


FLOPS_RULES = {
    "Reciprocal": _unary(1), "Square": _unary(1), "Rsqrt": _unary(2), "Log": _unary(1),
    "Neg": _unary(1), "AssignSub": _unary(1), "AssignAdd": _unary(1),
    "L2Loss": lambda graph, node: _count(_shape(graph, node.input[0])) * 3 - 1,
    "Softmax": _unary(5),
    "Add": _binary(1), "AddV2": _binary(1), "Sub": _binary(1), "Mul": _binary(1),
    "RealDiv": _binary(1), "Maximum": _binary(1), "Minimum": _binary(1), "Pow": _binary(1),
    "RsqrtGrad": _binary(4), "GreaterEqual": _binary(1), "Greater": _binary(1),
    "LessEqual": _binary(1), "Less": _binary(1), "Equal": _binary(1), "NotEqual": _binary(1),
    "SquaredDifference": _binary(2),
    "Mean": _reduction(1, 1), "Sum": _reduction(1, 0), "ArgMax": _reduction(1, 0),
    "ArgMin": _reduction(1, 0), "BiasAddGrad": _reduction(1, 0),
    "AvgPool": _pool, "MaxPool": _pool, "AvgPoolGrad": _avg_pool_grad,
    "MaxPoolGrad": _max_pool_grad, "Conv2DBackpropInput": _conv2d_backprop_input,
    "Conv2DBackpropFilter": _conv2d_backprop_filter, "AddN": _add_n,
    "MatMul": _mat_mul, "BatchMatMul": _batch_mat_mul, "BatchMatMulV2": _batch_mat_mul,
    "BatchMatMulV3": _batch_mat_mul,
    "Conv3D": _conv(3, True), "Conv2D": _conv(2, True),
    "DepthwiseConv2dNative": _conv(2, False), "Dilation2D": _conv(2, False),
    "BiasAdd": _bias_add,
}


def node_flops(graph, node_def):
    """TF's registered flops of one NodeDef (0 without a rule); ValueError on unknown shapes."""
    rule = FLOPS_RULES.get(node_def.op)
    if rule is None:
        return 0
    return int(rule(graph, node_def))
