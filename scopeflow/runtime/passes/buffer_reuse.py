"""Buffer reuse (as TF's ``forward_input_or_allocate_output``): an elementwise NumPy ufunc
writes its result into an input that dies there, when that input is the run's own array of
the output's shape and dtype, read by no one else (``Memory.owned_alone``: never a feed, a
variable's buffer, a constant bound into the plan, or a fetched value). Chains of
elementwise ops then work in one buffer that stays in cache instead of a new allocation
per op.
"""

from __future__ import annotations

import numpy as np

NAME = "buffer_reuse"
# No rules by op type: the pass applies to any op its ``applies`` accepts.
RULES: dict = {}


def touches(op_def) -> bool:
    return isinstance(op_def.kernel, np.ufunc) and op_def.kernel.nout == 1


def applies(op, ir):
    """The input to write the result into, or None."""
    step = ir.steps[op]
    kernel = step.kernel
    if (not step.calls or not isinstance(kernel, np.ufunc) or kernel.nout != 1
            or len(op._outputs) != 1 or op._outputs[0] in ir.fed):
        return None
    out = op._outputs[0]
    dims = ir.shape(out).as_tuple()  # (in a plan specialised on fed shapes: the inferred)
    if not dims or None in dims:
        return None
    memory = ir.memory
    for t in step.inputs:
        if (t.dtype.base_dtype == out.dtype.base_dtype and ir.shape(t).as_tuple() == dims
                and memory.owned_alone(t)):
            return t
    return None


def rewrite(op, ir, target) -> None:
    ir.steps[op].out = target
