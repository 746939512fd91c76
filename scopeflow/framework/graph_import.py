"""GraphDef import (``tf.import_graph_def``): each node becomes a scopeflow op of its type."""

from __future__ import annotations

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework._tf_op_signatures import SIGNATURES
from scopeflow.framework.graph import Tensor, get_default_graph
from scopeflow.framework.opdef import REGISTRY
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import (
    BadTensorProto,
    FillBudget,
    broadcast_from,
    describe,
    tensor_value,
)

__all__ = ["import_graph_def"]


# What one import may allocate for constants listing two values or more, fewer than their
# shape holds (one value, or none, is a zero-stride view that takes no memory).
_FILL_LIMIT = 64 << 20


def _tensor_of(node, attr, proto, fills):
    """``proto``, the value of ``node``'s tensor ``attr``: ``tensor_value``'s read-only array,
    or TF's error naming the node."""
    try:
        return tensor_value(proto, fills)
    except BadTensorProto as e:
        if e.of_shape:  # TF's shape inference refuses it at import, in these words
            raise ValueError(f"{e} for '{{{{node {node.name}}}}} = {node.op}[{attr}=<TensorProto: "
                             f"{describe(proto)}>]()' with input shapes: .") from None
        # TF's kernel refuses it when it first runs; scopeflow binds constants into the graph
        # as it imports them, so it refuses them then.
        raise ValueError(f"{e}\n\t [[{{{{node {node.name}}}}}]]") from None


def _dtype_of(node, attr, enum):
    try:
        return _dtypes.as_dtype(enum)
    except TypeError:
        kind = protos.TensorProto.DESCRIPTOR.fields_by_name["dtype"].enum_type
        known = kind.values_by_number.get(enum)
        raise ValueError(f"Node '{node.name}': attr '{attr}' is DataType "
                         f"{known.name if known else enum}, which scopeflow has no dtype "
                         "for") from None


def _from_attr(node, name, fills):
    """``node``'s attr ``name`` as the Python value scopeflow's op attrs hold."""
    av = node.attr[name]
    kind = av.WhichOneof("value")
    if kind == "type":
        return _dtype_of(node, name, av.type)
    if kind == "shape":
        return _from_shape(av.shape)
    if kind == "tensor":
        return _tensor_of(node, name, av.tensor, fills)
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
                    return [_dtype_of(node, name, t) for t in items]
                if field == "shape":
                    return [_from_shape(s) for s in items]
                if field == "tensor":
                    return [_tensor_of(node, name, t, fills) for t in items]
                return list(items)
        return []
    return None


_CONST_SIGNATURE = "Op<name=Const; signature= -> output:dtype; attr=value:tensor; attr=dtype:type>"
# TF's names of an AttrValue's kinds, where they differ from the proto's field names.
_ATTR_KINDS = {"i": "int", "f": "float", "b": "bool", "s": "string"}


def _op_signature(op_type) -> str:
    """TF's ``Op<name=...; signature=...; attr=...>`` text of an op (allowed values and
    defaults left out), from TF's signatures."""
    inputs, outputs, attrs = SIGNATURES[op_type]

    def args(items):
        return ", ".join(f"{name}:{type_attr or number or type_list or 'type'}"
                         for name, type_attr, number, type_list in items)

    text = f"Op<name={op_type}; signature={args(inputs)} -> {args(outputs)}"
    return text + "".join(f"; attr={name}:{kind}" for name, kind, _ in attrs) + ">"


def _check_required_attrs(node, op_def):
    """TF refuses a NodeDef without an attr its op has no default for; scopeflow checks
    those its own op needs too (a missing one reached the shape rule as None)."""
    tf_attrs = SIGNATURES.get(node.op)
    if tf_attrs is None:
        return
    required = {name for name, _, default in tf_attrs[2] if default is None}
    missing = sorted(k for k, default in op_def.attrs.items()
                     if default is None and k in required and k not in node.attr)
    if missing:
        s = "s" if len(missing) > 1 else ""
        names = ", ".join(f"'{k}'" for k in missing)
        raise ValueError(f"NodeDef missing attr{s} {names} from {_op_signature(node.op)}; "
                         f"NodeDef: {{{{node {node.name}}}}}")


def _check_attr_kinds(node):
    """Each attr holds a value of the kind TF's op declares (an empty AttrValue, or an int
    where a type belongs, reached the op's rules as None or an int)."""
    for name, kind, _ in SIGNATURES[node.op][2]:
        if name not in node.attr:
            continue
        field = node.attr[name].WhichOneof("value")
        got = _ATTR_KINDS.get(field, field)
        if got is None:
            problem = f"AttrValue missing value with expected type '{kind}'"
        elif got != kind and not (got == "list" and kind.startswith("list(")) and \
                kind not in ("func", "any") and got != "placeholder":
            problem = f"AttrValue had value with type '{got}' when '{kind}' expected"
        else:
            continue
        raise ValueError(f"{problem}\n\t for attr '{name}'\n\t; NodeDef: "
                         f"{{{{node {node.name}}}}}; {_op_signature(node.op)}")


def _check_input_count(node, inputs):
    """As many data inputs as TF's signature asks for (given the node's count attrs)."""
    expected = []
    for name, type_attr, number_attr, type_list_attr in SIGNATURES[node.op][0]:
        if type_list_attr:
            if type_list_attr not in node.attr:
                return
            expected += [_dtypes.type_string(t) if t in _dtypes._BY_ENUM else str(t)
                         for t in node.attr[type_list_attr].list.type]
            continue
        kind = name
        if type_attr in node.attr and node.attr[type_attr].type in _dtypes._BY_ENUM:
            kind = _dtypes.type_string(node.attr[type_attr].type)
        if number_attr:
            if number_attr not in node.attr:
                return
            expected += [kind] * node.attr[number_attr].i
        else:
            expected.append(kind)
    if len(expected) != len(inputs):
        raise ValueError(f"NodeDef expected inputs '{', '.join(expected)}' do not match "
                         f"{len(inputs)} inputs specified; {_op_signature(node.op)}; NodeDef: "
                         f"{{{{node {node.name}}}}}")


def _check_const_dtype(node, attrs):
    """TF's Const kernel refuses a value whose dtype is not the node's ``dtype`` (when it
    first runs; scopeflow, which binds the value now, at import)."""
    for name, kind in (("value", "tensor"), ("dtype", "type")):
        if name not in node.attr:
            raise ValueError(f"NodeDef missing attr '{name}' from {_CONST_SIGNATURE}; NodeDef: "
                             f"{{{{node {node.name}}}}}")
        got = node.attr[name].WhichOneof("value")
        if got != kind:
            raise ValueError(f"AttrValue had value with type '{_ATTR_KINDS.get(got, got)}' when "
                             f"'{kind}' expected\n\t for attr '{name}'\n\t; NodeDef: "
                             f"{{{{node {node.name}}}}}; {_CONST_SIGNATURE}")
    value, dtype = attrs["value"], attrs["dtype"]
    have = _dtypes.as_dtype(value.dtype)
    if have is not dtype.base_dtype:
        names = [_dtypes.type_string(d) for d in (have, dtype)]
        raise ValueError(f"Type mismatch between value ({names[0]}) and dtype ({names[1]})"
                         f"\n\t [[{{{{node {node.name}}}}}]]")


def _from_shape(proto):
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


# TF1's while-loop frames (Switch/Merge conds import: ops.control_flow.dataflow_ops), TF2's
# functional control flow, and scopeflow's own (whose sub-graphs a GraphDef does not carry).
_WHILE_LOOP_OPS = frozenset({
    "Enter", "Exit", "NextIteration", "LoopCond", "RefEnter", "RefExit", "RefNextIteration"})
_CONTROL_FLOW_OPS = _WHILE_LOOP_OPS | {
    "If", "StatelessIf", "While", "StatelessWhile", "Cond", "WhileLoop", "WhileLoopGrad",
    "LoopVar"}


def _tensor_name(spec):
    """``(node name, output index)`` of an input as TF's ``ParseTensorName`` reads it: the
    index is the digits after the last ``:`` (0 when none); anything else (``x:-1``, an
    index past int32) is part of the node's name."""
    name, colon, index = spec.rpartition(":")
    if colon and index.isascii() and index.isdigit() and int(index) < 2 ** 31:
        return name, int(index)
    return spec, 0


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
                src = by_name.get(_tensor_name(inp.lstrip("^"))[0])
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
    type, with its attrs; ``ValueError`` names a node whose op type is not registered, and
    is TF's error for a graph TF refuses (two nodes of one name, an input naming no
    output, a constant whose TensorProto does not hold what its shape declares).

    Tensor attrs are read as TF's runtime reads them (``io.tensor_proto.tensor_value``): a
    constant listing one value for a large shape (a splat) stays a read-only zero-stride
    view until an op computes from it, so a file never costs more memory than it holds
    (constants padded from two values or more: 64 MiB an import at most).
    """
    if isinstance(graph_def, bytes):
        graph_def = protos.GraphDef.FromString(graph_def)
    elif not isinstance(graph_def, protos.GraphDef):
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
    graph = get_default_graph()
    input_map = {(k if ":" in k or k.startswith("^") else k + ":0"): v
                 for k, v in (input_map or {}).items()}
    _check_nodes(graph_def.node)
    importer = _Importer(graph, input_map)
    with graph.name_scope(name if name is not None else "import") as scope:
        for node in _topological(list(graph_def.node)):
            importer.import_node(node, scope)
    if return_elements is None:
        return None
    return importer.return_elements(return_elements)


def _check_nodes(nodes):
    """TF's checks of the whole GraphDef before any node is imported: unique names, then
    op types scopeflow can build."""
    seen = set()
    for node in nodes:  # TF checks this first, before the nodes' ops
        if node.name in seen:
            raise ValueError(f"Node '{node.name}' is not unique")
        seen.add(node.name)
    for node in nodes:
        if node.op in _WHILE_LOOP_OPS:
            raise NotImplementedError(
                f"import_graph_def: node '{node.name}' (op {node.op}) is part of a TF1 while "
                "loop; while loops in imported GraphDefs are not supported yet (conds, as "
                "Switch/Merge, are). Build the model in Python and restore its checkpoint "
                "instead.")
        if node.op in _CONTROL_FLOW_OPS:
            raise NotImplementedError(
                f"import_graph_def of a graph with control flow (node '{node.name}', op "
                f"{node.op}) is not supported: scopeflow's tf.cond and tf.while_loop hold their "
                "branches and bodies as sub-graphs built by Python, which a GraphDef does not "
                "carry. Build the model in Python and restore its checkpoint instead.")
        if node.op not in REGISTRY:
            raise ValueError(f"Op type not registered '{node.op}' (node '{node.name}'): "
                             "scopeflow cannot run it")


class _Importer:
    """One import's state: the ops created so far by node name, the inputs mapped in, and
    the memory budget of the constants it pads."""

    def __init__(self, graph, input_map):
        self.graph = graph
        self.input_map = input_map
        self.created = {}
        self.fills = FillBudget(_FILL_LIMIT)

    def tensor_for(self, spec, consumer):
        src, index = _tensor_name(spec)
        key = f"{src}:{index}"
        if key in self.input_map:
            return self.graph.as_graph_element(self.input_map[key])
        op = self.created.get(src)
        if op is None:
            raise ValueError(f"Node '{consumer}': input '{spec}' is not in the graph_def")
        if index >= len(op._outputs):
            raise ValueError(f"Node '{consumer}': Connecting to invalid output {index} of "
                             f"source node {src} which has {len(op._outputs)} outputs.")
        return op._outputs[index]

    def import_node(self, node, scope):
        """Create ``node``'s op under ``scope`` (its inputs were imported before it)."""
        graph = self.graph
        op_def = REGISTRY[node.op]
        data_inputs = [i for i in node.input if not i.startswith("^")]
        attrs = self._attrs(node, op_def, data_inputs)
        inputs = [self.tensor_for(i, node.name) for i in data_inputs]
        full_name = graph.unique_name(node.name)
        if full_name != scope + node.name:
            raise ValueError(f"Node name '{node.name}' clashes with another imported node")
        try:
            op = op_def.create(inputs, attrs, name=full_name + "/", graph=graph)
        except (IndexError, KeyError, AttributeError) as e:
            # An attr value no op of scopeflow's or TF's builders would make (``_attrs``
            # checks what TF's NodeDef validation does).
            raise ValueError(f"Node '{node.name}' ({node.op}) cannot be imported: its "
                             f"attrs are malformed ({type(e).__name__}: {e})") from None
        self._add_control_inputs(op, node)
        if node.device:
            op._device = node.device
        for t in op._outputs:  # ref outputs refer to the variable they come from
            if t.dtype._is_ref_dtype:
                t._ref_key = op.name if node.op in ("VariableV2", "Variable") else \
                    op._inputs[0]._ref_key
        self.created[node.name] = op

    def _attrs(self, node, op_def, data_inputs):
        """``node``'s attrs as its op takes them, after TF's NodeDef validation."""
        if node.op != "Const" and node.op in SIGNATURES:
            _check_attr_kinds(node)
            _check_input_count(node, data_inputs)
        _check_required_attrs(node, op_def)
        attrs = {k: _from_attr(node, k, self.fills) for k in op_def.attrs if k in node.attr}
        if node.op == "Const":
            _check_const_dtype(node, attrs)
            # re-exported as TF wrote it
            attrs["_broadcast_from"] = broadcast_from(node.attr["value"].tensor)
        return attrs

    def _add_control_inputs(self, op, node):
        for ctrl in node.input:
            if ctrl.startswith("^"):
                target = self.input_map.get(ctrl)
                target = self.created.get(ctrl[1:]) if target is None else target
                if target is None:
                    raise ValueError(f"Node '{node.name}': input '{ctrl}' is not in the "
                                     "graph_def")
                op._add_control_input(target.op if isinstance(target, Tensor) else target)

    def return_elements(self, specs):
        out = []
        for spec in specs:
            if ":" in spec:
                out.append(self.tensor_for(spec, "return_elements"))
            elif spec in self.created:
                out.append(self.created[spec])
            else:
                raise ValueError(f"Requested return_element '{spec}' not found in graph_def.")
        return out
