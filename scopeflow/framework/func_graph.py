"""Traced functions (TF's ``FuncGraph``): the ops a Python function built into the graph
for one construct, the outside values they use, and what each call feeds and returns.

scopeflow represents control flow functionally: a ``tf.cond``, ``tf.while_loop`` (and so
``map_fn``/``scan``) or a ``tf.data`` transformation is one op, or one iterator, that holds
the traced functions of its branches, body or user function and calls them. A function's
ops live in the ordinary graph, under the name scopes TF1 puts them in (``cond/``,
``while/``, ``MapDataset/``: so names, ``get_operation_by_name`` and TensorBoard look as in
TF1); each is tagged with the ``FuncGraph`` it was built in (``op._cf_context``). The main
plan never runs a tagged op; only the op or iterator that owns its function does.

A function collects what each call is fed, in this order:

- **inputs**: placeholders (``LoopVar``) for the values the caller passes (loop variables, a
  ``tf.data`` function's arguments; none for a cond branch);
- **captures**: tensors from enclosing functions (the main graph included) that its ops use;
  they become inputs of the owning op (TF1's ``Enter``/``Switch`` of an outside tensor);
- **recorded** values (gradient functions only): intermediates of the *forward* function
  this gradient differentiates, which the forward op keeps for it in its trace output
  (TF1's gradient stacks);

and returns its ``outputs`` followed by the values it records for a gradient, or, asked for
a named entry, ``aux_outputs[entry]`` (a loop's condition). External controls (control
inputs on ops outside) are moved onto the owning op.

Variables are not captured by branches and loop bodies: their sub-plan looks them up itself
(so reads inside a loop see writes made in it, as in TF1); a ``tf.data`` function captures
them by value, as TF does.

Running a function is the runtime's: a kernel asks its session state for the compiled call,
``run.state.function(fn, entry=None) -> call(values) -> outputs`` (``runtime/subplan.py``,
compiled once per session), so nothing that builds graphs imports the layer that runs them.
"""

from __future__ import annotations

import contextlib
import enum

from scopeflow.framework.registry import VARIABLE_OP_TYPES

__all__ = ["FuncGraph", "FunctionKind", "is_inside", "cf_context_of"]

# Op types a sub-plan runs itself when an outside one is used (no capture): variables,
# whose buffers it looks up where it reads them. Everything else, constants included, is a
# capture, so gradients reach it through the construct's op, as in TF.
_SHARED_OP_TYPES = VARIABLE_OP_TYPES


class FunctionKind(enum.Enum):
    """What a traced function is for, and how errors name it.

    Each kind has ``tag`` (a short name, for ``repr``), ``what`` (how run-time errors name
    the place of an op inside it: "it is inside a tf.cond branch") and ``where`` (the words
    of TF1's graph-building errors: "because 'x' is in a while loop"). A gradient function
    is named as the construct it differentiates, as TF1 names it.
    """

    COND_BRANCH = ("cond", "a tf.cond branch", "tf.cond branch")
    COND_GRAD = ("cond_grad", "a tf.cond branch", "tf.cond branch")
    WHILE_LOOP = ("while", "a tf.while_loop body", "while loop")
    WHILE_GRAD = ("while_grad", "a tf.while_loop body", "while loop")
    DATA_FUNCTION = ("function", "a tf.data function", "tf.data function")
    BATCH_FUNCTION = ("batch_function", "a tf.nondifferentiable_batch_function function",
                      "batch function")

    def __init__(self, tag: str, what: str, where: str):
        self.tag = tag
        self.what = what
        self.where = where

    @property
    def shares_variables(self) -> bool:
        """Whether its ops read outside variables where they run (branches, loop bodies),
        rather than capturing their values (a ``tf.data`` function, at initialization)."""
        return self is not FunctionKind.DATA_FUNCTION


def cf_context_of(tensor_or_op):
    """The ``FuncGraph`` an op (or a tensor's op) was built in; None: the main graph."""
    op = getattr(tensor_or_op, "_op", tensor_or_op)
    return op._cf_context


def outside_loop_message(t, consumer, context) -> str:
    """TF1's message (control_flow_util.CheckInputFromValidContext) for an op in
    ``context`` (a function, or None for the main graph) reading ``t``, made in a while loop
    the op is not in."""
    name = consumer.name if consumer is not None else "?"
    while context is not None and context.kind.where != "while loop":
        context = context.parent
    if context is not None:
        return (f"Cannot use '{t._op.name}' as input to '{name}' because they are in "
                "different while loops. See info log for more details.")
    return (f"Cannot use '{t._op.name}' as input to '{name}' because '{t._op.name}' is in "
            "a while loop. See info log for more details.")


def is_inside(inner, outer) -> bool:
    """Whether function ``inner`` is ``outer`` or nested in it (``None`` is the main graph)."""
    while inner is not None:
        if inner is outer:
            return True
        inner = inner.parent
    return outer is None


class FuncGraph:
    """The ops of one cond branch, loop (condition and body), ``tf.data`` function, or
    gradient of a branch or body.

    Args:
      kind: a ``FunctionKind``.
      parent: the function the owning op is created in (None: the main graph).
      forward: for a gradient function, the forward function whose intermediates it reads.
      name: the construct's name scope, for messages.
    """

    def __init__(self, kind: FunctionKind, parent=None, forward=None, name=""):
        self.kind = kind
        self._shared_types = _SHARED_OP_TYPES if kind.shares_variables else frozenset()
        self.parent = parent
        self.forward = forward
        self.name = name
        self.ops: list = []
        self.inputs: list = []        # placeholders a call feeds first
        self.outputs: list = []       # what a call returns (then the recorded values)
        self.aux_outputs: dict = {}   # entry -> other results a call may ask for instead
        self.captures: dict = {}      # outside tensor -> None (ordered)
        self.recorded_from_forward: dict = {}  # forward tensor -> None (ordered)
        self.recorded: list = []      # (forward functions) tensors kept for gradients
        self._recorded_index: dict = {}
        self.external_controls: list = []

    # -- building ------------------------------------------------------------------------
    def _add_op(self, op):
        """Called by the graph for each op created while this function is current."""
        self.ops.append(op)
        for t in op._inputs:
            self.provide(t, op)
        for c in op._control_inputs:
            if c._cf_context is not self and not is_inside(c._cf_context, self):
                if self.forward is None or c._cf_context is not self.forward:
                    if c not in self.external_controls:
                        self.external_controls.append(c)

    def provide(self, t, consumer=None):
        """Makes the value of ``t`` (made elsewhere) available to this function's ops."""
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
            if tctx is not None and tctx.kind.where == "while loop":
                raise ValueError(outside_loop_message(
                    t, consumer, consumer._cf_context if consumer is not None else self))
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
        """Builds ops in this function. As in TF1, the control dependencies around the
        construct do not reach the ops inside it (they apply to the owning op)."""
        state = graph._state()
        saved = state.cf_context, state.control_stack
        state.cf_context, state.control_stack = self, []
        try:
            yield self
        finally:
            state.cf_context, state.control_stack = saved

    def record(self, t):
        """Keeps ``t`` (an op of this function) in each run's trace, for a gradient."""
        if t not in self._recorded_index:
            self._recorded_index[t] = len(self.recorded)
            self.recorded.append(t)

    def recorded_index(self, t) -> int:
        return self._recorded_index[t]

    # -- calling -------------------------------------------------------------------------
    def feeds(self) -> list:
        """The tensors a call is fed, in the order the caller passes their values."""
        return self.inputs + list(self.captures) + list(self.recorded_from_forward)

    def fetches(self, entry=None) -> list:
        """The tensors a call returns: the outputs and the recorded values, or the
        results named ``entry``."""
        return self.outputs + self.recorded if entry is None else self.aux_outputs[entry]

    def describe(self) -> str:
        return f"{self.kind.where} ('{self.name}')"

    def __repr__(self):
        return f"<FuncGraph {self.kind.tag} {self.name!r}>"
