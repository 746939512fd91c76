"""Owning kernels: a consumer keeps an array the run owns alone instead of copying it (a
kernel of ``RULES``, by op type): ``Assign`` of a freshly restored (or freshly computed) tensor
makes that array the variable's buffer, which saves a copy of every variable on restore.

Giving a variable a new buffer is visible to anything else in the run that holds the old
one (TF's ``Assign`` copies into the existing buffer), so this applies only when no other
op of the run reads or writes that variable and the value is the run's own, read by the
``Assign`` alone (``Memory.owned_alone``).
"""

from __future__ import annotations

from scopeflow.ops.state.state_ops import _check_assign_shape
from scopeflow.runtime.passes.rules import first_match, own_kernel_rules, touches_its_table

NAME = "owning_kernels"


def _assign_owned_kernel(ctx, ref, value, *, validate_shape, use_locking):
    """Assign of an array the run owns alone (a restored tensor) when no other op of the run
    uses the variable: the variable keeps the array as its buffer, which saves a copy of
    every variable on restore."""
    _check_assign_shape(ctx, ctx.state.vars.get(ref), value, validate_shape)
    ctx.state.vars[ref] = value
    return value


def assign_keeps_owned_value(inputs, owned_alone):
    """``Assign`` of a value the run owns alone: the variable keeps that array."""
    return _assign_owned_kernel if owned_alone(inputs[1]) else None


# Rules: ``rule(inputs, owned_alone) -> kernel | None``: a kernel to run instead of the op's
# own that keeps an input the run owns alone (``owned_alone(t)``) rather than copying it.
RULES = {
    "Assign": (assign_keeps_owned_value,),
}


touches = touches_its_table(RULES)


def applies(op, ir):
    rules = own_kernel_rules(RULES, op, ir)
    if rules is None:
        return None
    memory = ir.memory
    refs = [t._ref_key for i, t in enumerate(op._inputs) if i in op._op_def.ref_inputs]
    if any(memory.variable_users[key] != 1 for key in refs):
        return None
    return first_match(rules, ir.steps[op].inputs, memory.owned_alone)


def rewrite(op, ir, kernel) -> None:
    ir.steps[op].kernel = kernel
