"""Records the intermediate values of a program's ``Session.run`` calls, for ``scopeflow
compare``.

This module runs inside two interpreters: scopeflow's and real TensorFlow's. So it imports
nothing of scopeflow (``scopeflow compare`` loads it by file path under TF) and speaks only
the TF1 API both share: ``Session.run``, ``op.inputs``, ``op.control_inputs``,
``graph.is_fetchable``.

Each recorded call fetches, beside the program's own fetches, every numeric tensor that the
call computes anyway (the outputs of the ops its fetches depend on), and writes them to
``OUT/run0000.npz`` with their names in ``OUT/run0000.json``. ``OUT/ops.json`` describes
the ops seen: type, inputs and, under scopeflow, the user's line that created each. Fetching
more of what a step computes changes no value: the same ops run, once each.
"""

from __future__ import annotations

import json
import os

import numpy as np

# Ops whose outputs are not a value of this step: variables are read through their
# ``/read`` identities (a ref output fetched after an in-place update would show the update).
_SKIPPED_TYPES = frozenset({
    "VariableV2", "Variable", "VarHandleOp", "Placeholder", "PlaceholderWithDefault",
    "Const", "NoOp", "Assert",
    # TF1 cond's predicate Switch sits outside the branches: one of its outputs is dead.
    "Switch", "RefSwitch"})
_DTYPES = frozenset({
    "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "bool", "complex64", "complex128"})


def _leaves(fetches, out):
    """The tensors and ops in a fetch structure (lists, tuples, dicts, namedtuples, and
    composite tensors' parts)."""
    if fetches is None or isinstance(fetches, (str, bytes)):
        if fetches is not None:
            out.append(fetches)
        return out
    if isinstance(fetches, dict):
        for v in fetches.values():
            _leaves(v, out)
    elif isinstance(fetches, (list, tuple)):
        for v in fetches:
            _leaves(v, out)
    elif hasattr(fetches, "op") or hasattr(fetches, "control_inputs"):
        out.append(fetches)
    else:  # SparseTensor, IndexedSlices, ...
        for part in ("indices", "values", "dense_shape"):
            if hasattr(fetches, part):
                _leaves(getattr(fetches, part), out)
    return out


def _fetch_ops(graph, fetches):
    ops = []
    for leaf in _leaves(fetches, []):
        if isinstance(leaf, (str, bytes)):
            leaf = graph.as_graph_element(leaf.decode() if isinstance(leaf, bytes) else leaf)
        ops.append(leaf if hasattr(leaf, "control_inputs") and not hasattr(leaf, "op")
                   else leaf.op)
    return ops


def _upstream(ops):
    """Every op that ``ops`` depend on, data or control, ``ops`` included."""
    seen, stack = {}, list(ops)
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen[op.name] = op
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _site(op) -> str:
    site = getattr(op, "creation_site", None)  # scopeflow's: the user's line
    return str(site) if site is not None else ""


def _recordable(graph, op, fed):
    if op.type in _SKIPPED_TYPES or getattr(op, "_control_flow_context", None) is not None:
        return []
    out = []
    for t in op.outputs:
        if t.dtype.name in _DTYPES and t.name not in fed and graph.is_fetchable(t):
            out.append(t)
    return out


class Recorder:
    """Wraps ``session_class.run``: the calls ``skip`` to ``skip + runs - 1`` are recorded
    into ``outdir``."""

    def __init__(self, session_class, outdir, runs, skip=0):
        self.outdir, self.runs, self.skip = outdir, runs, skip
        self.calls = 0
        self.ops = {}
        self.recorded = []
        owner = next(c for c in session_class.__mro__ if "run" in vars(c))
        self._owner, self._run = owner, owner.run
        recorder = self

        def run(session, fetches, feed_dict=None, options=None, run_metadata=None):
            return recorder.record(session, fetches, feed_dict, options, run_metadata)

        owner.run = run
        os.makedirs(outdir, exist_ok=True)

    def record(self, session, fetches, feed_dict, options, run_metadata):
        index, self.calls = self.calls - self.skip, self.calls + 1
        if not 0 <= index < self.runs:
            return self._run(session, fetches, feed_dict, options, run_metadata)
        graph = session.graph
        fed = {getattr(k, "name", k) for k in (feed_dict or {})}
        upstream = _upstream(_fetch_ops(graph, fetches))
        order = {op.name: i for i, op in enumerate(graph.get_operations())}
        ops = sorted(upstream.values(), key=lambda op: order.get(op.name, len(order)))
        extra = [t for op in ops for t in _recordable(graph, op, fed)]
        # A call that raises (an OutOfRangeError ending an epoch) records nothing.
        result, values = self._run(session, (fetches, extra), feed_dict, options,
                                   run_metadata)
        self.recorded.append(index)
        names = [t.name for t in extra]
        np.savez(os.path.join(self.outdir, f"run{index:04d}.npz"),
                 *[np.asarray(v) for v in values])
        with open(os.path.join(self.outdir, f"run{index:04d}.json"), "w") as f:
            json.dump({"names": names}, f)
        for op in ops:
            self.ops.setdefault(op.name, {
                "type": op.type, "inputs": [t.name for t in op.inputs], "site": _site(op),
                "order": order.get(op.name, len(order))})
        with open(os.path.join(self.outdir, "ops.json"), "w") as f:
            json.dump({"recorded": self.recorded, "skip": self.skip, "ops": self.ops}, f)
        return result
