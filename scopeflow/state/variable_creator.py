"""``tf.variable_creator_scope``: functions that intercept each variable's creation.

A creator is ``creator(next_creator, **kwargs)``: it may change the keyword arguments,
call ``next_creator(**kwargs)`` (the next creator out, and last the real constructor) or
return something else entirely. As in TF, the innermost scope's creator runs first, the
stack is kept per graph and per thread, and ``tf.Variable(...)`` as well as
``tf.get_variable`` (which constructs a ``tf.Variable``) go through it. The creator gets
every argument of ``tf.compat.v1.Variable`` by keyword, defaults filled in as TF fills them
(``synchronization=AUTO``, ``aggregation=NONE``, ``experimental_enable_variable_lifting``).
"""

from __future__ import annotations

import contextlib

from scopeflow.framework.context import CONTEXT
from scopeflow.framework.graph import get_default_graph

__all__ = ["variable_creator_scope", "creator_stack", "create_through_scopes"]


def creator_stack(graph=None) -> tuple:
    """The creators in effect in ``graph`` (default: the default graph), outermost first."""
    graph = get_default_graph() if graph is None else graph
    return tuple(CONTEXT.of(graph).variable_creators)


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Makes ``variable_creator(next_creator, **kwargs)`` intercept the variables created in
    this block of the default graph (TF's ``tf.compat.v1.variable_creator_scope``).

    >>> def named(next_creator, **kwargs):
    ...     kwargs["name"] = "renamed"
    ...     return next_creator(**kwargs)
    >>> with variable_creator_scope(named):
    ...     v = tf.Variable(1.0, name="v")
    >>> v.name
    'renamed:0'
    """
    graph = get_default_graph()
    stack = CONTEXT.of(graph).variable_creators
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.pop()


def create_through_scopes(base_creator, kwargs: dict):
    """Runs the creators of the default graph's stack, innermost first, ending with
    ``base_creator(**kwargs)``."""
    create = base_creator
    for creator in creator_stack():
        create = _chained(creator, create)
    return create(**kwargs)


def _chained(creator, next_creator):
    def call(**kwargs):
        return creator(next_creator, **kwargs)
    return call
