"""Who may share memory with each array of a run: the one notion of ownership and aliasing.

TF1's runtime rules (``SEMANTICS.md``) decide what any rewrite of a plan must keep:

- A variable is one buffer. ``Assign`` of the same size, ``AssignAdd``, ``Scatter*`` and
  the optimizers' ``Apply*`` ops write into it in place.
- Ops that pass a whole tensor through (``Identity``/``read``, ``Reshape``, ``ExpandDims``,
  ``Squeeze``...) forward that buffer, so a computing op that reads a variable through any
  chain of them sees the variable as it is when *that* op runs, and a fetched tensor that
  still aliases a variable is the variable as it is when the run ends.
- Computing ops (and partial views: slices, transposes, unstacks) make new buffers.

So the plan keeps three facts per tensor, computed here from the steps as they stand:

- ``aliases_state``: its array may be (a view of) a variable's buffer, which a write later in
  the run can change. A rewrite must not move a computation that reads it to another place
  in the order, and a partial view of it is copied when made (``snapshot``).
- ``aliases_outside``: its array may be memory the run does not own (a variable, a feed, a
  constant bound into the plan): the run must never write into it, and a fetch copies it.
- ``owned_alone``: its array is the run's own (fresh from its kernel, or a view of such an
  array) and exactly one reader sees it: that reader may overwrite it or keep it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

__all__ = ["Memory", "FRESH_OUTPUTS", "VIEW_PRODUCERS", "aliased_inputs", "snapshot"]

# Ops whose kernel returns a view of their first input (their other inputs are constants:
# shapes, axes), so a view of an array the run owns alone is still the run's alone.
VIEW_PRODUCERS = frozenset({"Reshape", "Identity", "ExpandDims", "Squeeze", "StopGradient"})


def _adds_several(op, consts) -> bool:
    return len(op._inputs) > 1  # a single input is forwarded


def _pads_something(op, consts) -> bool:
    """Whether the paddings are constants that grow the input (so the output is new)."""
    paddings = consts.get(op._inputs[1])
    return paddings is not None and bool(np.any(paddings))


def _reduces_something(op, consts) -> bool:
    """Whether the axes are constants that reduce a dim known not to be 1 (so the output
    is a new array, never the input forwarded)."""
    axes = consts.get(op._inputs[1])
    dims = op._inputs[0].shape.as_tuple()
    if axes is None or dims is None:
        return False
    return any(dims[a % len(dims)] not in (None, 1) for a in np.reshape(axes, -1).tolist())


# Op types (beyond NumPy ufuncs) whose kernels return new arrays that nothing else holds:
# True, or a predicate ``fresh(op, consts)`` saying so for one op, given the inputs' values
# known when the plan is compiled. A consumer may then keep such an array rather than copy
# it (``owning_kernels``), or an elementwise ufunc write its result into it
# (``buffer_reuse``).
FRESH_OUTPUTS = {
    **dict.fromkeys((
        "Cast", "MatMul", "Reciprocal", "Log1p", "Select", "GatherV2", "ConcatV2",
        "SparseReorder", "AdjustContrastv2", "DecodeJpeg", "DecodePng", "DecodeGif",
        "DecodeBmp", "DecodeImage", "DecodeRaw", "DecodeCSV", "StringToNumber",
        "ParseExampleV2", "ParseSequenceExampleV2", "RestoreV2", "ReadFile"), True),
    "AddN": _adds_several,
    "Pad": _pads_something,
    **dict.fromkeys(("Sum", "Max", "Min", "Prod", "All", "Any", "Mean"), _reduces_something),
}


def aliased_inputs(op) -> list:
    """The inputs whose memory ``op``'s outputs may share (``OpDef.aliases``)."""
    indices = op._op_def.aliased_inputs
    return op._inputs if indices is None else [op._inputs[i] for i in indices]


class Memory:
    """Ownership and aliasing of the tensors of one ``PlanIR`` (see the module docstring)."""

    __slots__ = ("ir", "readers", "state", "outside", "variable_users")

    def __init__(self, ir):
        self.ir = ir
        # Reads by steps that run or forward (a forwarded op's reader reads its input), and
        # by the fetches.
        readers: Counter = Counter()
        # How many steps (and fetches) refer to each variable, by its ref key.
        variable_users: Counter = Counter()
        for op in ir.ops:
            step = ir.steps[op]
            if step.reads:
                readers.update(step.inputs)
                variable_users.update({t._ref_key for t in step.inputs} - {None})
        readers.update(ir.fetches)
        variable_users.update(t._ref_key for t in ir.fetches if t._ref_key is not None)
        self.readers = readers
        self.variable_users = variable_users
        state: set = set()
        outside = set(ir.fed) | ir.folded.keys()
        for op in ir.ops:
            od = op._op_def
            if ir.steps[op].forwards:  # its output is another tensor's array
                source = ir.source(op._outputs[0])
                if source in state:
                    state.add(op._outputs[0])
                if source in outside:
                    outside.add(op._outputs[0])
                continue
            if not od.aliases or self.returns_fresh(op):
                continue  # a kernel that computes returns new memory
            outs = [t for t in op._outputs if t not in ir.fed and t not in ir.folded]
            if od.stateful:  # a variable, or a write returning the variable's buffer
                state.update(outs)
                outside.update(outs)
            elif not op._inputs:  # a constant's value
                outside.update(outs)
            else:
                viewed = aliased_inputs(op)
                if any(t in state for t in viewed):
                    state.update(outs)
                if any(t in outside for t in viewed):
                    outside.update(outs)
        self.state = state
        self.outside = outside

    def aliases_state(self, t) -> bool:
        """Whether ``t``'s array may be (a view of) a variable's buffer."""
        return t in self.state

    def aliases_outside(self, t) -> bool:
        """Whether ``t``'s array may be memory the run does not own."""
        return t in self.outside

    def returns_fresh(self, op) -> bool:
        """Whether ``op``'s kernel, as the plan calls it, returns new arrays that nothing
        else holds: a ufunc, or an op type of ``FRESH_OUTPUTS`` (for this op)."""
        step = self.ir.steps[op]
        if not step.calls:
            return False
        fresh = FRESH_OUTPUTS.get(op._op_def.type, False)
        if callable(fresh):
            fresh = fresh(op, self.ir.folded)
        return bool(fresh) or isinstance(step.kernel, np.ufunc)

    def fresh(self, t) -> bool:
        """Whether ``t`` is a new array from its kernel that nothing else holds."""
        producer = t._op
        return (producer in self.ir.steps and t not in self.outside
                and self.returns_fresh(producer))

    def owned_alone(self, t) -> bool:
        """Whether ``t``'s array is the run's own and ``t``'s one reader is its only user:
        fresh from its kernel, or a view (``VIEW_PRODUCERS``) of such an array that nothing
        else reads."""
        if self.readers[t] != 1:
            return False
        if self.fresh(t):
            return True
        producer = t._op
        if t in self.outside or producer not in self.ir.steps:
            return False
        if self.ir.steps[producer].forwards:
            source = self.ir.source(t)
            return any(self.ir.source(x) is source and self.owned_alone(x)
                       for x in producer._inputs)
        return (producer._op_def.type in VIEW_PRODUCERS
                and all(x in self.ir.folded for x in producer._inputs[1:])
                and self.owned_alone(producer._inputs[0]))

    def removable(self, t) -> bool:
        """Whether ``t``'s producer may be left out of the run when its one reader stops
        reading ``t``: a pure, single-output op in the plan whose value nothing else needs
        (not fed, fetched, bound, or a control input)."""
        return self.readers[t] == 1 and self._leavable(t)

    def unread(self, t) -> bool:
        """Whether ``t``'s producer may be left out of the run now: as ``removable``, with
        no reader left."""
        return (self.readers[t] == 0 and self._leavable(t)
                and self.ir.steps[t._op].calls)

    def _leavable(self, t) -> bool:
        producer = t._op
        return (t not in self.ir.fed and t not in self.ir.folded
                and producer in self.ir.steps and producer not in self.ir.controls
                and not producer._op_def.stateful and len(producer._outputs) == 1)


def snapshot(result, *sources):
    """``result`` as TF has it when a kernel read a variable's buffer ``sources``: TF
    forwards the buffer only whole and in order (``Identity``, ``Reshape``, a full slice),
    so any other view of it (part of it, or reordered) is copied before the variable can
    change."""
    if type(result) is tuple:
        return tuple(snapshot(r, *sources) for r in result)
    for s in sources:
        if result is s:
            return result
        if not np.may_share_memory(result, s):
            continue
        whole = (result.size == np.size(s) and result.flags.c_contiguous
                 and np.asarray(s).flags.c_contiguous
                 and all(stride >= 0 for stride in result.strides))  # not reversed
        return result if whole else result.copy()
    return result
