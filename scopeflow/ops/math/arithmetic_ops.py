"""Arithmetic ops: casts, ranges, the elementwise operators, comparisons and logic.

Cast, Range, AddV2, Sub, Mul, RealDiv (``truediv``, ``div``), FloorDiv, FloorMod,
TruncateDiv, TruncateMod, SquaredDifference, AddN, Neg, Conj, DivNoNan, the comparisons and
LogicalAnd/Or/Not: the math ops whose gradient rules use only each other, so every other
family may build on them.
Op types, default names, dtypes and shape-error texts follow TensorFlow 2.21 with TF1
semantics (``tf.compat.v1``); ``scopeflow/state/operators.py`` installs them as ``Tensor``'s
operators.
"""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import (
    COMPLEX,
    FLOAT_OR_COMPLEX,
    FLOATS,
    INDEX,
    NUMERIC,
    REAL,
    SIGNED_NUMERIC,
)
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    OpDef,
    broadcast_shape,
    broadcasting,
    check_dtype,
    from_tensors,
    merge_shapes,
    same_shape,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import identity
from scopeflow.ops.op_helpers import (
    _apply,
    _bool_only,
    _check_divisor,
    _compare_dtype_in,
    _is_int,
    _is_symbolic,
    _same_dtype_in,
    _shapes_fully_specified_and_equal,
)

__all__ = [
    "cast", "to_float", "to_double", "to_int32", "to_int64", "to_bfloat16", "range",
    "add", "subtract", "multiply", "scalar_mul", "realdiv", "truediv", "divide", "div",
    "floordiv", "floor_div", "floormod", "mod", "truncatediv", "truncatemod",
    "squared_difference", "add_n", "negative", "conj",
    "div_no_nan", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor",
]


# ── Cast ─────────────────────────────────────────────────────────────────────────────
# bfloat16 and the quantized types cast too (qint8 <-> int8 keeps the integers, as TF).
_CASTABLE = NUMERIC + (dtypes.bool_, dtypes.bfloat16, dtypes.qint8, dtypes.quint8,
                       dtypes.qint16, dtypes.quint16, dtypes.qint32)
_CAST_DIFFERENTIABLE = FLOAT_OR_COMPLEX + (dtypes.bfloat16,)


def _cast_dtype(x, *, SrcT, DstT, Truncate):
    if x not in _CASTABLE or DstT not in _CASTABLE:
        raise TypeError(f"Cast {x.name} to {DstT.name} is not supported")
    return DstT


def _cast_kernel(x, *, SrcT, DstT, Truncate):
    """NumPy's ``astype``, except around bfloat16: TF converts every other type to float32
    first and rounds that to bfloat16 (a float64 is rounded twice: 1 + 2**-8 + 2**-30 gives
    1.0, not 1.0078125), and reads bfloat16 as float32 before converting it on."""
    x = np.asarray(x)
    target = dtypes.storage_dtype(DstT)
    if x.dtype.kind == "c" and target.kind != "c":
        x = np.real(x)
    if x.dtype != target and (SrcT is dtypes.bfloat16 or DstT is dtypes.bfloat16):
        x = x.astype(np.float32)
    return x.astype(target)  # float -> int truncates toward zero, as TF


cast_op = OpDef("Cast", shape=same_shape, dtype=_cast_dtype, kernel=_cast_kernel,
                attrs={"SrcT": None, "DstT": None, "Truncate": False}, input_names=("x",))


@cast_op.def_grad
def _cast_grad(op, dy):
    """Cast back between float/complex types; integer and bool sources get None (as TF)."""
    src, dst = op.inputs[0].dtype.base_dtype, dy.dtype.base_dtype
    if src in _CAST_DIFFERENTIABLE and dst in _CAST_DIFFERENTIABLE:
        return [cast(dy, src)]
    return [None]


def cast(x, dtype, name=None) -> Tensor:
    """``x`` converted to ``dtype`` (a ``Cast`` op; ``x`` itself when already ``dtype``).

    Floats cast to integers truncate toward zero; complex to real keeps the real part.

    >>> cast([1.7, -1.7], "int32").dtype.name
    'int32'
    """
    base = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and x.dtype.base_dtype == base:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == base:
            return x
        return cast_op.bind(x, SrcT=x.dtype.base_dtype, DstT=base, Truncate=False,
                            name=scope)


def _cast(x, dtype, name="Cast"):
    """``cast`` for the array builders: ``x`` itself when the dtype already matches."""
    if x.dtype.base_dtype == dtype:
        return x
    return cast(x, dtype, name=name)


def to_float(x, name="ToFloat") -> Tensor:
    """``cast(x, float32)`` (deprecated in TF1)."""
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble") -> Tensor:
    """``cast(x, float64)`` (deprecated in TF1)."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32") -> Tensor:
    """``cast(x, int32)`` (deprecated in TF1)."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64") -> Tensor:
    """``cast(x, int64)`` (deprecated in TF1)."""
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16") -> Tensor:
    """``cast(x, bfloat16)`` (deprecated in TF1); running it needs ml_dtypes."""
    return cast(x, dtypes.bfloat16, name=name)


@cast_op.def_static_value
def _cast_static_value(t):
    value = constant_value(t.op.inputs[0])
    return None if value is None else _cast_kernel(value, **t.op.attrs)


# ── Range (not differentiable) ───────────────────────────────────────────────────────
def _range_size(start, limit, delta):
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        return (builtins.abs(limit - start) + builtins.abs(delta) - 1) // builtins.abs(delta)
    return int(np.ceil(builtins.abs((limit - start) / delta)))


def _range_shape(start, limit, delta):
    for t in (start, limit, delta):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}")
    values = [constant_value(t) for t in (start, limit, delta)]
    if any(v is None for v in values):
        return TensorShape([None])
    return TensorShape([_range_size(*(v.item() for v in values))])


def _range_kernel(start, limit, delta):
    dt = np.asarray(start).dtype
    try:
        n = _range_size(*(np.asarray(v).item() for v in (start, limit, delta)))
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None
    return (start + np.arange(n, dtype=dt) * delta).astype(dt, copy=False)


range_op = OpDef("Range", shape=from_tensors(_range_shape),
                 dtype=_same_dtype_in(FLOATS + INDEX, "start"), kernel=_range_kernel, grad=None,
                 input_names=("start", "limit", "delta"))


def _range_static_value(t):
    values = [constant_value(x) for x in t.op.inputs]
    if any(v is None for v in values):
        return None
    return _range_kernel(*values)


range_op.def_static_value(_range_static_value)


_RANGE_HIERARCHY = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:
    """A 1-D tensor ``[start, start + delta, ...]`` up to (not including) ``limit``.

    >>> range(5).shape.as_list()
    [5]
    """
    if limit is None:
        start, limit = 0, start
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = []
        for v, what in ((start, "start"), (limit, "limit"), (delta, "delta")):
            args.append(v if _is_symbolic(v) else convert_to_tensor(v, dtype=dtype, name=what))
        args = [convert_to_tensor(v) for v in args]
        if dtype is None:
            for t in args:
                if t.dtype.base_dtype not in _RANGE_HIERARCHY:
                    raise TypeError(f"Unsupported range dtype {t.dtype.name}")
            dtype = max((t.dtype.base_dtype for t in args), key=_RANGE_HIERARCHY.index)
        args = [cast(t, dtype) for t in args]
        return range_op.bind(*args, name=scope)


# ── AddV2 ────────────────────────────────────────────────────────────────────────────
add_op = OpDef("AddV2", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(NUMERIC),
               kernel=np.add, input_names=("x", "y"))


@add_op.def_grad
def _add_grad(op, dy):
    return [dy, dy]  # gradients.py sums each back to its input's shape


def add(x, y, name=None) -> Tensor:
    """Elementwise ``x + y`` with broadcasting.

    >>> add(1.0, 2.0).op.type
    'AddV2'
    """
    return _apply(add_op, [x, y], name or "Add")


# ── Add ──────────────────────────────────────────────────────────────────────────────
# TF 1.x's addition op, in the GraphDefs TF 1.x wrote (frozen model-zoo graphs): AddV2's
# values, and string concatenation. scopeflow's builders make AddV2, as TF 2.21's do.
add_v1_op = OpDef("Add", shape=broadcasting(broadcast_shape),
                  dtype=_same_dtype_in(NUMERIC + (dtypes.string,)), kernel=np.add,
                  input_names=("x", "y"))


@add_v1_op.def_grad
def _add_v1_grad(op, dy):
    return [dy, dy]  # as AddV2's: gradients.py sums each back to its input's shape


# ── Sub ──────────────────────────────────────────────────────────────────────────────
sub_op = OpDef("Sub", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(NUMERIC),
               kernel=np.subtract, input_names=("x", "y"))


@sub_op.def_grad
def _sub_grad(op, dy):
    return [dy, negative(dy)]  # TF: -grad (a ``Neg``)


def subtract(x, y, name=None) -> Tensor:
    """Elementwise ``x - y`` with broadcasting."""
    return _apply(sub_op, [x, y], name or "Sub")


# ── Mul ──────────────────────────────────────────────────────────────────────────────
mul_op = OpDef("Mul", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(NUMERIC),
               kernel=np.multiply, input_names=("x", "y"))


@mul_op.def_grad
def _mul_grad(op, dy):
    x, y = op.inputs
    if (isinstance(dy, Tensor) and dy.dtype.base_dtype in (dtypes.float32, dtypes.int32)
            and _shapes_fully_specified_and_equal(x, y, dy)):
        return [multiply(dy, y), multiply(dy, x)]  # TF's shortcut, in its operand order
    return [multiply(dy, conj(y)), multiply(conj(x), dy)]


def multiply(x, y, name=None) -> Tensor:
    """Elementwise ``x * y`` with broadcasting."""
    return _apply(mul_op, [x, y], name or "Mul")


def scalar_mul(scalar, x, name=None) -> Tensor:
    """``scalar * x`` for a 0-D ``scalar`` (a ``Mul`` op; ``scalar`` takes ``x``'s dtype)."""
    x = x if _is_symbolic(x) else convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape "
                         f"{scalar.shape}.")
    return _apply(mul_op, [scalar, x], name)


# ── RealDiv ──────────────────────────────────────────────────────────────────────────
def _int_trunc_divide(x, y):
    """Integer ``x / y`` rounded toward zero, as C++ (``INT_MIN / -1`` wraps to ``INT_MIN``)."""
    with np.errstate(over="ignore"):
        q = np.floor_divide(x, y)
    return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


def _realdiv_kernel(x, y):
    if _is_int(x):  # C++ integer division truncates toward zero
        _check_divisor(y)
        return _int_trunc_divide(x, y)
    return np.true_divide(x, y)


realdiv_op = OpDef("RealDiv", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(NUMERIC),
                   kernel=_realdiv_kernel, input_names=("x", "y"))


@realdiv_op.def_grad
def _realdiv_grad(op, dy):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return [realdiv(dy, y), dy * realdiv(realdiv(negative(x), y), y)]


def realdiv(x, y, name=None) -> Tensor:
    """Elementwise ``x / y`` for real numbers (integers truncate toward zero)."""
    return _apply(realdiv_op, [x, y], name or "RealDiv")


# TF's ``_TRUEDIV_TABLE``: the float type integers are cast to before dividing.
_TRUEDIV_TABLE = {dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32,
                  dtypes.int16: dtypes.float32, dtypes.uint16: dtypes.float32,
                  dtypes.int32: dtypes.float64, dtypes.uint32: dtypes.float64,
                  dtypes.int64: dtypes.float64, dtypes.uint64: dtypes.float64}


def truediv(x, y, name=None) -> Tensor:
    """Python 3 division: integers are cast to floating point first (int32 -> float64).

    >>> truediv(3, 2).dtype.name
    'float64'
    """
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", preferred_dtype=x.dtype.base_dtype)
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != "
                            f"{y_dtype!r}.")
        target = _TRUEDIV_TABLE.get(x_dtype)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return _apply(realdiv_op, [x, y], scope)


def divide(x, y, name=None) -> Tensor:
    """``x / y`` with Python 3 semantics (``truediv``)."""
    return truediv(x, y, name=name)


def div(x, y, name=None) -> Tensor:
    """TF1's Python 2 division: floor division for integers, ``RealDiv`` for floats."""
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", preferred_dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype.base_dtype!r} != "
                            f"{y.dtype.base_dtype!r}")
        if x.dtype.is_floating or x.dtype.is_complex:
            return _apply(realdiv_op, [x, y], scope)
        return _apply(floordiv_op, [x, y], scope)


# ── FloorDiv ─────────────────────────────────────────────────────────────────────────
def _floordiv_kernel(x, y):
    """Integers floor-divide; floats are TF's ``floor(x / y)`` (not Python's ``divmod``
    quotient: ``1.0 // 0.1`` is 10 and ``1.0 // -inf`` is -0 in TF)."""
    if _is_int(x):
        _check_divisor(y)
        return np.floor_divide(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor(np.true_divide(x, y))


floordiv_op = OpDef("FloorDiv", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(REAL),
                    kernel=_floordiv_kernel, grad=None,
                    input_names=("x", "y"))


def floordiv(x, y, name=None) -> Tensor:
    """Elementwise ``floor(x / y)`` (Python's ``//``), for integers and floats."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return _apply(floordiv_op, [x, y], scope)


def floor_div(x, y, name=None) -> Tensor:
    """TF1's raw ``FloorDiv`` op (``tf.floor_div``): as ``floordiv``, named ``FloorDiv``.

    >>> floor_div([-7, 7], 2).name
    'FloorDiv:0'
    """
    return _apply(floordiv_op, [x, y], name or "FloorDiv")


# ── FloorMod ─────────────────────────────────────────────────────────────────────────
def _floormod_kernel(x, y):
    if _is_int(x):
        _check_divisor(y)
    return np.remainder(x, y)


floormod_op = OpDef("FloorMod", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(REAL),
                    kernel=_floormod_kernel, input_names=("x", "y"))


@floormod_op.def_grad
def _floormod_grad(op, dy):
    x, y = op.inputs  # x - floor(x / y) * y: d/dx = 1, d/dy = -floor(x / y)
    return [dy, dy * negative(floordiv_op.bind(x, y))]


def floormod(x, y, name=None) -> Tensor:
    """Elementwise remainder of floor division (Python's ``%``: the sign of ``y``)."""
    return _apply(floormod_op, [x, y], name or "FloorMod")


mod = floormod


# ── TruncateDiv (not differentiable: TF's gradient returns None for both inputs) ─────
def _unexpected_binary_error():
    """TF's text when an integer TruncateDiv/TruncateMod divides by zero (an InternalError)."""
    return errors.InternalError(None, None, "Unexpected error in binary operator (only "
                                "integer div and mod should have errors)")


def _truncatediv_kernel(x, y):
    x = np.asarray(x)
    if x.dtype.kind == "c":  # TF's OpDef takes complex types; its CPU kernels do not
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op 'TruncateDiv' with these "
                        f"attrs: [T=DT_{dtypes.as_dtype(x.dtype).name.upper()}]")
    if _is_int(x):
        if not np.all(y):
            raise _unexpected_binary_error()
        return _int_trunc_divide(x, y)
    return np.trunc(np.true_divide(x, y))


truncatediv_op = OpDef("TruncateDiv", shape=broadcasting(broadcast_shape),
                       dtype=_same_dtype_in(NUMERIC), kernel=_truncatediv_kernel, grad=None,
                       input_names=("x", "y"))


def truncatediv(x, y, name=None) -> Tensor:
    """Elementwise ``x / y`` rounded toward zero (C's integer division), ints and floats.

    Unlike ``floordiv``, ``truncatediv(-7, 2)`` is ``-3``. An integer division by zero
    raises ``InternalError`` when run, as TF's kernel does.

    >>> truncatediv([-7, 7], 2).op.type
    'TruncateDiv'
    """
    return _apply(truncatediv_op, [x, y], name or "TruncateDiv")


# ── TruncateMod (TF registers no gradient) ───────────────────────────────────────────
def _truncatemod_kernel(x, y):
    if np.asarray(x).dtype == np.float16:  # TF 2.21 has no half TruncateMod CPU kernel
        raise errors.InvalidArgumentError(
            None, None, "No OpKernel was registered to support Op 'TruncateMod' with these "
                        "attrs: [T=DT_HALF]")
    if _is_int(x) and not np.all(y):
        raise _unexpected_binary_error()
    return np.fmod(x, y)


truncatemod_op = OpDef("TruncateMod", shape=broadcasting(broadcast_shape),
                       dtype=_same_dtype_in(INDEX + FLOATS), kernel=_truncatemod_kernel,
                       grad=NO_GRADIENT, input_names=("x", "y"))


def truncatemod(x, y, name=None) -> Tensor:
    """Elementwise remainder of ``truncatediv`` (C's ``fmod``: the sign of ``x``).

    >>> truncatemod([-7, 7], 2).op.type
    'TruncateMod'
    """
    return _apply(truncatemod_op, [x, y], name or "TruncateMod")


# ── SquaredDifference ────────────────────────────────────────────────────────────────
def _squared_difference_kernel(x, y):
    d = np.asarray(np.subtract(x, y))  # 0-d inputs give a NumPy scalar, which out= rejects
    return d * np.conj(d) if np.iscomplexobj(d) else np.square(d, out=d)


squared_difference_op = OpDef(
    "SquaredDifference", shape=broadcasting(broadcast_shape),
    dtype=_same_dtype_in(FLOAT_OR_COMPLEX + INDEX), kernel=_squared_difference_kernel,
    input_names=("x", "y"))


@squared_difference_op.def_grad
def _squared_difference_grad(op, dy):
    x, y = op.inputs
    x_grad = scalar_mul(2.0, dy) * (x - y)
    return [x_grad, negative(x_grad)]


def squared_difference(x, y, name=None) -> Tensor:
    """Elementwise ``(x - y) * conj(x - y)``."""
    return _apply(squared_difference_op, [x, y], name)


# ── AddN ─────────────────────────────────────────────────────────────────────────────
def _add_n_shape(*shapes):
    cur = shapes[-1]
    for i in builtins.range(len(shapes) - 1, -1, -1):
        try:
            cur = merge_shapes(shapes[i], cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return cur


def _add_n_dtype(*dts):
    if any(d is not dts[0] for d in dts):
        raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                        f"[{', '.join(d.name for d in dts)}] that don't all match.")
    return check_dtype(dts[0], NUMERIC, "inputs")


def _add_n_kernel(*xs):
    shape = np.shape(xs[0])
    for i, x in enumerate(xs[1:], 1):
        if np.shape(x) != shape:
            raise errors.InvalidArgumentError(
                None, None, f"Inputs to operation AddN must have the same size and shape.  "
                f"Input 0: {list(shape)} != input {i}: {list(np.shape(x))}")
    if len(xs) == 1:
        return xs[0]  # TF forwards a single input
    out = np.asarray(np.add(xs[0], xs[1]))  # left to right, as TF's ((x0 + x1) + x2) + ...
    for x in xs[2:]:
        out += x
    return out


add_n_op = OpDef("AddN", shape=_add_n_shape, dtype=_add_n_dtype, kernel=_add_n_kernel,
                 aliases=True)


@add_n_op.def_grad
def _add_n_grad(op, dy):
    return [dy] * len(op.inputs)


def add_n(inputs, name=None) -> Tensor:
    """Sums a list of tensors of one shape and dtype (one ``AddN`` op).

    A single input is returned as is (through ``Identity`` when ``name`` is given).
    """
    if not inputs or isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__iter__"):
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape.")
    inputs = [convert_to_tensor(x) for x in inputs]
    if len(inputs) == 1:
        if name:
            return identity(inputs[0], name=name)
        return inputs[0]
    return add_n_op.bind(*inputs, name=name)


# ── Neg ──────────────────────────────────────────────────────────────────────────────
neg_op = OpDef("Neg", shape=same_shape, dtype=_same_dtype_in(SIGNED_NUMERIC),
               kernel=np.negative, input_names=("x",))


@neg_op.def_grad
def _neg_grad(op, dy):
    return [-dy]


def negative(x, name=None) -> Tensor:
    """Elementwise ``-x``."""
    return neg_op.bind(x, name=name)


# ── Conj ─────────────────────────────────────────────────────────────────────────────
conj_op = OpDef("Conj", shape=same_shape, dtype=_same_dtype_in(COMPLEX, "input"),
                kernel=np.conj, input_names=("input",))


@conj_op.def_grad
def _conj_grad(op, dy):
    return [conj(dy)]


def conj(x, name=None) -> Tensor:
    """Complex conjugate; real tensors are returned unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return conj_op.bind(x, name=name)
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


# ── DivNoNan (x / y, and 0 where y == 0) ─────────────────────────────────────────────
def _div_no_nan_kernel(x, y):
    """A plain divide, then 0 where ``y == 0``: the same IEEE quotients as the masked
    divide (``np.divide(..., where=y != 0)`` into zeros) it replaces, which took 8x as
    long; the zeros go in as a masked copy when few, a select when many."""
    zero = np.asarray(y) == 0
    with np.errstate(all="ignore"):  # the y == 0 lanes are overwritten below
        out = np.asarray(np.divide(x, y))
    count = np.count_nonzero(zero)
    if not count:
        return out
    if count * 64 < zero.size:
        np.copyto(out, 0, where=zero)
        return out
    return np.where(zero, np.zeros((), out.dtype), out)


div_no_nan_op = OpDef("DivNoNan", shape=broadcasting(broadcast_shape),
                      dtype=_same_dtype_in(FLOAT_OR_COMPLEX),
                      kernel=_div_no_nan_kernel, input_names=("x", "y"))


@div_no_nan_op.def_grad
def _div_no_nan_grad(op, dy):
    x, y = op.inputs
    return [div_no_nan(dy, y), dy * div_no_nan(div_no_nan(negative(x), y), y)]


def div_no_nan(x, y, name=None) -> Tensor:
    """``x / y``, but 0 wherever ``y`` is 0 (even for 0/0 and inf/0)."""
    return _apply(div_no_nan_op, [x, y], name or "div_no_nan")


# ── Comparisons: what Less ... NotEqual share (TF: not differentiable) ───────────────
def _comparison(op_type, kernel, allowed, attrs=None):
    return OpDef(op_type, shape=broadcast_shape, dtype=_compare_dtype_in(allowed),
                 kernel=kernel, grad=None, attrs=attrs, input_names=("x", "y"))


# ── Less ─────────────────────────────────────────────────────────────────────────────
less_op = _comparison("Less", np.less, REAL)


def less(x, y, name=None) -> Tensor:
    """Elementwise ``x < y`` (bool)."""
    return _apply(less_op, [x, y], name)


# ── LessEqual ────────────────────────────────────────────────────────────────────────
less_equal_op = _comparison("LessEqual", np.less_equal, REAL)


def less_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x <= y`` (bool)."""
    return _apply(less_equal_op, [x, y], name)


# ── Greater ──────────────────────────────────────────────────────────────────────────
greater_op = _comparison("Greater", np.greater, REAL)


def greater(x, y, name=None) -> Tensor:
    """Elementwise ``x > y`` (bool)."""
    return _apply(greater_op, [x, y], name)


# ── GreaterEqual ─────────────────────────────────────────────────────────────────────
greater_equal_op = _comparison("GreaterEqual", np.greater_equal, REAL)


def greater_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x >= y`` (bool)."""
    return _apply(greater_equal_op, [x, y], name)


# ── Equal ────────────────────────────────────────────────────────────────────────────
_EQUALITY_TYPES = NUMERIC + (dtypes.bool_, dtypes.string)


def _equality(op_type, kernel):
    """Equal or NotEqual, with TF's incompatible_shape_error."""
    return _comparison(op_type, kernel, _EQUALITY_TYPES, {"incompatible_shape_error": True})


def _equal_kernel(x, y, *, incompatible_shape_error):
    return np.asarray(np.equal(x, y), dtype=bool)


equal_op = _equality("Equal", _equal_kernel)


def equal(x, y, name=None) -> Tensor:
    """Elementwise ``x == y`` (bool). ``Tensor.__eq__`` stays identity, as in TF1."""
    return _apply(equal_op, [x, y], name)


# ── NotEqual ─────────────────────────────────────────────────────────────────────────
def _not_equal_kernel(x, y, *, incompatible_shape_error):
    return np.asarray(np.not_equal(x, y), dtype=bool)


not_equal_op = _equality("NotEqual", _not_equal_kernel)


def not_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x != y`` (bool)."""
    return _apply(not_equal_op, [x, y], name)


# ── LogicalAnd (not differentiable) ──────────────────────────────────────────────────
logical_and_op = OpDef("LogicalAnd", shape=broadcast_shape,
                       dtype=_bool_only("LogicalAnd", ("x", "y")), kernel=np.logical_and,
                       grad=None, input_names=("x", "y"))


def logical_and(x, y, name=None) -> Tensor:
    """Elementwise ``x AND y`` of bool tensors."""
    return _apply(logical_and_op, [x, y], name)


# ── LogicalOr (not differentiable) ───────────────────────────────────────────────────
logical_or_op = OpDef("LogicalOr", shape=broadcast_shape,
                      dtype=_bool_only("LogicalOr", ("x", "y")), kernel=np.logical_or,
                      grad=None, input_names=("x", "y"))


def logical_or(x, y, name=None) -> Tensor:
    """Elementwise ``x OR y`` of bool tensors."""
    return _apply(logical_or_op, [x, y], name)


# ── LogicalNot (not differentiable) ──────────────────────────────────────────────────
logical_not_op = OpDef("LogicalNot", shape=same_shape, dtype=_bool_only("LogicalNot", ("x",)),
                       kernel=np.logical_not, grad=None, input_names=("x",))


def logical_not(x, name=None) -> Tensor:
    """Elementwise ``NOT x`` of a bool tensor."""
    return logical_not_op.bind(x, name=name)


# ── logical_xor (composite: LogicalOr, LogicalAnd, LogicalNot) ───────────────────────
def logical_xor(x, y, name="LogicalXor") -> Tensor:
    """``(x OR y) AND NOT (x AND y)``, built from three ops as TF does."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)
