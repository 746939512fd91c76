"""The ops under ``tf.random.Generator``: ``RngReadAndSkip`` (read a counter-based RNG's
state variable and advance its counter) and ``NonDeterministicInts`` (OS entropy).

A Philox state is ``[counter_low, counter_high, key]`` (int64 holding uint64 bits).
``RngReadAndSkip(state, alg, delta)`` returns the state as it was and adds ``256 * delta``
to the 128-bit counter, as TF 2.21's CPU kernel does: a draw of ``delta`` numbers then
never overlaps the next draw's Philox blocks.
"""

from __future__ import annotations

import threading

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.kernel_context import UninitializedVariable
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, from_tensors, ref
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value

__all__ = ["rng_read_and_skip", "non_deterministic_ints"]

_SKIP_LOCK = threading.Lock()
_COUNTER_STEP = 256  # Philox blocks per skipped number (TF's kernel)


def _skip_shape(state, alg, delta):
    return TensorShape([None]) if state.ndims is None else state


def _skip_dtype(state, alg, delta):
    return dtypes.int64


def _rng_read_and_skip_kernel(ctx, state, alg, delta):
    try:
        var = ctx.state.vars[state]
    except KeyError:
        raise UninitializedVariable(ctx.op.graph._ops_by_name[state]) from None
    if int(alg) not in (1, 3):
        raise errors.InvalidArgumentError(None, None, f"Unsupported algorithm id: {int(alg)}")
    if var.shape != (3,):
        raise errors.InvalidArgumentError(
            None, None, f"The size of the state must be at least 3; got {var.size}")
    with _SKIP_LOCK:
        before = var.copy()
        bits = var.view(np.uint64)
        counter = int(bits[0]) | (int(bits[1]) << 64)
        counter = (counter + _COUNTER_STEP * int(delta)) % (1 << 128)
        bits[0], bits[1] = counter & (2**64 - 1), counter >> 64
    return before


rng_read_and_skip_op = OpDef(
    "RngReadAndSkip", shape=_skip_shape, dtype=_skip_dtype, kernel=_rng_read_and_skip_kernel,
    stateful=True, grad=NO_GRADIENT, input_names=(ref("resource"), "alg", "delta"))


def rng_read_and_skip(state_var, alg, delta, name=None):
    """The RNG state ``state_var`` held before, then its counter advanced past ``delta``
    numbers (``alg``: 1 Philox or 3 auto-select, both Philox on a CPU)."""
    state_ref = getattr(state_var, "_variable", state_var)
    return rng_read_and_skip_op.bind(state_ref, alg, delta, name=name or "RngReadAndSkip")


def _nondet_shape(shape, *, dtype, shape_dtype):
    value = constant_value(shape)
    if value is None:
        return TensorShape(None)
    return TensorShape([int(d) for d in np.reshape(value, -1)])


def _nondet_dtype(shape, *, dtype, shape_dtype):
    return dtype


def _non_deterministic_ints_kernel(ctx, shape, *, dtype, shape_dtype):
    dims = [int(d) for d in np.reshape(shape, -1)]
    info = np.iinfo(dtype.as_numpy_dtype)
    rng = np.random.default_rng()  # the OS's entropy, fresh at every run
    return rng.integers(info.min, info.max, size=dims, dtype=dtype.as_numpy_dtype,
                        endpoint=True)


non_deterministic_ints_op = OpDef(
    "NonDeterministicInts", shape=from_tensors(_nondet_shape), dtype=_nondet_dtype,
    kernel=_non_deterministic_ints_kernel,
    attrs={"dtype": dtypes.int64, "shape_dtype": dtypes.int64}, stateful=True,
    grad=NO_GRADIENT, input_names=("shape",))


def non_deterministic_ints(shape, dtype=dtypes.int64, name=None):
    """Integers from the OS's entropy (a new draw at every run)."""
    return non_deterministic_ints_op.bind(shape, dtype=dtype, shape_dtype=dtypes.int64,
                                          name=name or "NonDeterministicInts")
