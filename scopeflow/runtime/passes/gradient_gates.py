"""Gradient gates: the work only a gate waits for is not done.

An optimizer's ``minimize`` (``gate_gradients=GATE_OP``, the default) passes each op's input
gradients through ``tf.tuple``, as TF does: a ``<op>_grad/tuple/group_deps`` ``NoOp`` with
every gradient as a control input, and one ``Identity`` per gradient that waits for it. The
gate makes all of an op's gradients exist before any is used (so no update can change a
variable that another of them still reads). It also makes a run compute gradients nobody
uses: the first layer's gradient for the input images, a frozen layer's.

A plan runs its ops one at a time in creation order, and an op's gradients are all created
before anything that uses one, so the gate's order holds without the gate. This pass leaves
out the ops that only gates wait for: a stateless op (not fetched, not a target) whose every
reader in the plan is a gate's control edge or another op left out. Nothing reads their
outputs, so no value a run returns or stores can change; the run does less.
"""

from __future__ import annotations

import re
import weakref

from scopeflow.framework.registry import is_variable_op
from scopeflow.runtime.plan_ir import How

NAME = "gradient_gates"
# No rules by op type: any stateless op can be one only a gate waits for.
RULES: dict = {}
_GATE_NAME = re.compile(r"_grad/tuple/group_deps$")
_unread_by_plan: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def touches(op_def) -> bool:
    return not op_def.stateful and not op_def.ref_inputs


def is_gate(op) -> bool:
    """A gradient rule's ``tf.tuple`` gate: a ``NoOp`` named ``..._grad/tuple/group_deps``
    that only waits for stateless ops."""
    return (op._op_def.type == "NoOp" and not op._inputs and bool(_GATE_NAME.search(op.name))
            and all(touches(c._op_def) for c in op._control_inputs))


def unread(ir) -> set:
    """The plan's ops that only gates wait for (directly, or through others of the set)."""
    control_readers: dict = {}
    for op in ir.ops:
        for c in op._control_inputs:
            control_readers.setdefault(c, []).append(op)
    kept = {t._op for t in ir.fetches} | set(ir.targets)
    found: set = set()
    for op in reversed(ir.ops):
        if (op in kept or not ir.steps[op].calls or not touches(op._op_def)
                or is_variable_op(op) or any(t in ir.fed for t in op._outputs)):
            continue
        data_readers = [c for t in op._outputs for c in t._consumers if c in ir.steps]
        gated = control_readers.get(op, [])
        if ((data_readers or gated) and all(c in found for c in data_readers)
                and all(c in found or is_gate(c) for c in gated)):
            found.add(op)
    return found


def applies(op, ir):
    if ir not in _unread_by_plan:
        _unread_by_plan[ir] = unread(ir)
    return True if op in _unread_by_plan[ir] else None


def rewrite(op, ir, match) -> None:
    ir.steps[op].how = How.PRUNED
    ir.changed()
