"""``tf.CriticalSection``: subgraphs that run one at a time (TF's critical_section_ops).

A critical section is a mutex resource (``MutexV2``). ``execute(fn)`` builds ``fn``'s ops
under a control dependency on a ``MutexLock`` of it and gates ``fn``'s results on a
``ConsumeMutexLock``: while one run is between the lock and its consumption, every other
run that reaches a lock of the same mutex waits (TF's executor threads block the same way).

The mutex is a session resource (each session has its own, shared by ``shared_name``), a
``threading.Condition`` guarding a flag. ``MutexLock`` waits for the flag to be free (until
the run's ``timeout_in_ms`` deadline, or the session's close: ``CancelledError``) and takes
it; the lock is released when ``ConsumeMutexLock`` runs, or, if the run fails or never
reaches it, when the lock value is freed (TF releases the mutex when the lock tensor is
destroyed). Within one run the ops of an ``execute`` are built, and so run, one block after
another (scopeflow runs a plan's ops in creation order), so two executions of one section
in the same ``session.run`` are serial, as TF makes them; runs from several threads are
serialised by the mutex.

Graph-building checks are TF's: no nested execution of one section (deadlock), and a
resource read by an execution of one section may not be read by an execution of another
unless both pass ``exclusive_resource_access=False``.
"""

from __future__ import annotations

import collections
import contextlib
import threading

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors, nest
from scopeflow.framework.graph import (
    Operation,
    add_to_collections,
    colocate_with,
    control_dependencies,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
)
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, scalar_shape
from scopeflow.ops.array.shape_ops import identity
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.data_flow.queue_ops import (
    SessionResource,
    deadline_of,
    session_resource,
    wait_until,
)

__all__ = ["CriticalSection", "CRITICAL_SECTIONS", "CRITICAL_SECTION_EXECUTIONS"]

CRITICAL_SECTIONS = "critical_sections"
CRITICAL_SECTION_EXECUTIONS = "critical_section_executions"


# ── the mutex and its ops ────────────────────────────────────────────────────────────
class _Mutex(SessionResource):
    """One session's mutex: a flag guarded by a condition, so that a waiting lock can
    notice the run's deadline and the session's close."""

    def __init__(self, name):
        self.name = name
        self.cond = threading.Condition()
        self.held = False
        self.cancelled = False

    def cancel(self):
        with self.cond:
            self.cancelled = True
            self.cond.notify_all()

    def acquire(self, ctx):
        with self.cond:
            if not wait_until(self.cond, lambda: not self.held, deadline_of(ctx),
                              lambda: self.cancelled):
                raise errors.CancelledError(None, None, "Lock acquisition cancelled.")
            self.held = True
        return _Lock(self)

    def release(self):
        with self.cond:
            self.held = False
            self.cond.notify_all()


class _Lock:
    """A held mutex (the ``MutexLock`` value): released once, by ``ConsumeMutexLock`` or
    when the value is freed."""

    def __init__(self, mutex):
        self._mutex = mutex

    def release(self):
        mutex, self._mutex = self._mutex, None
        if mutex is not None:
            mutex.release()

    def __del__(self):
        self.release()


def _scalar(value):
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _mutex_kernel(ctx, *, container, shared_name):
    return _scalar(session_resource(ctx, shared_name, _Mutex))


def _lock_kernel(ctx, mutex):
    return _scalar(mutex[()].acquire(ctx))


def _consume_kernel(ctx, mutex_lock):
    mutex_lock[()].release()


def _resource(*args, **attrs):
    return _dtypes.resource


def _variant(*args, **attrs):
    return _dtypes.variant


def _no_outputs(*args, **attrs):
    return []


mutex_v2_op = OpDef("MutexV2", shape=scalar_shape, dtype=_resource, kernel=_mutex_kernel,
                    attrs={"container": "", "shared_name": ""}, stateful=True,
                    grad=NO_GRADIENT)
mutex_lock_op = OpDef("MutexLock", shape=scalar_shape, dtype=_variant, kernel=_lock_kernel,
                      stateful=True, grad=NO_GRADIENT, input_names=("mutex",))
consume_mutex_lock_op = OpDef("ConsumeMutexLock", shape=_no_outputs, dtype=_no_outputs,
                              kernel=_consume_kernel, num_outputs=0, stateful=True,
                              grad=NO_GRADIENT, input_names=("mutex_lock",))


# ── CriticalSection ──────────────────────────────────────────────────────────────────
class _ExecutionSignature(collections.namedtuple(
        "_ExecutionSignature", ("op", "handle", "resources", "exclusive_resource_access"))):
    """One ``execute``: its MutexLock op, the section's handle, the resources it reads."""


@contextlib.contextmanager
def _entered(signature):
    """Marks this thread as building inside the section ``signature``; entering it again
    (a nested execute of the same section) would deadlock, so it is an error."""
    stack = get_default_graph()._state().critical_sections
    if signature in stack:
        raise ValueError(f"Attempting to lock a CriticalSection (signature={signature}) in "
                         "which we are already running. This is illegal and may cause "
                         "deadlocks.")
    stack.append(signature)
    try:
        yield
    finally:
        stack.pop()


def _identity(x):
    """An identity of a result: a TensorArray's, an op's group, a tensor's Identity."""
    if isinstance(x, TensorArray):
        return x.identity()
    if isinstance(x, Operation):
        return control_flow_ops.group(x)
    return identity(x)


class CriticalSection:
    """A resource whose ``execute(fn)`` subgraphs run in serial order (TF's class)."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None):
        if critical_section_def and name is not None:
            raise ValueError(f"Arguments critical_section_def={critical_section_def} and "
                             f"shared_name={shared_name} are mutually exclusive. Please only "
                             "specify one of them.")
        if critical_section_def:
            raise ValueError("Argument `critical_section_def` is not supported.")
        with name_scope(name, "CriticalSection", []) as scope:
            with init_scope():
                container = get_default_graph()._container or ""
                if shared_name is None:
                    shared_name = scope
                self._handle = mutex_v2_op.create(
                    [], {"container": container, "shared_name": shared_name},
                    name=scope).outputs[0]
                self._signature = (container, shared_name or id(self._handle),
                                   self._handle.op.device or None)
        add_to_collections(CRITICAL_SECTIONS, self)

    @property
    def name(self):
        return self._handle.op.name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """``fn()``'s results, computed while holding this section's lock.

        Raises ``ValueError`` when ``fn`` executes in this same section (a deadlock) or
        reads a resource that another section's execution reads, unless neither asks for
        exclusive access.
        """
        graph = get_default_graph()
        with name_scope(name, "critical_section_execute", []):
            with _entered(self._signature):
                lock = mutex_lock_op.create([self._handle], {}).outputs[0]
                before = len(graph.get_operations())
                with control_dependencies([lock]):
                    result = fn()
                created = graph.get_operations()[before:]
            self._gate_lock_on_arguments(created, lock.op)
            resources = {}
            for op in created:
                for t in op.inputs:
                    if t.dtype == _dtypes.resource:
                        resources.setdefault(id(t), t)
            if any(self._is_self_handle(t) for t in resources.values()):
                raise ValueError("Attempting to lock a CriticalSection in which we are "
                                 f"already running (signature={self._signature}). This is "
                                 "illegal and may cause deadlocks.")
            self._check_multiple_access(resources, exclusive_resource_access)
            flat = nest.flatten(result)
            gated = [_identity(x) for x in flat]
            with control_dependencies(gated):
                with colocate_with(self._handle):
                    consumed = consume_mutex_lock_op.create([lock], {})
                result = nest.pack_sequence_as(result, control_flow_ops.tuple(flat))
            with control_dependencies([consumed]):
                outputs = nest.map_structure(_identity, result)
        add_to_collections(CRITICAL_SECTION_EXECUTIONS, _ExecutionSignature(
            op=lock.op, handle=self._handle, resources=list(resources.values()),
            exclusive_resource_access=exclusive_resource_access))
        return outputs

    def _gate_lock_on_arguments(self, created, lock_op):
        """The lock waits for everything ``fn``'s ops take from outside (TF's rule, so that
        a held lock never waits on other work)."""
        ids = {op._id for op in created}
        args = {}
        for op in created:
            for t in op.inputs:
                args.setdefault(t.op._id, t.op)
            for c in op.control_inputs:
                args.setdefault(c._id, c)
        for key in ids | {op._id for op in lock_op.control_inputs} | {
                t.op._id for t in lock_op.inputs} | {lock_op._id}:
            args.pop(key, None)
        if args:
            lock_op._add_control_input(control_flow_ops.group(*args.values()))

    def _is_self_handle(self, x):
        op, mine = x.op, self._handle.op
        return (op.type == "MutexV2" and bool(op.get_attr("shared_name"))
                and op.get_attr("shared_name") == mine.get_attr("shared_name")
                and op.device == mine.device)

    def _check_multiple_access(self, resources, exclusive):
        for sig in get_collection(CRITICAL_SECTION_EXECUTIONS):
            if self._is_self_handle(sig.handle):
                continue
            if not (exclusive or sig.exclusive_resource_access):
                continue
            shared = [t for t in sig.resources if id(t) in resources]
            if shared:
                raise ValueError(
                    f"This execution would access resources: {shared}. Either this lock "
                    f"(CriticalSection: {self._handle}) or lock '{sig}' (CriticalSection: "
                    f"{sig.handle}) requested exclusive resource access of this resource. "
                    "Did you mean to call execute with keyword argument "
                    "exclusive_resource_access=False?")
