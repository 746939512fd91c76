"""TF1's random-seed rules: a graph-level seed plus an op-level seed give an op's (seed, seed2).

- graph seed set, op seed not: the op seed counts the seed requests made this way so far
  in the graph (0, 1, 2...: TF 2.x's ``_graph_to_seed_dict``), so the same program gives
  the same streams. A function TF traces into a ``FuncGraph`` of its own (a ``tf.data``
  function, a batch function, a ``tf.function`` call) counts its own requests from 0 and
  leaves the graph's alone; a cond branch or loop body (TF1 builds them in the graph
  itself) counts in its graph's;
- op seed set, graph seed not: the graph seed defaults to ``DEFAULT_GRAPH_SEED``;
- neither: ``(None, None)``: a fresh, nondeterministic stream in each session.
"""

from __future__ import annotations

import contextlib

from scopeflow.framework.graph import get_default_graph

__all__ = ["get_seed", "set_random_seed", "DEFAULT_GRAPH_SEED", "function_seed_counter"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def _truncate_seed(seed: int) -> int:
    return seed % _MAXINT32


# Traced functions that TF builds as FuncGraphs, each with its own seed counter.
_OWN_COUNTER_KINDS = frozenset({"DATA_FUNCTION", "BATCH_FUNCTION"})


class _Counter:
    def __init__(self, ctx):
        self._seed_offset = 0
        self.ctx = ctx  # the control-flow context the function was called in


@contextlib.contextmanager
def function_seed_counter(graph=None):
    """Seed requests made inside count from 0 on a counter of their own: what TF does for
    a function it traces into a ``FuncGraph`` (``tf.function``), which scopeflow builds
    inline in the calling graph instead."""
    graph = graph if graph is not None else get_default_graph()
    stack = graph.__dict__.setdefault("_seed_counter_stack", [])
    stack.append(_Counter(graph._state().cf_context))
    try:
        yield
    finally:
        stack.pop()


def _seed_counter_owner(graph):
    """What counts this request: the innermost function being traced that TF would build
    as a graph of its own, else ``graph``."""
    stack = graph.__dict__.get("_seed_counter_stack")
    top = stack[-1] if stack else None
    ctx = graph._state().cf_context
    while ctx is not None:
        if top is not None and ctx is top.ctx:
            return top
        if ctx.kind.name in _OWN_COUNTER_KINDS:
            if not hasattr(ctx, "_seed_offset"):
                ctx._seed_offset = 0
            return ctx
        ctx = ctx.parent
    return top if top is not None else graph


def get_seed(op_seed):
    """The ``(graph_seed, op_seed)`` pair an op should use, by TF's rules."""
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            counter = _seed_counter_owner(graph)
            op_seed = counter._seed_offset
            counter._seed_offset = op_seed + 1
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        return None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed):
    """Sets the default graph's seed (``tf.set_random_seed``)."""
    get_default_graph().seed = seed
