"""Constant folding (as TF's grappler): a pure op whose inputs are all known when the plan is
compiled runs once, then, and its (small) outputs are bound into the plan like constants.

Gradient graphs are full of such ops (shape arithmetic, ``ones``/``zeros_like`` of static
shapes, the paddings of ``Slice`` gradients), so a training step calls far fewer kernels.
This relies on TF's contract: an op with side effects, randomness or anything beyond its
inputs and attrs is ``stateful``, and kernels never modify their inputs. A kernel that
fails (or warns of a floating-point error) here stays in the plan, so its error is raised
where it always was: at run time, naming the op.
"""

from __future__ import annotations

import numpy as np

from scopeflow.runtime.plan_ir import How

NAME = "constant_folding"
# No rules by op type: the pass applies to any op its ``applies`` accepts.
RULES: dict = {}
# Larger values would be held by the plan for the session's lifetime; the per-call
# overhead that folding saves only matters for small tensors anyway.
FOLD_MAX_BYTES = 1 << 18


def touches(op_def) -> bool:
    return not op_def.stateful and op_def.kernel is not None and not op_def.ref_inputs


def _too_big(t) -> bool:
    """Whether the static shape already says the value is too big to fold (a large
    ``zeros`` initializer is then not computed an extra time at compile time)."""
    dims = t.shape.as_tuple()
    if dims is None or any(d is None for d in dims):
        return False
    return int(np.prod(dims, dtype=np.int64)) * t.dtype.base_dtype.size > FOLD_MAX_BYTES


def applies(op, ir):
    """The op's output values, when it is pure and all its inputs are known; else None."""
    od = op._op_def
    outs = op._outputs
    if (not ir.steps[op].calls or not touches(od) or not op._inputs or not outs
            or any(t not in ir.folded for t in op._inputs)
            or any(t in ir.fed or _too_big(t) for t in outs)):
        return None
    try:
        with np.errstate(all="raise"):
            result = od.kernel(*[ir.folded[t] for t in op._inputs], **op._attrs)
    except Exception:  # noqa: BLE001 - left to run (and fail) at run time
        return None
    results = result if len(outs) > 1 else (result,)
    if all(isinstance(r, (np.ndarray, np.generic)) and r.nbytes <= FOLD_MAX_BYTES
           for r in results):
        return results
    return None


def rewrite(op, ir, results) -> None:
    ir.folded.update(zip(op._outputs, results))
    ir.steps[op].how = How.BOUND
    ir.changed()
