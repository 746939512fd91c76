"""TF's ``optimize_for_inference_lib`` (``tensorflow.python.tools``): a frozen GraphDef made
lean for inference, node for node as TF makes it.

``optimize_for_inference(graph_def, input_names, output_names, placeholder_type_enum)``
runs TF's passes in TF's order:

1. ``convert_placeholder_to_const``: ``keras_learning_phase`` (and the bool placeholders
   named in ``placeholder_to_const_names``, "name=True") become ``Const``;
2. ``strip_unused``: the inputs become ``Placeholder``s of the given dtype and only what
   the outputs need is kept (``graph_util.extract_sub_graph``);
3. ``graph_util.remove_training_nodes``: ``CheckNumerics`` dropped, ``Identity`` spliced;
4. ``fuse_decomposed_batch_norm``: ``x * m + (beta - mean * m)`` with
   ``m = rsqrt(var + eps) [* gamma]`` becomes one ``FusedBatchNorm`` (NHWC only);
5. ``fold_batch_norms``: a ``BatchNormWithGlobalNormalization``/``FusedBatchNorm``/
   ``FusedBatchNormV3`` after a ``Conv2D`` or ``DepthwiseConv2dNative`` (with an optional
   ``BiasAdd``/``Add``/``AddV2`` between) is folded into the convolution's weights and one
   ``BiasAdd`` that keeps the batch norm's name;
6. ``fuse_resize_and_conv`` (unless ``toco_compatible``): ``ResizeBilinear`` and/or
   ``MirrorPad`` before a ``Conv2D`` become TF's ``FusedResizeAndPadConv2D`` /
   ``FusedPadConv2D`` (ops scopeflow does not run: such a graph runs in TensorFlow only).

What a pass cannot use it leaves alone with TF's warning on the "tensorflow" logger.
"""

from __future__ import annotations

import collections
import copy
import logging
import re

import numpy as np

from scopeflow.framework import dtypes, graph_util
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_ndarray, make_tensor_proto

__all__ = ["optimize_for_inference", "ensure_graph_is_valid", "node_name_from_input",
           "node_from_map", "values_from_const", "scale_after_normalization",
           "fold_batch_norms", "fuse_resize_and_conv", "convert_placeholder_to_const",
           "fuse_decomposed_batch_norm", "strip_unused", "get_const_dim_count",
           "INPUT_ORDER", "EPSILON_ATTR", "PLACEHOLDER_WITH_DEFAULT_LIST"]

_LOG = logging.getLogger("tensorflow")

INPUT_ORDER = {
    "BatchNormWithGlobalNormalization": ["conv_op", "mean_op", "var_op", "beta_op",
                                         "gamma_op"],
    "FusedBatchNorm": ["conv_op", "gamma_op", "beta_op", "mean_op", "var_op"],
    "FusedBatchNormV3": ["conv_op", "gamma_op", "beta_op", "mean_op", "var_op"],
}
EPSILON_ATTR = {"BatchNormWithGlobalNormalization": "variance_epsilon",
                "FusedBatchNorm": "epsilon", "FusedBatchNormV3": "epsilon"}
PLACEHOLDER_WITH_DEFAULT_LIST = {"keras_learning_phase": "False"}
_CONVS = ("Conv2D", "DepthwiseConv2dNative")


def optimize_for_inference(input_graph_def, input_node_names, output_node_names,
                           placeholder_type_enum, toco_compatible=False,
                           placeholder_to_const_names=None):
    """``input_graph_def`` (a frozen GraphDef) through TF's inference passes (module doc).

    ``placeholder_type_enum`` is the inputs' DataType enum (``tf.float32.as_datatype_enum``),
    or a list of one per input name."""
    ensure_graph_is_valid(input_graph_def)
    graph = convert_placeholder_to_const(input_graph_def, placeholder_to_const_names)
    graph = strip_unused(graph, input_node_names, output_node_names, placeholder_type_enum)
    graph = graph_util.remove_training_nodes(graph, output_node_names)
    graph = fuse_decomposed_batch_norm(graph)
    graph = fold_batch_norms(graph)
    if not toco_compatible:
        graph = fuse_resize_and_conv(graph, output_node_names)
    ensure_graph_is_valid(graph)
    return graph


def ensure_graph_is_valid(graph_def):
    """Raises ValueError (TF's messages) for a duplicated node name or an input that names
    no node."""
    node_map = {}
    for node in graph_def.node:
        if node.name in node_map:
            raise ValueError("Duplicate node names detected for ", node.name)
        node_map[node.name] = node
    for node in graph_def.node:
        for input_name in node.input:
            if node_name_from_input(input_name) not in node_map:
                raise ValueError("Input for ", node.name, " not found: ", input_name)


def node_name_from_input(node_name):
    """``^name`` and ``name:1`` are both ``name``."""
    if node_name.startswith("^"):
        node_name = node_name[1:]
    m = re.search(r"(.*):\d+$", node_name)
    return m.group(1) if m else node_name


def node_from_map(node_map, name):
    """The NodeDef an input string names; ValueError when there is none."""
    stripped = node_name_from_input(name)
    if stripped not in node_map:
        raise ValueError(f"No node named '{name}' found in map.")
    return node_map[stripped]


def values_from_const(node_def):
    """A ``Const`` NodeDef's value as a NumPy array (ValueError for any other op)."""
    if node_def.op != "Const":
        raise ValueError("Can not extract constant value from a node that is not Const. "
                         f"Got:\n{node_def}")
    return make_ndarray(node_def.attr["value"].tensor)


def get_const_dim_count(node_def):
    """The rank of a ``Const`` NodeDef's value."""
    return values_from_const(node_def).ndim


def scale_after_normalization(node):
    if node.op == "BatchNormWithGlobalNormalization":
        return node.attr["scale_after_normalization"].b
    return True


def _node_map(graph_def):
    node_map = {}
    for node in graph_def.node:
        if node.name in node_map:
            raise ValueError("Duplicate node names detected for ", node.name)
        node_map[node.name] = node
    return node_map


def _const_node(name, dtype_attr, value, dtype, shape):
    node = protos.NodeDef(name=name, op="Const")
    node.attr["dtype"].CopyFrom(dtype_attr)
    node.attr["value"].tensor.CopyFrom(make_tensor_proto(value, dtype=dtype, shape=shape))
    return node


def _rebuilt(graph_def, nodes_to_skip, new_ops):
    """``graph_def`` less ``nodes_to_skip`` (and control inputs from them), then
    ``new_ops``: how TF's batch-norm passes assemble their result."""
    out = protos.GraphDef()
    for node in graph_def.node:
        if node.name in nodes_to_skip:
            continue
        new = copy.deepcopy(node)
        kept = [i for i in new.input if not i.startswith("^") or i[1:] not in nodes_to_skip]
        del new.input[:]
        new.input.extend(kept)
        out.node.extend([new])
    out.node.extend(new_ops)
    out.versions.CopyFrom(graph_def.versions)
    return out


# ── fold_batch_norms ─────────────────────────────────────────────────────────────────
def _bn_const(node_map, node, role, channel_count, what):
    """The value of the batch norm ``node``'s ``role`` input (``mean_op``...), or None
    (with TF's warning) when it is not a Const of ``channel_count`` elements."""
    op = node_from_map(node_map, node.input[INPUT_ORDER[node.op].index(role)])
    if op.op != "Const":
        _LOG.warning("Didn't find expected %s Constant input to '%s', found %s instead. "
                     "Maybe because freeze_graph wasn't run first?", what, node.name, op)
        return None, op
    value = values_from_const(op)
    if value.shape != (channel_count,):
        _LOG.warning("Incorrect shape for %s, found %s, expected %s, for node %s", what,
                     value.shape, (channel_count,), node.name)
        return None, op
    return value, op


def fold_batch_norms(input_graph_def):
    """Batch norms after a convolution folded into its weights and a ``BiasAdd`` (module
    doc, pass 5), with TF's arithmetic: the scale ``gamma / sqrt(var + eps)`` in float64,
    the weights scaled in float64 and rounded to their dtype."""
    node_map = _node_map(input_graph_def)
    nodes_to_skip, new_ops = {}, []
    for node in input_graph_def.node:
        if node.op not in INPUT_ORDER:
            continue
        conv_op, add_op, bias = _bn_conv_input(node_map, node)
        if bias is not None and bias.op != "Const":
            _LOG.warning("The bias %s after the conv %s was not a constant. Maybe because "
                         "freeze_graph wasn't run first?", bias.name, conv_op.name)
            continue
        if conv_op.op not in _CONVS:
            _LOG.warning("Didn't find expected Conv2D or DepthwiseConv2dNative input to "
                         "'%s'", node.name)
            continue
        weights_op = node_from_map(node_map, conv_op.input[1])
        if weights_op.op != "Const":
            _LOG.warning("Didn't find expected conv Constant input to '%s', found %s "
                         "instead. Maybe because freeze_graph wasn't run first?",
                         conv_op.name, weights_op)
            continue
        weights = values_from_const(weights_op)
        channel_count = (weights.shape[3] if conv_op.op == "Conv2D"
                         else weights.shape[2] * weights.shape[3])
        mean_value, mean_op = _bn_const(node_map, node, "mean_op", channel_count, "mean")
        if mean_value is None:
            continue
        if bias is not None:
            mean_value = mean_value - values_from_const(bias)
        found = [_bn_const(node_map, node, role, channel_count, role[:-3])[0]
                 for role in ("var_op", "beta_op", "gamma_op")]
        if any(v is None for v in found):
            continue
        nodes_to_skip.update({node.name: True, weights_op.name: True, conv_op.name: True})
        if add_op is not None:
            nodes_to_skip[add_op.name] = True
        new_ops.extend(_folded_conv(node, conv_op, weights_op, weights, mean_op, mean_value,
                                    *found))
    return _rebuilt(input_graph_def, nodes_to_skip, new_ops)


def _bn_conv_input(node_map, node):
    """``(conv_op, add_op, bias)`` feeding the batch norm ``node``: its input, or the
    conv behind a ``BiasAdd``/``Add`` and that add's other input (else None, None)."""
    bias = add_op = None
    conv_op = node_from_map(node_map, node.input[INPUT_ORDER[node.op].index("conv_op")])
    if conv_op.op in ("BiasAdd", "Add", "AddV2"):
        add_op = conv_op
        conv_op = node_from_map(node_map, add_op.input[0])
        bias = node_from_map(node_map, add_op.input[1])
        if conv_op.op not in _CONVS:
            conv_op = node_from_map(node_map, add_op.input[1])
            bias = node_from_map(node_map, add_op.input[0])
    return conv_op, add_op, bias


def _folded_conv(node, conv_op, weights_op, weights, mean_op, mean_value, var_value,
                 beta_value, gamma_value):
    """The scaled weights, the conv (rewired to them, in place as TF does), the offset and
    the ``BiasAdd`` that replace the batch norm ``node``."""
    epsilon = node.attr[EPSILON_ATTR[node.op]].f
    scale = 1.0 / np.sqrt((var_value + epsilon).astype(np.float64))
    if scale_after_normalization(node):
        scale = scale * gamma_value
    offset = -mean_value * scale + beta_value
    if conv_op.op == "DepthwiseConv2dNative":
        scale = scale.reshape(weights.shape[2], weights.shape[3])
    scaled = (weights.astype(np.float64) * scale).astype(weights.dtype)
    scaled_op = _const_node(conv_op.name + "_weights", weights_op.attr["dtype"], scaled,
                            weights.dtype, weights.shape)
    for i, name in enumerate(conv_op.input):   # TF rewires the conv in place
        if name == weights_op.name:
            conv_op.input[i] = scaled_op.name
    new_conv = copy.deepcopy(conv_op)
    offset_op = _const_node(conv_op.name + "_bn_offset", mean_op.attr["dtype"], offset,
                            mean_value.dtype, offset.shape)
    bias_add = protos.NodeDef(name=node.name, op="BiasAdd",
                              input=[new_conv.name, offset_op.name])
    bias_add.attr["T"].CopyFrom(conv_op.attr["T"])
    bias_add.attr["data_format"].CopyFrom(conv_op.attr["data_format"])
    return [scaled_op, new_conv, offset_op, bias_add]


# ── fuse_resize_and_conv ─────────────────────────────────────────────────────────────
def fuse_resize_and_conv(input_graph_def, output_node_names):
    """``ResizeBilinear`` and/or ``MirrorPad`` before a ``Conv2D`` merged into TF's
    ``FusedResizeAndPadConv2D``/``FusedPadConv2D`` (module doc, pass 6)."""
    node_map = _node_map(input_graph_def)
    refs = _reference_counts(input_graph_def, output_node_names)
    new_ops = []
    for conv in input_graph_def.node:
        if conv.op != "Conv2D":
            continue
        input_op = node_from_map(node_map, conv.input[0])
        pad = input_op if input_op.op == "MirrorPad" else None
        resize = node_from_map(node_map, pad.input[0]) if pad else input_op
        if resize.op != "ResizeBilinear":
            resize = None
        if pad is None and resize is None:
            continue
        refs[conv.name] = 0
        if pad is not None:
            refs[pad.name] -= 1
        if resize is not None:
            refs[resize.name] -= 1
        fused = protos.NodeDef(name=conv.name, op="FusedResizeAndPadConv2D" if resize
                               else "FusedPadConv2D")
        if pad is not None:
            paddings, mode = pad.input[1], pad.attr["mode"]
        else:
            dummy = protos.NodeDef(name=conv.name + "_dummy_paddings", op="Const")
            dummy.attr["dtype"].type = dtypes.int32.as_datatype_enum
            dummy.attr["value"].tensor.CopyFrom(
                make_tensor_proto([0] * 8, dtype=dtypes.int32, shape=[4, 2]))
            new_ops.append(dummy)
            paddings, mode = dummy.name, protos.AttrValue(s=b"REFLECT")
        if resize is not None:
            fused.input.extend([resize.input[0], resize.input[1], paddings, conv.input[1]])
            fused.attr["resize_align_corners"].CopyFrom(resize.attr["align_corners"])
        else:
            fused.input.extend([pad.input[0], paddings, conv.input[1]])
        fused.attr["T"].CopyFrom(conv.attr["T"])
        fused.attr["mode"].CopyFrom(mode)
        fused.attr["strides"].CopyFrom(conv.attr["strides"])
        fused.attr["padding"].CopyFrom(conv.attr["padding"])
        new_ops.append(fused)
    out = protos.GraphDef()
    out.node.extend(copy.deepcopy(n) for n in input_graph_def.node if refs[n.name] >= 1)
    out.node.extend(new_ops)
    return out


def _reference_counts(input_graph_def, output_node_names):
    """How many inputs (and outputs of the graph) name each node."""
    refs = collections.defaultdict(int)
    for node in input_graph_def.node:
        for name in node.input:
            refs[node_name_from_input(name)] += 1
    for name in output_node_names:
        refs[name] += 1
    return refs


# ── convert_placeholder_to_const ─────────────────────────────────────────────────────
def _strtobool(value):
    if value in ("True", "true"):
        return True
    if value not in ("False", "false"):
        _LOG.warning("Wrong string values. Supports False/false or True/true only. "
                     "val_str = %s", value)
    return False


def convert_placeholder_to_const(input_graph_def, nodes_to_convert=None):
    """Bool ``Placeholder``/``PlaceholderWithDefault`` nodes whose names contain
    ``keras_learning_phase`` (value False) or a key of ``nodes_to_convert`` ("key=value"
    strings) become ``Const`` nodes of that value; others are kept, with TF's warning."""
    _node_map(input_graph_def)
    to_change = dict(PLACEHOLDER_WITH_DEFAULT_LIST)
    for entry in nodes_to_convert or ():
        items = entry.split("=")
        if len(items) > 1:
            to_change[items[0].strip()] = items[1]
    out = protos.GraphDef()
    for node in input_graph_def.node:
        match = [key for key in to_change if key in node.name]
        if node.op in ("PlaceholderWithDefault", "Placeholder") and match:
            if node.attr["dtype"].type == dtypes.bool.as_datatype_enum:
                new = protos.NodeDef(name=node.name, op="Const")
                new.attr["dtype"].CopyFrom(node.attr["dtype"])
                new.attr["value"].tensor.CopyFrom(make_tensor_proto(
                    _strtobool(to_change[match[0]]), dtype=dtypes.bool, shape=[]))
                out.node.extend([new])
                continue
            _LOG.warning("Not converting to Const. Currently only bool "
                         "PlaceholderWithDefault or Placeholder can be converted to const. "
                         "current dtype = %s", node.attr["dtype"])
        out.node.extend([copy.deepcopy(node)])
    return out


# ── fuse_decomposed_batch_norm ───────────────────────────────────────────────────────
def _decomposed_bn(node_map, node):
    """The pieces of ``x * m + (beta - mean * m)``, ``m = rsqrt(var + eps) [* gamma]``, at
    the ``Add`` ``node`` (TF's pattern), or None."""
    in0, in1 = (node_from_map(node_map, i) for i in node.input[:2])
    if (in0.op, in1.op) == ("Mul", "Sub"):
        data_mul, sub = in0, in1
    elif (in0.op, in1.op) == ("Sub", "Mul"):
        sub, data_mul = in0, in1
    else:
        return None
    data = node_from_map(node_map, data_mul.input[0])
    scale = node_from_map(node_map, data_mul.input[1])
    data_format = _conv_data_format(node_map, data)
    if data_format is None or data_format.s != b"NHWC":
        return None
    if scale.op == "Rsqrt":
        gamma, rsqrt = None, scale
    elif scale.op == "Mul":
        rsqrt = node_from_map(node_map, scale.input[0])
        gamma = node_from_map(node_map, scale.input[1])
        if rsqrt.op != "Rsqrt" or gamma.op != "Const" or get_const_dim_count(gamma) != 1:
            return None
    else:
        return None
    beta = node_from_map(node_map, sub.input[0])
    mean_mul = node_from_map(node_map, sub.input[1])
    if mean_mul.op != "Mul" or beta.op != "Const" or get_const_dim_count(beta) != 1:
        return None
    if scale is not node_from_map(node_map, mean_mul.input[1]):
        return None
    mean = node_from_map(node_map, mean_mul.input[0])
    if mean.op != "Const" or get_const_dim_count(mean) != 1:
        return None
    var_eps = node_from_map(node_map, rsqrt.input[0])
    if var_eps.op != "Add":
        return None
    variance = node_from_map(node_map, var_eps.input[0])
    eps = node_from_map(node_map, var_eps.input[1])
    if eps.op != "Const" or get_const_dim_count(eps) != 0:
        return None
    if variance.op != "Const" or get_const_dim_count(variance) != 1:
        return None
    return dict(data_mul=data_mul, sub=sub, data=data, scale=scale, rsqrt=rsqrt,
                gamma=gamma, beta=beta, mean_mul=mean_mul, mean=mean, var_eps=var_eps,
                variance=variance, eps=eps, data_format=data_format)


def _conv_data_format(node_map, data):
    """The ``data_format`` attr of the convolution ``data`` is, or that one of its inputs
    is; None when neither is a convolution."""
    if data.op in _CONVS:
        return data.attr["data_format"]
    for name in data.input:
        producer = node_from_map(node_map, name)
        if producer.op in _CONVS:
            return producer.attr["data_format"]
    return None


def fuse_decomposed_batch_norm(input_graph_def):
    """Batch norms written out as ``Mul``/``Sub``/``Add``/``Rsqrt`` over constants (NHWC,
    after a convolution) become one ``FusedBatchNorm`` (module doc, pass 4)."""
    node_map = _node_map(input_graph_def)
    nodes_to_skip, new_ops = {}, []
    for node in input_graph_def.node:
        if node.op != "Add":
            continue
        p = _decomposed_bn(node_map, node)
        if p is None:
            continue
        for key in ("data_mul", "sub", "mean_mul", "scale", "var_eps"):
            nodes_to_skip[p[key].name] = True
        nodes_to_skip[node.name] = True
        if p["scale"].op != "Rsqrt":
            nodes_to_skip[p["rsqrt"].name] = True
        gamma = p["gamma"]
        if gamma is None:
            m = re.search(r"(.*)/(.*)", p["scale"].name)
            beta_value = values_from_const(p["beta"])
            gamma = _const_node((m.group(1) if m else p["scale"].name) + "/gamma",
                                p["beta"].attr["dtype"], np.ones_like(beta_value),
                                beta_value.dtype, beta_value.shape)
            new_ops.append(gamma)
        fused = protos.NodeDef(name=node.name, op="FusedBatchNorm", input=[
            p["data"].name, gamma.name, p["beta"].name, p["mean"].name, p["variance"].name])
        fused.attr["T"].CopyFrom(node.attr["T"])
        fused.attr["is_training"].b = False
        fused.attr["epsilon"].f = float(values_from_const(p["eps"]))
        fused.attr["data_format"].CopyFrom(p["data_format"])
        new_ops.append(fused)
    return _rebuilt(input_graph_def, nodes_to_skip, new_ops)


# ── strip_unused (TF's strip_unused_lib) ─────────────────────────────────────────────
def strip_unused(input_graph_def, input_node_names, output_node_names,
                 placeholder_type_enum):
    """``input_graph_def`` with each input node replaced by a ``Placeholder`` of
    ``placeholder_type_enum`` (one, or a list of one per input; its ``shape`` and
    ``_output_shapes`` kept), cut to what ``output_node_names`` need."""
    for name in input_node_names:
        if ":" in name:
            raise ValueError(f"Name '{name}' appears to refer to a Tensor, not an "
                             "Operation.")
    not_found = set(input_node_names)
    replaced = protos.GraphDef()
    for node in input_graph_def.node:
        if node.name not in input_node_names:
            replaced.node.extend([copy.deepcopy(node)])
            continue
        not_found.discard(node.name)
        placeholder = protos.NodeDef(name=node.name, op="Placeholder")
        dtype = (placeholder_type_enum[list(input_node_names).index(node.name)]
                 if isinstance(placeholder_type_enum, list) else placeholder_type_enum)
        placeholder.attr["dtype"].type = dtype
        for attr in ("_output_shapes", "shape"):
            if attr in node.attr:
                placeholder.attr[attr].CopyFrom(node.attr[attr])
        replaced.node.extend([placeholder])
    if not_found:
        raise KeyError(f"The following input nodes were not found: {not_found}.")
    return graph_util.extract_sub_graph(replaced, output_node_names)
