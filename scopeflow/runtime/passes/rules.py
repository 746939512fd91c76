"""What the passes that keep rule tables share: which op types they touch, finding an op's
rules, and trying them."""

from __future__ import annotations

__all__ = ["touches_its_table", "own_kernel_rules", "first_match"]


def touches_its_table(table):
    """A pass's ``touches`` when all its rules are in ``table``: the op types it keys."""
    def touches(op_def) -> bool:
        return op_def.type in table
    return touches


def own_kernel_rules(table, op, ir):
    """``table``'s rules for ``op``'s type, or None: also None when the plan no longer calls
    the op's own kernel (an earlier pass rewrote it, or it does not run)."""
    rules = table.get(op._op_def.type)
    step = ir.steps[op]
    if rules is None or not step.calls or step.kernel is not op._op_def.kernel:
        return None
    return rules


def first_match(rules, *args):
    """The first rule's answer that is not None, trying them in order; else None."""
    for rule in rules:
        found = rule(*args)
        if found is not None:
            return found
    return None
