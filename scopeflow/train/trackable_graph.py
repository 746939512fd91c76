"""The dependency graph of an object-based checkpoint (TF's ``TrackableObjectGraph``).

``tf.train.Checkpoint`` saves objects, not names: each value's checkpoint key is the path
of attribute names from the root to it (``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``),
and the checkpoint holds the graph of objects itself under ``_CHECKPOINTABLE_OBJECT_GRAPH``
(a serialized ``TrackableObjectGraph``), so a restore matches objects by walking the same
attribute names from the root. This module walks Python objects the way TF walks its
``Trackable`` objects and builds / matches that proto.

What is tracked (TF tracks ``Trackable`` subclasses; scopeflow has no such base class, so it
tracks by kind):

* variables (``tf.Variable``): leaves holding one value, ``VARIABLE_VALUE``;
* TF1 optimizers: their non-slot variables (``beta1_power``...) as children named by
  their names, and their slots (``m``, ``v``...) as slot variables of the variables they
  belong to (``<var>/.OPTIMIZER_SLOT/<optimizer>/m``), as TF does;
* lists, tuples and dicts: children named by index / key (TF's ``ListWrapper`` and
  ``_DictWrapper``);
* ``tf.train.Checkpoint`` objects and every other Python object with attributes that is
  not part of scopeflow's machinery (user classes, ``tf.Module``, ``tf.layers`` layers, of
  which the private attributes are skipped): their attributes, in assignment order (the
  order of ``vars(obj)``, TF's ``AutoTrackable`` order). Attributes holding anything else
  (numbers, strings, tensors, graphs, functions) are not tracked.

Node ids are TF's: breadth first from the root (id 0), children in order, then the slot
variables (per optimizer, slot names sorted, then variables in node order).
"""

from __future__ import annotations

import types

from scopeflow.framework.graph import get_default_graph
from scopeflow.io.protos import TrackableObjectGraph
from scopeflow.state.variables import Variable
from scopeflow.train.optimizer import Optimizer

__all__ = ["OBJECT_GRAPH_KEY", "ObjectGraph", "escape_local_name", "trackable_children",
           "match_objects"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
_ATTRIBUTES = ".ATTRIBUTES"
_SLOT_MARKER = ".OPTIMIZER_SLOT"

# Types that never hold checkpointable state however many attributes they have.
_NOT_TRACKED = (type, types.ModuleType, types.FunctionType, types.MethodType,
                types.BuiltinFunctionType, str, bytes, int, float, complex, bool,
                type(None))


def escape_local_name(name: str) -> str:
    """TF's escaping of one path component: ``.`` becomes ``..`` and ``/`` becomes ``./``
    (so ``.ATTRIBUTES`` and ``/`` can never come from an attribute name)."""
    return name.replace(".", "..").replace("/", "./")


def _path_key(path) -> str:
    return "/".join(escape_local_name(p) for p in path)


def _is_module_like(obj) -> bool:
    """A ``tf.Module`` (scopeflow's or a subclass), a ``tf.layers`` layer, or another object
    that says it is trackable."""
    return any(c.__name__ == "Module" for c in type(obj).__mro__) or \
        _is_layer(obj) or hasattr(obj, "_checkpoint_children")


def _is_layer(obj) -> bool:
    """A ``tf.layers`` layer: its weights are attributes (``kernel``, ``bias``) beside the
    private bookkeeping lists (``_trainable_weights``), which TF does not save."""
    return hasattr(obj, "_trainable_weights") and hasattr(obj, "_non_trainable_weights")


def is_trackable(obj) -> bool:
    """Whether ``obj`` becomes a node of the object graph when an attribute holds it."""
    if isinstance(obj, (Variable, Optimizer, list, tuple, dict)):
        return True
    if isinstance(obj, _NOT_TRACKED) or not hasattr(obj, "__dict__"):
        return False
    if _is_module_like(obj):
        return True
    # scopeflow's own machinery (graphs, sessions, tensors, ops) is never tracked.
    return not type(obj).__module__.startswith("scopeflow.")


def _optimizer_children(opt: Optimizer) -> list:
    from_graph = [(name, v) for (name, graph), v in opt._non_slot_dict.items()
                  if graph is get_default_graph()]
    return sorted(from_graph, key=lambda t: t[0])


def _dict_children(d: dict) -> list:
    out = []
    for key, value in d.items():
        if not is_trackable(value):
            continue
        if not isinstance(key, str):
            raise ValueError(
                f"Unable to save the object {d} (a dictionary wrapper constructed "
                "automatically on attribute assignment). The wrapped dictionary contains a "
                "non-string key which maps to a trackable object or mutable data structure.")
        out.append((key, value))
    return out


def trackable_children(obj) -> list:
    """``[(local name, child)]`` of one tracked object, in TF's order."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Optimizer):
        return _optimizer_children(obj)
    if isinstance(obj, dict):
        return _dict_children(obj)
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if is_trackable(v)]
    custom = getattr(obj, "_checkpoint_children", None)
    if callable(custom):
        return list(custom())
    ignored = getattr(type(obj), "_TF_MODULE_IGNORED_PROPERTIES", ())
    layer = _is_layer(obj)
    return [(k, v) for k, v in vars(obj).items()
            if k not in ignored and v is not obj and not (layer and k.startswith("_"))
            and is_trackable(v)]


class ObjectGraph:
    """The tracked objects reachable from ``root``: node ids, paths, checkpoint keys.

    ``nodes[i]`` is the object of node ``i``; ``children[i]`` its ``(name, node id)``
    references; ``slots[i]`` the ``(original node id, slot name, slot node id)`` triples of
    an optimizer node; ``keys[i]`` the checkpoint key of a variable node.
    """

    def __init__(self, root):
        self.nodes: list = [root]
        self.children: list = []
        self.slots: dict = {}
        self.keys: dict = {}
        self._ids = {id(root): 0}
        self._paths = {0: ()}
        self._walk()
        self._add_slot_variables()
        for i, obj in enumerate(self.nodes):
            if isinstance(obj, Variable) and i not in self.keys:
                self.keys[i] = f"{_path_key(self._paths[i])}/{_ATTRIBUTES}/{VARIABLE_VALUE}"

    def _node_id(self, obj, path) -> int:
        nid = self._ids.get(id(obj))
        if nid is None:
            nid = self._ids[id(obj)] = len(self.nodes)
            self.nodes.append(obj)
            self._paths[nid] = path
        return nid

    def _walk(self):
        i = 0
        while i < len(self.nodes):
            path = self._paths[i]
            self.children.append([(name, self._node_id(child, (*path, name)))
                                  for name, child in trackable_children(self.nodes[i])])
            i += 1

    def _add_slot_variables(self):
        variables = [(i, v) for i, v in enumerate(self.nodes) if isinstance(v, Variable)]
        for opt_id, opt in enumerate(list(self.nodes)):
            if not isinstance(opt, Optimizer):
                continue
            refs = self.slots[opt_id] = []
            for slot_name in opt.get_slot_names():
                for var_id, var in variables:
                    slot = opt.get_slot(var, slot_name)
                    if slot is None:
                        continue
                    new = id(slot) not in self._ids
                    slot_id = self._node_id(slot, ())
                    if new:
                        self.children.append([])
                        self.keys[slot_id] = (
                            f"{_path_key(self._paths[var_id])}/{_SLOT_MARKER}/"
                            f"{_path_key(self._paths[opt_id])}/{escape_local_name(slot_name)}"
                            f"/{_ATTRIBUTES}/{VARIABLE_VALUE}")
                    refs.append((var_id, slot_name, slot_id))

    def variables(self) -> list:
        """``[(checkpoint key, variable)]`` in node order."""
        return [(self.keys[i], v) for i, v in enumerate(self.nodes) if i in self.keys]

    def _with_values(self) -> set:
        """Nodes whose subtree holds a value (TF's ``has_checkpoint_values``)."""
        have = set(self.keys)
        changed = True
        while changed:
            changed = False
            for i, refs in enumerate(self.children):
                linked = [c for _, c in refs] + [s for _, _, s in self.slots.get(i, ())]
                if i not in have and any(c in have for c in linked):
                    have.add(i)
                    changed = True
        return have

    def to_proto(self) -> TrackableObjectGraph:
        graph = TrackableObjectGraph()
        have = self._with_values()
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=name)
            if i in self.keys:
                node.attributes.add(name=VARIABLE_VALUE, full_name=obj.op.name,
                                    checkpoint_key=self.keys[i])
            for orig, slot_name, slot_id in self.slots.get(i, ()):
                node.slot_variables.add(original_variable_node_id=orig, slot_name=slot_name,
                                        slot_variable_node_id=slot_id)
            node.has_checkpoint_values.value = i in have
        return graph


def match_objects(root, graph: TrackableObjectGraph) -> dict:
    """``{checkpoint node id: Python object}``: the checkpoint's objects found by walking
    the same local names from ``root`` (then optimizer slots by their variables)."""
    matched = {0: root}
    queue = [0]
    while queue:
        nid = queue.pop(0)
        present = dict(trackable_children(matched[nid]))
        for ref in graph.nodes[nid].children:
            child = present.get(ref.local_name)
            if child is not None and ref.node_id not in matched:
                matched[ref.node_id] = child
                queue.append(ref.node_id)
    for nid, obj in list(matched.items()):
        if not isinstance(obj, Optimizer):
            continue
        for ref in graph.nodes[nid].slot_variables:
            var = matched.get(ref.original_variable_node_id)
            slot = obj.get_slot(var, ref.slot_name) if isinstance(var, Variable) else None
            if slot is not None:
                matched.setdefault(ref.slot_variable_node_id, slot)
    return matched
