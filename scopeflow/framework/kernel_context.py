"""The kernel API: what a stateful kernel sees of its session (``OpRunContext``), and the
signal a variable read raises before its variable is initialized. Kernels (``ops/``) and the
runtime that calls them (``runtime/``) both use these, so they sit below both."""

from __future__ import annotations

__all__ = ["OpRunContext", "UninitializedVariable"]


class UninitializedVariable(Exception):
    """Raised by a variable kernel; the session turns it into FailedPreconditionError."""

    def __init__(self, op):
        super().__init__(op.name)
        self.op = op


class OpRunContext:
    """What a stateful kernel sees: the session's state and the op being run.

    ``state`` is the runtime's ``SessionState``: besides the values kernels keep in it
    (variables, random streams, resources), ``state.function(fn, entry=None)`` gives a traced
    function (``func_graph.FuncGraph``) compiled for the session, ``call(values) ->
    outputs``: how a control-flow kernel runs its branches or body without importing the
    runtime.
    """

    __slots__ = ("state", "op", "key")

    def __init__(self, state, op):
        self.state = state
        self.op = op
        self.key = op.name
