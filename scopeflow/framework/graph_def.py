"""GraphDef export: ``Graph.as_graph_def()`` with the nodes, inputs and attrs TF writes.

It reads ops through their attributes only (it imports no graph class), so ``Graph`` itself
can use it; ``graph_import`` is the other direction.

Each node's attrs are derived from TensorFlow's own op signature (``_tf_op_signatures``,
generated from TF 2.21's registry), the way TF's graph construction fills a NodeDef:
type attrs (``T``, ``Tidx``, ``dtype``...) from the dtypes of the inputs and outputs,
``N`` from the length of list inputs, the op's own attr values, and TF's default for every
attr left over. Const values are encoded as TF's ``make_tensor_proto`` does (FORMATS §3.1),
``_class`` colocation attrs follow TF1's variable/optimizer colocation, and
``add_shapes=True`` adds ``_output_shapes``. TensorBoard groups nodes by the ``/`` in their
names and draws ``Assign``-family input 0 as a reference edge, so no extra metadata is
needed for the graph view.
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework._tf_op_signatures import SIGNATURES
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_ndarray, make_tensor_proto, shape_proto

__all__ = ["graph_to_graph_def", "GRAPH_DEF_VERSION", "SCOPEFLOW_ONLY_OPS"]

# TF 2.21's GRAPH_DEF_VERSION: the node semantics written here are that release's OpDefs.
GRAPH_DEF_VERSION = 2474
# Op types scopeflow registers that TensorFlow does not have: exported with their own attrs.
SCOPEFLOW_ONLY_OPS = {
    "SparseApplyAdam", "ResourceSparseApplyAdam",
    # Functional control flow and value TensorArrays (ops/control_flow/cond_ops.py, while_ops.py,
    # tensor_array_ops.py): TF1 has Switch/Merge/Enter/Exit and resource TensorArrays instead.
    "Cond", "WhileLoop", "WhileLoopGrad", "LoopVar", "TensorArrayReserve",
    "TensorArraySetItem", "TensorArrayGetItem", "TensorArrayStackItems",
    "TensorArrayFromTensor", "TensorArrayGatherItems", "TensorArrayScatterItems",
    "TensorArrayConcatItems", "TensorArraySplitTensor", "TensorArrayLength",
    "TensorArrayAddGrads", "TensorArraySetItemGrad", "TensorArrayGetItemGrad",
    "TensorArrayStackGrad", "TensorArrayFromTensorGrad", "TensorArrayGatherGrad",
    "TensorArrayScatterGrad", "TensorArrayConcatGrad", "TensorArraySplitGrad",
    "TensorArrayNoGrad", "TensorArrayGradArray",
    # scopeflow.distributed's collectives (Horovod's are HorovodAllreduce, ... in its own .so)
    "MpiAllreduce", "MpiAllgather", "MpiBroadcast"}


def graph_to_graph_def(graph, from_version=None, add_shapes=False):
    """The ``GraphDef`` of ``graph`` (``Graph.as_graph_def``).

    Args:
      graph: a scopeflow ``Graph``.
      from_version: only ops added after ``graph.version`` was this value.
      add_shapes: add the ``_output_shapes`` attr (one shape per output) to every node.

    Each op's serialized NodeDef is cached on the op (ops are immutable; the key covers what
    can change: control inputs, device, refined shapes), so exporting a graph again (every
    checkpoint's ``.meta``) costs a parse of the joined bytes, not a rebuild.
    """
    ops = graph.get_operations()
    if from_version is not None:
        ops = [op for op in ops if op._id >= from_version]
    cached = _COLOCATION_CACHE.get(graph)
    if cached is None or cached[0] != graph.version:  # depends only on the ops present
        cached = _COLOCATION_CACHE[graph] = (graph.version,
                                             _colocation_groups(graph.get_operations()))
    colocation = cached[1]
    parts = []
    for op in ops:
        data = _node_bytes(op, add_shapes)
        group = colocation.get(op)
        if group is not None:
            data += _class_attr_bytes(group)
        parts.append(b"\n" + _varint(len(data)) + data)  # GraphDef.node, field 1
    graph_def = protos.GraphDef.FromString(b"".join(parts))
    graph_def.versions.producer = GRAPH_DEF_VERSION
    return graph_def


_NODE_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_COLOCATION_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CLASS_CACHE: dict = {}


def _node_bytes(op, add_shapes) -> bytes:
    """The serialized NodeDef of ``op`` without ``_class`` (cached per op)."""
    key = (len(op._control_inputs), op._device, add_shapes,
           tuple(t._shape._dims for t in op._outputs) if add_shapes else None)
    cached = _NODE_CACHE.get(op)
    if cached is not None and cached[0] == key:
        return cached[1]
    node = protos.NodeDef(name=op._name, op=op.type, device=op._device)
    node.input.extend(t._as_node_def_input() for t in op._inputs)
    # TF's Graph::ToGraphDef sorts the control inputs by name (data inputs keep their order).
    node.input.extend(sorted("^" + c.name for c in op._control_inputs))
    _fill_attrs(node.attr, op)
    if add_shapes and op._outputs:
        shapes = node.attr["_output_shapes"].list.shape
        for t in op._outputs:
            shape_proto(t._shape, shapes.add())
    data = node.SerializeToString()
    _NODE_CACHE[op] = (key, data)
    return data


def _class_attr_bytes(group) -> bytes:
    """The serialized ``attr["_class"]`` map entry (NodeDef field 5) for ``loc:@group``."""
    data = _CLASS_CACHE.get(group)
    if data is None:
        node = protos.NodeDef()
        node.attr["_class"].list.s.append(b"loc:@" + group.encode())
        data = _CLASS_CACHE[group] = node.SerializeToString()
    return data


def _varint(n) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# ── attrs ────────────────────────────────────────────────────────────────────────────
_DEFAULTS: dict = {}  # (op type, attr name) -> AttrValue, parsed once


def _default(op_type, name, hex_value):
    key = (op_type, name)
    value = _DEFAULTS.get(key)
    if value is None:
        value = _DEFAULTS[key] = protos.AttrValue.FromString(bytes.fromhex(hex_value))
    return value


def _equals_default(op_type, name, hex_value, value) -> bool:
    """A tensor attr equal to TF's default is written as TF's default bytes."""
    default = make_ndarray(_default(op_type, name, hex_value).tensor)
    value = np.asarray(value)
    return value.shape == default.shape and value.dtype == default.dtype and \
        bool(np.array_equal(value, default))


def _fill_attrs(attr_map, op):
    sig = SIGNATURES.get(op.type)
    attrs = op._attrs
    if sig is None:  # a scopeflow-only op: its own attrs, typed from their Python values
        for name, value in attrs.items():
            av = _guess_attr(value)
            if av is not None:
                attr_map[name].CopyFrom(av)
        return
    in_args, out_args, attr_defs = sig
    derived = _derived_attrs(op, in_args, out_args, attrs)
    for name, attr_type, default in attr_defs:
        if name in derived:
            value = derived[name]
        elif attrs.get(name) is not None and not (
                attr_type == "tensor" and default is not None
                and _equals_default(op.type, name, default, attrs[name])):
            value = attrs[name]
        elif default is not None:
            attr_map[name].CopyFrom(_default(op.type, name, default))
            continue
        else:
            continue
        if attr_type == "tensor" and name == "value" and \
                attrs.get("_broadcast_from") is not None:  # a broadcast tf.constant
            attr_map[name].tensor.CopyFrom(make_tensor_proto(
                attrs["_broadcast_from"], dtype=attrs["dtype"], shape=value.shape))
        elif attr_type == "tensor" and name == "value" and \
                getattr(attrs.get("dtype"), "is_quantized", False):
            # a quantized constant's values are plain integers: the proto names its type
            attr_map[name].tensor.CopyFrom(make_tensor_proto(value, dtype=attrs["dtype"]))
        elif attr_type != "func":  # scopeflow has no functions
            _to_attr(value, attr_type, attr_map[name])


def _split_args(args, n_tensors, attrs):
    """Lengths of each (list) argument, given how many tensors there are."""
    counts = [None if (a[2] or a[3]) else 1 for a in args]
    unknown = [i for i, c in enumerate(counts) if c is None]
    if unknown:
        rest = n_tensors - sum(c for c in counts if c is not None)
        if len(unknown) == 1:
            counts[unknown[0]] = rest
        else:  # several lists of one length attr (ParallelDynamicStitch's indices, data)
            n = attrs.get(args[unknown[0]][2])
            n = rest // len(unknown) if not isinstance(n, int) else n
            for i in unknown:
                counts[i] = n
    return counts


def _derived_attrs(op, in_args, out_args, attrs):
    """Type and length attrs implied by the op's input and output tensors."""
    out = {}
    for args, tensors in ((out_args, op._outputs), (in_args, op._inputs)):
        if not args:
            continue
        counts = _split_args(args, len(tensors), attrs)
        pos = 0
        for (_, type_attr, number_attr, type_list_attr), n in zip(args, counts):
            group = tensors[pos:pos + n]
            pos += n
            if number_attr:
                out[number_attr] = n
            if type_attr and group:
                out[type_attr] = group[0].dtype.base_dtype
            if type_list_attr:
                out[type_list_attr] = [t.dtype.base_dtype for t in group]
    return out


def _to_attr(value, attr_type, av=None):
    """``value`` as an AttrValue of TF type ``attr_type`` (written into ``av`` if given)."""
    av = protos.AttrValue() if av is None else av
    if attr_type == "type":
        av.type = _dtypes.as_dtype(value).base_dtype.as_datatype_enum
    elif attr_type == "shape":
        shape_proto(value, av.shape)
    elif attr_type == "tensor":
        av.tensor.CopyFrom(make_tensor_proto(value))
    elif attr_type == "int":
        av.i = int(value)
    elif attr_type == "float":
        av.f = float(value)
    elif attr_type == "bool":
        av.b = bool(value)
    elif attr_type == "string":
        av.s = value.encode() if isinstance(value, str) else bytes(value)
    elif attr_type.startswith("list("):
        _fill_list(av.list, list(value), attr_type[5:-1])
    else:  # func attrs: scopeflow has no functions
        return None
    return av


def _fill_list(lst, values, item_type):
    if item_type == "int":
        lst.i.extend(int(v) for v in values)
    elif item_type == "float":
        lst.f.extend(float(v) for v in values)
    elif item_type == "bool":
        lst.b.extend(bool(v) for v in values)
    elif item_type == "string":
        lst.s.extend(v.encode() if isinstance(v, str) else bytes(v) for v in values)
    elif item_type == "type":
        lst.type.extend(_dtypes.as_dtype(v).base_dtype.as_datatype_enum for v in values)
    elif item_type == "shape":
        for v in values:
            lst.shape.add().CopyFrom(shape_proto(v))
    elif item_type == "tensor":
        for v in values:
            lst.tensor.add().CopyFrom(make_tensor_proto(v))


def _guess_attr(value):
    """An AttrValue for a scopeflow-only op's attr, typed from the Python value."""
    if value is None:
        return None
    if isinstance(value, _dtypes.DType):
        return _to_attr(value, "type")
    if isinstance(value, TensorShape):
        return _to_attr(value, "shape")
    if isinstance(value, np.ndarray):
        return _to_attr(value, "tensor")
    for py, kind in ((bool, "bool"), (int, "int"), (float, "float"), ((str, bytes), "string")):
        if isinstance(value, py):
            return _to_attr(value, kind)
    if isinstance(value, (list, tuple)):
        if any(_guess_attr(v) is None for v in value):
            return None  # a list of Python objects (datasets): not an attr TF can hold
        kinds = {type(_guess_attr(v).WhichOneof("value")) for v in value} if value else set()
        if value and len(kinds) == 1:
            first = _guess_attr(value[0]).WhichOneof("value")
            return _to_attr(value, f"list({first})")
        return _to_attr([], "list(int)")
    return None


# ── colocation (`_class`) ────────────────────────────────────────────────────────────
_UPDATE_SCOPE = re.compile(r"(?:^|/)update_(.+)/[^/]+$")
_WITH_DEPENDENCIES = re.compile(r"(?:^|/)control_dependency(?:_\d+)?$")


def _colocation_groups(ops):
    """op -> the op name it is colocated with, as TF1 records in ``_class``.

    scopeflow does not place ops, so this is reconstructed from TF1's structure: a
    variable's initializer, ``Assign`` and ``read``; optimizer slots with their variable;
    every op updating a variable through a ref input (``Assign*``, ``Apply*``,
    ``Scatter*``) and the ops in its ``update_<var>/`` scope; ``embedding_lookup``'s gather.
    """
    variables = {op.name: op for op in ops if op.type == "VariableV2"}
    by_name = {op.name: op for op in ops}
    groups = _variable_groups(variables, by_name)
    for op in ops:
        if op in groups:
            continue
        group = _group_of_op(op, groups, variables, by_name)
        if group is not None:
            groups[op] = group
    _group_scope_helpers(ops, groups)
    return groups


def _variable_groups(variables, by_name):
    """Each variable's group: a slot sits with its variable, a non-slot optimizer variable
    with the first variable it helps update, any other variable with itself."""
    groups = {}
    initialized = {name.split("/Initializer/")[0] for name in by_name if "/Initializer/" in name}
    for var in variables.values():  # creation order: a slot's variable comes first
        parent = var.name.rpartition("/")[0]
        while parent and parent not in variables:
            parent = parent.rpartition("/")[0]
        if parent:
            groups[var] = groups.get(variables[parent], parent)
        elif var.name in initialized:
            groups[var] = var.name
        else:  # an optimizer's non-slot variable (Adam's beta1_power) sits by the first var
            updated = _variables_updated_with(var, variables)
            if updated:
                groups[var] = groups.get(updated[0], updated[0].name)
                init = by_name.get(var.name + "/initial_value")
                if init is not None:
                    groups[init] = groups[var]
    return groups


def _group_of_op(op, groups, variables, by_name):
    """The group of a non-variable op, or None; ``groups`` holds every earlier op's."""
    inputs = op._inputs
    src = inputs[0]._op if inputs else None
    if src is not None and src.type == "VariableV2" and (
            0 in op._op_def.ref_inputs or op.name == src.name + "/read"):
        return groups.get(src, src.name)
    group = _group_by_variable_scope(op, groups, variables)
    if group is None and src is not None:
        group = _group_by_input(op, src, groups, by_name)
    if group is None and op.type == "Const" and op.name.endswith("_grad/Shape"):
        fwd = by_name.get(op.name[len("gradients/"):-len("_grad/Shape")])
        if fwd is not None and fwd.type == "GatherV2":
            group = groups.get(fwd)  # the gather gradient's params shape
    return group


def _group_by_variable_scope(op, groups, variables):
    """The group of the variable whose ``<var>/Initializer/`` or ``update_<var>/`` scope
    holds ``op``, or None."""
    head = op.name
    while "/" in head:
        head = head.rpartition("/")[0]
        var = variables.get(head)
        if var is not None and op.name.startswith(head + "/Initializer/"):
            return groups.get(var, var.name)
    m = _UPDATE_SCOPE.search(op.name)
    if m and m.group(1) in variables:
        var = variables[m.group(1)]
        return groups.get(var, var.name)
    return None


def _group_by_input(op, src, groups, by_name):
    """The group ``op`` takes from its first input ``src``, or None."""
    if op.type == "Identity" and _WITH_DEPENDENCIES.search(op.name):
        return groups.get(src, src.name)  # with_dependencies colocates with its input
    if op.type == "AddN" and op.name.startswith("gradients/"):
        return groups.get(src, src.name)  # TF sums gradients next to the first
    if op.type == "GatherV2" and src.type == "Identity" and src._inputs and \
            src._inputs[0]._op.type == "VariableV2" and (op.name + "/Identity") in by_name:
        var = src._inputs[0]._op
        return groups.get(var, var.name)  # embedding_lookup colocates
    return None


def _group_scope_helpers(ops, groups):
    """Add the ops made only for one grouped op in its scope to that op's group.

    A Const made for a colocated op inside its name scope (``GradientDescent/value``,
    ``embed/embedding/axis``) shares its group, as does a value computed only for an
    update in the same scope (Adam's ``Adam/mul`` for ``Adam/Assign``).
    """
    for op in reversed(ops):
        if op in groups or len(op._outputs) != 1:
            continue
        consumers = op._outputs[0]._consumers
        if len(consumers) != 1 or consumers[0] not in groups:
            continue
        user = consumers[0]
        if (op.type == "Const" and op.name.startswith(user.name + "/")) or (
                user.type == "Assign" and user._inputs[1] is op._outputs[0]
                and user.name != user._inputs[0]._op.name + "/Assign"
                and op.name.rpartition("/")[0] == user.name.rpartition("/")[0]):
            groups[op] = groups[user]


def _variables_updated_with(var, variables):
    """Variables whose ``Apply*`` update reads ``var`` (sorted by name), e.g. Adam's betas."""
    read = [c for c in var._outputs[0]._consumers if c.name == var.name + "/read"]
    if not read:
        return []
    updated = set()
    for user in read[0]._outputs[0]._consumers:
        if 0 in user._op_def.ref_inputs and user._inputs and user._inputs[0]._op is not var \
                and user._inputs[0]._op.type == "VariableV2":
            updated.add(user._inputs[0]._op)
    return sorted(updated, key=lambda v: v.name)
