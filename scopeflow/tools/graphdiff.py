"""Differences between two graphs as files: the nodes one has and the other lacks, and the
nodes both have whose op type, inputs, device or attrs differ (``scopeflow graphdiff``).

A graph is read from a ``MetaGraphDef`` (``.meta``, binary or text) or a ``GraphDef``
(``.pb`` binary, ``.pbtxt`` text). Nodes are matched by name. The report follows node
creation order (the first graph's order; a node only the second has comes after the
second's nearest earlier matched node), which is the order that decides unseeded random
ops' seeds: the first difference listed is where two programs' graphs start to part.
Tensor attrs are compared by value (dtype, shape, elements), not by how the proto encodes
them (``tensor_content`` or ``float_val``). The graphs' function libraries (TF's
``tf.data`` and ``tf.function`` bodies, which scopeflow builds in the graph) are not
compared: only the nodes of the graph itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError

from scopeflow.io import protos
from scopeflow.io.tensor_proto import make_ndarray

__all__ = ["load_nodes", "diff_graphs", "NodeDiff", "GraphDiff", "format_diff"]

_TEXT_SUFFIXES = (".pbtxt", ".txt", ".meta.txt", ".pbtext")
_MAX_VALUE_CHARS = 80


def _parse(data: bytes, message_type, text: bool):
    msg = message_type()
    if text:
        # a newer TF writes fields this proto set lacks (NodeDef.experimental_type)
        text_format.Parse(data.decode("utf-8"), msg, descriptor_pool=protos.POOL,
                          allow_unknown_field=True)
    else:
        msg.ParseFromString(data)
    return msg


def load_nodes(path) -> list:
    """The ``NodeDef``s of the graph in ``path``, in the file's (creation) order.

    ``.meta``: a ``MetaGraphDef``; any other name: a ``GraphDef``. Binary unless the name
    ends in ``.pbtxt``/``.txt``, or the bytes do not parse as binary but do as text.
    Raises ``OSError`` for an unreadable file, ``ValueError`` for one that is neither.
    """
    path = Path(path)
    data = path.read_bytes()
    is_meta = ".meta" in path.name
    message_type = protos.MetaGraphDef if is_meta else protos.GraphDef
    text_first = path.name.endswith(_TEXT_SUFFIXES)
    errors = []
    for text in ((True, False) if text_first else (False, True)):
        try:
            msg = _parse(data, message_type, text)
        except (DecodeError, text_format.ParseError, UnicodeDecodeError) as e:
            errors.append(f"{'text' if text else 'binary'}: {str(e).splitlines()[0][:120]}")
            continue
        graph_def = msg.graph_def if is_meta else msg
        if data.strip() and not graph_def.node and not msg.ListFields():
            errors.append(f"{'text' if text else 'binary'}: no fields")
            continue
        return list(graph_def.node)
    raise ValueError(f"{path}: not a {message_type.DESCRIPTOR.name} ({'; '.join(errors)})")


@dataclass
class NodeDiff:
    """One node's difference: ``kind`` is ``"missing"`` (only in the first graph),
    ``"extra"`` (only in the second) or ``"different"`` (``changes``: what differs)."""
    kind: str
    name: str
    op: str
    changes: list = field(default_factory=list)

    def as_dict(self) -> dict:
        d = {"kind": self.kind, "name": self.name, "op": self.op}
        if self.changes:
            d["changes"] = [{"what": w, "a": a, "b": b} for w, a, b in self.changes]
        return d


@dataclass
class GraphDiff:
    a_nodes: int
    b_nodes: int
    entries: list

    def count(self, kind: str) -> int:
        return sum(e.kind == kind for e in self.entries)

    @property
    def same(self) -> bool:
        return not self.entries

    def as_dict(self) -> dict:
        return {"a_nodes": self.a_nodes, "b_nodes": self.b_nodes,
                "missing": self.count("missing"), "extra": self.count("extra"),
                "different": self.count("different"),
                "nodes": [e.as_dict() for e in self.entries]}


def _input_name(s: str) -> str:
    # "x:0" and "x" are the same input; "^x" (a control input) stays distinct
    return s[:-2] if s.endswith(":0") else s


def _attr_key(value):
    """What identifies an attr's value: tensors by their elements, the rest by proto."""
    if value.HasField("tensor"):
        try:
            arr = make_ndarray(value.tensor)
        except (ValueError, TypeError, KeyError):
            return ("tensor-proto", value.tensor.SerializeToString(deterministic=True))
        if arr.dtype == object:
            return ("tensor", value.tensor.dtype, arr.shape, tuple(arr.ravel().tolist()))
        return ("tensor", value.tensor.dtype, arr.shape, np.ascontiguousarray(arr).tobytes())
    return ("proto", value.SerializeToString(deterministic=True))


def _show_attr(value) -> str:
    if value is None:
        return "(none)"
    if value.HasField("tensor"):
        try:
            arr = make_ndarray(value.tensor)
            body = np.array2string(arr, threshold=6, separator=", ").replace("\n", "")
            text = f"tensor {arr.dtype}{list(arr.shape)} {body}"
        except (ValueError, TypeError, KeyError):
            text = text_format.MessageToString(value, as_one_line=True)
    else:
        text = text_format.MessageToString(value, as_one_line=True)
    return text if len(text) <= _MAX_VALUE_CHARS else text[:_MAX_VALUE_CHARS - 3] + "..."


def _node_changes(a, b, ignore_attrs, compare_device) -> list:
    changes = []
    if a.op != b.op:
        changes.append(("op", a.op, b.op))
    ins_a = [_input_name(s) for s in a.input]
    ins_b = [_input_name(s) for s in b.input]
    if ins_a != ins_b:
        if len(ins_a) != len(ins_b):
            changes.append(("inputs", ", ".join(ins_a), ", ".join(ins_b)))
        else:
            changes.extend((f"input {i}", x, y)
                           for i, (x, y) in enumerate(zip(ins_a, ins_b)) if x != y)
    if compare_device and a.device != b.device:
        changes.append(("device", a.device or "(none)", b.device or "(none)"))
    for key in sorted(set(a.attr) | set(b.attr)):
        if key in ignore_attrs:
            continue
        va = a.attr[key] if key in a.attr else None
        vb = b.attr[key] if key in b.attr else None
        if va is None or vb is None or _attr_key(va) != _attr_key(vb):
            changes.append((f"attr {key}", _show_attr(va), _show_attr(vb)))
    return changes


def diff_graphs(a_nodes, b_nodes, ignore_attrs=(), compare_device=True) -> GraphDiff:
    """The differences from the nodes ``a_nodes`` to ``b_nodes`` (``NodeDef``s, creation
    order), ordered as the module docstring says."""
    ignore_attrs = set(ignore_attrs)
    a_index = {n.name: i for i, n in enumerate(a_nodes)}
    b_by_name = {n.name: n for n in b_nodes}
    keyed = []
    for i, node in enumerate(a_nodes):
        other = b_by_name.get(node.name)
        if other is None:
            keyed.append(((i, 0, 0), NodeDiff("missing", node.name, node.op)))
            continue
        changes = _node_changes(node, other, ignore_attrs, compare_device)
        if changes:
            keyed.append(((i, 0, 0), NodeDiff("different", node.name, node.op, changes)))
    last = -1
    for j, node in enumerate(b_nodes):
        if node.name in a_index:
            last = max(last, a_index[node.name])
        else:
            keyed.append(((last, 1, j), NodeDiff("extra", node.name, node.op)))
    keyed.sort(key=lambda kv: kv[0])
    return GraphDiff(len(a_nodes), len(b_nodes), [e for _, e in keyed])


_MARK = {"missing": "-", "extra": "+", "different": "~"}


def format_diff(diff: GraphDiff, a_label="a", b_label="b") -> list:
    """The report's lines: one per node (``-`` only in a, ``+`` only in b, ``~`` both,
    differing, with an indented line per difference), then a summary line."""
    lines = []
    for e in diff.entries:
        lines.append(f"{_MARK[e.kind]} {e.name} ({e.op})")
        for what, va, vb in e.changes:
            lines.append(f"    {what}: {va} -> {vb}")
    lines.append(f"{a_label}: {diff.a_nodes} nodes, {b_label}: {diff.b_nodes} nodes; "
                 f"{diff.count('missing')} only in {a_label}, {diff.count('extra')} only in "
                 f"{b_label}, {diff.count('different')} different")
    return lines
