"""``tf.random.stateless_parameterized_truncated_normal``: TF's
``StatelessParameterizedTruncatedNormal``, bit for bit.

TF's kernel (``parameterized_truncated_normal_op.cc``, ``TruncatedNormalFunctorV2``) reads
one Philox stream per shard of outputs, batch by batch (a batch: one set of broadcast
``means``/``stddevs``/``minvals``/``maxvals``, the trailing dims of ``shape``), and picks a
sampler per batch from the normalized bounds: normal rejection (bounds wide around the
mean), uniform rejection (narrow bounds) or Robert's exponential rejection (a far tail). A
batch's samples take accepted candidates in order; the rest of its last block is dropped.
Each batch is drawn vectorised (blocks in chunks, accepted candidates selected); the
arithmetic is in the op's dtype with the C library's ``expf``/``logf`` (or double
``exp``/``log``), as the kernel. Shards follow TF's ``Shard`` with the kernel's cost
estimate (Eigen's AVX costs), so large outputs are TF's for a machine with the same number
of CPUs (``philox.intra_op_threads``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.ops.math import libm
from scopeflow.ops.random import philox
from scopeflow.ops.random.random_ops import _dims, _output_shape, _shape_tensor
from scopeflow.ops.random.stateless_random_ops import (
    _check_seed_shape,
    _seed_pair,
    scramble_seed,
)

__all__ = ["stateless_parameterized_truncated_normal"]

_MAX_ITERATIONS = 1000
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
# Per-output cost TF's kernel gives Shard: batch setup + two uniform rejection rounds
# (Eigen's costs with AVX: sqrt 8 / 28, exp 34 / 51; Philox 10, Uniform 3 / 4 a value).
_COST = {np.dtype(np.float16): 187, np.dtype(np.float32): 187, np.dtype(np.float64): 263}


@functools.cache
def _c_float(name):
    fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or None), name)
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    return fn


def _exp(x: np.ndarray) -> np.ndarray:
    """``Eigen::numext::exp`` in ``x``'s dtype: the C library's ``expf``/``exp``."""
    if x.dtype == np.float64:
        return libm.exp(x)
    fn = _c_float("expf")
    out = np.fromiter(map(fn, x.astype(np.float32).reshape(-1).tolist()), np.float32, count=x.size)
    return out.astype(x.dtype).reshape(x.shape)


def _log(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float64:
        return libm.log(x)
    fn = _c_float("logf")
    out = np.fromiter(map(fn, x.astype(np.float32).reshape(-1).tolist()), np.float32, count=x.size)
    return out.astype(x.dtype).reshape(x.shape)


def _uniforms(stream, start: int, blocks: int, dtype) -> np.ndarray:
    """``Uniform<T>`` values of ``blocks`` blocks from ``start``: ``(blocks, k)``."""
    w = stream.blocks(start, blocks)
    return philox._uniform_block(dtype)(w).reshape(blocks, -1).astype(dtype, copy=False)


def _normals(stream, start: int, blocks: int, dtype) -> np.ndarray:
    w = stream.blocks(start, blocks)
    return philox._normal_pairs(w, dtype).reshape(blocks, -1).astype(dtype, copy=False)


def _batch(stream, pos: int, count: int, dtype, mean, stddev, minval, maxval):
    """``count`` samples of one batch drawn from block ``pos`` on: ``(samples, next_pos)``.
    Each step takes one block (two for uniform rejection: candidates, then their tests)."""
    t = dtype.type
    if (np.isinf(minval) and minval < 0) or maxval < mean:
        minval, maxval, stddev = maxval, minval, -stddev
    norm_min = (minval - mean) / stddev
    norm_max = (maxval - mean) / stddev
    sqrt_factor = np.sqrt(norm_min * norm_min + t(4))
    cutoff = t(2) * _exp(np.asarray(t(0.5) + (norm_min * (norm_min - sqrt_factor)) / t(4),
                                    dtype)) / (norm_min + sqrt_factor)
    diff = norm_max - norm_min
    inside = t(1.3)
    if ((norm_min < -inside) and (norm_max >= 0)) or ((norm_max > inside)
                                                      and (norm_min <= 0)):
        method, step = "randn", 1
    elif diff < cutoff:
        method, step = "uniform", 2
    else:
        method, step = "exponential", 1
    chunk = max(4, count)
    found, total = [], 0
    while True:
        if method == "randn":
            values = _normals(stream, pos, chunk, dtype)
            ok = (values >= norm_min) & (values <= norm_max)
        elif method == "uniform":
            plus = t(0) if norm_min < 0 else norm_min * norm_min
            both = _uniforms(stream, pos, 2 * chunk, dtype).reshape(chunk, 2, -1)
            values = both[:, 0] * diff + norm_min
            g = (plus - values * values) / t(2.0)
            ok = both[:, 1] <= _exp(g)
        else:
            alpha = (norm_min + np.sqrt(norm_min * norm_min + t(4))) / t(2)
            rand = _uniforms(stream, pos, chunk, dtype).reshape(chunk, -1, 2)
            with np.errstate(divide="ignore"):
                values = -_log(rand[..., 0]) / alpha + norm_min
            x = alpha - values if norm_min < alpha else np.full_like(values, norm_min - alpha)
            g = _exp(-x * x / t(2.0))
            ok = (rand[..., 1] <= g) & (values < norm_max)
        accepted = ok.sum(axis=1).cumsum()
        if total + accepted[-1] >= count:
            last = int(np.searchsorted(accepted, count - total))   # the block of the last
            found.append(values[:last + 1][ok[:last + 1]][:count - total])
            return np.concatenate(found), pos + (last + 1) * step
        found.append(values[ok])
        total += int(accepted[-1])
        pos += chunk * step
        chunk *= 2


def truncated_normal_samples(key: int, counter: int, params: np.ndarray, per_batch: int,
                             dtype, threads: int | None = None) -> np.ndarray:
    """TF's samples, ``(per_batch, batches)`` of ``dtype``; ``params``: ``(4, batches)``
    means, stddevs, minvals, maxvals."""
    dtype = np.dtype(dtype)
    batches = params.shape[1]
    n = batches * per_batch
    out = np.empty(n, dtype)                          # output index = batch-major
    k = 2 if dtype == np.float64 else 4
    stream = philox.PhiloxStream.at(key, counter)
    for lo, hi in philox._parallel_for_blocks(n, _COST[dtype],
                                              threads or philox.intra_op_threads()):
        pos = (counter + (lo * 2 * _MAX_ITERATIONS + k - 1) // k) & ((1 << 128) - 1)
        idx = lo
        while idx < hi:
            b = idx // per_batch
            count = min(per_batch - idx % per_batch, hi - idx)
            mean, stddev, minval, maxval = (params[j, b] for j in range(4))
            if not (stddev > 0 and minval < maxval
                    and (np.isfinite(minval) or np.isfinite(maxval))):
                raise errors.InvalidArgumentError(None, None, "Invalid parameters")
            samples, pos = _batch(stream, pos, count, dtype, mean, stddev, minval, maxval)
            stddev = -stddev if ((np.isinf(minval) and minval < 0) or maxval < mean) \
                else stddev
            out[idx:idx + count] = samples * stddev + mean
            idx += count
    return out.reshape(batches, per_batch).T


def _ptn_shape(shape, seed, means, stddevs, minvals, maxvals, **attrs):
    _check_seed_shape(seed)
    return _output_shape(shape)


def _ptn_dtype(shape, seed, means, stddevs, minvals, maxvals, *, S, Tseed, dtype):
    check_dtype(shape, INDEX, "S")
    check_dtype(seed, INDEX, "Tseed")
    check_dtype(means, _FLOATS, "dtype")
    for name, d in (("stddevs", stddevs), ("minvals", minvals), ("maxvals", maxvals)):
        if d is not means:
            raise TypeError(f"Input '{name}' of 'StatelessParameterizedTruncatedNormal' Op "
                            f"has type {d.name} that does not match type {means.name} of "
                            "argument 'means'.")
    return means


def _ptn_kernel(shape, seed, means, stddevs, minvals, maxvals, *, S, Tseed, dtype):
    dims = _dims(shape, "StatelessParameterizedTruncatedNormal")
    try:
        bshape = np.broadcast_shapes(means.shape, stddevs.shape, minvals.shape,
                                     maxvals.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "means, stddevs, minvals, maxvals must have compatible batch "
                        "dimensions") from None
    if len(bshape) > len(dims) or dims[len(dims) - len(bshape):] != bshape:
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape.")
    np_dtype = dtype.as_numpy_dtype
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return np.zeros(dims, np_dtype)
    params = np.stack([np.broadcast_to(p, bshape).reshape(-1)
                       for p in (means, stddevs, minvals, maxvals)])
    batches = params.shape[1]
    key, counter = scramble_seed(*_seed_pair(seed))
    return truncated_normal_samples(key, counter, params, n // batches,
                                    np_dtype).reshape(dims)


stateless_parameterized_truncated_normal_op = OpDef(
    "StatelessParameterizedTruncatedNormal", shape=from_tensors(_ptn_shape),
    dtype=_ptn_dtype, kernel=_ptn_kernel,
    # TF registers a gradient (w.r.t. means, stddevs, bounds); not built here: raises.
    attrs={"S": dtypes.int32, "Tseed": dtypes.int64, "dtype": None}, grad=NO_GRADIENT,
    input_names=("shape", "seed", "means", "stddevs", "minvals", "maxvals"))


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0,
                                             name=None) -> Tensor:
    """``tf.random.stateless_parameterized_truncated_normal``: normal samples of shape
    ``shape`` kept within ``[minvals, maxvals]`` (each parameter broadcast to the trailing
    dims of ``shape``), fixed by ``seed``.

    >>> stateless_parameterized_truncated_normal([3], seed=[1, 2]).shape.as_list()
    [3]
    """
    with name_scope(name, "stateless_parameterized_truncated_normal",
                    [shape, means, stddevs, minvals, maxvals]):
        shape = _shape_tensor(shape)
        means = convert_to_tensor(means, name="means")
        stddevs = convert_to_tensor(stddevs, name="stddevs")
        minvals = convert_to_tensor(minvals, name="minvals")
        maxvals = convert_to_tensor(maxvals, name="maxvals")
        with name_scope(None, "StatelessParameterizedTruncatedNormal") as scope:
            seed = convert_to_tensor(seed, name="seed")
            return stateless_parameterized_truncated_normal_op.bind(
                shape, seed, means, stddevs, minvals, maxvals, S=shape.dtype.base_dtype,
                Tseed=seed.dtype.base_dtype, dtype=means.dtype.base_dtype, name=scope)
