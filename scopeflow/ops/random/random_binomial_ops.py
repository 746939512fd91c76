"""``tf.random.stateless_binomial``: TF's ``StatelessRandomBinomial``, bit for bit.

TF's kernel (``random_binomial_op.cc``) gives output ``i`` (batch-major: the broadcast
``counts``/``probs`` shape is the trailing part of ``shape``) its own Philox generator and
samples ``min(p, 1 - p)``: with ``count * p < 10`` by inversion (summing geometric
variates ``ceil(log u / log1p(-p))`` until they pass ``count``; 42 blocks an output),
else by Hormann's BTRS transformed rejection (256 blocks an output); ``p > 0.5`` gives
``count - sample``. Uniforms are doubles, a block's two taken last first; ``log`` and
``log1p`` the C library's. Vectorised: every output's loop advances at once.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.ops.math import libm
from scopeflow.ops.random.random_gamma_ops import (
    _Buffer,
    _c_log1p,
    _double_uniforms,
    _Generators,
    _to_dtype,
)
from scopeflow.ops.random.random_ops import _dims, _output_shape, _shape_tensor
from scopeflow.ops.random.stateless_random_ops import (
    _check_seed_shape,
    _seed_pair,
    scramble_seed,
)

__all__ = ["stateless_random_binomial"]

_PARAM_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287])


def _stirling_tail(k: np.ndarray) -> np.ndarray:
    small = k <= 9
    kp1sq = (k + 1) * (k + 1)
    out = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    out[small] = _STIRLING_TAIL[np.clip(k[small], 0, 9).astype(np.int64)]
    return out


def _inversion(uniforms: _Buffer, idx: np.ndarray, count: np.ndarray,
               p: np.ndarray) -> np.ndarray:
    """Binomial inversion for outputs ``idx`` (their ``count`` and ``p``)."""
    out = np.zeros(idx.size)
    geom_sum = np.zeros(idx.size)
    log1p_neg_p = _c_log1p(-p)
    live = np.arange(idx.size)
    while live.size:
        u = uniforms.draw(idx[live])
        with np.errstate(divide="ignore", invalid="ignore"):
            geom_sum[live] += np.ceil(libm.log(u) / log1p_neg_p[live])
        over = geom_sum[live] > count[live]
        out[live[~over]] += 1
        live = live[~over]
    return out


def _btrs(uniforms: _Buffer, idx: np.ndarray, count: np.ndarray,
          p: np.ndarray) -> np.ndarray:
    """Hormann's BTRS for outputs ``idx`` (``count * p >= 10``, ``p <= 0.5``)."""
    stddev = np.sqrt(count * p * (1 - p))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = count * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * p)
    out = np.zeros(idx.size)
    live = np.arange(idx.size)
    while live.size:
        u = uniforms.draw(idx[live])
        v = uniforms.draw(idx[live])
        u = u - 0.5
        us = 0.5 - np.abs(u)
        aa, bb, n = a[live], b[live], count[live]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            k = np.floor((2 * aa / us + bb) * u + c[live])
        quick = (us >= 0.07) & (v <= v_r[live])
        out[live[quick]] = k[quick]
        test = np.flatnonzero(~quick & ~((k < 0) | (k > n)))
        accept = np.zeros(live.size, bool)
        if test.size:
            t = live[test]
            kk, nn, mm, rr = k[test], count[t], m[t], r[t]
            with np.errstate(divide="ignore", invalid="ignore"):
                lv = libm.log(v[test] * alpha[t] / (a[t] / (us[test] * us[test]) + b[t]))
                upper = ((mm + 0.5) * libm.log((mm + 1) / (rr * (nn - mm + 1)))
                         + (nn + 1) * libm.log((nn - mm + 1) / (nn - kk + 1))
                         + (kk + 0.5) * libm.log(rr * (nn - kk + 1) / (kk + 1))
                         + _stirling_tail(mm) + _stirling_tail(nn - mm)
                         - _stirling_tail(kk) - _stirling_tail(nn - kk))
            ok = lv <= upper
            out[t[ok]] = kk[ok]
            accept[test[ok]] = True
        live = live[~(quick | accept)]
    return out


def binomial_samples(key: int, start: int, counts: np.ndarray, probs: np.ndarray,
                     per_batch: int) -> np.ndarray:
    """Binomial samples as TF's kernel draws them (float64), ``(per_batch, batches)``;
    ``counts`` and ``probs`` (their own dtype, for TF's comparisons in it) are flat and
    of one length, the batches."""
    batches = counts.size
    n = batches * per_batch
    cnt = np.repeat(counts, per_batch)
    prob = np.repeat(probs, per_batch)
    dcount = cnt.astype(np.float64)
    out = np.full(n, np.nan)
    with np.errstate(invalid="ignore", over="ignore"):
        zero = (dcount <= 0) | (prob <= 0)
        full = ~zero & (prob >= 1)
        low = ~zero & ~full & (prob <= 0.5)
        high = ~zero & ~full & (prob > 0.5)
        q = (np.ones((), prob.dtype) - prob)
        p_small = np.where(high, q, prob)
        big = (cnt * p_small >= 10)
    out[zero] = 0.0
    out[full] = dcount[full]
    dp = p_small.astype(np.float64)
    for method, skip in ((_btrs, 256), (_inversion, 42)):
        idx = np.flatnonzero((low | high) & (big if method is _btrs else ~big))
        if not idx.size:
            continue
        gens = _Generators(key, start, n)
        gens.pos = np.arange(n, dtype=np.uint64) * np.uint64(skip)
        uniforms = _Buffer(gens, _double_uniforms, n)
        values = method(uniforms, idx, dcount[idx], dp[idx])
        out[idx] = np.where(high[idx], dcount[idx] - values, values)
    return out.reshape(batches, per_batch).T


def _binomial_shape(shape, seed, counts, probs, **attrs):
    _check_seed_shape(seed)
    return _output_shape(shape)


def _binomial_dtype(shape, seed, counts, probs, *, S, Tseed, T, dtype):
    check_dtype(shape, INDEX, "S")
    check_dtype(seed, INDEX, "Tseed")
    check_dtype(counts, _PARAM_TYPES, "T")
    if probs is not counts:
        raise TypeError(f"Input 'probs' of 'StatelessRandomBinomial' Op has type "
                        f"{probs.name} that does not match type {counts.name} of argument "
                        "'counts'.")
    return check_dtype(dtype, _PARAM_TYPES, "dtype")


def _binomial_kernel(shape, seed, counts, probs, *, S, Tseed, T, dtype):
    dims = _dims(shape, "StatelessRandomBinomial")
    try:
        bshape = np.broadcast_shapes(counts.shape, probs.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"counts and probs must have compatible batch dimensions: "
                        f"{list(counts.shape)} vs. {list(probs.shape)}") from None
    if len(bshape) > len(dims) or dims[len(dims) - len(bshape):] != bshape:
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape.")
    n = int(np.prod(dims, dtype=np.int64))
    np_dtype = dtype.as_numpy_dtype
    if n == 0:
        return np.zeros(dims, np_dtype)
    batches = int(np.prod(bshape, dtype=np.int64))
    key, counter = scramble_seed(*_seed_pair(seed))
    values = binomial_samples(key, counter, np.broadcast_to(counts, bshape).reshape(-1),
                              np.broadcast_to(probs, bshape).reshape(-1), n // batches)
    if np.dtype(np_dtype).kind == "i":
        with np.errstate(invalid="ignore"):
            return values.astype(np_dtype).reshape(dims)
    return _to_dtype(values, np_dtype).reshape(dims)


stateless_random_binomial_op = OpDef(
    "StatelessRandomBinomial", shape=from_tensors(_binomial_shape), dtype=_binomial_dtype,
    kernel=_binomial_kernel,
    attrs={"S": dtypes.int32, "Tseed": dtypes.int64, "T": dtypes.float64,
           "dtype": dtypes.int64},
    grad=None, input_names=("shape", "seed", "counts", "probs"))


def stateless_random_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32,
                              name=None) -> Tensor:
    """``tf.random.stateless_binomial``: Binomial(``counts``, ``probs``) samples of shape
    ``shape`` (ending with their broadcast shape), fixed by ``seed``.

    >>> stateless_random_binomial([4], seed=[1, 2], counts=10.0, probs=0.3).dtype.name
    'int32'
    """
    output_dtype = dtypes.as_dtype(output_dtype).base_dtype
    with name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]):
        shape = _shape_tensor(shape)
        probs = convert_to_tensor(probs, name="probs", preferred_dtype=dtypes.float32)
        counts = convert_to_tensor(counts, name="counts",
                                   preferred_dtype=probs.dtype.base_dtype)
        with name_scope(None, "StatelessRandomBinomial") as scope:
            seed = convert_to_tensor(seed, name="seed")
            return stateless_random_binomial_op.bind(
                shape, seed, counts, probs, S=shape.dtype.base_dtype,
                Tseed=seed.dtype.base_dtype, T=counts.dtype.base_dtype, dtype=output_dtype,
                name=scope)
