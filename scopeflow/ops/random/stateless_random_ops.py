"""Stateless random ops: the same values for the same seed, in any session, bit for bit TF's.

TF 2.21 builds ``tf.random.stateless_*`` from ``StatelessRandomGetKeyCounter`` (the seed
scrambled through one Philox block into a key and a counter) and the V2 ops that read
``(key, counter, alg)``; ``stateless_categorical`` is the older ``StatelessMultinomial``,
which scrambles its seed inside. Either way the values are Philox4x32-10 started at that
counter, with the transforms of the stateful ops (``philox.py``) but no per-run reservation:
nothing is kept between runs, so these ops are not stateful.

``fold_in`` and ``split`` are TF's: full-range integers drawn with the seed.
"""

from __future__ import annotations

import enum

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, INDEX, REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.random import philox
from scopeflow.ops.random.random_ops import (
    _dims,
    _multinomial_shape,
    _output_shape,
    _shape_tensor,
)

__all__ = ["Algorithm", "stateless_random_uniform", "stateless_random_normal",
           "stateless_truncated_normal", "stateless_categorical", "stateless_multinomial",
           "fold_in", "split", "random_index_shuffle"]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
# GenerateKey's fixed Philox key: the seed is the counter of one block under it.
_SCRAMBLE_KEY = 0x02461E29_3EC8F720
_INTS = (dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)
_SEEDS = (dtypes.int32, dtypes.int64)


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the RNG algorithms' ids as the ops' ``alg`` input takes them."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg_to_int(alg) -> int:
    """TF's ``convert_alg_to_int``: an int, an ``Algorithm`` or its name."""
    if isinstance(alg, bool):
        raise TypeError(f"Can't convert argument `alg` (of value {alg} and type "
                        f"{type(alg)}) to int.")
    if isinstance(alg, int):
        return alg
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        names = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon in names:
            return names[canon]
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         "philox for the Philox algorithm, threefry for the ThreeFry "
                         "algorithm, and auto_select for auto-selection.")
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) "
                    "to int.")


def scramble_seed(seed0: int, seed1: int) -> tuple[int, int]:
    """TF's ``GenerateKey``: ``(key, counter)`` of the Philox stream a seed pair selects.

    The two seeds (sign-extended to 64 bits) are one block's counter under a fixed key; the
    block's first two words are the key, its last two the counter's high 64 bits.
    """
    counter = (seed0 & _M64) | ((seed1 & _M64) << 64)
    mix = philox.philox4x32(_SCRAMBLE_KEY, counter, 1)[0].astype(np.uint64)
    key = int(mix[0]) | (int(mix[1]) << 32)
    return key, (int(mix[2]) | (int(mix[3]) << 32)) << 64


def _seed_pair(seed: np.ndarray) -> tuple[int, int]:
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not {list(seed.shape)}")
    return int(seed[0]), int(seed[1])


def _check_seed_shape(seed: Tensor):
    rank = seed.shape.ndims
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank}")
    if rank == 1 and seed.shape.as_tuple()[0] not in (None, 2):
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are "
                         f"{seed.shape.as_tuple()[0]} and 2")


# ── StatelessRandomGetKeyCounter ─────────────────────────────────────────────────────
def _get_key_counter_shape(seed, **attrs):
    _check_seed_shape(seed)
    return [TensorShape([1]), TensorShape([2])]


def _get_key_counter_dtype(seed, *, Tseed):
    check_dtype(seed, _SEEDS, "Tseed")
    return [dtypes.uint64, dtypes.uint64]


def _get_key_counter_kernel(seed, *, Tseed):
    key, counter = scramble_seed(*_seed_pair(seed))
    return (np.array([key], np.uint64),
            np.array([counter & _M64, counter >> 64], np.uint64))


get_key_counter_op = OpDef(
    "StatelessRandomGetKeyCounter", shape=from_tensors(_get_key_counter_shape),
    dtype=_get_key_counter_dtype, kernel=_get_key_counter_kernel, num_outputs=2,
    attrs={"Tseed": dtypes.int64}, grad=NO_GRADIENT, input_names=("seed",))


# ── The V2 ops: (shape, key, counter, alg) ───────────────────────────────────────────
def _stream(key: np.ndarray, counter: np.ndarray, alg) -> philox.PhiloxStream:
    """The Philox generator at ``(key, counter)``; ``alg`` 1 (Philox) or 3 (auto-select,
    Philox on CPU) as TF's CPU kernels accept."""
    alg = int(alg)
    if alg not in (1, 3):
        raise errors.InvalidArgumentError(None, None, f"Unsupported algorithm id: {alg}")
    if key.size < 1 or counter.size < 2:
        raise errors.InvalidArgumentError(
            None, None, f"key must have at least 1 element and counter at least 2, got "
                        f"{key.size} and {counter.size}")
    key = int(key.reshape(-1)[0].astype(np.uint64))
    c = counter.reshape(-1).astype(np.uint64)
    return philox.PhiloxStream.at(key, int(c[0]) | (int(c[1]) << 64))


def _v2_shape(shape, key, counter, alg, *rest, **attrs):
    for name, t in (("alg", alg),) + tuple(zip(("minval", "maxval"), rest)):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} for {name}")
    return _output_shape(shape)


def _check_key_counter(shape, key, counter, alg):
    check_dtype(shape, INDEX, "Tshape")
    if key is not dtypes.uint64 or counter is not dtypes.uint64 or alg is not dtypes.int32:
        raise TypeError("key and counter must be uint64 and alg int32, got "
                        f"{key.name}, {counter.name} and {alg.name}")


def _v2_float_dtype(shape, key, counter, alg, *, dtype, Tshape):
    _check_key_counter(shape, key, counter, alg)
    return check_dtype(dtype, (dtypes.float16, dtypes.float32, dtypes.float64), "dtype")


_V2_ATTRS = {"dtype": dtypes.float32, "Tshape": dtypes.int32}
_V2_INPUTS = ("shape", "key", "counter", "alg")


def _draw_floats(draw, op_type, shape, key, counter, alg, dtype):
    dims = _dims(shape, op_type)
    n = int(np.prod(dims, dtype=np.int64))
    stream = _stream(key, counter, alg)
    if n == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    return draw(stream, n, dtype.as_numpy_dtype).reshape(dims)


def _uniform_v2_kernel(shape, key, counter, alg, *, dtype, Tshape):
    return _draw_floats(philox.uniform, "StatelessRandomUniformV2", shape, key, counter,
                        alg, dtype)


def _normal_v2_kernel(shape, key, counter, alg, *, dtype, Tshape):
    return _draw_floats(philox.normal, "StatelessRandomNormalV2", shape, key, counter, alg,
                        dtype)


def _truncated_normal_v2_kernel(shape, key, counter, alg, *, dtype, Tshape):
    return _draw_floats(philox.truncated_normal, "StatelessTruncatedNormalV2", shape, key,
                        counter, alg, dtype)


def _float_v2_op(op_type, kernel):
    return OpDef(op_type, shape=from_tensors(_v2_shape), dtype=_v2_float_dtype,
                 kernel=kernel, attrs=_V2_ATTRS, grad=None, input_names=_V2_INPUTS)


stateless_random_uniform_v2_op = _float_v2_op("StatelessRandomUniformV2", _uniform_v2_kernel)
stateless_random_normal_v2_op = _float_v2_op("StatelessRandomNormalV2", _normal_v2_kernel)
stateless_truncated_normal_v2_op = _float_v2_op("StatelessTruncatedNormalV2",
                                                _truncated_normal_v2_kernel)


def _full_int_dtype(shape, key, counter, alg, *, dtype, Tshape):
    _check_key_counter(shape, key, counter, alg)
    return check_dtype(dtype, _INTS, "dtype")


def full_int_bits(stream: philox.PhiloxStream, n: int, np_dtype) -> np.ndarray:
    """``UniformFullIntDistribution``: every bit random; 64-bit values from two words
    (the first the low half)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.itemsize == 8:
        w = stream.blocks(stream.reserve_outputs(n), -(-n // 2)).astype(np.uint64)
        bits = (w[:, 0::2] | (w[:, 1::2] << np.uint64(32))).reshape(-1)[:n]
        return bits.view(np_dtype)
    w = stream.blocks(stream.reserve_outputs(n), -(-n // 4)).reshape(-1)[:n]
    return w.view(np_dtype)


def _full_int_kernel(shape, key, counter, alg, *, dtype, Tshape):
    dims = _dims(shape, "StatelessRandomUniformFullIntV2")
    n = int(np.prod(dims, dtype=np.int64))
    stream = _stream(key, counter, alg)
    return full_int_bits(stream, n, dtype.as_numpy_dtype).reshape(dims)


stateless_random_uniform_full_int_v2_op = OpDef(
    "StatelessRandomUniformFullIntV2", shape=from_tensors(_v2_shape), dtype=_full_int_dtype,
    kernel=_full_int_kernel, attrs={"dtype": dtypes.uint64, "Tshape": dtypes.int32},
    grad=None, input_names=_V2_INPUTS)


def _int_v2_dtype(shape, key, counter, alg, minval, maxval, *, dtype, Tshape):
    _check_key_counter(shape, key, counter, alg)
    check_dtype(minval, _INTS, "dtype")
    if maxval is not minval:
        raise TypeError(f"Input 'maxval' has type {maxval.name} that does not match type "
                        f"{minval.name} of argument 'minval'.")
    return minval


def _int_v2_kernel(shape, key, counter, alg, minval, maxval, *, dtype, Tshape):
    dims = _dims(shape, "StatelessRandomUniformIntV2")
    if minval.ndim or maxval.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"minval must be 0-D, got shape {list(minval.shape)}" if minval.ndim
            else f"maxval must be 0-D, got shape {list(maxval.shape)}")
    n = int(np.prod(dims, dtype=np.int64))
    stream = _stream(key, counter, alg)
    lo, hi = int(minval), int(maxval)
    if n == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    if lo >= hi:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval: {lo} >= {hi}")
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    signed = np.int64 if np_dtype.itemsize == 8 else np.int32
    out = philox.uniform_int(stream, n, lo, hi, signed)
    return out.astype(np_dtype).reshape(dims)


stateless_random_uniform_int_v2_op = OpDef(
    "StatelessRandomUniformIntV2", shape=from_tensors(_v2_shape), dtype=_int_v2_dtype,
    kernel=_int_v2_kernel, attrs={"dtype": dtypes.int64, "Tshape": dtypes.int32}, grad=None,
    input_names=_V2_INPUTS + ("minval", "maxval"))



# ── StatelessMultinomial ─────────────────────────────────────────────────────────────
def _stateless_multinomial_shape(logits, num_samples, seed, **attrs):
    _check_seed_shape(seed)
    return _multinomial_shape(logits, num_samples)


def _stateless_multinomial_dtype(logits, num_samples, seed, *, T, Tseed, output_dtype):
    check_dtype(logits, REAL, "T")
    if num_samples is not dtypes.int32:
        raise TypeError(f"Input 'num_samples' of 'StatelessMultinomial' Op has type "
                        f"{num_samples.name} that does not match expected type of int32.")
    check_dtype(seed, _SEEDS, "Tseed")
    return check_dtype(output_dtype, INDEX, "output_dtype")


def _stateless_multinomial_kernel(logits, num_samples, seed, *, T, Tseed, output_dtype):
    if T not in FLOATS:
        raise errors.InvalidArgumentError(
            None, None, "No OpKernel was registered to support Op 'StatelessMultinomial' "
                        f"with T=DT_{T.name.upper()}")
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape {list(logits.shape)}")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n}")
    batch, classes = logits.shape
    if classes <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_classes should be positive, got {classes}")
    stream = philox.PhiloxStream.at(*scramble_seed(*_seed_pair(seed)))
    out_dtype = output_dtype.as_numpy_dtype
    if batch == 0 or n == 0:
        return np.zeros((batch, n), out_dtype)
    return philox.multinomial(stream, logits, n).astype(out_dtype)


stateless_multinomial_op = OpDef(
    "StatelessMultinomial", shape=from_tensors(_stateless_multinomial_shape),
    dtype=_stateless_multinomial_dtype, kernel=_stateless_multinomial_kernel,
    attrs={"T": None, "Tseed": dtypes.int64, "output_dtype": dtypes.int64}, grad=None,
    input_names=("logits", "num_samples", "seed"))


# ── Public builders ──────────────────────────────────────────────────────────────────
def get_key_counter_alg(seed, alg):
    """TF's ``random_ops_util.get_key_counter_alg``: ``(key, counter, alg)`` for the V2 ops.

    With ``auto_select`` (the default) a ``StatelessRandomGetKeyCounter`` op scrambles the
    seed; TF builds ``philox``'s scrambling from other ops, which scopeflow does not
    reproduce, and ``threefry`` has no CPU kernel.
    """
    alg = _alg_to_int(3 if alg is None else alg)
    if alg not in (1, 2, 3):
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         "1 for the Philox algorithm, 2 for the ThreeFry algorithm, and 3 "
                         "for auto-selection.")
    if alg != 3:
        raise NotImplementedError(
            f"scopeflow's stateless random ops take alg='auto_select' only, not {alg}")
    with name_scope(None, "StatelessRandomGetKeyCounter") as scope:
        seed = convert_to_tensor(seed, name="seed")
        key, counter = get_key_counter_op.bind(seed, Tseed=seed.dtype.base_dtype, name=scope)
    return key, counter, alg


def _check_float(dtype, what):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in "
                        "list of allowed values: float16, bfloat16, float32, float64")
    return dtype


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32,
                             name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_uniform``: uniform values fixed by ``seed`` (shape ``[2]``).

    Floats: ``StatelessRandomUniformV2 * (maxval - minval) + minval``; integers with a
    range: ``StatelessRandomUniformIntV2`` (``minval + bits % range``); integers with
    ``minval = maxval = None``: ``StatelessRandomUniformFullIntV2`` (all bits random).

    >>> stateless_random_uniform([2], seed=[1, 2]).op.type
    'AddV2'
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    accepted = (dtypes.float16, dtypes.float32, dtypes.float64) + _INTS
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in accepted)}).")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and "
                             "`maxval` must be both None or not None. Got "
                             f"`minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r} when argument "
                             "`minval` is not None. Please don't use unsigned integers in "
                             "this case.")
    elif maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape = _shape_tensor(shape)
        if dtype.is_integer and minval is None:
            key, counter, alg = get_key_counter_alg(seed, alg)
            return stateless_random_uniform_full_int_v2_op.bind(
                shape, key, counter, alg, dtype=dtype, Tshape=shape.dtype.base_dtype,
                name=scope)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        key, counter, alg = get_key_counter_alg(seed, alg)
        if dtype.is_integer:
            return stateless_random_uniform_int_v2_op.bind(
                shape, key, counter, alg, minval, maxval, dtype=dtype,
                Tshape=shape.dtype.base_dtype, name=scope)
        rnd = stateless_random_uniform_v2_op.bind(shape, key, counter, alg, dtype=dtype,
                                                  Tshape=shape.dtype.base_dtype)
        scaled = math_ops.multiply(rnd, math_ops.subtract(maxval, minval, name="sub"),
                                   name="mul")
        return math_ops.add(scaled, minval, name=scope)


def _scaled(op_def, default_name, shape, seed, mean, stddev, dtype, name, alg):
    dtype = _check_float(dtype, default_name)
    with name_scope(name, default_name, [shape, seed, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = get_key_counter_alg(seed, alg)
        rnd = op_def.bind(shape, key, counter, alg, dtype=dtype,
                          Tshape=shape.dtype.base_dtype)
        return math_ops.add(math_ops.multiply(rnd, stddev, name="mul"), mean, name=scope)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                            name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_normal``: ``StatelessRandomNormalV2 * stddev + mean``.

    >>> stateless_random_normal([3], seed=[1, 2]).name
    'stateless_random_normal:0'
    """
    return _scaled(stateless_random_normal_v2_op, "stateless_random_normal", shape, seed,
                   mean, stddev, dtype, name, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select") -> Tensor:
    """``tf.random.stateless_truncated_normal``: normal values within two standard
    deviations, ``StatelessTruncatedNormalV2 * stddev + mean``.

    >>> stateless_truncated_normal([3], seed=[1, 2]).op.inputs[0].op.inputs[0].op.type
    'StatelessTruncatedNormalV2'
    """
    return _scaled(stateless_truncated_normal_v2_op, "stateless_truncated_normal", shape,
                   seed, mean, stddev, dtype, name, alg)


def _stateless_multinomial(logits, num_samples, dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype else dtypes.int64
    if dtype not in INDEX:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         "(tf.int32, tf.int64).")
    with name_scope(None, "StatelessMultinomial") as scope:
        num_samples = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        seed = convert_to_tensor(seed, name="seed")
        return stateless_multinomial_op.bind(logits, num_samples, seed,
                                             T=logits.dtype.base_dtype,
                                             Tseed=seed.dtype.base_dtype,
                                             output_dtype=dtype, name=scope)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64,
                          name=None) -> Tensor:
    """``tf.random.stateless_categorical``: ``num_samples`` class indices per row of
    ``logits``, fixed by ``seed`` (a ``StatelessMultinomial`` op).

    >>> stateless_categorical([[0.0, 1.0]], 3, seed=[1, 2]).shape.as_list()
    [1, 3]
    """
    with name_scope(name, "stateless_categorical", [logits, seed]):
        return _stateless_multinomial(logits, num_samples, dtype, seed)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64,
                          name=None) -> Tensor:
    """``tf.random.stateless_multinomial`` (TF1): ``stateless_categorical`` with
    ``output_dtype=`` and the default name ``stateless_multinomial``.

    >>> stateless_multinomial([[0.0, 1.0]], 2, seed=[1, 2]).dtype.name
    'int64'
    """
    with name_scope(name, "stateless_multinomial", [logits, seed]):
        return _stateless_multinomial(logits, num_samples, output_dtype, seed)


def split(seed, num=2, alg="auto_select") -> Tensor:
    """``tf.random.split``: ``num`` new seeds, a ``[num, 2]`` tensor of ``seed``'s dtype
    (full-range integers drawn with ``seed``).

    >>> split([1, 2], 3).shape.as_list()
    [3, 2]
    """
    seed = convert_to_tensor(seed)
    return stateless_random_uniform([num, 2], seed=seed, dtype=seed.dtype, minval=None,
                                    maxval=None, alg=alg)


def fold_in(seed, data, alg="auto_select") -> Tensor:
    """``tf.random.fold_in``: the new seed ``[random(seed), data]``, of ``data``'s dtype.

    >>> fold_in([1, 2], 3).shape.as_list()
    [2]
    """
    data = convert_to_tensor(data)
    seed1 = stateless_random_uniform([], seed=seed, dtype=data.dtype, minval=None,
                                     maxval=None, alg=alg)
    return array_ops.stack([seed1, data])



# ── RandomIndexShuffle ───────────────────────────────────────────────────────────────
_SIMON_C = 0xFFFFFFFC
_SIMON_Z = 0x7369F885192C0EF5
_INDEX_SHUFFLE_TYPES = (dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)


def _rotl(x, r, w, mask):
    return ((x << np.uint64(r)) | (x >> np.uint64(w - r))) & mask


def _rotr(x, r, w, mask):
    return ((x >> np.uint64(r)) | (x << np.uint64(w - r))) & mask


def _simon_f(x, w, mask):
    return (_rotl(x, 1, w, mask) & _rotl(x, 8, w, mask)) ^ _rotl(x, 2, w, mask)


def index_shuffle(index: np.ndarray, keys: np.ndarray, max_index: np.ndarray,
                  rounds: int) -> np.ndarray:
    """TF's ``random::index_shuffle`` on uint64 arrays: a Simon-cipher Feistel network of
    ``rounds`` rounds on blocks of ``max(16, even ceil(log2(max_index)))`` bits, walked
    until the value is at most ``max_index`` (``keys``: ``(n, 3)`` uint32 words)."""
    out = np.zeros(index.shape, np.uint64)
    with np.errstate(divide="ignore"):
        bits = np.ceil(np.log2(max_index.astype(np.float64))).astype(np.int64)
    bits = np.maximum(bits + bits % 2, 16)
    for block in np.unique(bits[max_index != 0]).tolist():
        sel = np.flatnonzero((bits == block) & (max_index != 0))
        w = block // 2
        mask = np.uint64((1 << w) - 1)
        rk = [keys[sel, i].astype(np.uint64) & mask for i in range(3)]
        z = _SIMON_Z & ((1 << w) - 1)
        c = np.uint64(_SIMON_C & ((1 << w) - 1))
        for i in range(3, rounds):
            rk.append(c ^ np.uint64(z & 1) ^ rk[i - 3] ^ _rotr(rk[i - 1], 3, w, mask)
                      ^ _rotr(rk[i - 1], 4, w, mask))
            z >>= 1
        value = index[sel].astype(np.uint64)
        todo = np.arange(sel.size)
        while todo.size:
            left = (value[todo] >> np.uint64(w)) & mask
            right = value[todo] & mask
            for i in range(0, len(rk), 2):
                left ^= _simon_f(right, w, mask)
                left ^= rk[i][todo]
                right ^= _simon_f(left, w, mask)
                right ^= rk[i + 1][todo]
            value[todo] = (left << np.uint64(w)) | right
            todo = todo[value[todo] > max_index[sel[todo]]]
        out[sel] = value
    return out


def _index_shuffle_shape(index, seed, max_index, *, rounds, dtype, Tseed):
    if seed.ndims is not None:
        dims = seed.as_tuple()
        if not ((len(dims) == 1 and dims[0] in (None, 3)) or
                (len(dims) == 2 and dims[1] in (None, 3))):
            raise ValueError(f"Seed must have shape [3] or [n, 3] but got {list(dims)}.")
    return index


def _index_shuffle_dtype(index, seed, max_index, *, rounds, dtype, Tseed):
    check_dtype(index, _INDEX_SHUFFLE_TYPES, "dtype")
    check_dtype(seed, _INDEX_SHUFFLE_TYPES, "Tseed")
    if max_index is not index:
        raise TypeError(f"Input 'max_index' of 'RandomIndexShuffle' Op has type "
                        f"{max_index.name} that does not match type {index.name} of "
                        "argument 'index'.")
    return index


def _index_shuffle_kernel(index, seed, max_index, *, rounds, dtype, Tseed):
    if rounds < 4 or rounds % 2:
        raise errors.InvalidArgumentError(
            None, None, f"rounds must be an even number >= 4, got {rounds}")
    n = index.size
    flat = index.reshape(-1).astype(np.uint64)
    top = np.broadcast_to(max_index.reshape(-1).astype(np.uint64), (n,))
    if max_index.ndim and max_index.size != n:
        raise errors.InvalidArgumentError(
            None, None, "max_index must be a scalar or have the same number of elements "
                        "as index")
    keys = np.broadcast_to(seed.reshape(-1, 3).astype(np.uint64) & np.uint64(_M32), (n, 3))
    bad = np.flatnonzero(flat > top)
    if bad.size:
        i = int(bad[0])
        raise errors.InvalidArgumentError(
            None, None, f"max_index must be >= index, but {top[i]} < {flat[i]}")
    out = index_shuffle(flat, keys, top, rounds)
    return out.astype(dtype.as_numpy_dtype).reshape(index.shape)


random_index_shuffle_op = OpDef(
    "RandomIndexShuffle", shape=_index_shuffle_shape, dtype=_index_shuffle_dtype,
    kernel=_index_shuffle_kernel, attrs={"rounds": 4, "dtype": None, "Tseed": None},
    grad=None, input_names=("index", "seed", "max_index"))


def random_index_shuffle(index, seed, max_index, rounds=4, name=None) -> Tensor:
    """``tf.random_index_shuffle``: where ``index`` goes in a pseudo-random permutation of
    ``[0, max_index]`` fixed by ``seed`` (3 integers, or one row of 3 per index).

    >>> random_index_shuffle(3, [1, 2, 3], 9).op.type
    'RandomIndexShuffle'
    """
    with name_scope(name, "RandomIndexShuffle") as scope:
        index = convert_to_tensor(index, name="index")
        seed = convert_to_tensor(seed, name="seed")
        max_index = convert_to_tensor(max_index, dtype=index.dtype.base_dtype,
                                      name="max_index")
        return random_index_shuffle_op.bind(index, seed, max_index, rounds=rounds,
                                            dtype=index.dtype.base_dtype,
                                            Tseed=seed.dtype.base_dtype, name=scope)
