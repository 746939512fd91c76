"""Plans specialised on the shapes actually fed, for feeds with unknown dimensions.

A plan is compiled once per (fetches, feeds) signature from the graph's static shapes. When
a placeholder is ``[None]``, those shapes say little: gradient graphs built for an unknown
batch dim compute their shapes at run time (``Shape``, ``BroadcastGradientArgs``, a
``Reshape`` and a ``Sum`` per broadcast), and the passes that need static shapes
(``buffer_reuse``) stand aside. A word2vec step fed ``[None]`` placeholders ran 2.5x slower
than the same graph built with ``[128]`` ones.

So a generic plan whose feeds have unknown dims gets a ``Specializations``: for each tuple
of fed shapes it sees repeatedly, it compiles (lazily, on the ``SPECIALIZE_AT``-th run
with those shapes) the same signature again with the fed tensors of those concrete shapes
(``compile_plan(..., fed_shapes=...)``; the pass ``passes.shape_specialization`` redoes
static shape inference from them, without touching the graph), and runs that plan for
feeds of those shapes. The specialised plans are kept in a small LRU cache
(``CACHE_SIZE``). When the fed shapes vary wildly (``MAX_COMPILES`` specialised plans
compiled for one signature), it stops specialising and keeps the generic plan.

Feeds are checked against the graph's shapes before a plan is chosen, so errors for bad
feeds are the generic plan's, and a specialised plan computes the same bits and raises the
same errors as the generic one (tests/unit/runtime/test_shape_specialization.py). Turned off with
the pass: ``SCOPEFLOW_PLAN_PASSES=-shape_specialization``.
"""

from __future__ import annotations

import collections

from scopeflow.runtime.passes import shape_specialization

__all__ = ["Specializations", "wants_specialization", "CACHE_SIZE", "MAX_COMPILES",
           "SPECIALIZE_AT"]

# Specialised plans kept per signature (least recently used ones are dropped).
CACHE_SIZE = 8
# Specialised plans compiled for one signature before the generic plan is kept for good:
# the fed shapes vary too much for compiling to pay.
MAX_COMPILES = 32
# The run with the same fed shapes at which a specialised plan is compiled: a shape fed
# once (a last, smaller batch) runs the generic plan, without a compile.
SPECIALIZE_AT = 2
# Shape tuples counted before that run (bounded: forgotten all at once when full).
_MAX_SEEN = 256


def wants_specialization(feed_tensors, passes) -> bool:
    """Whether a plan for these feeds gets specialised plans: the pass is on and some fed
    dim is unknown."""
    if shape_specialization not in passes:
        return False
    return not all(t._shape.is_fully_defined() for t in feed_tensors)


class Specializations:
    """The specialised plans of one generic plan, by tuple of fed shapes.

    ``compile(shapes)`` compiles the generic plan's signature specialised on ``shapes``;
    ``lock`` is held while it runs (the session's); ``graph`` is watched for ops that
    may change a variable's shape (an ``Assign`` with ``validate_shape=False``), which turn
    specialisation off for good, since inference trusts the variables' static shapes."""

    __slots__ = ("generic", "_compile", "_lock", "_graph", "_scanned", "_plans", "_seen",
                 "compiled", "disabled")

    def __init__(self, generic, compile, lock, graph):  # noqa: A002 - compile: a function
        self.generic = generic
        self._compile = compile
        self._lock = lock
        self._graph = graph
        self._scanned = 0
        self._plans: collections.OrderedDict = collections.OrderedDict()
        self._seen: dict = {}
        self.compiled = 0
        self.disabled = False
        self._scan()

    def plans(self) -> list:
        """The specialised plans cached now."""
        return list(self._plans.values())

    def plan_for(self, args):
        """The plan to run for these (checked) feed arrays."""
        if self.disabled:
            return self.generic
        if len(self._graph._ops) != self._scanned:
            self._scan()
            if self.disabled:
                return self.generic
        key = tuple([a.shape for a in args])
        plan = self._plans.get(key)
        if plan is not None:
            try:
                self._plans.move_to_end(key)
            except KeyError:  # dropped by another thread's compile meanwhile
                pass
            return plan
        return self._miss(key)

    def _miss(self, key):
        seen = self._seen.get(key, 0) + 1
        if seen < SPECIALIZE_AT:
            if len(self._seen) >= _MAX_SEEN:
                self._seen.clear()
            self._seen[key] = seen
            return self.generic
        self._seen.pop(key, None)
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:  # another thread compiled it meanwhile
                return plan
            if self.disabled:
                return self.generic
            if self.compiled >= MAX_COMPILES:
                # The shapes vary wildly: compiling for each would cost more than it saves.
                self.disabled = True
                self._plans.clear()
                self._seen.clear()
                return self.generic
            plan = self._compile(key)
            self.compiled += 1
            self._plans[key] = plan
            if len(self._plans) > CACHE_SIZE:
                self._plans.popitem(last=False)
        return plan

    def _scan(self):
        """Looks at the graph's ops added since the last look."""
        ops = self._graph._ops
        for op in ops[self._scanned:]:
            if op._op_def.type == "Assign" and not op._attrs.get("validate_shape", True):
                self.disabled = True
                self._plans.clear()
                break
        self._scanned = len(ops)
