"""``tf.nondifferentiable_batch_function``: a decorator whose function runs through one
``BatchFunction`` op.

TF's op queues the calls that concurrent ``Session.run``s make and runs the function once
on their inputs concatenated (up to ``max_batch_size`` rows, waiting at most
``batch_timeout_micros``), then splits the results back. In one process on a CPU, a run's
call gives the same values as the function on that run's inputs, which is what the kernel
here computes: the function is traced once into a ``FuncGraph`` (its ops under ``batch/``,
on inputs named ``batch_0``, ``batch_1``...) and the op calls it, after TF's checks of the
inputs (at least one dimension, equal first dimensions, at most ``max_batch_size`` rows).
As in TF the op has no gradient, and its outputs' static shapes are unknown.
"""

from __future__ import annotations

from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.func_graph import FuncGraph, FunctionKind
from scopeflow.framework.graph import Tensor, get_default_graph
from scopeflow.framework.nest import flatten, is_sequence, pack_sequence_as
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.control_flow.cond_ops import branch_value
from scopeflow.ops.control_flow.while_ops import loop_var

__all__ = ["nondifferentiable_batch_function"]


# ── BatchFunction ──────────────────────────────────────────────────────────────────────
def _batch_function_shape(*shapes, f, Tout, **attrs):  # noqa: N803 - TF's attr names
    return [TensorShape(None) for _ in Tout]


def _batch_function_dtype(*dts, f, Tout, **attrs):  # noqa: N803
    return list(Tout)


def _check_batch(values, max_batch_size):
    """TF's checks of one call's inputs before they join a batch."""
    if any(v.ndim == 0 for v in values):
        raise InvalidArgumentError(None, None,
                                   "Batching input tensors must have at least one dimension.")
    sizes = {v.shape[0] for v in values}
    if len(sizes) > 1:
        raise InvalidArgumentError(None, None, "Batching input tensors supplied in a given op "
                                               "invocation must have equal 0th-dimension size.")
    size = sizes.pop() if sizes else 0
    if size > max_batch_size:
        raise InvalidArgumentError(None, None, f"Task size {size} is larger than maximum "
                                               f"input batch size {max_batch_size}")


def _batch_function_kernel(run, *inputs, f, Tin, max_batch_size, **attrs):  # noqa: N803
    values = list(inputs[:len(Tin)])
    _check_batch(values, max_batch_size)
    outs = list(run.state.function(f)(list(inputs)))
    return outs[0] if len(outs) == 1 else outs  # one output: the array itself


batch_function_op = OpDef(
    "BatchFunction", shape=_batch_function_shape, dtype=_batch_function_dtype,
    kernel=_batch_function_kernel, stateful=True, grad=NO_GRADIENT,
    attrs={"f": None, "num_batch_threads": None, "max_batch_size": None,
           "batch_timeout_micros": None, "allowed_batch_sizes": [], "max_enqueued_batches": 10,
           "container": "", "shared_name": "", "batching_queue": "",
           "enable_large_batch_splitting": False, "Tin": None, "Tcaptured": None,
           "Tout": None},
    num_outputs=lambda attrs, n: len(attrs["Tout"]))


def _trace(fn, args, scope):
    """``fn`` traced into a ``FuncGraph`` on inputs like ``args``; returns it and the
    structure of its results."""
    graph = get_default_graph()
    func = FuncGraph(FunctionKind.BATCH_FUNCTION, parent=graph._state().cf_context,
                     name=scope.rstrip("/"))
    with func.entered(graph):
        inputs = [loop_var(a.dtype.base_dtype, a.shape, name=f"batch_{i}")
                  for i, a in enumerate(args)]
        result = fn(*inputs)
        outs = [branch_value(x, func, "the batch function") for x in flatten(result)]
    func.inputs, func.outputs = inputs, outs
    return func, result


def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True, enable_large_batch_splitting=True):
    """Decorator: the function's calls run through a ``BatchFunction`` op (see the module
    docstring); its arguments must be tensors with a batch dimension first.

    >>> @tf.nondifferentiable_batch_function(1, 10, 100000)
    ... def double(x):
    ...     return x * 2.0
    >>> double(tf.ones([2, 3])).op.type
    'BatchFunction'
    """
    del autograph  # Python control flow runs as Python while tracing

    def decorator(fn):
        def decorated(*args):
            graph = get_default_graph()
            with graph.name_scope("batch") as scope:
                func, result = _trace(fn, args, scope)  # before the check, as TF
                for a in args:
                    if not isinstance(a, Tensor):
                        raise ValueError("All arguments to functions decorated with "
                                         "`batch_function`  are supposed to be Tensors; "
                                         f"found {a!r}.")
                captured = list(func.captures)
                attrs = {"f": func, "num_batch_threads": num_batch_threads,
                         "max_batch_size": max_batch_size,
                         "batch_timeout_micros": batch_timeout_micros,
                         "allowed_batch_sizes": list(allowed_batch_sizes or []),
                         "max_enqueued_batches": max_enqueued_batches,
                         "shared_name": scope,
                         "enable_large_batch_splitting": enable_large_batch_splitting,
                         "Tin": [a.dtype.base_dtype for a in args],
                         "Tcaptured": [t.dtype.base_dtype for t in captured],
                         "Tout": [t.dtype.base_dtype for t in func.outputs]}
                with graph.control_dependencies(func.external_controls):
                    op = batch_function_op.create(list(args) + captured, attrs,
                                                  name="BatchFunction")
            if not is_sequence(result):
                return op.outputs[0]
            return pack_sequence_as(result, list(op.outputs))
        decorated.__name__ = getattr(fn, "__name__", "decorated")
        decorated.__doc__ = fn.__doc__
        decorated.__wrapped__ = fn
        return decorated
    return decorator
