"""Fractional max and average pooling (Graham, 2014): ``FractionalMaxPool``,
``FractionalAvgPool`` and their gradient ops, as TF 2.21's CPU kernels.

Each run draws the row and then the column pooling sequence from a Philox generator made
afresh from the ``seed``/``seed2`` attrs (TF's ``GuardedPhiloxRandom``; both 0: seeded
from the OS, so a different pooling each run, and TF then requires ``deterministic`` to
be false). Pseudo-random: one double ``u`` from two words, boundaries
``ceil(alpha * (i + u))``; random: ``k`` and ``k + 1`` long windows shuffled with TF's
Fisher-Yates over single words (``word % n``). ``overlapping`` windows also take the next
boundary's row/column. The gradient ops take the pooling sequences back: the max one adds
each output gradient at the first maximum of its window (row-major), the average one
spreads it evenly. The static shape of the sequence outputs is TF's: the output length,
although they hold one more boundary.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.random.philox import PhiloxStream

__all__ = ["fractional_max_pool", "fractional_avg_pool"]

_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_ATTRS = {"pooling_ratio": None, "pseudo_random": False, "overlapping": False,
          "deterministic": False, "seed": 0, "seed2": 0}


# ── TF's pooling sequences ───────────────────────────────────────────────────────────
def _pseudo_random_diff(n_in, n_out, stream):
    alpha = n_in / n_out
    k = n_in // n_out
    max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
    hi, lo = stream.words(stream.reserve32(2), 2)
    man = ((int(hi) & 0xFFFFF) << 32) | int(lo)
    u = (np.array([man | (1023 << 52)], np.uint64).view(np.float64)[0] - 1.0) * max_u
    cum = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
    return np.diff(cum)


def _random_diff(n_in, n_out, stream):
    k, extra = divmod(n_in, n_out)
    diff = np.full(n_out, k, np.int64)
    diff[:extra] += 1
    words = stream.words(stream.reserve32(n_out), max(n_out - 1, 0))
    for i, w in enumerate(words):          # TF's RandomShuffle: swap i, i + word % (n - i)
        j = i + int(w) % (n_out - i)
        diff[i], diff[j] = diff[j], diff[i]
    return diff


def pooling_sequence(n_in, n_out, stream, pseudo_random):
    """TF's ``GeneratePoolingSequence``: the ``n_out + 1`` window boundaries. A length
    the output divides draws too (its windows come out equal), as in TF."""
    if pseudo_random:
        diff = _pseudo_random_diff(n_in, n_out, stream)
    else:
        diff = _random_diff(n_in, n_out, stream)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


# ── Pooling along one axis (separable: rows, then columns) ───────────────────────────
def _window_matrix(seq, n_in, overlapping):
    """``[n_out, n_in]`` 0/1: which input positions each window covers."""
    pos = np.arange(n_in)
    ends = seq[1:] if overlapping else seq[1:] - 1
    ends = np.minimum(ends, n_in - 1)
    return (pos >= seq[:-1, None]) & (pos <= ends[:, None])


def _max_along(x, seq, axis, overlapping):
    out = np.maximum.reduceat(x, seq[:-1], axis=axis)
    if overlapping:
        nxt = seq[1:]
        inside = nxt < x.shape[axis]
        taken = np.take(x, np.minimum(nxt, x.shape[axis] - 1), axis=axis)
        shape = [1] * x.ndim
        shape[axis] = -1
        out = np.where(inside.reshape(shape), np.maximum(out, taken), out)
    return out


def _check_attrs(x_shape, attrs):
    ratio = attrs["pooling_ratio"]
    if not attrs["deterministic"] and (attrs["seed"] or attrs["seed2"]):
        raise InvalidArgumentError(
            None, None, "Both seed and seed2 should be 0 if deterministic is false.")
    if ratio[0] != 1 or ratio[3] != 1:
        raise InvalidArgumentError(
            None, None, "Pooling is not yet supported on the batch nor channel dimension.")
    for i, (n, r) in enumerate(zip(x_shape, ratio)):
        if n < r:  # TF's check (so an empty batch or channel dimension fails too)
            raise InvalidArgumentError(
                None, None, f"Pooling ratio is higher than input dimension size for dimension "
                f"{i}. Input dim size: {n} pooling ratio: {r}")
    return [int(math.floor(n / r)) for n, r in zip(x_shape, ratio)]


def _sequences(x_shape, attrs):
    out = _check_attrs(x_shape, attrs)
    for d in (1, 2):
        if out[d] <= 0:
            raise InvalidArgumentError(
                None, None, f"Output dimension {d} must be positive, got {out[d]} (input "
                f"{x_shape[d]}, pooling ratio {attrs['pooling_ratio'][d]})")
    stream = PhiloxStream(attrs["seed"], attrs["seed2"])
    rows = pooling_sequence(x_shape[1], out[1], stream, attrs["pseudo_random"])
    cols = pooling_sequence(x_shape[2], out[2], stream, attrs["pseudo_random"])
    return rows, cols


def _pool_shape(x, **attrs):
    ratio = attrs["pooling_ratio"]
    if len(ratio) != 4:
        raise ValueError(f"pooling_ratio field must specify 4 dimensions, got {len(ratio)}")
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    dims = x.as_tuple() if x.ndims is not None else (None,) * 4
    out = [None if n is None else int(math.floor(n / r)) for n, r in zip(dims, ratio)]
    return [TensorShape(out), TensorShape([out[1]]), TensorShape([out[2]])]


def _pool_dtype(x, **attrs):
    return [check_dtype(x, _TYPES, "value"), dtypes.int64, dtypes.int64]


def _max_pool_kernel(x, **attrs):
    rows, cols = _sequences(x.shape, attrs)
    y = _max_along(_max_along(x, rows, 1, attrs["overlapping"]), cols, 2,
                   attrs["overlapping"])
    return y, rows, cols


def _avg_pool_kernel(x, **attrs):
    rows, cols = _sequences(x.shape, attrs)
    r = _window_matrix(rows, x.shape[1], attrs["overlapping"]).astype(x.dtype)
    c = _window_matrix(cols, x.shape[2], attrs["overlapping"]).astype(x.dtype)
    total = np.einsum("ih,nhwc,jw->nijc", r, x, c)
    count = np.outer(r.sum(1), c.sum(1))[None, :, :, None]
    if x.dtype.kind in "iu":
        return total // count.astype(x.dtype), rows, cols
    return (total / count).astype(x.dtype), rows, cols


fractional_max_pool_op = OpDef(
    "FractionalMaxPool", shape=_pool_shape, dtype=_pool_dtype, kernel=_max_pool_kernel,
    attrs=_ATTRS, num_outputs=3, stateful=False, input_names=("value",))
fractional_avg_pool_op = OpDef(
    "FractionalAvgPool", shape=_pool_shape, dtype=_pool_dtype, kernel=_avg_pool_kernel,
    attrs=_ATTRS, num_outputs=3, stateful=False, input_names=("value",))


# ── The gradient ops ─────────────────────────────────────────────────────────────────
def _max_grad_shape(x, y, dy, rows, cols, **attrs):
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    return x if x.ndims is not None else TensorShape([None] * 4)


def _max_grad_dtype(x, y, dy, rows, cols, **attrs):
    return check_dtype(x, _TYPES, "orig_input")


def _max_grad_kernel(x, y, dy, rows, cols, *, overlapping):
    """Each output gradient lands on its window's first maximum (row-major order)."""
    n, h, w, ch = x.shape
    grad = np.zeros_like(dy, shape=x.shape)
    r_end = np.minimum(rows[1:] if overlapping else rows[1:] - 1, h - 1)
    c_end = np.minimum(cols[1:] if overlapping else cols[1:] - 1, w - 1)
    b_idx, c_idx = np.meshgrid(np.arange(n), np.arange(ch), indexing="ij")
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            win = x[:, rows[i]:r_end[i] + 1, cols[j]:c_end[j] + 1, :]
            ww = win.shape[2]
            flat = np.argmax(win.reshape(n, -1, ch), axis=1)       # [n, ch]
            np.add.at(grad, (b_idx, rows[i] + flat // ww, cols[j] + flat % ww, c_idx),
                      dy[:, i, j, :])
    return grad


fractional_max_pool_grad_op = OpDef(
    "FractionalMaxPoolGrad", shape=_max_grad_shape, dtype=_max_grad_dtype,
    kernel=_max_grad_kernel, attrs={"overlapping": False}, grad=NO_GRADIENT,
    input_names=("orig_input", "orig_output", "out_backprop", "row_pooling_sequence",
                 "col_pooling_sequence"))


@from_tensors
def _avg_grad_shape(shape_t, dy, rows, cols, **attrs):
    value = constant_value(shape_t)
    if value is not None:
        return TensorShape([int(v) for v in np.asarray(value).ravel()])
    return TensorShape([None] * 4)


def _avg_grad_dtype(shape_t, dy, rows, cols, **attrs):
    return check_dtype(dy, _TYPES, "out_backprop")


def _avg_grad_kernel(shape_v, dy, rows, cols, *, overlapping):
    """Each output gradient spread evenly over its window."""
    _, h, w, _ = (int(v) for v in shape_v)
    r = _window_matrix(rows, h, overlapping).astype(np.float64)
    c = _window_matrix(cols, w, overlapping).astype(np.float64)
    count = np.outer(r.sum(1), c.sum(1))[None, :, :, None]
    share = dy.astype(np.float64) / count
    return np.einsum("ih,nijc,jw->nhwc", r, share, c).astype(dy.dtype)


fractional_avg_pool_grad_op = OpDef(
    "FractionalAvgPoolGrad", shape=_avg_grad_shape, dtype=_avg_grad_dtype,
    kernel=_avg_grad_kernel, attrs={"overlapping": False}, grad=NO_GRADIENT,
    input_names=("orig_input_tensor_shape", "out_backprop", "row_pooling_sequence",
                 "col_pooling_sequence"))


@fractional_max_pool_op.def_grad
def _fractional_max_pool_grad(op, dy, _unused_rows, _unused_cols):
    return [fractional_max_pool_grad_op.bind(
        op.inputs[0], op.outputs[0], dy, op.outputs[1], op.outputs[2],
        overlapping=op.get_attr("overlapping"))]


@fractional_avg_pool_op.def_grad
def _fractional_avg_pool_grad(op, dy, _unused_rows, _unused_cols):
    shape = op.inputs[0].shape
    return [fractional_avg_pool_grad_op.bind(
        np.asarray(shape.as_list(), np.int64), dy, op.outputs[1], op.outputs[2],
        overlapping=op.get_attr("overlapping"))]


# ── Public builders (TF1's signatures) ───────────────────────────────────────────────
FractionalMaxPool = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])
FractionalAvgPool = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])


def _attrs(op_type, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2):
    if len(pooling_ratio) < 4:
        raise ValueError(f"Attr 'pooling_ratio' of '{op_type}' Op passed list of length "
                         f"{len(pooling_ratio)} less than minimum 4.")
    return {"pooling_ratio": [float(r) for r in pooling_ratio],
            "pseudo_random": bool(pseudo_random), "overlapping": bool(overlapping),
            "deterministic": bool(deterministic), "seed": int(seed), "seed2": int(seed2)}


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0,
                        name=None) -> FractionalMaxPool:
    """Max pooling over randomly sized windows, NHWC; ``(output, row_pooling_sequence,
    col_pooling_sequence)``. ``pooling_ratio``: 4 floats, 1 for batch and channels.

    >>> r = tf.nn.fractional_max_pool(tf.ones([1, 10, 9, 1]), [1., 1.5, 1.5, 1.])
    >>> r.output.shape.as_list()
    [1, 6, 6, 1]
    """
    return FractionalMaxPool(*fractional_max_pool_op.bind(
        value, name=name, **_attrs("FractionalMaxPool", pooling_ratio, pseudo_random,
                                   overlapping, deterministic, seed, seed2)))


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0,
                        name=None) -> FractionalAvgPool:
    """Average pooling over randomly sized windows: ``fractional_max_pool``'s windows,
    each output the mean of its window."""
    return FractionalAvgPool(*fractional_avg_pool_op.bind(
        value, name=name, **_attrs("FractionalAvgPool", pooling_ratio, pseudo_random,
                                   overlapping, deterministic, seed, seed2)))

