"""Dead tensors in plans: TF1's executor semantics for ``Switch``/``Merge`` dataflow.

A ``Switch`` (``ops.control_flow.dataflow_ops``, met in GraphDefs TF1 wrote) gives one
live output and one *dead* one. TensorFlow's executor then:

- does not run an op with a dead data input (no side effects): its outputs are dead;
- treats a control edge from a dead op as dead: the op it gates is dead too (a ``Switch``
  itself is dead only when its inputs are, which is why TF's conds gate a branch's
  constants on the ``Identity`` pivots ``cond/switch_t`` and ``cond/switch_f``);
- except for ``Merge``, which forwards its first live data input (dead control inputs do
  not matter to it) and is dead only when all its data inputs are;
- raises ``InvalidArgumentError("Retval[i] does not have value")`` when a fetch is dead
  (``i`` counts the distinct fetched names in sorted order, as DirectSession does).

The plan is straight-line code, so a dead value is a sentinel (``DEAD``) and ``prepare``
works out, when the plan is compiled, which ops may see one: each tensor gets the set of
*literals* ``(predicate, side)`` whose failure makes it dead (the ``Switch`` outputs it
depends on, through data and control edges). A ``Merge`` whose inputs together cover
every value of their predicates (a cond's two branches) is live whenever the literals
they share are, so the ops after a cond are not affected. Only the ops that may be dead
change: each is called through a ``Guard``, which gets the tensors that say whether it is
dead (its inputs, its variable-reference inputs, and witnesses of its control inputs) and
returns dead outputs without calling the kernel. A plan with no ``Switch`` is untouched.

The plan's rewrite passes leave the ops that may be dead, and the producers they read
directly, alone (``ir.dead_region``): folding a branch's constant, or fusing an op into a
kernel with its readers, would make it live.
"""

from __future__ import annotations

import itertools

from scopeflow.framework import errors
from scopeflow.ops.control_flow.dataflow_ops import DEAD
from scopeflow.runtime.plan_ir import How

__all__ = ["DEAD", "Guard", "prepare", "check_fetch", "retval_index", "SWITCH_TYPES", "MERGE_TYPES"]

SWITCH_TYPES = frozenset({"Switch", "RefSwitch"})
MERGE_TYPES = frozenset({"Merge", "RefMerge"})
_EMPTY = frozenset()
_MAX_PREDICATES = 10  # a Merge over more predicates than this is taken as possibly dead


class Guard:
    """A kernel as an op that may be dead calls it: dead outputs, and no call, when any
    positional argument is dead (the kernel's own ``n_args``, then the tensors that say
    whether the op's variable-reference and control inputs are dead, which the kernel
    does not get)."""

    __slots__ = ("kernel", "n_args", "n_outputs", "__name__", "__wrapped__")

    def __init__(self, kernel, n_args, n_outputs):
        self.kernel = kernel
        self.n_args = n_args          # the kernel's own positional arguments
        self.n_outputs = n_outputs
        self.__name__ = getattr(kernel, "__name__", "kernel")
        self.__wrapped__ = kernel

    def __call__(self, *args, **attrs):
        for a in args:
            if a is DEAD:
                if self.n_outputs == 1:
                    return DEAD
                return (DEAD,) * self.n_outputs if self.n_outputs else None
        return self.kernel(*args[:self.n_args], **attrs)


def check_fetch(value, index):
    """A fetched value, or TF's error when it is dead."""
    if value is DEAD:
        raise errors.InvalidArgumentError(None, None, f"Retval[{index}] does not have value")
    return value


def retval_index(fetches, t) -> int:
    """``t``'s index among TF's retvals: DirectSession fetches the distinct tensor names in
    sorted order (the ``i`` of ``Retval[i] does not have value``)."""
    return sorted({f.name for f in fetches}).index(t.name)


def _pred_key(t):
    """The predicate a Switch tests, through TF's ``Identity`` (``cond/pred_id``)."""
    while t._op._op_def.type == "Identity" and t._op._inputs:
        t = t._op._inputs[0]
    return t


def _covers(sets) -> bool:
    """Whether some input is live for every value of the predicates (each input is live
    when all its literals hold)."""
    preds = sorted({p for s in sets for p, _ in s}, key=id)
    if any(not s for s in sets):
        return True
    if len(preds) > _MAX_PREDICATES:
        return False
    for values in itertools.product((0, 1), repeat=len(preds)):
        chosen = dict(zip(preds, values))
        if not any(all(chosen[p] == side for p, side in s) for s in sets):
            return False
    return True


class _Analysis:
    """Literal sets of the plan's tensors and ops (empty: never dead)."""

    def __init__(self, ir):
        self.ir = ir
        self.in_plan = set(ir.ops)
        self.tensor: dict = {}   # tensor -> frozenset of literals
        self.op: dict = {}       # op -> literals that make the op itself dead
        for op in ir.ops:
            self._visit(op)

    def of(self, t):
        if t in self.ir.fed:
            return _EMPTY
        return self.tensor.get(t, _EMPTY)

    def _controls(self, op):
        return frozenset().union(*(self.op.get(c, _EMPTY) for c in op._control_inputs
                                   if c in self.in_plan))

    def _visit(self, op):
        kind = op._op_def.type
        ins = [self.of(t) for t in op._inputs]
        if kind in MERGE_TYPES:
            common = frozenset.intersection(*ins) if ins else _EMPTY
            if _covers([s - common for s in ins]):
                lits = common
            else:
                lits = frozenset().union(*ins)
            self.op[op] = lits
            for t in op._outputs:
                self.tensor[t] = lits
            return
        lits = frozenset().union(*ins) | self._controls(op)
        self.op[op] = lits
        if kind in SWITCH_TYPES:
            pred = _pred_key(op._inputs[1])
            for side, t in enumerate(op._outputs):
                self.tensor[t] = lits | {(pred, side)}
            return
        for t in op._outputs:
            self.tensor[t] = lits


def prepare(ir) -> None:
    """Marks the ops of ``ir`` that may be dead (``ir.dead_region``), and calls each
    through a ``Guard``; the fetches that may be dead are ``ir.maybe_dead``. Nothing
    changes in a plan with no ``Switch``."""
    if not any(op._op_def.type in SWITCH_TYPES for op in ir.ops):
        return
    a = _Analysis(ir)
    region = {op for op in ir.ops if a.op[op] or op._op_def.type in SWITCH_TYPES
              or any(a.tensor.get(t) for t in op._outputs)}
    # A pass keyed on a producer may rewrite its readers (consumer_fusion): the producers
    # that ops which may be dead read directly (never in a TF-built cond, whose branches
    # read outside values through a Switch) are left alone too.
    region |= {t._op for op in region if op._op_def.type not in SWITCH_TYPES | MERGE_TYPES
               for t in op._inputs if t._op in a.in_plan}
    ir.dead_region = region
    ir.maybe_dead = {t for t in ir.fetches if a.of(t)}
    witness_memo: dict = {}
    for op in ir.ops:
        if op not in region or not a.op[op] or op._op_def.type in MERGE_TYPES:
            continue
        _guard(op, ir, a, witness_memo)
    ir.changed()


def _witnesses(op, a, memo) -> list:
    """Tensors of the plan that are dead whenever ``op`` is (as a control input)."""
    if op in memo:
        return memo[op]
    memo[op] = []
    kind = op._op_def.type
    if op._outputs and kind not in SWITCH_TYPES and all(t not in a.ir.fed for t in op._outputs):
        found = [op._outputs[0]]
    else:
        found = [t for t in op._inputs if a.of(t)]
        for c in op._control_inputs:
            if c in a.in_plan and a.op.get(c):
                found += _witnesses(c, a, memo)
    memo[op] = found
    return found


def _guard(op, ir, a, memo) -> None:
    step = ir.steps[op]
    od = op._op_def
    if od.type in ("VariableV2", "Variable") or (step.kernel is None and od.type != "Const"):
        return  # a variable is never dead here; a NoOp has no effect of its own
    checks = [t for i, t in enumerate(op._inputs) if i in od.ref_inputs and a.of(t)]
    for c in op._control_inputs:
        if c in a.in_plan and a.op.get(c):
            checks += _witnesses(c, a, memo)
    checks = [t for t in dict.fromkeys(checks) if t not in op._inputs or
              op._inputs.index(t) in od.ref_inputs]
    if step.how is How.BOUND:  # a branch's constant: live only when its branch runs
        for t in op._outputs:
            ir.folded.pop(t, None)
        step.how = How.CALL
    n_args = len(step.inputs) + (1 if od.stateful else 0)
    step.kernel = Guard(step.kernel, n_args, len(op._outputs))
    step.inputs = list(step.inputs) + checks
