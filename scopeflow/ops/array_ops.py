"""Array ops: placeholders, identity, shapes, reshaping, slicing, joining, gathering.

Each op is one block: its ``OpDef`` (shape and dtype rules, NumPy kernel) and its public
builder. Builders follow TF1's Python wrappers (``array_ops.py``) for op types, default
names and the constant shortcuts they take (``tf.shape`` of a fully defined shape is a
``Const``). ``slice_helper`` is TF's ``_slice_helper``, ``Tensor.__getitem__``
(``scopeflow/operators.py`` installs it); this module also installs the auto-packing
conversion of lists that contain tensors (``[t, 2.0]`` -> ``Pack``).
"""

from __future__ import annotations

import builtins
import contextlib
import math
import numbers

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import (
    Tensor,
    _graph_of,
    convert_to_tensor,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, first_dtype, same_shape
from scopeflow.framework.tensor_shape import Dimension, TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.constant_op import constant

__all__ = [
    "identity_n",
    "placeholder", "placeholder_with_default", "identity", "stop_gradient", "reshape",
    "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile", "pad",
    "slice", "strided_slice", "gather", "one_hot", "shape", "size", "rank", "fill", "zeros",
    "ones", "zeros_like", "ones_like", "boolean_mask", "newaxis", "invert_permutation",
]

newaxis = None

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


# ── Shared helpers ───────────────────────────────────────────────────────────────────
def _check_index_dtype(dtype, what, op_type):
    if dtype not in _INDEX_DTYPES:
        raise TypeError(f"Value passed to parameter '{what}' has DataType {dtype.name} not in "
                        f"list of allowed values: int32, int64")


def _dims_str(dims) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _static_ints(t):
    """The constant value of an int tensor as a flat list of ints, or ``None``."""
    v = constant_value(t)
    return None if v is None else [int(a) for a in np.reshape(v, -1)]


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
        return [int(a) for a in np.reshape(v, -1)] if v.ndim <= 1 else None
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


def _math_ops():
    from scopeflow.ops import math_ops  # math_ops may import this module: import lazily
    return math_ops


def _cast(x, dtype, name="Cast"):
    """``math_ops.cast`` (owned by math_ops); a no-op when the dtype already matches."""
    if x.dtype.base_dtype == dtype:
        return x
    cast = getattr(_math_ops(), "cast", None)
    if cast is None:
        raise TypeError(f"Cannot cast {x.name} from {x.dtype.name} to {dtype.name}: "
                        "math_ops.cast is not available")
    return cast(x, dtype, name=name)


def _dense(grad):
    """A gradient as a dense ``Tensor``: rules densify an ``IndexedSlices`` (from a gather
    downstream) as TF's ``_IndexedSlicesToTensorNoWarning`` does."""
    return grad if isinstance(grad, Tensor) else convert_to_tensor(grad)


# ── Placeholder ──────────────────────────────────────────────────────────────────────
def _placeholder_kernel(*, dtype, shape):
    # Never reached: plans refuse to compile when a needed placeholder is not fed.
    raise AssertionError("unfed placeholder")


placeholder_op = OpDef("Placeholder", shape=lambda *, dtype, shape: shape,
                       dtype=lambda *, dtype, shape: dtype, kernel=_placeholder_kernel,
                       attrs={"dtype": None, "shape": TensorShape(None)}, grad=NO_GRADIENT)


def placeholder(dtype, shape=None, name=None) -> Tensor:
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


placeholder_with_default_op = OpDef(
    "PlaceholderWithDefault", shape=_placeholder_with_default_shape,
    dtype=lambda x, *, dtype, shape: x, kernel=lambda x, *, dtype, shape: x,
    attrs={"dtype": None, "shape": TensorShape(None)}, aliases=(0,), input_names=("input",))
placeholder_with_default_op.def_grad(lambda op, dy: [dy])


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
def _always(op):
    return True


def _same_static_shape(op):
    """A reshape to the fully known static shape its input already has: the kernel's
    result could only be the input's values in the input's shape."""
    dims = op._inputs[0].shape.as_tuple()
    return bool(dims) and None not in dims and op._outputs[0].shape.as_tuple() == dims


identity_op = OpDef("Identity", shape=same_shape, dtype=first_dtype, kernel=lambda x: x,
                    aliases=(0,), input_names=("input",), forwards_input=_always)
identity_op.def_grad(lambda op, dy: [dy])


def identity(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The same value as ``input``, as a new tensor (reads a variable's current value)."""
    return identity_op.bind(input, name=name)


# ── IdentityN ────────────────────────────────────────────────────────────────────────
identity_n_op = OpDef("IdentityN", shape=lambda *xs: list(xs), dtype=lambda *ds: list(ds),
                      kernel=lambda *xs: xs, aliases=True,
                      num_outputs=lambda attrs, n_inputs: n_inputs)
identity_n_op.def_grad(lambda op, *dys: list(dys))


def identity_n(input, name=None) -> tuple:  # noqa: A002 - TF's name
    """Each input passed through unchanged, as one op (custom gradients hang off it)."""
    return tuple(identity_n_op.create(list(input), name=name)._outputs)


# ── StopGradient ─────────────────────────────────────────────────────────────────────
stop_gradient_op = OpDef("StopGradient", shape=same_shape, dtype=first_dtype,
                         kernel=lambda x: x, aliases=(0,), grad=None, input_names=("input",),
                         forwards_input=_always)


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Passes ``input`` through; autodiff treats it as a constant."""
    return stop_gradient_op.bind(input, name=name)



identity_op.def_static_value(_fold)
stop_gradient_op.def_static_value(_fold)


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
    n_in = tensor.shape.num_elements()
    known = [d for d in target if d is not None and d != -1]
    product = int(np.prod(known)) if known else 1
    missing = [k for k, d in enumerate(target) if d is None or d == -1]
    in_dims = tensor.shape.as_tuple()
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
    return _shape_from_dims(target)


def _reshape_dtype(tensor, shape):
    _check_index_dtype(shape, "Tshape", "Reshape")
    return tensor


def _reshape_kernel(tensor, shape):
    dims = shape.tolist() if shape.ndim == 1 else [int(d) for d in shape]
    try:
        return tensor.reshape(dims)
    except ValueError:
        known = int(np.prod([d for d in dims if d != -1]))
        want = (f"requires a multiple of {known}" if -1 in dims else f"has {known}")
        raise InvalidArgumentError(None, None, f"Input to reshape is a tensor with {tensor.size} "
                                   f"values, but the requested shape {want}") from None


reshape_op = OpDef("Reshape", shape=_reshape_shape, dtype=_reshape_dtype, kernel=_reshape_kernel,
                   aliases=(0,), shape_from_tensors=True, input_names=("tensor", "shape"),
                   forwards_input=_same_static_shape)
reshape_op.def_static_value(_fold)
reshape_op.def_grad(lambda op, dy: [reshape(_dense(dy), shape(op.inputs[0])), None])


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with the same values in a new shape; one ``-1`` entry is inferred.

    >>> reshape([[1, 2, 3], [4, 5, 6]], [-1]).shape.as_list()
    [6]
    """
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    return reshape_op.bind(tensor, _index_arg(shape), name=name)


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
    _check_index_dtype(perm, "Tperm", "Transpose")
    return x


def _transpose_kernel(x, perm):
    p = [int(i) for i in perm]
    if sorted(p) != list(builtins.range(x.ndim)):
        raise InvalidArgumentError(None, None, f"transpose expects a vector of size {x.ndim} "
                                   f"holding a permutation of 0..{x.ndim - 1}, got {p}")
    return np.transpose(x, p)


transpose_op = OpDef("Transpose", shape=_transpose_shape, dtype=_transpose_dtype,
                     kernel=_transpose_kernel, aliases=(0,), shape_from_tensors=True,
                     input_names=("x", "perm"))
transpose_op.def_static_value(_fold)
transpose_op.def_grad(
    lambda op, dy: [transpose(_dense(dy), invert_permutation(op.inputs[1])), None])


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
                start = _math_ops().subtract(r, 1, name="sub")
                perm = _math_ops().range(start, -1, -1, name="Range")
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
    _check_index_dtype(x, "T", "InvertPermutation")
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
    _check_index_dtype(dim, "Tdim", "ExpandDims")
    return x


def _expand_dims_kernel(x, dim):
    d = int(np.reshape(dim, -1)[0])
    if not -x.ndim - 1 <= d <= x.ndim:
        raise InvalidArgumentError(None, None, f"Tried to expand dim index {d} for tensor with "
                                   f"{x.ndim} dimensions.")
    return x[(builtins.slice(None),) * (d % (x.ndim + 1)) + (None,)]  # a view, as expand_dims


expand_dims_op = OpDef("ExpandDims", shape=_expand_dims_shape, dtype=_expand_dims_dtype,
                       kernel=_expand_dims_kernel, aliases=(0,), shape_from_tensors=True,
                       input_names=("input", "dim"))
expand_dims_op.def_static_value(_fold)
expand_dims_op.def_grad(lambda op, dy: [reshape(_dense(dy), shape(op.inputs[0])), None])


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
squeeze_op.def_grad(lambda op, dy: [reshape(_dense(dy), shape(op.inputs[0]))])


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


# ── ConcatV2 ─────────────────────────────────────────────────────────────────────────
def _concat_shape(*args, N):
    values, axis = args[:N], args[N]
    shapes = [v.shape.as_tuple() for v in values]
    known = [s for s in shapes if s is not None]
    if not known:
        return TensorShape(None)
    rank = len(known[0])
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    for s in known[1:]:
        if len(s) != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {len(s)}")
    a = _static_scalar(axis)
    if a is None:
        return TensorShape([None] * rank)
    if not -rank <= a < rank:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                         f"[{-rank}, {rank}), but got {a}")
    a %= rank
    rest = list(known[0][:a] + known[0][a + 1:])
    total = 0
    for s in shapes:
        if s is None:
            total = None
            continue
        other = s[:a] + s[a + 1:]
        for i, (x, y) in enumerate(zip(rest, other)):
            if x is not None and y is not None and x != y:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and "
                                 f"{y}. Shapes are {_dims_str(rest)} and {_dims_str(other)}.")
            rest[i] = x if x is not None else y
        total = None if total is None or s[a] is None else total + s[a]
    return TensorShape(rest[:a] + [total] + rest[a:])


def _concat_dtype(*dts, N):
    _check_index_dtype(dts[N], "Tidx", "ConcatV2")
    return _same_dtypes(dts[:N], "ConcatV2", "values")


def _concat_kernel(*args, N):
    values, axis = args[:N], int(args[N])
    rank = values[0].ndim
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"ConcatOp : Expected concatenating dimensions in "
                                   f"the range [{-rank}, {rank}), but got {axis}")
    try:
        return np.concatenate(values, axis=axis)
    except ValueError as e:
        raise InvalidArgumentError(None, None, f"ConcatOp : Dimensions of inputs should match: "
                                   f"{e}") from None


concat_op = OpDef("ConcatV2", shape=_concat_shape, dtype=_concat_dtype, kernel=_concat_kernel,
                  attrs={"N": 2}, shape_from_tensors=True, input_names=("values", "axis"),
                  fresh_outputs=True)
concat_op.def_static_value(_fold)


@concat_op.def_grad
def _concat_grad(op, dy):
    """TF's ``_ConcatGradHelper``: ``dy`` sliced at each input's ``ConcatOffset``."""
    n = op.get_attr("N")
    values, axis = op.inputs[:n], op.inputs[n]
    dy = _dense(dy)
    if n == 1:
        return [dy, None]
    a, r = _static_scalar(axis), values[0].shape.ndims
    axis = a % r if a is not None and r is not None else axis % rank(values[0])
    sizes = [shape(v) for v in values]
    offsets = concat_offset(axis, sizes)
    return [slice(dy, b, s) for b, s in zip(offsets, sizes)] + [None]


def concat(values, axis, name="concat") -> Tensor:
    """Joins ``values`` along the existing dimension ``axis``.

    >>> concat([[1, 2], [3]], 0).shape.as_list()
    [3]
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:  # TF: a single value is passed through an Identity
        with _op_scope(name, None, values) as scope:
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).shape \
                .assert_has_rank(0)
            return identity(values[0], name=name)
    with _op_scope(name, "ConcatV2", list(values) + [axis]) as scope:
        vals = _convert_list(values, "values")
        axis = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, name="axis")
        return concat_op.bind(*vals, axis, N=len(vals), name=scope)


# ── ConcatOffset (where each ConcatV2 input starts, for its gradient) ────────────────
def _concat_offset_shape(concat_dim, *shapes, N):
    if concat_dim.shape.ndims not in (0, None):
        raise ValueError(f"Shape must be rank 0 but is rank {concat_dim.shape.ndims}")
    return [TensorShape([None]) if s.shape.ndims is None else s.shape for s in shapes]


def _concat_offset_dtype(concat_dim, *shapes, N):
    if concat_dim is not dtypes.int32:
        raise TypeError(f"Value passed to parameter 'concat_dim' has DataType "
                        f"{concat_dim.name} not in list of allowed values: int32")
    _check_index_dtype(shapes[0], "shape_type", "ConcatOffset")
    return [_same_dtypes(list(shapes), "ConcatOffset", "shape")] * N


def _concat_offset_kernel(concat_dim, *shapes, N):
    first, r = shapes[0], shapes[0].size
    d = int(concat_dim)
    if not -r <= d < r:
        raise InvalidArgumentError(None, None, f"Concat dim is out of range: {d} vs. {r}")
    d %= r
    outs, offset = [], 0
    for i, s in enumerate(shapes):
        if s.size != r:
            raise InvalidArgumentError(None, None, f"input {i} should contain {r} elements, "
                                       f"but got {s.size}")
        if any(s[j] != first[j] for j in builtins.range(r) if j != d):
            raise InvalidArgumentError(None, None, f"All dimensions except {d} must match. "
                                       f"Input {i} has shape {s.tolist()} and doesn't match "
                                       f"input 0 with shape {first.tolist()}.")
        out = np.zeros(r, s.dtype)
        out[d] = offset
        offset += int(s[d])
        outs.append(out)
    return outs[0] if N == 1 else tuple(outs)


concat_offset_op = OpDef("ConcatOffset", shape=_concat_offset_shape, dtype=_concat_offset_dtype,
                         kernel=_concat_offset_kernel, attrs={"N": 2}, grad=None,
                         num_outputs=lambda attrs, n: attrs["N"], shape_from_tensors=True,
                         input_names=("concat_dim", "shape"))
concat_offset_op.def_static_value(_fold)


def concat_offset(concat_dim, shape, name=None) -> list:  # noqa: A002 - TF's name
    """The offset of each of ``shape`` (input shapes) in their concatenation along
    ``concat_dim``: zeros except the running total at ``concat_dim``."""
    with _op_scope(name, "ConcatOffset", [concat_dim] + list(shape)) as scope:
        tensors = _convert_list(shape, "shape")
        dim = convert_to_tensor(concat_dim, dtype=dtypes.int32, name="concat_dim")
        return _outputs_list(concat_offset_op.bind(dim, *tensors, N=len(tensors), name=scope))


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
pack_op.def_grad(lambda op, dy: unstack(_dense(dy), num=op.get_attr("N"),
                                        axis=op.get_attr("axis")))


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
unpack_op.def_grad(lambda op, *dys: [stack([_dense(d) for d in dys],
                                               axis=op.get_attr("axis"))])


def _outputs_list(result):
    if isinstance(result, Tensor):
        return [result]
    if isinstance(result, tuple):
        return list(result)
    return []  # an op without outputs


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


# ── Split ────────────────────────────────────────────────────────────────────────────
def _split_axis(dims, axis):
    a = _static_scalar(axis)
    if a is None or dims is None:
        return None
    r = len(dims)
    if not -r <= a < r:
        raise ValueError(f"Dimension {a} must be in range [{-r}, {r}), where {r} is the number "
                         "of dimensions in the input.")
    return a % r


def _split_shape(axis, value, *, num_split):
    dims = value.shape.as_tuple()
    a = _split_axis(dims, axis)
    if dims is None:
        return [TensorShape(None)] * num_split
    if a is None:
        return [TensorShape([None] * len(dims))] * num_split
    d = dims[a]
    if d is not None and d % num_split:
        raise ValueError(f"Dimension size must be evenly divisible by {num_split} but is {d}")
    out = list(dims)
    out[a] = None if d is None else d // num_split
    return [TensorShape(out)] * num_split


def _split_dtype(axis, value, *, num_split):
    if axis is not dtypes.int32:
        raise TypeError(f"Value passed to parameter 'split_dim' has DataType {axis.name} not in "
                        "list of allowed values: int32")
    return [value] * num_split


def _split_kernel(axis, value, *, num_split):
    a = int(axis)
    if value.shape[a] % num_split:
        raise InvalidArgumentError(None, None, f"Number of ways to split should evenly divide the "
                                   f"split dimension, but got split_dim {a} (size = "
                                   f"{value.shape[a]}) and num_split {num_split}")
    outs = tuple(np.split(value, num_split, axis=a))
    return outs[0] if num_split == 1 else outs


split_op = OpDef("Split", shape=_split_shape, dtype=_split_dtype, kernel=_split_kernel,
                 attrs={"num_split": 1}, num_outputs=lambda attrs, n: attrs["num_split"],
                 aliases=(1,), shape_from_tensors=True, input_names=("split_dim", "value"))
split_op.def_static_value(_fold)
split_op.def_grad(lambda op, *dys: [None, concat([_dense(d) for d in dys], op.inputs[0])])


# ── SplitV ───────────────────────────────────────────────────────────────────────────
def _resolve_sizes(sizes, total):
    """``size_splits`` with its single ``-1`` replaced (``None`` when unknowable)."""
    if sizes.count(-1) > 1:
        raise ValueError("Only one dimensions can have a value of -1. Second one found at "
                         f"dimension {[i for i, s in enumerate(sizes) if s == -1][1]}")
    if -1 not in sizes:
        return sizes
    if total is None or None in sizes:
        return [None if s == -1 else s for s in sizes]
    rest = sum(s for s in sizes if s != -1)
    return [total - rest if s == -1 else s for s in sizes]


def _split_v_shape(value, size_splits, axis, *, num_split):
    dims = value.shape.as_tuple()
    a = _split_axis(dims, axis)
    if dims is None:
        return [TensorShape(None)] * num_split
    if a is None:
        return [TensorShape([None] * len(dims))] * num_split
    sizes = _partial_dims(size_splits) or [None] * num_split
    sizes = _resolve_sizes(list(sizes), dims[a])
    if dims[a] is not None and None not in sizes and sum(sizes) != dims[a]:
        raise ValueError("Determined shape must either match input shape along split_dim "
                         "exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified.  Got: {sum(sizes)}")
    return [TensorShape(dims[:a] + (s,) + dims[a + 1:]) for s in sizes]


def _split_v_dtype(value, size_splits, axis, *, num_split):
    _check_index_dtype(size_splits, "Tlen", "SplitV")
    return [value] * num_split


def _split_v_kernel(value, size_splits, axis, *, num_split):
    a = int(axis)
    sizes = _resolve_sizes([int(s) for s in size_splits], value.shape[a])
    if sum(sizes) != value.shape[a] or any(s < 0 for s in sizes):
        raise InvalidArgumentError(None, None, "Determined shape must either match input shape "
                                   "along split_dim exactly if fully specified, or be less than "
                                   "the size of the input along split_dim if not fully "
                                   f"specified.  Got: {sum(sizes)}")
    outs = tuple(np.split(value, np.cumsum(sizes)[:-1], axis=a))
    return outs[0] if num_split == 1 else outs


split_v_op = OpDef("SplitV", shape=_split_v_shape, dtype=_split_v_dtype, kernel=_split_v_kernel,
                   attrs={"num_split": 1}, num_outputs=lambda attrs, n: attrs["num_split"],
                   aliases=(0,), shape_from_tensors=True,
                   input_names=("value", "size_splits", "split_dim"))
split_v_op.def_static_value(_fold)
split_v_op.def_grad(
    lambda op, *dys: [concat([_dense(d) for d in dys], op.inputs[2]), None, None])


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """Splits ``value`` along ``axis`` into equal parts (an int) or parts of given sizes.

    >>> [t.shape.as_list() for t in split(constant([[1, 2, 3]]), [1, 2], axis=1)]
    [[1, 1], [1, 2]]
    """
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and \
            not isinstance(num_or_size_splits, bool):
        n = int(num_or_size_splits)
        return _outputs_list(split_op.bind(axis, value, num_split=n, name=name))
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        dims = size_splits.shape.as_tuple()
        num = dims[0] if dims else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return _outputs_list(split_v_op.bind(value, size_splits, axis, num_split=num, name=name))


# ── Tile ─────────────────────────────────────────────────────────────────────────────
def _tile_shape(x, multiples):
    dims = x.shape.as_tuple()
    m = _partial_dims(multiples)
    if m is None:
        return TensorShape(None if dims is None else [None] * len(dims))
    if dims is None:
        return TensorShape([None] * len(m))
    if len(m) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(m)}")
    return TensorShape([None if a is None or b is None else a * b for a, b in zip(dims, m)])


def _tile_dtype(x, multiples):
    _check_index_dtype(multiples, "Tmultiples", "Tile")
    return x


def _tile_kernel(x, multiples):
    m = [int(a) for a in multiples]
    if len(m) != x.ndim:
        raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of "
                                   f"length {x.ndim} but got length {len(m)}")
    if any(a < 0 for a in m):
        raise InvalidArgumentError(None, None, f"Expected multiples to be non-negative, got {m}")
    if all(a == 1 for a in m):
        return x  # TF forwards the input when the output has its shape
    return np.tile(x, m)


tile_op = OpDef("Tile", shape=_tile_shape, dtype=_tile_dtype, kernel=_tile_kernel,
                shape_from_tensors=True, input_names=("input", "multiples"), aliases=(0,))
tile_op.def_static_value(_fold)


@tile_op.def_grad
def _tile_grad(op, dy):
    """Sums ``dy`` over the tiled copies: reshape to ``[m0, d0, m1, d1, ...]``, then
    reduce the even axes (TF's ``_TileGrad``)."""
    x, multiples = op.inputs
    x_shape = shape(x, out_type=multiples.dtype.base_dtype)
    split_shape = reshape(transpose(stack([multiples, x_shape])), [-1])
    axes = _math_ops().range(0, size(split_shape), 2)
    dx = _math_ops().reduce_sum(reshape(_dense(dy), split_shape), axes)
    dx.set_shape(x.shape)
    return [dx, None]


def tile(input, multiples, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Repeats ``input`` ``multiples[i]`` times along each dimension ``i``.

    >>> tile([[1, 2]], [2, 1]).shape.as_list()
    [2, 2]
    """
    return tile_op.bind(input, _index_arg(multiples), name=name)


# ── Pad / PadV2 / MirrorPad ──────────────────────────────────────────────────────────
def _pad_shape(x, paddings, *rest, **attrs):
    dims = x.shape.as_tuple()
    p = constant_value(paddings)
    pshape = paddings.shape.as_tuple()
    if pshape is not None and len(pshape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(pshape)}")
    if p is None:
        n = pshape[0] if pshape else None
        rank = len(dims) if dims is not None else n
        return TensorShape(None if rank is None else [None] * rank)
    p = np.asarray(p).reshape(-1, 2) if p.size else np.zeros((0, 2), np.int64)
    if dims is None:
        return TensorShape([None] * len(p))
    if len(p) != len(dims):
        raise ValueError(f"Shape must be rank {len(p)} but is rank {len(dims)}")
    if (p < 0).any():
        raise ValueError(f"Paddings must be non-negative: {p.tolist()}")
    return TensorShape([None if d is None else d + int(a) + int(b) for d, (a, b) in zip(dims, p)])


def _pad_dtype(x, paddings, *rest, **attrs):
    _check_index_dtype(paddings, "Tpaddings", "Pad")
    if rest and rest[0] is not x:
        raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type {rest[0].name} that "
                        f"does not match type {x.name} of argument 'input'.")
    return x


def _check_paddings(x, paddings):
    """The ``[before, after]`` pairs as Python ints (small: checked in Python, not NumPy)."""
    shape = np.shape(paddings)
    if len(shape) != 2 or shape[1] != 2:
        raise InvalidArgumentError(None, None, f"paddings must be a matrix with 2 columns: "
                                   f"[{','.join(map(str, shape))}]")
    p = np.asarray(paddings).tolist()
    if len(p) != x.ndim:
        raise InvalidArgumentError(None, None, f"The first dimension of paddings must be the rank "
                                   f"of inputs{list(np.shape(paddings))} {list(x.shape)}")
    if any(a < 0 or b < 0 for a, b in p):
        raise InvalidArgumentError(None, None, f"Paddings must be non-negative: {p}")
    return p


def _per_shape(make):
    """``make(x, *constants)`` (checks included) worked out once per shape of ``x`` and
    then reused: for kernels whose other inputs are plan constants."""
    memo = {}

    def lookup(x, *constants):
        found = memo.get(x.shape)
        if found is None:
            if len(memo) >= 8:  # a few shapes at most (a varying batch size)
                memo.clear()
            found = memo[x.shape] = make(x, *constants)
        return found

    return lookup


def _pad_layout(x, paddings):
    """The padded shape and the input's place in it, checked as TF's Pad."""
    p = _check_paddings(x, paddings)
    return ([d + a + b for d, (a, b) in zip(x.shape, p)],
            tuple([builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, p)]))


def _pad_into(x, layout, constant_values=None):
    # NOTE: a fill plus one slice assignment; np.pad costs ~30 us of Python per call. Filling
    # the whole output (memset for zeros) and then the input is cheaper than filling only
    # the padding slabs, which costs a slice assignment per padded side.
    shape, inner = layout
    if x.size == math.prod(shape):
        return x.reshape(shape)  # nothing to pad: TF forwards the input's buffer
    if constant_values is None and x.dtype != object:
        out = np.zeros(shape, x.dtype)
    else:
        if constant_values is None:
            fill = b""
        else:
            fill = constant_values.reshape(())
            fill = fill.item() if x.dtype == object else fill
        out = np.full(shape, fill, x.dtype)
    out[inner] = x
    return out


def _pad_kernel(x, paddings, constant_values=None):
    return _pad_into(x, _pad_layout(x, paddings), constant_values)


def _pad_const_kernel(consts):
    # With constant paddings (the Slice gradients'), the layout is checked and worked out
    # once per input shape instead of on every run.
    if consts[1] is None:
        return None
    layout_for = _per_shape(_pad_layout)

    def _pad_constant_paddings(x, paddings):
        return _pad_into(x, layout_for(x, paddings))

    return _pad_constant_paddings


def _pads_something(op, consts) -> bool:
    """Whether the paddings are constants that grow the input (so the output is new)."""
    paddings = consts.get(op._inputs[1])
    return paddings is not None and bool(np.any(paddings))


pad_op = OpDef("Pad", shape=_pad_shape, dtype=_pad_dtype, kernel=_pad_kernel,
               shape_from_tensors=True, input_names=("input", "paddings"),
               const_kernel=_pad_const_kernel, fresh_outputs=_pads_something, aliases=(0,))
pad_v2_op = OpDef("PadV2", shape=_pad_shape, dtype=_pad_dtype, kernel=_pad_kernel,
                  shape_from_tensors=True, input_names=("input", "paddings", "constant_values"),
                  aliases=(0,))
pad_op.def_static_value(_fold)
pad_v2_op.def_static_value(_fold)


def _pad_grad(op, dy):
    """The un-padded block of ``dy`` (``constant_values`` gets no gradient, as in TF)."""
    x, paddings = op.inputs[:2]
    before = slice(paddings, [0, 0], stack([rank(x), 1]))
    begin = reshape(before, [-1])
    dx = slice(_dense(dy), begin, shape(x, out_type=begin.dtype.base_dtype))
    return [dx] + [None] * (len(op.inputs) - 1)


pad_op.def_grad(_pad_grad)
pad_v2_op.def_grad(_pad_grad)


def _mirror_pad_kernel(x, paddings, *, mode):
    p = _check_paddings(x, paddings)
    offset = 0 if mode == "REFLECT" else 1
    for i, (a, b) in enumerate(p):
        if max(a, b) > x.shape[i] - 1 + offset:
            rel = "less than" if offset == 0 else "no greater than"
            raise InvalidArgumentError(None, None, f"paddings must be {rel} the dimension size: "
                                       f"{a}, {b} not {rel} {x.shape[i]}")
    return np.pad(x, p, mode="reflect" if mode == "REFLECT" else "symmetric")


mirror_pad_op = OpDef("MirrorPad", shape=_pad_shape, dtype=_pad_dtype, kernel=_mirror_pad_kernel,
                      attrs={"mode": "REFLECT"}, shape_from_tensors=True,
                      input_names=("input", "paddings"))
mirror_pad_op.def_static_value(_fold)
mirror_pad_op.def_grad(lambda op, dy: [
    mirror_pad_grad(_dense(dy), op.inputs[1], mode=op.get_attr("mode")), None])


# ── MirrorPadGrad (MirrorPad's gradient: the reflections folded back and summed) ──────
def _mirror_pad_grad_shape(x, paddings, *, mode):
    dims = x.shape.as_tuple()
    p = constant_value(paddings)
    if p is None or dims is None:
        return _pad_shape(x, paddings)
    p = np.asarray(p).reshape(-1, 2) if p.size else np.zeros((0, 2), np.int64)
    if len(p) != len(dims):
        raise ValueError(f"Shape must be rank {len(p)} but is rank {len(dims)}")
    out = [None if d is None else d - int(a) - int(b) for d, (a, b) in zip(dims, p)]
    if any(d is not None and d < 0 for d in out) or (p < 0).any():
        raise ValueError(f"Paddings {p.tolist()} exceed the input shape {_dims_str(dims)}")
    return TensorShape(out)


def _mirror_pad_grad_kernel(dy, paddings, *, mode):
    out = dy.copy()
    np_mode = "reflect" if mode == "REFLECT" else "symmetric"
    for axis, (a, b) in enumerate(_check_paddings(dy, paddings)):
        n = out.shape[axis] - a - b
        if max(a, b) > n - (mode == "REFLECT"):
            raise InvalidArgumentError(None, None, f"paddings {a}, {b} too large for a "
                                       f"{mode} pad of a dimension of size {n}")
        source = np.pad(np.arange(n), (a, b), mode=np_mode)  # padded position -> input index
        folded = np.zeros(out.shape[:axis] + (n,) + out.shape[axis + 1:], dy.dtype)
        np.add.at(folded, (builtins.slice(None),) * axis + (source,), out)
        out = folded
    return out


mirror_pad_grad_op = OpDef("MirrorPadGrad", shape=_mirror_pad_grad_shape, dtype=_pad_dtype,
                           kernel=_mirror_pad_grad_kernel, attrs={"mode": "REFLECT"},
                           shape_from_tensors=True, input_names=("input", "paddings"))
mirror_pad_grad_op.def_grad(lambda op, dy: [
    mirror_pad_op.bind(_dense(dy), op.inputs[1], mode=op.get_attr("mode")), None])


def mirror_pad_grad(input, paddings, mode, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The gradient of ``pad(x, paddings, mode)`` w.r.t. ``x``, given ``input`` (the padded
    tensor's gradient): each mirrored element is added back onto its source."""
    return mirror_pad_grad_op.bind(input, paddings, mode=mode.upper(), name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0) -> Tensor:
    """Pads ``tensor`` with ``paddings[i] = [before, after]`` entries along each dimension.

    ``mode`` is ``"CONSTANT"`` (``Pad``, or ``PadV2`` for a non-zero ``constant_values``),
    ``"REFLECT"`` or ``"SYMMETRIC"`` (``MirrorPad``), case-insensitive.

    >>> pad([[1, 2]], [[1, 1], [0, 2]]).shape.as_list()
    [3, 4]
    """
    mode = mode.upper()
    if isinstance(paddings, (list, tuple)) and not paddings:
        paddings = np.zeros([0, 2], np.int32)
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            return pad_op.bind(tensor, paddings, name=name)
        with _op_scope(name, "PadV2", [tensor, paddings, constant_values]) as scope:
            tensor = convert_to_tensor(tensor, name="input")
            paddings = convert_to_tensor(paddings, name="paddings")
            constant_values = convert_to_tensor(constant_values, dtype=tensor.dtype.base_dtype,
                                                name="constant_values")
            return pad_v2_op.bind(tensor, paddings, constant_values, name=scope)
    if mode in ("REFLECT", "SYMMETRIC"):
        return mirror_pad_op.bind(tensor, paddings, mode=mode, name=name)
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                     f'"SYMMETRIC". Received `mode` = {mode}')


# ── Slice ────────────────────────────────────────────────────────────────────────────
def _slice_shape(x, begin, size):
    dims = x.shape.as_tuple()
    b = _partial_dims(begin)
    s = _partial_dims(size)
    rank = len(dims) if dims is not None else len(b) if b is not None else \
        len(s) if s is not None else None
    if rank is None:
        return TensorShape(None)
    for what, v in (("begin", b), ("size", s)):
        if v is not None and len(v) != rank:
            raise ValueError(f"Length of {what} must be equal to rank: {len(v)} vs {rank}")
    b = b or [None] * rank
    s = s or [None] * rank
    dims = dims or (None,) * rank
    out = []
    for d, bi, si in zip(dims, b, s):
        if si is None or si == -1:
            out.append(None if si is None or d is None or bi is None else max(d - bi, 0))
        else:
            out.append(si if si >= 0 else None)
    return TensorShape(out)


def _slice_dtype(x, begin, size):
    _check_index_dtype(begin, "Index", "Slice")
    if size is not begin:
        raise TypeError(f"Input 'size' of 'Slice' Op has type {size.name} that does not match "
                        f"type {begin.name} of argument 'begin'.")
    return x


def _slice_index(x, begin, size):
    """The index tuple of ``x[begin:begin + size]``, checked as TF's Slice."""
    index = []
    shapes = (list(np.shape(begin)), list(np.shape(size)))
    if begin.ndim == 1 and size.ndim == 1:
        begin, size = begin.tolist(), size.tolist()  # Python ints: cheaper than int() each
    for i, (d, b, s) in enumerate(zip(x.shape, begin, size)):
        b, s = int(b), int(s)
        if not 0 <= b <= d:
            raise InvalidArgumentError(None, None, f"Expected begin[{i}] in [0, {d}], but got {b}")
        s = d - b if s == -1 else s
        if not 0 <= s <= d - b:
            raise InvalidArgumentError(None, None, f"Expected size[{i}] in [0, {d - b}], but got "
                                       f"{s}")
        index.append(builtins.slice(b, b + s))
    if len(index) != x.ndim or len(size) != x.ndim:
        raise InvalidArgumentError(None, None, f"Expected begin and size arguments to be 1-D "
                                   f"tensors of size {x.ndim}, but got shapes "
                                   f"{shapes[0]} and {shapes[1]} instead.")
    return tuple(index) + (Ellipsis,)


def _slice_kernel(x, begin, size):
    return x[_slice_index(x, begin, size)]


def _slice_const_kernel(consts):
    # With constant begin and size (the nce_loss's true/sampled split), the index is
    # checked and built once per input shape instead of on every run.
    if consts[1] is None or consts[2] is None:
        return None
    index_for = _per_shape(_slice_index)

    def _slice_constant_bounds(x, begin, size):
        return x[index_for(x, begin, size)]

    return _slice_constant_bounds


slice_op = OpDef("Slice", shape=_slice_shape, dtype=_slice_dtype, kernel=_slice_kernel,
                 aliases=(0,), shape_from_tensors=True, input_names=("input", "begin", "size"),
                 const_kernel=_slice_const_kernel)
slice_op.def_static_value(_fold)


@slice_op.def_grad
def _slice_grad(op, dy):
    """``dy`` padded back to the input's shape with ``[begin, shape - size - begin]``."""
    x, begin = op.inputs[:2]
    index_dtype = begin.dtype.base_dtype
    rows = stack([rank(x), 1])
    before = reshape(begin, rows)
    after = reshape(shape(x, out_type=index_dtype) - shape(op.outputs[0], out_type=index_dtype)
                    - begin, rows)
    dx = pad(_dense(dy), concat([before, after], 1))
    dx.set_shape(x.shape)
    return [dx, None, None]


def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001 - TF's name
    """The ``size``-shaped block of ``input_`` that starts at ``begin`` (-1: to the end).

    >>> slice(constant([[1, 2, 3]]), [0, 1], [-1, 2]).shape.as_list()
    [1, 2]
    """
    return slice_op.bind(input_, _index_arg(begin), _index_arg(size), name=name)


# ── StridedSlice ─────────────────────────────────────────────────────────────────────
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


def _ss_dense_dims(dims, n, begin, end, strides, masks):
    """Static output dims of a strided slice; ``begin``/``end``/``strides`` may hold None."""
    ell, new = masks["ellipsis_mask"], masks["new_axis_mask"]
    if bin(ell & ((1 << n) - 1)).count("1") > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    real = sum(1 for k in builtins.range(n) if not (ell | new) & (1 << k))
    out, d = [], 0
    for k in builtins.range(n):
        bit = 1 << k
        if ell & bit:
            cover = max(len(dims) - real, 0)
            out.extend(dims[d:d + cover])
            d += cover
            continue
        if new & bit:
            out.append(1)
            continue
        if d >= len(dims):
            raise ValueError(f"Index out of range using input dim {d}; input has only "
                             f"{len(dims)} dims")
        dim, d = dims[d], d + 1
        b, e, s = begin[k], end[k], strides[k]
        if masks["shrink_axis_mask"] & bit:
            if b is not None and dim is not None and not -dim <= b < dim:
                raise ValueError(f"slice index {b} of dimension {d - 1} out of bounds.")
            continue
        if s == 0:
            raise ValueError(f"strides[{k}] must be non-zero")
        b = None if masks["begin_mask"] & bit else (b if b is not None else "?")
        e = None if masks["end_mask"] & bit else (e if e is not None else "?")
        if dim is None or s is None or b == "?" or e == "?":
            out.append(None)
        else:
            out.append(len(builtins.range(*builtins.slice(b, e, s).indices(dim))))
    return out + list(dims[d:])


def _strided_slice_shape(x, begin, end, strides, **masks):
    dims = x.shape.as_tuple()
    spec = [_partial_dims(t) for t in (begin, end, strides)]
    n = next((len(v) for v in spec if v is not None), None)
    if dims is None or n is None:
        return TensorShape(None)
    spec = [v if v is not None else [None] * n for v in spec]
    return TensorShape(_ss_dense_dims(dims, n, *spec, masks))


def _strided_slice_dtype(x, begin, end, strides, **masks):
    _check_index_dtype(begin, "Index", "StridedSlice")
    _same_dtypes([begin, end, strides], "StridedSlice", "begin")
    return x


def _strided_slice_kernel(x, begin, end, strides, **masks):
    try:
        index = _ss_index(begin, end, strides, **masks)
    except ValueError as e:
        raise InvalidArgumentError(None, None, str(e)) from None
    if Ellipsis not in index:
        index += (Ellipsis,)  # keeps a full integer index from returning a NumPy scalar
    try:
        return x[index]
    except IndexError as e:
        msg = f"slice index out of bounds: {e}"
        try:  # the static rule names the offending index as TF does
            _ss_dense_dims(x.shape, len(strides), list(begin), list(end), list(strides), masks)
        except ValueError as static:
            msg = str(static)
        raise InvalidArgumentError(None, None, msg) from None


def _strided_slice_value(t):
    value = _fold(t)
    if value is not None:
        return value
    got = _slice_partial(t.op)
    np_dtype = t.dtype.base_dtype.as_numpy_dtype
    if isinstance(got, list) and None not in got:
        return np.array(got, dtype=np_dtype)
    if got is not None and not isinstance(got, list):
        return np.array(got, dtype=np_dtype)
    return None


strided_slice_op = OpDef("StridedSlice", shape=_strided_slice_shape, dtype=_strided_slice_dtype,
                         kernel=_strided_slice_kernel, attrs=dict(_SS_MASKS), aliases=(0,),
                         shape_from_tensors=True,
                         input_names=("input", "begin", "end", "strides"))
strided_slice_op.def_static_value(_strided_slice_value)
strided_slice_op.def_grad(lambda op, dy: [strided_slice_grad(
    shape(op.inputs[0], out_type=op.inputs[1].dtype.base_dtype), *op.inputs[1:], _dense(dy),
    **op.attrs), None, None, None])


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Tensor:
    """``input_[begin:end:strides]`` per dimension, with TF's mask bits (see ``Tensor[...]``).

    >>> strided_slice(constant([[1, 2, 3]]), [0, 2], [1, 0], [1, -1]).shape.as_list()
    [1, 2]
    """
    if strides is None:
        if isinstance(begin, Tensor):
            strides = ones_like(begin)
        else:
            strides = [1] * len(begin)
    begin, end, strides = _index_arg(begin), _index_arg(end), _index_arg(strides)
    return strided_slice_op.bind(input_, begin, end, strides, begin_mask=int(begin_mask),
                                 end_mask=int(end_mask), ellipsis_mask=int(ellipsis_mask),
                                 new_axis_mask=int(new_axis_mask),
                                 shrink_axis_mask=int(shrink_axis_mask), name=name)


# ── StridedSliceGrad (StridedSlice's gradient: dy scattered into zeros) ─────────────
def _strided_slice_grad_shape(shape, begin, end, strides, dy, **masks):  # noqa: A002
    if shape.shape.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {shape.shape.ndims}")
    return _shape_from_dims(_partial_dims(shape))


def _strided_slice_grad_dtype(shape, begin, end, strides, dy, **masks):  # noqa: A002
    _check_index_dtype(shape, "Index", "StridedSliceGrad")
    _same_dtypes([shape, begin, end, strides], "StridedSliceGrad", "shape")
    return dy


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, **masks):  # noqa: A002
    out = np.zeros([int(d) for d in shape], dy.dtype)
    try:
        index = _ss_index(begin, end, strides, **masks)
        if Ellipsis not in index:
            index += (Ellipsis,)
        if out[index].shape != dy.shape:
            raise ValueError(f"shape of dy was {list(dy.shape)} instead of "
                             f"{list(out[index].shape)}")
        out[index] = dy
    except (ValueError, IndexError) as e:
        raise InvalidArgumentError(None, None, f"StridedSliceGrad: {e}") from None
    return out


strided_slice_grad_op = OpDef(
    "StridedSliceGrad", shape=_strided_slice_grad_shape, dtype=_strided_slice_grad_dtype,
    kernel=_strided_slice_grad_kernel, attrs=dict(_SS_MASKS), shape_from_tensors=True,
    input_names=("shape", "begin", "end", "strides", "dy"))
strided_slice_grad_op.def_grad(lambda op, dy: [None] * 4 + [strided_slice(
    _dense(dy), *op.inputs[1:4], **op.attrs)])


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,  # noqa: A002
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                       name=None) -> Tensor:
    """Zeros of ``shape`` with ``dy`` written where ``strided_slice`` with the same
    arguments reads: the gradient of ``StridedSlice``."""
    return strided_slice_grad_op.bind(
        _index_arg(shape), _index_arg(begin), _index_arg(end), _index_arg(strides), dy,
        begin_mask=int(begin_mask), end_mask=int(end_mask), ellipsis_mask=int(ellipsis_mask),
        new_axis_mask=int(new_axis_mask), shrink_axis_mask=int(shrink_axis_mask), name=name)


# ── Tensor.__getitem__ (TF's _slice_helper) ──────────────────────────────────────────
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    if isinstance(idx, (numbers.Integral, Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    if dtype is None or not isinstance(idx, Tensor) or \
            dtype.base_dtype not in _INDEX_DTYPES or idx.shape.ndims not in (0, None):
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _index_value(v):
    return int(v) if isinstance(v, (numbers.Integral, Dimension)) else v


def slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]``: ints, slices (any step), ``...``, ``None``, int tensors.

    >>> constant([[1, 2, 3], [4, 5, 6]])[1:, ::-1].shape.as_list()
    [1, 3]
    """
    if isinstance(slice_spec, bool) or \
            (isinstance(slice_spec, Tensor) and slice_spec.dtype.base_dtype == dtypes.bool) or \
            (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    masks = dict(_SS_MASKS)
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, builtins.slice):
            for value, out, mask, default in ((s.start, begin, "begin_mask", 0),
                                              (s.stop, end, "end_mask", 0),
                                              (s.step, strides, None, 1)):
                if value is not None and not (isinstance(value, Dimension) and
                                              value.value is None):
                    _check_index(value)
                    out.append(_index_value(value))
                else:
                    out.append(default)
                    if mask:
                        masks[mask] |= bit
        elif s is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif s is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            _check_index(s)
            s = _index_value(s)
            begin.append(s)
            end.append(_math_ops().add(s, 1, name="add") if isinstance(s, Tensor) else s + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    values = [tensor] + begin + end + strides
    with _op_scope(None, "strided_slice", values) as scope:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(p.dtype.base_dtype == dtypes.int64 for p in packed):
                packed = [_cast(p, dtypes.int64) for p in packed]
        else:
            empty = constant([], dtype=dtypes.int32)
            packed = [empty, empty, empty]
        return strided_slice(tensor, *packed, name=scope, **masks)



# ── GatherV2 ─────────────────────────────────────────────────────────────────────────
def _gather_shape(params, indices, axis, *, batch_dims):
    p, i = params.shape.as_tuple(), indices.shape.as_tuple()
    if p is None or i is None:
        return TensorShape(None)
    a = _static_scalar(axis)
    if a is None:
        return TensorShape([None] * (len(p) + len(i) - 1 - batch_dims))
    if not -len(p) <= a < len(p):
        raise ValueError(f"Shape must be at least rank {a + 1 if a >= 0 else -a} but is rank "
                         f"{len(p)}")
    a %= len(p)
    if batch_dims > a:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({a})")
    return TensorShape(p[:a] + i[batch_dims:] + p[a + 1:])


def _gather_dtype(params, indices, axis, *, batch_dims):
    _check_index_dtype(indices, "Tindices", "GatherV2")
    _check_index_dtype(axis, "Taxis", "GatherV2")
    return params


def _gather_index_error(indices, n):
    pos = tuple(int(v) for v in np.argwhere((indices < 0) | (indices >= n))[0])
    raise InvalidArgumentError(None, None, f"indices[{','.join(map(str, pos))}] = "
                               f"{indices[pos]} is not in [0, {n})")


def _gather_kernel(params, indices, axis, *, batch_dims):
    a = int(axis)
    if not -params.ndim <= a < params.ndim:
        raise InvalidArgumentError(None, None, f"Expected axis in the range [{-params.ndim}, "
                                   f"{params.ndim}), but got {a}")
    a %= params.ndim
    n = params.shape[a]
    if indices.size and indices.min() < 0:
        _gather_index_error(indices, n)
    if batch_dims == 0:
        try:
            out = params.take(indices, axis=a)  # raises on indices >= n
        except IndexError:
            out = None
        if out is None:
            _gather_index_error(indices, n)
    else:
        if indices.size and indices.max() >= n:
            _gather_index_error(indices, n)
        batch = params.shape[:batch_dims]
        parts = [np.take(params[b], indices[b], axis=a - batch_dims) for b in np.ndindex(batch)]
        inner = parts[0].shape if parts else indices.shape[batch_dims:] + params.shape[a + 1:]
        out = np.array(parts, dtype=params.dtype).reshape(batch + inner)
    return out if isinstance(out, np.ndarray) else np.array(out, dtype=params.dtype)


gather_op = OpDef("GatherV2", shape=_gather_shape, dtype=_gather_dtype, kernel=_gather_kernel,
                  attrs={"batch_dims": 0}, shape_from_tensors=True,
                  input_names=("params", "indices", "axis"), fresh_outputs=True)
gather_op.def_static_value(_fold)


@gather_op.def_grad
def _gather_grad(op, dy):
    """TF's ``_GatherV2Grad``: an ``IndexedSlices`` for axis 0; otherwise the gathered axis
    is moved first (after the batch dims), summed by segment, and moved back (dense)."""
    params, indices, axis = op.inputs
    params_shape = shape(params)
    indices_size = expand_dims(size(indices), 0)
    batch_dims = op.get_attr("batch_dims")
    if batch_dims < 0:
        if indices.shape.ndims is None:
            raise ValueError("Currently, it is unsupported to take the gradient of tf.gather "
                             "when batch_dims < 0 and the rank of the indices is unknown.")
        batch_dims += indices.shape.ndims
    dy = _dense(dy)
    axis_static = _static_scalar(axis)
    if axis_static == 0:
        values = reshape(dy, concat([indices_size, params_shape[1:]], 0))
        indices = reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    if axis_static is not None:
        axis = int(axis_static)
    math = _math_ops()
    outer_shape, inner_shape = params_shape[:axis], params_shape[axis:][1:]
    values_shape = concat([outer_shape, [-1], inner_shape], 0)
    values_dims, axis_dims = size(values_shape), size(outer_shape)
    outer_batches = math.range(batch_dims)
    batch_axes = math.range(batch_dims, axis_dims)
    inner_axes = math.range(axis_dims + 1, values_dims)
    values = reshape(dy, values_shape)
    perm = concat([outer_batches, [axis_dims], batch_axes, inner_axes], 0)
    params_grad = _batch_gather_grad(gather(params_shape, perm), transpose(values, perm),
                                     indices, batch_dims, params_shape[axis])
    inverse = concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    return [transpose(params_grad, inverse), None, None]


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """``values`` (gathered axis first after the batch dims) summed into the rows of
    ``params`` they came from: ``unsorted_segment_sum`` over flat (batch-offset) indices."""
    math = _math_ops()
    indices_size = expand_dims(size(indices), 0)
    if batch_dims:
        values_shape = shape(values)
        outer_shape, inner_shape = values_shape[:batch_dims], values_shape[batch_dims:][1:]
        flat_values_shape = concat([[-1], inner_shape], 0)
        gather_dim_size = gather_dim_size * math.reduce_prod(outer_shape, [0])
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = reshape(values, flat_values_shape)
    indices = reshape(indices, indices_size)
    params_grad = math.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = reshape(params_grad, concat([outer_shape, flat_values_shape], 0))
    return params_grad


def _batch_indices(params_shape, indices, batch_dims):
    """``indices`` plus the flat offset of their batch position (TF's _GetBatchIndices)."""
    math = _math_ops()
    dtype = indices.dtype.base_dtype
    dims = _cast(params_shape, dtype)
    accum = ones((), dtype=dtype)
    for dim in builtins.range(batch_dims, 0, -1):
        dim_value = dims[dim - 1]
        accum = accum * dims[dim]
        dim_indices = math.range(zeros((), dtype), dim_value, ones((), dtype)) * accum
        dim_shape = concat([tile([1], [dim - 1]), [dim_value],
                            tile([1], [rank(indices) - dim])], 0)
        indices = indices + reshape(dim_indices, dim_shape)
    return indices


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0) -> Tensor:
    """Gathers slices of ``params`` along ``axis`` at ``indices`` (TF1 ``validate_indices``
    is accepted and ignored: indices are always checked).

    >>> gather([[1, 2], [3, 4], [5, 6]], [2, 0]).shape.as_list()
    [2, 2]
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    return gather_op.bind(params, indices, axis, batch_dims=batch_dims, name=name)


# ── OneHot ───────────────────────────────────────────────────────────────────────────
def _one_hot_shape(indices, depth, on_value, off_value, *, axis):
    dims = indices.shape.as_tuple()
    for t, what in ((depth, "depth"), (on_value, "on_value"), (off_value, "off_value")):
        if t.shape.ndims not in (0, None):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} ({what})")
    if dims is None:
        return TensorShape(None)
    if not -1 <= axis <= len(dims):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But "
                         f"received: {axis}")
    d = _static_scalar(depth)
    if d is not None and d < 0:
        raise ValueError(f"depth must be non-negative, got: {d}")
    a = len(dims) if axis == -1 else axis
    return TensorShape(dims[:a] + (d,) + dims[a:])


def _one_hot_dtype(indices, depth, on_value, off_value, *, axis):
    if indices not in (dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'indices' has DataType {indices.name} not in "
                        "list of allowed values: uint8, int8, int32, int64")
    if depth is not dtypes.int32:
        raise TypeError(f"Value passed to parameter 'depth' has DataType {depth.name} not in "
                        "list of allowed values: int32")
    if off_value is not on_value:
        raise TypeError(f"Input 'off_value' of 'OneHot' Op has type {off_value.name} that does "
                        f"not match type {on_value.name} of argument 'on_value'.")
    return on_value


def _one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    d = int(depth)
    if d < 0:
        raise InvalidArgumentError(None, None, f"depth must be non-negative, got: {d}")
    hot = indices[..., None] == np.arange(d)
    out = np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    return out if axis == -1 else np.ascontiguousarray(np.moveaxis(out, -1, axis))


one_hot_op = OpDef("OneHot", shape=_one_hot_shape, dtype=_one_hot_dtype, kernel=_one_hot_kernel,
                   attrs={"axis": -1}, grad=None, shape_from_tensors=True,
                   input_names=("indices", "depth", "on_value", "off_value"))
one_hot_op.def_static_value(_fold)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None) -> Tensor:
    """One-hot vectors of length ``depth`` (``on_value`` at each index, ``off_value`` else).

    >>> one_hot([0, 2], 3).dtype.name
    'float32'
    """
    with _op_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        on_exists, off_exists = on_value is not None, off_value is not None
        if on_exists:
            on_value = convert_to_tensor(on_value, dtype_hint=dtype)
        if off_exists:
            off_value = convert_to_tensor(off_value, dtype_hint=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                for what, dt in (("on_value", on_dtype), ("off_value", off_dtype)):
                    if dt is not None and dt != dtype:
                        raise TypeError(f"dtype <dtype: '{dt.name}'> of {what} does not "
                                        f"match dtype parameter <dtype: '{dtype.name}'>")
            else:
                dtype = on_dtype if on_exists else off_dtype
            if on_exists and off_exists and on_dtype != off_dtype:
                raise TypeError(f"dtype <dtype: '{on_dtype.name}'> of on_value does not match "
                                f"dtype <dtype: '{off_dtype.name}'> of off_value")
        else:
            dtype = dtype or dtypes.float32
        if not on_exists:
            on_value = convert_to_tensor(1, dtype, name="on_value")
        if not off_exists:
            off_value = convert_to_tensor(0, dtype, name="off_value")
        return one_hot_op.bind(indices, depth, on_value, off_value,
                               axis=-1 if axis is None else int(axis), name=scope)


# ── Shape ────────────────────────────────────────────────────────────────────────────
def _out_type_dtype(x, *, out_type):
    if out_type not in _INDEX_DTYPES:
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not "
                        "in list of allowed values: int32, int64")
    return out_type


def _shape_value(t):
    s = t.op.inputs[0].shape
    return np.array(s.as_list(), t.dtype.as_numpy_dtype) if s.is_fully_defined() else None


shape_op = OpDef("Shape", shape=lambda x, *, out_type: TensorShape([x.ndims]),
                 dtype=_out_type_dtype, attrs={"out_type": dtypes.int32}, grad=None,
                 kernel=lambda x, *, out_type: np.array(x.shape, out_type.as_numpy_dtype),
                 input_names=("input",))
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


# ── Size ─────────────────────────────────────────────────────────────────────────────
def _size_value(t):
    n = t.op.inputs[0].shape.num_elements()
    return None if n is None else np.array(n, t.dtype.as_numpy_dtype)


size_op = OpDef("Size", shape=lambda x, *, out_type: TensorShape([]), dtype=_out_type_dtype,
                kernel=lambda x, *, out_type: np.array(x.size, out_type.as_numpy_dtype),
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


rank_op = OpDef("Rank", shape=lambda x: TensorShape([]), dtype=lambda x: dtypes.int32,
                kernel=lambda x: np.array(x.ndim, np.int32), grad=None, input_names=("input",))
rank_op.def_static_value(_rank_value)


def rank(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The number of dimensions of ``input`` (a ``Const`` when statically known)."""
    with _op_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtypes.int32, name=scope)
        return rank_op.bind(input, name=scope)


# ── Fill ─────────────────────────────────────────────────────────────────────────────
def _fill_shape(dims, value):
    if value.shape.ndims not in (0, None):
        raise ValueError(f"Shape must be rank 0 but is rank {value.shape.ndims}")
    if dims.shape.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {dims.shape.ndims}")
    d = _partial_dims(dims)
    if d is not None:
        for i, v in enumerate(d):
            if v is not None and v < 0:
                raise ValueError(f"Fill dimensions must be >= 0, got dims[{i}] = {v}")
    return _shape_from_dims(d)


def _fill_dtype(dims, value):
    _check_index_dtype(dims, "index_type", "Fill")
    return value


def _fill_kernel(dims, value):
    d = [int(v) for v in np.reshape(dims, -1)]
    if any(v < 0 for v in d):
        raise InvalidArgumentError(None, None, f"dims must be non-negative, got {d}")
    if value.ndim != 0:
        raise InvalidArgumentError(None, None, f"value must be a scalar, got shape "
                                   f"{list(value.shape)}")
    return np.full(d, value, dtype=value.dtype)


fill_op = OpDef("Fill", shape=_fill_shape, dtype=_fill_dtype, kernel=_fill_kernel,
                shape_from_tensors=True, input_names=("dims", "value"))
fill_op.def_static_value(_fold)
fill_op.def_grad(lambda op, dy: [None, _math_ops().reduce_sum(_dense(dy))])


def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape ``dims`` with every element equal to the scalar ``value``.

    >>> fill([2, 3], 9).shape.as_list()
    [2, 3]
    """
    return fill_op.bind(_index_arg(dims), value, name=name)


def _static_shape_list(shape):
    """``shape`` as a list of ints when it is a static list/tuple/TensorShape, else None."""
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    if isinstance(shape, (numbers.Integral, Dimension)) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, (list, tuple, np.ndarray)):
        out = []
        for d in shape:
            if isinstance(d, Dimension):
                d = d.value
            if not isinstance(d, numbers.Integral) or isinstance(d, bool):
                return None
            out.append(int(d))
        return out
    return None


def _filled(value, shape, dtype, name, default):
    """TF's ``zeros``/``ones``: a Const when the shape is static and small, else ``Fill``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if value == 0 and dtype == dtypes.string:
        value = ""
    elif dtype == dtypes.bool:
        value = bool(value)
    with _op_scope(name, default, [shape]) as scope:
        if not isinstance(shape, Tensor):
            dims = _static_shape_list(shape)
            if dims is not None:
                # TF's _constant_if_small fails on a scalar shape (zeros(10)): always Fill.
                if int(np.prod(dims)) < 1000 and not isinstance(shape, (numbers.Integral,
                                                                        Dimension)):
                    return constant(value, dtype=dtype, shape=dims, name=scope)
                big = any(d > np.iinfo(np.int32).max for d in dims)
                shape = constant(dims, dtype=dtypes.int64 if big else dtypes.int32,
                                 name="shape_as_tensor")
            else:
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros (``False``, ``b""``) of the given shape.

    >>> zeros([2, 3]).op.type
    'Const'
    """
    return _filled(0, shape, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of ones (``True``) of the given shape.

    >>> ones([2], dtype="int32").op.name
    'ones'
    """
    return _filled(1, shape, dtype, name, "ones")


# ── ZerosLike ────────────────────────────────────────────────────────────────────────
def _zeros_like_kernel(x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


zeros_like_op = OpDef("ZerosLike", shape=same_shape, dtype=first_dtype, kernel=_zeros_like_kernel,
                      grad=None, input_names=("x",))
zeros_like_op.def_static_value(_fold)


def zeros_like(tensor, dtype=None, name=None, optimize=True) -> Tensor:
    """Zeros with the shape of ``tensor`` (a ``Const`` when that shape is static).

    >>> zeros_like(placeholder("float", [None, 3])).op.type
    'ZerosLike'
    """
    with _op_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        base = tensor.dtype.base_dtype
        dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape.as_list(), dtype=dtype or base, name=scope)
        if dtype is not None and dtype != base:
            return zeros(_shape_internal(tensor, None, optimize, dtypes.int32), dtype=dtype,
                         name=scope)
        return zeros_like_op.bind(tensor, name=scope)


# ── OnesLike ─────────────────────────────────────────────────────────────────────────
# TF's Python ``ones_like`` builds ``Fill``; the op type exists for graphs that use it.
ones_like_op = OpDef("OnesLike", shape=same_shape, dtype=first_dtype, kernel=np.ones_like,
                     grad=None, input_names=("x",))
ones_like_op.def_static_value(_fold)


def ones_like(tensor, dtype=None, name=None, optimize=True) -> Tensor:
    """Ones with the shape of ``tensor`` (TF builds ``Fill(shape(tensor), 1)``).

    >>> ones_like(constant([[1, 2]])).op.type
    'Fill'
    """
    with _op_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        ones_shape = _shape_internal(tensor, None, optimize, dtypes.int32,
                                     const_name="shape_as_tensor")
        dtype = tensor.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype).base_dtype
        ret = ones(ones_shape, dtype=dtype, name=scope)
        ret.set_shape(tensor.shape)
        return ret


# ── boolean_mask (composite: Reshape, Where, Squeeze, GatherV2) ──────────────────────
def boolean_mask(tensor, mask, name="boolean_mask", axis=None) -> Tensor:
    """The elements (or slices along ``axis``) of ``tensor`` where ``mask`` is true.

    >>> boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True]).shape.as_list()
    [None, 2]
    """
    with _op_scope(name, None, [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None is "
                             "not.")
        axis = 0 if axis is None else axis
        axis_value = constant_value(axis)
        if axis_value is not None:
            axis = int(axis_value)
            shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading_size = _reduce_prod(shape(tensor)[axis:axis + ndims_mask], mask)
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
        tensor.set_shape(as_shape(shape_tensor[:axis]).concatenate([first_dim])
                         .concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(_math_ops().where(mask), axis=[1])  # Where lives in math_ops
        return gather(tensor, indices, axis=axis)


def _reduce_prod(dims, mask):
    prod = getattr(_math_ops(), "reduce_prod", None)
    if prod is not None:
        return prod(dims, [0])
    return size(mask)  # the same number, until math_ops provides Prod
