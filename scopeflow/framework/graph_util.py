"""``tf.graph_util``: TF1's GraphDef surgery for freezing and inference graphs.

``extract_sub_graph`` keeps the nodes a set of destinations depends on (through data and
control inputs and colocation), in the graph's order; ``convert_variables_to_constants``
freezes a session's variables into ``Const`` nodes of that subgraph;
``remove_training_nodes`` drops ``CheckNumerics`` and splices out ``Identity`` and
``StopGradient`` nodes nothing else pins. All work on ``GraphDef`` protos, as TF's do, and
return new ones.
"""

from __future__ import annotations

import copy
import logging

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_tensor_proto

__all__ = ["extract_sub_graph", "convert_variables_to_constants", "remove_training_nodes",
           "tensor_shape_from_node_def_name", "must_run_on_cpu"]

_VARIABLE_OPS = ("VariableV2", "Variable", "AutoReloadVariable")
_LOG = logging.getLogger("tensorflow")


def _node_name(name: str) -> str:
    return name[1:] if name.startswith("^") else name.split(":")[0]


def _colocated(node) -> list[str]:
    if "_class" not in node.attr:
        return []
    names = [s.decode() for s in node.attr["_class"].list.s]
    return [n[5:] if n.startswith("loc:@") else n for n in names]


def _check_graph_def(graph_def, what="graph_def"):
    if not isinstance(graph_def, protos.GraphDef):
        raise TypeError(f"{what} must be a graph_pb2.GraphDef proto, but got type "
                        f"{type(graph_def)}.")


def _copy_header(src, dst):
    """The GraphDef's versions (and function library, where the proto has one)."""
    dst.versions.CopyFrom(src.versions)
    if "library" in src.DESCRIPTOR.fields_by_name and src.HasField("library"):
        dst.library.CopyFrom(src.library)


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes that ``dest_nodes`` (names) depend on, in graph order."""
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings, but got type "
                        f"{type(dest_nodes)}.")
    by_name, order, inputs = {}, {}, {}
    for seq, node in enumerate(graph_def.node):
        name = _node_name(node.name)
        by_name[name], order[name] = node, seq
        inputs[name] = [_node_name(i) for i in node.input] + _colocated(node)
    for name in dest_nodes:
        if name not in by_name:
            raise AssertionError(f"{name} is not in graph")
    keep, queue = set(), list(dest_nodes)
    while queue:
        name = queue.pop(0)
        if name in keep:
            continue
        keep.add(name)
        queue += inputs.get(name, [])
    out = protos.GraphDef()
    for name in sorted(keep, key=order.__getitem__):
        out.node.extend([copy.deepcopy(by_name[name])])
    _copy_header(graph_def, out)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """``input_graph_def`` cut to what ``output_node_names`` need, each variable in it a
    ``Const`` holding its value in ``sess`` (a frozen graph). Only the variables named in
    the whitelist (if given) and not in the blacklist are converted."""
    inference = extract_sub_graph(input_graph_def, output_node_names)
    names = [n.name for n in inference.node if n.op in _VARIABLE_OPS
             and (variable_names_whitelist is None or n.name in variable_names_whitelist)
             and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = dict(zip(names, sess.run([f"{n}:0" for n in names]))) if names else {}
    out = protos.GraphDef()
    for node in inference.node:
        if node.name in values:
            const = out.node.add(name=node.name, op="Const")
            const.attr["dtype"].CopyFrom(node.attr["dtype"])
            const.attr["value"].tensor.CopyFrom(
                make_tensor_proto(values[node.name], dtype=node.attr["dtype"].type))
            if "_class" in node.attr:
                const.attr["_class"].CopyFrom(node.attr["_class"])
        else:
            out.node.extend([copy.deepcopy(node)])
    _copy_header(inference, out)
    _LOG.info("Froze %d variables.", len(values))
    _LOG.info("Converted %d variables to const ops.", len(values))
    return out


def _without_inputs_from(nodes, removed):
    out = []
    for node in nodes:
        if node.name in removed:
            continue
        new = copy.deepcopy(node)
        del new.input[:]
        new.input.extend(i for i in node.input if i.lstrip("^") not in removed)
        out.append(new)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """``input_graph`` without ``CheckNumerics`` nodes, and with ``Identity`` and
    ``StopGradient`` nodes spliced out (their consumers read their input) unless they are
    protected, colocated with, or in a control dependency."""
    protected = set(protected_nodes or [])
    removed = {n.name for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected}
    nodes = _without_inputs_from(input_graph.node, removed)
    control_inputs, with_control, colocated = set(), set(), set()
    for node in nodes:
        for name in node.input:
            if name.startswith("^"):
                control_inputs.add(name[1:])
                with_control.add(node.name)
        colocated.update(_colocated(node))
    splice = {n.name: n.input[0] for n in nodes
              if n.op in ("Identity", "StopGradient") and n.name not in protected
              and n.name not in colocated and n.name not in with_control and n.input
              and n.name not in control_inputs}
    out = protos.GraphDef()
    for node in nodes:
        if node.name in splice:
            continue
        new = copy.deepcopy(node)
        del new.input[:]
        for full in node.input:
            name = full.lstrip("^")
            while name in splice:
                full = splice[name]
                name = full.lstrip("^")
            new.input.append(full)
        out.node.extend([new])
    return out


def tensor_shape_from_node_def_name(graph, input_name) -> TensorShape:
    """The static shape of the tensor a NodeDef input string names (``x`` is ``x:0``)."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


def _attr_dtype_enum(node, name):
    if hasattr(node, "get_attr"):  # an Operation
        try:
            return node.get_attr(name).as_datatype_enum
        except ValueError:
            return None
    return node.attr[name].type if name in node.attr else None


def must_run_on_cpu(node, pin_variables_on_cpu=False) -> bool:
    """Whether TF's placer would pin ``node`` (an Operation or NodeDef) to the CPU: int32
    and string constants, int32 stitches and casts from int32, and variables when asked.
    (scopeflow runs every op on the CPU; this answers as TF does.)"""
    op_type = node.type if hasattr(node, "get_attr") else node.op
    if pin_variables_on_cpu and op_type in _VARIABLE_OPS + ("VarHandleOp",):
        return True
    int32, string = 3, 7  # DT_INT32, DT_STRING
    if op_type == "Const":
        return _attr_dtype_enum(node, "dtype") in (int32, string)
    if op_type in ("DynamicStitch", "ParallelDynamicStitch"):
        return _attr_dtype_enum(node, "T") == int32
    if op_type == "Cast":
        return _attr_dtype_enum(node, "SrcT") == int32
    return False
