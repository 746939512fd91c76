"""Constant-specialised kernels: an op whose some inputs are known when the plan is
compiled may run a kernel made for those values (``OpDef.const_kernel``).

``Select`` with a constant zeros branch becomes a bitwise AND with the condition's mask;
``Slice`` and ``Pad`` with constant bounds check and lay out once per input shape. The
specialised kernel computes the same bits and raises the same errors as the general one.
"""

from __future__ import annotations

NAME = "const_kernels"


def touches(op_def) -> bool:
    return op_def.const_kernel is not None


def applies(op, ir):
    """The specialised kernel for this op's constant inputs, or None."""
    step = ir.steps[op]
    od = op._op_def
    if not step.calls or od.const_kernel is None or step.kernel is not od.kernel:
        return None
    consts = [ir.folded.get(t) for t in op._inputs]
    if all(c is None for c in consts):
        return None
    return od.const_kernel(consts)


def rewrite(op, ir, kernel) -> None:
    ir.steps[op].kernel = kernel
