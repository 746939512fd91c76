"""Producer absorption: an op computes its output from its inputs' producers' inputs
(``OpDef.absorb_producers``), and those producers are not run.

A sum of zero-padded pieces that do not overlap (the gradient of slices that split one
tensor, as in ``nce_loss``) fills its output piece by piece instead of padding each piece
and adding the padded copies up. It applies only when the producers it drops are the run's
own values read by this op alone (``Memory.removable``), and never when a piece may be a
variable's buffer: reading it at the absorbing op instead of at its producer would move
the read past writes to the variable in between.
"""

from __future__ import annotations

from scopeflow.runtime.plan_ir import How

NAME = "producer_absorption"


def touches(op_def) -> bool:
    return op_def.absorb_producers is not None


def applies(op, ir):
    """``(kernel, inputs)`` computing the op from other tensors, or None."""
    od = op._op_def
    if (not ir.steps[op].calls or od.absorb_producers is None or od.stateful or od.ref_inputs
            or any(t in ir.fed or t in ir.folded for t in op._outputs)):
        return None
    memory = ir.memory
    found = od.absorb_producers(op, ir.folded, memory.removable, ir.shape)
    if found is None or any(memory.aliases_state(t) for t in found[1]):
        return None
    return found


def rewrite(op, ir, found) -> None:
    kernel, inputs = found
    memory = ir.memory
    dropped = [t._op for t in op._inputs if t not in inputs and memory.removable(t)]
    step = ir.steps[op]
    step.kernel, step.inputs, step.with_attrs = kernel, list(inputs), False
    while dropped:  # and then the producers of what only the dropped ops read
        for producer in dropped:
            ir.steps[producer].how = How.ABSORBED
        ir.changed()
        memory = ir.memory
        dropped = list(dict.fromkeys(t._op for producer in dropped for t in producer._inputs
                                     if memory.unread(t)))
