"""Math ops: elementwise arithmetic, comparisons, reductions, matmul, casts.

Each op is one block: its ``OpDef`` (shape and dtype rules, NumPy kernel) and its public
builder. Gradients come later (autodiff); ops TF treats as not differentiable say
``grad=None``. This module also installs the tensor operators (``+``, ``@``, ``<``...),
as TF's ``math_ops`` does.

Op types, default names, dtypes and shape-error texts follow TensorFlow 2.21 with TF1
semantics (``tf.compat.v1``).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, _graph_of, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    DTypeMismatch,
    OpDef,
    broadcast_shape,
    check_dtype,
    merge_shapes,
    same_shape,
    shape_str,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import constant_op
from scopeflow.ops.blas import gemm

__all__ = [
    "where_v2", "div_no_nan",
    # elementwise binary
    "add", "subtract", "multiply", "div", "truediv", "divide", "realdiv", "floordiv",
    "floormod", "mod", "pow", "maximum", "minimum", "squared_difference", "add_n",
    "scalar_mul", "clip_by_value",
    # elementwise unary
    "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos",
    "tanh", "sigmoid", "reciprocal", "round", "floor", "ceil", "conj",
    # comparisons, logic, selection
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "where",
    # reductions
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "reduce_logsumexp", "argmax", "argmin",
    # segments
    "unsorted_segment_sum",
    # linear algebra
    "matmul", "tensordot",
    # casts and sequences
    "cast", "to_float", "to_double", "to_int32", "to_int64", "saturate_cast", "range",
]

_builtin_range = builtins.range  # this module defines TF's ``range``, ``abs``, ``round``, ``pow``

# ── dtype sets (TF's type constraints, without the quantized and bfloat16 types) ─────
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_COMPLEX = (dtypes.complex64, dtypes.complex128)
_SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_UNSIGNED = (dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64)
_REAL = _FLOATS + _SIGNED + _UNSIGNED
_NUMERIC = _REAL + _COMPLEX
_FLOAT_OR_COMPLEX = _FLOATS + _COMPLEX
_SIGNED_NUMERIC = _FLOATS + _SIGNED + _COMPLEX
_INDEX = (dtypes.int32, dtypes.int64)


# ── shared helpers ───────────────────────────────────────────────────────────────────
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
        return op_def.create(inputs, attrs, name)._outputs[0]
    hinted = _builtin_range(len(inputs)) if hinted is None else hinted
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
        return op_def.create(tensors, attrs, scope)._outputs[0]


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


def _array_ops():
    from scopeflow.ops import array_ops  # array_ops imports this module
    return array_ops


def _const_like(value, t, name="Const"):
    """A scalar constant of ``t``'s dtype (for gradient rules)."""
    return constant_op.constant(value, dtype=t.dtype.base_dtype, name=name)


# ── AddV2 ────────────────────────────────────────────────────────────────────────────
add_op = OpDef("AddV2", shape=broadcast_shape, dtype=_same_dtype_in(_NUMERIC), kernel=np.add,
               broadcasting=True, input_names=("x", "y"))
add_op.def_grad(lambda op, dy: [dy, dy])  # gradients.py sums each back to its input's shape


def add(x, y, name=None) -> Tensor:
    """Elementwise ``x + y`` with broadcasting.

    >>> add(1.0, 2.0).op.type
    'AddV2'
    """
    return _apply(add_op, [x, y], name or "Add")


# ── Sub ──────────────────────────────────────────────────────────────────────────────
sub_op = OpDef("Sub", shape=broadcast_shape, dtype=_same_dtype_in(_NUMERIC),
               kernel=np.subtract, broadcasting=True, input_names=("x", "y"))
sub_op.def_grad(lambda op, dy: [dy, negative(dy)])  # TF: -grad (a ``Neg``)


def subtract(x, y, name=None) -> Tensor:
    """Elementwise ``x - y`` with broadcasting."""
    return _apply(sub_op, [x, y], name or "Sub")


# ── Mul ──────────────────────────────────────────────────────────────────────────────
mul_op = OpDef("Mul", shape=broadcast_shape, dtype=_same_dtype_in(_NUMERIC),
               kernel=np.multiply, broadcasting=True, input_names=("x", "y"))


@mul_op.def_grad
def _mul_grad(op, dy):
    x, y = op.inputs
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
def _realdiv_kernel(x, y):
    if _is_int(x):  # C++ integer division truncates toward zero
        _check_divisor(y)
        q = np.floor_divide(x, y)
        return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return np.true_divide(x, y)


realdiv_op = OpDef("RealDiv", shape=broadcast_shape, dtype=_same_dtype_in(_NUMERIC),
                   kernel=_realdiv_kernel, broadcasting=True, input_names=("x", "y"))


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
    if _is_int(x):
        _check_divisor(y)
    return np.floor_divide(x, y)


floordiv_op = OpDef("FloorDiv", shape=broadcast_shape, dtype=_same_dtype_in(_REAL),
                    kernel=_floordiv_kernel, broadcasting=True, grad=None,
                    input_names=("x", "y"))


def floordiv(x, y, name=None) -> Tensor:
    """Elementwise ``floor(x / y)`` (Python's ``//``), for integers and floats."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return _apply(floordiv_op, [x, y], scope)


# ── FloorMod ─────────────────────────────────────────────────────────────────────────
def _floormod_kernel(x, y):
    if _is_int(x):
        _check_divisor(y)
    return np.remainder(x, y)


floormod_op = OpDef("FloorMod", shape=broadcast_shape, dtype=_same_dtype_in(_REAL),
                    kernel=_floormod_kernel, broadcasting=True, input_names=("x", "y"))


@floormod_op.def_grad
def _floormod_grad(op, dy):
    x, y = op.inputs  # x - floor(x / y) * y: d/dx = 1, d/dy = -floor(x / y)
    return [dy, dy * negative(floordiv_op.bind(x, y))]


def floormod(x, y, name=None) -> Tensor:
    """Elementwise remainder of floor division (Python's ``%``: the sign of ``y``)."""
    return _apply(floormod_op, [x, y], name or "FloorMod")


mod = floormod


# ── Pow ──────────────────────────────────────────────────────────────────────────────
def _pow_kernel(x, y):
    if _is_int(x) and np.any(np.asarray(y) < 0):
        raise errors.InvalidArgumentError(
            None, None, "Integers to negative integer powers are not allowed")
    return np.power(x, y)


pow_op = OpDef("Pow", shape=broadcast_shape, dtype=_same_dtype_in(_SIGNED_NUMERIC),
               kernel=_pow_kernel, broadcasting=True, input_names=("x", "y"))


@pow_op.def_grad
def _pow_grad(op, dy):
    array_ops = _array_ops()
    x, y = op.inputs
    z = conj(op.outputs[0])
    x, y = conj(x), conj(y)
    gx = dy * y * pow(x, y - 1)
    # d/dy = z * log(x), taken as 0 where x <= 0 (TF's "false singularity at x = 0")
    mask = not_equal(x, 0) if x.dtype.is_complex else x > 0
    safe_x = where(mask, x, array_ops.ones_like(x))
    log_x = where(mask, log(safe_x), array_ops.zeros_like(x))
    return [gx, dy * z * log_x]


def pow(x, y, name=None) -> Tensor:
    """Elementwise ``x ** y``."""
    with name_scope(name, "Pow", [x]) as scope:
        return _apply(pow_op, [x, y], scope)


# ── Maximum ──────────────────────────────────────────────────────────────────────────
maximum_op = OpDef("Maximum", shape=broadcast_shape, dtype=_same_dtype_in(_REAL),
                   kernel=np.maximum, broadcasting=True, input_names=("x", "y"))


def _maximum_minimum_grad(op, dy, selector):
    """TF's rule: ``dy`` goes to x where ``selector(x, y)`` (ties included), else to y."""
    x, y = op.inputs
    zeros = _array_ops().zeros_like(dy)
    xmask = selector(x, y)
    return [where(xmask, dy, zeros), where(xmask, zeros, dy)]


maximum_op.def_grad(lambda op, dy: _maximum_minimum_grad(op, dy, greater_equal))


def maximum(x, y, name=None) -> Tensor:
    """Elementwise larger of ``x`` and ``y`` (NaN if either is NaN)."""
    return _apply(maximum_op, [x, y], name)


# ── Minimum ──────────────────────────────────────────────────────────────────────────
minimum_op = OpDef("Minimum", shape=broadcast_shape, dtype=_same_dtype_in(_REAL),
                   kernel=np.minimum, broadcasting=True, input_names=("x", "y"))
minimum_op.def_grad(lambda op, dy: _maximum_minimum_grad(op, dy, less_equal))


def minimum(x, y, name=None) -> Tensor:
    """Elementwise smaller of ``x`` and ``y`` (NaN if either is NaN)."""
    return _apply(minimum_op, [x, y], name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """Clips ``t`` to ``[clip_value_min, clip_value_max]`` (``Minimum`` then ``Maximum``).

    Raises ``ValueError`` when the clip values would broadcast ``t`` to a larger shape.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
        return t_max


# ── ClipByValue ──────────────────────────────────────────────────────────────────────
def _clip_by_value_shape(t, lo, hi):
    for s in (lo, hi):
        if s.ndims:
            merge_shapes(t, s)
    return t


clip_by_value_op = OpDef(
    "ClipByValue", shape=_clip_by_value_shape, dtype=_same_dtype_in(_REAL, "t"),
    kernel=lambda t, lo, hi: np.minimum(np.maximum(t, lo), hi), broadcasting=True,
    input_names=("t", "clip_value_min", "clip_value_max"))


@clip_by_value_op.def_grad
def _clip_by_value_grad(op, dy):
    t, lo, hi = op.inputs  # the walk sums the bounds' gradients back to their shapes
    zeros = _array_ops().zeros_like(dy)
    below, above = less(t, lo), greater(t, hi)
    return [where(logical_or(below, above), zeros, dy), where(below, dy, zeros),
            where(above, dy, zeros)]


# ── SquaredDifference ────────────────────────────────────────────────────────────────
def _squared_difference_kernel(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if np.iscomplexobj(d) else np.square(d, out=d)


squared_difference_op = OpDef(
    "SquaredDifference", shape=broadcast_shape,
    dtype=_same_dtype_in(_FLOATS + _COMPLEX + _INDEX), kernel=_squared_difference_kernel,
    broadcasting=True, input_names=("x", "y"))


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
    for i in _builtin_range(len(shapes) - 1, -1, -1):
        try:
            cur = merge_shapes(shapes[i], cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return cur


def _add_n_dtype(*dts):
    if any(d is not dts[0] for d in dts):
        raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                        f"[{', '.join(d.name for d in dts)}] that don't all match.")
    return check_dtype(dts[0], _NUMERIC, "inputs")


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


def _pieces_of_padded_inputs(op, consts, owned):
    """Where each input of an AddN sits in the output, when every input is a zero ``Pad``
    (with constant paddings; owned by the run, or constant) of a fully known shape and no
    two overlap: ``(pieces, boxes)``; else None."""
    dims = op._outputs[0].shape.as_tuple()
    if len(op._inputs) < 2 or dims is None or None in dims:
        return None
    pieces, boxes = [], []
    for t in op._inputs:
        pad = t._op
        if (pad._op_def.type != "Pad" or not (owned(t) or t in consts)
                or pad._inputs[1] not in consts):
            return None
        piece = pad._inputs[0]
        shape = piece.shape.as_tuple()
        if shape is None or None in shape:
            return None
        before = np.asarray(consts[pad._inputs[1]]).reshape(-1, 2)[:, 0].tolist()
        pieces.append(piece)
        boxes.append(tuple(slice(a, a + d) for a, d in zip(before, shape)))
    for i, box in enumerate(boxes):
        for other in boxes[:i]:
            if all(a.start < b.stop and b.start < a.stop for a, b in zip(box, other)):
                return None
    return pieces, boxes


def _add_n_absorb_pads(op, consts, owned):
    # The gradient of slices that split one tensor (nce_loss's true and sampled rows) is
    # an AddN of zero-padded pieces. Each output element is then one piece's element plus
    # zeros, so ``piece + 0`` written into its place is the same sum, bit for bit (-0.0
    # becomes +0.0 as in the sum); uncovered places are the zeros' sum, +0. This skips
    # the padded copies and the adds over them.
    found = _pieces_of_padded_inputs(op, consts, owned)
    if found is None:
        return None
    pieces, boxes = found
    shape = op._outputs[0].shape.as_tuple()
    dtype = op._outputs[0].dtype.base_dtype.as_numpy_dtype
    zero = dtype(0)
    covered = sum(int(np.prod([b.stop - b.start for b in box])) for box in boxes)
    allocate = np.empty if covered == int(np.prod(shape)) else np.zeros

    def _add_n_of_padded_pieces(*xs):
        out = allocate(shape, dtype)
        for box, x in zip(boxes, xs):
            np.add(x, zero, out=out[box])
        return out

    return _add_n_of_padded_pieces, pieces


add_n_op = OpDef("AddN", shape=_add_n_shape, dtype=_add_n_dtype, kernel=_add_n_kernel,
                 fresh_outputs=lambda op, consts: len(op._inputs) > 1, aliases=True,
                 absorb_producers=_add_n_absorb_pads)
add_n_op.def_grad(lambda op, dy: [dy] * len(op.inputs))


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
            from scopeflow.ops import array_ops
            return array_ops.identity(inputs[0], name=name)
        return inputs[0]
    return add_n_op.bind(*inputs, name=name)


# ── Neg ──────────────────────────────────────────────────────────────────────────────
neg_op = OpDef("Neg", shape=same_shape, dtype=_same_dtype_in(_SIGNED_NUMERIC),
               kernel=np.negative, input_names=("x",))
neg_op.def_grad(lambda op, dy: [-dy])


def negative(x, name=None) -> Tensor:
    """Elementwise ``-x``."""
    return neg_op.bind(x, name=name)


# ── Abs ──────────────────────────────────────────────────────────────────────────────
abs_op = OpDef("Abs", shape=same_shape, dtype=_same_dtype_in(_FLOATS + _SIGNED),
               kernel=np.absolute, input_names=("x",))
abs_op.def_grad(lambda op, dy: [dy * sign(op.inputs[0])])  # 0 at x = 0, as TF


def abs(x, name=None) -> Tensor:
    """Elementwise absolute value (real inputs)."""
    return abs_op.bind(x, name=name)


# ── Sign ─────────────────────────────────────────────────────────────────────────────
sign_op = OpDef("Sign", shape=same_shape, dtype=_same_dtype_in(_SIGNED_NUMERIC),
                kernel=np.sign, input_names=("x",))
sign_op.def_grad(lambda op, dy: [_array_ops().zeros_like(op.inputs[0])])  # TF: zeros, not None


def sign(x, name=None) -> Tensor:
    """Elementwise -1, 0 or 1 (NaN stays NaN)."""
    return sign_op.bind(x, name=name)


# ── Square ───────────────────────────────────────────────────────────────────────────
square_op = OpDef("Square", shape=same_shape, dtype=_same_dtype_in(_NUMERIC),
                  kernel=np.square, input_names=("x",))


@square_op.def_grad
def _square_grad(op, dy):
    x = conj(op.inputs[0])
    return [multiply(dy, multiply(x, _const_like(2.0, x)))]


def square(x, name=None) -> Tensor:
    """Elementwise ``x * x``."""
    return square_op.bind(x, name=name)


# ── Reciprocal ───────────────────────────────────────────────────────────────────────
def _reciprocal_kernel(x):
    if _is_int(x):
        _check_divisor(x)
        return np.floor_divide(1, x) if x.dtype.kind == "u" else \
            np.where(np.absolute(x) == 1, x, 0).astype(x.dtype)
    return np.reciprocal(x)


reciprocal_op = OpDef("Reciprocal", shape=same_shape, dtype=_same_dtype_in(_SIGNED_NUMERIC),
                      kernel=_reciprocal_kernel, input_names=("x",), fresh_outputs=True)


@reciprocal_op.def_grad
def _reciprocal_grad(op, dy):
    y = conj(op.outputs[0])  # TF's ReciprocalGrad: -dy * y * y
    return [multiply(multiply(negative(dy), y), y)]


def reciprocal(x, name=None) -> Tensor:
    """Elementwise ``1 / x``."""
    return reciprocal_op.bind(x, name=name)


# ── Sqrt / Rsqrt / Exp / Log / Log1p / Sin / Cos / Tanh (floating point only) ────────
def _float_unary(op_type, kernel):
    return OpDef(op_type, shape=same_shape, dtype=_same_dtype_in(_FLOAT_OR_COMPLEX),
                 kernel=kernel, input_names=("x",))


sqrt_op = _float_unary("Sqrt", np.sqrt)


@sqrt_op.def_grad
def _sqrt_grad(op, dy):
    y = conj(op.outputs[0])  # TF's SqrtGrad: 0.5 * dy / y
    return [realdiv(multiply(_const_like(0.5, y), dy), y)]


def sqrt(x, name=None) -> Tensor:
    """Elementwise square root (NaN for negative reals)."""
    return sqrt_op.bind(x, name=name)


rsqrt_op = _float_unary("Rsqrt", lambda x: np.reciprocal(np.sqrt(x)))


@rsqrt_op.def_grad
def _rsqrt_grad(op, dy):
    y = conj(op.outputs[0])  # TF's RsqrtGrad: -0.5 * dy * y**3
    return [multiply(multiply(_const_like(-0.5, y), multiply(dy, y)), multiply(y, y))]


def rsqrt(x, name=None) -> Tensor:
    """Elementwise ``1 / sqrt(x)``."""
    return rsqrt_op.bind(x, name=name)


exp_op = _float_unary("Exp", np.exp)
exp_op.def_grad(lambda op, dy: [dy * conj(op.outputs[0])])  # reuses e**x


def exp(x, name=None) -> Tensor:
    """Elementwise ``e ** x``."""
    return exp_op.bind(x, name=name)


log_op = _float_unary("Log", np.log)
log_op.def_grad(lambda op, dy: [dy * reciprocal(conj(op.inputs[0]))])


def log(x, name=None) -> Tensor:
    """Elementwise natural logarithm."""
    return log_op.bind(x, name=name)


def _log1p_kernel(x):
    """Eigen's ``plog1p`` (TF's CPU kernel) for float32: ``x * log(1+x) / ((1+x) - 1)``.

    Two vectorised logs' worth of work instead of libm's scalar ``log1pf`` (~2.5x faster
    on word2vec's logistic loss); exact where ``1 + x`` rounds to 1 (returns ``x``) and at
    infinity, as Eigen's.
    """
    if x.dtype != np.float32:
        return np.log1p(x)
    xp1 = x + np.float32(1)
    out = np.log(xp1)
    d = xp1 - np.float32(1)
    # Where 1 + x rounds to 1, Eigen returns x: adding 1 to both log(1) = 0 and d = 0
    # makes the ratio 1 (a masked copy, or 0/0 then a fix-up, costs 3-4x the whole kernel).
    small = d == 0
    out += small
    d += small
    out /= d
    out *= x
    if np.fmax.reduce(xp1, axis=None) == np.inf:  # (fmax skips NaNs) inf / inf there;
        big = xp1 == np.float32(np.inf)           # Eigen returns x (inf) too
        out[big] = x[big]
    return out


log1p_op = _float_unary("Log1p", _log1p_kernel)
log1p_op.fresh_outputs = True


@log1p_op.def_grad
def _log1p_grad(op, dy):
    x = conj(op.inputs[0])
    return [dy * reciprocal(1 + x)]


def log1p(x, name=None) -> Tensor:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""
    return log1p_op.bind(x, name=name)


sin_op = _float_unary("Sin", np.sin)
sin_op.def_grad(lambda op, dy: [dy * cos(conj(op.inputs[0]))])


def sin(x, name=None) -> Tensor:
    """Elementwise sine."""
    return sin_op.bind(x, name=name)


cos_op = _float_unary("Cos", np.cos)
cos_op.def_grad(lambda op, dy: [-dy * sin(conj(op.inputs[0]))])


def cos(x, name=None) -> Tensor:
    """Elementwise cosine."""
    return cos_op.bind(x, name=name)


tanh_op = _float_unary("Tanh", np.tanh)


@tanh_op.def_grad
def _tanh_grad(op, dy):
    y = conj(op.outputs[0])  # TF's TanhGrad: dy * (1 - y * y)
    return [multiply(dy, subtract(_const_like(1, y), multiply(y, y)))]


def tanh(x, name=None) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return tanh_op.bind(x, name=name)


# ── Sigmoid ──────────────────────────────────────────────────────────────────────────
def _sigmoid_kernel(x):
    if np.iscomplexobj(x):
        return np.reciprocal(1 + np.exp(-x))
    e = np.exp(-np.absolute(x))  # never overflows
    return np.where(x >= 0, np.reciprocal(1 + e), e / (1 + e))


sigmoid_op = OpDef("Sigmoid", shape=same_shape, dtype=_same_dtype_in(_FLOAT_OR_COMPLEX),
                   kernel=_sigmoid_kernel, input_names=("x",))


@sigmoid_op.def_grad
def _sigmoid_grad(op, dy):
    y = conj(op.outputs[0])  # TF's SigmoidGrad: dy * y * (1 - y)
    return [multiply(multiply(dy, y), subtract(_const_like(1, y), y))]


def sigmoid(x, name=None) -> Tensor:
    """Elementwise ``1 / (1 + exp(-x))``."""
    return sigmoid_op.bind(x, name=name)


# ── Round / Floor / Ceil (TF: gradient None) ─────────────────────────────────────────
round_op = OpDef("Round", shape=same_shape, dtype=_same_dtype_in(_FLOATS + _SIGNED),
                 kernel=np.round, grad=None, input_names=("x",))


def round(x, name=None) -> Tensor:
    """Rounds half to even (banker's rounding); integers are returned unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return round_op.bind(x, name=name)


floor_op = OpDef("Floor", shape=same_shape, dtype=_same_dtype_in(_FLOATS), kernel=np.floor,
                 grad=None, input_names=("x",))


def floor(x, name=None) -> Tensor:
    """Elementwise largest integer not greater than ``x``."""
    return floor_op.bind(x, name=name)


ceil_op = OpDef("Ceil", shape=same_shape, dtype=_same_dtype_in(_FLOATS), kernel=np.ceil,
                grad=None, input_names=("x",))


def ceil(x, name=None) -> Tensor:
    """Elementwise smallest integer not less than ``x``."""
    return ceil_op.bind(x, name=name)


# ── Conj ─────────────────────────────────────────────────────────────────────────────
conj_op = OpDef("Conj", shape=same_shape, dtype=_same_dtype_in(_COMPLEX, "input"),
                kernel=np.conj, input_names=("input",))
conj_op.def_grad(lambda op, dy: [conj(dy)])


def conj(x, name=None) -> Tensor:
    """Complex conjugate; real tensors are returned unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return conj_op.bind(x, name=name)
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


# ── Comparisons (not differentiable) ─────────────────────────────────────────────────
def _comparison(op_type, kernel, allowed, attrs=None):
    return OpDef(op_type, shape=broadcast_shape, dtype=_compare_dtype_in(allowed),
                 kernel=kernel, grad=None, attrs=attrs, input_names=("x", "y"))


less_op = _comparison("Less", np.less, _REAL)


def less(x, y, name=None) -> Tensor:
    """Elementwise ``x < y`` (bool)."""
    return _apply(less_op, [x, y], name)


less_equal_op = _comparison("LessEqual", np.less_equal, _REAL)


def less_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x <= y`` (bool)."""
    return _apply(less_equal_op, [x, y], name)


greater_op = _comparison("Greater", np.greater, _REAL)


def greater(x, y, name=None) -> Tensor:
    """Elementwise ``x > y`` (bool)."""
    return _apply(greater_op, [x, y], name)


greater_equal_op = _comparison("GreaterEqual", np.greater_equal, _REAL)


def greater_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x >= y`` (bool)."""
    return _apply(greater_equal_op, [x, y], name)


_EQUALITY_TYPES = _NUMERIC + (dtypes.bool_, dtypes.string)
equal_op = _comparison("Equal", lambda x, y, *, incompatible_shape_error:
                       np.asarray(np.equal(x, y), dtype=bool), _EQUALITY_TYPES,
                       {"incompatible_shape_error": True})


def equal(x, y, name=None) -> Tensor:
    """Elementwise ``x == y`` (bool). ``Tensor.__eq__`` stays identity, as in TF1."""
    return _apply(equal_op, [x, y], name)


not_equal_op = _comparison("NotEqual", lambda x, y, *, incompatible_shape_error:
                           np.asarray(np.not_equal(x, y), dtype=bool), _EQUALITY_TYPES,
                           {"incompatible_shape_error": True})


def not_equal(x, y, name=None) -> Tensor:
    """Elementwise ``x != y`` (bool)."""
    return _apply(not_equal_op, [x, y], name)


# ── LogicalAnd / LogicalOr / LogicalNot (not differentiable) ─────────────────────────
logical_and_op = OpDef("LogicalAnd", shape=broadcast_shape,
                       dtype=_bool_only("LogicalAnd", ("x", "y")), kernel=np.logical_and,
                       grad=None, input_names=("x", "y"))


def logical_and(x, y, name=None) -> Tensor:
    """Elementwise ``x AND y`` of bool tensors."""
    return _apply(logical_and_op, [x, y], name)


logical_or_op = OpDef("LogicalOr", shape=broadcast_shape,
                      dtype=_bool_only("LogicalOr", ("x", "y")), kernel=np.logical_or,
                      grad=None, input_names=("x", "y"))


def logical_or(x, y, name=None) -> Tensor:
    """Elementwise ``x OR y`` of bool tensors."""
    return _apply(logical_or_op, [x, y], name)


logical_not_op = OpDef("LogicalNot", shape=same_shape, dtype=_bool_only("LogicalNot", ("x",)),
                       kernel=np.logical_not, grad=None, input_names=("x",))


def logical_not(x, name=None) -> Tensor:
    """Elementwise ``NOT x`` of a bool tensor."""
    return logical_not_op.bind(x, name=name)


def logical_xor(x, y, name="LogicalXor") -> Tensor:
    """``(x OR y) AND NOT (x AND y)``, built from three ops as TF does."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# ── Select (TF1's tf.where with x and y) ─────────────────────────────────────────────
def _select_shape(c, t, e):
    out = merge_shapes(t, e)
    if c.ndims is None or out.ndims is None or c.ndims == 0:
        return out
    if c.ndims == 1 and out.ndims > 1:
        merge_shapes(c, TensorShape(out.as_tuple()[:1]))
        return out
    return merge_shapes(out, c)


def _select_dtype(c, t, e):
    if c is not dtypes.bool_:
        raise TypeError(f"Input 'condition' of 'Select' Op has type {c.name} that does not "
                        "match expected type of bool.")
    if e is not t:
        raise TypeError(f"Input 'e' of 'Select' Op has type {e.name} that does not match type "
                        f"{t.name} of argument 't'.")
    return t


def _select_kernel(c, t, e):
    if np.shape(t) != np.shape(e):
        raise errors.InvalidArgumentError(
            None, None, f"'then' and 'else' must have the same size.  but received: "
            f"{list(np.shape(t))} vs. {list(np.shape(e))}")
    c = np.asarray(c)
    if c.ndim == 1 and np.ndim(t) > 1:
        if c.shape[0] != np.shape(t)[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Number of batches of 'then' must match size of 'cond', but saw: "
                f"{np.shape(t)[0]} vs. {c.shape[0]}")
        c = c.reshape(c.shape + (1,) * (np.ndim(t) - 1))
    elif c.ndim and c.shape != np.shape(t):
        raise errors.InvalidArgumentError(
            None, None, f"'condition' and 'then' must have the same size.  but received: "
            f"{list(c.shape)} vs. {list(np.shape(t))}")
    return np.where(c, t, e)


def _select_with_zeros(zeros_at):
    """Select where input ``zeros_at`` (1 for ``t``, 2 for ``e``) is all +0.0 (or 0): the
    other input's bits ANDed with the condition's mask, two cheap passes where np.where
    copies element by element (2x slower). Exact: NaN payloads and -0.0 pass through."""

    def kernel(c, t, e):
        x = e if zeros_at == 1 else t
        if not (type(c) is np.ndarray and c.dtype == np.bool_ and type(x) is np.ndarray
                and c.shape == np.shape(t) == np.shape(e) and x.dtype.itemsize in (4, 8)):
            return _select_kernel(c, t, e)
        mask = c.astype(np.int32 if x.dtype.itemsize == 4 else np.int64)
        if zeros_at == 2:
            np.negative(mask, out=mask)      # all ones where c holds
        else:
            mask -= 1                        # all ones where c does not
        np.bitwise_and(x.view(mask.dtype), mask, out=mask)
        return mask.view(x.dtype)

    kernel.__name__ = kernel.__qualname__ = f"_select_{('then', 'else')[zeros_at - 1]}_zeros"
    return kernel


_SELECT_ZEROS = {1: _select_with_zeros(1), 2: _select_with_zeros(2)}


def _select_const_kernel(consts):
    # The zeros of where-based formulas (sigmoid cross-entropy) and of Select's own
    # gradient are folded constants, so they are recognised once, when a plan is compiled.
    for at in (2, 1):
        z = consts[at]
        if (isinstance(z, np.ndarray) and z.dtype.kind in "fiu" and z.dtype.itemsize in (4, 8)
                and not z.view(f"u{z.dtype.itemsize}").any()):
            return _SELECT_ZEROS[at]
    return None


select_op = OpDef("Select", shape=_select_shape, dtype=_select_dtype, kernel=_select_kernel,
                  input_names=("condition", "t", "e"), const_kernel=_select_const_kernel,
                  fresh_outputs=True)


@select_op.def_grad
def _select_grad(op, dy):
    c = op.inputs[0]
    zeros = _array_ops().zeros_like(op.inputs[1])
    return [None, where(c, dy, zeros), where(c, zeros, dy)]


# ── SelectV2 (tf.where_v2: condition, x and y broadcast together) ───────────────────
def _select_v2_shape(c, t, e):
    return broadcast_shape(broadcast_shape(c, t), e)


def _select_v2_dtype(c, t, e):
    return _select_dtype(c, t, e)


def _select_v2_kernel(c, t, e):
    return np.where(c, t, e)


select_v2_op = OpDef("SelectV2", shape=_select_v2_shape, dtype=_select_v2_dtype,
                     kernel=_select_v2_kernel, broadcasting=True,
                     input_names=("condition", "t", "e"))


@select_v2_op.def_grad
def _select_v2_grad(op, dy):
    c = op.inputs[0]
    zeros = _array_ops().zeros_like(dy)
    # The walk sums each gradient back to its input's (possibly broadcast) shape.
    return [None, where_v2(c, dy, zeros), where_v2(c, zeros, dy)]


def where_v2(condition, x=None, y=None, name=None) -> Tensor:
    """TF2's ``tf.where``: like ``where``, but ``condition``, ``x``, ``y`` broadcast."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _apply(select_v2_op, [condition, x, y], name, hinted=(1, 2))


# ── DivNoNan (x / y, and 0 where y == 0) ─────────────────────────────────────────────
def _div_no_nan_kernel(x, y):
    out = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(y)), dtype=np.result_type(x, y))
    np.divide(x, y, out=out, where=np.asarray(y) != 0)
    return out


div_no_nan_op = OpDef("DivNoNan", shape=broadcast_shape, dtype=_same_dtype_in(_FLOATS),
                      kernel=_div_no_nan_kernel, broadcasting=True, input_names=("x", "y"))


@div_no_nan_op.def_grad
def _div_no_nan_grad(op, dy):
    x, y = op.inputs
    return [div_no_nan(dy, y), dy * div_no_nan(div_no_nan(negative(x), y), y)]


def div_no_nan(x, y, name=None) -> Tensor:
    """``x / y``, but 0 wherever ``y`` is 0 (even for 0/0 and inf/0)."""
    return _apply(div_no_nan_op, [x, y], name or "div_no_nan")


# ── Where (coordinates of true elements; not differentiable) ─────────────────────────
def _where_shape(x):
    return TensorShape([None, x.ndims])


where_op = OpDef("Where", shape=_where_shape,
                 dtype=lambda x: (check_dtype(x, _NUMERIC + (dtypes.bool_,), "input"),
                                  dtypes.int64)[1],
                 kernel=lambda x: np.argwhere(x).astype(np.int64), grad=NO_GRADIENT,
                 input_names=("input",))


def where(condition, x=None, y=None, name=None) -> Tensor:
    """TF1's ``tf.where``.

    With ``x`` and ``y``: a ``Select`` op taking elements of ``x`` where ``condition`` is
    true, else of ``y``. ``x`` and ``y`` must have one shape; ``condition`` has that shape,
    or is a scalar, or a vector along the first dimension. With only ``condition``: a
    ``Where`` op giving the int64 coordinates of the true elements, shape ``[n, rank]``.
    """
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool_,
                                          name="condition")
            return where_op.bind(condition, name=scope)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _apply(select_op, [condition, x, y], name, hinted=(1, 2))


# ── Reductions: Sum / Mean / Max / Min / Prod / All / Any ────────────────────────────
def _static_axes(values, rank):
    """Reduction axes as a sorted tuple in ``[0, rank)``; TF's message on bad ones."""
    out = set()
    for v in np.asarray(values).reshape(-1).tolist():
        if not -rank <= v < rank:
            raise ValueError(f"Invalid reduction dimension {v} for input with {rank} "
                             "dimensions.")
        out.add(v % rank)
    return tuple(sorted(out))


def _reduction_shape(x, axis, *, keep_dims):
    if axis.shape.ndims is not None and axis.shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axis.shape.ndims}")
    rank = x.shape.ndims
    values = constant_value(axis)
    if values is None or rank is None:
        return TensorShape([None] * rank if keep_dims and rank is not None else None)
    axes = _static_axes(values, rank)
    dims = x.shape.as_tuple()
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _runtime_axes(x, axis):
    nd = x.ndim
    values = np.asarray(axis).reshape(-1).tolist()
    if len(values) == 1 and 0 <= values[0] < nd:  # the common case, without the set
        return (values[0],)
    out = set()
    for v in values:
        if not -nd <= v < nd:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({v} for input with {nd} "
                "dimension(s)")
        out.add(v % nd)
    return tuple(sorted(out))


def _accumulator(x):
    """NumPy accumulation dtype: float16 sums in float32 (as TF), others in their own."""
    return np.float32 if x.dtype == np.float16 else x.dtype


def _reduction(op_type, allowed, kernel, grad=...):
    def dtype_rule(x, axis, *, keep_dims):
        if allowed is None:
            if x is not dtypes.bool_:
                raise TypeError(f"Input 'input' of '{op_type}' Op has type {x.name} that does "
                                "not match expected type of bool.")
        else:
            check_dtype(x, allowed, "input")
        check_dtype(axis, _INDEX, "reduction_indices")
        return x

    def run(x, axis, *, keep_dims):
        x = np.asarray(x)
        axes = _runtime_axes(x, axis)
        if all(x.shape[a] == 1 for a in axes):
            # Nothing is reduced (no axes, or only axes of size 1): TF forwards the input.
            return x.reshape([1 if i in axes else d for i, d in enumerate(x.shape)
                              if keep_dims or i not in axes])
        return np.asarray(kernel(x, axes, keep_dims), dtype=x.dtype)

    extra = {} if grad is ... else {"grad": grad}
    return OpDef(op_type, shape=_reduction_shape, dtype=dtype_rule, kernel=run,
                 attrs={"keep_dims": False}, shape_from_tensors=True, aliases=(0,),
                 fresh_outputs=_reduces_something, input_names=("input", "reduction_indices"),
                 **extra)


def _reduces_something(op, consts) -> bool:
    """Whether the axes are constants that reduce a dim known not to be 1 (so the output
    is a new array, never the input forwarded)."""
    axes = consts.get(op._inputs[1])
    dims = op._inputs[0].shape.as_tuple()
    if axes is None or dims is None:
        return False
    return any(dims[a % len(dims)] not in (None, 1) for a in np.reshape(axes, -1).tolist())


def _deprecated_lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return new_value if new_value is not None else old_value


def _reduce(op_def, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    if axis is None:
        x = convert_to_tensor(input_tensor)
        axis = _all_axes(x)
        out = op_def.bind(x, axis, keep_dims=keepdims, name=name)
        if not keepdims:
            out.set_shape([])  # TF's _may_reduce_to_scalar
        return out
    if isinstance(axis, (list, tuple)) and not axis:
        axis = np.zeros([0], np.int32)  # an empty Python list would become float32
    return op_def.bind(input_tensor, axis, keep_dims=keepdims, name=name)


def _all_axes(x):
    """TF's ``_ReductionDims`` for ``axis=None``: a Const, else ``range(0, rank(x))``."""
    rank = x.shape.ndims
    if rank:
        return constant_op.constant(np.arange(rank, dtype=np.int32))
    if rank == 0:
        rank_t = constant_op.constant(0, name="Rank")
    else:
        from scopeflow.ops import array_ops
        if not hasattr(array_ops, "rank"):
            raise NotImplementedError(
                "reducing a tensor of unknown rank with axis=None needs array_ops.rank")
        rank_t = array_ops.rank(x)
    return range(0, rank_t)


def _sum_kernel(x, axes, keep_dims):
    # ufunc.reduce directly: np.sum's Python wrapper costs as much as a small sum.
    return np.add.reduce(x, axis=axes, dtype=_accumulator(x), keepdims=keep_dims)


def _mean_kernel(x, axes, keep_dims):
    count = 1
    for a in axes:
        count *= x.shape[a]
    if x.dtype.kind in "iu":  # TF's integer mean: sum (wide), then divide toward zero
        s = np.sum(x, axis=axes, dtype=np.int64 if x.dtype.kind == "i" else np.uint64,
                   keepdims=keep_dims)
        if count == 0:
            return np.zeros_like(s)
        return np.sign(s) * (np.absolute(s) // count)
    return np.add.reduce(x, axis=axes, dtype=_accumulator(x), keepdims=keep_dims) / count


def _extreme(x, largest):
    if x.dtype.kind == "f":
        return -np.inf if largest else np.inf
    info = np.iinfo(x.dtype)
    return info.min if largest else info.max


sum_op = _reduction("Sum", _NUMERIC, _sum_kernel)


def _reduced_shape(x, axis):
    """TF's ``reduced_shape``: ``x``'s shape with the reduced axes set to 1, and the tile
    multiples undoing the reduction (``x``'s dims at the reduced axes, 1 elsewhere).

    Python lists when ``x``'s shape and ``axis`` are static, else int32 tensors (built with
    a mask over ``range(rank)``, so unknown ranks and empty dims work too).
    """
    axes = constant_value(axis)
    if x.shape.is_fully_defined() and axes is not None:
        dims = x.shape.as_list()
        reduced = {int(a) % len(dims) for a in axes.reshape(-1).tolist()} if dims else set()
        return ([1 if i in reduced else d for i, d in enumerate(dims)],
                [d if i in reduced else 1 for i, d in enumerate(dims)])
    array_ops = _array_ops()
    shape = array_ops.shape(x)
    rank = array_ops.size(shape)
    axes = floormod(add(array_ops.reshape(cast(axis, dtypes.int32), [-1]), rank),
                    maximum(rank, 1))
    is_reduced = reduce_any(equal(array_ops.expand_dims(range(0, rank), 1),
                                  array_ops.expand_dims(axes, 0)), 1)
    ones = array_ops.ones_like(shape)
    return where(is_reduced, ones, shape), where(is_reduced, shape, ones)


def _sum_grad(op, dy):
    """``dy`` reshaped to keep the reduced dims, then tiled back to the input's shape."""
    array_ops = _array_ops()
    x, axis = op.inputs
    kept, multiples = _reduced_shape(x, axis)
    if isinstance(kept, list):
        dy = array_ops.reshape(dy, kept)
        if all(k == 1 for k in kept):  # reduce-all: TF tiles by the input's shape as a Const
            multiples = constant_op.constant(multiples, dtype=dtypes.int32)
    elif not op.get_attr("keep_dims"):
        dy = array_ops.reshape(dy, kept)
    return [array_ops.tile(dy, multiples), None]


def _mean_grad(op, dy):
    """The Sum gradient divided by the number of elements reduced into each output."""
    sum_grad = _sum_grad(op, dy)[0]
    x, axis = op.inputs
    y = op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = math.prod(x.shape.as_list()) // builtins.max(math.prod(y.shape.as_list()), 1)
        factor = _const_like(count, sum_grad)
    else:
        array_ops = _array_ops()
        shape = array_ops.shape(x)
        rank = array_ops.size(shape)
        axes = floormod(add(cast(axis, dtypes.int32), rank), maximum(rank, 1))
        factor = cast(reduce_prod(array_ops.gather(shape, axes)), sum_grad.dtype)
    return [truediv(sum_grad, factor), None]


def _min_or_max_grad(op, dy):
    """``dy`` goes to the elements equal to the result, split evenly between ties (as TF)."""
    array_ops = _array_ops()
    x, axis = op.inputs
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept, _ = _reduced_shape(x, axis)
        y = array_ops.reshape(y, kept)
        dy = array_ops.reshape(dy, kept)
    indicators = cast(equal(y, x), dy.dtype)
    num_selected = sum_op.bind(indicators, axis, keep_dims=True)
    return [indicators / num_selected * dy, None]


def _prod_grad(op, dy):
    """d prod / d x_i = the product of the other elements, exact when some x are 0.

    TF builds it from two exclusive cumprods; here, the same values come from counting the
    zeros of each reduced group: no zero gives ``prod / x_i``; one zero gives the product
    of the non-zeros at the zero (and 0 elsewhere); two or more give 0.
    """
    array_ops = _array_ops()
    x, axis = op.inputs
    if not op.get_attr("keep_dims"):
        dy = array_ops.reshape(dy, _reduced_shape(x, axis)[0])
    is_zero = equal(x, _const_like(0, x))
    nonzero = where(is_zero, array_ops.ones_like(x), x)
    prod_nonzero = prod_op.bind(nonzero, axis, keep_dims=True)
    zeros_count = sum_op.bind(cast(is_zero, dtypes.int32), axis, keep_dims=True)
    at_zero = multiply(cast(is_zero, x.dtype),
                       multiply(cast(equal(zeros_count, 1), x.dtype), prod_nonzero))
    elsewhere = multiply(cast(logical_not(is_zero), x.dtype),
                         multiply(cast(equal(zeros_count, 0), x.dtype),
                                  realdiv(prod_nonzero, nonzero)))
    return [multiply(dy, conj(add(at_zero, elsewhere))), None]


sum_op.def_grad(_sum_grad)
mean_op = _reduction("Mean", _NUMERIC, _mean_kernel, grad=_mean_grad)
max_op = _reduction("Max", _REAL, lambda x, axes, kd: np.max(
    x, axis=axes, keepdims=kd, initial=_extreme(x, True)), grad=_min_or_max_grad)
min_op = _reduction("Min", _REAL, lambda x, axes, kd: np.min(
    x, axis=axes, keepdims=kd, initial=_extreme(x, False)), grad=_min_or_max_grad)
prod_op = _reduction("Prod", _NUMERIC, lambda x, axes, kd: np.prod(
    x, axis=axes, dtype=_accumulator(x), keepdims=kd), grad=_prod_grad)
all_op = _reduction("All", None, lambda x, axes, kd: np.all(x, axis=axes, keepdims=kd),
                    grad=NO_GRADIENT)
any_op = _reduction("Any", None, lambda x, axes, kd: np.any(x, axis=axes, keepdims=kd),
                    grad=NO_GRADIENT)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Sum over ``axis`` (an int, a list, or None for all); ``keepdims`` keeps size-1 dims.

    >>> reduce_sum([[1, 2], [3, 4]], 1).shape.as_list()
    [2]
    """
    return _reduce(sum_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None) -> Tensor:
    """Mean over ``axis``; integer means stay integers (rounded toward zero, as TF)."""
    return _reduce(mean_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Maximum over ``axis`` (``-inf`` / the dtype's min for empty reductions)."""
    return _reduce(max_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Minimum over ``axis`` (``inf`` / the dtype's max for empty reductions)."""
    return _reduce(min_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None) -> Tensor:
    """Product over ``axis``."""
    return _reduce(prod_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Logical AND over ``axis`` of a bool tensor."""
    return _reduce(all_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Logical OR over ``axis`` of a bool tensor."""
    return _reduce(any_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably around the maximum.

    The maximum is clipped to the dtype's finite range, so all ``-inf`` inputs give
    ``-inf`` (TF uses IsFinite/SelectV2 for the same effect).
    """
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    from scopeflow.ops import array_ops
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor)
        check_dtype(x.dtype.base_dtype, _FLOATS, "x")
        dt = x.dtype.base_dtype
        raw_max = reduce_max(x, axis, keepdims=True)
        my_max = array_ops.stop_gradient(minimum(maximum(raw_max, dt.min), dt.max))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keepdims))
        if not keepdims:
            my_max = reduce_sum(my_max, axis)  # drops the size-1 dims
        return add(result, my_max, name=scope)


# ── UnsortedSegmentSum ───────────────────────────────────────────────────────────────
def _unsorted_segment_sum_shape(data, segment_ids, num_segments):
    ids_shape, data_shape = segment_ids.shape, data.shape
    if num_segments.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {num_segments.shape.ndims}")
    n = constant_value(num_segments)
    n = None if n is None else int(n)
    if ids_shape.ndims is None or data_shape.ndims is None:
        return TensorShape(None)
    k = ids_shape.ndims
    if data_shape.ndims < k:
        raise ValueError(f"Shape must be at least rank {k} but is rank {data_shape.ndims}")
    merge_shapes(TensorShape(data_shape.as_tuple()[:k]), ids_shape)
    return TensorShape((n,) + data_shape.as_tuple()[k:])


def _unsorted_segment_sum_dtype(data, segment_ids, num_segments):
    check_dtype(segment_ids, _INDEX, "segment_ids")
    check_dtype(num_segments, _INDEX, "num_segments")
    return check_dtype(data, _NUMERIC, "data")


def _unsorted_segment_sum_kernel(data, segment_ids, num_segments):
    data, ids, n = np.asarray(data), np.asarray(segment_ids), int(num_segments)
    if data.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(
            None, None, f"data.shape = {list(data.shape)} does not start with segment_ids.shape "
            f"= {list(ids.shape)}")
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_segments must be >= 0, got {n}")
    ids = ids.reshape(-1).astype(np.int64)
    rows = data.reshape((ids.size, -1) if ids.size else (0, int(np.prod(data.shape[ids.ndim:]))))
    bad = ids >= n
    if bad.any():
        i = int(np.argmax(bad))
        where_ = ",".join(map(str, np.unravel_index(i, np.shape(segment_ids))))
        raise errors.InvalidArgumentError(
            None, None, f"segment_ids[{where_}] = {ids[i]} is out of range [0, {n})")
    keep = ids >= 0  # TF drops negative ids
    if not keep.all():
        ids, rows = ids[keep], rows[keep]
    width = rows.shape[1]
    out_shape = (n,) + data.shape[np.ndim(segment_ids):]
    if data.dtype.kind in "fc" and width:  # one bincount over (segment, column) pairs
        flat = (ids[:, None] * width + np.arange(width)).reshape(-1)
        acc = np.float32 if data.dtype == np.float16 else data.dtype

        def count(w):
            return np.bincount(flat, weights=w.reshape(-1), minlength=n * width)
        if data.dtype.kind == "c":
            out = count(rows.real) + 1j * count(rows.imag)
        else:
            out = count(rows)
        return out.astype(acc).astype(data.dtype).reshape(out_shape)
    out = np.zeros((n, width), data.dtype)
    np.add.at(out, ids, rows)
    return out.reshape(out_shape)


unsorted_segment_sum_op = OpDef(
    "UnsortedSegmentSum", shape=_unsorted_segment_sum_shape, shape_from_tensors=True,
    dtype=_unsorted_segment_sum_dtype, kernel=_unsorted_segment_sum_kernel,
    input_names=("data", "segment_ids", "num_segments"))


@unsorted_segment_sum_op.def_grad
def _unsorted_segment_sum_grad(op, dy):
    """Each data row gets its segment's gradient (TF's ``_GatherDropNegatives``)."""
    array_ops = _array_ops()
    ids = op.inputs[1]
    gathered = array_ops.gather(dy, maximum(ids, _const_like(0, ids)))
    keep = cast(greater_equal(ids, _const_like(0, ids)), dy.dtype)
    if ids.shape.ndims is not None and gathered.shape.ndims is not None:
        for _ in _builtin_range(gathered.shape.ndims - ids.shape.ndims):
            keep = array_ops.expand_dims(keep, -1)
    else:
        ones = array_ops.ones_like(array_ops.shape(gathered))
        extra = array_ops.strided_slice(ones, [0], array_ops.reshape(
            subtract(array_ops.rank(gathered), array_ops.rank(ids)), [1]))
        keep = array_ops.reshape(keep, array_ops.concat([array_ops.shape(ids), extra], 0))
    return [multiply(gathered, keep), None, None]


def unsorted_segment_sum(data, segment_ids, num_segments, name=None) -> Tensor:
    """``out[s] = sum(data[i] for i where segment_ids[i] == s)`` for ``s < num_segments``.

    ``segment_ids`` may be any prefix shape of ``data``; negative ids are dropped.

    >>> unsorted_segment_sum([1., 2., 3.], [0, 1, 0], 2).shape.as_list()
    [2]
    """
    return _apply(unsorted_segment_sum_op, [data, segment_ids, num_segments], name,
                  hinted=(0,))


# ── ArgMax / ArgMin (not differentiable) ─────────────────────────────────────────────
def _arg_shape(x, dimension, *, output_type):
    rank = x.shape.ndims
    if dimension.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {dimension.shape.ndims}")
    if rank is None:
        return TensorShape(None)
    if rank == 0:
        return TensorShape([])
    value = constant_value(dimension)
    if value is None:
        return TensorShape([None] * (rank - 1))
    d = int(value)
    if not -rank <= d < rank:
        raise ValueError(f"Dimension ({d}) must be in the range [{-rank}, {rank}), where "
                         f"{rank} is the number of dimensions in the input.")
    dims = list(x.shape.as_tuple())
    del dims[d % rank]
    return TensorShape(dims)


def _arg_dtype(x, dimension, *, output_type):
    check_dtype(x, _REAL + (dtypes.bool_,), "input")
    check_dtype(dimension, _INDEX, "dimension")
    return check_dtype(output_type, _INDEX, "output_type")


def _arg_kernel(largest):
    def kernel(x, dimension, *, output_type):
        x = np.asarray(x)
        out_dt = output_type.as_numpy_dtype
        nd, d = x.ndim, int(dimension)
        if nd == 0:
            return np.zeros((), out_dt)
        if not -nd <= d < nd:
            raise errors.InvalidArgumentError(
                None, None, f"Expected dimension in the range [{-nd}, {nd}), but got {d}")
        if x.shape[d] == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Reduction axis {d} is empty in shape {list(x.shape)}")
        if x.dtype.kind == "f" and np.isnan(x).any():  # TF's comparisons skip NaNs
            x = np.where(np.isnan(x), -np.inf if largest else np.inf, x)
        fn = np.argmax if largest else np.argmin
        return np.asarray(fn(x, axis=d), dtype=out_dt)
    return kernel


def _arg_op(op_type, largest):
    return OpDef(op_type, shape=_arg_shape, dtype=_arg_dtype, kernel=_arg_kernel(largest),
                 attrs={"output_type": dtypes.int64}, grad=None, shape_from_tensors=True,
                 input_names=("input", "dimension"))


argmax_op = _arg_op("ArgMax", True)
argmin_op = _arg_op("ArgMin", False)


def _arg(op_def, input, axis, name, dimension, output_type):
    axis = _deprecated_lookup("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    return op_def.bind(input, axis, output_type=dtypes.as_dtype(output_type).base_dtype,
                       name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (int64).

    >>> argmax([[1, 5], [7, 2]], 1).dtype.name
    'int64'
    """
    return _arg(argmax_op, input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0), as ``output_type`` (int64)."""
    return _arg(argmin_op, input, axis, name, dimension, output_type)


# ── MatMul ───────────────────────────────────────────────────────────────────────────
_MATMUL_TYPES = _FLOATS + _INDEX + _UNSIGNED + _COMPLEX


def _matmul_shape(a, b, *, transpose_a, transpose_b):
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    da = a.as_tuple() or (None, None)
    db = b.as_tuple() or (None, None)
    (m, ka), (kb, n) = da[::-1] if transpose_a else da, db[::-1] if transpose_b else db
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Dimensions must be equal, but are {ka} and {kb}")
    return TensorShape([m, n])


def _matmul_kernel(a, b, *, transpose_a, transpose_b):
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {shape_str(TensorShape(a.shape))}, "
            f"In[1]: {shape_str(TensorShape(b.shape))}")
    if a.dtype.kind == "f" and a.dtype == b.dtype and a.ndim == 2 and b.ndim == 2:
        if a.shape[1] == 1:
            # An outer product (the gradient of nce_loss's row sums): one product per
            # element, as BLAS computes it; BLAS adds it to a zero accumulator, so -0.0
            # comes out +0.0, which ``+= 0`` reproduces. 3x cheaper than the GEMM call.
            out = np.multiply(a, b)
            out += 0
            return out
        return gemm(a, b)
    return np.matmul(a, b)


matmul_op = OpDef("MatMul", shape=_matmul_shape, dtype=_same_dtype_in(_MATMUL_TYPES, "a"),
                  kernel=_matmul_kernel, attrs={"transpose_a": False, "transpose_b": False},
                  input_names=("a", "b"), fresh_outputs=True)


@matmul_op.def_grad
def _matmul_grad(op, dy):
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    mm = lambda x, y, ta=False, tb=False: matmul_op.bind(  # noqa: E731
        x, y, transpose_a=ta, transpose_b=tb, name="MatMul")
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not t_a and not t_b:
        return [mm(dy, b, tb=True), mm(a, dy, ta=True)]
    if not t_a:
        return [mm(dy, b), mm(dy, a, ta=True)]
    if not t_b:
        return [mm(b, dy, tb=True), mm(a, dy)]
    return [mm(b, dy, ta=True, tb=True), mm(dy, a, ta=True, tb=True)]


# ── BatchMatMulV2 ────────────────────────────────────────────────────────────────────
def _batch_matmul_shape(x, y, *, adj_x, adj_y):
    if x.ndims is None or y.ndims is None:
        return TensorShape(None)
    for s in (x, y):
        if s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    dx, dy = x.as_tuple(), y.as_tuple()
    m, kx = dx[-2:][::-1] if adj_x else dx[-2:]
    ky, n = dy[-2:][::-1] if adj_y else dy[-2:]
    if kx is not None and ky is not None and kx != ky:
        raise ValueError(f"Dimensions must be equal, but are {kx} and {ky}")
    batch = broadcast_shape(TensorShape(dx[:-2]), TensorShape(dy[:-2]))
    return TensorShape(batch.as_tuple() + (m, n))


def _adjoint(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if np.iscomplexobj(x) else x


def _batch_matmul_kernel(x, y, *, adj_x, adj_y):
    x = _adjoint(x) if adj_x else x
    y = _adjoint(y) if adj_y else y
    try:
        return np.matmul(x, y)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible or batch dims not broadcastable: "
            f"In[0]: {shape_str(TensorShape(np.shape(x)))}, "
            f"In[1]: {shape_str(TensorShape(np.shape(y)))}") from None


batch_matmul_op = OpDef("BatchMatMulV2", shape=_batch_matmul_shape,
                        dtype=_same_dtype_in(_MATMUL_TYPES), kernel=_batch_matmul_kernel,
                        attrs={"adj_x": False, "adj_y": False}, broadcasting=True,
                        input_names=("x", "y"))


@batch_matmul_op.def_grad
def _batch_matmul_grad(op, dy):
    """As MatMul's, with adjoints; the walk sums broadcast batch dims back to each input."""
    x, y = op.inputs
    mm = lambda a, b, aa=False, ab=False: batch_matmul_op.bind(  # noqa: E731
        a, b, adj_x=aa, adj_y=ab, name="MatMul")
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        return [mm(dy, y, ab=True), mm(x, dy, aa=True)]
    if not adj_x:
        return [mm(dy, y), mm(dy, x, aa=True)]
    if not adj_y:
        return [mm(y, dy, ab=True), mm(x, dy)]
    return [mm(y, dy, aa=True, ab=True), mm(dy, x, aa=True, ab=True)]


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None) -> Tensor:
    """Matrix product ``a @ b``.

    Rank-2 inputs make a ``MatMul`` op (``transpose_a``/``transpose_b``); higher or
    unknown ranks make ``BatchMatMulV2`` (``adj_x``/``adj_y``) with broadcast batch
    dimensions. ``adjoint_*`` also conjugates complex inputs. ``*_is_sparse`` are hints
    and are ignored.

    >>> matmul([[1., 2.]], [[3.], [4.]]).shape.as_list()
    [1, 1]
    """
    with name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of `transpose_a` and `adjoint_a` can be True. Received "
                             f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of `transpose_b` and `adjoint_b` can be True. Received "
                             f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", preferred_dtype=a.dtype.base_dtype)
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None or ra > 2 or rb > 2:
            return batch_matmul_op.bind(a, b, adj_x=bool(transpose_a or adjoint_a),
                                        adj_y=bool(transpose_b or adjoint_b), name=scope)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        return matmul_op.bind(a, b, transpose_a=bool(transpose_a),
                              transpose_b=bool(transpose_b), name=scope)


def tensordot(a, b, axes, name=None) -> Tensor:
    """Sums products over ``axes`` of ``a`` and ``b`` (an int N: the last N of ``a`` with
    the first N of ``b``; or a pair of axis lists), built from transpose/reshape/matmul.

    Needs static shapes for the free and contracted dimensions.
    """
    from scopeflow.ops import array_ops
    if not (hasattr(array_ops, "reshape") and hasattr(array_ops, "transpose")):
        raise NotImplementedError("tensordot needs array_ops.reshape and array_ops.transpose")
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", preferred_dtype=a.dtype.base_dtype)
        if not (a.shape.is_fully_defined() and b.shape.is_fully_defined()):
            raise ValueError("tensordot in scopeflow needs fully defined static shapes; got "
                             f"{a.shape} and {b.shape}")
        sa, sb = a.shape.as_list(), b.shape.as_list()
        a_axes, b_axes = _tensordot_axes(axes, len(sa), len(sb))
        for i, j in zip(a_axes, b_axes):
            if sa[i] != sb[j]:
                raise ValueError(f"Dimensions must be equal, but are {sa[i]} and {sb[j]}")
        a2, a_free = _tensordot_reshape(array_ops, a, sa, a_axes, contract_last=True)
        b2, b_free = _tensordot_reshape(array_ops, b, sb, b_axes, contract_last=False)
        product = matmul(a2, b2)
        out_shape = a_free + b_free
        if product.shape.as_list() == out_shape:
            return product
        return array_ops.reshape(product, out_shape, name=scope)


def _tensordot_axes(axes, rank_a, rank_b):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(rank_a, rank_b):
            raise ValueError(f"'axes' must be at most min(rank(a), rank(b)) = "
                             f"{min(rank_a, rank_b)}; got {n}")
        return list(_builtin_range(rank_a - n, rank_a)), list(_builtin_range(n))
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                         f"{len(a_axes)} != {len(b_axes)}.")
    return [int(i) % rank_a for i in a_axes], [int(j) % rank_b for j in b_axes]


def _tensordot_reshape(array_ops, t, shape, axes, contract_last):
    free = [i for i in _builtin_range(len(shape)) if i not in axes]
    free_dims = [shape[i] for i in free]
    perm = free + axes if contract_last else axes + free
    n_free = int(np.prod(free_dims)) if free_dims else 1
    n_contract = int(np.prod([shape[i] for i in axes])) if axes else 1
    new_shape = [n_free, n_contract] if contract_last else [n_contract, n_free]
    if perm != list(_builtin_range(len(shape))):
        t = array_ops.transpose(t, perm)
    if [shape[i] for i in perm] != new_shape:
        t = array_ops.reshape(t, new_shape)
    return t, free_dims


# ── Cast ─────────────────────────────────────────────────────────────────────────────
_CASTABLE = _NUMERIC + (dtypes.bool_,)


def _cast_dtype(x, *, SrcT, DstT, Truncate):
    if x not in _CASTABLE or DstT not in _CASTABLE:
        raise TypeError(f"Cast {x.name} to {DstT.name} is not supported")
    return DstT


def _cast_kernel(x, *, SrcT, DstT, Truncate):
    x = np.asarray(x)
    target = np.dtype(DstT.as_numpy_dtype)
    if x.dtype.kind == "c" and target.kind != "c":
        x = np.real(x)
    return x.astype(target)  # float -> int truncates toward zero, as TF


cast_op = OpDef("Cast", shape=same_shape, dtype=_cast_dtype, kernel=_cast_kernel,
                attrs={"SrcT": None, "DstT": None, "Truncate": False}, input_names=("x",),
                fresh_outputs=True)


@cast_op.def_grad
def _cast_grad(op, dy):
    """Cast back between float/complex types; integer and bool sources get None (as TF)."""
    src, dst = op.inputs[0].dtype.base_dtype, dy.dtype.base_dtype
    if src in _FLOAT_OR_COMPLEX and dst in _FLOAT_OR_COMPLEX:
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


def saturate_cast(value, dtype, name=None) -> Tensor:
    """Casts ``value`` to ``dtype``, first clamping it to ``dtype``'s range (``ClipByValue``)."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        if not (src.is_bool or dtype.is_bool or src.is_complex or dtype.is_complex):
            lo, hi = max(src.min, dtype.min), min(src.max, dtype.max)
            if lo > src.min or hi < src.max:
                np_src = src.as_numpy_dtype
                lo_v, hi_v = np_src(lo), np_src(hi)
                if src.is_floating and float(hi_v) > hi:  # rounding up would overflow
                    hi_v = np.nextafter(hi_v, np_src(0))
                value = clip_by_value_op.bind(
                    value, constant_op.constant(lo_v, dtype=src),
                    constant_op.constant(hi_v, dtype=src), name="clamp")
        return cast(value, dtype, name=scope)


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


range_op = OpDef("Range", shape=_range_shape, shape_from_tensors=True,
                 dtype=_same_dtype_in(_FLOATS + _INDEX, "start"), kernel=_range_kernel,
                 grad=None, input_names=("start", "limit", "delta"))


def _range_static_value(t):
    values = [constant_value(x) for x in t.op.inputs]
    if any(v is None for v in values):
        return None
    return _range_kernel(*values)


range_op.def_static_value(_range_static_value)


@cast_op.def_static_value
def _cast_static_value(t):
    value = constant_value(t.op.inputs[0])
    return None if value is None else _cast_kernel(value, **t.op.attrs)


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
