"""Owning kernels: a consumer keeps an array the run owns alone instead of copying it
(``OpDef.owning_kernel``): ``Assign`` of a freshly restored (or freshly computed) tensor
makes that array the variable's buffer, which saves a copy of every variable on restore.

Giving a variable a new buffer is visible to anything else in the run that holds the old
one (TF's ``Assign`` copies into the existing buffer), so this applies only when no other
op of the run reads or writes that variable and the value is the run's own, read by the
``Assign`` alone (``Memory.owned_alone``).
"""

from __future__ import annotations

NAME = "owning_kernels"


def touches(op_def) -> bool:
    return op_def.owning_kernel is not None


def applies(op, ir):
    step = ir.steps[op]
    od = op._op_def
    if not step.calls or od.owning_kernel is None or step.kernel is not od.kernel:
        return None
    memory = ir.memory
    if not memory.owned_alone(step.inputs[od.owned_input]):
        return None
    refs = [t._ref_key for i, t in enumerate(op._inputs) if i in od.ref_inputs]
    if any(memory.variable_users[key] != 1 for key in refs):
        return None
    return od.owning_kernel


def rewrite(op, ir, kernel) -> None:
    ir.steps[op].kernel = kernel
