"""Layout ops: Transpose (with InvertPermutation, its gradient's perm), Pack and Unpack.

``stack``/``unstack`` and the auto-packing conversion of lists that contain tensors
(``[t, 2.0]`` -> ``Pack``, installed here) sit below the reductions and the slicing ops,
whose gradient rules transpose and stack.
"""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import (
    Tensor,
    _graph_of,
    convert_to_tensor,
    get_default_graph,
    register_tensor_conversion_function,
)
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import rank_op
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import _cast, range, subtract
from scopeflow.ops.op_helpers import (
    _convert_list,
    _dense,
    _dims_str,
    _fold,
    _index_arg,
    _op_scope,
    _outputs_list,
    _same_dtypes,
    _static_ints,
)

__all__ = ["transpose", "invert_permutation", "stack", "unstack"]


# ── Transpose ────────────────────────────────────────────────────────────────────────
def _transpose_shape(x, perm):
    dims = x.shape.as_tuple()
    p = _static_ints(perm)
    if p is None:
        n = perm.shape.as_tuple()
        rank = len(dims) if dims is not None else (n[0] if n else None)
        return TensorShape(None if rank is None else [None] * rank)
    if dims is None:
        return TensorShape([None] * len(p))
    if len(p) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(p)}")
    for i in p:
        if not 0 <= i < len(dims):
            raise ValueError(f"perm dim {i} is out of range of input rank {len(dims)}")
    return TensorShape([dims[i] for i in p])


def _transpose_dtype(x, perm):
    check_dtype(perm, INDEX, "Tperm")
    return x


def _transpose_kernel(x, perm):
    p = [int(i) for i in perm]
    if sorted(p) != list(builtins.range(x.ndim)):
        raise InvalidArgumentError(None, None, f"transpose expects a vector of size {x.ndim} "
                                   f"holding a permutation of 0..{x.ndim - 1}, got {p}")
    return np.transpose(x, p)


transpose_op = OpDef("Transpose", shape=from_tensors(_transpose_shape), dtype=_transpose_dtype,
                     kernel=_transpose_kernel, aliases=(0,), input_names=("x", "perm"))
transpose_op.def_static_value(_fold)


@transpose_op.def_grad
def _transpose_grad(op, dy):
    return [transpose(_dense(dy), invert_permutation(op.inputs[1])), None]


def transpose(a, perm=None, name="transpose", conjugate=False) -> Tensor:
    """Permutes the dimensions of ``a`` (default: reverses them).

    >>> transpose([[1, 2, 3]]).shape.as_list()
    [3, 1]
    """
    with _op_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a, name="a")
        if perm is None:
            rank = a.shape.ndims
            if not rank:
                r = rank_op.bind(a, name="Rank")
                start = subtract(r, 1, name="sub")
                perm = range(start, -1, -1, name="Range")
            else:
                perm = np.arange(rank - 1, -1, -1, dtype=np.int32)
        return transpose_op.bind(a, _index_arg(perm), name=scope)


# ── InvertPermutation (the Transpose gradient's perm) ───────────────────────────────
def _invert_permutation_shape(x):
    if x.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {x.ndims}")
    return x if x.ndims is not None else TensorShape([None])


def _invert_permutation_kernel(x):
    if x.ndim != 1:
        raise InvalidArgumentError(None, None, f"invert_permutation expects a 1D vector, got "
                                   f"shape {list(x.shape)}")
    n = x.size
    seen = np.zeros(n, bool)
    for v in x.tolist():
        if not 0 <= v < n:
            raise InvalidArgumentError(None, None, f"{v} is not between 0 and {n}")
        if seen[v]:
            raise InvalidArgumentError(None, None, f"{v} is duplicated in the input.")
        seen[v] = True
    out = np.empty_like(x)
    out[x] = np.arange(n, dtype=x.dtype)
    return out


def _invert_permutation_dtype(x):
    check_dtype(x, INDEX, "T")
    return x


invert_permutation_op = OpDef("InvertPermutation", shape=_invert_permutation_shape,
                              dtype=_invert_permutation_dtype, kernel=_invert_permutation_kernel,
                              grad=None, input_names=("x",))
invert_permutation_op.def_static_value(_fold)


def invert_permutation(x, name=None) -> Tensor:
    """The inverse permutation: ``y[x[i]] = i``.

    >>> from scopeflow.framework.tensor_util import constant_value
    >>> constant_value(invert_permutation([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    return invert_permutation_op.bind(x, name=name)


# ── Pack ─────────────────────────────────────────────────────────────────────────────
def _merge_equal_shapes(shapes):
    merged = None
    for s in shapes:
        if s is None:
            continue
        if merged is None:
            merged = list(s)
            continue
        if len(s) != len(merged):
            raise ValueError(f"Shapes must be equal rank, but are {len(merged)} and {len(s)}")
        for i, (x, y) in enumerate(zip(merged, s)):
            if x is not None and y is not None and x != y:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and "
                                 f"{y}. Shapes are {_dims_str(merged)} and {_dims_str(s)}.")
            merged[i] = x if x is not None else y
    return merged


def _pack_shape(*shapes, N, axis):
    merged = _merge_equal_shapes([s.as_tuple() for s in shapes])
    if merged is None:
        return TensorShape(None)
    r = len(merged) + 1
    if not -r <= axis < r:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-r},{r})")
    a = axis % r
    return TensorShape(merged[:a] + [N] + merged[a:])


def _pack_kernel(*values, N, axis):
    if N == 1:  # TF forwards a single input's buffer, reshaped
        return np.expand_dims(values[0], axis)
    try:
        return np.stack(values, axis=axis)
    except ValueError:
        raise InvalidArgumentError(None, None, "Shapes of all inputs must match: "
                                   + ", ".join(str(list(v.shape)) for v in values)) from None


pack_op = OpDef("Pack", shape=_pack_shape, dtype=lambda *dts, N, axis:
                _same_dtypes(dts, "Pack", "values"), kernel=_pack_kernel,
                attrs={"N": 1, "axis": 0}, input_names=("values",), aliases=True)
pack_op.def_static_value(_fold)


@pack_op.def_grad
def _pack_grad(op, dy):
    return unstack(_dense(dy), num=op.get_attr("N"), axis=op.get_attr("axis"))


def _pack(values, axis, name):
    with _op_scope(name, "Pack", values) as scope:
        return pack_op.bind(*_convert_list(values, "values"), N=len(values), axis=axis,
                            name=scope)


def stack(values, axis=0, name="stack") -> Tensor:
    """Stacks rank-R tensors into one rank-(R+1) tensor along a new ``axis``.

    >>> stack([[1, 2], [3, 4]], axis=1).shape.as_list()
    [2, 2]
    """
    if axis == 0:
        try:  # a constant list becomes a Const; a list with tensors is auto-packed
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass
    value_shape = convert_to_tensor(values[0], name=name).shape
    if value_shape.ndims is not None:
        n = value_shape.ndims + 1
        if not -n <= axis < n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return _pack(values, axis, name)


# ── auto-packing: lists that contain tensors convert to Pack ─────────────────────────
def _nested_dtype(values):
    for v in values:
        if isinstance(v, Tensor):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            dt = _nested_dtype(v)
            if dt is not None:
                return dt
    return None


def _autopack(values, dtype, name):
    """TF's ``_autopacking_helper``: a (nested) list with tensors -> ``Pack`` ops."""
    converted, must_pack = [], False
    with get_default_graph().name_scope(name) as scope:
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                if dtype is not None and v.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                    f"{v.dtype.name} to {dtype.name} (Tensor is: {v!r})")
                must_pack = True
            elif isinstance(v, (list, tuple)):
                v = _autopack(v, dtype, str(i))
                if isinstance(v, Tensor):
                    if dtype is not None and v.dtype.base_dtype != dtype:
                        raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                        f"{v.dtype.name} to {dtype.name} (Tensor is: {v!r})")
                    must_pack = True
            converted.append(v)
        if not must_pack:
            return converted
        tensors = [v if isinstance(v, Tensor) else constant(v, dtype=dtype, name=str(i))
                   for i, v in enumerate(converted)]
        return pack_op.bind(*tensors, N=len(tensors), axis=0, name=scope)


def _cast_nested(values, dtype):
    return [(_cast(v, dtype) if isinstance(v, Tensor) else
             _cast_nested(v, dtype) if isinstance(v, (list, tuple)) else v) for v in values]


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    if as_ref:
        return NotImplemented
    inferred = _nested_dtype(value)
    if inferred is None:
        return NotImplemented  # no tensors inside: the Const conversion handles it
    if dtype is None:
        dtype = inferred
    elif dtype.base_dtype != inferred:
        value = _cast_nested(value, dtype.base_dtype)
    graph = _graph_of(_flat_tensors(value))
    with graph.as_default():
        return _autopack(value, dtype.base_dtype, name or "packed")


def _flat_tensors(values):
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(_flat_tensors(v))
    return out


register_tensor_conversion_function((list, tuple), _autopacking_conversion, priority=99)


# ── Unpack ───────────────────────────────────────────────────────────────────────────
def _unpack_shape(x, *, num, axis):
    dims = x.as_tuple()
    if dims is None:
        return [TensorShape(None)] * num
    r = len(dims)
    if not -r <= axis < r:
        raise ValueError(f"axis = {axis} not in [{-r}, {r})")
    a = axis % r
    if dims[a] is not None and dims[a] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[a]}")
    return [TensorShape(dims[:a] + dims[a + 1:])] * num


def _unpack_kernel(x, *, num, axis):
    if x.shape[axis] != num:
        raise InvalidArgumentError(None, None, f"Input shape axis {axis} must equal {num}, got "
                                   f"shape {list(x.shape)}")
    outs = tuple(np.moveaxis(x, axis, 0))
    return outs[0] if num == 1 else outs


unpack_op = OpDef("Unpack", shape=_unpack_shape, dtype=lambda x, *, num, axis: [x] * num,
                  kernel=_unpack_kernel, attrs={"num": None, "axis": 0},
                  num_outputs=lambda attrs, n: attrs["num"], aliases=(0,),
                  input_names=("value",))
unpack_op.def_static_value(_fold)


@unpack_op.def_grad
def _unpack_grad(op, *dys):
    return [stack([_dense(d) for d in dys], axis=op.get_attr("axis"))]


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """Splits ``value`` along ``axis`` into a list of ``num`` tensors of rank R-1.

    >>> len(unstack(constant([[1, 2], [3, 4], [5, 6]])))
    3
    """
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.ndims is not None:
            n = value_shape.ndims
            if not -n <= axis < n:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
            num = value_shape.as_tuple()[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value_shape}")
    return _outputs_list(unpack_op.bind(value, num=num, axis=axis, name=name))
