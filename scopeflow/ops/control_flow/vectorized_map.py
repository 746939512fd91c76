"""``tf.vectorized_map``: ``fn`` applied to each slice of ``elems`` along axis 0, results
stacked.

TF vectorizes ``fn`` with ``pfor`` (one op per op of ``fn``, over the whole batch) and falls
back to a ``while_loop`` for ops it cannot vectorize; scopeflow always runs the loop
(``map_fn``), which gives the same values, dtypes and static shapes. To know the results'
structure and dtypes before the loop is built, ``fn`` is first traced once on the first
slice, under ``vectorized_map/probe``: those ops are never run unless fetched.
"""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import flatten, map_structure, pack_sequence_as
from scopeflow.ops.array import indexing_ops
from scopeflow.ops.control_flow.functional_ops import map_fn

__all__ = ["vectorized_map"]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn(elems[i])`` for each ``i``, stacked along a new axis 0 (TF's
    ``tf.vectorized_map``; see the module docstring for how it runs).

    >>> tf.Session().run(tf.vectorized_map(lambda t: t * 2, tf.constant([1, 2]))).tolist()
    [2, 4]
    """
    del fallback_to_while_loop, warn  # always the loop: nothing to fall back from or warn
    flat = [convert_to_tensor(e) for e in flatten(elems)]
    elems = pack_sequence_as(elems, flat)
    with name_scope("vectorized_map"):
        with name_scope("probe"):
            first = pack_sequence_as(elems, [indexing_ops.gather(t, 0) for t in flat])
            probe = fn(first)
        out_dtypes = map_structure(lambda t: convert_to_tensor(t).dtype.base_dtype, probe)
        return map_fn(lambda x: map_structure(convert_to_tensor, fn(x)), elems,
                      dtype=out_dtypes, name="loop_body")
