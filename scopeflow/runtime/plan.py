"""Execution plans: a pruned, ordered graph slice compiled once into straight-line Python.

A plan is built per (fetches, feeds) signature in four stages:

1. prune back from the fetches and targets (fed tensors cut the walk, control inputs
   count) and order by creation id (a topological order, since graphs are append-only);
2. run the enabled rewrite passes over that ``PlanIR`` (``scopeflow.runtime.passes``:
   constant folding, pass-through forwarding, producer absorption, constant-specialised
   and owning kernels, buffer reuse), each in its own module;
3. work out liveness: the last step that reads each value;
4. generate one Python function whose body calls each kernel in turn with its attrs
   bound as literals. Locals are the slots, ``del`` frees a value after its last use.

TF1's rules for variables hold by construction, whatever the passes do: a variable's
output is a reference whose buffer is looked up where a reader runs; ``Assign`` and the
other writes change the buffer in place; a kernel's partial view of a variable's buffer
is copied when made (``memory.snapshot``); and the fetches are converted in the return
statement, so a fetched tensor that still aliases a variable is the variable as it is when
the run ends, copied so that what ``run`` returns never changes afterwards.
Running a plan is then one Python call with no per-op interpretation.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.graph import Operation, Tensor
from scopeflow.framework.opdef import shape_str
from scopeflow.runtime.memory import VARIABLE_OP_TYPES, aliased_inputs, snapshot
from scopeflow.runtime.passes import PASSES, run_passes
from scopeflow.runtime.plan_ir import How, PlanIR

__all__ = ["Plan", "OpRunContext", "compile_plan", "UninitializedVariable"]

PLAN_FILENAME = "<scopeflow plan>"
_LITERAL_TYPES = (bool, int, str, type(None))


class UninitializedVariable(Exception):
    """Raised by a variable kernel; the session turns it into FailedPreconditionError."""

    def __init__(self, op):
        super().__init__(op.name)
        self.op = op


class OpRunContext:
    """What a stateful kernel sees: the session's state and the op being run."""

    __slots__ = ("state", "op", "key")

    def __init__(self, state, op):
        self.state = state
        self.op = op
        self.key = op.name


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


def _literal(value, namespace, hint):
    if isinstance(value, _LITERAL_TYPES):
        return repr(value)
    name = f"_{hint}"
    namespace[name] = value
    return name


def _fix_fetch(x):
    """Fetch conversion for values of unknown rank: 0-d arrays become NumPy scalars."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def _copy_fed(x):
    return np.array(x, copy=True)


def _copy_fetch(x):
    x = np.array(x, copy=True)
    return x[()] if x.ndim == 0 else x


def compile_plan(fetch_tensors, target_ops, feed_tensors, state, passes=None) -> Plan:
    """Compiles the slice of the graph that computes ``fetch_tensors`` and runs
    ``target_ops``, rewritten by ``passes`` (all of them when None)."""
    fed = set(feed_tensors)
    ops = _prune(fetch_tensors, target_ops, fed)
    _check_placeholders_are_fed(ops)
    ir = PlanIR(ops, fetch_tensors, fed)
    run_passes(PASSES if passes is None else passes, ir)
    return _generate(ir, list(feed_tensors), state, has_targets=bool(target_ops))


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


def _last_uses(ir) -> dict:
    """The index of the last step that reads each value (a forwarded tensor's readers read
    its source); fetched values live to the end."""
    last_use: dict[Tensor, int] = {}
    for k, op in enumerate(ir.ops):
        step = ir.steps[op]
        if step.calls:
            for t in step.inputs:
                last_use[ir.source(t)] = k
    for t in ir.fetches:
        last_use[ir.source(t)] = len(ir.ops)
    return last_use


def _generate(ir, feed_tensors, state, has_targets) -> Plan:
    """Writes the plan as one Python function: each call a line, each value a local that is
    deleted after its last reader, each fetch converted (copied when it may alias memory the
    run does not own) in the return statement, so fetches are taken when the run ends."""
    memory = ir.memory
    fed = ir.fed
    last_use = _last_uses(ir)
    namespace = {"__name__": "scopeflow.runtime.plan_exec", "_fix": _fix_fetch,
                 "_copy": _copy_fetch, "_copy_fed": _copy_fed, "_snapshot": snapshot}
    var_of: dict[Tensor, str] = {}
    args = ["state"]
    for i, t in enumerate(feed_tensors):
        var_of[t] = f"f{i}"
        args.append(f"f{i}")
    lines = [f"def _plan({', '.join(args)}):"]
    line_to_op: dict[int, Operation] = {}
    variable_ops = []
    variable_readers: dict = {}

    def note_variable_reads(lineno, tensors, consumer):
        """Which op TF would blame for each variable the line reads."""
        for t in tensors:
            source = ir.source(t)
            if source._op._op_def.type in VARIABLE_OP_TYPES and source not in fed:
                variable_readers[(lineno, source._op)] = _reader_in_tf(ir, t, consumer)

    def emit(k, step, call):
        """Appends the line that calls ``step``'s kernel, then frees what dies there."""
        outs = step.op._outputs
        out_vars = []
        for t in outs:
            if t in fed:
                out_vars.append("_")
            else:
                var_of[t] = f"t{k}_{t._value_index}"
                out_vars.append(var_of[t])
        if not outs:
            lines.append(f"    {call}")
        elif len(outs) == 1:
            lines.append(f"    {out_vars[0]} = {call}")
        else:
            lines.append(f"    {', '.join(out_vars)}, = {call}")
        line_to_op[len(lines)] = step.op
        refs = step.op._op_def.ref_inputs if step.with_attrs else ()
        note_variable_reads(len(lines), [t for i, t in enumerate(step.inputs) if i not in refs],
                            step.op)
        # Free each value after its last reader (only the plan's own locals ``t*``).
        dead = [var_of[t] for t in step.inputs
                if last_use.get(ir.source(t)) == k and t in var_of]
        dead += [var_of[t] for t in outs if t not in last_use and t in var_of]
        dead = [v for v in dead if v[0] == "t"]
        if dead:
            lines.append(f"    del {', '.join(sorted(set(dead)))}")

    for k, op in enumerate(ir.ops):
        step = ir.steps[op]
        od = op._op_def
        outs = op._outputs
        if od.type in VARIABLE_OP_TYPES:
            variable_ops.append(op)
        if step.how is How.BOUND:
            for t in outs:
                if t in ir.folded:
                    var_of[t] = f"_c{k}" if od.type == "Const" else f"_c{k}_{t._value_index}"
                    namespace[var_of[t]] = ir.folded[t]
            continue
        if step.how is How.FORWARDED:
            var_of[outs[0]] = var_of[ir.source(outs[0])]
            continue
        if step.how is How.ABSORBED:
            continue
        call_args = []
        if od.stateful:
            namespace[f"_ctx{k}"] = OpRunContext(state, op)
            call_args.append(f"_ctx{k}")
        for i, t in enumerate(step.inputs):
            if step.with_attrs and i in od.ref_inputs and t not in fed:
                call_args.append(repr(_ref_source(t)[0]))
            else:
                call_args.append(var_of[t])
        if step.with_attrs:
            for name, value in op._attrs.items():
                call_args.append(f"{name}={_literal(value, namespace, f'a{k}_{name}')}")
        if od.type in VARIABLE_OP_TYPES:
            # A variable's output is a reference: its buffer is looked up where a reader
            # runs (an uninitialized read fails at, and blames, the reader).
            if outs[0] not in fed:
                namespace[f"_k{k}"] = od.kernel
                var_of[outs[0]] = f"_k{k}({', '.join(call_args)})"
            continue
        if step.kernel is None:
            if outs:
                raise errors.UnimplementedError(
                    None, op, f"Op type {od.type} has no kernel\n\t [[{op.describe_site()}]]")
            continue  # NoOp: only its control inputs matter
        namespace[f"_k{k}"] = step.kernel
        if step.out is not None:
            call_args.append(f"out={var_of[step.out]}")
        call = f"_k{k}({', '.join(call_args)})"
        if od.aliases and not od.stateful and not memory.returns_fresh(op):
            buffers = [var_of[t] for t in aliased_inputs(op) if memory.aliases_state(t)]
            if buffers:  # a view of a variable is copied unless TF forwards it whole
                call = f"_snapshot({call}, {', '.join(buffers)})"
        emit(k, step, call)

    results = []
    for t in ir.fetches:
        v = var_of[t]
        rank = t.shape.ndims
        if t in fed:
            results.append(f"_copy_fed({v})")  # TF returns the fed array, 0-d ones too
        elif memory.aliases_outside(t):
            results.append(f"_copy({v})")
        elif rank == 0:
            results.append(f"{v}[()]")
        elif rank is None:
            results.append(f"_fix({v})")
        else:
            results.append(v)
    lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
    note_variable_reads(len(lines), ir.fetches, None)
    source = "\n".join(lines) + "\n"
    exec(compile(source, PLAN_FILENAME, "exec"), namespace)  # noqa: S102 - our own codegen

    feed_checks = [(t, t.dtype.base_dtype.as_numpy_dtype, t.shape.as_tuple())
                   for t in feed_tensors]
    return Plan(namespace["_plan"], ir.ops, feed_tensors, feed_checks, line_to_op,
                variable_ops, source, has_targets=has_targets,
                variable_readers=variable_readers)


def _reader_in_tf(ir, t, consumer):
    """The op that reads a variable in TF's graph when ``consumer`` (None: a fetch) reads
    ``t``: the first of the skipped pass-through ops between them, else ``consumer`` (or
    the variable itself, fetched)."""
    reader = consumer
    while t._op in ir.steps and ir.steps[t._op].how is How.FORWARDED:
        reader = t._op
        t = t._op._inputs[0]
    return reader if reader is not None else t._op


def _tf_dtype_name(dtype) -> str:
    """TF's DataTypeString names used in runtime messages (``float``, ``double``...)."""
    base = dtype.base_dtype.name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(base, base)
