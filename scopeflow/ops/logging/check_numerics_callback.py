"""``tf.debugging.enable_check_numerics`` / ``disable_check_numerics`` in TF1 graph mode,
and the ``CheckNumericsV2`` op they add.

While enabled, every op created afterwards (``OpDef.create``; TF's op callbacks) that has
floating-point outputs gets one ``CheckNumericsV2`` per such output, and the builder
returns the checked tensors (builders that return through ``OpDef.bind`` or ``outputs_of``,
nearly all), so the ops built on them depend on the checks: a run
that computes an Inf or NaN fails at the first op that made it, with TF's message (the op
type, output slot, dtype, static shape, inputs, and where the op was created). As in TF: a
placeholder's output is returned unchanged and the ops that consume it get a control
dependency on its check; the check of op ``x`` is ``x/CheckNumericsV2`` (of a constant,
``CheckNumericsV2`` in the current scope); TF's "safe" ops (reshapes, slices, gathers,
concatenations, min/max...) and its skipped ops (``Identity``, control flow) get none.
Ops that existed before enabling are not instrumented. The switch is process-wide here
(TF keeps it per thread).
"""

from __future__ import annotations

import weakref
from contextlib import nullcontext

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import name_scope
from scopeflow.framework.opdef import OP_CALLBACKS, OpDef, same_shape

__all__ = ["enable_check_numerics", "disable_check_numerics", "check_numerics_v2"]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


# ── CheckNumericsV2 ────────────────────────────────────────────────────────────────────
def _check_numerics_v2_dtype(tensor, *, message):
    if tensor not in _FLOATS:
        raise TypeError(f"Value passed to parameter 'tensor' has DataType {tensor.name} not "
                        "in list of allowed values: bfloat16, float16, float32, float64")
    return tensor


def _check_numerics_v2_kernel(tensor, *, message):
    """``tensor`` itself; ``InvalidArgumentError`` naming which of -Inf, +Inf and NaN it
    holds (CheckNumerics tells the infinities apart here)."""
    if tensor.size == 0 or (np.isfinite(tensor.min()) and np.isfinite(tensor.max())):
        return tensor
    found = [what for what, present in (
        ("-Inf", bool(np.isneginf(tensor).any())),
        ("+Inf", bool(np.isposinf(tensor).any())),
        ("NaN", bool(np.isnan(tensor).any()))) if present]
    raise InvalidArgumentError(None, None, f"{message} : Tensor had {' and '.join(found)} "
                                           "values".lstrip())


check_numerics_v2_op = OpDef("CheckNumericsV2", shape=same_shape,
                             dtype=_check_numerics_v2_dtype, kernel=_check_numerics_v2_kernel,
                             attrs={"message": ""}, aliases=(0,), input_names=("tensor",))


@check_numerics_v2_op.def_grad
def _check_numerics_v2_grad(op, grad):
    """The gradient is checked too (TF's rule)."""
    return [check_numerics_v2(grad, "Not a number (NaN) or infinity (Inf) values detected "
                                    "in gradient. " + op.get_attr("message"))]


def check_numerics_v2(tensor, message, name=None):
    """``tensor``, failing the run if it holds an Inf or a NaN (TF's raw CheckNumericsV2)."""
    return check_numerics_v2_op.bind(tensor, message=message, name=name)


# ── The op callback ────────────────────────────────────────────────────────────────────
_SAFE_OPS = frozenset({
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape",
    "Slice", "Squeeze", "Stack", "Pack", "StridedSlice", "StridedSliceGrad",
    "TensorListConcatV2", "TensorListGather", "TensorListGetItem", "TensorListPopBack",
    "TensorListStack", "Transpose", "Unpack"})
_SKIP_OPS = frozenset({
    "CheckNumericsV2", "Enter", "Exit", "Identity", "If", "LoopCond", "Merge",
    "NextIteration", "StatelessIf", "StatefulPartitionedCall", "Switch", "While",
    "WhileLoop", "LoopVar"})
_IGNORED_OUTPUTS = frozenset(
    (t, i) for t in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
    for i in (1, 2, 3, 4, 5))


def _error_message(slot, op, tensor, inputs, stack_height_limit):
    """TF's text for the failing check (its graph-mode form)."""
    message = (f"\n\n!!! Detected Infinity or NaN in output {slot} of graph op "
               f"\"{op.type}\" (# of outputs: {len(op.outputs)}) !!!\n"
               f"  dtype: <dtype: '{tensor.dtype.name}'>\n  shape: {tensor.shape}\n")
    if len(inputs) > 1:
        message += f"\n  Input tensors ({len(inputs)}):\n"
        for i, t in enumerate(inputs):
            message += f"         {i}: {_original(t)}\n"
    elif len(inputs) == 1:
        message += f"\n  Input tensor: {_original(inputs[0])}\n"
    if stack_height_limit != 0:
        site = str(op.creation_site)
        path, _, line = site.rpartition(":")
        where = f"{path} (L{line})" if line.isdigit() else site
        message += ("\n  Stack trace of op's creation (\"->\": inferred user code):\n"
                    f"    + {where}\n")
    return message + "\n"


_ORIGINALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # check -> checked


def _original(t):
    return _ORIGINALS.get(t, t)


class _CheckNumericsCallback:
    def __init__(self, stack_height_limit, path_length_limit):
        self.stack_height_limit = stack_height_limit
        self.path_length_limit = path_length_limit
        self.placeholder_checks = weakref.WeakKeyDictionary()  # placeholder -> its check op

    def __call__(self, op, outputs):
        if op.type in _SKIP_OPS or op.type in _SAFE_OPS:
            return None
        for t in op.inputs:
            check = self.placeholder_checks.get(t)
            if check is not None:
                op._add_control_input(check)
        checked = []
        for slot, out in enumerate(outputs):
            dtype = out.dtype
            if dtype._is_ref_dtype or dtype.base_dtype not in _FLOATS or \
                    (op.type, slot) in _IGNORED_OUTPUTS:
                checked.append(out)
                continue
            message = _error_message(slot, op, out, list(op.inputs), self.stack_height_limit)
            with op.graph.as_default(), (nullcontext() if op.type == "Const"
                                         else name_scope(op.name + "/")):
                check = check_numerics_v2(out, message)
            _ORIGINALS[check] = out
            if op.type == "Placeholder":
                self.placeholder_checks[out] = check.op
                checked.append(out)
            else:
                checked.append(check)
        return checked


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on, ops built with floating-point outputs are checked for Inf and NaN
    when they run (see the module docstring). Enabling twice changes nothing."""
    if not any(isinstance(c, _CheckNumericsCallback) for c in OP_CALLBACKS):
        OP_CALLBACKS.append(_CheckNumericsCallback(stack_height_limit, path_length_limit))


def disable_check_numerics():
    """Ops built from now on are not instrumented (those already built keep their
    checks)."""
    OP_CALLBACKS[:] = [c for c in OP_CALLBACKS if not isinstance(c, _CheckNumericsCallback)]
