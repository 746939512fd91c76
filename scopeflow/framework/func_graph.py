"""Control-flow contexts: which ops belong to a branch of ``tf.cond`` or a ``tf.while_loop``
body, and which outside values each of them uses.

scopeflow represents control flow functionally: a cond or a loop is one op (``If``-like,
``While``-like) that holds the sub-graphs of its branches or body, and its kernel runs them
as compiled sub-plans (``scopeflow.runtime.subplan``) inside a Python ``if``/``while``. The
sub-graphs' ops live in the ordinary graph, under the ``cond/`` and ``while/`` name scopes
TF1 puts them in (so names, ``get_operation_by_name`` and TensorBoard look as in TF1); each
is tagged with the ``ControlFlowContext`` it was built in. The main plan never runs a tagged
op; only the op that owns its context does.

A context collects what its sub-plan is fed:

- **captures**: tensors from enclosing contexts (the main graph included) that its ops use;
  they become inputs of the owning op (TF1's ``Enter``/``Switch`` of an outside tensor);
- **recorded** values (gradient contexts only): intermediates of the *forward* context this
  gradient differentiates, which the forward op keeps for it in its trace output (TF1's
  gradient stacks);
- **external controls**: control inputs on ops outside, moved onto the owning op.

Variables are not captured: a sub-plan looks them up itself (so reads inside a loop see
writes made in it, as in TF1).
"""

from __future__ import annotations

import contextlib

from scopeflow.framework.registry import VARIABLE_OP_TYPES

__all__ = ["ControlFlowContext", "is_inside", "cf_context_of"]

# Op types a sub-plan runs itself when an outside one is used (no capture): variables,
# whose buffers it looks up where it reads them. Everything else, constants included, is a
# capture, so gradients reach it through the construct's op, as in TF.
_SHARED_OP_TYPES = VARIABLE_OP_TYPES


def cf_context_of(tensor_or_op):
    op = getattr(tensor_or_op, "_op", tensor_or_op)
    return op._cf_context


def is_inside(inner, outer) -> bool:
    """Whether context ``inner`` is ``outer`` or nested in it (``None`` is the main graph)."""
    while inner is not None:
        if inner is outer:
            return True
        inner = inner.parent
    return outer is None


class ControlFlowContext:
    """The ops of one cond branch, loop condition, loop body, or gradient of one of those.

    Args:
      kind: ``"cond"``, ``"while_cond"``, ``"while_body"``, ``"cond_grad"`` or
        ``"while_grad"`` (for messages).
      parent: the context the owning op is created in (None: the main graph).
      forward: for a gradient context, the forward context whose intermediates it reads.
    """

    def __init__(self, kind, parent=None, forward=None, name=""):
        self.kind = kind
        # A tf.data function captures variables by value when its iterator is initialized,
        # as TF does; a branch or loop body reads them where it runs.
        self._shared_types = frozenset() if kind == "function" else _SHARED_OP_TYPES
        self.parent = parent
        self.forward = forward
        self.name = name
        self.ops: list = []
        self.captures: dict = {}      # outside tensor -> None (ordered)
        self.recorded_from_forward: dict = {}  # forward tensor -> None (ordered)
        self.recorded: list = []      # (forward contexts) tensors kept for gradients
        self._recorded_index: dict = {}
        self.external_controls: list = []

    # -- building ------------------------------------------------------------------------
    def _add_op(self, op):
        """Called by the graph for each op created while this context is current."""
        self.ops.append(op)
        for t in op._inputs:
            self.provide(t, op)
        for c in op._control_inputs:
            if c._cf_context is not self and not is_inside(c._cf_context, self):
                if self.forward is None or c._cf_context is not self.forward:
                    if c not in self.external_controls:
                        self.external_controls.append(c)

    def provide(self, t, consumer=None):
        """Makes the value of ``t`` (made elsewhere) available to this context's ops."""
        tctx = t._op._cf_context
        if tctx is self or t in self.captures or t in self.recorded_from_forward:
            return
        if t._op._op_def.type in self._shared_types and is_inside(self, tctx):
            return
        if self.forward is not None and tctx is self.forward:
            self.forward.record(t)
            self.recorded_from_forward[t] = None
            return
        if self.parent is None:
            if tctx is not None:
                where = f" (created at {consumer.creation_site})" if consumer is not None else ""
                raise ValueError(
                    f"Cannot use '{t.name}' as input to "
                    f"'{consumer.name if consumer is not None else '?'}'{where} because "
                    f"'{t.name}' is in a {tctx.describe()} and the op is not: a value made in "
                    "a tf.cond branch or tf.while_loop body can only be used outside through "
                    "the construct's outputs.")
        elif tctx is not self.parent:
            self.parent.provide(t, consumer)
        self.captures[t] = None

    @contextlib.contextmanager
    def entered(self, graph):
        """Builds ops in this context. As in TF1, the control dependencies around the
        construct do not reach the ops inside it (they apply to the owning op)."""
        state = graph._state()
        saved = state.cf_context, state.control_stack
        state.cf_context, state.control_stack = self, []
        try:
            yield self
        finally:
            state.cf_context, state.control_stack = saved

    def record(self, t):
        """Keeps ``t`` (an op of this context) in each run's trace, for a gradient."""
        if t not in self._recorded_index:
            self._recorded_index[t] = len(self.recorded)
            self.recorded.append(t)

    def recorded_index(self, t) -> int:
        return self._recorded_index[t]

    def describe(self) -> str:
        if self.kind.startswith("while"):
            return f"while loop ('{self.name}')"
        return f"tf.cond branch ('{self.name}')"

    def __repr__(self):
        return f"<ControlFlowContext {self.kind} {self.name!r}>"
