"""The plan compiler's working form: the ops one run needs, in order, and how each one runs.

``compile_plan`` prunes and orders the graph into a ``PlanIR``, lets the enabled passes
(``scopeflow.runtime.passes``) rewrite its steps, then generates code from it. A pass only
edits the fields below; everything it asks about memory (who owns an array, what may share a
variable's buffer) comes from ``ir.memory``, the one analysis every pass and the code
generator share (``scopeflow.runtime.memory``).
"""

from __future__ import annotations

import enum

from scopeflow.runtime.memory import Memory

__all__ = ["PlanIR", "Step", "How"]


class How(enum.Enum):
    """How a step's outputs come to exist in a run."""

    CALL = "call"            # its kernel is called where the op is in the order
    BOUND = "bound"          # its values were computed when the plan was compiled
    FORWARDED = "forwarded"  # its output is its input itself (no call)
    ABSORBED = "absorbed"    # a reader computes from this op's inputs instead (no call)
    PRUNED = "pruned"        # nothing the run returns or stores reads it (no call)


class Step:
    """One op of the plan and how it runs: which kernel, on which tensors."""

    __slots__ = ("op", "how", "kernel", "inputs", "with_attrs", "out", "rewritten_by")

    def __init__(self, op):
        self.op = op
        self.how = How.CALL
        self.kernel = op._op_def.kernel
        self.inputs = op._inputs           # the tensors the kernel receives, in order
        self.with_attrs = True             # the kernel also gets the op's attrs as keywords
        self.out = None                    # an input whose buffer the kernel writes into
        self.rewritten_by: list[str] = []  # names of the passes that changed this step

    @property
    def calls(self) -> bool:
        """Whether the run calls this step's kernel."""
        return self.how is How.CALL

    @property
    def forwards(self) -> bool:
        """Whether the step's output is another tensor's value (no call)."""
        return self.how is How.FORWARDED

    @property
    def reads(self) -> bool:
        """Whether the run reads this step's inputs (by a call, or through a forward)."""
        return self.how is How.CALL or self.how is How.FORWARDED


class PlanIR:
    """The pruned, ordered ops of one run signature and their steps.

    Attributes:
      ops: the ops the run needs, in creation order (a topological order).
      steps: each op's ``Step``.
      fetches: the tensors the run returns.
      targets: the ops the run is asked to run (for their effects).
      fed: the tensors the run is given (their producers are not run for them).
      folded: values known when the plan is compiled (``Const`` values, folded outputs).
      forwarded: each output of a ``FORWARDED`` step mapped to the tensor whose value it is.
      controls: ops that are control inputs of others (they must run for their effect).
      reallocated: ref keys of the variables an ``Assign`` of the run may give a new buffer.
      dead_region, maybe_dead: the ops that may be dead, and fetches that may be, in a plan
        with TF1's ``Switch`` (``runtime.dead_tensors``); empty in any other plan.
      specialized: in a plan specialised on the fed shapes, the shapes inferred from them
        (``passes.shape_specialization.Inference``); None in a generic plan.
    """

    def __init__(self, ops, fetches, fed, targets=()):
        self.ops = ops
        self.steps = {op: Step(op) for op in ops}
        self.fetches = list(fetches)
        self.targets = list(targets)
        self.fed = set(fed)
        self.folded: dict = {}
        self.forwarded: dict = {}
        self.controls = {c for op in ops for c in op._control_inputs}
        # Variables an Assign may give a new buffer of another size during the run.
        self.reallocated = {op._inputs[0]._ref_key for op in ops
                            if op._op_def.type == "Assign" and not op._attrs["validate_shape"]}
        self._memory = None
        self.specialized = None
        # Ops that may be dead (``runtime.dead_tensors``: a plan with a ``Switch``), which
        # the passes leave alone, and the fetches that may be dead.
        self.dead_region: set = set()
        self.maybe_dead: set = set()
        for op in ops:
            if op._op_def.type == "Const" and op._outputs[0] not in self.fed:
                # A constant's value is its attr: bound into the plan, never a call.
                self.folded[op._outputs[0]] = op._attrs["value"]
                self.steps[op].how = How.BOUND

    def source(self, t):
        """The tensor whose value ``t`` is (``t`` itself unless it was forwarded). Followed
        to the end: a pass may forward to a tensor that a later pass forwards in turn."""
        forwarded = self.forwarded
        while t in forwarded:
            t = forwarded[t]
        return t

    def shape(self, t):
        """``t``'s static shape in this plan: the graph's, or in a plan specialised on the
        fed shapes the one inferred from them (the graph's tensors are never changed)."""
        return t._shape if self.specialized is None else self.specialized.shape(t)

    @property
    def memory(self) -> Memory:
        """Ownership and aliasing of every tensor, as the steps stand now."""
        if self._memory is None:
            self._memory = Memory(self)
        return self._memory

    def changed(self):
        """Called by a rewrite that changes what runs or what reads what."""
        self._memory = None
