"""Helpers shared by the op families (``shape_ops``, ``arithmetic_ops``, ... ``matmul_ops``).

No op is declared here. Array helpers: static values and partial shapes (TF's
``constant_value_as_shape``), name scopes, list inputs, the strided-slice index; math
helpers: ``_apply`` (TF's ``_apply_op_helper`` for a type attr ``T``), dtype rules built
from a dtype group, integer-division checks.
"""

from __future__ import annotations

import builtins
import contextlib

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, _graph_of, convert_to_tensor, name_scope
from scopeflow.framework.opdef import DTypeMismatch, check_dtype, outputs_of
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import constant_op


# ── Array helpers ────────────────────────────────────────────────────────────────────
def _dims_str(dims) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


# At most this many entries are listed from a constant that describes a shape, axes or a
# permutation: more is not a shape (TF allows 254 dimensions), and listing the 2**28 ints
# a hostile graph declares in a few bytes (a splat) would take gigabytes.
_LIST_LIMIT = 1 << 16


def _static_ints(t):
    """The constant value of an int tensor as a flat list of ints, or ``None`` (also when
    it has more than ``_LIST_LIMIT`` entries)."""
    v = constant_value(t)
    if v is None or np.size(v) > _LIST_LIMIT:
        return None
    return [int(a) for a in np.reshape(v, -1)]


def _static_scalar(t):
    v = constant_value(t)
    if v is None or v.size != 1:
        return None
    return v.reshape(()).item()


def _partial_dims(t):
    """A 1-D int tensor's value as a list of ints and ``None`` (unknown entries).

    TF's ``constant_value_as_shape``: besides constants it sees through ``Shape``,
    ``Pack`` of scalars, ``ConcatV2``, ``StridedSlice`` of those, and casts. Returns
    ``None`` when even the length is unknown. ``-1`` entries are kept as ``-1``.
    """
    v = constant_value(t)
    if v is not None:
        return [int(a) for a in np.reshape(v, -1)] \
            if v.ndim <= 1 and v.size <= _LIST_LIMIT else None
    op = t.op
    kind = op.type
    if kind == "Shape":
        dims = op.inputs[0].shape.as_tuple()
        return None if dims is None else list(dims)
    if kind == "Pack" and op.get_attr("axis") == 0:
        return [_static_scalar(x) for x in op.inputs]
    if kind == "ConcatV2":
        parts = [_partial_dims(x) for x in op.inputs[:-1]]
        if all(p is not None for p in parts):
            return [d for p in parts for d in p]
    if kind in ("Cast", "Identity"):
        return _partial_dims(op.inputs[0])
    if kind == "StridedSlice":
        got = _slice_partial(op)
        if isinstance(got, list):
            return got
    dims = t.shape.as_tuple()
    if dims is not None and len(dims) == 1 and dims[0] is not None:
        return [None] * dims[0]
    return None


def _slice_partial(op):
    """A ``StridedSlice`` applied to the partial value of a 1-D input (list, scalar or None)."""
    base = _partial_dims(op.inputs[0])
    spec = [constant_value(x) for x in op.inputs[1:]]
    if base is None or any(s is None for s in spec):
        return None
    try:
        got = np.array(base + [0], dtype=object)[:-1][_ss_index(*spec, **op.attrs)]
    except (IndexError, ValueError, TypeError):
        return None
    if isinstance(got, np.ndarray):
        return list(got) if got.ndim == 1 else got.item() if got.ndim == 0 else None
    return got  # a single element: an int, or None when unknown


def _shape_from_dims(dims):
    """A ``TensorShape`` from partial dims (``-1`` and ``None`` are unknown)."""
    if dims is None:
        return TensorShape(None)
    return TensorShape([None if d is None or d < 0 else d for d in dims])


_FOLD_LIMIT = 1 << 16


def _fold(t):
    """Static value of an array op's output: its kernel run on constant inputs (small only).

    TF's C++ shape inference evaluates small constant subgraphs the same way.
    """
    op = t.op
    vals = []
    for x in op.inputs:
        v = constant_value(x)
        if v is None or v.size > _FOLD_LIMIT:
            return None
        vals.append(v)
    n = t.shape.num_elements()
    if n is not None and n > _FOLD_LIMIT:
        return None
    try:
        out = op.op_def.kernel(*vals, **op.attrs)
    except Exception:  # noqa: BLE001 - a failing fold only means "not known statically"
        return None
    if len(op.outputs) > 1:
        out = out[t.value_index]
    return out


def _op_scope(name, default, values):
    """TF's ``name_scope(name, default, values)`` opened in the values' graph.

    With neither a name nor a default (``tf.boolean_mask(..., name=None)``) no scope opens.
    """
    tensors = [v for v in values if isinstance(v, Tensor)]
    if name is None and default is None:
        graph = _graph_of(tensors)
        scope = graph.get_name_scope()
        return contextlib.nullcontext(scope + "/" if scope else "")
    return name_scope(name, default, tensors or None)


def _convert_list(values, input_name, dtype=None):
    """Converts a list input as TF's ``_apply_op_helper``: ``values_0``, ``values_1``..."""
    hint = dtype
    if hint is None:
        for v in values:
            if isinstance(v, Tensor):
                hint = v.dtype.base_dtype
                break
    out = []
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            out.append(v)
        else:
            out.append(convert_to_tensor(v, dtype=dtype, name=f"{input_name}_{i}",
                                         preferred_dtype=hint))
            hint = hint or out[-1].dtype.base_dtype
    return out


def _same_dtypes(dts, op_type, input_name):
    first = dts[0]
    if any(d is not first for d in dts[1:]):
        names = ", ".join(d.name for d in dts)
        raise TypeError(f"Tensors in list passed to '{input_name}' of '{op_type}' Op have types "
                        f"[{names}] that don't all match.")
    return first


def _index_arg(value):
    """An empty Python list as an int32 array: TF's default index dtype, not float32."""
    if isinstance(value, (list, tuple)) and not value:
        return np.zeros([0], np.int32)
    return value


def _dense(grad):
    """A gradient as a dense ``Tensor``: rules densify an ``IndexedSlices`` (from a gather
    downstream) as TF's ``_IndexedSlicesToTensorNoWarning`` does."""
    return grad if isinstance(grad, Tensor) else convert_to_tensor(grad)


def _outputs_list(result):
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, tuple):
        return list(result)
    return []  # an op without outputs


_SS_MASKS = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
             "shrink_axis_mask": 0}


def _ss_index(begin, end, strides, *, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
              shrink_axis_mask):
    """The NumPy index tuple equivalent to a strided-slice spec (TF's semantics)."""
    index = []
    for k in builtins.range(len(strides)):
        bit = 1 << k
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(int(begin[k]))
        else:
            stride = int(strides[k])
            if stride == 0:
                raise ValueError(f"strides[{k}] must be non-zero")
            index.append(builtins.slice(None if begin_mask & bit else int(begin[k]),
                                        None if end_mask & bit else int(end[k]), stride))
    if index.count(Ellipsis) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    return tuple(index)


# ── Math helpers ─────────────────────────────────────────────────────────────────────
def _is_symbolic(x) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_tensor")


def _apply(op_def, inputs, name=None, hinted=None, **attrs):
    """``op_def.bind`` where Python inputs take the dtype of the first tensor input.

    As TF's ``_apply_op_helper`` for ops with a type attr ``T``: the op's name becomes a
    scope, and Python values are converted inside it (``Maximum/y``). ``hinted`` lists
    the input positions sharing ``T`` (default: all).
    """
    inputs = list(inputs)
    if all(type(x) is Tensor for x in inputs):
        return outputs_of(op_def.create(inputs, attrs, name))[0]
    hinted = builtins.range(len(inputs)) if hinted is None else hinted
    graph = _graph_of(inputs)
    with graph.as_default(), graph.name_scope(name or op_def.type) as scope:
        tensors = [convert_to_tensor(x) if _is_symbolic(x) else x for x in inputs]
        hint = next((tensors[i].dtype.base_dtype for i in hinted
                     if isinstance(tensors[i], Tensor)), None)
        names = op_def.input_names
        for i, x in enumerate(tensors):
            if not isinstance(x, Tensor):
                t = convert_to_tensor(x, name=names[i] if i < len(names) else None,
                                      preferred_dtype=hint if i in hinted else None)
                if hint is None and i in hinted:
                    hint = t.dtype.base_dtype
                tensors[i] = t
        return outputs_of(op_def.create(tensors, attrs, scope))[0]


def _same_dtype_in(allowed, what="x"):
    """Dtype rule: every input has the first input's dtype, which must be in ``allowed``."""
    def rule(first, *rest, **attrs):
        for i, d in enumerate(rest, 1):
            if d is not first:
                raise DTypeMismatch(i, d, first)
        return check_dtype(first, allowed, what)
    return rule


def _compare_dtype_in(allowed):
    rule = _same_dtype_in(allowed)
    return lambda *dts, **attrs: (rule(*dts), dtypes.bool_)[1]


def _bool_only(op_type, names):
    def rule(*dts, **attrs):
        for n, d in zip(names, dts):
            if d is not dtypes.bool_:
                raise TypeError(f"Input '{n}' of '{op_type}' Op has type {d.name} that does "
                                "not match expected type of bool.")
        return dtypes.bool_
    return rule


def _int_div_zero():
    return errors.InvalidArgumentError(None, None, "Integer division by zero")


def _is_int(x) -> bool:
    return np.asarray(x).dtype.kind in "iu"


def _check_divisor(y):
    if not np.all(y):
        raise _int_div_zero()


def _shapes_fully_specified_and_equal(x, y, grad) -> bool:
    """TF's ``_ShapesFullySpecifiedAndEqual``: a binary op's inputs and its gradient have one
    fully known shape (the gradient rules' shortcut that makes no ``Shape`` ops)."""
    dims = x.shape.as_tuple()
    return (dims is not None and None not in dims and dims == y.shape.as_tuple()
            and dims == grad.shape.as_tuple())


def _const_like(value, t, name="Const"):
    """A scalar constant of ``t``'s dtype (for gradient rules)."""
    return constant_op.constant(value, dtype=t.dtype.base_dtype, name=name)


def _deprecated_lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return new_value if new_value is not None else old_value
