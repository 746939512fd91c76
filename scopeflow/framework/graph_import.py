"""GraphDef import (``tf.import_graph_def``): each node becomes a scopeflow op of its type."""

from __future__ import annotations

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.graph import Tensor, get_default_graph
from scopeflow.framework.opdef import REGISTRY
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import broadcast_from, make_ndarray

__all__ = ["import_graph_def"]


def _from_attr(av):
    """An AttrValue as the Python value scopeflow's op attrs hold."""
    kind = av.WhichOneof("value")
    if kind == "type":
        return _dtypes.as_dtype(av.type)
    if kind == "shape":
        return _from_shape(av.shape)
    if kind == "tensor":
        arr = make_ndarray(av.tensor)
        arr.setflags(write=False)
        return arr
    if kind == "s":
        try:
            return av.s.decode()
        except UnicodeDecodeError:
            return av.s
    if kind in ("i", "f", "b"):
        return getattr(av, kind)
    if kind == "list":
        lst = av.list
        for field in ("i", "f", "b", "s", "type", "shape", "tensor"):
            items = getattr(lst, field)
            if len(items):
                if field == "s":
                    return [s.decode() for s in items]
                if field == "type":
                    return [_dtypes.as_dtype(t) for t in items]
                if field == "shape":
                    return [_from_shape(s) for s in items]
                if field == "tensor":
                    return [make_ndarray(t) for t in items]
                return list(items)
        return []
    return None


def _from_shape(proto):
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


# TF1's control-flow ops, and scopeflow's (whose sub-graphs a GraphDef does not carry).
_CONTROL_FLOW_OPS = frozenset({
    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "RefSwitch", "RefMerge",
    "RefEnter", "RefExit", "RefNextIteration", "If", "StatelessIf", "While", "StatelessWhile",
    "Cond", "WhileLoop", "WhileLoopGrad", "LoopVar"})


def _topological(nodes):
    """The nodes, inputs first (a GraphDef may list them in any order)."""
    by_name = {n.name: n for n in nodes}
    order, state = [], {}
    for root in nodes:
        if root.name in state:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                state[node.name] = 2
                order.append(node)
                continue
            if state.get(node.name) == 2:
                continue
            if state.get(node.name) == 1:
                raise ValueError(f"GraphDef has a cycle through node '{node.name}' (while loops "
                                 "are not supported by import_graph_def)")
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                src = by_name.get(inp.lstrip("^").split(":")[0])
                if src is not None and state.get(src.name) != 2:
                    stack.append((src, False))
    return order


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports a ``GraphDef`` into the default graph (``tf.import_graph_def``).

    Args:
      graph_def: a ``GraphDef`` (scopeflow's or TensorFlow's message, or its bytes).
      input_map: ``{"name:i" or "^name": Tensor/Operation}`` replacing those inputs.
      return_elements: names (``op`` -> Operation, ``op:i`` -> Tensor) to return.
      name: prefix of the imported names (default ``"import"``; ``""`` for none).

    Returns the ``return_elements`` (or None). Each node becomes a scopeflow op of the same
    type, with its attrs; ``ValueError`` names a node whose op type is not registered.
    """
    if isinstance(graph_def, bytes):
        graph_def = protos.GraphDef.FromString(graph_def)
    elif not isinstance(graph_def, protos.GraphDef):
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
    graph = get_default_graph()
    input_map = {(k if ":" in k or k.startswith("^") else k + ":0"): v
                 for k, v in (input_map or {}).items()}
    for node in graph_def.node:
        if node.op in _CONTROL_FLOW_OPS:
            raise NotImplementedError(
                f"import_graph_def of a graph with control flow (node '{node.name}', op "
                f"{node.op}) is not supported: scopeflow's tf.cond and tf.while_loop hold their "
                "branches and bodies as sub-graphs built by Python, which a GraphDef does not "
                "carry. Build the model in Python and restore its checkpoint instead.")
        if node.op not in REGISTRY:
            raise ValueError(f"Op type not registered '{node.op}' (node '{node.name}'): "
                             "scopeflow cannot run it")
    created = {}

    def tensor_for(spec, consumer):
        src, _, index = spec.partition(":")
        key = f"{src}:{index or 0}"
        if key in input_map:
            return graph.as_graph_element(input_map[key])
        op = created.get(src)
        if op is None:
            raise ValueError(f"Node '{consumer}': input '{spec}' is not in the graph_def")
        return op._outputs[int(index or 0)]

    with graph.name_scope(name if name is not None else "import") as scope:
        for node in _topological(list(graph_def.node)):
            op_def = REGISTRY[node.op]
            attrs = {k: _from_attr(node.attr[k]) for k in op_def.attrs if k in node.attr}
            if node.op == "Const" and "value" in node.attr:  # re-exported as TF wrote it
                attrs["_broadcast_from"] = broadcast_from(node.attr["value"].tensor)
            inputs = [tensor_for(i, node.name) for i in node.input if not i.startswith("^")]
            full_name = graph.unique_name(node.name)
            if full_name != scope + node.name:
                raise ValueError(f"Node name '{node.name}' clashes with another imported node")
            op = op_def.create(inputs, attrs, name=full_name + "/", graph=graph)
            for ctrl in node.input:
                if ctrl.startswith("^"):
                    target = input_map.get(ctrl)
                    target = created[ctrl[1:]] if target is None else target
                    op._add_control_input(target.op if isinstance(target, Tensor) else target)
            if node.device:
                op._device = node.device
            for t in op._outputs:  # ref outputs refer to the variable they come from
                if t.dtype._is_ref_dtype:
                    t._ref_key = op.name if node.op in ("VariableV2", "Variable") else \
                        op._inputs[0]._ref_key
            created[node.name] = op
    if return_elements is None:
        return None
    out = []
    for spec in return_elements:
        if ":" in spec:
            out.append(tensor_for(spec, "return_elements"))
        elif spec in created:
            out.append(created[spec])
        else:
            raise ValueError(f"Requested return_element '{spec}' not found in graph_def.")
    return out
