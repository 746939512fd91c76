"""Code generation for plans: a rewritten ``PlanIR`` becomes one straight-line Python function.

Each kernel call is a line, with the op's attrs bound as literals; each value is a local
(``t<step>_<output>``) deleted after its last reader; values known at compile time are
bound into the function's globals (``_c<step>``). A variable's output is not a local but
an expression that looks its buffer up, written where each reader uses it. The fetches
are converted in the ``return`` statement, so they are taken when the run ends: one that
may alias memory the run does not own (a variable, a feed, a bound constant) is copied,
so what ``run`` returns never changes afterwards.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.kernel_context import OpRunContext
from scopeflow.framework.registry import VARIABLE_OP_TYPES, is_variable_op
from scopeflow.runtime.dead_tensors import check_fetch, retval_index
from scopeflow.runtime.memory import aliased_inputs, snapshot
from scopeflow.runtime.plan_ir import How

__all__ = ["PlanWriter", "PLAN_FILENAME"]

PLAN_FILENAME = "<scopeflow plan>"
_LITERAL_TYPES = (bool, int, str, type(None))


def _fix_fetch(x):
    """Fetch conversion for values of unknown rank: 0-d arrays become NumPy scalars."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    return x


def _copy_fed(x):
    return np.array(x, copy=True)  # TF returns a fed value as the array it was fed, 0-d too


def _snapshot_inner(x):
    return np.array(x, copy=True) if isinstance(x, np.ndarray) else x


def _copy_fetch(x):
    x = np.array(x, copy=True)
    return x[()] if x.ndim == 0 else x


class PlanWriter:
    """Writes one plan's function. ``write()`` returns ``(fn, source, line_to_op,
    variable_readers)``: the function, its source, the op called on each line, and for
    ``(line, variable op)`` the op TF names for a failed read of that variable there."""

    def __init__(self, ir, feed_tensors, state, inner=False):
        self.ir = ir
        self.inner = inner  # a control-flow sub-plan: fetches are returned as they are
        self.memory = ir.memory
        self.state = state
        self.last_use = self._last_uses()
        self.namespace = {"__name__": "scopeflow.runtime.plan_exec", "_fix": _fix_fetch,
                          "_copy": _copy_fetch, "_copy_fed": _copy_fed,
                          "_snapshot": snapshot, "_snapshot_inner": _snapshot_inner}
        self.var_of = {t: f"f{i}" for i, t in enumerate(feed_tensors)}
        self.lines = [f"def _plan({', '.join(['state'] + list(self.var_of.values()))}):"]
        self.line_to_op: dict = {}
        self.variable_readers: dict = {}

    def write(self):
        for k, op in enumerate(self.ir.ops):
            self._step(k, self.ir.steps[op])
        self._return()
        source = "\n".join(self.lines) + "\n"
        exec(compile(source, PLAN_FILENAME, "exec"), self.namespace)  # noqa: S102 - ours
        return self.namespace["_plan"], source, self.line_to_op, self.variable_readers

    def _last_uses(self) -> dict:
        """The index of the last step that reads each value (a forwarded tensor's readers
        read its source); fetched values live to the end."""
        ir = self.ir
        last_use = {}
        for k, op in enumerate(ir.ops):
            step = ir.steps[op]
            if step.calls:
                for t in step.inputs:
                    last_use[ir.source(t)] = k
        for t in ir.fetches:
            last_use[ir.source(t)] = len(ir.ops)
        return last_use

    # -- one step --------------------------------------------------------------------------
    def _step(self, k, step):
        op, od, outs = step.op, step.op._op_def, step.op._outputs
        if step.how is How.BOUND:
            for t in outs:
                if t in self.ir.folded:
                    name = f"_c{k}" if od.type == "Const" else f"_c{k}_{t._value_index}"
                    self.var_of[t] = name
                    self.namespace[name] = self.ir.folded[t]
            return
        if step.how is How.FORWARDED:
            self.var_of[outs[0]] = self.var_of[self.ir.source(outs[0])]
            return
        if step.how is How.ABSORBED or step.how is How.PRUNED:
            return
        args = self._call_args(k, step)
        if od.type in VARIABLE_OP_TYPES:
            # A variable's output is a reference: its buffer is looked up where a reader
            # runs (an uninitialized read fails at, and blames, the reader).
            if outs[0] not in self.ir.fed:
                self.namespace[f"_k{k}"] = od.kernel
                self.var_of[outs[0]] = f"_k{k}({', '.join(args)})"
            return
        if step.kernel is None:
            if outs:
                raise errors.UnimplementedError(
                    None, op, f"Op type {od.type} has no kernel\n\t [[{op.describe_site()}]]")
            return  # NoOp: only its control inputs matter
        self.namespace[f"_k{k}"] = step.kernel
        if step.out is not None:
            args.append(f"out={self.var_of[step.out]}")
        call = f"_k{k}({', '.join(args)})"
        if od.aliases and not od.stateful and not self.memory.returns_fresh(op):
            buffers = [self.var_of[t] for t in aliased_inputs(op)
                       if self.memory.aliases_state(t)]
            if buffers:  # a view of a variable is copied unless TF forwards it whole
                call = f"_snapshot({call}, {', '.join(buffers)})"
        self._emit(k, step, call)

    def _call_args(self, k, step) -> list[str]:
        op, od = step.op, step.op._op_def
        args = []
        if od.stateful:
            self.namespace[f"_ctx{k}"] = OpRunContext(self.state, op)
            args.append(f"_ctx{k}")
        for i, t in enumerate(step.inputs):
            if step.with_attrs and i in od.ref_inputs and t not in self.ir.fed:
                args.append(repr(t._ref_key))  # the variable itself, not a read of it
            else:
                args.append(self.var_of[t])
        if step.with_attrs:
            for name, value in op._attrs.items():
                args.append(f"{name}={self._literal(value, f'a{k}_{name}')}")
        return args

    def _literal(self, value, hint) -> str:
        if isinstance(value, _LITERAL_TYPES):
            return repr(value)
        self.namespace[f"_{hint}"] = value
        return f"_{hint}"

    def _emit(self, k, step, call):
        """Appends the line that calls ``step``'s kernel, then frees what dies there."""
        var_of, outs = self.var_of, step.op._outputs
        out_vars = []
        for t in outs:
            if t in self.ir.fed:
                out_vars.append("_")
            else:
                var_of[t] = f"t{k}_{t._value_index}"
                out_vars.append(var_of[t])
        if not outs:
            self.lines.append(f"    {call}")
        elif len(outs) == 1:
            self.lines.append(f"    {out_vars[0]} = {call}")
        else:
            self.lines.append(f"    {', '.join(out_vars)}, = {call}")
        self.line_to_op[len(self.lines)] = step.op
        refs = step.op._op_def.ref_inputs if step.with_attrs else ()
        self._note_variable_reads([t for i, t in enumerate(step.inputs) if i not in refs],
                                  step.op)
        # Free each value after its last reader (only the plan's own locals ``t*``).
        dead = [var_of[t] for t in step.inputs
                if self.last_use.get(self.ir.source(t)) == k and t in var_of]
        dead += [var_of[t] for t in outs if t not in self.last_use and t in var_of]
        dead = sorted({v for v in dead if v[0] == "t"})
        if dead:
            self.lines.append(f"    del {', '.join(dead)}")

    # -- the fetches -----------------------------------------------------------------------
    def _return(self):
        results = [self._fetch(t) for t in self.ir.fetches]
        self.lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
        self._note_variable_reads(self.ir.fetches, None)

    def _fetch(self, t) -> str:
        v = self.var_of[t]
        if t in self.ir.maybe_dead:  # TF1's Switch: a dead fetch raises (dead_tensors)
            self.namespace["_alive"] = check_fetch
            v = f"_alive({v}, {retval_index(self.ir.fetches, t)})"
        if self.inner:
            # A branch's or loop body's results go to the construct's kernel, not to the
            # user: only a view of a variable is copied (a later write must not change it).
            return f"_snapshot_inner({v})" if self.memory.aliases_state(t) else v
        rank = t.shape.ndims
        if t in self.ir.fed:
            return f"_copy_fed({v})"
        if self.memory.aliases_outside(t):
            return f"_copy({v})"
        if rank == 0:
            return f"{v}[()]"
        return f"_fix({v})" if rank is None else v

    # -- which op a failed variable read blames ------------------------------------------
    def _note_variable_reads(self, tensors, consumer):
        """Which op TF would name for each variable read on the line just written."""
        ir = self.ir
        for t in tensors:
            source = ir.source(t)
            if is_variable_op(source._op) and source not in ir.fed:
                self.variable_readers[(len(self.lines), source._op)] = self._reader_in_tf(
                    t, consumer)

    def _reader_in_tf(self, t, consumer):
        """The op that reads a variable in TF's graph when ``consumer`` (None: a fetch)
        reads ``t``: the first of the skipped pass-through ops between them, else
        ``consumer`` (or the variable itself, fetched)."""
        reader = consumer
        steps = self.ir.steps
        while t._op in steps and steps[t._op].how is How.FORWARDED:
            reader = t._op
            t = t._op._inputs[0]
        return reader if reader is not None else t._op
