"""``ResourceVariable``: TF1's ``use_resource=True`` variable, a ``VarHandleOp`` whose value
the session holds, read by ``ReadVariableOp`` (a copy) and written by ``AssignVariableOp``.

Made by ``tf.Variable(..., use_resource=True)``, by ``get_variable``/``variable_scope``
with ``use_resource=True``, or by default after ``tf.enable_resource_variables()``. The
graph is TF's, node for node::

    v/Initializer/initial_value   Const
    v                             VarHandleOp          (v.handle, v.name == "v:0")
    v/IsInitialized/VarIsInitializedOp
    v/Assign                      AssignVariableOp     (v.initializer)
    v/Read/ReadVariableOp         ReadVariableOp       (what session.run(v) fetches)

Unlike a ref variable's ``v/read``, every use of ``v`` as a tensor makes a new
``ReadVariableOp`` where it is used, and each read *copies*: it sees the variable as it is
when the read runs (control dependencies order it), and a later assign in the same step
does not change it.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.scope_names import strip_name_scope
from scopeflow.io.protos import VariableDef
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow import cond_ops
from scopeflow.ops.state import resource_variable_ops as rv_ops
from scopeflow.state import variables
from scopeflow.state.partitioning import SaveSliceInfo
from scopeflow.state.variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    _initial_value_tensor,
    _sync_and_aggregation,
    _variable_shape,
)

__all__ = ["ResourceVariable", "is_resource_variable"]


def is_resource_variable(var) -> bool:
    """Whether ``var`` is a resource variable (TF's ``resource_variable_ops`` helper)."""
    return isinstance(var, ResourceVariable)


class ResourceVariable(Variable):
    """A variable held through a resource handle (TF's ``ResourceVariable``).

    >>> v = ResourceVariable(1.0, name="v")
    >>> v.name, v.handle.op.type, v.initializer.name
    ('v:0', 'VarHandleOp', 'v/Assign')
    """

    _is_resource = True
    _parent_op = None  # an update's result (_UnreadVariable): the update its reads follow

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=None, aggregation=None, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        collections = self._set_options(trainable, collections, constraint, synchronization,
                                        aggregation, name)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
        init_from_fn = callable(initial_value)
        graph = get_default_graph()
        with graph.control_dependencies(None), \
                name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
            handle_name = scope[:-1] if scope.endswith("/") else scope
            if init_from_fn:  # called in an Initializer scope of its own
                initial_value = _initial_value_tensor(initial_value, dtype)
            else:
                with name_scope("Initializer"):
                    initial_value = _initial_value_tensor(initial_value, dtype)
            self._initial_value = initial_value
            var_shape = _variable_shape(initial_value, shape, validate_shape)
            self._dtype = initial_value.dtype.base_dtype
            self._shape = var_shape
            self._handle = rv_ops.var_handle_op(self._dtype, var_shape, shared_name=handle_name,
                                                name=scope)
            with name_scope("IsInitialized"):
                self._is_initialized_op = rv_ops.var_is_initialized_op(self._handle)
            with name_scope("Assign") as assign_scope, graph.colocate_with(None):
                self._initializer_op = rv_ops.assign_variable_op(
                    self._handle, initial_value, name=assign_scope)
            with name_scope("Read"):
                self._graph_element = self._read(name="ReadVariableOp")
        self._graph = graph
        self._parent_op = None
        graph.add_to_collections(collections, self)

    def _set_options(self, trainable, collections, constraint, synchronization, aggregation,
                     name) -> list:
        """Sets trainable, constraint, synchronization and aggregation (TF's defaults and
        checks); returns the collections the variable joins."""
        self._synchronization, self._aggregation = _sync_and_aggregation(
            synchronization, aggregation, name)
        if trainable is None:
            trainable = self._synchronization is not VariableSynchronization.ON_READ
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, "
                             f"tuple, or set. Got {collections} of type {type(collections)}")
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        self._trainable = trainable
        self._constraint = constraint
        self._save_slice_info = None
        return collections

    def _init_from_proto(self, variable_def, import_scope=None):
        """The ResourceVariable whose ops a ``VariableDef`` (``is_resource``) names."""
        graph = get_default_graph()

        def element(name):
            if import_scope:
                name = f"{import_scope}/{name}"
            return graph.as_graph_element(name)

        self._handle = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._graph_element = element(variable_def.snapshot_name) \
            if variable_def.snapshot_name else None
        self._initial_value = element(variable_def.initial_value_name) \
            if variable_def.initial_value_name else None
        op = self._handle.op
        self._dtype = op._attrs["dtype"] if op.type == "VarHandleOp" else \
            self._graph_element.dtype.base_dtype
        self._shape = rv_ops._handle_shape(self._handle)
        if self._graph_element is not None:
            self._shape = self._shape.merge_with(self._graph_element.shape) \
                if self._shape.is_compatible_with(self._graph_element.shape) else self._shape
        self._is_initialized_op = None
        self._trainable = bool(variable_def.trainable)
        self._synchronization = VariableSynchronization.AUTO
        self._aggregation = VariableAggregation.NONE
        self._constraint = None
        self._save_slice_info = SaveSliceInfo(
            save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope) \
            if variable_def.HasField("save_slice_info_def") else None
        self._graph = graph
        self._parent_op = None

    # -- identity ------------------------------------------------------------------------
    @property
    def handle(self) -> Tensor:
        """The ``VarHandleOp`` output (a scalar ``resource`` tensor)."""
        return self._handle

    name = property(lambda self: self._handle.name)
    op = property(lambda self: self._handle.op)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    device = property(lambda self: self._handle.device)

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def to_proto(self, export_scope=None):
        """The ``VariableDef`` a ``.meta`` stores (``is_resource: true``)."""
        if export_scope is not None and not self._handle.name.startswith(export_scope):
            return None
        proto = VariableDef(
            variable_name=strip_name_scope(self._handle.name, export_scope),
            initializer_name=strip_name_scope(self._initializer_op.name, export_scope),
            snapshot_name=strip_name_scope(self._graph_element.name, export_scope),
            is_resource=True, trainable=bool(self._trainable))
        if self._initial_value is not None:
            proto.initial_value_name = strip_name_scope(self._initial_value.name, export_scope)
        if self._save_slice_info is not None:
            proto.save_slice_info_def.MergeFrom(
                self._save_slice_info.to_proto(export_scope=export_scope))
        return proto

    def _ref(self) -> Tensor:
        return self._handle  # gradients reach the variable through its handle

    def _as_graph_element(self):
        return self._graph_element

    def _as_control_op(self):
        return self._handle.op

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    # -- reading -------------------------------------------------------------------------
    def _read(self, name="ReadVariableOp") -> Tensor:
        graph = self._handle.graph
        deps = [self._parent_op] if self._parent_op is not None else []
        with graph.control_dependencies(deps):
            t = rv_ops.read_variable_op(self._handle, self._dtype, name=name)
        t.set_shape(self._shape)
        return t

    def value(self) -> Tensor:
        """A new read of the variable here (``ReadVariableOp``, a copy)."""
        return self._read()

    def read_value(self) -> Tensor:
        """``Read/ReadVariableOp`` and its ``Identity``, in the current name scope."""
        with name_scope("Read"):
            value = self._read()
        return array_ops.identity(value)

    def sparse_read(self, indices, name=None) -> Tensor:
        """Rows ``indices`` of the variable (``ResourceGather``; its gradient is an
        ``IndexedSlices``)."""
        graph = self._handle.graph
        deps = [self._parent_op] if self._parent_op is not None else []
        with graph.control_dependencies(deps), name_scope(name or "Gather") as scope:
            return rv_ops.resource_gather(self._handle, indices, dtype=self._dtype,
                                          name=scope)

    def gather_nd(self, indices, name=None):
        raise NotImplementedError("ResourceVariable.gather_nd (TF's ResourceGatherNd op) is "
                                  "not implemented in scopeflow; use "
                                  "tf.gather_nd(v.value(), indices)")

    def eval(self, session=None):
        return self._graph_element.eval(session=session)

    def initialized_value(self) -> Tensor:
        """The value after running the initializer first (TF's ``cond`` on
        ``is_variable_initialized``: the initializer runs when it has not)."""
        with self._handle.graph.control_dependencies(None):
            return cond_ops.cond(self.is_initialized(), self.read_value,
                                 lambda: self._initial_value)

    def is_initialized(self, name=None) -> Tensor:
        """A scalar bool: whether the variable has a value (``VarIsInitializedOp``)."""
        return rv_ops.var_is_initialized_op(self._handle, name=name)

    # -- writing -------------------------------------------------------------------------
    def _lazy_read(self, op):
        """The result of an update: a variable whose reads follow ``op`` (TF's
        ``_UnreadVariable``)."""
        return _UnreadVariable(self, op)

    def _value_tensor(self, value):
        return convert_to_tensor(value, dtype=self._dtype)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """``AssignVariableOp``; with ``read_value`` a variable whose reads follow it."""
        value = self._value_tensor(value)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch."
                             f"The variable shape {self._shape}, and the assigned value shape "
                             f"{value.shape} are incompatible.")
        op = rv_ops.assign_variable_op(self._handle, value, name=name)
        return self._lazy_read(op) if read_value else op

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        op = rv_ops.assign_add_variable_op(self._handle, self._value_tensor(delta), name=name)
        return self._lazy_read(op) if read_value else op

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        op = rv_ops.assign_sub_variable_op(self._handle, self._value_tensor(delta), name=name)
        return self._lazy_read(op) if read_value else op

    def _resource_scatter(self, fn, sparse_delta, name):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        return self._lazy_read(fn(self._handle, sparse_delta.indices,
                                  self._value_tensor(sparse_delta.values), name=name))

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_add, sparse_delta, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_sub, sparse_delta, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_mul, sparse_delta, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_div, sparse_delta, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_min, sparse_delta, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_max, sparse_delta, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._resource_scatter(rv_ops.resource_scatter_update, sparse_delta, name)

    def _resource_update(self, ref_op_type, *inputs, name=None, **attrs):
        """``Resource<ref_op_type>`` on this variable (``tf.scatter_add(v, ...)`` and the
        raw ``training_ops`` builders): a ``Scatter*`` gives a variable whose reads follow
        it (TF's ``state_ops.scatter_*``), an ``Apply*`` the op."""
        op = rv_ops.resource_apply(ref_op_type, self, *inputs, name=name, **attrs)
        return self._lazy_read(op) if ref_op_type.startswith("Scatter") else op

    def _not_implemented(self, what):
        raise NotImplementedError(f"ResourceVariable.{what} is not implemented in scopeflow "
                                  "(TF's ResourceScatterNd*/ResourceCountUpTo ops)")

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        self._not_implemented("batch_scatter_update")

    def scatter_nd_add(self, indices, updates, name=None):
        self._not_implemented("scatter_nd_add")

    def scatter_nd_sub(self, indices, updates, name=None):
        self._not_implemented("scatter_nd_sub")

    def scatter_nd_update(self, indices, updates, name=None):
        self._not_implemented("scatter_nd_update")

    def count_up_to(self, limit):
        self._not_implemented("count_up_to")

    def _as_tensor(self, dtype=None, name=None, as_ref=False) -> Tensor:
        if as_ref:
            return self._handle
        if dtype is not None and not dtype.is_compatible_with(self._dtype):
            raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' "
                             f"for variable of type '{self._dtype.name}'")
        return self.value()


class _UnreadVariable(ResourceVariable):
    """What an assign returns with ``read_value=True``: the same variable, whose reads
    follow the update op (TF's ``_UnreadVariable``). Its ``name`` is the update's."""

    def __init__(self, parent, op):  # noqa: D107 - no Variable construction here
        self._handle = parent._handle
        self._dtype = parent._dtype
        self._shape = parent._shape
        self._graph = parent._graph
        self._initializer_op = parent._initializer_op
        self._initial_value = parent._initial_value
        self._is_initialized_op = None
        self._trainable = False
        self._constraint = None
        self._save_slice_info = None
        self._synchronization = VariableSynchronization.AUTO
        self._aggregation = VariableAggregation.NONE
        self._parent_op = op
        self._graph_element = self._read()

    name = property(lambda self: self._parent_op.name)
    op = property(lambda self: self._parent_op)

    def value(self):
        return self._graph_element

    def _as_control_op(self):
        return self._graph_element.op  # its read, which follows the update

    def to_proto(self, export_scope=None):
        raise TypeError("The result of an assign is not a variable to export")


def _resource_variable_conversion(v, dtype=None, name=None, as_ref=False):
    return v._as_tensor(dtype, name, as_ref)


register_tensor_conversion_function(ResourceVariable, _resource_variable_conversion,
                                    priority=40)
variables._RESOURCE_VARIABLE_CLASS.append(ResourceVariable)
