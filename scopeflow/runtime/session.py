"""``tf.Session`` and ``tf.InteractiveSession``: feeds, fetches, plans and per-session state."""

from __future__ import annotations

import collections
import threading
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

from scopeflow.framework import errors, nest
from scopeflow.framework.context import CONTEXT, get_default_session, pushed
from scopeflow.framework.graph import (
    Graph,
    GraphGrowthWarning,
    Operation,
    Tensor,
    get_default_graph,
)
from scopeflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from scopeflow.framework.sites import user_stacklevel
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.ragged.ragged_tensor import RaggedTensor, RaggedTensorValue, value_from_components
from scopeflow.runtime import malloc_tuning, shape_specialization, step_stats
from scopeflow.runtime import passes as plan_passes
from scopeflow.runtime.kernel_errors import kernel_error
from scopeflow.runtime.partition_graphs import fill_partition_graphs
from scopeflow.runtime.placement import place
from scopeflow.runtime.plan import UninitializedVariable, compile_plan
from scopeflow.runtime.session_handles import wrap_handles
from scopeflow.runtime.subplan import function_caller

if TYPE_CHECKING:
    from scopeflow.framework.type_aliases import FeedDict
    from scopeflow.state.variables import Variable

__all__ = ["Session", "InteractiveSession", "get_default_session", "SessionState"]

_Key = TypeVar("_Key")

# Runs that must grow the graph, one after another, before we call it a loop (§10).
GROWTH_STREAK_TO_WARN = 5


class SessionState:
    """Everything a session owns: variable values and random-stream positions."""

    __slots__ = ("vars", "rngs", "pending_rngs", "subplans", "passes", "resources", "deadlines",
                 "__weakref__")

    def __init__(self, passes=None):
        self.vars: dict[str, np.ndarray] = {}
        self.rngs: dict = {}
        # Restored stream positions (train.training_state) of random ops that have not run
        # in this session yet: taken when the op's stream is made.
        self.pending_rngs: dict[str, tuple[int, int]] = {}
        # Compiled sub-plans of traced functions (runtime.subplan), and the
        # plan passes they are compiled with (the session's).
        self.subplans: dict = {}
        self.passes = passes
        # Per-session resources of stateful ops, by op name: iterators (tf.data), queues.
        self.resources: dict = {}
        # The deadline (time.monotonic) of each thread's run in progress that has one
        # (RunOptions.timeout_in_ms), by thread id, for kernels that block (queue ops).
        self.deadlines: dict[int, float] = {}

    # Traced functions (cond branches, loop bodies, tf.data functions) compiled for this
    # session: the kernels that own them call them through here, not by importing runtime.
    function = function_caller


# ── Fetch structures ─────────────────────────────────────────────────────────────────
def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


class _FetchStructure:
    """Flattens any nesting of lists/tuples/dicts/namedtuples of fetches and rebuilds it."""

    __slots__ = ("elements", "build")

    def __init__(self, graph, fetches):
        self.elements: list = []
        self.build = self._walk(graph, fetches)

    def _walk(self, graph, fetch):
        if fetch is None:
            raise TypeError(f'Argument `fetch` = {fetch} has invalid type '
                            f'"{type(fetch).__name__}". Cannot be None')
        if isinstance(fetch, (list, tuple)):
            builders = [self._walk(graph, f) for f in fetch]
            if _is_namedtuple(fetch):
                cls = type(fetch)
                return lambda vals: cls(*[b(vals) for b in builders])
            if isinstance(fetch, tuple):
                return lambda vals: tuple(b(vals) for b in builders)
            return lambda vals: [b(vals) for b in builders]
        if isinstance(fetch, (dict, collections.abc.Mapping)):
            keys = list(fetch)
            builders = [self._walk(graph, fetch[k]) for k in keys]
            cls = type(fetch)

            def build_dict(vals):
                out = {k: b(vals) for k, b in zip(keys, builders)}
                return out if cls is dict else cls(out)
            return build_dict
        if type(fetch) is not Tensor:  # composites fetch their component tensors
            if isinstance(fetch, SparseTensor):
                parts = self._walk(graph, fetch.components())
                return lambda vals: SparseTensorValue(*parts(vals))
            if isinstance(fetch, RaggedTensor):  # its row splits and flat values
                parts = self._walk(graph, fetch._session_components())
                return lambda vals: value_from_components(parts(vals))
            if isinstance(fetch, IndexedSlices):
                if fetch.dense_shape is None:
                    parts = self._walk(graph, (fetch.values, fetch.indices))
                    return lambda vals: IndexedSlicesValue(*parts(vals), None)
                parts = self._walk(graph, (fetch.values, fetch.indices, fetch.dense_shape))
                return lambda vals: IndexedSlicesValue(*parts(vals))
        element = _as_fetch_element(graph, fetch)
        index = len(self.elements)
        self.elements.append(element)
        if isinstance(element, Operation):
            return lambda vals: None
        return lambda vals: vals[index]


def _as_fetch_element(graph, fetch):
    try:
        element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
    except TypeError as e:
        raise TypeError(f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" '
                        f"must be a string or Tensor. ({e})") from None
    except (ValueError, KeyError) as e:  # str(KeyError) quotes its text, as in TF's message
        raise ValueError(f"Argument `fetch` = {fetch} cannot be interpreted as a Tensor. "
                         f"({e})") from None
    if not graph.is_fetchable(element):
        raise ValueError(f"Operation {element.name!r} has been marked as not fetchable.")
    return element


# ── Session ──────────────────────────────────────────────────────────────────────────
class Session:
    """Runs ops of one graph; owns variable values and random streams (``tf.Session``)."""

    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = get_default_graph()
        elif not isinstance(graph, Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        self._graph = graph
        self._target = target
        self._config = config
        malloc_tuning.apply_once()  # freed step buffers stay for the next step
        # Which plan rewrites run: all, unless SCOPEFLOW_PLAN_PASSES or the config says not.
        self._passes = plan_passes.for_config(config, plan_passes.from_environment())
        self._state = SessionState(self._passes)
        self._plans: dict = {}
        self._placed = 0  # how many of the graph's ops the last placement saw
        self._closed = False
        self._default_cm = None
        # Runs may come from several threads (queue runners): placement and compiling a
        # plan are done under this lock; running a plan is not (a dequeue may block).
        self._lock = threading.RLock()

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    # -- lifecycle -----------------------------------------------------------------------
    def close(self):
        self._closed = True
        self._plans.clear()
        old, self._state = self._state, SessionState(self._passes)
        for resource in list(old.resources.values()):  # wakes ops blocked on a queue
            cancel = getattr(resource, "cancel", None)
            if cancel is not None:
                cancel()

    def as_default(self):
        """Makes this the default session for ``Tensor.eval``/``Operation.run`` in a block."""
        return _as_default(self)

    def __enter__(self):
        self._default_cm = self.as_default()
        self._default_cm.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._default_cm.__exit__(exc_type, exc, tb)
        self._default_cm = None
        self.close()
        return False

    def __del__(self):
        pass

    # -- running -------------------------------------------------------------------------
    # What mypy and IDEs see of a run's result: a tensor's or variable's value is an array
    # (a 0-d one comes back as a NumPy scalar, which has the same methods), an op's None,
    # and a list, tuple or dict of fetches the same structure of values.
    @overload
    def run(self, fetches: Operation, feed_dict: FeedDict | None = None, options: Any = None,
            run_metadata: Any = None) -> None: ...
    @overload
    def run(self, fetches: Tensor | Variable, feed_dict: FeedDict | None = None,
            options: Any = None, run_metadata: Any = None) -> np.ndarray: ...
    @overload
    def run(self, fetches: SparseTensor, feed_dict: FeedDict | None = None,
            options: Any = None, run_metadata: Any = None) -> SparseTensorValue: ...
    @overload
    def run(self, fetches: list[Any], feed_dict: FeedDict | None = None, options: Any = None,
            run_metadata: Any = None) -> list[Any]: ...
    @overload
    def run(self, fetches: tuple[Any, ...], feed_dict: FeedDict | None = None,
            options: Any = None, run_metadata: Any = None) -> tuple[Any, ...]: ...
    @overload
    def run(self, fetches: dict[_Key, Any], feed_dict: FeedDict | None = None,
            options: Any = None, run_metadata: Any = None) -> dict[_Key, Any]: ...
    @overload
    def run(self, fetches: Any, feed_dict: FeedDict | None = None, options: Any = None,
            run_metadata: Any = None) -> Any: ...

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for ``fetches``; returns their values in the same structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:  # checked before the fetches, as TF
            raise RuntimeError("The Session graph is empty. Add operations to the graph "
                               "before calling run().")
        if type(fetches) is Tensor or type(fetches) is Operation:
            elements, build = [fetches], None
            if fetches.graph is not self._graph:
                _as_fetch_element(self._graph, fetches)  # raises TF's error
        else:
            structure = _FetchStructure(self._graph, fetches)
            elements, build = structure.elements, structure.build
        feed_tensors, feed_values = self._resolve_feeds(feed_dict)
        timeout_ms = getattr(options, "timeout_in_ms", 0) if options is not None else 0
        if run_metadata is not None and getattr(options, "trace_level", 0):
            values = self._run_traced(elements, feed_tensors, feed_values, options,
                                      run_metadata)
        elif timeout_ms > 0:
            deadlines, thread = self._state.deadlines, threading.get_ident()
            deadlines[thread] = time.monotonic() + timeout_ms / 1000
            try:
                values = self._run_elements(elements, feed_tensors, feed_values)
            finally:
                deadlines.pop(thread, None)
        else:
            values = self._run_elements(elements, feed_tensors, feed_values)
        if run_metadata is not None and getattr(options, "output_partition_graphs", False):
            fill_partition_graphs(run_metadata, self._graph, elements, feed_tensors)
        values = wrap_handles(elements, values, self)  # GetSessionHandle: a TensorHandle
        if build is None:
            return values[0] if type(fetches) is Tensor else None
        return build(values)

    def _run_traced(self, elements, feed_tensors, feed_values, options, run_metadata):
        """A run with RunOptions.trace_level set: per-op times into run_metadata.step_stats
        (runtime.step_stats; the untraced path above never reaches here)."""
        untraced = type(options)(timeout_in_ms=options.timeout_in_ms)

        def run():
            return self.run(elements, dict(zip(feed_tensors, feed_values)), untraced)
        values, spans, plan_globals, wall_offset = step_stats.traced(run)
        plans = [q for p in self._plans.values()
                 for q in [p, *(p.specializations.plans() if p.specializations else ())]]
        plan = next((p for p in plans if p.fn.__globals__ is plan_globals), None)
        if plan is not None:
            step_stats.fill_step_stats(run_metadata, plan, spans, wall_offset)
        return values

    def _resolve_feeds(self, feed_dict):
        if not feed_dict:
            return (), ()
        graph = self._graph
        tensors, values = [], []
        for key, value in feed_dict.items():
            if type(key) is Tensor and key._op._graph is graph:
                pairs = ((key, value),)
            elif isinstance(key, SparseTensor):  # feeds its three component tensors
                pairs = zip(key.components(), _sparse_feed_value(key, value))
            elif isinstance(key, RaggedTensor):  # feeds its row splits and flat values
                pairs = zip(key._session_components(), _ragged_feed_value(key, value))
            elif isinstance(key, tuple):  # nested keys (an LSTMStateTuple): TF flattens them
                return self._resolve_feeds(_flatten_feed_dict(feed_dict))
            else:
                if type(value) is Tensor:  # here, where TF's message can show the key given
                    raise _tensor_feed_error(key, value)
                pairs = ((self._feed_key_to_tensor(key), value),)
            for t, v in pairs:
                if not graph.is_feedable(t):
                    raise ValueError(f"Tensor {t.name} may not be fed.")
                tensors.append(t)
                values.append(v)
        return tuple(tensors), values

    def _feed_key_to_tensor(self, key):
        if hasattr(key, "_as_feed_tensor"):
            key = key._as_feed_tensor()
        try:
            t = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            msg = e.args[0] if e.args else str(e)
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {msg}") from None
        return t

    def _run_elements(self, elements, feed_tensors, feed_values):
        key = (tuple(elements), feed_tensors)
        plan = self._plans.get(key)
        graph = self._graph
        if plan is None or len(graph._ops) != self._placed:
            with self._lock:
                if len(graph._ops) != self._placed:  # TF places the whole graph as it grows
                    place(graph._ops, self._config)
                    self._placed = len(graph._ops)
                plan = self._plans.get(key)
                if plan is None:  # the split into fetches and targets is done once, here
                    fetch_tensors = [e for e in elements if type(e) is Tensor]
                    targets = [e for e in elements if type(e) is not Tensor]
                    plan = self._plans[key] = self._compile(fetch_tensors, targets,
                                                            feed_tensors)
        if len(graph._ops) != graph._growth["last_size"]:
            self._note_graph_growth()
        graph._growth["runs"] += 1
        args = [_check_feed(check, v) for check, v in zip(plan.feed_checks, feed_values)]
        if plan.specializations is not None:  # the plan for the shapes fed, if compiled
            plan = plan.specializations.plan_for(args)
        try:
            out = plan.fn(self._state, *args)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes a tf.errors.*
            raise self._kernel_error(plan, e) from None
        if plan.has_targets:
            # Rebuild the per-element list: tensors get their values, ops None.
            it = iter(out)
            return [next(it) if type(e) is Tensor else None for e in elements]
        return out

    def _compile(self, fetch_tensors, targets, feed_tensors):
        plan = compile_plan(fetch_tensors, targets, feed_tensors, self._state, self._passes)
        if shape_specialization.wants_specialization(feed_tensors, self._passes):
            def specialize(shapes):
                return compile_plan(fetch_tensors, targets, feed_tensors, self._state,
                                    self._passes, fed_shapes=shapes)
            plan.specializations = shape_specialization.Specializations(
                plan, specialize, self._lock, self._graph)
        return plan

    def make_callable(self, fetches, feed_list=None,
                      accept_options=False) -> Callable[..., Any]:
        """A function running ``fetches`` with positional feeds, its plan compiled once."""
        structure = _FetchStructure(self._graph, fetches)
        feed_tensors = tuple(self._feed_key_to_tensor(f) for f in (feed_list or ()))
        elements = structure.elements
        single = type(fetches) is Tensor or type(fetches) is Operation

        def call(*feed_args, **kwargs):
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if len(feed_args) != len(feed_tensors):
                raise ValueError(f"Expected {len(feed_tensors)} feed values, got "
                                 f"{len(feed_args)}")
            values = self._run_elements(elements, feed_tensors, feed_args)
            if single:
                return values[0] if type(fetches) is Tensor else None
            return structure.build(values)
        return call

    # -- diagnostics ---------------------------------------------------------------------
    def _note_graph_growth(self):
        graph = self._graph
        g = graph._growth
        size = len(graph._ops)
        grown, g["last_size"] = size - g["last_size"], size
        if g["runs"] == 0:
            return  # the graph's first run: everything was "new"
        g["streak"] = g["streak"] + 1 if g.get("last_run") == g["runs"] - 1 else 1
        g["last_run"] = g["runs"]
        if g["streak"] >= GROWTH_STREAK_TO_WARN and not g["warned"]:
            g["warned"] = True
            newest = graph._ops[-1]
            warnings.warn(
                f"The graph grew by {grown} ops since the previous Session.run, in "
                f"{g['streak']} runs in a row: the newest is '{newest.name}' ({newest.type}), "
                f"created at {newest.creation_site}. Building ops inside a training loop slows "
                "every step and leaks memory: build them once before the loop (and call "
                "graph.finalize() to make this an error).", GraphGrowthWarning, stacklevel=4)

    def _kernel_error(self, plan, exc):
        op = plan.failing_op(exc)
        if isinstance(exc, UninitializedVariable):
            return self._uninitialized_error(plan, exc.op, op)
        if isinstance(exc, errors.OpError):
            if exc.op is None and op is not None:
                return type(exc)(None, op, f"{exc.message}\n\t [[{op.describe_site()}]]")
            return exc
        where = f"\n\t [[{op.describe_site()}]]" if op is not None else ""
        return kernel_error(op, exc, where)

    def _uninitialized_error(self, plan, first_op, failing_op):
        missing = [op for op in plan.variable_ops if op.name not in self._state.vars]
        if first_op not in missing:
            missing.insert(0, first_op)
        listing = "\n".join(f"  {op.name} (created at {op.creation_site})" for op in missing)
        # The op that read it (v/read, AssignAdd...); the variable itself when it is fetched.
        culprit = first_op if failing_op is None else failing_op
        return errors.FailedPreconditionError(
            None, culprit,
            f"Attempting to use uninitialized value {first_op.name}\n"
            f"\t [[{culprit.describe_site()}]]\n"
            f"This run needs {len(missing)} uninitialized variable(s):\n{listing}\n"
            "Run tf.global_variables_initializer() after building all variables (or restore "
            "them from a checkpoint) before using them.")


def _flatten_feed_dict(feed_dict):
    """``feed_dict`` with each nested-tuple key and its value flattened into pairs (TF's
    ``nest.flatten_dict_items``, with its errors)."""
    flat = {}
    for key, value in feed_dict.items():
        if isinstance(key, tuple):
            keys = nest.flatten(key)
            values = nest.flatten(value) if nest.is_sequence(value) else [value]
            if len(keys) != len(values):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} elements, "
                                 f"but value had {len(values)} elements. Key: {keys}, "
                                 f"value: {values}.")
        else:
            keys, values = [key], [value]
        for k, v in zip(keys, values):
            if k in flat:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            flat[k] = v
    return flat


def _sparse_feed_value(key, value):
    if isinstance(value, SparseTensorValue) or (isinstance(value, (tuple, list))
                                                and len(value) == 3):
        return value
    raise TypeError(f"The value fed for the SparseTensor with values {key.values.name} must be "
                    f"a tf.SparseTensorValue or an (indices, values, dense_shape) tuple, not "
                    f"{type(value).__name__}")


def _ragged_feed_value(key, value):
    if not isinstance(value, RaggedTensorValue):
        raise TypeError(f"The value fed for a RaggedTensor must be a "
                        f"tf.ragged.RaggedTensorValue, not {type(value).__name__}")
    if value.ragged_rank != key.ragged_rank:
        raise ValueError(f"The value fed has ragged_rank {value.ragged_rank}; the "
                         f"RaggedTensor's is {key.ragged_rank}")
    return value.nested_row_splits + (value.flat_values,)


def _tensor_feed_error(key, value) -> TypeError:
    return TypeError(
        "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
        "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
        f"the tensor object was {value} which was passed to the argument `feed_dict` with "
        f"key {key}.")


_OBJECT = np.dtype(object)


def _str_to_bytes(arr):
    flat = arr.reshape(-1)
    if not any(type(v) is str for v in flat):
        return arr
    out = np.empty(arr.shape, dtype=object)
    out.reshape(-1)[:] = [v.encode("utf-8") if type(v) is str else v for v in flat]
    return out


def _check_feed(check, value):
    tensor, np_dtype, dims = check
    if type(value) is np.ndarray and value.dtype == np_dtype:
        arr = value
    else:
        try:
            arr = np.asarray(value, dtype=np_dtype)
            overflow = isinstance(value, int) and not isinstance(value, bool) and \
                arr.dtype.kind in "iu" and arr != value
        except OverflowError:
            overflow = True
        except NotImplementedError:  # a graph Tensor refuses np.asarray
            if isinstance(value, Tensor):
                raise _tensor_feed_error(tensor, value) from None
            raise
        except (TypeError, ValueError) as e:
            # TF lets NumPy's error through ("could not convert string to float: 'a'"); we
            # keep its type and text and add which feed it was.
            raise type(e)(f"{e} (feeding Tensor {tensor.name}, which has dtype "
                          f"{tensor.dtype.base_dtype.name})") from None
        if overflow:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not "
                            f"compatible with Tensor type {np_dtype}. Try explicitly setting "
                            "the type of the feed tensor to a larger type (e.g. int64).")
        if arr.dtype.kind in "iu":
            _warn_if_truncated(tensor, value, arr)
    if arr.dtype is _OBJECT:  # a string feed: Python str becomes UTF-8 bytes, as in TF
        arr = _str_to_bytes(arr)
    if dims is not None:
        shape = arr.shape
        if len(shape) != len(dims) or any(d is not None and d != s for d, s in zip(dims, shape)):
            raise ValueError(f"Cannot feed value of shape {shape!r} for Tensor {tensor.name}, "
                             f"which has shape {tensor.shape}")
    return arr


class FeedTruncationWarning(UserWarning):
    """Floats fed into an integer tensor lost their fractions (TF truncates silently)."""


def _warn_if_truncated(tensor, value, arr):
    """Warns, at the user's line, when float values fed into integer ``tensor`` changed
    (1.5 -> 1): TF truncates them silently, a common cause of wrong labels or indices.
    Only on the converting path: a feed of the tensor's own dtype never gets here."""
    source = value if type(value) is np.ndarray else np.asarray(value)
    if source.dtype.kind != "f" or source.shape != arr.shape:
        return
    changed = source != arr
    if changed.any():
        first = source[changed].reshape(-1)[0]
        warnings.warn(
            f"Feeding floats into {tensor.name} ({tensor.dtype.base_dtype.name}) truncated "
            f"{int(changed.sum())} of {changed.size} values toward zero ({first.item()!r} -> "
            f"{arr[changed].reshape(-1)[0].item()!r}), as TF does silently. Round or cast them "
            "yourself (np.round, astype) if that is not what you meant.",
            FeedTruncationWarning, stacklevel=user_stacklevel())


def _as_default(session):
    return pushed(CONTEXT.sessions, session)


class InteractiveSession(Session):
    """A session that installs itself as the default on creation (for shells and notebooks)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._interactive_cm = _as_default(self)
        self._interactive_cm.__enter__()

    def close(self):
        super().close()
        if self._interactive_cm is not None:
            self._interactive_cm.__exit__(None, None, None)
            self._interactive_cm = None
