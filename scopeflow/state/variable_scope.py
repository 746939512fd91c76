"""Variable sharing: ``variable_scope``, ``get_variable``, reuse, custom getters, templates.

TF1's semantics, message for message: ``get_variable`` names come from the variable-scope
path only (``name_scope`` is ignored), ``variable_scope`` also opens a name scope (so ops
in a re-entered scope land in ``foo_1/``), reuse is inherited by child scopes and cannot
be switched off below a reusing scope.

Beyond TF1: the variable store logs what each ``get_variable`` call created or reused
(``sharing_report``), a second build of the same model in one graph is diagnosed in the
"already exists" error, and ``framework_variable_scope`` lets the framework create its
own variables (optimizer slots, ``global_step``) without inheriting the user's reuse flag.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import dataclasses
import enum
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from scopeflow.framework import dtypes
from scopeflow.framework.context import CONTEXT, GraphState
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    _graph_of,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.properties import read_only
from scopeflow.framework.sites import user_site
from scopeflow.framework.tensor_shape import as_shape
from scopeflow.ops import array_ops
from scopeflow.ops.state import init_ops
from scopeflow.state import resource_variable  # noqa: F401 - registers ResourceVariable
from scopeflow.state.partitioning import (
    PartitionedVariable,
    SaveSliceInfo,
    _PartitionInfo,
    call_partitioner,
    iter_slices,
    slice_dim_and_num_slices,
)
from scopeflow.state.variables import Variable

if TYPE_CHECKING:
    from scopeflow.framework.type_aliases import DTypeLike, ShapeLike

__all__ = [
    "AUTO_REUSE", "VariableScope", "variable_scope", "variable_op_scope", "get_variable",
    "get_local_variable", "get_variable_scope", "make_template", "Template", "sharing_report",
    "framework_variable_scope", "no_regularizer",
]


class _ReuseMode(enum.Enum):
    """TF's ``tf.AUTO_REUSE``: get the variable if it exists, create it otherwise."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


def no_regularizer(_):
    """A regularizer that adds nothing (to switch off a scope's default)."""
    return None


# ── A get_variable call's arguments, normalised once at the public boundary ──────────
# The keyword arguments TF passes to a custom getter, in TF's order (``name`` and
# ``getter`` are passed on their own; ``constraint`` only when the getter accepts it).
_GETTER_KWARGS = ("shape", "dtype", "initializer", "regularizer", "reuse", "trainable",
                  "collections", "caching_device", "partitioner", "validate_shape",
                  "use_resource", "synchronization", "aggregation")
# What a request may leave None for the enclosing ``VariableScope`` to supply.
_SCOPE_FALLBACKS = ("regularizer", "caching_device", "partitioner", "custom_getter", "reuse",
                    "use_resource", "initializer", "constraint", "dtype")


@dataclasses.dataclass(frozen=True)
class _VariableRequest:
    """One ``get_variable`` call: the public functions build it, the internal layers pass it.

    ``reuse`` keeps TF's flag (True/False/None/AUTO_REUSE), because custom getters receive it
    as is; the store decides with ``_Reuse.of(request.reuse)``.
    """

    name: str
    shape: object = None
    dtype: object = None
    initializer: object = None
    regularizer: object = None
    reuse: object = None
    trainable: bool | None = None
    collections: list[str] | None = None
    caching_device: object = None
    partitioner: object = None
    validate_shape: bool = True
    use_resource: object = None
    custom_getter: object = None
    constraint: object = None
    synchronization: object = None
    aggregation: object = None

    def getter_kwargs(self, with_constraint: bool) -> dict:
        """The keyword arguments a custom getter receives (TF's exact set and order)."""
        kwargs = {key: getattr(self, key) for key in _GETTER_KWARGS}
        if with_constraint:
            kwargs["constraint"] = self.constraint
        return kwargs


class _Reuse(enum.Enum):
    """What the store may do for a name: TF's tri-state ``reuse`` flag, decoded once."""

    CREATE = "create"  # reuse=False: the variable must not exist yet
    REUSE = "reuse"  # reuse=True: the variable must exist
    GET_OR_CREATE = "get_or_create"  # reuse=AUTO_REUSE (or None)

    @classmethod
    def of(cls, flag) -> _Reuse:
        # NOTE: identity tests, as TF's store: only the bools themselves create or reuse.
        if flag is False:
            return cls.CREATE
        if flag is True:
            return cls.REUSE
        return cls.GET_OR_CREATE


# ── The variable store: name -> variable, one per graph ─────────────────────────────
class _VariableStore:
    def __init__(self):
        self.vars: dict[str, Variable] = {}
        self.partitioned_vars: dict[str, PartitionedVariable] = {}
        # (full name, "created" | "reused", user site) for every get_variable call.
        self.log: list[tuple[str, str, object]] = []

    def get_variable(self, request: _VariableRequest):
        """Gets or creates ``request.name``, through ``request.custom_getter`` if it has one."""
        custom_getter = request.custom_getter
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        request = dataclasses.replace(
            request, dtype=getattr(request.dtype, "base_dtype", request.dtype))
        if custom_getter is None:
            return self._get_single_or_partitioned(request)
        kwargs = request.getter_kwargs(with_constraint=_accepts(custom_getter, "constraint"))
        return custom_getter(getter=self._true_getter, name=request.name, **kwargs)

    def _true_getter(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, constraint=None, **kwargs):
        # NOTE: the getter custom getters call keeps TF's signature (user code calls it
        # positionally and with the kwargs it was given); it is a public boundary too.
        return self._get_single_or_partitioned(_VariableRequest(
            name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            reuse=reuse, trainable=trainable, collections=collections,
            caching_device=caching_device, partitioner=partitioner,
            validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
            synchronization=kwargs.get("synchronization"),
            aggregation=kwargs.get("aggregation")))

    def _get_single_or_partitioned(self, request: _VariableRequest):
        """TF's ``_true_getter``: a partitioner (and a non-scalar shape) makes parts."""
        name, partitioner, shape = request.name, request.partitioner, request.shape
        is_scalar = (shape is not None and isinstance(shape, collections.abc.Sequence)
                     and not shape)
        if partitioner is not None and not is_scalar:
            if not callable(partitioner):
                raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
            with name_scope(None):
                return self._get_partitioned_variable(request)
        if request.reuse is True and partitioner is None and name in self.partitioned_vars:
            return self._get_partitioned_variable(request)
        if f"{name}/part_0" in self.vars:
            raise ValueError("No partitioner was provided, but a partitioned version of the "
                             f"variable was found: {name}/part_0. Perhaps a variable of the "
                             "same name was already created with partitioning?")
        return self._get_single_variable(request)

    def _get_partitioned_variable(self, request: _VariableRequest) -> PartitionedVariable:
        """TF's ``_get_partitioned_variable``: the parts ``<name>/part_<i>``, each a slice."""
        name, reuse, initializer = request.name, request.reuse, request.initializer
        dtype = dtypes.as_dtype(request.dtype or dtypes.float32)
        if name in self.vars:
            raise ValueError("A partitioner was provided, but an unpartitioned version of the "
                             f"variable was found: {name}.  Perhaps a variable of the same "
                             "name was already created without partitioning?")
        shape = as_shape(request.shape)
        if isinstance(initializer, Tensor):
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or request.partitioner:
            partitions = call_partitioner(request.partitioner, shape, dtype)
        if name in self.partitioned_vars:
            return self._reuse_partitioned(name, shape, dtype, partitions, reuse)
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created "
                             "with tf.get_variable(). Did you mean to set reuse=False or "
                             "reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = slice_dim_and_num_slices(partitions)
        self._check_existing_parts(name, num_slices)
        parts = []
        for i, (var_offset, var_shape) in enumerate(
                iter_slices(shape.as_list(), num_slices, slice_dim)):
            part_name = f"{name}/part_{i}"
            with name_scope(part_name + "/PartitionedInitializer"):
                init, init_shape, part_dtype = _part_initializer(
                    name, initializer, dtype, var_offset, var_shape)
            with name_scope(None):
                var = self._get_single_variable(
                    dataclasses.replace(request, name=part_name, shape=init_shape,
                                        dtype=part_dtype, initializer=init),
                    partition_info=_PartitionInfo(full_shape=shape.as_list(),
                                                  var_offset=var_offset))
            var._save_slice_info = SaveSliceInfo(name, shape.as_list(), var_offset, var_shape)
            parts.append(var)
        partitioned = PartitionedVariable(name=name, shape=shape, dtype=part_dtype,
                                          variable_list=parts, partitions=partitions)
        self.partitioned_vars[name] = partitioned
        return partitioned

    def _reuse_partitioned(self, name, shape, dtype, partitions, reuse):
        if reuse is False:
            raise ValueError(f"Partitioned variable with name {name} already exists. Did you "
                             "mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
        existing = self.partitioned_vars[name]
        if not shape.is_compatible_with(existing.get_shape()):
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified shape "
                             f"{shape} and found shape {existing.get_shape()}.")
        if not dtype.is_compatible_with(existing.dtype):
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified dtype "
                             f"{dtype.name} and found dtype {existing.dtype.name}.")
        if partitions is not None and list(existing._get_partitions()) != list(partitions):
            raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                             f"partitions {partitions} and found partitions "
                             f"{existing._get_partitions()}.")
        self.log.append((name, "reused", user_site(2)))
        return existing

    def _check_existing_parts(self, name, num_slices):
        if f"{name}/part_0" not in self.vars:
            return
        if f"{name}/part_{num_slices - 1}" not in self.vars:
            raise ValueError(
                "Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, "
                f"but {name}/part_{num_slices - 1} was not.")
        if f"{name}/part_{num_slices}" in self.vars:
            raise ValueError(
                "Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, "
                f"but so was the extra shard {name}/part_{num_slices}.")

    def _get_single_variable(self, request: _VariableRequest, partition_info=None):
        name = request.name
        from_value = request.initializer is not None and not callable(request.initializer)
        if request.shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(request.dtype)
        shape = as_shape(request.shape)
        site = user_site(2)
        reuse = _Reuse.of(request.reuse)
        if name in self.vars:
            found = self.vars[name]
            if reuse is _Reuse.CREATE:
                raise ValueError(_already_exists_message(name, found, site))
            _check_compatible(name, found, shape, dtype)
            self.log.append((name, "reused", site))
            return found
        if reuse is _Reuse.REUSE:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?")
        if from_value:
            init_val, variable_dtype = request.initializer, None
        else:
            init_val, variable_dtype = _initial_value(name, request.initializer, shape, dtype,
                                                      partition_info)
        v = Variable(initial_value=init_val, name=name, trainable=request.trainable,
                     collections=request.collections, dtype=variable_dtype,
                     validate_shape=request.validate_shape, constraint=request.constraint,
                     use_resource=request.use_resource)
        self.vars[name] = v
        self.log.append((name, "created", site))
        _add_regularization_loss(v, name, request.regularizer)
        return v


def _check_compatible(name, found, shape, dtype):
    if not shape.is_compatible_with(found.get_shape()):
        raise ValueError(f"Trying to share variable {name}, but specified shape {shape} "
                         f"and found shape {found.get_shape()}.")
    if not dtype.is_compatible_with(found.dtype):
        raise ValueError(f"Trying to share variable {name}, but specified dtype "
                         f"{dtype.name} and found dtype {found.dtype.name}.")


def _part_initializer(name, initializer, dtype, var_offset, var_shape):
    """``(initializer, shape, dtype)`` for one part: a constant initial value is sliced
    (in ``<part>/PartitionedInitializer/``), a callable gets the part's shape."""
    if initializer is None:
        return _default_initializer(name, dtype), var_shape, dtype
    if callable(initializer):
        return initializer, var_shape, dtype
    if isinstance(initializer, Tensor):
        init = array_ops.slice(initializer, var_offset, var_shape)
        return init, None, init.dtype.base_dtype
    init = array_ops.slice(convert_to_tensor(initializer, dtype=dtype), var_offset, var_shape)
    return init, None, dtype


def _initial_value(name, initializer, shape, dtype, partition_info=None):
    """``(initial_value, variable dtype)`` for a new variable whose initializer is not a
    constant: a callable the variable calls, with the dtype it should have (or None)."""
    if initializer is None:
        if not shape.is_fully_defined():
            raise ValueError(f"Variable {name} did not get an initializer, so its "
                             "`shape` argument must be specified.")
        initializer = _default_initializer(name, dtype)
    if inspect.isclass(initializer):
        initializer = initializer()
    if shape.is_fully_defined():
        if _accepts(initializer, "partition_info"):
            init_val = functools.partial(initializer, shape.as_list(), dtype=dtype,
                                         partition_info=partition_info)
        else:
            init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
        return init_val, dtype.base_dtype
    if _needs_no_arguments(initializer):
        return initializer, None
    # TF's words, then which variable and shape (TF names neither).
    raise ValueError("The initializer passed is not valid. It should be a callable with no "
                     "arguments and the shape should not be provided or an instance of "
                     "`tf.keras.initializers.*' and `shape` should be fully defined. "
                     f"(variable {name}, shape {shape})")


def _add_regularization_loss(v, name, regularizer):
    if regularizer:
        with name_scope(name + "/Regularizer/"):
            loss = regularizer(v)
        if loss is not None:
            get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)


def _default_initializer(name, dtype):
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


def _accepts(fn, arg) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _needs_no_arguments(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _already_exists_message(name, found, site) -> str:
    first = found.op.creation_site
    msg = (f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
           f"reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n"
           f"  File \"{first.filename}\", line {first.lineno}, in {first.function}\n")
    if (first.filename, first.lineno) == (site.filename, site.lineno):
        msg += (f"\nThe same line ({site}) is creating it again: is the model-building code "
                "running a second time in this graph (a re-run notebook cell, a second call "
                "of a build function)? Call tf.reset_default_graph() before rebuilding, or "
                "build the second copy inside a variable_scope with reuse=True (or "
                "tf.AUTO_REUSE) to share the variables.")
    return msg


def _store(graph=None) -> _VariableStore:
    graph = graph or get_default_graph()
    if graph._variable_store is None:
        graph._variable_store = _VariableStore()
    return graph._variable_store


# ── VariableScope: the value ``with tf.variable_scope(...) as scope`` gives ─────────
class VariableScope:
    """A variable scope's name, reuse mode and defaults (initializer, dtype, regularizer...)."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, name_scope="", dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = read_only("_name")
    original_name_scope = read_only("_name_scope")
    reuse = read_only("_reuse")
    initializer = read_only("_initializer")
    dtype = read_only("_dtype")
    use_resource = read_only("_use_resource")
    regularizer = read_only("_regularizer")
    caching_device = read_only("_caching_device")
    partitioner = read_only("_partitioner")
    custom_getter = read_only("_custom_getter")
    constraint = read_only("_constraint")

    def reuse_variables(self):
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        return get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def created_variables(self) -> list:
        """Variables that ``get_variable`` created under this scope (beyond TF1)."""
        return _logged(self._name, "created")

    def reused_variables(self) -> list:
        """Variables that ``get_variable`` returned again under this scope (beyond TF1)."""
        return _logged(self._name, "reused")

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None, **extra):
        """Gets or creates ``<scope name>/<name>`` with this scope's defaults."""
        return self._get_variable(var_store, _VariableRequest(
            name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            reuse=reuse, trainable=trainable, collections=collections,
            caching_device=caching_device, partitioner=partitioner,
            validate_shape=validate_shape, use_resource=use_resource,
            custom_getter=custom_getter, constraint=constraint,
            synchronization=extra.get("synchronization"), aggregation=extra.get("aggregation")))

    def _get_variable(self, var_store, request: _VariableRequest):
        # Variable names depend only on the variable scope: clear the name scope meanwhile.
        with name_scope(None):
            _check_initializer_dtype(request)
            return var_store.get_variable(self._complete(request))

    def _complete(self, request: _VariableRequest) -> _VariableRequest:
        """``request`` under this scope: its full name, and this scope's defaults for what
        the request leaves None."""
        defaults = {key: getattr(self, "_" + key) for key in _SCOPE_FALLBACKS
                    if getattr(request, key) is None}
        name = self._name + "/" + request.name if self._name else request.name
        return dataclasses.replace(request, name=name, **defaults)

    def __repr__(self):
        return f"<VariableScope name={self._name!r} reuse={self._reuse!r}>"


def _logged(scope_name, action) -> list:
    store = _store()
    prefix = scope_name + "/" if scope_name else ""
    seen, out = set(), []
    for name, what, _ in store.log:
        if what == action and name.startswith(prefix) and name not in seen:
            seen.add(name)
            out.append(store.vars[name] if name in store.vars
                       else store.partitioned_vars[name])
    return out


def _check_initializer_dtype(request: _VariableRequest):
    dtype, initializer = request.dtype, request.initializer
    if dtype is not None and initializer is not None and not callable(initializer):
        init_dtype = convert_to_tensor(initializer).dtype.base_dtype
        if init_dtype != dtype:
            raise ValueError(f"Initializer type '{init_dtype}' and explicit dtype "
                             f"'{dtypes.as_dtype(dtype)}' don't match.")


def _scope_state(graph=None) -> GraphState:
    """This thread's variable-scope state on ``graph`` (the default graph): the current
    scope and how often each scope name was opened (for ``default_name``)."""
    state = CONTEXT.of(graph or get_default_graph())
    if state.variable_scope is None:
        state.variable_scope = VariableScope(False)
    return state


def _open_variable_scope(state, scope_name):
    counts = state.variable_scope_counts
    counts[scope_name] = counts.get(scope_name, 0) + 1


def _close_variable_subscopes(state, scope_name):
    prefix = scope_name + "/"
    counts = state.variable_scope_counts
    for k in counts:
        if scope_name is None or k.startswith(prefix):
            counts[k] = 0


def get_variable_scope() -> VariableScope:
    """The current ``VariableScope`` (the root scope has name ``""``)."""
    return _scope_state().variable_scope


def _unique_variable_scope(prefix) -> str:
    state = _scope_state()
    current = state.variable_scope
    name = current.name + "/" + prefix if current.name else prefix
    counts = state.variable_scope_counts
    if counts.get(name, 0) == 0:
        return prefix
    idx = 1
    while counts.get(f"{name}_{idx}", 0) > 0:
        idx += 1
    return f"{prefix}_{idx}"


def _wrap_custom_getter(custom_getter, old_getter):
    """Nested custom getters compose: the inner one calls the outer one, which calls TF's."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped_custom_getter


@dataclasses.dataclass(frozen=True)
class _ScopeDefaults:
    """What ``variable_scope(...)`` sets for the variables below it (None: inherit)."""

    initializer: object = None
    regularizer: object = None
    caching_device: object = None
    partitioner: object = None
    dtype: object = None
    use_resource: object = None
    constraint: object = None

    def apply_to(self, scope: VariableScope):
        # NOTE: ``constraint`` is not inherited (as TF): the new scope gets it when built.
        for key in ("initializer", "regularizer", "caching_device", "partitioner", "dtype",
                    "use_resource"):
            value = getattr(self, key)
            if value is not None:
                getattr(scope, "set_" + key)(value)


_NO_DEFAULTS = _ScopeDefaults()


def _child_scope(base, reuse, name, name_scope, constraint) -> VariableScope:
    """A ``VariableScope`` with ``base``'s defaults (all but the constraint)."""
    return VariableScope(
        reuse, name=name, initializer=base.initializer, regularizer=base.regularizer,
        caching_device=base.caching_device, partitioner=base.partitioner,
        custom_getter=base.custom_getter, name_scope=name_scope, dtype=base.dtype,
        use_resource=base.use_resource, constraint=constraint)


def _pure_variable_scope(name_or_scope, reuse=None, old_name_scope=None, custom_getter=None,
                         force_reuse=False, defaults=_NO_DEFAULTS):
    """Enters a variable scope without touching name scopes (TF's ``_pure_variable_scope``)."""
    return _PureVariableScope((name_or_scope, reuse, old_name_scope, custom_getter,
                               force_reuse, defaults))


class _PureVariableScope:
    """Enters a variable scope without touching name scopes (TF's ``_pure_variable_scope``).

    A class, not a generator, because TF's exit may be retried: after "Improper nesting of
    variable_scope." the scope is still current-or-below, and once the inner scopes have
    exited, exiting it again restores the scope it was entered from (as TF's).
    """

    def __init__(self, args):
        self._args = args  # _pure_variable_scope's arguments, in its order

    def __enter__(self) -> VariableScope:
        name_or_scope, reuse, old_name_scope, custom_getter, force_reuse, defaults = self._args
        state = _scope_state()
        old = state.variable_scope
        reentered = isinstance(name_or_scope, VariableScope)
        if reentered:
            base = name_or_scope
            scope = _child_scope(base, base.reuse if not reuse else reuse, base.name,
                                 base.original_name_scope, defaults.constraint)
        else:
            base = old
            new_name = old.name + "/" + name_or_scope if old.name else name_or_scope
            inherited = reuse if force_reuse else (reuse or old.reuse)
            scope = _child_scope(base, inherited, new_name,
                                 name_or_scope if old_name_scope is None else old_name_scope,
                                 defaults.constraint)
        _open_variable_scope(state, scope.name)
        self._old_subscopes = copy.copy(state.variable_scope_counts) if reentered else None
        defaults.apply_to(scope)
        if custom_getter is not None:
            scope.set_custom_getter(_wrap_custom_getter(custom_getter, base.custom_getter))
        state.variable_scope = scope
        self._state, self._old, self._scope = state, old, scope
        return scope

    def __exit__(self, *exc_info):
        state, scope = self._state, self._scope
        if state.variable_scope is not scope:
            raise RuntimeError("Improper nesting of variable_scope.")
        if self._old_subscopes is not None:
            state.variable_scope_counts = self._old_subscopes
        else:
            _close_variable_subscopes(state, scope.name)
        state.variable_scope = self._old
        return False


def _checked_scope_reuse(name_or_scope, default_name, reuse, auxiliary_name_scope):
    """Validates ``variable_scope``'s arguments; returns its ``reuse`` (False: inherit)."""
    if default_name is None and name_or_scope is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None  # TF1: a child cannot switch reuse off; False means "inherit"
    if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
        raise ValueError("The reuse parameter must be True or False or None.")
    if not isinstance(auxiliary_name_scope, bool):
        raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                        f"{auxiliary_name_scope}")
    if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
        raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
    return reuse


class variable_scope:  # noqa: N801 (TF's name)
    """TF1's ``tf.variable_scope``: a variable-scope path plus a name scope for ops.

    >>> with variable_scope("cnn"):
    ...     with variable_scope("conv1"):
    ...         get_variable("w", [1]).name
    'cnn/conv1/w:0'

    Exiting a scope while a scope entered inside it is still open raises TF's
    ``RuntimeError("Improper nesting of variable_scope.")``; its name scope is left then,
    and once the inner scope has exited, exiting this one again restores the enclosing
    variable scope (TF's behaviour, exit for exit).
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        self._reuse = _checked_scope_reuse(name_or_scope, default_name, reuse,
                                           auxiliary_name_scope)
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._custom_getter = custom_getter
        self._auxiliary_name_scope = auxiliary_name_scope
        self._defaults = _ScopeDefaults(
            initializer=initializer, regularizer=regularizer, caching_device=caching_device,
            partitioner=partitioner, dtype=dtype, use_resource=use_resource,
            constraint=constraint)
        self._stack = None
        self._pure = None

    def __enter__(self) -> VariableScope:
        name_or_scope, reuse = self._name_or_scope, self._reuse
        graph = _graph_of(self._values) if self._values else get_default_graph()
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(graph.as_default())
            if self._auxiliary_name_scope:
                ns = None
            else:
                current = graph.get_name_scope()
                ns = graph.name_scope(current + "/" if current else "")
            if name_or_scope is not None:
                ns_name = name_or_scope if isinstance(name_or_scope, str) else \
                    name_or_scope.name.split("/")[-1]
                old_name_scope = None
                if ns_name or ns is not None:
                    entered = stack.enter_context(ns or graph.name_scope(ns_name))
                    old_name_scope = entered if isinstance(name_or_scope, str) else \
                        name_or_scope.original_name_scope
                pure = _pure_variable_scope(
                    name_or_scope, reuse=reuse, old_name_scope=old_name_scope,
                    custom_getter=self._custom_getter, defaults=self._defaults)
            else:
                if reuse:
                    raise ValueError("reuse=True cannot be used without a name_or_scope")
                entered = stack.enter_context(ns or graph.name_scope(self._default_name))
                unique = _unique_variable_scope(self._default_name)
                pure = _pure_variable_scope(unique, old_name_scope=entered,
                                            custom_getter=self._custom_getter,
                                            defaults=self._defaults)
            scope = pure.__enter__()
        except BaseException:
            stack.close()
            raise
        self._stack, self._pure = stack, pure
        return scope

    def __exit__(self, *exc_info):
        try:
            self._pure.__exit__(*exc_info)
        finally:
            # The name scope and the graph are left once (a retried exit finds them gone).
            self._stack.__exit__(*exc_info)
        return False


def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    """Deprecated TF1 spelling of ``variable_scope(name_or_scope, default_name, values)``."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)


@contextlib.contextmanager
def framework_variable_scope(name_or_scope, reuse=AUTO_REUSE):
    """A variable scope for framework-created variables that ignores the user's reuse flag.

    Optimizer slots, ``global_step`` and the like are created here, so building an
    optimizer inside ``variable_scope(..., reuse=True)`` cannot fail with "does not exist"
    (USER_NEEDS §6). The name scope is opened as ``variable_scope`` would.
    """
    graph = get_default_graph()
    with graph.name_scope(name_or_scope if isinstance(name_or_scope, str)
                          else name_or_scope.name.split("/")[-1]) as entered, \
            _pure_variable_scope(name_or_scope, reuse=reuse, old_name_scope=entered,
                                 force_reuse=True) as scope:
        yield scope


# What mypy and IDEs see: a partitioner makes a PartitionedVariable, else a Variable.
@overload
def get_variable(name: str, shape: ShapeLike = None, dtype: DTypeLike | None = None,
                 initializer: Any = None, regularizer: Callable[..., Any] | None = None,
                 trainable: bool | None = None, collections: list[str] | None = None,
                 caching_device=None, partitioner: None = None, validate_shape: bool = True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None) -> Variable: ...
@overload
def get_variable(name: str, shape: ShapeLike = None, dtype: DTypeLike | None = None,
                 initializer: Any = None, regularizer: Callable[..., Any] | None = None,
                 trainable: bool | None = None, collections: list[str] | None = None,
                 caching_device=None, partitioner: Callable[..., Any] = ...,
                 validate_shape: bool = True, use_resource=None, custom_getter=None,
                 constraint=None, synchronization=None,
                 aggregation=None) -> PartitionedVariable: ...


def get_variable(name: str, shape: ShapeLike = None, dtype: DTypeLike | None = None,
                 initializer: Any = None, regularizer: Callable[..., Any] | None = None,
                 trainable: bool | None = None, collections: list[str] | None = None,
                 caching_device=None, partitioner=None, validate_shape: bool = True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None):
    """Gets the variable ``<current variable scope>/<name>``, or creates it (TF1).

    Without ``initializer`` floats get ``glorot_uniform_initializer`` and integers zeros;
    the enclosing scopes supply defaults for initializer, dtype, regularizer and
    partitioner.

    With a ``partitioner`` (and a non-scalar ``shape``) the variable is split along one
    axis into ``<name>/part_0``, ``<name>/part_1``... and a ``tf.PartitionedVariable`` is
    returned; each part's initializer is called with the part's shape and
    ``partition_info`` (the full shape and the part's offset), a constant initial value is
    sliced, and reuse returns the same ``PartitionedVariable``.
    """
    request = _VariableRequest(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
        aggregation=aggregation)
    return get_variable_scope()._get_variable(_store(), request)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, **kwargs):
    """``get_variable`` into ``LOCAL_VARIABLES`` (not trainable, not saved by default)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=trainable, collections=collections,
                        **kwargs)


def sharing_report(scope=None) -> str:
    """What ``get_variable`` created and reused (under ``scope``), one line each, in order."""
    prefix = "" if not scope else (scope.name if isinstance(scope, VariableScope) else scope)
    prefix = prefix + "/" if prefix and not prefix.endswith("/") else prefix
    lines = [f"{what:7} {name}  ({site})" for name, what, site in _store().log
             if name.startswith(prefix)]
    return "\n".join(lines)


# ── Templates ────────────────────────────────────────────────────────────────────────
class Template:
    """Wraps ``func`` so every call shares the variables its first call created."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._site = user_site(2)
        self._variable_scope = None
        if create_scope_now:
            with _pure_variable_scope(unique_name or _unique_variable_scope(name),
                                      custom_getter=custom_getter) as vs:
                self._variable_scope = vs
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args, kwargs):
        try:
            if not self._variables_created:
                self._variables_created = True
                return self._func(*args, **kwargs)
            trainable_at_start = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
            result = self._func(*args, **kwargs)
            trainable = get_collection(GraphKeys.TRAINABLE_VARIABLES)
            if trainable_at_start != len(trainable):
                raise ValueError("Trainable variable created when calling a template after the "
                                 "first time, perhaps you used tf.Variable when you meant "
                                 f"tf.get_variable: {trainable[trainable_at_start:]}")
            return result
        except Exception as exc:
            if exc.args and isinstance(exc.args[0], str):
                exc.args = (f"{exc.args[0]}\n\noriginally defined at: {self._site}",) + \
                    exc.args[1:]
            raise

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with variable_scope(self._variable_scope, reuse=not self._first_call):
                self._first_call = False
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name,
                            custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs
            self._first_call = False
            return self._call_func(args, kwargs)

    name = read_only("_name")
    func = read_only("_func")
    variable_scope = read_only("_variable_scope")

    @property
    def variable_scope_name(self):
        return self._variable_scope.name if self._variable_scope else None

    def _collection(self, key):
        if self._variable_scope is None:
            return []
        return get_collection(key, self.variable_scope_name + "/")

    @property
    def variables(self):
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    global_variables = variables

    @property
    def trainable_variables(self):
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self):
        trainable = set(self.trainable_variables)
        return [v for v in self.variables if v not in trainable]

    @property
    def local_variables(self):
        return self._collection(GraphKeys.LOCAL_VARIABLES)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs) -> Template:
    """``func_`` with variable sharing: the first call creates, later calls reuse."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)
