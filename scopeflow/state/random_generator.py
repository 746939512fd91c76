"""``tf.random.Generator``: a counter-based RNG whose state lives in a variable, as TF 2.21
builds it in TF1 graph mode; and ``create_rng_state``, ``get_global_generator``,
``set_global_generator``.

Every draw reads the state and skips its counter in one op (``RngReadAndSkip``), then
feeds the old key and counter to the stateless V2 kernels (``StatelessRandomNormalV2``...),
so a generator seeded as TF's gives TF's numbers, draw after draw. The state variable is a
TF1 reference variable here (TF's is a resource variable): the same values, read and
written through the same ops. ``binomial`` (TF's ``StatefulRandomBinomial``) is not built.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.bitcast_ops import bitcast
from scopeflow.ops.random.random_ops import _shape_tensor
from scopeflow.ops.random.rng_state_ops import non_deterministic_ints, rng_read_and_skip
from scopeflow.ops.random.stateless_random_ops import (
    _alg_to_int,
    stateless_random_normal_v2_op,
    stateless_random_uniform_full_int_v2_op,
    stateless_random_uniform_int_v2_op,
    stateless_random_uniform_v2_op,
    stateless_truncated_normal_v2_op,
)
from scopeflow.state.variables import Variable

__all__ = ["Generator", "create_rng_state", "get_global_generator", "set_global_generator"]

_PHILOX, _THREEFRY, _AUTO = 1, 2, 3
_STATE_SIZE = {_PHILOX: 3, _THREEFRY: 2, _AUTO: 3}
_COUNTER_SIZE = {_PHILOX: 2, _THREEFRY: 1, _AUTO: 2}
_SEED_MASK = 2**64 - 1


def _unsupported(alg):
    return ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                      "1 for the Philox algorithm, 2 for the ThreeFry algorithm, and 3 for "
                      "auto-selection.")


def _state_size(alg) -> int:
    if alg not in _STATE_SIZE:
        raise _unsupported(alg)
    return _STATE_SIZE[alg]


def _as_int64_bits(n):
    return n - 2**64 if isinstance(n, int) and n >= 2**63 else n


def _make_1d_state(state_size, seed) -> Tensor:
    """TF's ``_make_1d_state``: an int seed chopped into 64-bit words (lowest first), or a
    vector seed; cut to ``state_size`` and zero-padded on the left."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed, words = int(seed), []
        for _ in range(state_size):
            words.append(_as_int64_bits(seed & _SEED_MASK))
            seed >>= 64
        seed = words
    elif isinstance(seed, (list, tuple)):
        seed = [_as_int64_bits(int(s)) for s in seed]
    seed = array_ops.reshape(math_ops.cast(seed, dtypes.int64), [-1])
    seed = seed[0:state_size]
    size = seed.shape.as_list()[0]
    if size is None:
        size = array_ops.shape(seed)[0]
    padding = array_ops.zeros([math_ops.maximum(state_size - size, 0)], dtypes.int64)
    seed = array_ops.concat([padding, seed], axis=0)
    seed.set_shape([state_size])
    return seed


def create_rng_state(seed, alg) -> Tensor:
    """A 1-D int64 RNG state for ``alg`` ("philox", "threefry", "auto_select" or its id) from
    an int or a vector seed: ``create_rng_state(1234, "philox")`` is ``[1234, 0, 0]``."""
    alg = _alg_to_int(alg)
    return _make_1d_state(_state_size(alg), seed)


def _state_tensor(t):
    if isinstance(t, (list, tuple)):
        t = [_as_int64_bits(int(v)) if isinstance(v, (int, np.integer)) else v for v in t]
    return convert_to_tensor(t, dtypes.int64)


class Generator:
    """A random number generator with its state in a variable (TF's
    ``tf.random.Generator``): ``Generator.from_seed(1234).normal([3])``."""

    @classmethod
    def from_state(cls, state, alg):
        """A generator starting at ``state`` (a vector or a variable)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is ``create_rng_state(seed, alg)`` (Philox by default)."""
        alg = _PHILOX if alg is None else _alg_to_int(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the OS's entropy when its variable is initialized."""
        alg = _PHILOX if alg is None else _alg_to_int(alg)
        return cls(state=non_deterministic_ints([_state_size(alg)]), alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator at Philox ``key`` (a scalar) and ``counter`` (a vector)."""
        counter, key = _state_tensor(counter), _state_tensor(key)
        alg = _alg_to_int(alg)
        counter.shape.assert_is_compatible_with([_state_size(alg) - 1])
        key.shape.assert_is_compatible_with([])
        return cls(state=array_ops.concat([counter, array_ops.reshape(key, [1])], 0), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("copy_from excludes state and alg")
            self._state_var = self._create_variable(copy_from.state)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("Generator needs both state and alg (or copy_from)")
        alg = _alg_to_int(alg)
        if isinstance(state, Variable):
            state.shape.assert_is_compatible_with([_state_size(alg)])
            self._state_var = state
        else:
            state = _state_tensor(state)
            state.shape.assert_is_compatible_with([_state_size(alg)])
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _create_variable(initial):
        with name_scope("random_generator"):
            return Variable(initial, dtype=dtypes.int64, trainable=False, name="StateVar")

    # -- state -------------------------------------------------------------------------
    @property
    def state(self):
        """The state variable (``[counter, key]``)."""
        return self._state_var

    @property
    def algorithm(self):
        """The RNG algorithm's id (1: Philox)."""
        return self._alg

    @property
    def key(self):
        """The state's key (its last element)."""
        return self._state_var[-1]

    def reset(self, state):
        """Assigns ``state`` (in graph mode the assign op is built, not returned, as TF)."""
        state = _state_tensor(state)
        state.shape.assert_is_compatible_with([_state_size(self._alg)])
        self._state_var.assign(state)

    def reset_from_seed(self, seed):
        """Assigns ``create_rng_state(seed, self.algorithm)``."""
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """Assigns the state of ``key`` and ``counter``."""
        counter, key = _state_tensor(counter), _state_tensor(key)
        counter.shape.assert_is_compatible_with([_state_size(self._alg) - 1])
        key.shape.assert_is_compatible_with([])
        self._state_var.assign(array_ops.concat([counter, array_ops.reshape(key, [1])], 0))

    def skip(self, delta):
        """The state before, then the counter advanced past ``delta`` numbers."""
        return rng_read_and_skip(self._state_var, math_ops.cast(self._alg, dtypes.int32),
                                 math_ops.cast(delta, dtypes.uint64))

    def _prepare_key_counter(self, shape):
        counter_key = self.skip(math_ops.reduce_prod(shape))
        size = _COUNTER_SIZE[self._alg]
        counter = bitcast(counter_key[:size], dtypes.uint64)
        key = bitcast(counter_key[size:size + 1], dtypes.uint64)
        return key, counter

    def _draw(self, op_def, shape, dtype, *extra, name=None):
        key, counter = self._prepare_key_counter(shape)
        attrs = {"Tshape": shape.dtype.base_dtype}
        if op_def is not stateless_random_uniform_int_v2_op:
            attrs["dtype"] = dtype
        return op_def.bind(shape, key, counter, self._alg, *extra, name=name, **attrs)

    # -- distributions -----------------------------------------------------------------
    def _scaled(self, op_def, default_name, shape, mean, stddev, dtype, name):
        with name_scope(name, default_name, [shape, mean, stddev]) as scope:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._draw(op_def, shape, dtype)
            return math_ops.add(rnd * stddev, mean, name=scope)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values: ``StatelessRandomNormalV2 * stddev + mean``."""
        return self._scaled(stateless_random_normal_v2_op, "stateful_normal", shape, mean,
                            stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values redrawn beyond two standard deviations."""
        return self._scaled(stateless_truncated_normal_v2_op, "truncated_normal", shape, mean,
                            stddev, dtype, name)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform floats in ``[minval, maxval)``, integers in ``[minval, maxval)``, or (ints
        with no bounds) all bits random."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both "
                                 f"`None` or both non-`None`; got minval={minval} and "
                                 f"maxval={maxval}")
        elif maxval is None:
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as scope:
            shape = _shape_tensor(shape)
            if dtype.is_integer and minval is None:
                return self._draw(stateless_random_uniform_full_int_v2_op, shape, dtype,
                                  name=scope)
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                return self._draw(stateless_random_uniform_int_v2_op, shape, dtype, minval,
                                  maxval, name=scope)
            rnd = self._draw(stateless_random_uniform_v2_op, shape, dtype)
            return math_ops.add(rnd * (maxval - minval), minval, name=scope)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers with every bit random."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name, "stateful_uniform_full_int", [shape]) as scope:
            shape = _shape_tensor(shape)
            return self._draw(stateless_random_uniform_full_int_v2_op, shape, dtype, name=scope)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        """TF's ``StatefulRandomBinomial``: not built in scopeflow."""
        raise NotImplementedError("tf.random.Generator.binomial (TF's StatefulRandomBinomial "
                                  "op) is not implemented in scopeflow")

    def make_seeds(self, count=1):
        """``[2, count]`` seeds for the stateless ops: random keys over zeros."""
        keys = self.uniform_full_int(shape=[count], dtype=dtypes.int64)
        return array_ops.stack([keys, array_ops.zeros_like(keys)])

    def split(self, count=1):
        """``count`` new generators keyed from this one's numbers (TF 2.21's fails to make
        their variables in TF1 graph mode; scopeflow's works)."""
        keys = self.uniform_full_int(shape=[count], dtype=dtypes.int64)
        size = _state_size(self._alg)
        return [Generator(state=array_ops.concat(
            [array_ops.zeros([size - 1], dtypes.int64), array_ops.reshape(key, [1])], 0),
            alg=self._alg) for key in array_ops.unstack(keys, num=count)]


_GLOBAL = {"generator": None}


def get_global_generator():
    """The process's generator, made from OS entropy on first use."""
    if _GLOBAL["generator"] is None:
        _GLOBAL["generator"] = Generator.from_non_deterministic_state()
    return _GLOBAL["generator"]


def set_global_generator(generator):
    """Replaces the global generator (ops built with the old one keep it)."""
    _GLOBAL["generator"] = generator
