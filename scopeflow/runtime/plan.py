"""Execution plans: a pruned, ordered graph slice compiled once into straight-line Python.

A plan is built per (fetches, feeds) signature in four stages:

1. prune back from the fetches and targets (fed tensors cut the walk, control inputs
   count) and order by creation id (a topological order, since graphs are append-only);
2. run the enabled rewrite passes over that ``PlanIR`` (``scopeflow.runtime.passes``:
   constant folding, pass-through forwarding, producer absorption, constant-specialised
   and owning kernels, buffer reuse), each in its own module;
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
"""

from __future__ import annotations

from scopeflow.framework import errors
from scopeflow.framework.graph import Operation, Tensor
from scopeflow.framework.kernel_context import OpRunContext, UninitializedVariable
from scopeflow.framework.opdef import shape_str
from scopeflow.runtime.codegen import PLAN_FILENAME, PlanWriter
from scopeflow.runtime.memory import VARIABLE_OP_TYPES
from scopeflow.runtime.passes import PASSES, run_passes
from scopeflow.runtime.plan_ir import PlanIR

__all__ = ["Plan", "OpRunContext", "compile_plan", "UninitializedVariable", "PLAN_FILENAME"]


class Plan:
    """A compiled slice of the graph for one (fetches, feeds) signature."""

    __slots__ = ("fn", "ops", "feeds", "feed_checks", "line_to_op", "variable_ops", "source",
                 "has_targets", "variable_readers")

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

    def op_at_line(self, lineno, variable=None):
        """The op whose call is on line ``lineno``; when reading ``variable`` failed there,
        the op that reads it in TF's graph."""
        if variable is not None:
            reader = self.variable_readers.get((lineno, variable))
            if reader is not None:
                return reader
        return self.line_to_op.get(lineno)


def _ref_source(tensor: Tensor):
    """For a ref input: the variable op name, and the op that must run first (or None)."""
    if tensor._ref_key is None:
        raise TypeError(f"Input {tensor.name} must be a variable reference (a Variable), got a "
                        f"value of dtype {tensor.dtype.name}")
    producer = tensor.op
    return tensor._ref_key, (None if producer.op_def.type in VARIABLE_OP_TYPES else producer)


def _prune(fetch_tensors, target_ops, fed: set) -> list[Operation]:
    needed: set = set()
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed or (op._outputs and all(t in fed for t in op._outputs)):
            continue  # every output fed: as in TF, the op (and what it needs) does not run
        needed.add(op)
        ref_inputs = op._op_def.ref_inputs
        for i, t in enumerate(op._inputs):
            if t in fed:
                continue
            if i in ref_inputs:
                _, dep = _ref_source(t)
                if dep is not None:
                    stack.append(dep)
            else:
                stack.append(t._op)
        stack.extend(op._control_inputs)
    return sorted(needed, key=lambda o: o._id)


def compile_plan(fetch_tensors, target_ops, feed_tensors, state, passes=None) -> Plan:
    """Compiles the slice of the graph that computes ``fetch_tensors`` and runs
    ``target_ops``, rewritten by ``passes`` (all of them when None)."""
    fed = set(feed_tensors)
    ops = _prune(fetch_tensors, target_ops, fed)
    _check_placeholders_are_fed(ops)
    ir = PlanIR(ops, fetch_tensors, fed)
    run_passes(PASSES if passes is None else passes, ir)
    fn, source, line_to_op, variable_readers = PlanWriter(ir, list(feed_tensors), state).write()
    feed_checks = [(t, t.dtype.base_dtype.as_numpy_dtype, t.shape.as_tuple())
                   for t in feed_tensors]
    variable_ops = [op for op in ops if op._op_def.type in VARIABLE_OP_TYPES]
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
                f"{_tf_dtype_name(dt)}{shape_part}\n\t [[{op.describe_site()}]]")


def _tf_dtype_name(dtype) -> str:
    """TF's DataTypeString names used in runtime messages (``float``, ``double``...)."""
    base = dtype.base_dtype.name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(base, base)
