"""``tf.Variable`` with TF1 reference semantics, and the variable-collection helpers."""

from __future__ import annotations

import enum
import inspect
from typing import TYPE_CHECKING, Any

from scopeflow.framework import dtypes, modes
from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.object_identity import Reference
from scopeflow.framework.properties import read_only
from scopeflow.framework.scope_names import strip_name_scope
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.io.protos import VariableDef
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.data_flow import queue_ops
from scopeflow.ops.state import scatter_ops, state_ops, training_ops
from scopeflow.state.partitioning import SaveSliceInfo
from scopeflow.state.variable_creator import create_through_scopes, creator_stack

if TYPE_CHECKING:
    import numpy as np

    from scopeflow.framework.graph import Operation
    from scopeflow.framework.type_aliases import DTypeLike, ShapeLike

__all__ = [
    "Variable", "VariableV1", "global_variables", "trainable_variables", "local_variables",
    "model_variables", "moving_average_variables", "variables_initializer",
    "global_variables_initializer", "local_variables_initializer", "initialize_all_variables",
    "is_variable_initialized", "report_uninitialized_variables", "all_variables",
    "initialize_variables", "initialize_local_variables", "assert_variables_initialized",
    "VariableAggregation", "VariableSynchronization",
]


class VariableSynchronization(enum.Enum):
    """When a distributed variable syncs (accepted by ``tf.Variable``; one process here)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (accepted by ``tf.Variable``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class _VariableMeta(type):
    """Routes ``Variable(...)`` through the ``tf.variable_creator_scope`` creators, when any
    are in effect (TF's ``VariableMetaclass``), with every argument given by keyword."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable and _RESOURCE_VARIABLE_CLASS and _wants_resource(args, kwargs):
            cls = _RESOURCE_VARIABLE_CLASS[0]
        if cls not in (Variable, *_RESOURCE_VARIABLE_CLASS[:1]) or not creator_stack():
            return super().__call__(*args, **kwargs)
        bound = _INIT_SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()
        full = dict(bound.arguments)
        del full["self"]
        full["synchronization"] = full["synchronization"] or VariableSynchronization.AUTO
        full["aggregation"] = full["aggregation"] or VariableAggregation.NONE
        full["experimental_enable_variable_lifting"] = None
        if cls is not Variable:
            full["use_resource"] = True
        return create_through_scopes(_default_creator, full)


def _default_creator(experimental_enable_variable_lifting=None, **kwargs):
    """The end of the creator chain: the constructor itself."""
    del experimental_enable_variable_lifting  # TF2's variable lifting: no tf.function here
    if _RESOURCE_VARIABLE_CLASS and _wants_resource((), kwargs):
        return type.__call__(_RESOURCE_VARIABLE_CLASS[0], **kwargs)
    return type.__call__(Variable, **kwargs)


# ``scopeflow.state.resource_variable`` puts ``ResourceVariable`` here when imported (it
# builds on this module, so this one cannot import it).
_RESOURCE_VARIABLE_CLASS: list = []


def _wants_resource(args, kwargs) -> bool:
    """Whether a ``Variable(...)`` call makes a resource variable: ``use_resource=True``,
    or ``use_resource`` left None while ``tf.enable_resource_variables()`` is on; a
    ``variable_def`` with ``is_resource`` set."""
    bound = _INIT_SIGNATURE.bind(None, *args, **kwargs).arguments
    vdef = bound.get("variable_def")
    if vdef is not None:
        return bool(getattr(vdef, "is_resource", False))
    use_resource = bound.get("use_resource")
    return modes.resource_variables_enabled() if use_resource is None else bool(use_resource)


class Variable(metaclass=_VariableMeta):
    """A TF1 variable: a ``VariableV2`` op holding state in each session.

    ``v.name`` is ``scope/v:0``; using ``v`` as a tensor reads its snapshot ``v/read``;
    ``v.initializer`` assigns ``v.initial_value``.

    >>> v = Variable(1.0, name="v")
    >>> v.name, v.initializer.name
    ('v:0', 'v/Assign')
    """

    _is_resource = False  # ResourceVariable: True

    def __init__(self, initial_value: Any = None, trainable: bool | None = None,
                 collections: list[str] | None = None, validate_shape: bool = True,
                 caching_device=None, name: str | None = None, variable_def=None,
                 dtype: DTypeLike | None = None, expected_shape=None, import_scope=None,
                 constraint=None, use_resource=None, synchronization=None, aggregation=None,
                 shape: ShapeLike = None) -> None:
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        self._synchronization, self._aggregation = _sync_and_aggregation(
            synchronization, aggregation, name)
        if trainable is None:  # TF's: a variable synchronized on read is never trained
            trainable = self._synchronization is not VariableSynchronization.ON_READ
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, "
                             f"tuple, or set. Got {collections} of type {type(collections)}")
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        self._trainable = trainable
        self._constraint = constraint
        self._save_slice_info = None
        init_from_fn = callable(initial_value)
        graph = get_default_graph()
        # As TF's init_scope: a variable and its initializer never inherit the control
        # dependencies around its creation (they would make initialization depend on them).
        with graph.control_dependencies(None), \
                name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            initial_value = _initial_value_tensor(initial_value, dtype)
            self._initial_value = initial_value
            var_shape = _variable_shape(initial_value, shape, validate_shape)
            self._variable = state_ops.variable_op_v2(var_shape, initial_value.dtype.base_dtype,
                                                      name=scope)
            self._initializer_op = state_ops.assign(
                self._variable, initial_value, validate_shape=validate_shape, name="Assign").op
            with graph.colocate_with(self._variable.op):  # TF's: the read is the variable's
                self._snapshot = array_ops.identity(self._variable, name="read")
        self._graph = graph
        graph.add_to_collections(collections, self)

    def _init_from_proto(self, variable_def, import_scope=None):
        """The Variable whose ops a ``VariableDef`` names, in the default graph (TF's
        ``Variable(variable_def=...)``, as ``import_meta_graph`` rebuilds collections)."""
        graph = get_default_graph()

        def element(name):
            if import_scope:
                name = f"{import_scope}/{name}"
            return graph.as_graph_element(name)

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._snapshot = element(variable_def.snapshot_name) if variable_def.snapshot_name \
            else self._variable
        self._initial_value = element(variable_def.initial_value_name) \
            if variable_def.initial_value_name else None
        self._trainable = bool(variable_def.trainable)
        # Our VariableDef descriptor lacks these fields (TF writes them only for
        # distributed variables, and they default to AUTO and NONE).
        self._synchronization = VariableSynchronization.AUTO
        self._aggregation = VariableAggregation.NONE
        self._constraint = None
        self._save_slice_info = SaveSliceInfo(
            save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope) \
            if variable_def.HasField("save_slice_info_def") else None
        self._graph = graph

    @classmethod
    def from_proto(cls, variable_def, import_scope=None):
        """TF's ``Variable.from_proto``: the Variable a ``VariableDef`` describes."""
        return cls(variable_def=variable_def, import_scope=import_scope)

    # -- identity ------------------------------------------------------------------------
    name = read_only("_variable.name")
    op = read_only("_variable.op")
    dtype = read_only("_variable.dtype")
    shape = read_only("_variable.shape")

    def get_shape(self) -> TensorShape:
        return self._variable.shape

    graph = read_only("_graph")
    device = read_only("_variable.device")
    trainable = read_only("_trainable")
    constraint = read_only("_constraint")
    initializer = read_only("_initializer_op")
    initial_value = read_only("_initial_value")

    synchronization = read_only("_synchronization")
    aggregation = read_only("_aggregation")
    SaveSliceInfo = SaveSliceInfo  # TF's Variable.SaveSliceInfo

    def ref(self) -> Reference:
        """A hashable handle comparing by this variable's identity (TF's ``ref()``)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        """TF's deprecated name of ``ref()``."""
        return Reference(self)

    def to_proto(self, export_scope=None):
        """The ``VariableDef`` a ``.meta`` stores for this variable, names relative to
        ``export_scope`` (None when the variable lies outside it)."""
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        proto = VariableDef(
            variable_name=strip_name_scope(self._variable.name, export_scope),
            initializer_name=strip_name_scope(self._initializer_op.name, export_scope),
            snapshot_name=strip_name_scope(self._snapshot.name, export_scope),
            trainable=bool(self._trainable))
        if self._initial_value is not None:
            proto.initial_value_name = strip_name_scope(self._initial_value.name,
                                                        export_scope)
        if self._save_slice_info is not None:
            proto.save_slice_info_def.MergeFrom(
                self._save_slice_info.to_proto(export_scope=export_scope))
        return proto

    def _ref(self) -> Tensor:
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def _as_control_op(self):
        return self._variable.op

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    # NumPy must defer to our operators: ``np_array * variable`` builds an op.
    __array_priority__ = 100
    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    # -- reading -------------------------------------------------------------------------
    def value(self) -> Tensor:
        """The snapshot ``v/read`` (the same tensor every time)."""
        return self._snapshot

    def read_value(self) -> Tensor:
        """A new read of the variable, in the current name scope."""
        return array_ops.identity(self._variable, name="read")

    def eval(self, session=None) -> np.ndarray:
        return self._variable.eval(session=session)

    def initialized_value(self) -> Tensor:
        """The value after running the initializer first (for initial values of others)."""
        return control_flow_ops.with_dependencies([self._initializer_op], self._snapshot)

    # -- writing -------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        op = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        op = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        op = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def _scatter(self, scatter_fn, sparse_delta, use_locking, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return scatter_fn(self._variable, sparse_delta.indices, sparse_delta.values,
                          use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """``v[sparse_delta.indices] += sparse_delta.values`` (an ``IndexedSlices``)."""
        return self._scatter(training_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(training_ops.scatter_sub, sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(scatter_ops.scatter_mul, sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(scatter_ops.scatter_div, sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(scatter_ops.scatter_max, sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(scatter_ops.scatter_min, sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter(training_ops.scatter_update, sparse_delta, use_locking, name)

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """``scatter_update`` per batch row (TF builds it from ``scatter_nd_update``)."""
        return scatter_ops.batch_scatter_update(self._variable, sparse_delta.indices,
                                                sparse_delta.values, use_locking=use_locking,
                                                name=name)

    # TF's RefVariable passes use_locking=True to the nd scatters, whatever the caller says.
    def scatter_nd_add(self, indices, updates, name=None):
        return scatter_ops.scatter_nd_add(self._variable, indices, updates, use_locking=True,
                                          name=name)

    def scatter_nd_sub(self, indices, updates, name=None):
        return scatter_ops.scatter_nd_sub(self._variable, indices, updates, use_locking=True,
                                          name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        return scatter_ops.scatter_nd_update(self._variable, indices, updates,
                                             use_locking=True, name=name)

    def scatter_nd_max(self, indices, updates, name=None):
        raise NotImplementedError("Variable.scatter_nd_max (TF's ScatterNdMax op) is not "
                                  "implemented in scopeflow; use tf.tensor_scatter_nd_max and "
                                  "assign the result")

    def scatter_nd_min(self, indices, updates, name=None):
        raise NotImplementedError("Variable.scatter_nd_min (TF's ScatterNdMin op) is not "
                                  "implemented in scopeflow; use tf.tensor_scatter_nd_min and "
                                  "assign the result")

    def count_up_to(self, limit):
        """Increments the variable until it reaches ``limit`` (then ``OutOfRangeError``)."""
        return queue_ops.count_up_to(self._variable, limit=limit)

    # TF's RefVariable has these names but raises AttributeError: they read resource
    # variables only (ReadVariableOp / ResourceGather), which scopeflow builds as ref ones.
    def sparse_read(self, indices, name=None):
        raise AttributeError("Variable.sparse_read reads resource variables only; this "
                             "is a ref variable (TF's RefVariable raises too): use "
                             "tf.gather(v, indices)")

    def gather_nd(self, indices, name=None):
        raise AttributeError("Variable.gather_nd reads resource variables only; this "
                             "is a ref variable (TF's RefVariable raises too): use "
                             "tf.gather_nd(v, indices)")

    def load(self, value, session=None):
        """Sets the value in ``session`` by feeding the initializer (builds no op)."""
        if session is None:
            session = get_default_session()
            if session is None:
                raise ValueError("Either session argument should be provided or default "
                                 "session should be established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    def set_shape(self, shape):
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def _as_tensor(self, dtype=None, name=None, as_ref=False) -> Tensor:
        if as_ref:
            return self._variable
        if dtype is not None and not dtype.is_compatible_with(self.dtype.base_dtype):
            raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' "
                             f"for variable of type '{self.dtype.name}'")
        return self._snapshot


def _sync_and_aggregation(synchronization, aggregation, name):
    """The variable's ``VariableSynchronization`` and ``VariableAggregation`` (defaults AUTO
    and NONE), with TF's ValueError for a value that is neither."""
    def member(enum_type, value, what):
        if value is None:
            return next(iter(enum_type))
        try:
            return enum_type(value.value if isinstance(value, enum.Enum) else value)
        except ValueError:
            raise ValueError(f"Invalid variable {what} mode: {value} for variable: "
                             f"{name}") from None
    return (member(VariableSynchronization, synchronization, "synchronization"),
            member(VariableAggregation, aggregation, "aggregation"))


def _initial_value_tensor(initial_value, dtype) -> Tensor:
    """``initial_value`` (a value, or a callable returning one) as a non-ref tensor."""
    if callable(initial_value):
        with name_scope("Initializer"):
            initial_value = convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
    else:
        initial_value = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
    if initial_value.dtype._is_ref_dtype:
        initial_value = array_ops.identity(initial_value)
    return initial_value


def _variable_shape(initial_value, shape, validate_shape) -> TensorShape:
    if shape is not None:
        return as_shape(shape)
    if not validate_shape:
        return TensorShape(None)
    if not initial_value.shape.is_fully_defined():
        raise ValueError(f"initial_value must have a shape specified: {initial_value}")
    return initial_value.shape


def _variable_conversion(v, dtype=None, name=None, as_ref=False):
    return v._as_tensor(dtype, name, as_ref)


register_tensor_conversion_function(Variable, _variable_conversion, priority=50)

VariableV1 = Variable
_INIT_SIGNATURE = inspect.signature(Variable.__init__)




# ── Collections and initializers ─────────────────────────────────────────────────────
def global_variables(scope=None) -> list:
    """Variables in ``GraphKeys.GLOBAL_VARIABLES`` (optionally ``re.match``ed by ``scope``)."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    return global_variables()


def trainable_variables(scope=None) -> list:
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None) -> list:
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None) -> list:
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None) -> list:
    """The variables an ``ExponentialMovingAverage`` averages (its ``apply``'s var_list)."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list: list[Variable], name: str = "init") -> Operation:
    """One op that runs the initializers of ``var_list`` (a ``NoOp`` named ``init``)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer() -> Operation:
    """Initializes every global variable: build it after the last variable."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables())


def initialize_variables(var_list, name="init"):
    """TF1's deprecated name of ``variables_initializer``."""
    return variables_initializer(var_list, name)


def initialize_local_variables():
    """TF1's deprecated name of ``local_variables_initializer``."""
    return local_variables_initializer()


def assert_variables_initialized(var_list=None):
    """An op that fails with ``FailedPreconditionError`` while a variable of ``var_list``
    (default: all) has no value: TF's ``Rank`` of each variable (stacked), which reads it.
    ``None`` when there are no variables."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    ranks = [array_ops.rank_op.bind(v.value() if hasattr(v, "value") else v, name="Rank")
             for v in var_list]
    return ranks[0] if len(ranks) == 1 else array_ops.stack(ranks)


def is_variable_initialized(variable):
    if getattr(variable, "_is_resource", False):
        return variable.is_initialized()
    return state_ops.is_variable_initialized(variable)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables in ``var_list`` without a value."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    # Op names as TF: report_uninitialized_variables/{IsVariableInitialized*, stack,
    # LogicalNot, Const, boolean_mask/...}; the result is boolean_mask's GatherV2.
    with name_scope(name):
        if not var_list:
            return constant_op.constant([], dtype=dtypes.string)
        initialized = [is_variable_initialized(v) for v in var_list]
        mask = math_ops.logical_not(array_ops.stack(initialized))
        names = constant_op.constant([v.op.name for v in var_list])
        return array_ops.boolean_mask(names, mask)
