"""Candidate samplers (log-uniform, uniform) for sampled losses, with TF seeds.

The sampler kernels replay TensorFlow's CPU kernels (``candidate_sampler_ops.cc`` and
``range_sampler.cc``) bit for bit: each run reserves ``2048 * num_sampled`` 32-bit words
of the op's Philox stream (``GuardedPhiloxRandom::ReserveSamples32``) and reads them in
order as ``random::SimplePhilox`` does. ``unique=True`` redraws repeats (rejection) and
reports ``-expm1(num_tries * log1p(-p))`` as the expected count, ``p * num_sampled``
otherwise. The float arithmetic goes through the C library (``math`` for doubles,
``libm``'s ``log1pf``/``expm1f`` for floats), as the C++ kernel does.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from scopeflow.framework import dtypes, random_seed
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import philox

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler",
           "compute_accidental_hits"]

# ── shared rules ─────────────────────────────────────────────────────────────────────
def _load_libm_float(name):
    """``float f(float)`` from the C library (TF's ``std::log1p(float)``), or None."""
    path = ctypes.util.find_library("m")
    try:
        fn = getattr(ctypes.CDLL(path), name)
    except (OSError, AttributeError, TypeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


_log1pf = _load_libm_float("log1pf")
_expm1f = _load_libm_float("expm1f")


def _expected_count(p: float, batch_size: int, num_tries: int) -> float:
    """``ExpectedCountHelper`` in float32 arithmetic, as TF computes it."""
    p = np.float32(p)
    if num_tries == batch_size:
        return float(p * np.float32(batch_size))
    if _log1pf is not None and _expm1f is not None:
        logq = np.float32(_log1pf(float(-p)))
        return -float(np.float32(_expm1f(float(np.float32(num_tries) * logq))))
    logq = np.log1p(-p)                           # NOTE: NumPy may differ by an ulp here
    return -float(np.expm1(np.float32(num_tries) * logq))


class _Words:
    """``SimplePhilox`` over one reserved region: 32-bit words in order, on demand."""

    def __init__(self, stream: philox.PhiloxStream, start: int, reserved: int):
        self._stream, self._start = stream, start
        self._words = stream.words(start, min(reserved, 512))
        self._pos = 0

    def take(self, n: int) -> np.ndarray:
        end = self._pos + n
        if end > len(self._words):
            # past the fast path: regenerate a longer prefix (the counter simply runs on)
            self._words = self._stream.words(self._start, max(2 * len(self._words), end))
        out = self._words[self._pos:end]
        self._pos = end
        return out

    def rand_double(self) -> float:
        x0, x1 = self.take(2).tolist()
        return _bits_to_double(((x0 & 0xFFFFF) << 32) | x1)

    def rand64(self) -> int:
        lo, hi = self.take(2).tolist()
        return lo | (hi << 32)


def _bits_to_double(mantissa: int) -> float:
    """``Uint64ToDouble``: 52 random mantissa bits as a double in [0, 1)."""
    return math.ldexp(mantissa, -52)


def _log_uniform_sample(rnd: _Words, range_max: int, log_range: float) -> int:
    value = int(math.exp(rnd.rand_double() * log_range)) - 1
    return value % range_max


def _log_uniform_prob(value: int, log_range: float) -> float:
    return math.log((value + 2.0) / (value + 1.0)) / log_range


def _uniform_sample(rnd: _Words, range_max: int) -> int:
    """``SimplePhilox::Uniform64``: ``Rand64() % range_max`` (TF's kernel keeps the bias)."""
    return rnd.rand64() % range_max


def _sample_batch(sample, prob, rnd, num_sampled, unique, true_classes):
    """``RangeSampler::SampleBatchGetExpectedCount``."""
    if unique:
        used, picked, num_tries = set(), [], 0
        while len(picked) < num_sampled:
            num_tries += 1
            value = sample(rnd)
            if value not in used:
                used.add(value)
                picked.append(value)
    else:
        picked = [sample(rnd) for _ in range(num_sampled)]
        num_tries = num_sampled
    sampled_count = [_expected_count(prob(v), num_sampled, num_tries) for v in picked]
    true_count = [_expected_count(prob(v), num_sampled, num_tries)
                  for v in true_classes.reshape(-1).tolist()]
    return (np.array(picked, np.int64), np.array(true_count, np.float32).reshape(
        true_classes.shape), np.array(sampled_count, np.float32))


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


def _sampler_kernel(make):
    """A ``*CandidateSampler`` kernel from ``make(range_max) -> (sample, prob)``."""

    def kernel(ctx, true_classes, *, num_true, num_sampled, unique, range_max, seed, seed2):
        if true_classes.ndim != 2:
            raise InvalidArgumentError(None, None, "true_classes must be a matrix")
        if true_classes.shape[1] != num_true:
            raise InvalidArgumentError(None, None, f"true_classes must have num_true columns, "
                                       f"expected: {true_classes.shape[1]} was: {num_true}")
        if unique and num_sampled > range_max:
            raise InvalidArgumentError(None, None, "Sampler's range is too small.")
        stream = ctx.state.rngs.get(ctx.key)
        if stream is None:
            stream = ctx.state.rngs[ctx.key] = philox.PhiloxStream(seed, seed2)
        reserved = 2048 * num_sampled
        rnd = _Words(stream, stream.reserve32(reserved), reserved)
        sample, prob = make(range_max)
        return _sample_batch(sample, prob, rnd, num_sampled, unique, true_classes)

    return kernel


def _sampler_op(op_type, make):
    kernel = _sampler_kernel(make)
    kernel.__name__ = kernel.__qualname__ = f"_{op_type.lower()}_kernel"
    return OpDef(op_type, shape=_sampler_shape, dtype=_sampler_dtype, kernel=kernel,
                 attrs={"num_true": 1, "num_sampled": 1, "unique": False, "range_max": 1,
                        "seed": 0, "seed2": 0},
                 num_outputs=3, stateful=True, grad=None, input_names=("true_classes",))


def _bind_sampler(op_def, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    from scopeflow.framework.graph import convert_to_tensor
    if range_max < 1:
        raise ValueError(f"{op_def.type}: range_max must be >= 1, got {range_max}")
    if num_sampled < 1 or num_true < 1:
        raise ValueError(f"{op_def.type}: num_sampled and num_true must be >= 1, got "
                         f"{num_sampled} and {num_true}")
    seed1, seed2 = random_seed.get_seed(seed)
    if not isinstance(true_classes, Tensor):
        true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64)
    return op_def.bind(true_classes, num_true=num_true, num_sampled=num_sampled,
                       unique=bool(unique), range_max=range_max, seed=seed1 or 0,
                       seed2=seed2 or 0, name=name)


# ── LogUniformCandidateSampler ───────────────────────────────────────────────────────
def _log_uniform_sampler(range_max):
    log_range = math.log1p(range_max)
    return (lambda rnd: _log_uniform_sample(rnd, range_max, log_range),
            lambda v: _log_uniform_prob(v, log_range))


log_uniform_candidate_sampler_op = _sampler_op("LogUniformCandidateSampler",
                                               _log_uniform_sampler)


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
def _uniform_sampler(range_max):
    inv_range = float(np.float32(1.0 / range_max))
    return (lambda rnd: _uniform_sample(rnd, range_max), lambda v: inv_range)


uniform_candidate_sampler_op = _sampler_op("UniformCandidateSampler", _uniform_sampler)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None) -> tuple:
    """Samples classes uniformly from ``[0, range_max)``.

    >>> s, t, c = uniform_candidate_sampler([[1, 2]], 2, 3, False, 10, seed=1)
    >>> s.op.type, c.shape.as_list()
    ('UniformCandidateSampler', [3])
    """
    return _bind_sampler(uniform_candidate_sampler_op, true_classes, num_true, num_sampled,
                         unique, range_max, seed, name)


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
    attrs={"num_true": 1, "seed": 0, "seed2": 0}, num_outputs=3, grad=None,
    input_names=("true_classes", "sampled_candidates"))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None) -> tuple:
    """Where a sampled candidate equals a true class: ``(indices int32, ids int64,
    weights float32 = -FLT_MAX)``, one entry per hit (row, position in the sample).

    >>> i, ids, w = compute_accidental_hits([[1], [5]], [5, 7, 1], 1)
    >>> i.op.type, w.dtype.name
    ('ComputeAccidentalHits', 'float32')
    """
    from scopeflow.framework.graph import convert_to_tensor
    seed1, seed2 = random_seed.get_seed(seed)
    if not isinstance(true_classes, Tensor):
        true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64)
    if not isinstance(sampled_candidates, Tensor):
        sampled_candidates = convert_to_tensor(sampled_candidates, dtype=dtypes.int64)
    return compute_accidental_hits_op.bind(true_classes, sampled_candidates, num_true=num_true,
                                           seed=seed1 or 0, seed2=seed2 or 0, name=name)
