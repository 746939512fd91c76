"""Pass-through forwarding (as grappler removes them): an op whose output is always one of
its inputs (a rule of ``RULES`` names it: ``Identity``, ``StopGradient``, a ``Reshape`` to the
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

import numpy as np

from scopeflow.framework.registry import is_variable_op
from scopeflow.runtime.passes.rules import first_match, touches_its_table
from scopeflow.runtime.plan_ir import How

NAME = "pass_through"


# ── Rules: ``rule(op, consts) -> int | None``, the index of the input whose value the op's
# output always is, given the inputs' values known when the plan is compiled (``consts``,
# keyed by tensor).
def first_input_always(op, consts):
    """``Identity``, ``StopGradient``: the kernel returns its input."""
    return 0


def reshape_to_its_own_shape(op, consts):
    """A reshape to the fully known static shape its input already has: the kernel's
    result could only be the input's values in the input's shape."""
    dims = op._inputs[0].shape.as_tuple()
    if dims and None not in dims and op._outputs[0].shape.as_tuple() == dims:
        return 0
    return None


def mul_by_scalar_one(op, consts):
    """``x * 1`` or ``1 * x`` by a scalar constant one (a learning rate of 1.0): the
    product is ``x`` itself, -0.0, infinities and quiet NaNs included, in real types (in
    complex ones ``inf * (1+0j)`` is NaN). As TF's grappler, which makes such a Mul an
    Identity."""
    for kept, other in ((0, 1), (1, 0)):
        one = consts.get(op._inputs[other])
        if (one is not None and np.ndim(one) == 0 and np.asarray(one).dtype.kind in "fiu"
                and one == 1):
            return kept
    return None


RULES = {
    "Identity": (first_input_always,),
    "StopGradient": (first_input_always,),
    "Reshape": (reshape_to_its_own_shape,),
    "Mul": (mul_by_scalar_one,),
}


touches = touches_its_table(RULES)


def forwarded_input(op, consts):
    """The index of the input ``op``'s output always is (by its type's rules), or None."""
    return first_match(RULES.get(op._op_def.type, ()), op, consts)


def applies(op, ir):
    od = op._op_def
    if not ir.steps[op].calls or od.type not in RULES or op._outputs[0] in ir.fed:
        return None
    kept = forwarded_input(op, ir.folded)
    if kept is None or op._inputs[kept]._ref_key in ir.reallocated:
        return None
    source = ir.source(op._inputs[kept])
    if not od.aliases and (ir.memory.aliases_state(source) or op._outputs[0] in ir.fetches):
        # A computing op (``x * 1``) copies: a variable read through it is the value
        # when it runs, and its fetch is an array of its own.
        return None
    if is_variable_op(source._op) and not _has_readers(op._outputs[0], ir):
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
