"""Sub-plans: the compiled branches and loop bodies that control-flow kernels run.

A ``tf.cond`` or ``tf.while_loop`` is one op whose kernel runs its branches or body
(``scopeflow.framework.control_flow_context``). Each of those is compiled, once per session,
into a plan of its own (``compile_plan(..., context=...)``: only the context's ops, fed with
the values the kernel passes, with the session's plan passes) and then called like any
plan: one Python call per branch taken or loop iteration, no per-op interpretation.
"""

from __future__ import annotations

from scopeflow.framework import errors
from scopeflow.runtime.kernel_errors import kernel_error
from scopeflow.runtime.plan import UninitializedVariable, compile_plan

__all__ = ["get_subplan", "run_subplan"]


def get_subplan(state, key, build):
    """The sub-plan cached under ``key`` in this session's ``state``; ``build()`` gives
    ``(fetches, feeds, context)`` the first time (or when the key changes)."""
    plan = state.subplans.get(key)
    if plan is None:
        fetches, feeds, context = build()
        plan = state.subplans[key] = compile_plan(fetches, [], feeds, state, state.passes,
                                                  context=context)
    return plan


def run_subplan(plan, state, values):
    """Runs ``plan`` on ``values`` (its feeds, in order); a kernel failure inside becomes
    the ``tf.errors`` error naming the op inside the branch or body that failed."""
    try:
        return plan.fn(state, *values)
    except errors.OpError as e:
        if e.op is not None:
            raise
        raise _error(plan, e) from None
    except Exception as e:  # noqa: BLE001 - every kernel failure becomes a tf.errors.*
        raise _error(plan, e) from None


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
