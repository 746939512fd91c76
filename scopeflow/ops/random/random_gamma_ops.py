"""Gamma and Poisson samplers, TF's bits: ``RandomGamma``, ``StatelessRandomGammaV3``,
``RandomPoissonV2`` and ``StatelessRandomPoisson``.

TF's CPU kernels (``random_op.cc``, ``stateless_random_gamma_op.cc``,
``random_poisson_op.cc``) give output ``i`` (rate/alpha-major) its own Philox generator,
``256 * i`` blocks past the op's start, and run a rejection loop in double precision that
draws double normals (Box-Muller) and double uniforms from it, each block's values taken
last first. Here every output's loop runs at once, vectorised: each pass advances all the
outputs not yet accepted by one step, each with its own block position and buffers.

- gamma: Marsaglia and Tsang's transformation-rejection (``alpha < 1``: with ``alpha + 1``,
  times ``u ** (1 / alpha)``); ``alpha == 1``: an exponential ``-log1p(-u)``;
- Poisson: Knuth's product of uniforms for ``rate < 10``, Hormann's transformed rejection
  above, with the C library's ``lgamma``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math

import numpy as np

from scopeflow.framework import dtypes, errors, random_seed
from scopeflow.framework.dtype_groups import FLOATS, INDEX
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    OpDef,
    broadcast_shape,
    broadcasting,
    check_dtype,
    from_tensors,
    same_dtype,
)
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.math import libm
from scopeflow.ops.math.gamma_ops import _igamma_parts
from scopeflow.ops.random import philox
from scopeflow.ops.random.random_ops import _dims, _output_shape, _shape_tensor, _stream
from scopeflow.ops.random.stateless_random_ops import (
    _check_key_counter,
    _check_seed_shape,
    _seed_pair,
    get_key_counter_alg,
    scramble_seed,
)
from scopeflow.ops.random.stateless_random_ops import _stream as _v2_stream

__all__ = ["random_gamma", "random_poisson", "random_poisson_v2", "stateless_random_gamma",
           "stateless_random_poisson"]

_RESERVED = philox.RESERVED_PER_OUTPUT


# ── Per-output generators ────────────────────────────────────────────────────────────
class _Generators:
    """One Philox generator per output, ``256 * i`` blocks from ``start``."""

    def __init__(self, key: int, start: int, n: int):
        self.key, self.start = key, start
        self.pos = np.arange(n, dtype=np.uint64) * np.uint64(_RESERVED)

    def next_blocks(self, idx: np.ndarray) -> np.ndarray:
        """The next block of outputs ``idx``'s generators, ``(len(idx), 4)`` uint32."""
        out = philox.philox4x32(self.key, self.start, None, self.pos[idx])
        self.pos[idx] += np.uint64(1)
        return out


def _double_uniforms(w: np.ndarray) -> np.ndarray:
    return np.stack([philox._uint64_to_double(w[:, 0], w[:, 1]),
                     philox._uint64_to_double(w[:, 2], w[:, 3])], axis=1)


def _double_normals(w: np.ndarray) -> np.ndarray:
    return np.stack(philox._box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3]), axis=1)


class _Buffer:
    """TF's ``SampleBuffer`` / ``UNIFORM`` macro: a block's values, handed out last first."""

    def __init__(self, gens: _Generators, transform, n: int):
        self.gens, self.transform = gens, transform
        self.values = np.zeros((n, 2))
        self.left = np.zeros(n, np.int64)

    def draw(self, idx: np.ndarray) -> np.ndarray:
        empty = idx[self.left[idx] == 0]
        if empty.size:
            self.values[empty] = self.transform(self.gens.next_blocks(empty))
            self.left[empty] = 2
        self.left[idx] -= 1
        return self.values[idx, self.left[idx]]


def _c_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.pow, x.tolist(), y.tolist()), np.float64, count=x.size)


def _c_log1p(x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.log1p, x.tolist()), np.float64, count=x.size)


@functools.cache
def _c_lgamma():
    fn = ctypes.CDLL(ctypes.util.find_library("m") or None).lgamma
    fn.argtypes, fn.restype = [ctypes.c_double], ctypes.c_double
    return fn


def _lgamma(x: np.ndarray) -> np.ndarray:
    """The C library's ``lgamma``, as TF's kernel calls it (Python's ``math.lgamma`` is
    CPython's own)."""
    fn = _c_lgamma()
    return np.fromiter(map(fn, x.tolist()), np.float64, count=x.size)


def _to_dtype(values: np.ndarray, np_dtype) -> np.ndarray:
    """``static_cast<T>(double)``: Eigen's half converts through float."""
    if np.dtype(np_dtype) == np.float16:
        return values.astype(np.float32).astype(np.float16)
    return values.astype(np_dtype)


def _accepted(u, x, v, d):
    """Marsaglia and Tsang's test: the squeeze, and where it fails (a few percent) the
    logarithms (the C library's, element by element), as TF's ``||`` evaluates them."""
    accept = u < 1 - 0.0331 * (x * x) * (x * x)
    rest = np.flatnonzero(~accept)
    if rest.size:
        ur, xr, vr = u[rest], x[rest], v[rest]
        with np.errstate(divide="ignore", invalid="ignore"):
            accept[rest] = libm.log(ur) < 0.5 * xr * xr + d[rest] * (1 - vr + libm.log(vr))
    return accept


def gamma_samples(key: int, start: int, alpha: np.ndarray, per_alpha: int) -> np.ndarray:
    """Gamma(``alpha``, 1) samples as TF's kernels draw them, float64,
    ``(per_alpha, alpha.size)`` (output ``i`` is alpha ``i // per_alpha``)."""
    alphas = alpha.astype(np.float64).reshape(-1)
    n = alphas.size * per_alpha
    a = np.repeat(alphas, per_alpha)
    out = np.empty(n)
    gens = _Generators(key, start, n)
    normals = _Buffer(gens, _double_normals, n)
    uniforms = _Buffer(gens, _double_uniforms, n)
    one = np.flatnonzero(a == 1.0)
    if one.size:
        out[one] = -_c_log1p(-uniforms.draw(one))
    less = a < 1
    d = a + np.where(less, 2.0 / 3, -1.0 / 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1.0 / 3 / np.sqrt(d)
    active = np.flatnonzero(a != 1.0)
    bad = active[~(a[active] > 0)]       # NaN, 0 or negative alpha: no sample is accepted
    out[bad] = np.nan
    active = active[a[active] > 0]
    while active.size:
        x = normals.draw(active)
        v = 1 + c[active] * x
        positive = v > 0
        retry = active[~positive]
        active, x, v = active[positive], x[positive], v[positive]
        v = v * v * v
        u = uniforms.draw(active)
        dd = d[active]
        accept = _accepted(u, x, v, dd)
        done = active[accept]
        res = dd[accept] * v[accept]
        small = less[done]
        if small.any():
            b = uniforms.draw(done[small])
            res[small] *= _c_pow(b, 1 / a[done[small]])
        out[done] = res
        active = np.concatenate([retry, active[~accept]])
    return out.reshape(alphas.size, per_alpha).T


def _knuth_poisson(out, r, uniforms, highest):
    """Knuth's multiplication method for the small rates (``r < 10``), as TF's kernel:
    fills their entries of ``out``."""
    knuth = np.flatnonzero(r < 10)
    exp_neg = libm.exp(-r[knuth])
    prod = np.ones(knuth.size)
    x = np.zeros(knuth.size)
    live = np.arange(knuth.size)
    while live.size:
        prod[live] = prod[live] * uniforms.draw(knuth[live])
        stop = (prod[live] <= exp_neg[live]) & (x[live] <= highest)
        out[knuth[live[stop]]] = x[live[stop]]
        live = live[~stop]
        x[live] += 1


def _rejection_poisson(out, r, uniforms, highest):
    """Hormann's transformed rejection for the other rates, as TF's kernel (NaN for a NaN
    rate): fills their entries of ``out``."""
    active = np.flatnonzero(~(r < 10))
    nan = active[np.isnan(r[active])]
    out[nan] = np.nan
    active = active[~np.isnan(r[active])]
    log_rate = np.zeros(r.size)
    log_rate[active] = libm.log(r[active])
    b = 0.931 + 2.53 * np.sqrt(np.where(np.isnan(r), 0.0, np.abs(r)))
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while active.size:
        u = uniforms.draw(active) - 0.5
        v = uniforms.draw(active)
        aa, bb, ra = a[active], b[active], r[active]
        u_shifted = 0.5 - np.abs(u)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            k = np.floor((2 * aa / u_shifted + bb) * u + ra + 0.43)
        overflow = k > highest
        quick = ~overflow & (u_shifted >= 0.07) & (v <= 0.9277 - 3.6224 / (bb - 2))
        out[active[quick]] = k[quick]
        rest = ~overflow & ~quick & ~((k < 0) | ((u_shifted < 0.013) & (v > u_shifted)))
        idx = np.flatnonzero(rest)
        accept = np.zeros(active.size, bool)
        if idx.size:
            with np.errstate(divide="ignore", invalid="ignore"):
                s = libm.log(v[idx] * inv_alpha[active[idx]] /
                             (aa[idx] / (u_shifted[idx] * u_shifted[idx]) + bb[idx]))
                t = -ra[idx] + k[idx] * log_rate[active[idx]] - _lgamma(k[idx] + 1)
            ok = s <= t
            out[active[idx[ok]]] = k[idx[ok]]
            accept[idx[ok]] = True
        active = active[~(quick | accept)]


def poisson_samples(key: int, start: int, rate: np.ndarray, per_rate: int,
                    highest: float) -> np.ndarray:
    """Poisson(``rate``) samples as TF's kernel draws them (float64 counts),
    ``(per_rate, rate.size)``; ``highest``: the output type's largest value."""
    rates = rate.astype(np.float64).reshape(-1)
    n = rates.size * per_rate
    r = np.repeat(rates, per_rate)
    out = np.empty(n)
    uniforms = _Buffer(_Generators(key, start, n), _double_uniforms, n)
    # Each sample draws from its own generator, so the two methods share no bits.
    _knuth_poisson(out, r, uniforms, highest)
    _rejection_poisson(out, r, uniforms, highest)
    return out.reshape(rates.size, per_rate).T


# ── RandomGammaGrad: d sample / d alpha ──────────────────────────────────────────
def _random_gamma_grad_kernel(alpha, sample, *, T):
    """The implicit reparameterization derivative ``-(dP/da) / (dP/dx)`` of a Gamma(a, 1)
    sample ``x`` (``P`` the regularized incomplete gamma function), computed in float64
    (``gamma_ops``' series and continued fraction) and rounded once: within an ulp or so
    of Eigen's ``gamma_sample_der_alpha``, not its bits. NaN unless ``alpha > 0`` and
    ``sample >= 0``; 0 at ``sample == 0``."""
    a, x = np.broadcast_arrays(alpha.astype(np.float64), sample.astype(np.float64))
    dp_da = _igamma_parts(a, x, True)[2]
    with np.errstate(all="ignore"):
        lg = np.vectorize(math.lgamma, otypes=[np.float64])(np.where(a > 0, a, 1.0))
        log_pdf = -x + (a - 1) * np.log(x) - lg
        out = -dp_da / np.exp(log_pdf)
    out = np.where((a > 0) & (x >= 0), out, np.nan)
    out = np.where((x == 0) & (a > 0), 0.0, out)
    return out.astype(alpha.dtype)


random_gamma_grad_op = OpDef(
    "RandomGammaGrad", shape=broadcasting(broadcast_shape),
    dtype=lambda a, s, **_: check_dtype(same_dtype(a, s), (dtypes.float32, dtypes.float64),
                                        "T"),
    kernel=_random_gamma_grad_kernel, attrs={"T": None}, grad=NO_GRADIENT,
    input_names=("alpha", "sample"))


def _gamma_grad_alpha(shape, alpha, sample, grad, num_sample_dims):
    """TF's: ``sum over the sample dims of grad * RandomGammaGrad(alpha, sample)``, alpha
    given leading unit dims."""
    new_shape = array_ops.concat([array_ops.ones([num_sample_dims], dtype=dtypes.int32),
                                  array_ops.shape(alpha)], axis=0)
    alpha_broadcastable = array_ops.reshape(alpha, new_shape)
    partial_a = random_gamma_grad_op.bind(alpha_broadcastable, sample,
                                          T=alpha.dtype.base_dtype)
    return math_ops.reduce_sum(math_ops.multiply(grad, partial_a),
                               axis=math_ops.range(num_sample_dims))


def _random_gamma_grad(op, grad):
    """TF's ``_RandomGammaGrad`` (implicit differentiation, Figurnov et al. 2018)."""
    shape, alpha = op.inputs[0], op.inputs[1]
    with control_dependencies([grad]):
        return [None, _gamma_grad_alpha(shape, alpha, op.outputs[0], grad,
                                        array_ops.size(shape))]


def _stateless_gamma_grad(op, grad):
    """TF's ``_StatelessRandomGammaV3Grad``: the sample dims are ``shape``'s leading ones."""
    shape, alpha = op.inputs[0], op.inputs[4]
    with control_dependencies([grad]):
        dims = math_ops.subtract(array_ops.size(shape), array_ops.rank(alpha))
        return [None, None, None, None,
                _gamma_grad_alpha(shape, alpha, op.outputs[0], grad, dims)]


# ── RandomGamma ──────────────────────────────────────────────────────────────────────
def _append_shape(shape, param, **attrs):
    return _output_shape(shape).concatenate(param.shape)


def _random_gamma_dtype(shape, alpha, *, seed, seed2, S, T):
    check_dtype(shape, INDEX, "S")
    return check_dtype(alpha, FLOATS, "T")


def _random_gamma_kernel(ctx, shape, alpha, *, seed, seed2, S, T):
    dims = _dims(shape, "RandomGamma")
    num_samples = int(np.prod(dims, dtype=np.int64))
    out_shape = dims + alpha.shape
    stream = _stream(ctx, seed, seed2)
    if num_samples == 0:
        return np.zeros(out_shape, T.as_numpy_dtype)
    if alpha.size == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Input alpha should have non-zero element count, got: {alpha.size}")
    start = stream.reserve_outputs(num_samples * alpha.size)
    values = gamma_samples(stream.key, start, alpha, num_samples)
    return _to_dtype(values, T.as_numpy_dtype).reshape(out_shape)


random_gamma_op = OpDef(
    "RandomGamma", shape=from_tensors(_append_shape), dtype=_random_gamma_dtype,
    kernel=_random_gamma_kernel,
    attrs={"seed": 0, "seed2": 0, "S": dtypes.int32, "T": None}, stateful=True,
    grad=_random_gamma_grad, input_names=("shape", "alpha"))


def _gamma_tail(shape, alpha, beta, rnd):
    """TF's ``rnd / beta`` floored at the dtype's smallest normal value."""
    tiny = np.finfo(alpha.dtype.as_numpy_dtype).tiny
    return math_ops.maximum(tiny, math_ops.truediv(rnd, beta, name="truediv"))


def _broadcast_alpha(alpha, beta):
    shape = array_ops.broadcast_dynamic_shape(array_ops.shape(alpha), array_ops.shape(beta))
    return array_ops.broadcast_to(alpha, shape)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None,
                 name=None) -> Tensor:
    """``tf.random.gamma`` / ``tf.random_gamma``: ``shape`` samples of each
    Gamma(``alpha``, ``beta``) (``beta`` a rate), shape ``shape + broadcast(alpha, beta)``.

    >>> random_gamma([10], [0.5, 1.5]).shape.as_list()
    [10, 2]
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        alpha_broadcast = _broadcast_alpha(alpha, beta)
        seed1, seed2 = random_seed.get_seed(seed)
        rnd = random_gamma_op.bind(shape, alpha_broadcast, seed=seed1 or 0,
                                   seed2=seed2 or 0, S=dtypes.int32, T=dtype)
        return _gamma_tail(shape, alpha, beta, rnd)


# ── StatelessRandomGammaV3 ───────────────────────────────────────────────────────────
def _stateless_gamma_v3_shape(shape, key, counter, alg, alpha, **attrs):
    return _output_shape(shape)


def _stateless_gamma_v3_dtype(shape, key, counter, alg, alpha, *, dtype, shape_dtype):
    _check_key_counter(shape, key, counter, alg)
    check_dtype(alpha, FLOATS, "dtype")
    return alpha


def _stateless_gamma_v3_kernel(shape, key, counter, alg, alpha, *, dtype, shape_dtype):
    dims = _dims(shape, "StatelessRandomGammaV3")
    stream = _v2_stream(key, counter, alg)
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    if dims[len(dims) - alpha.ndim:] != alpha.shape or alpha.ndim > len(dims):
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape.")
    if alpha.size == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Input alpha should have non-zero element count, got: {alpha.size}")
    values = gamma_samples(*stream.position(), alpha, n // alpha.size)
    return _to_dtype(values, dtype.as_numpy_dtype).reshape(dims)


stateless_random_gamma_v3_op = OpDef(
    "StatelessRandomGammaV3", shape=from_tensors(_stateless_gamma_v3_shape),
    dtype=_stateless_gamma_v3_dtype, kernel=_stateless_gamma_v3_kernel,
    attrs={"dtype": None, "shape_dtype": dtypes.int32}, grad=_stateless_gamma_grad,
    input_names=("shape", "key", "counter", "alg", "alpha"))


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32,
                           name=None) -> Tensor:
    """``tf.random.stateless_gamma``: Gamma(``alpha``, ``beta``) samples of shape
    ``shape`` (which ends with ``broadcast(alpha, beta)``'s shape), fixed by ``seed``.

    >>> stateless_random_gamma([4, 2], seed=[1, 2], alpha=[1.0, 2.0]).shape.as_list()
    [4, 2]
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]):
        shape = _shape_tensor(shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        alpha_broadcast = _broadcast_alpha(alpha, beta)
        key, counter, alg = get_key_counter_alg(seed, "auto_select")
        rnd = stateless_random_gamma_v3_op.bind(shape, key, counter, alg, alpha_broadcast,
                                                dtype=dtype,
                                                shape_dtype=shape.dtype.base_dtype)
        return _gamma_tail(shape, alpha, beta, rnd)


# ── RandomPoissonV2 ──────────────────────────────────────────────────────────────────
_POISSON_OUT = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _highest(dtype) -> float:
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    info = np.finfo(np_dtype) if np_dtype.kind == "f" else np.iinfo(np_dtype)
    return float(info.max)


def _poisson_cast(values: np.ndarray, dtype) -> np.ndarray:
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if np_dtype.kind == "i":
        with np.errstate(invalid="ignore"):
            return values.astype(np_dtype)
    return _to_dtype(values, np_dtype)


def _random_poisson_dtype(shape, rate, *, seed, seed2, S, R, dtype):
    check_dtype(shape, INDEX, "S")
    check_dtype(rate, _POISSON_OUT, "R")
    return check_dtype(dtype, _POISSON_OUT, "dtype")


def _random_poisson_kernel(ctx, shape, rate, *, seed, seed2, S, R, dtype):
    dims = _dims(shape, "RandomPoissonV2")
    num_samples = int(np.prod(dims, dtype=np.int64))
    out_shape = dims + rate.shape
    stream = _stream(ctx, seed, seed2)
    if num_samples == 0 or rate.size == 0:
        return np.zeros(out_shape, dtype.as_numpy_dtype)
    start = stream.reserve_outputs(num_samples * rate.size)
    values = poisson_samples(stream.key, start, rate, num_samples, _highest(dtype))
    return _poisson_cast(values, dtype).reshape(out_shape)


random_poisson_v2_op = OpDef(
    "RandomPoissonV2", shape=from_tensors(_append_shape), dtype=_random_poisson_dtype,
    kernel=_random_poisson_kernel,
    attrs={"seed": 0, "seed2": 0, "S": dtypes.int32, "R": dtypes.float64,
           "dtype": dtypes.int64},
    stateful=True, grad=NO_GRADIENT, input_names=("shape", "rate"))


def random_poisson_v2(shape, lam, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """``tf.random.poisson`` (TF2 argument order): ``shape`` samples of each
    Poisson(``lam``), shape ``shape + lam.shape``.

    >>> random_poisson_v2([5], [1.0, 20.0]).shape.as_list()
    [5, 2]
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "random_poisson", [lam, shape]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        seed1, seed2 = random_seed.get_seed(seed)
        with name_scope(None, "RandomPoissonV2") as scope:
            lam = convert_to_tensor(lam, name="rate", preferred_dtype=dtypes.float32)
            return random_poisson_v2_op.bind(shape, lam, seed=seed1 or 0, seed2=seed2 or 0,
                                             S=dtypes.int32, R=lam.dtype.base_dtype,
                                             dtype=dtype, name=scope)


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """``tf.random.poisson`` / ``tf.random_poisson`` (TF1): ``shape`` samples of each
    Poisson(``lam``), shape ``shape + lam.shape``, a ``RandomPoissonV2`` op.

    >>> random_poisson([1.0, 20.0], [5]).shape.as_list()
    [5, 2]
    """
    return random_poisson_v2(shape, lam, dtype=dtype, seed=seed, name=name)


# ── StatelessRandomPoisson ───────────────────────────────────────────────────────────
def _stateless_poisson_shape(shape, seed, lam, **attrs):
    _check_seed_shape(seed)
    return _output_shape(shape)


def _stateless_poisson_dtype(shape, seed, lam, *, Rtype, dtype, T, Tseed):
    check_dtype(shape, INDEX, "T")
    check_dtype(seed, INDEX, "Tseed")
    check_dtype(lam, FLOATS, "Rtype")
    return check_dtype(dtype, _POISSON_OUT, "dtype")


def _stateless_poisson_kernel(shape, seed, lam, *, Rtype, dtype, T, Tseed):
    dims = _dims(shape, "StatelessRandomPoisson")
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return np.zeros(dims, dtype.as_numpy_dtype)
    if lam.size == 0 or dims[len(dims) - lam.ndim:] != lam.shape or lam.ndim > len(dims):
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape.")
    key, counter = scramble_seed(*_seed_pair(seed))
    values = poisson_samples(key, counter, lam, n // lam.size, _highest(dtype))
    return _poisson_cast(values, dtype).reshape(dims)


stateless_random_poisson_op = OpDef(
    "StatelessRandomPoisson", shape=from_tensors(_stateless_poisson_shape),
    dtype=_stateless_poisson_dtype, kernel=_stateless_poisson_kernel,
    attrs={"Rtype": None, "dtype": None, "T": dtypes.int32, "Tseed": dtypes.int64},
    grad=None, input_names=("shape", "seed", "lam"))


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """``tf.random.stateless_poisson``: Poisson(``lam``) samples of shape ``shape``
    (``lam`` broadcasts to it), fixed by ``seed``.

    >>> stateless_random_poisson([3], seed=[1, 2], lam=4.0).dtype.name
    'int32'
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "stateless_random_poisson", [shape, seed, lam]):
        shape = _shape_tensor(shape)
        with name_scope(None, "StatelessRandomPoisson") as scope:
            seed = convert_to_tensor(seed, name="seed")
            lam = convert_to_tensor(lam, name="lam", preferred_dtype=dtypes.float32)
            return stateless_random_poisson_op.bind(
                shape, seed, lam, Rtype=lam.dtype.base_dtype, dtype=dtype,
                T=shape.dtype.base_dtype, Tseed=seed.dtype.base_dtype, name=scope)

