"""Candidate samplers (log-uniform, uniform) for sampled losses, with TF seeds.

The sampler kernels replay TensorFlow's CPU kernels (``candidate_sampler_ops.cc`` and
``range_sampler.cc``) bit for bit: each run reserves ``2048 * num_sampled`` 32-bit words
of the op's Philox stream (``GuardedPhiloxRandom::ReserveSamples32``) and reads them in
order as ``random::SimplePhilox`` does. ``unique=True`` redraws repeats (rejection) and
reports ``-expm1(num_tries * log1p(-p))`` as the expected count, ``p * num_sampled``
otherwise, in float32 as the C++ kernel. The kernel's ``exp``/``log`` (double) and
``log1p``/``expm1`` (float) are the C library's, as TF's (``scopeflow.ops.math.libm``): never
NumPy's SIMD loops, whose last bit depends on the CPU (AVX2, AVX-512/SVML).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math

import numpy as np

from scopeflow.framework import dtypes, random_seed
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.math import libm
from scopeflow.ops.random import philox

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler",
           "all_candidate_sampler", "fixed_unigram_candidate_sampler",
           "compute_accidental_hits"]

# Class-probability tables (8 bytes a class) for ranges up to this, after this many runs.
_TABLE_MAX, _TABLE_AFTER_RUNS = 1 << 18, 32


# ── shared rules ─────────────────────────────────────────────────────────────────────
def _expected_counts(p: np.ndarray, batch_size: int, num_tries, log1p_neg_p=None) -> np.ndarray:
    """``ExpectedCountHelper`` in float32 arithmetic, as TF computes it (``num_tries`` a
    float32 scalar, or one per row of ``p``): ``p * batch_size`` where ``num_tries`` is
    ``batch_size``, else ``-expm1f(num_tries * log1pf(-p))`` (``log1p_neg_p``: those
    ``log1pf(-p)`` when known)."""
    p = p.astype(np.float32)
    plain = num_tries == np.float32(batch_size)
    if np.all(plain):
        return p * np.float32(batch_size)
    if log1p_neg_p is None:
        log1p_neg_p = libm.log1pf(-p)
    counts = -libm.expm1f(num_tries * log1p_neg_p)
    if np.any(plain):                              # rows that took no extra draws
        np.multiply(p, np.float32(batch_size), out=counts, where=plain)
    return counts


class _SamplerStream:
    """One sampler op's Philox stream in one session, with upcoming runs sampled ahead.

    Each run reserves ``2048 * num_sampled`` words but reads only a short prefix (about
    ``2 * num_sampled`` draws), and what it samples does not depend on its input (only
    the true classes' expected counts do). So the next runs (up to 64) are sampled
    together, vectorised over runs: one Philox evaluation, one batched first-unique
    search and one expected-count evaluation serve them all. The values are exactly those
    of the stream read run by run; a run whose prefix holds too few distinct draws reads
    the stream directly.
    """

    __slots__ = ("stream", "sampler", "num_sampled", "unique", "ahead", "batch", "pairs",
                 "runs", "table")

    def __init__(self, seed: int, seed2: int, sampler, num_sampled: int, unique: bool):
        self.stream = philox.PhiloxStream(seed, seed2)
        self.sampler, self.num_sampled, self.unique = sampler, num_sampled, unique
        self.ahead: dict[int, tuple | None] = {}
        self.batch = 1
        self.pairs = 2 * num_sampled + 16 if unique else num_sampled  # draws read ahead a run
        self.runs = 0
        self.table = None

    def position(self) -> tuple[int, int]:
        return self.stream.position()

    def set_position(self, key: int, counter: int):
        """Moves the stream (exact resume); runs sampled ahead are dropped."""
        self.stream.set_position(key, counter)
        self.ahead.clear()

    def class_table(self):
        """``(p, log1pf(-p))`` in float32 for every class, or None: used once a session
        has run the op ``_TABLE_AFTER_RUNS`` times (expected counts then look up ``p`` and
        ``log1pf(-p)`` instead of computing them), for ranges up to ``_TABLE_MAX``; built
        once a process for each sampler and range."""
        if self.table is None:
            self.runs += 1
            range_max = self.sampler.range_max
            if not hasattr(type(self.sampler), "prob"):   # tables need prob(values) alone
                return None
            if self.runs < _TABLE_AFTER_RUNS or range_max > _TABLE_MAX:
                return None
            self.table = _class_table(type(self.sampler), range_max)
        return self.table

    def next_run(self):
        """Reserves one run: ``(picked int64, num_tries, sampled_expected_count)``."""
        k = self.num_sampled
        run_blocks = 512 * k                     # ReserveSamples32(2048 * num_sampled)
        start = self.stream.reserve(run_blocks)
        if start not in self.ahead:
            self._sample_ahead(start, run_blocks)
        run = self.ahead.pop(start)
        if run is None:                          # too few distinct draws in the prefix
            run = self._sample_run(start, 2 * self.pairs)
        return run

    def _sample_ahead(self, start: int, run_blocks: int):
        """Samples the runs starting at ``start`` (``self.batch`` of them, doubling)."""
        self.ahead.clear()
        runs = self.batch
        self.batch = min(2 * self.batch, 64)
        k = self.num_sampled
        pairs = self.pairs
        offsets = (np.arange(runs, dtype=np.uint64)[:, None] * np.uint64(run_blocks)
                   + np.arange((pairs + 1) // 2, dtype=np.uint64))
        words = self.stream.blocks_at(start, offsets).reshape(runs, -1)[:, :2 * pairs]
        words = words.reshape(runs, pairs, 2).astype(np.uint64)
        values = self.sampler.sample(words[..., 0], words[..., 1])
        if self.unique:
            picked, num_tries = _first_unique_rows(values, k, self.sampler.range_max)
            # The next prefix: a quarter more than this batch's most draws, or twice as long
            # (up to 8 k) when a run needed more (such a run reads the stream directly).
            most = int(num_tries.max())
            self.pairs = (min(2 * pairs, 8 * k + 64) if num_tries.min() < 0
                          else max(k, min(2 * pairs, most + most // 4 + 8)))
        else:
            picked, num_tries = values, np.full(runs, k)
        counts = _counts_of(self, picked, num_tries.astype(np.float32)[:, None])
        for r in range(runs):
            key = (start + r * run_blocks) & ((1 << 128) - 1)
            self.ahead[key] = (None if num_tries[r] < 0 else
                               (picked[r], int(num_tries[r]), counts[r]))

    def _sample_run(self, start: int, pairs: int):
        """One run read straight from the stream, ``pairs`` draws at a time (doubling)."""
        k = self.num_sampled
        while True:
            w = self.stream.words(start, 2 * pairs).reshape(pairs, 2).astype(np.uint64)
            values = self.sampler.sample(w[:, 0], w[:, 1])[None]
            picked, num_tries = _first_unique_rows(values, k, self.sampler.range_max)
            if num_tries[0] >= 0:
                counts = _counts_of(self, picked[0], np.float32(num_tries[0]))
                return picked[0], int(num_tries[0]), counts
            pairs *= 2


@functools.lru_cache(maxsize=4)
def _class_table(sampler_type, range_max: int):
    """Read-only ``(p, log1pf(-p))`` float32 tables over ``[0, range_max)``."""
    p = sampler_type(range_max).prob(np.arange(range_max)).astype(np.float32)
    log1p_neg_p = libm.log1pf(-p)
    p.flags.writeable = log1p_neg_p.flags.writeable = False
    return p, log1p_neg_p


def _counts_of(stream: _SamplerStream, picked: np.ndarray, num_tries) -> np.ndarray:
    """The sampled classes' expected counts, from the class table when there is one."""
    if stream.table is not None:
        p, log1p_neg_p = stream.table
        return _expected_counts(p.take(picked), stream.num_sampled, num_tries,
                                log1p_neg_p.take(picked))
    return _expected_counts(stream.sampler.prob(picked), stream.num_sampled, num_tries)


def _first_unique_rows(values: np.ndarray, k: int, range_max: int):
    """Per row of ``values`` (in ``[0, range_max)``): the first ``k`` distinct values in
    order of appearance, and how many draws that took (TF's rejection loop); ``-1`` draws
    where a row has fewer."""
    n = values.shape[1]
    if range_max * n < 1 << 62:
        # Sort (value, draw) keys: plain sorts are SIMD, several times cheaper than argsort.
        keys = values * n + np.arange(n)
        keys.sort(axis=1)
        ordered, order = np.divmod(keys, n)
    else:
        order = np.argsort(values, axis=1, kind="stable")
        ordered = np.take_along_axis(values, order, axis=1)
    repeat = np.zeros(values.shape, bool)
    np.equal(ordered[:, 1:], ordered[:, :-1], out=repeat[:, 1:])
    order[repeat] = n                              # keep each value's first draw only
    order.sort(axis=1)
    pos = order[:, :k]
    num_tries = np.where(pos[:, -1] < n, pos[:, -1] + 1, -1)
    return np.take_along_axis(values, np.minimum(pos, n - 1), axis=1), num_tries


def _sample_batch(stream: _SamplerStream, true_classes: np.ndarray):
    """``RangeSampler::SampleBatchGetExpectedCount`` for one run."""
    picked, num_tries, sampled_count = stream.next_run()
    return picked, _true_counts(stream, true_classes, num_tries), sampled_count


def _true_counts(stream: _SamplerStream, true_classes: np.ndarray, num_tries: int):
    """The true classes' expected counts: from the class table when there is one and the
    classes are in range (``take`` checks the top), else computed."""
    k = stream.num_sampled
    table = stream.class_table()
    if table is not None and true_classes.size and true_classes.min() >= 0:
        try:
            if num_tries == k:
                return table[0].take(true_classes) * np.float32(k)
            return -libm.expm1f(np.float32(num_tries) * table[1].take(true_classes))
        except IndexError:
            pass
    return _expected_counts(stream.sampler.prob(true_classes), k, np.float32(num_tries))


def _sampler_shape(true_classes, *, num_true, num_sampled, unique, range_max, seed, seed2):
    dims = true_classes.with_rank(2).as_tuple() if true_classes.ndims is not None else None
    if dims is not None and dims[1] is not None and dims[1] != num_true:
        raise ValueError(f"Dimension 1 in both shapes must be equal, but are {dims[1]} and "
                         f"{num_true}")
    batch = dims[0] if dims is not None else None
    return [TensorShape([num_sampled]), TensorShape([batch, num_true]),
            TensorShape([num_sampled])]


def _sampler_dtype(true_classes, **attrs):
    check_dtype(true_classes, (dtypes.int64,), "true_classes")
    return [dtypes.int64, dtypes.float32, dtypes.float32]


def check_sampler_args(true_classes, num_true, num_sampled, unique, range_max):
    """TF's candidate samplers' run-time checks of ``true_classes`` and the range."""
    if true_classes.ndim != 2:
        raise InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise InvalidArgumentError(None, None, f"true_classes must have num_true columns, "
                                   f"expected: {true_classes.shape[1]} was: {num_true}")
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(None, None, "Sampler's range is too small.")


def _run_sampler(ctx, true_classes, make, num_true, num_sampled, unique, range_max, seed,
                 seed2):
    """The ``*CandidateSampler`` kernels, given ``make(range_max) -> sampler`` (with
    vectorised ``sample(lo_words, hi_words)`` and ``prob(values)``)."""
    check_sampler_args(true_classes, num_true, num_sampled, unique, range_max)
    stream = ctx.state.rngs.get(ctx.key)
    if stream is None:
        stream = ctx.state.rngs[ctx.key] = _SamplerStream(seed, seed2, make(range_max),
                                                          num_sampled, unique)
        restored = ctx.state.pending_rngs.pop(ctx.key, None)
        if restored is not None:
            stream.set_position(*restored)
    return _sample_batch(stream, true_classes)


# The attrs of LogUniformCandidateSampler and UniformCandidateSampler.
_SAMPLER_ATTRS = {"num_true": 1, "num_sampled": 1, "unique": False, "range_max": 1, "seed": 0,
                  "seed2": 0}


def _sampler_op(op_type, kernel):
    """A ``*CandidateSampler`` op (its kernel calls ``_run_sampler`` with its sampler)."""
    return OpDef(op_type, shape=_sampler_shape, dtype=_sampler_dtype, kernel=kernel,
                 attrs=_SAMPLER_ATTRS, num_outputs=3, stateful=True, grad=NO_GRADIENT,
                 input_names=("true_classes",))


def _bind_sampler(op_def, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    if range_max < 1:
        raise ValueError(f"{op_def.type}: range_max must be >= 1, got {range_max}")
    if num_sampled < 1 or num_true < 1:
        raise ValueError(f"{op_def.type}: num_sampled and num_true must be >= 1, got "
                         f"{num_sampled} and {num_true}")
    seed1, seed2 = random_seed.get_seed(seed)
    with name_scope(name, op_def.type) as scope:   # TF converts inside the op's scope
        if not isinstance(true_classes, Tensor):
            true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64,
                                             name="true_classes")
        return op_def.bind(true_classes, num_true=num_true, num_sampled=num_sampled,
                           unique=bool(unique), range_max=range_max, seed=seed1 or 0,
                           seed2=seed2 or 0, name=scope)


# ── LogUniformCandidateSampler ───────────────────────────────────────────────────────
class _LogUniformSampler:
    """``LogUniformSampler``: ``exp(RandDouble() * log(range + 1)) - 1``, modulo range;
    ``exp``/``log`` the C library's, as TF's kernel."""

    def __init__(self, range_max: int):
        self.range_max, self.log_range = range_max, math.log1p(range_max)

    def sample(self, x0, x1):
        # Uint64ToDouble: 20 + 32 mantissa bits; exact in float64
        u = (((x0 & np.uint64(0xFFFFF)) << np.uint64(32)) | x1).astype(np.float64) * 2.0**-52
        return (libm.trunc_exp(u * self.log_range) - 1) % self.range_max

    def prob(self, values):
        """float32 ``log((v + 2.0) / (v + 1.0)) / log_range`` (double, C library ``log``)."""
        v = np.asarray(values, np.float64)
        ratio = (v + 2.0) / (v + 1.0)
        return libm.to_float32(np.log(ratio) / self.log_range,
                               lambda at: libm.log(ratio.flat[at]) / self.log_range)


def _log_uniform_sampler_kernel(ctx, true_classes, **attrs):
    return _run_sampler(ctx, true_classes, _LogUniformSampler, **attrs)


log_uniform_candidate_sampler_op = _sampler_op("LogUniformCandidateSampler",
                                               _log_uniform_sampler_kernel)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None) -> tuple:
    """Samples classes from Zipf's law: ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``.

    Returns ``(sampled_candidates int64 [num_sampled], true_expected_count float32
    [batch, num_true], sampled_expected_count float32 [num_sampled])``.

    >>> s, t, c = log_uniform_candidate_sampler([[1], [2]], 1, 4, True, 100, seed=1)
    >>> s.op.type, s.shape.as_list(), t.shape.as_list()
    ('LogUniformCandidateSampler', [4], [2, 1])
    """
    return _bind_sampler(log_uniform_candidate_sampler_op, true_classes, num_true,
                         num_sampled, unique, range_max, seed, name)


# ── UniformCandidateSampler ──────────────────────────────────────────────────────────
class _UniformSampler:
    """``UniformSampler``: ``SimplePhilox::Uniform64``, i.e. ``Rand64() % range`` (TF's
    kernel keeps the modulo bias), each class with probability ``float(1 / range)``."""

    def __init__(self, range_max: int):
        self.range_max = range_max
        self.inv_range = np.float32(1.0 / range_max)

    def sample(self, lo, hi):
        return ((lo | (hi << np.uint64(32))) % np.uint64(self.range_max)).astype(np.int64)

    def prob(self, values):
        return np.full(np.shape(values), self.inv_range, np.float32)


def _uniform_sampler_kernel(ctx, true_classes, **attrs):
    return _run_sampler(ctx, true_classes, _UniformSampler, **attrs)


uniform_candidate_sampler_op = _sampler_op("UniformCandidateSampler", _uniform_sampler_kernel)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None) -> tuple:
    """Samples classes uniformly from ``[0, range_max)``.

    >>> s, t, c = uniform_candidate_sampler([[1, 2]], 2, 3, False, 10, seed=1)
    >>> s.op.type, c.shape.as_list()
    ('UniformCandidateSampler', [3])
    """
    return _bind_sampler(uniform_candidate_sampler_op, true_classes, num_true, num_sampled,
                         unique, range_max, seed, name)


# ── AllCandidateSampler ──────────────────────────────────────────────────────────────
def _all_sampler_shape(true_classes, *, num_true, num_sampled, unique, seed, seed2):
    dims = true_classes.with_rank(2).as_tuple() if true_classes.ndims is not None else None
    batch = dims[0] if dims is not None else None
    return [TensorShape([num_sampled]), TensorShape([batch, num_true]),
            TensorShape([num_sampled])]


def _all_sampler_kernel(ctx, true_classes, *, num_true, num_sampled, unique, seed, seed2):
    """TF's ``AllSampler`` over ``[0, num_sampled)``: every class once, each expected
    count 1; it draws no random numbers."""
    if true_classes.ndim != 2:
        raise InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise InvalidArgumentError(None, None, f"true_classes must have num_true columns, "
                                   f"expected: {true_classes.shape[1]} was: {num_true}")
    return (np.arange(num_sampled, dtype=np.int64),
            np.ones((true_classes.shape[0], num_true), np.float32),
            np.ones(num_sampled, np.float32))


all_candidate_sampler_op = OpDef(
    "AllCandidateSampler", shape=_all_sampler_shape, dtype=_sampler_dtype,
    kernel=_all_sampler_kernel,
    attrs={"num_true": 1, "num_sampled": 1, "unique": False, "seed": 0, "seed2": 0},
    num_outputs=3, stateful=True, grad=NO_GRADIENT, input_names=("true_classes",))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None,
                          name=None) -> tuple:
    """Every class of ``[0, num_sampled)`` as the sample (a test helper in TF): expected
    counts all 1.

    >>> s, t, c = all_candidate_sampler([[1, 2]], 2, 4, True)
    >>> s.op.type, s.shape.as_list(), t.shape.as_list()
    ('AllCandidateSampler', [4], [1, 2])
    """
    seed1, seed2 = random_seed.get_seed(seed)
    with name_scope(name, "AllCandidateSampler") as scope:
        if not isinstance(true_classes, Tensor):
            true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64,
                                             name="true_classes")
        return all_candidate_sampler_op.bind(true_classes, num_true=num_true,
                                             num_sampled=num_sampled, unique=bool(unique),
                                             seed=seed1 or 0, seed2=seed2 or 0, name=scope)


# ── FixedUnigramCandidateSampler ─────────────────────────────────────────────────────
@functools.cache
def _c_powf():
    fn = ctypes.CDLL(ctypes.util.find_library("m") or None).powf
    fn.argtypes, fn.restype = [ctypes.c_float, ctypes.c_float], ctypes.c_float
    return fn


class _FixedUnigramSampler:
    """TF's ``FixedUnigramSampler``: this shard's weights ``w ** distortion`` (float
    ``powf``; reserved ids weigh 0), drawn with ``DistributionSampler`` (Walker's alias
    table, built in double as TF's): a draw reads ``RandFloat()`` then
    ``Uniform(n)`` (one word each) and keeps the bucket or takes its alias."""

    def __init__(self, range_max, weights):
        self.range_max = range_max
        self.weights = np.asarray(weights, np.float32)
        total = np.float32(0)
        for w in self.weights.tolist():            # float accumulation, in order
            total = np.float32(total + np.float32(w))
        self.total = total
        self.prob_of, self.alias = self._alias_table(self.weights)

    @staticmethod
    def _alias_table(weights):
        n = len(weights)
        total = 0.0
        for w in weights.tolist():
            total += w
        pr = [(w * n) / total for w in weights.tolist()]
        alt = [-1] * n
        low = [i for i in range(n) if pr[i] < 1.0]
        high = [i for i in range(n) if not pr[i] < 1.0]
        while high and low:
            small, big = low.pop(), high.pop()
            alt[small] = big
            pr[big] = pr[big] - (1.0 - pr[small])
            (low if pr[big] < 1.0 else high).append(big)
        for i in high + low:
            pr[i], alt[i] = 1.0, i
        return np.array(pr, np.float32), np.array(alt, np.int64)

    def sample(self, x0, x1):
        r = philox._uint32_to_float(x0.astype(np.uint32))
        idx = (x1 % np.uint64(len(self.prob_of))).astype(np.int64)
        return np.where(r < self.prob_of[idx], idx, self.alias[idx])

    def probability(self, values):
        v = np.asarray(values, np.int64)
        inside = (v >= 0) & (v < len(self.weights))
        w = self.weights[np.where(inside, v, 0)]
        return np.where(inside, w / self.total, np.float32(0)).astype(np.float32)


def _unigram_weights(range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard,
                     unigrams):
    """The shard's weights as TF's ``FixedUnigramSampler`` reads them."""
    if not vocab_file and not unigrams:
        raise InvalidArgumentError(None, None, "Must provide either vocab_file or unigrams")
    if vocab_file and unigrams:
        raise InvalidArgumentError(None, None, "Must provide either vocab_file or unigrams")
    weights = [0.0 for i in range(num_reserved_ids) if i % num_shards == shard]
    word_id = len(weights)
    if vocab_file:
        with open(vocab_file, encoding="utf-8") as f:
            values = []
            for line in f.read().split("\n"):
                if line == "":
                    continue
                field = line.split(",")[-1]
                try:
                    values.append(float(np.float32(field.strip())))
                except ValueError:
                    raise InvalidArgumentError(
                        None, None, f"Wrong vocabulary format at line: {line}") from None
    else:
        values = [float(u) for u in unigrams]
    powf = _c_powf()
    for w in values:
        if word_id % num_shards == shard:
            weights.append(powf(w, distortion))
        word_id += 1
    if len(weights) != range_max:
        raise InvalidArgumentError(None, None, f"range is {range_max} must be equal to "
                                   f"weights size  {len(weights)}")
    return weights


def _fixed_unigram_kernel(ctx, true_classes, *, vocab_file, distortion, num_reserved_ids,
                          num_shards, shard, unigrams, **attrs):
    def make(range_max):
        sampler = _FixedUnigramSampler(range_max, _unigram_weights(
            range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard,
            unigrams))
        sampler.prob = sampler.probability
        return sampler
    return _run_sampler(ctx, true_classes, make, **attrs)


def _fixed_unigram_shape(true_classes, **attrs):
    return _sampler_shape(true_classes, **{k: attrs[k] for k in _SAMPLER_ATTRS})


fixed_unigram_candidate_sampler_op = OpDef(
    "FixedUnigramCandidateSampler", shape=_fixed_unigram_shape, dtype=_sampler_dtype,
    kernel=_fixed_unigram_kernel,
    attrs=dict(_SAMPLER_ATTRS, vocab_file="", distortion=1.0, num_reserved_ids=0,
               num_shards=1, shard=0, unigrams=[]),
    num_outputs=3, stateful=True, grad=NO_GRADIENT, input_names=("true_classes",))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None) -> tuple:
    """Samples classes by given unigram weights (``unigrams`` or the last column of each
    line of ``vocab_file``) raised to ``distortion``, TF's ``FixedUnigramCandidateSampler``.

    >>> s, t, c = fixed_unigram_candidate_sampler([[1]], 1, 2, False, 3, unigrams=[1, 2, 3])
    >>> s.op.type
    'FixedUnigramCandidateSampler'
    """
    if range_max < 1:
        raise ValueError(f"FixedUnigramCandidateSampler: range_max must be >= 1, got "
                         f"{range_max}")
    seed1, seed2 = random_seed.get_seed(seed)
    with name_scope(name, "FixedUnigramCandidateSampler") as scope:
        if not isinstance(true_classes, Tensor):
            true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64,
                                             name="true_classes")
        return fixed_unigram_candidate_sampler_op.bind(
            true_classes, num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
            range_max=range_max, vocab_file=vocab_file, distortion=float(distortion),
            num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
            unigrams=[float(u) for u in unigrams], seed=seed1 or 0, seed2=seed2 or 0,
            name=scope)


# ── ComputeAccidentalHits ────────────────────────────────────────────────────────────
def _compute_accidental_hits_shape(true_classes, sampled_candidates, *, num_true, seed,
                                   seed2):
    true_classes.with_rank(2)
    sampled_candidates.with_rank(1)
    return [TensorShape([None])] * 3


def _compute_accidental_hits_dtype(true_classes, sampled_candidates, **attrs):
    check_dtype(true_classes, (dtypes.int64,), "true_classes")
    check_dtype(sampled_candidates, (dtypes.int64,), "sampled_candidates")
    return [dtypes.int32, dtypes.int64, dtypes.float32]


def _compute_accidental_hits_kernel(true_classes, sampled_candidates, *, num_true, seed,
                                    seed2):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise InvalidArgumentError(None, None,
                                   "true_candidates must be a batch_size * num_true matrix")
    if sampled_candidates.ndim != 1:
        raise InvalidArgumentError(None, None, "sampled_candidates must be a vector, which is "
                                   "typically an output from CandidateSampler")
    # a repeated candidate maps to its last position, as TF's unordered_map insertion
    pos = {c: i for i, c in enumerate(sampled_candidates.tolist())}
    rows, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for c in row:
            j = pos.get(c)
            if j is not None:
                rows.append(i)
                ids.append(j)
    weights = np.full(len(rows), -np.finfo(np.float32).max, np.float32)
    return np.array(rows, np.int32), np.array(ids, np.int64), weights


compute_accidental_hits_op = OpDef(
    "ComputeAccidentalHits", shape=_compute_accidental_hits_shape,
    dtype=_compute_accidental_hits_dtype, kernel=_compute_accidental_hits_kernel,
    attrs={"num_true": 1, "seed": 0, "seed2": 0}, num_outputs=3, grad=NO_GRADIENT,
    input_names=("true_classes", "sampled_candidates"))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None) -> tuple:
    """Where a sampled candidate equals a true class: ``(indices int32, ids int64,
    weights float32 = -FLT_MAX)``, one entry per hit (row, position in the sample).

    >>> i, ids, w = compute_accidental_hits([[1], [5]], [5, 7, 1], 1)
    >>> i.op.type, w.dtype.name
    ('ComputeAccidentalHits', 'float32')
    """
    seed1, seed2 = random_seed.get_seed(seed)
    if not isinstance(true_classes, Tensor):
        true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64)
    if not isinstance(sampled_candidates, Tensor):
        sampled_candidates = convert_to_tensor(sampled_candidates, dtype=dtypes.int64)
    return compute_accidental_hits_op.bind(true_classes, sampled_candidates, num_true=num_true,
                                           seed=seed1 or 0, seed2=seed2 or 0, name=name)
