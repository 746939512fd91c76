"""Consumer fusion: an op and the chain of ops that read its output alone run as one
kernel (``OpDef.fuse_consumers``), at the chain's last op; the others are not run.

This is TF's grappler remapper: ``Conv2D`` + ``BiasAdd`` + ``Relu`` run as one oneDNN
call, which adds the bias and applies the ReLU while each block of the output is still in
cache, instead of writing the conv's output and reading it twice more.

The fused kernel reads the chain's inputs where the chain's last op stands in the order,
later than the first op did. So it applies only when every value it drops is the run's own
and read once (``Memory.removable``), and when no op that runs between the first and the
last may write a variable: a weight read later must be the weight the first op would have
read (TF1's read-after-write semantics, ``SEMANTICS.md``).
"""

from __future__ import annotations

from scopeflow.runtime.plan_ir import How

NAME = "consumer_fusion"

_LONGEST_CHAIN = 2


def touches(op_def) -> bool:
    return op_def.fuse_consumers is not None


def _plain(op, ir) -> bool:
    """Whether the plan runs ``op`` as itself: its own kernel on its own inputs."""
    step = ir.steps.get(op)
    od = op._op_def
    return (step is not None and step.calls and step.kernel is od.kernel and step.with_attrs
            and len(step.inputs) == len(op._inputs)
            and all(a is b for a, b in zip(step.inputs, op._inputs)) and not od.stateful
            and not od.ref_inputs and len(op._outputs) == 1
            and not any(t in ir.fed or t in ir.folded for t in op._outputs))


def _one_reader(t, ir):
    """The op of the plan that reads ``t``, when it is the only one and runs as itself."""
    readers = {c for c in t._consumers if c in ir.steps and ir.steps[c].reads
               and any(x is t for x in ir.steps[c].inputs)}
    if len(readers) != 1:
        return None
    reader = readers.pop()
    return reader if _plain(reader, ir) else None


def _writes_between(first, last, ir) -> bool:
    """Whether an op that may write a variable runs after ``first`` and before ``last``."""
    ops = ir.ops
    lo, hi = ops.index(first), ops.index(last)
    return any(ir.steps[op].calls and (op._op_def.stateful or op._op_def.ref_inputs)
               for op in ops[lo + 1:hi])


def applies(op, ir):
    """``(chain, kernel)`` fusing ``op`` with the readers after it, or None."""
    od = op._op_def
    step = ir.steps[op]
    if (od.fuse_consumers is None or not step.calls or step.kernel is not od.kernel
            or len(op._outputs) != 1 or op._outputs[0] in ir.fed):
        return None
    memory = ir.memory
    chain, t = [], op._outputs[0]
    while len(chain) < _LONGEST_CHAIN and memory.removable(t):
        reader = _one_reader(t, ir)
        if reader is None:
            break
        chain.append(reader)
        t = reader._outputs[0]
    while chain:  # the longest chain the op can fuse
        kernel = od.fuse_consumers(op, tuple(chain), ir.shape)
        if kernel is not None and not _writes_between(op, chain[-1], ir):
            return chain, kernel
        chain.pop()
    return None


def rewrite(op, ir, found) -> None:
    chain, kernel = found
    inputs = list(ir.steps[op].inputs)
    previous = op._outputs[0]
    for reader in chain:
        inputs += [t for t in reader._inputs if t is not previous]
        previous = reader._outputs[0]
    last = ir.steps[chain[-1]]
    last.kernel, last.inputs, last.with_attrs = kernel, inputs, False
    last.rewritten_by.append(NAME)
    for dropped in (op, *chain[:-1]):
        ir.steps[dropped].how = How.ABSORBED
    ir.changed()
