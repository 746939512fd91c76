"""All ambient state of building and running graphs, in one thread-local context.

TF1 spreads this over several thread-local stacks: the default graph stack, each graph's
name scope / control dependencies / device stacks, the variable scope store, the default
session stack. Here one object per thread (``CONTEXT``) holds all of it:

- ``graphs``: the ``Graph.as_default()`` stack (empty: the global default graph);
- ``sessions``: the ``Session.as_default()`` stack (``Tensor.eval``/``Operation.run``);
- ``of(graph)``: that graph's ``GraphState`` in this thread: name scope, control
  dependencies, device, variable scope and variable creators. As in TF, each graph keeps
  its own, so switching the default graph and back finds the scopes where they were.

Nothing else in scopeflow is global, apart from the op registry, written at import time.
"""

from __future__ import annotations

import threading
import weakref

__all__ = ["CONTEXT", "GraphState", "pushed", "get_default_session"]


class GraphState:
    """One graph's ambient state in one thread (what ``with`` blocks on it have set)."""

    __slots__ = ("name_stack", "control_stack", "device_stack", "variable_scope",
                 "variable_scope_counts", "cf_context", "variable_creators", "critical_sections")

    def __init__(self):
        self.name_stack = ""        # "a/b": the name scope new ops are created in
        self.control_stack: list = []   # control_dependencies controllers, outermost first
        self.device_stack: list = []    # device specs (or functions), outermost first
        self.variable_scope = None  # the current VariableScope (None: the root, made lazily)
        self.variable_scope_counts: dict[str, int] = {}  # uses, for default_name
        self.cf_context = None  # the tf.cond branch / while body being built (None: none)
        self.variable_creators: list = []  # variable_creator_scope functions, outermost first
        self.critical_sections: list = []  # CriticalSection.execute signatures being built


class _Context(threading.local):
    def __init__(self):
        super().__init__()
        self.graphs: list = []
        self.sessions: list = []
        self._states = weakref.WeakKeyDictionary()

    def of(self, graph) -> GraphState:
        """``graph``'s state in this thread."""
        try:
            return self._states[graph]
        except KeyError:
            state = self._states[graph] = GraphState()
            return state


CONTEXT = _Context()


class pushed:  # noqa: N801 - used as a context manager, like contextlib's
    """A ``with`` block that makes ``value`` the innermost entry of ``stack``."""

    __slots__ = ("stack", "value")

    def __init__(self, stack, value):
        self.stack, self.value = stack, value

    def __enter__(self):
        self.stack.append(self.value)
        return self.value

    def __exit__(self, *exc):
        stack = self.stack
        if stack and stack[-1] is self.value:
            stack.pop()
        elif self.value in stack:  # exited out of order (TF tolerates it for sessions)
            stack.remove(self.value)
        return False


def get_default_session():
    """The session of the innermost ``sess.as_default()`` (or InteractiveSession), or None."""
    sessions = CONTEXT.sessions
    return sessions[-1] if sessions else None
