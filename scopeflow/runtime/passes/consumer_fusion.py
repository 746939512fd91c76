"""Consumer fusion: an op and the chain of ops that read its output alone run as one
kernel (a rule of ``RULES``, by op type), at the chain's last op; the others are not run.

This is TF's grappler remapper: ``Conv2D`` + ``BiasAdd`` + ``Relu`` (or an inference
``FusedBatchNorm``) run as one oneDNN call, which adds the bias and applies the ReLU (or
normalizes) while each block of the output is still in cache, instead of writing the
conv's output and reading it again.

The fused kernel reads the chain's inputs where the chain's last op stands in the order,
later than the first op did. So it applies only when every value it drops is the run's own
and read once (``Memory.removable``), and when no op that runs between the first and the
last may write a variable: a weight read later must be the weight the first op would have
read (TF1's read-after-write semantics, ``SEMANTICS.md``).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.native import backends
from scopeflow.ops.nn.conv_ops import conv2d_op, conv2d_with_bias_native, conv2d_with_post_native
from scopeflow.ops.nn.nn_norm_ops import inference_multiplier, inference_outputs
from scopeflow.runtime.passes.rules import first_match, own_kernel_rules, touches_its_table
from scopeflow.runtime.plan_ir import How

NAME = "consumer_fusion"

_LONGEST_CHAIN = 2


# Rules: ``rule(op, chain, shape) -> kernel | None``, with ``chain``, ops that each read the
# previous one's output alone (the first reads this op's): a kernel computing the chain's
# last output from this op's inputs followed by each chain op's other inputs, or None.
# ``shape(t)`` is a tensor's static shape in the plan.
def conv2d_bias_relu(op, chain, shape):
    """Conv2D, then BiasAdd (or an Add of a vector of the output channels), then maybe
    Relu, as one oneDNN call with the bias as a post-op and the ReLU on each part of the
    batch as it is written (TF's ``_FusedConv2D``); the unfused ops' bits. None for any
    other chain, and without the backend (NumPy's kernels gain nothing from it)."""
    if (not backends.loaded("Conv2D") or op._attrs["data_format"] != "NHWC"
            or op._outputs[0].dtype != dtypes.float32 or len(chain) > 2):
        return None
    conv_out = op._outputs[0]
    x, w = op._inputs
    known = [shape(t).as_tuple() for t in (x, w, conv_out)]
    if any(s is None or None in s for s in known):
        return None  # a run-time shape error must still name the Conv2D
    co = known[1][3]
    adder, rest = chain[0], chain[1:]
    others = [t for t in adder._inputs if t is not conv_out]
    if adder._op_def.type == "BiasAdd":
        if adder._attrs["data_format"] != "NHWC" or adder._inputs[0] is not conv_out:
            return None
    elif adder._op_def.type not in ("Add", "AddV2") or len(others) != 1:
        return None
    bias = others[0]
    if (shape(bias).as_tuple() != (co,) or bias.dtype != dtypes.float32
            or shape(adder._outputs[0]).as_tuple() != known[2]):
        return None
    if rest and rest[0]._op_def.type != "Relu":
        return None
    return _fused_conv2d_kernel(op, adder, rest[0] if rest else None)


def _fused_conv2d_kernel(conv, adder, relu_op):
    relu = relu_op is not None
    conv_kernel, conv_attrs = conv2d_op.kernel, dict(conv._attrs)
    conv_first = adder._inputs[0] is conv._outputs[0]
    add_kernel, add_attrs = adder._op_def.kernel, dict(adder._attrs)
    relu_kernel, relu_attrs = (relu_op._op_def.kernel, dict(relu_op._attrs)) if relu \
        else (None, None)

    def fused_conv2d(x, w, b):
        y = conv2d_with_bias_native(x, w, b, conv_attrs, relu)
        if y is not None:
            return y
        # The ops one by one, as unfused (the backend switched off since compiling).
        y = conv_kernel(x, w, **conv_attrs)
        y = add_kernel(y, b, **add_attrs) if conv_first else add_kernel(b, y, **add_attrs)
        return relu_kernel(y, **relu_attrs) if relu else y

    return fused_conv2d


_BATCH_NORMS = frozenset({"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"})


def conv2d_batch_norm(op, chain, shape):
    """Conv2D, then an inference FusedBatchNorm (is_training False) whose statistics
    outputs nothing reads, as one oneDNN call whose post-ops subtract the mean, multiply
    by ``scale / sqrt(variance + epsilon)`` and add the offset while the output is in
    cache (TF's ``_FusedConv2D`` with ``FusedBatchNorm``); the unfused ops' bits. None for
    any other chain, and without the backend."""
    if (not backends.loaded("Conv2D") or op._attrs["data_format"] != "NHWC"
            or op._outputs[0].dtype != dtypes.float32 or len(chain) != 1):
        return None
    bn, conv_out = chain[0], op._outputs[0]
    if (bn._op_def.type not in _BATCH_NORMS or bn._attrs["is_training"]
            or bn._attrs["data_format"] != "NHWC" or bn._inputs[0] is not conv_out):
        return None
    known = [shape(t).as_tuple() for t in (*op._inputs, conv_out)]
    if any(s is None or None in s for s in known):
        return None  # a run-time shape error must still name the Conv2D
    if any(shape(v).as_tuple() != (known[1][3],) or v.dtype != dtypes.float32
           for v in bn._inputs[1:]):
        return None
    return _fused_conv2d_batch_norm_kernel(op, bn)


def _fused_conv2d_batch_norm_kernel(conv, bn):
    conv_kernel, conv_attrs = conv2d_op.kernel, dict(conv._attrs)
    bn_kernel, bn_attrs = bn._op_def.kernel, dict(bn._attrs)
    epsilon, count = bn_attrs["epsilon"], len(bn._outputs)

    def fused_conv2d_batch_norm(x, w, scale, offset, mean, variance):
        post = (("sub", mean), ("mul", inference_multiplier(scale, variance, epsilon)),
                ("add", offset))
        y = conv2d_with_post_native(x, w, conv_attrs, post)
        if y is not None:
            return inference_outputs(y, mean, variance, count)
        # The ops one by one, as unfused (the backend switched off since compiling).
        return bn_kernel(conv_kernel(x, w, **conv_attrs), scale, offset, mean, variance,
                         **bn_attrs)

    return fused_conv2d_batch_norm


RULES = {
    "Conv2D": (conv2d_bias_relu, conv2d_batch_norm),
}


touches = touches_its_table(RULES)


def _plain(op, ir) -> bool:
    """Whether the plan runs ``op`` as itself: its own kernel on its own inputs, with only
    its first output read (a batch norm's statistics outputs unread); a rule that takes a
    multi-output op returns all its outputs."""
    step = ir.steps.get(op)
    od = op._op_def
    return (step is not None and step.calls and step.kernel is od.kernel and step.with_attrs
            and len(step.inputs) == len(op._inputs)
            and all(a is b for a, b in zip(step.inputs, op._inputs)) and not od.stateful
            and not od.ref_inputs
            and not any(_read(t, ir) for t in op._outputs[1:])
            and not any(t in ir.fed or t in ir.folded for t in op._outputs))


def _read(t, ir) -> bool:
    """Whether the plan fetches ``t`` or a step of it reads ``t``."""
    return any(f is t for f in ir.fetches) or any(
        c in ir.steps and ir.steps[c].reads and any(x is t for x in ir.steps[c].inputs)
        for c in t._consumers)


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
    rules = own_kernel_rules(RULES, op, ir)
    if rules is None or len(op._outputs) != 1 or op._outputs[0] in ir.fed:
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
        kernel = first_match(rules, op, tuple(chain), ir.shape)
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
