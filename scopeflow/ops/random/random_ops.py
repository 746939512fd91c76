"""Random ops: uniform, normal, truncated normal, uniform integers, shuffle, multinomial.

The kernels reproduce TensorFlow's CPU kernels bit for bit (``scopeflow/ops/random/philox.py``):
an op with attrs ``(seed, seed2)`` yields, in a new session, exactly what TF yields, and
successive runs in one session continue the stream. Each op's stream position lives in
the session (``SessionState.rngs``, keyed by op name), so every new session replays it;
``seed == seed2 == 0`` (no graph or op seed) draws a fresh OS seed per session.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors, random_seed
from scopeflow.framework.dtype_groups import FLOATS, INDEX, REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.kernel_context import OpRunContext
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    OpDef,
    check_dtype,
    first_dtype,
    from_tensors,
    same_shape,
)
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array_ops import _partial_dims
from scopeflow.ops.random import philox

__all__ = ["random_uniform", "random_normal", "truncated_normal", "random_shuffle",
           "multinomial"]

# ── shared rules ─────────────────────────────────────────────────────────────────────
def _stream(ctx: OpRunContext, seed: int, seed2: int) -> philox.PhiloxStream:
    """This op's generator in this session, created at the op's first run."""
    stream = ctx.state.rngs.get(ctx.key)
    if stream is None:
        restored = ctx.state.pending_rngs.pop(ctx.key, None)
        stream = ctx.state.rngs[ctx.key] = (philox.PhiloxStream(seed, seed2) if restored is None
                                            else philox.PhiloxStream.at(*restored))
    return stream


def _output_shape(shape_tensor: Tensor, *rest, **attrs) -> TensorShape:
    """The static output shape from a 1-D shape tensor: every entry that is known.

    As TF's shape functions, this sees through ``Shape``, ``Pack``, ``ConcatV2`` and
    slices of them, so ``random_uniform(tf.shape(x))`` keeps ``x``'s known dims.
    """
    value = constant_value(shape_tensor)
    if value is not None and value.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {value.ndim}")
    rank = shape_tensor.shape.ndims
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank}")
    dims = _partial_dims(shape_tensor)
    if dims is None:
        return TensorShape(None)
    return TensorShape([d if d is not None and d >= 0 else None for d in dims])


def _dims(shape: np.ndarray, op_type: str) -> tuple[int, ...]:
    if shape.ndim != 1:
        raise ValueError(f"{op_type}: shape must be a vector of {{int32,int64}}, got shape "
                         f"{list(shape.shape)}")
    dims = tuple(int(d) for d in shape.tolist())
    if any(d < 0 for d in dims):
        raise ValueError(f"{op_type}: negative dimension in shape {list(dims)}")
    return dims


def _shape_dtype(shape_dtype):
    return check_dtype(shape_dtype, INDEX, "T")


def _seed_attrs(seed) -> dict:
    seed1, seed2 = random_seed.get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def _shape_tensor(shape) -> Tensor:
    """TF's ``tensor_util.shape_tensor``: a list/tuple/TensorShape becomes a ``shape`` const."""
    if isinstance(shape, Tensor):
        return shape
    dtype = None
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor")
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)):
        if not shape:
            shape, dtype = np.zeros([0], np.int32), dtypes.int32
        elif any(isinstance(d, Tensor) for d in shape):
            return array_ops.stack(list(shape), name="shape")
        else:
            shape = tuple(dimension_value(d) for d in shape)
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def _float_dtype(dtype, what):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in FLOATS:
        raise ValueError(f"Invalid dtype {dtype.name} for {what}: expected one of "
                         f"{', '.join(d.name for d in FLOATS)}")
    return dtype


def _random_float_dtype(shape, *, dtype, seed, seed2, T):
    _shape_dtype(shape)
    return check_dtype(dtype, FLOATS, "dtype")


# The attrs of RandomUniform, RandomStandardNormal and TruncatedNormal.
_RANDOM_FLOAT_ATTRS = {"dtype": dtypes.float32, "seed": 0, "seed2": 0, "T": dtypes.int32}


# ── RandomUniform ────────────────────────────────────────────────────────────────────
def _random_uniform_kernel(ctx, shape, *, dtype, seed, seed2, T):
    dims = _dims(shape, "RandomUniform")
    n = int(np.prod(dims, dtype=np.int64))
    return philox.uniform(_stream(ctx, seed, seed2), n, dtype.as_numpy_dtype).reshape(dims)


random_uniform_op = OpDef("RandomUniform", shape=from_tensors(_output_shape),
                          dtype=_random_float_dtype, kernel=_random_uniform_kernel,
                          attrs=_RANDOM_FLOAT_ATTRS, stateful=True, grad=None,
                          input_names=("shape",))


# ── RandomUniformInt ─────────────────────────────────────────────────────────────────
def _random_uniform_int_shape(shape, minval, maxval, **attrs):
    for name, t in (("minval", minval), ("maxval", maxval)):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} for {name}")
    return _output_shape(shape)


def _random_uniform_int_dtype(shape, minval, maxval, *, seed, seed2, Tout, T):
    _shape_dtype(shape)
    check_dtype(minval, INDEX, "Tout")
    if maxval is not minval:
        raise TypeError(f"minval and maxval must have the same dtype, got {minval.name} and "
                        f"{maxval.name}")
    return minval


random_uniform_int_op = OpDef(
    "RandomUniformInt", shape=from_tensors(_random_uniform_int_shape),
    dtype=_random_uniform_int_dtype,
    attrs={"seed": 0, "seed2": 0, "Tout": dtypes.int32, "T": dtypes.int32}, stateful=True,
    grad=NO_GRADIENT, input_names=("shape", "minval", "maxval"))


@random_uniform_int_op.def_kernel
def _random_uniform_int_kernel(ctx, shape, minval, maxval, *, seed, seed2, Tout, T):
    dims = _dims(shape, "RandomUniformInt")
    lo, hi = int(minval), int(maxval)
    n = int(np.prod(dims, dtype=np.int64))
    if n and lo >= hi:
        raise ValueError(f"Need minval < maxval: {lo} >= {hi}")
    out = philox.uniform_int(_stream(ctx, seed, seed2), n, lo, hi, Tout.as_numpy_dtype)
    return out.reshape(dims)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None,
                   name=None) -> Tensor:
    """Uniform values in ``[minval, maxval)`` (TF1's ``tf.random_uniform``).

    Floats: ``RandomUniform`` in [0, 1), then ``* (maxval - minval) + minval`` (skipped
    for the default range). Integers: ``RandomUniformInt``; ``maxval`` is required.

    >>> random_uniform([2, 3], -1.0, 1.0).shape.as_list()
    [2, 3]
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in FLOATS + INDEX:
        raise ValueError(f"Invalid dtype {dtype.name} for random_uniform: expected a float "
                         "or int32/int64")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape = _shape_tensor(shape)
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seeds = _seed_attrs(seed)
        if dtype.is_integer:
            return random_uniform_int_op.bind(shape, minval, maxval, Tout=dtype,
                                              T=shape.dtype.base_dtype, name=scope, **seeds)
        result = random_uniform_op.bind(shape, dtype=dtype, T=shape.dtype.base_dtype, **seeds)
        if minval_is_zero:
            if not maxval_is_one:
                result = math_ops.multiply(result, maxval)
            return result
        scaled = math_ops.multiply(result, math_ops.subtract(maxval, minval, name="sub"),
                                   name="mul")
        return math_ops.add(scaled, minval, name=scope)


# ── RandomStandardNormal ─────────────────────────────────────────────────────────────
def _random_standard_normal_kernel(ctx, shape, *, dtype, seed, seed2, T):
    dims = _dims(shape, "RandomStandardNormal")
    n = int(np.prod(dims, dtype=np.int64))
    return philox.normal(_stream(ctx, seed, seed2), n, dtype.as_numpy_dtype).reshape(dims)


random_standard_normal_op = OpDef(
    "RandomStandardNormal", shape=from_tensors(_output_shape), dtype=_random_float_dtype,
    kernel=_random_standard_normal_kernel, attrs=_RANDOM_FLOAT_ATTRS, stateful=True, grad=None,
    input_names=("shape",))


def _scaled_normal(op_def, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = _float_dtype(dtype, default_name)
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = op_def.bind(shape, dtype=dtype, T=shape.dtype.base_dtype, **_seed_attrs(seed))
        return math_ops.add(math_ops.multiply(rnd, stddev, name="mul"), mean, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                  name=None) -> Tensor:
    """Normal values: ``RandomStandardNormal * stddev + mean`` (TF1's ``tf.random_normal``).

    >>> random_normal([4], stddev=2.0).op.type
    'AddV2'
    """
    return _scaled_normal(random_standard_normal_op, "random_normal", shape, mean, stddev,
                          dtype, seed, name)


# ── TruncatedNormal ──────────────────────────────────────────────────────────────────
def _truncated_normal_kernel(ctx, shape, *, dtype, seed, seed2, T):
    dims = _dims(shape, "TruncatedNormal")
    n = int(np.prod(dims, dtype=np.int64))
    return philox.truncated_normal(_stream(ctx, seed, seed2), n,
                                   dtype.as_numpy_dtype).reshape(dims)


truncated_normal_op = OpDef("TruncatedNormal", shape=from_tensors(_output_shape),
                            dtype=_random_float_dtype, kernel=_truncated_normal_kernel,
                            attrs=_RANDOM_FLOAT_ATTRS, stateful=True, grad=None,
                            input_names=("shape",))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None,
                     name=None) -> Tensor:
    """Normal values redrawn until within two standard deviations of ``mean``.

    >>> truncated_normal([3]).name
    'truncated_normal:0'
    """
    return _scaled_normal(truncated_normal_op, "truncated_normal", shape, mean, stddev,
                          dtype, seed, name)


# ── RandomShuffle ────────────────────────────────────────────────────────────────────
def _random_shuffle_kernel(ctx, value, *, seed, seed2):
    stream = _stream(ctx, seed, seed2)
    if value.ndim == 0:
        raise ValueError("RandomShuffle: input must be at least 1-D (a vector), got a scalar")
    if value.size <= 1 or value.shape[0] <= 1:
        return value.copy()
    return value[philox.shuffle_permutation(stream, value.shape[0])]


random_shuffle_op = OpDef("RandomShuffle", shape=same_shape, dtype=first_dtype,
                          kernel=_random_shuffle_kernel,
                          attrs={"seed": 0, "seed2": 0}, stateful=True, grad=None,
                          input_names=("value",))


def random_shuffle(value, seed=None, name=None) -> Tensor:
    """``value`` with its first dimension in a random order (TF1's ``tf.random_shuffle``).

    >>> random_shuffle([1, 2, 3]).op.type
    'RandomShuffle'
    """
    return random_shuffle_op.bind(value, name=name, **_seed_attrs(seed))


# ── Multinomial (not differentiable) ─────────────────────────────────────────────────
def _multinomial_shape(logits, num_samples, **attrs):
    if logits.shape.ndims not in (None, 2):
        raise ValueError(f"Shape must be rank 2 but is rank {logits.shape.ndims}")
    if num_samples.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {num_samples.shape.ndims}")
    n = constant_value(num_samples)
    batch = None if logits.shape.ndims is None else logits.shape.as_tuple()[0]
    return TensorShape([batch, None if n is None else int(n)])


def _multinomial_dtype(logits, num_samples, *, seed, seed2, T, output_dtype):
    check_dtype(logits, REAL, "logits")
    if num_samples is not dtypes.int32:
        raise TypeError(f"Input 'num_samples' of 'Multinomial' Op has type {num_samples.name} "
                        "that does not match expected type of int32.")
    return check_dtype(output_dtype, INDEX, "output_dtype")


def _multinomial_kernel(ctx, logits, num_samples, *, seed, seed2, T, output_dtype):
    if T not in FLOATS:  # TF's OpDef takes every real type; its CPU kernels only floats
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op 'Multinomial' with these "
                        f"attrs: [seed={seed}, seed2={seed2}, T=DT_{T.name.upper()}, "
                        f"output_dtype=DT_{output_dtype.name.upper()}]")
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape {list(logits.shape)}")
    if num_samples.ndim != 0:
        raise errors.InvalidArgumentError(None, None, "num_samples should be a scalar.")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n}")
    batch, classes = logits.shape
    if classes <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_classes should be positive, got {classes}")
    out_dtype = output_dtype.as_numpy_dtype
    if batch == 0 or n == 0:
        return np.zeros((batch, n), out_dtype)
    return philox.multinomial(_stream(ctx, seed, seed2), logits, n).astype(out_dtype)


multinomial_op = OpDef("Multinomial", shape=from_tensors(_multinomial_shape),
                       dtype=_multinomial_dtype, kernel=_multinomial_kernel,
                       attrs={"seed": 0, "seed2": 0, "T": None, "output_dtype": dtypes.int64},
                       stateful=True, grad=None, input_names=("logits", "num_samples"))


def _multinomial(logits, num_samples, output_dtype, seed):
    """TF's ``multinomial_categorical_impl``: a ``Multinomial`` op in the current scope."""
    output_dtype = dtypes.as_dtype(output_dtype or dtypes.int64).base_dtype
    if output_dtype not in INDEX:
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{output_dtype.name}'>. "
                         "Accepted "
                         "dtypes are (tf.int32, tf.int64).")
    logits = convert_to_tensor(logits, name="logits")
    with name_scope(None, "Multinomial") as scope:
        if not isinstance(num_samples, Tensor):
            try:
                num_samples = convert_to_tensor(num_samples, dtype=dtypes.int32,
                                                name="num_samples")
            except TypeError as e:
                raise TypeError(
                    f"Expected int32 passed to parameter 'num_samples' of op 'Multinomial', "
                    f"got {num_samples!r} of type '{type(num_samples).__name__}' instead. "
                    f"Error: {e}") from None
        return multinomial_op.bind(logits, num_samples, T=logits.dtype.base_dtype,
                                   output_dtype=output_dtype, name=scope,
                                   **_seed_attrs(seed))


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` (``[batch, classes]``
    unnormalized log-probabilities), as ``output_dtype`` (default int64): TF1's
    ``tf.multinomial``, a ``Multinomial`` op seeded as the other random ops.

    Values replay TF's CPU kernel for the same seeds when TF runs it as one shard (see
    ``philox.multinomial``: small batches such as a sampling loop's); larger batches draw
    from the same distribution but not TF's exact values.

    >>> multinomial([[0.0, 1.0]], 5).shape.as_list()
    [1, 5]
    """
    with name_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """``tf.random.categorical``: ``multinomial`` with ``dtype=`` and the default name
    ``categorical``.

    >>> categorical([[0.0, 1.0]], 3, dtype="int32").dtype.name
    'int32'
    """
    with name_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)
