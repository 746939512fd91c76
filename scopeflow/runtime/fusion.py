"""Epilogue fusion: a convolution's bias add and activation run on each block it finishes.

TF's grappler rewrites ``Conv2D -> BiasAdd -> Relu`` into one ``_FusedConv2D``. Plans do
the same when they are compiled: a producer whose kernel takes an ``epilogue`` (it calls
it on each finished block of its output, in place, from the thread that computed it) and
a chain of consumers with an elementwise epilogue rule (``BiasAdd``, an ``AddV2`` of a
per-channel vector, ``Relu``) become one call. Each block is still in the CPU cache when
the bias and activation touch it, and the work is split over the producer's threads. The
values are bit for bit those of the separate kernels: the same operations on the same
numbers, in the same order.

A chain forms only where nothing else can see the intermediate values: each of them has
exactly one reader (the next op in the chain) and is neither fetched nor fed. Whether
the epilogue applies is decided again at run time from the actual shapes (a bias of the
wrong length, say); if not, the ops run one by one, and an error names the op that
raised it.
"""

from __future__ import annotations

from scopeflow.framework.graph import Operation, Tensor

__all__ = ["EpilogueRule", "find_chains", "fused_kernel"]


class EpilogueRule:
    """How a consumer op runs as an in-place step on its producer's output blocks.

    ``inputs``: the input positions the producer's output may occupy. ``prepare(out_shape,
    out_dtype, index, others, attrs)``: given the producer's output shape and dtype, the
    fused input's position, and the op's other input values, the step (a function of a
    C-contiguous block of whole images, modified in place), or None when the values do
    not allow it.
    """

    __slots__ = ("inputs", "prepare")

    def __init__(self, inputs, prepare):
        self.inputs = tuple(inputs)
        self.prepare = prepare


def find_chains(ops: list[Operation], readers, keep: set) -> dict[Operation, list[Operation]]:
    """The fusable chains, keyed by their last op: a producer that takes an epilogue,
    then consumers with epilogue rules, each reading the previous op's only output (read
    by no one else, and not in ``keep``: fetched, fed or folded tensors)."""
    reader_of: dict[Tensor, Operation] = {}
    for op in ops:
        for t in op._inputs:
            reader_of[t] = op
    chains = {}
    for op in ops:
        if not op._op_def.takes_epilogue or len(op._outputs) != 1 or op._op_def.stateful:
            continue
        chain = [op]
        t = op._outputs[0]
        while t not in keep and readers[t] == 1 and t in reader_of:
            consumer = reader_of[t]
            rule = consumer._op_def.epilogue
            if rule is None or len(consumer._outputs) != 1 or consumer._op_def.stateful \
                    or consumer._inputs.count(t) != 1 \
                    or consumer._inputs.index(t) not in rule.inputs:
                break
            chain.append(consumer)
            t = consumer._outputs[0]
        if len(chain) > 1:
            chains[chain[-1]] = chain
    return chains


def fused_kernel(chain: list[Operation]):
    """One kernel for ``chain``: ``run(*producer_args, *other_args_of_each_consumer)``."""
    producer, consumers = chain[0], chain[1:]
    produce = producer._op_def.kernel
    output_spec = producer._op_def.output_spec
    p_attrs = dict(producer._attrs)
    n_p = len(producer._inputs)
    steps = []  # (op, kernel, rule, fused index, number of other inputs, attrs)
    previous = producer._outputs[0]
    for op in consumers:
        index = op._inputs.index(previous)
        steps.append((op, op._op_def.kernel, op._op_def.epilogue, index,
                      len(op._inputs) - 1, dict(op._attrs)))
        previous = op._outputs[0]

    def run(*args):
        p_args, pos = args[:n_p], n_p
        others = []
        for step in steps:
            others.append(args[pos:pos + step[4]])
            pos += step[4]
        spec = output_spec(*p_args, **p_attrs)
        fns = []
        if spec is not None:
            shape, dtype = spec
            for (_, _, rule, index, _, attrs), vals in zip(steps, others):
                fn = rule.prepare(shape, dtype, index, vals, attrs)
                if fn is None:
                    break
                fns.append(fn)
        if spec is not None and len(fns) == len(steps):
            def epilogue(block):
                for fn in fns:
                    fn(block)
            return produce(*p_args, epilogue=epilogue, **p_attrs)
        # Unfusable values: the ops one by one, each error naming its own op.
        value = produce(*p_args, **p_attrs)
        for (op, kernel, _, index, _, attrs), vals in zip(steps, others):
            inputs = list(vals)
            inputs.insert(index, value)
            try:
                value = kernel(*inputs, **attrs)
            except Exception as e:
                e._scopeflow_op = op
                raise
        return value

    return run
