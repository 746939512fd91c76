"""Shape ops: placeholders, identities, and the ops that read or change a tensor's shape.

Placeholder, PlaceholderWithDefault, Identity, IdentityN, StopGradient, Reshape,
ExpandDims, Squeeze, Shape, Size, Rank: the array ops every other family builds on (their
gradient rules use only each other). Builders follow TF1's Python wrappers
(``array_ops.py``) for op types, default names and the constant shortcuts they take
(``tf.shape`` of a fully defined shape is a ``Const``).
"""

from __future__ import annotations

import builtins
import numbers
from typing import TYPE_CHECKING

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    OpDef,
    broadcast_shape,
    check_dtype,
    first_dtype,
    from_tensors,
    same_shape,
)
from scopeflow.framework.tensor_shape import Dimension, TensorShape, as_shape
from scopeflow.ops.constant_op import constant
from scopeflow.ops.op_helpers import (
    _dense,
    _dims_str,
    _fold,
    _index_arg,
    _op_scope,
    _partial_dims,
    _shape_from_dims,
    _static_ints,
)

if TYPE_CHECKING:
    from scopeflow.framework.type_aliases import DTypeLike, ShapeLike

__all__ = ["placeholder", "placeholder_with_default", "identity", "identity_n", "stop_gradient",
           "reshape", "expand_dims", "squeeze", "shape", "shape_n", "size", "rank",
           "broadcast_dynamic_shape", "broadcast_static_shape", "broadcast_gradient_args"]


# ── Placeholder ──────────────────────────────────────────────────────────────────────
def _placeholder_kernel(*, dtype, shape):
    # Never reached: plans refuse to compile when a needed placeholder is not fed.
    raise AssertionError("unfed placeholder")


placeholder_op = OpDef("Placeholder", shape=lambda *, dtype, shape: shape,
                       dtype=lambda *, dtype, shape: dtype, kernel=_placeholder_kernel,
                       attrs={"dtype": None, "shape": TensorShape(None)}, grad=NO_GRADIENT)


def placeholder(dtype: DTypeLike, shape: ShapeLike = None, name: str | None = None) -> Tensor:
    """A tensor whose value must be fed to ``Session.run`` (``None`` dims: any size).

    >>> placeholder("float", [None, 784]).shape.as_list()
    [None, 784]
    """
    return placeholder_op.bind(dtype=dtypes.as_dtype(dtype).base_dtype,
                               shape=TensorShape(None) if shape is None else as_shape(shape),
                               name=name)


# ── PlaceholderWithDefault ───────────────────────────────────────────────────────────
def _placeholder_with_default_shape(x, *, dtype, shape):
    if not shape.is_compatible_with(x):
        raise ValueError(f"Shapes {shape} and {x} are incompatible")
    return shape


def _placeholder_with_default_kernel(x, *, dtype, shape):
    return x


placeholder_with_default_op = OpDef(
    "PlaceholderWithDefault", shape=_placeholder_with_default_shape,
    dtype=lambda x, *, dtype, shape: x, kernel=_placeholder_with_default_kernel,
    attrs={"dtype": None, "shape": TensorShape(None)}, aliases=(0,), input_names=("input",))


@placeholder_with_default_op.def_grad
def _placeholder_with_default_grad(op, dy):
    return [dy]


def placeholder_with_default(input, shape, name=None) -> Tensor:  # noqa: A002 - TF's name
    """A placeholder that yields ``input`` when it is not fed."""
    if isinstance(input, Tensor):
        return placeholder_with_default_op.bind(input, dtype=input.dtype, shape=as_shape(shape),
                                                name=name)
    with name_scope(name, "PlaceholderWithDefault") as scope:  # TF: .../input holds the value
        x = convert_to_tensor(input, name="input")
        return placeholder_with_default_op.bind(x, dtype=x.dtype, shape=as_shape(shape),
                                                name=scope)


# ── Identity ─────────────────────────────────────────────────────────────────────────
def _identity_kernel(x):
    return x


identity_op = OpDef("Identity", shape=same_shape, dtype=first_dtype, kernel=_identity_kernel,
                    aliases=(0,), input_names=("input",))
identity_op.def_static_value(_fold)


@identity_op.def_grad
def _identity_grad(op, dy):
    return [dy]


def identity(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The same value as ``input``, as a new tensor (reads a variable's current value)."""
    return identity_op.bind(input, name=name)


# ── IdentityN ────────────────────────────────────────────────────────────────────────
def _identity_n_kernel(*xs):
    return xs


identity_n_op = OpDef("IdentityN", shape=lambda *xs: list(xs), dtype=lambda *ds: list(ds),
                      kernel=_identity_n_kernel, aliases=True,
                      num_outputs=lambda attrs, n_inputs: n_inputs)


@identity_n_op.def_grad
def _identity_n_grad(op, *dys):
    return list(dys)


def identity_n(input, name=None) -> tuple:  # noqa: A002 - TF's name
    """Each input passed through unchanged, as one op (custom gradients hang off it)."""
    return tuple(identity_n_op.create(list(input), name=name)._outputs)


# ── StopGradient ─────────────────────────────────────────────────────────────────────
def _stop_gradient_kernel(x):
    return x


stop_gradient_op = OpDef("StopGradient", shape=same_shape, dtype=first_dtype,
                         kernel=_stop_gradient_kernel, aliases=(0,), grad=None,
                         input_names=("input",))
stop_gradient_op.def_static_value(_fold)


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Passes ``input`` through; autodiff treats it as a constant."""
    return stop_gradient_op.bind(input, name=name)



# ── Reshape ──────────────────────────────────────────────────────────────────────────
def _reshape_shape(tensor, shape):
    target = _partial_dims(shape)
    if target is None:
        return TensorShape(None)
    for i, d in enumerate(target):
        if d is not None and d < -1:
            raise ValueError(f"Size {i} must be non-negative, not {d}")
    if target.count(-1) > 1:
        return _shape_from_dims(target)
    return _shape_from_dims(_reshape_dims(tensor.shape, target))


def _reshape_dims(in_shape, target):
    """``target`` with its one unknown (or -1) entry inferred from ``in_shape``'s element
    count; TF's errors when the counts cannot match."""
    n_in = in_shape.num_elements()
    known = [d for d in target if d is not None and d != -1]
    product = int(np.prod(known)) if known else 1
    missing = [k for k, d in enumerate(target) if d is None or d == -1]
    in_dims = in_shape.as_tuple()
    known_in = [d for d in in_dims if d is not None] if in_dims is not None else []
    in_product = int(np.prod(known_in)) if known_in else 1
    if n_in is None and not missing and in_product > 0 and product % in_product:
        raise ValueError(f"Dimension size must be evenly divisible by {in_product} but is "
                         f"{product}")
    if not missing:
        if n_in is not None and product != n_in:
            raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape "
                             f"{_dims_str(target)} ({product} elements)")
    elif n_in is not None and len(missing) == 1 and product > 0:
        # TF infers the one unknown (or -1) entry from the element count.
        if n_in % product:
            raise ValueError(f"Dimension size must be evenly divisible by {product} but is "
                             f"{n_in}")
        target = list(target)
        target[missing[0]] = n_in // product
    return target


def _reshape_dtype(tensor, shape):
    check_dtype(shape, INDEX, "Tshape")
    return tensor


def _reshape_kernel(tensor, shape):
    dims = shape.tolist() if shape.ndim == 1 else [int(d) for d in shape]
    if -1 in dims and 0 in dims and tensor.size == 0:
        # TF's rule for an empty input and a target with a 0: the -1 takes the product of
        # the input's non-zero dims over that of the target's ([2, 0] to [-1, 0] is [2, 0]).
        known = int(np.prod([d for d in dims if d > 0]))
        dims[dims.index(-1)] = int(np.prod([d for d in tensor.shape if d])) // known
    try:
        return tensor.reshape(dims)
    except ValueError:
        known = int(np.prod([d for d in dims if d != -1]))
        want = (f"requires a multiple of {known}" if -1 in dims else f"has {known}")
        raise InvalidArgumentError(None, None, f"Input to reshape is a tensor with {tensor.size} "
                                   f"values, but the requested shape {want}") from None


reshape_op = OpDef("Reshape", shape=from_tensors(_reshape_shape), dtype=_reshape_dtype,
                   kernel=_reshape_kernel, aliases=(0,), input_names=("tensor", "shape"))
reshape_op.def_static_value(_fold)


@reshape_op.def_grad
def _reshape_grad(op, dy):
    """``dy`` in the input's shape: a constant shape with one ``-1`` when only one dim is
    unknown (no run-time ``Shape``, as TF), else the input's ``Shape``."""
    dims = op.inputs[0].shape.as_tuple()
    if dims is not None and dims.count(None) == 1 and 0 not in dims:
        return [reshape(_dense(dy), [-1 if d is None else d for d in dims]), None]
    return [reshape(_dense(dy), shape(op.inputs[0])), None]


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with the same values in a new shape; one ``-1`` entry is inferred.

    >>> reshape([[1, 2, 3], [4, 5, 6]], [-1]).shape.as_list()
    [6]
    """
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    return reshape_op.bind(tensor, _index_arg(shape), name=name)


# ── ExpandDims ───────────────────────────────────────────────────────────────────────
def _expand_dims_shape(x, dim):
    dims = x.shape.as_tuple()
    d = _static_ints(dim)
    if dims is None:
        return TensorShape(None)
    if d is None:
        return TensorShape(None)
    if len(d) != 1:
        raise ValueError(f"'dim' input must be a tensor with a single value, got {d}")
    d, r = d[0], len(dims)
    if not -r - 1 <= d <= r:
        raise ValueError(f"dim {d} not in the interval [{-r - 1}, {r}].")
    d = d + r + 1 if d < 0 else d
    return TensorShape(dims[:d] + (1,) + dims[d:])


def _expand_dims_dtype(x, dim):
    check_dtype(dim, INDEX, "Tdim")
    return x


def _expand_dims_kernel(x, dim):
    d = int(np.reshape(dim, -1)[0])
    if not -x.ndim - 1 <= d <= x.ndim:
        raise InvalidArgumentError(None, None, f"Tried to expand dim index {d} for tensor with "
                                   f"{x.ndim} dimensions.")
    return x[(builtins.slice(None),) * (d % (x.ndim + 1)) + (None,)]  # a view, as expand_dims


expand_dims_op = OpDef("ExpandDims", shape=from_tensors(_expand_dims_shape),
                       dtype=_expand_dims_dtype, kernel=_expand_dims_kernel, aliases=(0,),
                       input_names=("input", "dim"))
expand_dims_op.def_static_value(_fold)


@expand_dims_op.def_grad
def _expand_dims_grad(op, dy):
    return [reshape(_dense(dy), shape(op.inputs[0])), None]


def expand_dims(input, axis=None, name=None, dim=None) -> Tensor:  # noqa: A002 - TF's name
    """Inserts a dimension of size 1 at ``axis`` (TF1 also accepts ``dim``).

    >>> expand_dims([1, 2], 0).shape.as_list()
    [1, 2]
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return expand_dims_op.bind(input, axis, name=name)


# ── Squeeze ──────────────────────────────────────────────────────────────────────────
def _squeeze_shape(x, *, squeeze_dims):
    dims = x.as_tuple()
    if dims is None:
        return TensorShape(None)
    r = len(dims)
    axes = set()
    for a in squeeze_dims:
        if not -r <= a < r:
            raise ValueError(f"squeeze_dims[{len(axes)}] not in [{-r},{r}).")
        axes.add(a % r)
    out = []
    for i, d in enumerate(dims):
        if axes:
            if i not in axes:
                out.append(d)
            elif d is not None and d != 1:
                raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
        elif d is None:
            return TensorShape(None)
        elif d != 1:
            out.append(d)
    return TensorShape(out)


def _squeeze_kernel(x, *, squeeze_dims):
    if not squeeze_dims:
        return np.squeeze(x)
    axes = tuple(sorted({a % x.ndim for a in squeeze_dims}))
    for a in axes:
        if x.shape[a] != 1:
            raise InvalidArgumentError(None, None, f"Can not squeeze dim[{a}], expected a "
                                       f"dimension of 1, got {x.shape[a]}")
    return np.squeeze(x, axis=axes)


squeeze_op = OpDef("Squeeze", shape=_squeeze_shape, dtype=first_dtype, kernel=_squeeze_kernel,
                   attrs={"squeeze_dims": []}, aliases=(0,), input_names=("input",))
squeeze_op.def_static_value(_fold)


@squeeze_op.def_grad
def _squeeze_grad(op, dy):
    return [reshape(_dense(dy), shape(op.inputs[0]))]


def squeeze(input, axis=None, name=None, squeeze_dims=None) -> Tensor:  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those listed in ``axis``).

    >>> squeeze(constant([[1], [2]])).shape.as_list()
    [2]
    """
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
    axis = squeeze_dims if axis is None else axis
    if axis is None:
        axis = []
    elif isinstance(axis, (numbers.Integral, Dimension)):
        axis = [int(axis)]
    return squeeze_op.bind(input, squeeze_dims=[int(a) for a in axis], name=name)


# ── Shape ────────────────────────────────────────────────────────────────────────────
def _out_type_dtype(x, *, out_type):
    return check_dtype(out_type, INDEX, "out_type")


def _shape_value(t):
    s = t.op.inputs[0].shape
    return np.array(s.as_list(), t.dtype.as_numpy_dtype) if s.is_fully_defined() else None


def _shape_kernel(x, *, out_type):
    return np.array(x.shape, out_type.as_numpy_dtype)


shape_op = OpDef("Shape", shape=lambda x, *, out_type: TensorShape([x.ndims]),
                 dtype=_out_type_dtype, attrs={"out_type": dtypes.int32}, grad=None,
                 kernel=_shape_kernel, input_names=("input",))
shape_op.def_static_value(_shape_value)


def shape(input, name=None, out_type=dtypes.int32) -> Tensor:  # noqa: A002 - TF's name
    """The shape of ``input`` as a 1-D int tensor (a ``Const`` when statically known).

    >>> shape(constant([[1, 2, 3]])).op.type
    'Const'
    """
    return _shape_internal(input, name, True, out_type)


def _shape_internal(input, name, optimize, out_type, const_name=None):  # noqa: A002
    out_type = dtypes.as_dtype(out_type).base_dtype
    with _op_scope(name, "Shape", [input]) as scope:
        input = convert_to_tensor(input)
        if optimize and input.shape.is_fully_defined():
            return constant(input.shape.as_list(), out_type, name=const_name or scope)
        return shape_op.bind(input, out_type=out_type, name=scope)


# ── ShapeN ───────────────────────────────────────────────────────────────────────────
def _shape_n_shape(*xs, N, out_type):
    return [TensorShape([x.ndims]) for x in xs]


def _shape_n_dtype(*dts, N, out_type):
    return [check_dtype(out_type, INDEX, "out_type")] * N


def _shape_n_kernel(*xs, N, out_type):
    return tuple(np.array(x.shape, out_type.as_numpy_dtype) for x in xs)


def _shape_n_num_outputs(attrs, n):
    return attrs["N"]


shape_n_op = OpDef(
    "ShapeN", shape=_shape_n_shape, dtype=_shape_n_dtype, kernel=_shape_n_kernel,
    attrs={"N": 1, "out_type": dtypes.int32}, num_outputs=_shape_n_num_outputs, grad=None)


def shape_n(input, out_type=dtypes.int32, name=None) -> list:  # noqa: A002 - TF's name
    """The shapes of the tensors in ``input``, as one ``ShapeN`` op with an output each."""
    out_type = dtypes.as_dtype(out_type).base_dtype
    op = shape_n_op.create(list(input), {"N": len(input), "out_type": out_type},
                           name=name or "ShapeN")
    return list(op.outputs)


# ── BroadcastArgs (TF registers no gradient) ─────────────────────────────────────────
def _broadcast_dims(a, b):
    """The broadcast of two shapes given as lists of ints (TF's BCast); ValueError if they do
    not broadcast."""
    n = builtins.max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"Incompatible shapes: {_dims_str(a)} vs. {_dims_str(b)}")
        out.append(y if x == 1 else x)
    return out


def _broadcast_args_shape(s0, s1):
    for t in (s0, s1):
        if t.shape.ndims not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims}")
    a, b = _static_ints(s0), _static_ints(s1)
    if a is not None and b is not None:
        return TensorShape([len(_broadcast_dims(a, b))])
    n0, n1 = s0.shape.as_tuple(), s1.shape.as_tuple()
    if n0 is None or n1 is None or None in n0 + n1:
        return TensorShape([None])
    return TensorShape([builtins.max(n0[0], n1[0])])


def _broadcast_args_kernel(s0, s1):
    try:
        dims = _broadcast_dims([int(d) for d in s0], [int(d) for d in s1])
    except ValueError as e:
        raise InvalidArgumentError(None, None, str(e)) from None
    return np.array(dims, np.asarray(s0).dtype)


def _same_index_dtype(s0, s1, **attrs):
    if s1 is not s0:
        raise TypeError(f"Input 's1' of 'BroadcastArgs' Op has type {s1.name} that does not "
                        f"match type {s0.name} of argument 's0'.")
    return check_dtype(s0, INDEX, "T")


broadcast_args_op = OpDef("BroadcastArgs", shape=from_tensors(_broadcast_args_shape),
                          dtype=_same_index_dtype, kernel=_broadcast_args_kernel,
                          grad=NO_GRADIENT,
                          input_names=("s0", "s1"))


def _broadcast_args_static_value(t):
    a, b = (_static_ints(x) for x in t.op.inputs)
    if a is None or b is None:
        return None
    return np.array(_broadcast_dims(a, b), t.dtype.as_numpy_dtype)


broadcast_args_op.def_static_value(_broadcast_args_static_value)


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The static shape two static shapes broadcast to (``ValueError`` if they cannot).

    >>> broadcast_static_shape(TensorShape([2, 1]), TensorShape([None, 3])).as_list()
    [2, 3]
    """
    shape_x, shape_y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shape(shape_x, shape_y)
    except ValueError:
        raise ValueError(
            "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
            "dimension pair they are either equal or one of them is 1. Received: "
            f"{tuple(shape_x.as_list()) if shape_x.rank is not None else shape_x} and "
            f"{tuple(shape_y.as_list()) if shape_y.rank is not None else shape_y}.") from None


def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The shape two shapes (1-D int tensors) broadcast to, as a 1-D int tensor.

    >>> broadcast_dynamic_shape([2, 1], [3]).op.type
    'BroadcastArgs'
    """
    return broadcast_args_op.bind(shape_x, shape_y, name="BroadcastArgs")


# ── BroadcastGradientArgs: the reduction axes of a broadcast, at run time ────────────
def _broadcast_gradient_args_kernel(s0, s1):
    n = max(len(s0), len(s1))
    a = [1] * (n - len(s0)) + [int(d) for d in s0]
    b = [1] * (n - len(s1)) + [int(d) for d in s1]
    r0 = [i for i in range(n) if a[i] == 1 and b[i] != 1 or i < n - len(s0)]
    r1 = [i for i in range(n) if b[i] == 1 and a[i] != 1 or i < n - len(s1)]
    return np.array(r0, np.int32), np.array(r1, np.int32)


def _broadcast_gradient_args_shape(s0, s1):
    return [TensorShape([None]), TensorShape([None])]


def _broadcast_gradient_args_dtype(s0, s1):
    return [s0, s0]


broadcast_gradient_args_op = OpDef(
    "BroadcastGradientArgs", shape=_broadcast_gradient_args_shape,
    dtype=_broadcast_gradient_args_dtype, kernel=_broadcast_gradient_args_kernel, num_outputs=2,
    grad=None, input_names=("s0", "s1"))


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to sum over to undo broadcasting ``s0`` and ``s1`` to a common shape."""
    return broadcast_gradient_args_op.bind(s0, s1, name=name)


# ── Size ─────────────────────────────────────────────────────────────────────────────
def _size_value(t):
    n = t.op.inputs[0].shape.num_elements()
    return None if n is None else np.array(n, t.dtype.as_numpy_dtype)


def _size_kernel(x, *, out_type):
    return np.array(x.size, out_type.as_numpy_dtype)


size_op = OpDef("Size", shape=lambda x, *, out_type: TensorShape([]), dtype=_out_type_dtype,
                kernel=_size_kernel,
                attrs={"out_type": dtypes.int32}, grad=None, input_names=("input",))
size_op.def_static_value(_size_value)


def size(input, name=None, out_type=dtypes.int32) -> Tensor:  # noqa: A002 - TF's name
    """The number of elements of ``input`` (a ``Const`` when statically known)."""
    out_type = dtypes.as_dtype(out_type).base_dtype
    with _op_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        s = input.shape
        if s.is_fully_defined():
            return constant(s.num_elements(), out_type, name=scope)
        if s.ndims and 0 in s.as_tuple():
            return constant(0, out_type, name=scope)
        return size_op.bind(input, out_type=out_type, name=scope)


# ── Rank ─────────────────────────────────────────────────────────────────────────────
def _rank_value(t):
    n = t.op.inputs[0].shape.ndims
    return None if n is None else np.array(n, np.int32)


def _rank_kernel(x):
    return np.array(x.ndim, np.int32)


rank_op = OpDef("Rank", shape=lambda x: TensorShape([]), dtype=lambda x: dtypes.int32,
                kernel=_rank_kernel, grad=None, input_names=("input",))
rank_op.def_static_value(_rank_value)


def rank(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The number of dimensions of ``input`` (a ``Const`` when statically known)."""
    with _op_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtypes.int32, name=scope)
        return rank_op.bind(input, name=scope)
