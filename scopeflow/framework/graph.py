"""The graph IR: ``Graph``, ``Operation``, ``Tensor``, naming, scopes and collections.

Nothing here runs a kernel. A ``Graph`` is append-only and ops may only consume tensors
that already exist, so creation order is a topological order (plans and gradient walks
rely on it). Names follow TF1's ``unique_name`` rules exactly, because names are the
checkpoint format.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import TYPE_CHECKING

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import func_graph
from scopeflow.framework.context import CONTEXT, GraphState, get_default_session, pushed
from scopeflow.framework.device_functions import (
    Colocation,
    initial_device,
    needs_resolution,
    resolve_device,
)
from scopeflow.framework.device_spec import merge_devices
from scopeflow.framework.graph_def import GRAPH_DEF_VERSION, graph_to_graph_def
from scopeflow.framework.object_identity import Reference
from scopeflow.framework.properties import read_only
from scopeflow.framework.registry import OP_TYPES
from scopeflow.framework.sites import user_site
from scopeflow.framework.suggest import close_names, did_you_mean
from scopeflow.framework.tensor_shape import TensorShape, as_shape, shape_str
from scopeflow.io import protos

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Graph", "Operation", "Tensor", "GraphKeys", "get_default_graph", "reset_default_graph",
    "name_scope", "control_dependencies", "device", "colocate_with", "add_to_collection",
    "add_to_collections", "get_collection", "get_collection_ref", "convert_to_tensor",
    "register_tensor_conversion_function", "get_name_scope", "NodeDef", "GraphGrowthWarning",
    "init_scope", "op_scope", "container",
]

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class GraphGrowthWarning(UserWarning):
    """The graph keeps growing between ``Session.run`` calls (ops built in a loop)."""


class GraphKeys:
    """Standard collection names, with TensorFlow's key strings."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES
    _VARIABLE_COLLECTIONS = [GLOBAL_VARIABLES, LOCAL_VARIABLES, METRIC_VARIABLES,
                             MODEL_VARIABLES, TRAINABLE_VARIABLES, MOVING_AVERAGE_VARIABLES,
                             CONCATENATED_VARIABLES, TRAINABLE_RESOURCE_VARIABLES]
    _STREAMING_MODEL_PORTS = "streaming_model_ports"


# ── Tensor ───────────────────────────────────────────────────────────────────────────
class Tensor:
    """A symbolic handle to one output of an ``Operation``.

    Tensors compare and hash by identity (TF1's ``==``); arithmetic operators build ops
    (they are installed by ``scopeflow.ops.math_ops``).
    """

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "_name", "_ref_key",
                 "__weakref__")
    # NumPy must defer to our operators: ``np_array + tensor`` builds an op.
    __array_priority__ = 100
    __array_ufunc__ = None

    def __init__(self, op: Operation, value_index: int, dtype: _dtypes.DType,
                 shape: TensorShape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape
        self._consumers: list[Operation] = []
        self._name = f"{op.name}:{value_index}"
        self._ref_key = None  # for ref-typed outputs: the variable this output refers to

    op = read_only("_op")
    value_index = read_only("_value_index")
    dtype = read_only("_dtype")
    name = read_only("_name")
    graph = read_only("_op._graph")
    device = read_only("_op.device")
    shape = read_only("_shape")

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape; raises ``ValueError`` when it contradicts it."""
        shape = as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(_merge_error(self._shape, shape))
        self._shape = self._shape.merge_with(shape)

    def consumers(self) -> list[Operation]:
        return list(self._consumers)

    def ref(self) -> Reference:
        """A hashable handle comparing by this tensor's identity (TF's ``Tensor.ref()``)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        """TF's deprecated name of ``ref()``."""
        return Reference(self)

    def eval(self, feed_dict=None, session=None) -> np.ndarray:
        """The value of this tensor in ``session`` (default: the default session)."""
        return _run_in_session(self, feed_dict, session, "eval")

    def _as_node_def_input(self) -> str:
        return self._op.name if self._value_index == 0 else self._name

    def _shape_as_list(self):
        return None if self._shape.ndims is None else self._shape.as_list()

    # TF1 graph-mode tensors are not Python values.
    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not "
                        "None:` instead of `if t:` to test if a tensor is defined, and use "
                        "TensorFlow ops such as tf.cond to execute subgraphs conditioned on the "
                        "value of a tensor.")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please "
                        "call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. Run it in a "
            "Session (sess.run(t) or t.eval()) to get its value.")

    def __repr__(self):
        return f"<tf.Tensor '{self._name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        if self._shape.ndims is None:  # as TF: no shape at all when the rank is unknown
            return f'Tensor("{self._name}", dtype={self._dtype.name})'
        return f'Tensor("{self._name}", shape={self._shape}, dtype={self._dtype.name})'

    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other


def _merge_error(a: TensorShape, b: TensorShape) -> str:
    """TF's C++ shape-merge message (``Dimension 0 in both shapes must be equal...``)."""
    da, db = a.as_tuple(), b.as_tuple()
    if len(da) != len(db):
        return f"Shapes must be equal rank, but are {len(da)} and {len(db)}"
    i = next(i for i, (x, y) in enumerate(zip(da, db)) if x is not None and y is not None
             and x != y)
    return (f"Dimension {i} in both shapes must be equal, but are {da[i]} and {db[i]}. "
            f"Shapes are {shape_str(a)} and {shape_str(b)}.")


# TF's texts, word for word (``Tensor.eval``/``Operation.run`` without a default session).
_NO_SESSION = {
    "eval": "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`",
    "run": "Cannot execute operation using `run()`: No default session is registered. Use "
           "`with sess.as_default():` or pass an explicit session to `run(session=sess)`",
}
_WRONG_GRAPH = {
    "eval": "Cannot use the given session to evaluate tensor: the tensor's graph is different "
            "from the session's graph.",
    "run": "Cannot use the given session to execute operation: the operation's graph is "
           "different from the session's graph.",
}


def _run_in_session(fetch, feed_dict, session, what):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(_NO_SESSION[what])
    if session.graph is not fetch.graph:
        raise ValueError(_WRONG_GRAPH[what])
    return session.run(fetch, feed_dict)


# ── Operation ────────────────────────────────────────────────────────────────────────
class NodeDef:
    """The NodeDef-like view of an op: ``name``, ``op``, ``input``, ``attr``, ``device``."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name, op, inputs, attr, device):
        self.name, self.op, self.input, self.attr, self.device = name, op, inputs, attr, device

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r}, " \
               f"attr={self.attr!r}, device={self.device!r})"


class Operation:
    """A node of the graph: an op type applied to input tensors, producing output tensors.

    ``creation_site`` is the user's ``file:line`` that built it; every error about the op
    reports it.
    """

    __slots__ = ("_graph", "_id", "_name", "_op_def", "_inputs", "_outputs", "_control_inputs",
                 "_attrs", "_device", "_site", "_control_outputs", "_grad_override",
                 "_cf_context", "__weakref__")

    def __init__(self, graph, op_id, name, op_def, inputs, control_inputs, attrs, device, site):
        self._graph = graph
        self._id = op_id
        self._name = name
        self._op_def = op_def
        self._inputs = tuple(inputs)
        self._control_inputs = list(control_inputs)
        self._attrs = attrs
        self._device = device
        self._site = site
        self._outputs: tuple[Tensor, ...] = ()
        self._control_outputs: list[Operation] = []
        # The traced function (func_graph.FuncGraph: a cond branch, loop body...) it is in.
        self._cf_context = None
        # The registered gradient name from gradient_override_map active at creation.
        self._grad_override = graph._gradient_override_map.get(op_def.type) \
            if graph._gradient_override_map else None

    name = read_only("_name")
    type = read_only("_op_def.type")
    op_def = read_only("_op_def")
    graph = read_only("_graph")
    inputs = read_only("_inputs")

    @property
    def outputs(self) -> list[Tensor]:
        return list(self._outputs)

    def values(self) -> tuple[Tensor, ...]:
        return self._outputs

    @property
    def control_inputs(self) -> list[Operation]:
        return list(self._control_inputs)

    _control_outputs_list = read_only("_control_outputs")
    device = read_only("_device")
    creation_site = read_only("_site")

    @property
    def traceback(self):
        return [self._site]

    @property
    def node_def(self) -> NodeDef:
        inputs = [t._as_node_def_input() for t in self._inputs]
        inputs += ["^" + c.name for c in self._control_inputs]
        return NodeDef(self._name, self.type, inputs, dict(self._attrs), self._device)

    def get_attr(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            pass
        # TF's type attr ``T``: ops here infer it from their inputs instead of storing it.
        if name == "T" and (self._inputs or self._outputs):
            return (self._inputs or self._outputs)[0].dtype.base_dtype
        raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")

    @property
    def attrs(self) -> dict:
        return dict(self._attrs)

    def _add_control_input(self, op: Operation):
        self._graph._check_not_finalized(self._op_def, self._name)
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)

    def run(self, feed_dict=None, session=None) -> None:
        """Runs this op in ``session`` (default: the default session); returns None."""
        _run_in_session(self, feed_dict, session, "run")

    def describe_site(self) -> str:
        return f"node {self._name} ({self.type}) defined at {self._site}"

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self.type}>"

    def __str__(self):
        return str(self.node_def)


# ── Per-thread graph state ───────────────────────────────────────────────────────────
class _ControlDependenciesController:
    """One ``with g.control_dependencies(...)`` block; ``None`` inputs clear outer ones."""

    def __init__(self, graph, control_inputs):
        self._graph = graph
        self._clear = control_inputs is None
        self.control_inputs = [] if control_inputs is None else control_inputs
        self._seen_ops: set = set()

    def __enter__(self):
        state = self._graph._state()
        if self._clear:  # as TF1, None also leaves any cond branch or loop body being built
            self._saved_stack = state.control_stack
            self._saved_cf_context = state.cf_context
            state.control_stack = []
            state.cf_context = None
        state.control_stack.append(self)
        return self

    def __exit__(self, *exc):
        state = self._graph._state()
        state.control_stack.pop()
        if self._clear:
            state.control_stack = self._saved_stack
            state.cf_context = self._saved_cf_context
        return False


# ── Graph ────────────────────────────────────────────────────────────────────────────
class Graph:
    """A TensorFlow computation: ops in creation order, names, collections and a seed."""

    def __init__(self):
        self._ops: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._seed = None
        self._unfeedable: set = set()
        self._unfetchable: set = set()
        self._gradient_override_map: dict[str, str] = {}
        self._container = ""  # tf.container: stateful ops' default "container" attr
        self._lock = threading.RLock()
        self.version = 0
        # Graph-growth detection (USER_NEEDS §10): updated by Session.run.
        self._growth = {"last_size": 0, "streak": 0, "runs": 0, "warned": False}
        # Stores the layers above keep per graph, shared by all threads: the variable store
        # (variable_scope), layer name counts (layers), the op-seed counter (random_seed).
        self._variable_store = None
        self._layer_name_counts: dict[str, int] = {}
        self._seed_offset = 0

    # -- this thread's scopes on this graph (framework.context) --------------------------
    def _state(self) -> GraphState:
        return CONTEXT.of(self)

    # -- default graph -------------------------------------------------------------------
    def as_default(self):
        """Makes this the default graph inside a ``with`` block."""
        return pushed(CONTEXT.graphs, self)

    # -- seed ----------------------------------------------------------------------------
    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def _last_id(self) -> int:
        return len(self._ops)

    @property
    def building_function(self) -> bool:
        return False

    finalized = read_only("_finalized")

    def finalize(self):
        """Makes the graph read-only; adding an op afterwards raises ``RuntimeError``."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self, op_def=None, name=None):
        if self._finalized:
            what = ""
            if op_def is not None:
                what = (f" Tried to add op '{name}' (type {op_def.type}) at {user_site(2)}; "
                        "build every op before finalize(), outside the training loop.")
            raise RuntimeError("Graph is finalized and cannot be modified." + what)

    # -- naming --------------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """TF's ``unique_name``: ``name``, then ``name_1``... (case-insensitive)."""
        name_stack = self._state().name_stack
        if name_stack:
            name = name_stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_name_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_name_key}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{i - 1}"
        return name

    def get_name_scope(self) -> str:
        return self._state().name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope; yields its name with a trailing ``/`` (``""`` for the root)."""
        state = self._state()
        if name:
            if state.name_stack:
                if not _VALID_SCOPE_NAME.match(name):
                    raise ValueError(f"'{name}' is not a valid scope name. A scope name has to "
                                     f"match the following pattern: {_VALID_SCOPE_NAME.pattern}")
            elif not _VALID_OP_NAME.match(name):
                raise ValueError(f"'{name}' is not a valid root scope name. A root scope name "
                                 f"has to match the following pattern: {_VALID_OP_NAME.pattern}")
        old_stack = state.name_stack
        if not name:
            new_stack, returned = "", ""
        elif name[-1] == "/":
            new_stack, returned = name[:-1], name
        else:
            new_stack = self.unique_name(name)
            returned = new_stack + "/"
        state.name_stack = new_stack
        try:
            yield returned
        finally:
            state.name_stack = old_stack

    # -- control dependencies and devices ------------------------------------------------
    def control_dependencies(self, control_inputs):
        """Ops created inside run after ``control_inputs``; ``None`` clears outer ones."""
        if control_inputs is None:
            return _ControlDependenciesController(self, None)
        current = set()
        for controller in self._state().control_stack:
            current.update(controller.control_inputs)
        control_ops = []
        for c in control_inputs:
            if hasattr(c, "_as_control_op"):
                c = c._as_control_op()
            c = self.as_graph_element(c)
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            if c not in current:
                control_ops.append(c)
                current.add(c)
        return _ControlDependenciesController(self, control_ops)

    def _control_inputs_for(self, input_ops) -> list[Operation]:
        ret = []
        for controller in self._state().control_stack:
            if any(op in controller._seen_ops for op in input_ops):
                continue  # an input already depends on this controller's ops
            ret.extend(c for c in controller.control_inputs if c not in input_ops)
        return ret

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Records a device name on the ops created inside (placement is not simulated).

        As TF, names are canonicalised (``/cpu:0`` is ``/device:CPU:0``) and merged with the
        enclosing device (fields given inside win); ``None`` clears it; a function (such as
        ``tf.train.replica_device_setter``'s) is called with each op created inside and
        returns its device (device_functions.py has TF's order).
        """
        state = self._state()
        if device_name_or_function is None or callable(device_name_or_function):
            spec = device_name_or_function  # a function: called with each new op
        else:
            outer = state.device_stack[-1] if state.device_stack else ""
            spec = merge_devices(outer if isinstance(outer, str) else "",
                                 device_name_or_function)
        state.device_stack.append(spec)
        try:
            yield
        finally:
            state.device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside get ``op``'s device when it has one; the device scopes and
        functions around the block do not apply inside it (TF's rule)."""
        if op is not None and not isinstance(op, Operation):
            op = getattr(op, "op", op)
        state = self._state()
        state.device_stack.append(Colocation(op, ignore_existing))
        try:
            yield
        finally:
            state.device_stack.pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Uses the gradient registered under another name for the given op types."""
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        unknown = sorted(k for k in op_type_map if k not in OP_TYPES)
        if unknown:
            # TF silently ignores these; a typo would then change nothing (issue 4).
            raise ValueError(f"gradient_override_map: no op type named {unknown}; known op "
                             "types are listed by scopeflow.framework.opdef.REGISTRY")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def container(self, container_name):
        """TF's ``Graph.container``: stateful ops created inside whose ``container`` attr
        is empty get ``container_name`` (the resource container sessions reset)."""
        saved = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = saved

    # -- ops -----------------------------------------------------------------------------
    def _create_op(self, op_def, inputs, attrs, out_dtypes, out_shapes, name, site=None):
        """Adds an op; the single entry point used by ``OpDef.bind``."""
        self._check_not_finalized(op_def, name)
        if name and name[-1] == "/":
            name = name[:-1]
        else:
            name = self.unique_name(name)
        if not _VALID_OP_NAME.match(name):
            raise ValueError(f"`{name}` is not a valid node name. Accepted names conform to "
                             f"Regex /{_VALID_OP_NAME!r}/")
        if name in self._ops_by_name:
            raise ValueError(f"Duplicate node name in graph: '{name}'")
        state = self._state()
        control_inputs = self._control_inputs_for({t._op for t in inputs}) \
            if state.control_stack else ()
        device = initial_device(state.device_stack)
        if site is None:
            site = user_site(3)
        if self._container and op_def.stateful and attrs.get("container", None) == "":
            attrs = {**attrs, "container": self._container}
        op = Operation(self, len(self._ops), name, op_def, inputs, control_inputs, attrs, device,
                       site)
        op._outputs = tuple(Tensor(op, i, dt, sh) for i, (dt, sh)
                            in enumerate(zip(out_dtypes, out_shapes)))
        ref_ops = [inputs[i]._op for i in op_def.ref_inputs if i < len(inputs)]
        if needs_resolution(state.device_stack, ref_ops):
            op._device = resolve_device(op, state.device_stack, ref_ops)
        for t in inputs:
            t._consumers.append(op)
        for c in control_inputs:
            c._control_outputs.append(op)
        for controller in state.control_stack:
            controller._seen_ops.add(op)
        if state.cf_context is not None:
            op._cf_context = state.cf_context
            state.cf_context._add_op(op)
        else:
            for t in inputs:
                if t._op._cf_context is not None and \
                        t._op._cf_context.kind.where == "while loop":
                    raise ValueError(func_graph.outside_loop_message(t, op, None))
                if t._op._cf_context is not None:
                    raise ValueError(
                        f"Cannot use '{t.name}' as input to '{name}' (created at {site}) "
                        f"because '{t.name}' is in a {t._op._cf_context.describe()}: use the "
                        "construct's outputs outside it")
        self._ops.append(op)
        self._ops_by_name[name] = op
        self.version += 1
        return op

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    # -- export --------------------------------------------------------------------------
    def as_graph_def(self, from_version=None, add_shapes=False):
        """This graph as TF's ``GraphDef`` protobuf (nodes, inputs, attrs, versions).

        ``from_version``: only ops added since ``graph.version`` had that value;
        ``add_shapes``: add each node's ``_output_shapes`` attr.

        >>> g = Graph()
        >>> with g.as_default():
        ...     c = tf.constant(1.0, name="c")
        >>> [(n.name, n.op) for n in g.as_graph_def().node]
        [('c', 'Const')]
        """
        return graph_to_graph_def(self, from_version, add_shapes)

    @property
    def graph_def_versions(self):
        """The ``VersionDef`` written into this graph's ``GraphDef`` (TF 2.21's producer)."""
        return protos.VersionDef(producer=GRAPH_DEF_VERSION)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not "
                            f"{type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation, or name (``op`` or ``op:i``) in this graph."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, types_str)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    def _element_by_name(self, name, allow_tensor, allow_operation, types_str):
        if ":" in name and allow_tensor:
            op_name, _, out = name.rpartition(":")
            try:
                out_n = int(out)
            except ValueError:
                raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not a "
                                 "valid one. Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\".") from None
            op = self._ops_by_name.get(op_name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, does not exist in the graph."
                               + self._close_tensors(op_name, out_n))
            if out_n >= len(op._outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The "
                               f"operation, {op_name!r}, exists but only has "
                               f"{len(op._outputs)} outputs.")
            return op._outputs[out_n]
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {types_str}.")
        if not allow_operation:
            if name in self._ops_by_name:
                raise ValueError(f"The name {name!r} refers to an Operation, not a {types_str}. "
                                 "Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\".")
            raise ValueError(f"The name {name!r} looks like an (invalid) Operation name, not a "
                             f"{types_str}. Tensor names must be of the form "
                             "\"<op_name>:<output_index>\"." + self._close_tensors(name, 0))
        op = self._ops_by_name.get(name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph."
                           + self._did_you_mean(close_names(name, self._ops_by_name)))
        return op

    def _close_tensors(self, op_name, out_n) -> str:
        """" Did you mean 'op:n'?" for the ops named closest to ``op_name`` (error path only)."""
        with_outputs = [n for n, op in list(self._ops_by_name.items()) if op._outputs]
        names = []
        for n in close_names(op_name, with_outputs):
            outputs = self._ops_by_name[n]._outputs
            names.append(outputs[out_n if out_n < len(outputs) else 0].name)
        return self._did_you_mean(names)

    @staticmethod
    def _did_you_mean(candidates) -> str:
        return did_you_mean(candidates)

    # -- feeding and fetching ------------------------------------------------------------
    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor) -> bool:
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op) -> bool:
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    # -- collections ---------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name) -> list:
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None) -> list:
        """A copy of the collection; with ``scope``, items whose name ``re.match``es it."""
        collection = self._collections.get(name)
        if collection is None:
            return []
        if scope is None:
            return list(collection)
        regex = re.compile(scope)
        out = []
        for item in collection:
            try:
                if regex.match(item.name):
                    out.append(item)
            except AttributeError:
                pass  # TF skips items without a name when filtering by scope
        return out

    def get_all_collection_keys(self) -> list:
        return [k for k, v in self._collections.items() if isinstance(v, list)]

    def clear_collection(self, name):
        self._check_not_finalized()
        self._collections.pop(name, None)

    @property
    def collections(self) -> list:
        return list(self._collections)

    def __contains__(self, name):
        return name in self._ops_by_name


# ── The default graph ────────────────────────────────────────────────────────────────
_global_default_graph = None
_global_lock = threading.Lock()


def get_default_graph() -> Graph:
    """The innermost ``Graph.as_default()`` graph, else the global default graph."""
    graphs = CONTEXT.graphs
    if graphs:
        return graphs[-1]
    global _global_default_graph
    if _global_default_graph is None:
        with _global_lock:
            if _global_default_graph is None:
                _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph():
    """Replaces the global default graph with a new, empty one."""
    if CONTEXT.graphs:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new "
                             "graph.")
    global _global_default_graph
    _global_default_graph = Graph()


def _graph_of(values):
    """The graph the given values live in, checking they agree (TF's ``_get_graph_from_inputs``)."""
    graph = first = None
    for v in values:
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            if graph is None:
                graph, first = g, v
            elif g is not graph:
                raise ValueError(f"{v} must be from the same graph as {first} (graphs are {g!r} "
                                 f"and {graph!r}).")
    return graph if graph is not None else get_default_graph()


def container(container_name):
    """TF1's ``tf.container``: the default graph's ``Graph.container(container_name)``."""
    return get_default_graph().container(container_name)


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """TF1's ``tf.name_scope(name, default_name=None, values=None)``.

    >>> with name_scope("outer") as scope:
    ...     scope
    'outer/'
    """
    if not (default_name is None or isinstance(default_name, str)):
        raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. "
                        "You likely meant to pass this into the `values` kwarg.")
    n = default_name if name is None else name
    if n is None and values is not None:
        raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) "
                         "must be provided.")
    graph = _graph_of(values) if values else get_default_graph()
    if values:
        with graph.as_default(), graph.name_scope(n) as scope:
            yield scope
    else:
        with graph.name_scope(n) as scope:
            yield scope


def get_name_scope() -> str:
    return get_default_graph().get_name_scope()


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def op_scope(values, name, default_name=None):
    """TF1's deprecated ``name_scope`` with the values first."""
    return name_scope(name, default_name, values)


@contextlib.contextmanager
def init_scope():
    """Ops built inside escape the surrounding control dependencies (and control flow), in
    the same name scope: what TF's ``tf.init_scope`` does in graph mode, for code that
    creates variables or their initializers inside ``cond`` bodies or dependency blocks."""
    graph = get_default_graph()
    scope = graph.get_name_scope()
    with graph.name_scope(scope + "/" if scope else None), graph.control_dependencies(None):
        yield


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None) -> list:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key) -> list:
    return get_default_graph().get_collection_ref(key)


# ── Conversion to tensors ────────────────────────────────────────────────────────────
_conversion_functions: list[tuple[int, type, object]] = []
_conversion_cache: dict[type, list] = {}


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Teaches ``convert_to_tensor`` a type: ``func(value, dtype, name, as_ref) -> Tensor``."""
    _conversion_functions.append((priority, base_type, conversion_func))
    _conversion_functions.sort(key=lambda e: e[0])
    _conversion_cache.clear()


def convert_to_tensor(value, dtype=None, name=None, as_ref=False, preferred_dtype=None,
                      dtype_hint=None) -> Tensor:
    """Converts a Tensor, Variable, NumPy array or Python value to a ``Tensor``."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    preferred = preferred_dtype or dtype_hint
    funcs = _conversion_cache.get(type(value))
    if funcs is None:
        funcs = [f for _, t, f in _conversion_functions if isinstance(value, t)]
        _conversion_cache[type(value)] = funcs
    for func in funcs:
        if dtype is None and preferred is not None:
            try:
                ret = func(value, dtype=_dtypes.as_dtype(preferred), name=name, as_ref=as_ref)
            except (TypeError, ValueError):
                ret = NotImplemented
            if ret is not NotImplemented:
                return ret
        ret = func(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if dtype is not None and not dtype.is_compatible_with(ret.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {ret.dtype.name}: {ret!r}")
        return ret
    raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. Contents: "
                    f"{value!r}. Consider casting elements to a supported type.")
