"""Execution plans: a pruned, ordered graph slice compiled once into straight-line Python.

A plan is built per (fetches, feeds) signature in four stages:

1. prune back from the fetches and targets (fed tensors cut the walk, control inputs
   count) and order by creation id (a topological order, since graphs are append-only);
2. run the enabled rewrite passes over that ``PlanIR`` (``scopeflow.runtime.passes``:
   shape specialisation, constant folding, pass-through forwarding, producer absorption,
   constant-specialised and owning kernels, buffer reuse), each in its own module;
3. work out liveness: the last step that reads each value;
4. generate one Python function whose body calls each kernel in turn with its attrs
   bound as literals (``codegen.PlanWriter``). Locals are the slots, ``del`` frees a value
   after its last use.

TF1's rules for variables hold by construction, whatever the passes do: a variable's
output is a reference whose buffer is looked up where a reader runs; ``Assign`` and the
other writes change the buffer in place; a kernel's partial view of a variable's buffer
is copied when made (``memory.snapshot``); and the fetches are converted in the return
statement, so a fetched tensor that still aliases a variable is the variable as it is when
the run ends, copied so that what ``run`` returns never changes afterwards.
Running a plan is then one Python call with no per-op interpretation.

When some fed dims are unknown, the session also compiles plans specialised on the shapes
actually fed (``fed_shapes``; ``runtime.shape_specialization``).
"""

from __future__ import annotations

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Operation, Tensor
from scopeflow.framework.kernel_context import OpRunContext, UninitializedVariable
from scopeflow.framework.opdef import shape_str
from scopeflow.framework.registry import VARIABLE_OP_TYPES, is_variable_op
from scopeflow.runtime import dead_tensors
from scopeflow.runtime.codegen import PLAN_FILENAME, PlanWriter
from scopeflow.runtime.passes import PASSES, run_passes, shape_specialization
from scopeflow.runtime.plan_ir import PlanIR

__all__ = ["Plan", "OpRunContext", "compile_plan", "UninitializedVariable", "PLAN_FILENAME"]


class Plan:
    """A compiled slice of the graph for one (fetches, feeds) signature."""

    __slots__ = ("fn", "ops", "feeds", "feed_checks", "line_to_op", "variable_ops", "source",
                 "has_targets", "variable_readers", "specializations")

    def __init__(self, fn, ops, feeds, feed_checks, line_to_op, variable_ops, source,
                 has_targets=False, variable_readers=None):
        self.fn = fn
        self.ops = ops
        self.feeds = feeds
        self.feed_checks = feed_checks
        self.line_to_op = line_to_op
        self.variable_ops = variable_ops
        self.source = source
        self.has_targets = has_targets  # fetched ops come back as None among the values
        # (line, variable op) -> the op TF names for reading the variable there (``v/read``
        # when a skipped Identity of it is what the line's call or fetch reads).
        self.variable_readers = variable_readers or {}
        # Plans of the same signature specialised on the shapes fed, when some fed dims
        # are unknown (``runtime.shape_specialization``); None: this plan runs every feed.
        self.specializations = None

    def op_at_line(self, lineno, variable=None):
        """The op whose call is on line ``lineno``; when reading ``variable`` failed there,
        the op that reads it in TF's graph."""
        if variable is not None:
            reader = self.variable_readers.get((lineno, variable))
            if reader is not None:
                return reader
        return self.line_to_op.get(lineno)

    def failing_op(self, exc):
        """The op whose kernel raised ``exc`` in a run of this plan (None if unknown)."""
        tb = exc.__traceback__
        variable = exc.op if isinstance(exc, UninitializedVariable) else None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == PLAN_FILENAME and \
                    tb.tb_frame.f_globals is self.fn.__globals__:
                return self.op_at_line(tb.tb_lineno, variable)
            tb = tb.tb_next
        return None


def _ref_source(tensor: Tensor):
    """For a ref input: the variable op name, and the op that must run first (or None)."""
    if tensor._ref_key is None:
        raise TypeError(f"Input {tensor.name} must be a variable reference (a Variable), got a "
                        f"value of dtype {tensor.dtype.name}")
    producer = tensor.op
    return tensor._ref_key, (None if is_variable_op(producer) else producer)


def _prune(fetch_tensors, target_ops, fed: set, context=None) -> list[Operation]:
    """The ops that must run, in creation order: only ops of ``context`` (a cond branch or
    loop body; None: the main graph), plus the constants and variables it shares."""
    needed: set = set()
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed or (op._outputs and all(t in fed for t in op._outputs)):
            continue  # every output fed: as in TF, the op (and what it needs) does not run
        if op._cf_context is not context and op._op_def.type not in _SHARED_OP_TYPES:
            raise _inside_control_flow_error(op, context)
        needed.add(op)
        ref_inputs = op._op_def.ref_inputs
        for i, t in enumerate(op._inputs):
            if t in fed:
                continue
            if i in ref_inputs:
                _, dep = _ref_source(t)
                if dep is not None and dep._cf_context is context:
                    stack.append(dep)
            else:
                stack.append(t._op)
        stack.extend(c for c in op._control_inputs if c._cf_context is context)
    return sorted(needed, key=lambda o: o._id)


_SHARED_OP_TYPES = VARIABLE_OP_TYPES | {"Const"}


def _inside_control_flow_error(op, context):
    ctx = op._cf_context
    if context is None:
        return errors.InvalidArgumentError(
            None, op, f"Cannot fetch or run '{op.name}' directly: it is inside {ctx.kind.what} "
            f"('{ctx.name}'), which runs only as part of that construct (fetch its outputs "
            f"instead)\n\t [[{op.describe_site()}]]")
    return errors.InternalError(
        None, op, f"'{op.name}' is used by {context!r} but belongs to {ctx!r}"
        f"\n\t [[{op.describe_site()}]]")


def compile_plan(fetch_tensors, target_ops, feed_tensors, state, passes=None,
                 context=None, fed_shapes=None) -> Plan:
    """Compiles the slice of the graph that computes ``fetch_tensors`` and runs
    ``target_ops``, rewritten by ``passes`` (all of them when None).

    With ``fed_shapes`` (one tuple of ints per feed), the plan is specialised on those
    shapes: it may only run feeds of exactly those shapes (``passes.shape_specialization``).

    With a ``context`` (a cond branch or loop body), the plan is that construct's sub-plan:
    it runs only the context's ops and returns its fetches as they are (its caller, the
    construct's kernel, owns them)."""
    fed = set(feed_tensors)
    ops = _prune(fetch_tensors, target_ops, fed, context)
    _check_placeholders_are_fed(ops)
    ir = PlanIR(ops, fetch_tensors, fed, target_ops)
    if fed_shapes is not None:
        shape_specialization.begin(ir, dict(zip(feed_tensors, fed_shapes)))
    dead_tensors.prepare(ir)  # TF1's Switch/Merge: only in a plan that has a Switch
    run_passes(PASSES if passes is None else passes, ir)
    fn, source, line_to_op, variable_readers = PlanWriter(
        ir, list(feed_tensors), state, inner=context is not None).write()
    feed_checks = [(t, dtypes.storage_dtype(t.dtype).type, t.shape.as_tuple())
                   for t in feed_tensors]
    variable_ops = [op for op in ops if is_variable_op(op)]
    return Plan(fn, ops, list(feed_tensors), feed_checks, line_to_op, variable_ops, source,
                has_targets=bool(target_ops), variable_readers=variable_readers)


def _check_placeholders_are_fed(ops):
    for op in ops:
        if op._op_def.type == "Placeholder":
            dt = op._outputs[0].dtype
            shape = op._outputs[0].shape
            shape_part = "" if shape.ndims is None else f" and shape {shape_str(shape)}"
            raise errors.InvalidArgumentError(
                None, op,
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{dtypes.type_string(dt)}{shape_part}\n\t [[{op.describe_site()}]]")


