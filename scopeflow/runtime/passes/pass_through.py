"""Pass-through forwarding (as grappler removes them): an op whose output is always one of
its inputs (``OpDef.forwards_input``: ``Identity``, ``StopGradient``, a ``Reshape`` to the
static shape its input has, a ``Mul`` by a constant scalar one) is not called; its readers
use that input's value. A computing op (``Mul``) is forwarded only where that can't be seen:
never a variable's buffer, never a fetch.

An ``Identity`` of a variable (``v/read``) is forwarded too: its readers then read the
variable's buffer where they run, which is TF1's rule (a ref's readers see the variable as
it is when they run). The only difference from calling it is *when* the variable's current
buffer is looked up, which matters only if an ``Assign`` replaces the buffer (the first
initialization, or a new size with ``validate_shape=False``) between the ``Identity`` and
its reader with no ordering between them, a race in TF as well, except for an
``Assign(validate_shape=False)`` to a new shape: then the read stays where it is, as in TF.
"""

from __future__ import annotations

from scopeflow.runtime.memory import VARIABLE_OP_TYPES
from scopeflow.runtime.plan_ir import How

NAME = "pass_through"


def touches(op_def) -> bool:
    return op_def.forwards_input is not None


def applies(op, ir):
    od = op._op_def
    if not ir.steps[op].calls or od.forwards_input is None or op._outputs[0] in ir.fed:
        return None
    kept = od.forwards_input(op, ir.folded)
    if kept is None or op._inputs[kept]._ref_key in ir.reallocated:
        return None
    source = ir.source(op._inputs[kept])
    if not od.aliases and (ir.memory.aliases_state(source) or op._outputs[0] in ir.fetches):
        # A computing op (``x * 1``) copies: a variable read through it is the value
        # when it runs, and its fetch is an array of its own.
        return None
    if source.op._op_def.type in VARIABLE_OP_TYPES and not _has_readers(op._outputs[0], ir):
        # Run only for its effect (a control input, a group's member): its read of the
        # variable is that effect (an uninitialized variable fails it, as in TF).
        return None
    return source


def _has_readers(t, ir) -> bool:
    return t in ir.fetches or any(c in ir.steps for c in t._consumers)


def rewrite(op, ir, source) -> None:
    ir.forwarded[op._outputs[0]] = source
    ir.steps[op].how = How.FORWARDED
    ir.changed()
