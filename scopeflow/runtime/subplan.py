"""Sub-plans: traced functions (branches, loop bodies, ``tf.data`` functions) compiled for a
session and called by the kernels and iterators that own them.

A ``tf.cond``, ``tf.while_loop`` or ``tf.data`` transformation holds ``FuncGraph``s
(``scopeflow.framework.func_graph``). Each is compiled, once per session and entry, into a
plan of its own (``compile_plan(..., context=fn)``: only the function's ops, fed with the
values the caller passes, with the session's plan passes) and then called like any plan: one
Python call per branch taken, loop iteration or element, no per-op interpretation.

Callers reach this module through their session state (``state.function(fn, entry)``, which
is ``function_caller``), so the layers that build graphs never import the runtime.
"""

from __future__ import annotations

from scopeflow.framework import errors
from scopeflow.runtime.kernel_errors import kernel_error
from scopeflow.runtime.plan import UninitializedVariable, compile_plan

__all__ = ["function_caller"]


def function_caller(state, fn, entry=None):
    """``call(values) -> outputs``: the traced function ``fn`` compiled for the session whose
    state is ``state``, returning ``fn.fetches(entry)`` for its feeds' values ``values``
    (``fn.feeds()``, in order); a kernel failure inside raises the ``tf.errors`` error naming
    the op inside that failed."""
    # A gradient built after a run makes the forward function record more values: the
    # recorded count is part of the key, so its plan is compiled again.
    key = (fn, len(fn.recorded)) if entry is None else (fn, entry)
    call = state.subplans.get(key)
    if call is None:
        call = state.subplans[key] = _compile(state, fn, entry)
    return call


def _compile(state, fn, entry):
    plan = compile_plan(fn.fetches(entry), [], fn.feeds(), state, state.passes, context=fn)
    run = plan.fn

    def call(values):
        try:
            return run(state, *values)
        except errors.OpError as e:
            if e.op is not None:
                raise
            raise _error(plan, e) from None
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes a tf.errors.*
            raise _error(plan, e) from None
    return call


def _error(plan, exc):
    op = plan.failing_op(exc)
    where = f"\n\t [[{op.describe_site()}]]" if op is not None else ""
    if isinstance(exc, UninitializedVariable):
        culprit = op if op is not None else exc.op
        return errors.FailedPreconditionError(
            None, culprit, f"Attempting to use uninitialized value {exc.op.name}{where}")
    if isinstance(exc, errors.OpError):
        return type(exc)(None, op, f"{exc.message}{where}")
    return kernel_error(op, exc, where)
