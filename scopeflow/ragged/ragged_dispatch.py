"""TF's dispatch of ``tf.*`` ops to RaggedTensors: ``tf.add(rt, 1)``, ``tf.cast(rt, ...)``,
``tf.concat([rt1, rt2], 1)``, ``tf.reduce_sum(rt, axis=1)``, ``tf.gather(rt, idx)`` and the
Python operators of RaggedTensor.

TF decorates each such op with ``add_dispatch_support`` where it is defined. scopeflow's op
functions are plain; ``install()`` wraps each one once (the wrapper checks its arguments for
a RaggedTensor, else calls the op unchanged) and rebinds every name in the loaded scopeflow
modules that refers to the original, so ``tf.add``, ``tf.math.add`` and a module's own
``from ... import add`` all see the same wrapper. Elementwise ops act on ``flat_values``
(operands with identical row partitions, or a ragged operand and a scalar); reductions and
``concat``/``gather`` rebuild the row partition the way TF's ragged kernels define it.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops.array import indexing_ops, layout_ops, shape_ops, slicing_ops
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math import (
    arithmetic_ops,
    elementwise_ops,
    reduction_ops,
    scan_ops,
    segment_ops,
    statistics_ops,
)
from scopeflow.ops.nn import nn_activation_ops
from scopeflow.ragged import ragged_ops
from scopeflow.ragged.ragged_tensor import RaggedTensor

__all__ = ["install"]


def _is_ragged(x):
    if isinstance(x, RaggedTensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(isinstance(v, RaggedTensor) for v in x)
    return False


# ── elementwise ops ─────────────────────────────────────────────────────────────────────
def _unary(op):
    """``op(rt, *args)`` on the flat values (cast, abs, clip_by_value, relu, ...)."""
    def handler(x, *args, **kwargs):
        return x.with_flat_values(op(x.flat_values, *args, **kwargs))
    return handler


def _splits_check(x, y):
    """TF's runtime check that two ragged operands share their row partition."""
    if x.ragged_rank != y.ragged_rank:
        raise ValueError("Ragged elementwise ops require that rt1.ragged_rank == "
                         f"rt2.ragged_rank (got {x.ragged_rank} and {y.ragged_rank})")
    checks = []
    for a, b in zip(x.nested_row_splits, y.nested_row_splits):
        if a is b:
            continue
        checks.append(check_ops.assert_equal(a, b, message="Inputs must have identical "
                                             "ragged splits"))
    return checks


def _flat_operand(x, other):
    """A non-ragged operand of a ragged elementwise op: a scalar broadcasts to every value;
    a tensor of the ragged operand's full rank must be broadcast first (not supported)."""
    if isinstance(x, RaggedTensor):
        return x
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=other.dtype.base_dtype)
    rank = x.shape.ndims
    if rank is None or rank > other.flat_values.shape.ndims - 1:
        raise NotImplementedError(
            "ragged elementwise ops broadcast a scalar (or a tensor no deeper than the "
            "RaggedTensor's inner dimensions) only: got a dense operand of rank "
            f"{rank} for a RaggedTensor of rank {other.shape.ndims}")
    return x


def _binary(op):
    def handler(x, y, *args, **kwargs):
        rx, ry = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
        ragged = x if rx else y
        x, y = _flat_operand(x, ragged), _flat_operand(y, ragged)
        if rx and ry:
            checks = _splits_check(x, y)
            fx, fy = x.flat_values, y.flat_values
            if checks:
                fx = with_dependencies(checks, fx)
        else:
            fx = x.flat_values if rx else x
            fy = y.flat_values if ry else y
        return ragged.with_flat_values(op(fx, fy, *args, **kwargs))
    return handler


def _where(op):
    """``where(condition, x, y)`` elementwise over operands sharing one row partition (the
    one-argument form, coordinates of true values, is TF's ragged ``where`` too: not here)."""
    def handler(condition, x=None, y=None, name=None):
        if x is None or y is None:
            raise NotImplementedError("tf.where of a RaggedTensor with one argument")
        ragged = next(v for v in (condition, x, y) if isinstance(v, RaggedTensor))
        flat = []
        for v in (condition, x, y):
            if isinstance(v, RaggedTensor):
                checks = _splits_check(ragged, v)
                flat.append(with_dependencies(checks, v.flat_values) if checks
                            else v.flat_values)
            else:
                flat.append(_flat_operand(v, ragged))
        return ragged.with_flat_values(op(*flat, name=name))
    return handler


def _expand_dims(original):
    def handler(input, axis=None, name=None, dim=None):  # noqa: A002 - TF's name
        axis = dim if axis is None else axis
        ndims = input.shape.ndims
        if axis < 0:
            axis += ndims + 1
        with name_scope(name, "RaggedExpandDims", [input]):
            if axis == 0:
                splits = slicing_ops.concat([np.zeros([1], np.int64),
                                             shape_ops.expand_dims(input.nrows(), 0)], 0)
                return RaggedTensor(input, splits, internal=True)
            if axis == 1:
                n = input.nrows()
                splits = ragged_ops.range(n + 1).values
                return RaggedTensor(input, arithmetic_ops.cast(splits, dtypes.int64),
                                    internal=True, uniform_row_length=1)
            return input.with_values(handler(input.values, axis - 1))
    return handler


def _add_n(op):
    def handler(inputs, name=None):
        inputs = list(inputs)
        if not all(isinstance(x, RaggedTensor) for x in inputs):
            raise NotImplementedError("add_n: a mix of ragged and dense inputs")
        checks = [c for x in inputs[1:] for c in _splits_check(inputs[0], x)]
        flat = [x.flat_values for x in inputs]
        if checks:
            flat[0] = with_dependencies(checks, flat[0])
        return inputs[0].with_flat_values(op(flat, name=name))
    return handler


# ── reductions ──────────────────────────────────────────────────────────────────────────
def _segment_reduce(kind, values, ids, n):
    if kind == "sum":
        return indexing_ops.unsorted_segment_sum(values, ids, n)
    if kind == "prod":
        return segment_ops.unsorted_segment_prod(values, ids, n)
    if kind == "max":
        return segment_ops.unsorted_segment_max(values, ids, n)
    if kind == "min":
        return segment_ops.unsorted_segment_min(values, ids, n)
    if kind == "mean":
        total = indexing_ops.unsorted_segment_sum(values, ids, n)
        ones = reduction_ops.ones_like(values)
        count = indexing_ops.unsorted_segment_sum(ones, ids, n)
        return arithmetic_ops.divide(total, count) if values.dtype.is_floating else \
            arithmetic_ops.floordiv(total, count)
    # all / any: count the values that break the rule.
    as_int = arithmetic_ops.cast(arithmetic_ops.logical_not(values) if kind == "all"
                                 else values, dtypes.int32)
    hits = indexing_ops.unsorted_segment_sum(as_int, ids, n)
    return arithmetic_ops.equal(hits, 0) if kind == "all" else arithmetic_ops.greater(hits, 0)


def _dense_reduce(kind):
    return {"sum": reduction_ops.reduce_sum, "prod": reduction_ops.reduce_prod,
            "max": reduction_ops.reduce_max, "min": reduction_ops.reduce_min,
            "mean": statistics_ops.reduce_mean, "all": reduction_ops.reduce_all,
            "any": reduction_ops.reduce_any}[kind]


def _reduce(kind):
    def handler(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
        rt = input_tensor
        axis = reduction_indices if axis is None else axis
        keep = bool(keepdims if keepdims is not None else keep_dims)
        with name_scope(name, "RaggedReduce", [rt]):
            if axis is None:
                return _dense_reduce(kind)(rt.flat_values, keepdims=False) if not keep else \
                    _keep_all(_dense_reduce(kind)(rt.flat_values), rt.shape.ndims)
            axes = sorted({a % rt.shape.ndims if rt.shape.ndims else a
                           for a in np.atleast_1d(axis).tolist()})
            if axes == list(range(rt.shape.ndims)):
                return handler(rt, None, keep)
            if len(axes) != 1 or rt.ragged_rank != 1:
                raise NotImplementedError(
                    f"reduce_{kind} of a RaggedTensor: one axis of a RaggedTensor with "
                    f"ragged_rank 1 (got axis={axis!r}, ragged_rank={rt.ragged_rank})")
            ax = axes[0]
            values = rt.values
            if ax >= 2:  # an inner, uniform dimension: reduce the values themselves
                out = _dense_reduce(kind)(values, axis=ax - 1, keepdims=keep)
                return rt.with_values(out)
            rowids = rt.value_rowids()
            if ax == 1:
                out = _segment_reduce(kind, values, rowids, rt.nrows())
            else:
                starts = indexing_ops.gather(rt.row_starts(), rowids)
                positions = arithmetic_ops.subtract(
                    scan_ops.cumsum(reduction_ops.ones_like(rowids), exclusive=True), starts)
                ncols = reduction_ops.reduce_max(
                    slicing_ops.concat([rt.row_lengths(), [np.int64(0)]], 0))
                out = _segment_reduce(kind, values, positions, ncols)
            return shape_ops.expand_dims(out, ax) if keep else out
    return handler


def _keep_all(x, rank):
    return shape_ops.reshape(x, [1] * rank)


# ── concat / gather / stack / size ───────────────────────────────────────────────────────
def _as_ragged(values, rank):
    return [v if isinstance(v, RaggedTensor) else
            RaggedTensor.from_tensor(v, ragged_rank=rank) for v in values]


def _concat(original):
    def handler(values, axis, name="concat"):
        values = list(values)
        with name_scope(name, "RaggedConcat", values):
            if not isinstance(axis, (int, np.integer)):
                raise TypeError("axis must be an int")
            rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
            ndims = next((v.shape.ndims for v in values if v.shape.ndims is not None), None)
            if axis < 0:
                if ndims is None:
                    raise ValueError("axis may only be negative if ndims is statically "
                                     "known.")
                if axis < -ndims:
                    raise ValueError(f"axis={axis} out of bounds: expected "
                                     f"{-ndims}<=axis<{ndims}")
                axis += ndims
            elif ndims is not None and axis >= ndims:
                raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
            if len(values) == 1:
                return values[0]
            return _concat_ragged(_as_ragged(values, rank), axis)
    return handler


def _concat_ragged(rts, axis):
    """TF's ragged concat: axis 0 appends rows; axis 1 joins row ``i`` of every input;
    deeper axes share the outer partition (checked) and concatenate the values."""
    if not isinstance(rts[0], RaggedTensor):
        return slicing_ops.concat(list(rts), axis)
    rank = rts[0].ragged_rank
    if any(rt.ragged_rank != rank for rt in rts):
        raise ValueError("concat of RaggedTensors of different ragged_rank")
    if axis == 0:
        return ragged_ops.stack(rts).values
    if axis == 1:
        return _concat_axis1(rts)
    checks = [check_ops.assert_equal(rt.row_splits, rts[0].row_splits,
                                     message="Input tensors have incompatible shapes.")
              for rt in rts[1:]
              if rt.row_splits is not rts[0].row_splits]
    values = _concat_ragged([rt.values for rt in rts], axis - 1)
    splits = with_dependencies(checks, rts[0].row_splits) if checks else rts[0].row_splits
    return RaggedTensor(values, splits, internal=True)


def _concat_axis1(rts):
    """Row ``i`` of the result joins row ``i`` of every input: the inputs' rows stacked
    (input-major) are gathered in row-major order, then every ``k`` rows merged."""
    k = len(rts)
    nrows = rts[0].nrows()
    checks = [check_ops.assert_equal(rt.nrows(), nrows,
                                     message="Input tensors have incompatible shapes.")
              for rt in rts[1:]]
    stacked = ragged_ops.stack(rts).values
    rows = arithmetic_ops.cast(ragged_ops.range(nrows).values, dtypes.int64)
    order = shape_ops.reshape(
        arithmetic_ops.add(shape_ops.expand_dims(rows, 1),
                           arithmetic_ops.multiply(np.arange(k, dtype=np.int64), nrows)), [-1])
    gathered = _gather_rows(stacked, with_dependencies(checks, order))
    splits = gathered.row_splits[::k]
    splits.set_shape(rts[0].row_splits.shape)  # as many rows as each input
    return RaggedTensor(gathered.values, splits, internal=True)


def _gather_rows(rt, indices):
    """Rows ``indices`` of ``rt`` (ragged_rank 1 or more): TF's ``RaggedGather``."""
    indices = arithmetic_ops.cast(indices, dtypes.int64)
    starts = indexing_ops.gather(rt.row_starts(), indices)
    limits = indexing_ops.gather(rt.row_limits(), indices)
    value_ids = ragged_ops.range(starts, limits)
    lengths = arithmetic_ops.subtract(limits, starts)
    splits = slicing_ops.concat([np.zeros([1], np.int64), scan_ops.cumsum(lengths)], 0)
    inner = rt.values
    if isinstance(inner, RaggedTensor):
        values = _gather_rows(inner, value_ids.values)
    else:
        values = indexing_ops.gather(inner, value_ids.values)
    return RaggedTensor(values, splits, internal=True)


def _gather(original):
    def handler(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
        if isinstance(indices, RaggedTensor):
            if isinstance(params, RaggedTensor):
                raise NotImplementedError("gather of a RaggedTensor with ragged indices")
            return indices.with_flat_values(original(params, indices.flat_values, name=name,
                                                     axis=axis, batch_dims=batch_dims))
        if axis not in (None, 0) or batch_dims != 0:
            raise NotImplementedError("gather of a RaggedTensor along axis 0 only")
        with name_scope(name, "RaggedGather", [params, indices]):
            indices = convert_to_tensor(indices, name="indices")
            if indices.shape.ndims == 0:
                start = indexing_ops.gather(params.row_starts(), indices)
                limit = indexing_ops.gather(params.row_limits(), indices)
                return params.values[start:limit]
            if indices.shape.ndims != 1:
                raise NotImplementedError("gather of a RaggedTensor with indices of rank > 1")
            return _gather_rows(params, indices)
    return handler


def _stack(original):
    def handler(values, axis=0, name="stack"):
        return ragged_ops.stack(list(values), axis=axis, name=name)
    return handler


def _size(original):
    def handler(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF's name
        return original(input.flat_values, name=name, out_type=out_type)
    return handler


# ── install ─────────────────────────────────────────────────────────────────────────────
_UNARY = {
    elementwise_ops: ("abs", "sqrt", "rsqrt", "exp", "log", "log1p", "square", "sign",
                      "round", "floor", "ceil", "sin", "cos", "tanh", "sigmoid",
                      "clip_by_value"),
    arithmetic_ops: ("negative", "logical_not", "cast"),
    reduction_ops: ("ones_like", "zeros_like"),
    shape_ops: ("identity",),
    nn_activation_ops: ("relu", "relu6", "elu", "selu", "softplus"),
}
_BINARY = {
    arithmetic_ops: ("add", "subtract", "multiply", "divide", "truediv", "realdiv",
                     "floordiv", "floormod", "mod", "equal", "not_equal", "less",
                     "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                     "logical_xor", "squared_difference", "div"),
    elementwise_ops: ("pow",),
    reduction_ops: ("maximum", "minimum"),
}
_REDUCE = {reduction_ops: {"reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max",
                           "reduce_min": "min", "reduce_all": "all", "reduce_any": "any"},
           statistics_ops: {"reduce_mean": "mean"}}


def _wrap(original, handler, which):
    """``original`` that calls ``handler`` when argument ``which`` (positions or keyword
    names of the operands) holds a RaggedTensor."""
    positions, keywords = which

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if any(_is_ragged(args[i]) for i in positions if i < len(args)) or \
                any(_is_ragged(kwargs.get(k)) for k in keywords):
            return handler(*args, **kwargs)
        return original(*args, **kwargs)
    wrapper._ragged_dispatch_original = original
    return wrapper


def _rebind(original, wrapper):
    """Every loaded scopeflow module's name for ``original`` now names ``wrapper``."""
    for mod_name, module in list(sys.modules.items()):
        if module is None or not (mod_name == "scopeflow" or mod_name.startswith("scopeflow.")):
            continue
        namespace = getattr(module, "__dict__", None)
        if not namespace:
            continue
        for attr, value in list(namespace.items()):
            if value is original:
                setattr(module, attr, wrapper)


_installed = False


def install():
    """Wraps the ops above for RaggedTensors (once) and gives RaggedTensor its operators."""
    global _installed
    if _installed:
        return
    _installed = True
    table = []
    for module, names in _UNARY.items():
        table += [(module, n, _unary, ((0,), ("x", "t", "features", "input", "tensor")))
                  for n in names]
    for module, names in _BINARY.items():
        table += [(module, n, _binary, ((0, 1), ("x", "y"))) for n in names]
    for module, names in _REDUCE.items():
        table += [(module, n, lambda op, k=kind: _reduce(k),
                   ((0,), ("input_tensor",))) for n, kind in names.items()]
    table += [(arithmetic_ops, "add_n", _add_n, ((0,), ("inputs",))),
              (slicing_ops, "concat", _concat, ((0,), ("values",))),
              (indexing_ops, "gather", _gather, ((0, 1), ("params", "indices"))),
              (layout_ops, "stack", _stack, ((0,), ("values",))),
              (shape_ops, "size", _size, ((0,), ("input",))),
              (shape_ops, "expand_dims", _expand_dims, ((0,), ("input",))),
              (reduction_ops, "where_v2", _where, ((0, 1, 2), ("condition", "x", "y")))]
    for module, name, make, which in table:
        original = getattr(module, name)
        original = getattr(original, "_ragged_dispatch_original", original)
        wrapper = _wrap(original, make(original), which)
        _rebind(original, wrapper)
    _install_operators()


def _install_operators():
    """RaggedTensor's Python operators, as TF's ragged_operators.py defines them."""
    def binary(name, reflected=False):
        def method(self, other):
            op = getattr(arithmetic_ops if hasattr(arithmetic_ops, name) else
                         (elementwise_ops if name == "pow" else reduction_ops), name)
            return op(other, self) if reflected else op(self, other)
        return method

    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                         ("truediv", "truediv"), ("div", "div"), ("floordiv", "floordiv"),
                         ("mod", "floormod"), ("pow", "pow")):
        setattr(RaggedTensor, f"__{dunder}__", binary(name))
        setattr(RaggedTensor, f"__r{dunder}__", binary(name, reflected=True))
    for dunder, name in (("and", "logical_and"), ("or", "logical_or"),
                         ("xor", "logical_xor"), ("lt", "less"), ("le", "less_equal"),
                         ("gt", "greater"), ("ge", "greater_equal")):
        setattr(RaggedTensor, f"__{dunder}__", binary(name))
    for dunder in ("and", "or", "xor"):
        setattr(RaggedTensor, f"__r{dunder}__",
                binary({"and": "logical_and", "or": "logical_or",
                        "xor": "logical_xor"}[dunder], reflected=True))
    RaggedTensor.__neg__ = lambda self: arithmetic_ops.negative(self)
    RaggedTensor.__abs__ = lambda self: elementwise_ops.abs(self)
    RaggedTensor.__invert__ = lambda self: arithmetic_ops.logical_not(self)
