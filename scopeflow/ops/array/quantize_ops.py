"""Quantization: the ``QuantizeV2``, ``Dequantize`` and ``QuantizedConcat`` ops
(``tf.quantize``, ``tf.quantize_v2``, ``tf.dequantize``, ``tf.quantized_concat``).

A quantized tensor is integers (``qint8``, ``quint8``, ``qint16``, ``quint16``,
``qint32``) plus the float range ``[min, max]`` they stand for. The kernels follow TF's
CPU kernels (``quantize_op.cc``, ``dequantize_op.cc``, ``quantized_concat_op.cc``) in
float32, as TF computes them, so the integers are TF's to the bit:

* ``MIN_COMBINED``: ``[min, max]`` maps linearly onto the type's whole range (signed types
  shifted by half the range); ``round`` rounds half away from zero.
* ``MIN_FIRST``: ``min`` maps to the lowest integer, with TF's ``range_adjust`` of
  ``2**bits / (2**bits - 1)``; rounding of ``x * scale`` and ``min * scale`` apart.
* ``SCALED``: symmetric: one scale from whichever end of the range is tighter, zero maps
  to zero, ``narrow_range`` leaves out the lowest integer; the range TF returns is the one
  the scale covers. Only SCALED takes ``round_mode="HALF_TO_EVEN"``; the others refuse it
  when the op runs, as TF.

QuantizeV2 first widens the range to include 0 and to span at least
``ensure_minimum_range`` times the larger of 1 and its largest end. With ``axis``, min and
max are vectors, one range per slice along that axis (not for MIN_FIRST, which TF leaves
unimplemented). None of these ops has a gradient in TF (none is registered).

Float-to-integer conversions keep x86's behaviour where TF's C++ casts leave it to the
CPU: NaN (which the clamps let through) becomes 0 where Eigen converts through ``lrint``
(MIN_COMBINED, SCALED) and int32's lowest, truncated to the type, where TF goes through an
int32 first (MIN_FIRST).
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, from_tensors, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.slicing_ops import _concat_shape as concat_shape

__all__ = ["quantize", "quantize_v2", "dequantize", "quantized_concat"]

_F32 = np.float32
QUANTIZED = (dtypes.qint8, dtypes.quint8, dtypes.qint32, dtypes.qint16, dtypes.quint16)
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_ROUND_MODES = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")

QuantizeV2Outputs = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcatOutputs = collections.namedtuple("QuantizedConcat",
                                                ["output", "output_min", "output_max"])


def limits(dtype):
    """(lowest, highest) integer of a quantized type, and its storage dtype."""
    storage = dtypes.storage_dtype(dtype)
    info = np.iinfo(storage)
    return int(info.min), int(info.max), storage


def round_half_away(v):
    """``std::round``/Eigen's ``round``: halves away from zero."""
    return np.copysign(np.floor(np.abs(v) + _F32(0.5)), v).astype(v.dtype)


def flush_denormals(v):
    """float32 ``v`` with subnormals as (signed) zero: TF's CPU threads run with
    flush-to-zero and denormals-are-zero set, so a scale of 1/FLT_MAX is 0 there."""
    v = np.asarray(v, _F32)
    return np.where(np.abs(v) < np.finfo(_F32).tiny, v * _F32(0), v).astype(_F32)


def to_quantized(v, storage):
    """Float values (already rounded) as ``storage`` integers the way Eigen's quantized
    types take a float, ``lrint`` to a 64-bit long, then narrowed: NaN (which the clamps let
    through) is the long's lowest, whose low bits are 0."""
    v = np.asarray(v, np.float64)
    ok = np.abs(v) < 2.0 ** 63
    return np.where(ok, v, -2.0 ** 63).astype(np.int64).astype(storage)


def via_int32(v, storage):
    """Float values (already rounded) through an int32 first, as x86 converts them: NaN
    and values outside int32 become int32's lowest, then narrow by truncation."""
    v = np.asarray(v, np.float64)
    ok = (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    return np.where(ok, v, -2.0 ** 31).astype(np.int64).astype(storage)


def _check_attrs(op_type, mode, round_mode=None):
    if mode not in _MODES:
        raise ValueError(f"Attr 'mode' of '{op_type}' Op passed string '{mode}' not in: "
                         '"MIN_COMBINED", "MIN_FIRST", "SCALED".')
    if round_mode is not None and round_mode not in _ROUND_MODES:
        raise ValueError(f"Attr 'round_mode' of '{op_type}' Op passed string '{round_mode}' "
                         'not in: "HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN".')


def _range_rank(s, axis, what):
    """min/max: scalars without ``axis``, vectors with it (TF's shape function)."""
    want = 0 if axis == -1 else 1
    if s.ndims is not None and s.ndims != want:
        raise ValueError(f"Shape must be rank {want} but is rank {s.ndims}")
    return s


def _axis_shape(x, lo, hi, axis):
    """The shape of QuantizeV2's/Dequantize's min and max outputs: scalars, or with
    ``axis`` vectors of the input's size along it (merged with the given min/max)."""
    _range_rank(lo, axis, "min_range")
    _range_rank(hi, axis, "max_range")
    if axis == -1:
        return TensorShape([])
    if x.ndims is not None and axis >= x.ndims:
        raise ValueError(f"Shape must be at least rank {axis + 1} but is rank {x.ndims}")
    depth = TensorShape([None if x.ndims is None else x.as_tuple()[axis]])
    return merge_shapes(merge_shapes(depth, lo), hi)


def _per_slice(x, lo, hi, axis):
    """min and max as float32 arrays broadcasting along ``axis`` of ``x``; checked."""
    lo, hi = np.asarray(lo, _F32), np.asarray(hi, _F32)
    if axis == -1:
        if lo.ndim or hi.ndim:
            raise errors.InvalidArgumentError(None, None, "min_range and max_range must be "
                                              "scalars without an axis")
        return lo, hi
    if axis >= x.ndim or lo.shape != (x.shape[axis],) or hi.shape != (x.shape[axis],):
        raise errors.InvalidArgumentError(
            None, None, f"min_range and max_range must have {x.shape[axis:axis + 1]} "
            f"elements along axis {axis}: got {lo.shape} and {hi.shape}")
    shape = [1] * x.ndim
    shape[axis] = -1
    return lo.reshape(shape), hi.reshape(shape)


# ── QuantizeV2 ───────────────────────────────────────────────────────────────────────
def _quantize_shape(x, lo, hi, *, T, mode, round_mode, narrow_range, axis,
                    ensure_minimum_range):
    ranges = _axis_shape(x, lo, hi, axis)
    return [x, ranges, ranges]


def _quantize_dtype(x, lo, hi, *, T, mode, round_mode, **attrs):
    _check_attrs("QuantizeV2", mode, round_mode)
    if T not in QUANTIZED:
        raise TypeError(f"Value passed to parameter 'T' has DataType {T.name} not in list of "
                        "allowed values: qint8, quint8, qint32, qint16, quint16")
    for name, d in (("input", x), ("min_range", lo), ("max_range", hi)):
        if d is not dtypes.float32:
            raise TypeError(f"Input '{name}' of 'QuantizeV2' Op has type {d.name} that does "
                            "not match expected type of float32.")
    return [T, dtypes.float32, dtypes.float32]


def _widened_range(lo, hi, ensure_minimum_range):
    """TF's range fix-up: include zero, and span at least ``ensure_minimum_range`` times
    max(1, |min|, |max|)."""
    min_range = np.minimum(_F32(0), lo)
    eps = np.maximum(_F32(1), np.maximum(np.abs(lo), np.abs(hi))) * _F32(ensure_minimum_range)
    return min_range, np.maximum(_F32(0), np.maximum(hi, min_range + eps))


def _min_combined(x, lo, hi, T):
    tmin, tmax, storage = limits(T)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = ((np.float64(tmax) - np.float64(tmin)) /
                 (hi - lo).astype(np.float64)).astype(_F32)
        half = _F32(0) if tmin == 0 else (_F32(tmax) - _F32(tmin) + _F32(1)) / _F32(2)
        v = (np.maximum(np.minimum(x, hi), lo) - lo) * scale - half
    return to_quantized(round_half_away(v), storage), lo, hi


def float_to_quantized(x, lo, hi, T):
    """TF's ``FloatToQuantizedStruct`` + ``QUANTIZE_WITH_EIGEN`` (MIN_FIRST), float32:
    ``round(x * scale) - (round(min * scale) - lowest)`` with ``scale = (2**bits - 1) /
    (max - min)`` (0 for an empty range), clamped to [lowest, highest] where qint32's
    highest is 2147483520, the largest float32 below 2**31, as TF's bound."""
    tmin, tmax, storage = limits(T)
    steps = float(2 ** (8 * storage.itemsize))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = np.where(hi == lo, 0.0, (steps - 1.0) / (hi - lo).astype(np.float64))
        scale = scale.astype(_F32)
        v = round_half_away(x * scale) - (round_half_away(lo * scale) - _F32(tmin))
        top = min(_F32(tmax), _F32(2147483520.0))
        v = np.minimum(np.maximum(v, _F32(max(tmin, -2 ** 31))), top)
    return via_int32(v, storage)


def quantized_to_float(q, lo, hi, T):
    """TF's ``QuantizedToFloatStruct`` + ``DEQUANTIZE_WITH_EIGEN`` (MIN_FIRST), float32:
    ``(min_rounded - lowest * scale) + q * scale`` with ``scale = (max - min) / (2**bits -
    1)`` and min rounded to a whole number of steps."""
    tmin, _, storage = limits(T)
    steps = float(2 ** (8 * storage.itemsize))
    qf = np.asarray(q).astype(np.int64).astype(_F32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = ((hi - lo).astype(np.float64) / (steps - 1.0)).astype(_F32)
        lo_r = np.where(hi == lo, lo, round_half_away(lo / scale) * scale).astype(_F32)
        return ((lo_r - _F32(tmin) * scale) + qf * scale).astype(_F32)


def _min_first(x, lo, hi, T):
    return float_to_quantized(x, lo, hi, T), lo, hi


def _scaled_factor(lo, hi, T, narrow_range):
    """The SCALED scale (the tighter end's) and the range it covers, float32."""
    tmin, tmax, storage = limits(T)
    out_lo, out_hi = _F32(tmin + (1 if narrow_range else 0)), _F32(tmax)
    big = _F32(np.finfo(_F32).max)
    with np.errstate(divide="ignore", invalid="ignore"):
        from_min = np.where(out_lo * lo > 0, out_lo / lo, big)
        from_max = np.where(out_hi * hi > 0, out_hi / hi, big)
        scale = np.minimum(from_min, from_max).astype(_F32)
        return scale, flush_denormals(out_lo / scale), flush_denormals(out_hi / scale), storage


def _scaled(x, lo, hi, T, narrow_range, round_mode):
    scale, lo, hi, storage = _scaled_factor(lo, hi, T, narrow_range)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.maximum(np.minimum(x, hi), lo) * scale
    v = np.rint(v) if round_mode == "HALF_TO_EVEN" else round_half_away(v)
    return to_quantized(v, storage), lo, hi


def _quantize_kernel(x, lo, hi, *, T, mode, round_mode, narrow_range, axis,
                     ensure_minimum_range):
    if mode != "SCALED" and round_mode == "HALF_TO_EVEN":
        raise errors.InvalidArgumentError(
            None, None, f"Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but "
            f"mode is '{mode}'.")
    if axis != -1 and mode == "MIN_FIRST":
        raise errors.UnimplementedError(None, None, "MIN_FIRST mode is not implemented for "
                                        "Quantize with axis != -1.")
    x = np.asarray(x, _F32)
    lo, hi = _per_slice(x, lo, hi, axis)
    if (hi < lo).any():
        raise errors.InvalidArgumentError(
            None, None, "input_max_range must be larger than input_min_range.")
    lo, hi = _widened_range(lo, hi, ensure_minimum_range)
    if mode == "MIN_COMBINED":
        q, lo, hi = _min_combined(x, lo, hi, T)
    elif mode == "MIN_FIRST":
        q, lo, hi = _min_first(x, lo, hi, T)
    else:
        q, lo, hi = _scaled(x, lo, hi, T, narrow_range, round_mode)
    return q, lo.reshape(-1 if axis != -1 else ()), hi.reshape(-1 if axis != -1 else ())


quantize_v2_op = OpDef(
    "QuantizeV2", shape=_quantize_shape, dtype=_quantize_dtype, kernel=_quantize_kernel,
    attrs={"T": None, "mode": "MIN_COMBINED", "round_mode": "HALF_AWAY_FROM_ZERO",
           "narrow_range": False, "axis": -1, "ensure_minimum_range": 0.01},
    num_outputs=3, grad=NO_GRADIENT, input_names=("input", "min_range", "max_range"))


def _create(op_def, values, name, attrs, names=None):
    """``op_def``'s op (all outputs); Python values become float32 constants inside the
    op's name scope (``QuantizeV2/min_range``), as TF's op helper makes them."""
    graph = next((v.graph for v in values if isinstance(v, Tensor)), get_default_graph())
    names = names or op_def.input_names
    with graph.as_default(), graph.name_scope(name or op_def.type) as scope:
        tensors = [v if isinstance(v, Tensor) else
                   convert_to_tensor(v, name=n, dtype=dtypes.float32)
                   for v, n in zip(values, names)]
        return tuple(op_def.create(tensors, attrs, scope)._outputs)


def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,  # noqa: A002
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None,
                ensure_minimum_range=0.01):
    """``input`` (float32) quantized to ``T`` over ``[min_range, max_range]``: a
    ``QuantizeV2`` op; returns (output, output_min, output_max), the range the integers
    stand for (see the module docstring for the modes).

    >>> quantize_v2([0.0, 1.0], 0.0, 4.0, "quint8").output.dtype.name
    'quint8'
    """
    T = dtypes.as_dtype(T)
    _check_attrs("QuantizeV2", mode, round_mode)
    attrs = {"T": T, "mode": mode, "round_mode": round_mode,
             "narrow_range": bool(narrow_range), "axis": -1 if axis is None else int(axis),
             "ensure_minimum_range": float(_F32(ensure_minimum_range))}
    return QuantizeV2Outputs(*_create(quantize_v2_op, [input, min_range, max_range], name,
                                      attrs))


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """``quantize_v2`` with TF's argument order (``round_mode`` before ``name``)."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, name=name,
                       round_mode=round_mode, narrow_range=narrow_range, axis=axis,
                       ensure_minimum_range=ensure_minimum_range)


# ── Dequantize ───────────────────────────────────────────────────────────────────────
def _dequantize_shape(x, lo, hi, *, T, mode, narrow_range, axis, dtype):
    _axis_shape(x, lo, hi, axis)
    return x


def _dequantize_dtype(x, lo, hi, *, T, mode, narrow_range, axis, dtype):
    _check_attrs("Dequantize", mode)
    if x not in QUANTIZED:
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.name} not in list "
                        "of allowed values: qint8, quint8, qint32, qint16, quint16")
    if dtype not in (dtypes.bfloat16, dtypes.float32):
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in "
                        "list of allowed values: bfloat16, float32")
    for name, d in (("min_range", lo), ("max_range", hi)):
        if d is not dtypes.float32:
            raise TypeError(f"Input '{name}' of 'Dequantize' Op has type {d.name} that does "
                            "not match expected type of float32.")
    return dtype


def dequantized(q, lo, hi, T, mode, narrow_range=False):
    """The float32 values of integers ``q`` of type ``T`` over ``[lo, hi]`` (broadcast),
    as TF's Dequantize kernel computes them."""
    tmin, tmax, storage = limits(T)
    qf = np.asarray(q).astype(np.int64).astype(_F32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if mode == "MIN_COMBINED":
            scale = (hi - lo) / (_F32(tmax) - _F32(tmin))
            half = _F32(0) if tmin == 0 else (_F32(tmax) - _F32(tmin) + _F32(1)) / _F32(2)
            return ((qf + half) * scale + lo).astype(_F32)
        if mode == "MIN_FIRST":
            return quantized_to_float(q, lo, hi, T)
        out_lo, out_hi = _F32(tmin + (1 if narrow_range else 0)), _F32(tmax)
        scale = hi / out_hi if tmin == 0 else np.maximum(lo / out_lo, hi / out_hi)
        return (qf * flush_denormals(scale)).astype(_F32)


def _dequantize_kernel(x, lo, hi, *, T, mode, narrow_range, axis, dtype):
    if axis != -1 and mode == "MIN_FIRST":
        raise errors.UnimplementedError(None, None, "MIN_FIRST mode is not implemented for "
                                        "Dequantize with axis != -1.")
    x = np.asarray(x)
    lo, hi = _per_slice(x, lo, hi, axis)
    out = dequantized(x, lo, hi, T, mode, narrow_range)
    return out if dtype is dtypes.float32 else out.astype(dtypes.storage_dtype(dtype))


dequantize_op = OpDef(
    "Dequantize", shape=_dequantize_shape, dtype=_dequantize_dtype, kernel=_dequantize_kernel,
    attrs={"T": None, "mode": "MIN_COMBINED", "narrow_range": False, "axis": -1,
           "dtype": dtypes.float32},
    grad=NO_GRADIENT, input_names=("input", "min_range", "max_range"))


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None,  # noqa: A002
               axis=None, narrow_range=False, dtype=dtypes.float32):
    """The float values (``dtype``: float32 or bfloat16) the quantized ``input`` stands for
    over ``[min_range, max_range]``, in ``mode`` (a ``Dequantize`` op)."""
    _check_attrs("Dequantize", mode)
    x = convert_to_tensor(input, name="input") if not isinstance(input, Tensor) else input
    attrs = {"T": x.dtype.base_dtype, "mode": mode, "narrow_range": bool(narrow_range),
             "axis": -1 if axis is None else int(axis), "dtype": dtypes.as_dtype(dtype)}
    return _create(dequantize_op, [x, min_range, max_range], name, attrs)[0]


# ── QuantizedConcat ──────────────────────────────────────────────────────────────────
def _qconcat_shape(dim, *rest, N, T):
    values, ranges = rest[:N], rest[N:]
    for r in ranges:
        if r.shape.ndims is not None and r.shape.ndims != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {r.shape.ndims}")
    return [concat_shape(*values, dim, N=N), TensorShape([]), TensorShape([])]


def _qconcat_dtype(dim, *rest, N, T):
    if dim is not dtypes.int32:
        raise TypeError(f"Input 'concat_dim' of 'QuantizedConcat' Op has type {dim.name} that "
                        "does not match expected type of int32.")
    for name, d in zip(("input_mins", "input_maxes"), (rest[N:2 * N], rest[2 * N:])):
        if any(x is not dtypes.float32 for x in d):
            raise TypeError(f"Input '{name}' of 'QuantizedConcat' Op has type "
                            f"{next(x for x in d if x is not dtypes.float32).name} that does "
                            "not match expected type of float32.")
    return [T, dtypes.float32, dtypes.float32]


def concat_range(mins, maxes, T):
    """TF's output range of QuantizedConcat: the union of the inputs' ranges, widened to
    include zero; symmetric about zero for the signed types."""
    lo = min(_F32(0), min(mins))
    hi = max(maxes)
    if limits(T)[0] < 0:
        top = max(abs(lo), abs(hi))
        return _F32(-top), _F32(top)
    return _F32(lo), _F32(hi)


def requantize_min_first(q, in_lo, in_hi, out_lo, out_hi, T):
    """``q`` over ``[in_lo, in_hi]`` re-expressed over ``[out_lo, out_hi]`` (MIN_FIRST
    both ways, as TF's ``RequantizeCopier``); unchanged when the ranges are equal.

    quint8 matches TF exactly; qint32 can end one level off where TF's float32 rounding of
    the intermediate value differs (seen requantizing (-0.1, 0.1) onto (-4, 4))."""
    if in_lo == out_lo and in_hi == out_hi:
        return np.asarray(q)
    return float_to_quantized(quantized_to_float(q, in_lo, in_hi, T), out_lo, out_hi, T)


def _qconcat_kernel(dim, *rest, N, T):
    values = [np.asarray(v) for v in rest[:N]]
    mins = [_F32(np.asarray(m).reshape(-1)[0]) for m in rest[N:2 * N]]
    maxes = [_F32(np.asarray(m).reshape(-1)[0]) for m in rest[2 * N:]]
    axis = int(dim)
    rank = values[0].ndim
    if not 0 <= axis < rank:
        raise errors.InvalidArgumentError(
            None, None, f"ConcatOp : Expected concatenating dimensions in the range [0, "
            f"{rank}), but got {axis}")
    lo, hi = concat_range(mins, maxes, T)
    parts = [requantize_min_first(v, a, b, lo, hi, T) for v, a, b in zip(values, mins, maxes)]
    return np.concatenate(parts, axis=axis), lo, hi


quantized_concat_op = OpDef(
    "QuantizedConcat", shape=from_tensors(_qconcat_shape), dtype=_qconcat_dtype,
    kernel=_qconcat_kernel, attrs={"N": None, "T": None}, num_outputs=3, grad=NO_GRADIENT,
    input_names=("concat_dim", "values", "input_mins", "input_maxes"))


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """``values`` (quantized, each over its own range) concatenated along
    ``concat_dim``: each is requantized (MIN_FIRST) onto the union of the ranges; returns
    (output, output_min, output_max)."""
    values, input_mins, input_maxes = list(values), list(input_mins), list(input_maxes)
    n = len(values)
    graph = next((v.graph for v in values if isinstance(v, Tensor)), get_default_graph())
    with graph.as_default(), graph.name_scope(name or "QuantizedConcat") as scope:
        dim = convert_to_tensor(concat_dim, dtype=dtypes.int32, name="concat_dim")
        values = [convert_to_tensor(v, name="values") for v in values]
        ranges = [convert_to_tensor(v, dtype=dtypes.float32, name=f"{nm}_{i}")
                  for vs, nm in ((input_mins, "input_mins"), (input_maxes, "input_maxes"))
                  for i, v in enumerate(vs)]
        op = quantized_concat_op.create([dim, *values, *ranges],
                                        {"N": n, "T": values[0].dtype.base_dtype}, scope)
    return QuantizedConcatOutputs(*op._outputs)
