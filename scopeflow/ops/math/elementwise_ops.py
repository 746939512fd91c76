"""Elementwise math functions: Abs, Sign, Square, Reciprocal, Sqrt, Rsqrt, Exp, Expm1, Log,
Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh, Tanh,
Sigmoid, Round, Rint, Floor, Ceil, Pow, ClipByValue (and ``saturate_cast``), and the tests
IsNan, IsInf, IsFinite.

Above ``reduction_ops``: the gradients of Sign, Pow and ClipByValue build zeros (``Fill``)
and select (``where``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import (
    FLOAT_OR_COMPLEX,
    FLOATS,
    NUMERIC,
    REAL,
    SIGNED_INTS,
    SIGNED_NUMERIC,
)
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    REGISTRY,
    OpDef,
    broadcast_shape,
    broadcasting,
    merge_shapes,
    same_shape,
)
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math import libm
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    greater,
    less,
    logical_or,
    multiply,
    negative,
    not_equal,
    realdiv,
    subtract,
)
from scopeflow.ops.math.reduction_ops import maximum, minimum, ones_like, where, zeros_like
from scopeflow.ops.op_helpers import _apply, _check_divisor, _const_like, _is_int, _same_dtype_in

__all__ = ["abs", "sign", "square", "reciprocal", "sqrt", "rsqrt", "exp", "log", "log1p", "sin",
           "cos", "tanh", "sigmoid", "round", "floor", "ceil", "pow", "clip_by_value",
           "saturate_cast", "is_nan", "is_inf", "is_finite", "expm1", "tan", "asin", "acos",
           "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "rint"]


# ── Abs ──────────────────────────────────────────────────────────────────────────────
abs_op = OpDef("Abs", shape=same_shape, dtype=_same_dtype_in(FLOATS + SIGNED_INTS),
               kernel=np.absolute, input_names=("x",))


@abs_op.def_grad
def _abs_grad(op, dy):
    return [dy * sign(op.inputs[0])]  # 0 at x = 0, as TF


def abs(x, name=None) -> Tensor:
    """Elementwise absolute value; a complex ``x`` gives its real magnitudes (TF's
    ComplexAbs op, declared in ops/signal/complex_ops.py and looked up by type here)."""
    with name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            real_dtype = dtypes.float64 if x.dtype.base_dtype == dtypes.complex128 \
                else dtypes.float32
            return REGISTRY["ComplexAbs"].bind(x, Tout=real_dtype, name=scope)
        return abs_op.bind(x, name=scope)


# ── Sign ─────────────────────────────────────────────────────────────────────────────
sign_op = OpDef("Sign", shape=same_shape, dtype=_same_dtype_in(SIGNED_NUMERIC),
                kernel=np.sign, input_names=("x",))


@sign_op.def_grad
def _sign_grad(op, dy):
    return [zeros_like(op.inputs[0])]  # TF: zeros, not None


def sign(x, name=None) -> Tensor:
    """Elementwise -1, 0 or 1 (NaN stays NaN)."""
    return sign_op.bind(x, name=name)


# ── Square ───────────────────────────────────────────────────────────────────────────
square_op = OpDef("Square", shape=same_shape, dtype=_same_dtype_in(NUMERIC),
                  kernel=np.square, input_names=("x",))


@square_op.def_grad
def _square_grad(op, dy):
    # TF's control dependency on dy (its "2*x not computed too early") is in the graph.
    with control_dependencies([dy]):
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


reciprocal_op = OpDef("Reciprocal", shape=same_shape, dtype=_same_dtype_in(SIGNED_NUMERIC),
                      kernel=_reciprocal_kernel, input_names=("x",))


@reciprocal_op.def_grad
def _reciprocal_grad(op, dy):
    y = conj(op.outputs[0])  # TF's ReciprocalGrad: -dy * y * y
    return [multiply(multiply(negative(dy), y), y)]


def reciprocal(x, name=None) -> Tensor:
    """Elementwise ``1 / x``."""
    return reciprocal_op.bind(x, name=name)


# ── Sqrt ─────────────────────────────────────────────────────────────────────────────
def _float_unary(op_type, kernel):
    """The OpDef of a floating-point (or complex) elementwise function."""
    return OpDef(op_type, shape=same_shape, dtype=_same_dtype_in(FLOAT_OR_COMPLEX),
                 kernel=kernel, input_names=("x",))


sqrt_op = _float_unary("Sqrt", np.sqrt)


@sqrt_op.def_grad
def _sqrt_grad(op, dy):
    y = conj(op.outputs[0])  # TF's SqrtGrad: 0.5 * dy / y
    return [realdiv(multiply(_const_like(0.5, y), dy), y)]


def sqrt(x, name=None) -> Tensor:
    """Elementwise square root (NaN for negative reals)."""
    return sqrt_op.bind(x, name=name)


# ── Rsqrt ────────────────────────────────────────────────────────────────────────────
def _rsqrt_kernel(x):
    return np.reciprocal(np.sqrt(x))


rsqrt_op = _float_unary("Rsqrt", _rsqrt_kernel)


@rsqrt_op.def_grad
def _rsqrt_grad(op, dy):
    y = conj(op.outputs[0])  # TF's RsqrtGrad: -0.5 * dy * y**3
    return [multiply(multiply(_const_like(-0.5, y), multiply(dy, y)), multiply(y, y))]


def rsqrt(x, name=None) -> Tensor:
    """Elementwise ``1 / sqrt(x)``."""
    return rsqrt_op.bind(x, name=name)


# ── Exp ──────────────────────────────────────────────────────────────────────────────
exp_op = _float_unary("Exp", np.exp)


@exp_op.def_grad
def _exp_grad(op, dy):
    return [dy * conj(op.outputs[0])]  # reuses e**x


def exp(x, name=None) -> Tensor:
    """Elementwise ``e ** x``."""
    return exp_op.bind(x, name=name)


# ── Log ──────────────────────────────────────────────────────────────────────────────
log_op = _float_unary("Log", np.log)


@log_op.def_grad
def _log_grad(op, dy):
    return [dy * reciprocal(conj(op.inputs[0]))]


def log(x, name=None) -> Tensor:
    """Elementwise natural logarithm."""
    return log_op.bind(x, name=name)


# ── Log1p ────────────────────────────────────────────────────────────────────────────
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
    # Only |x| < 2**-24 is small, so the two mixed-type adds are usually skipped.
    small = d == 0
    if np.count_nonzero(small):
        out += small
        d += small
    out /= d
    out *= x
    if np.fmax.reduce(xp1, axis=None, initial=-np.inf) == np.inf:  # (skips NaNs) inf/inf;
        big = xp1 == np.float32(np.inf)           # Eigen returns x (inf) too
        out[big] = x[big]
    return out


log1p_op = _float_unary("Log1p", _log1p_kernel)


@log1p_op.def_grad
def _log1p_grad(op, dy):
    x = conj(op.inputs[0])
    return [dy * reciprocal(1 + x)]


def log1p(x, name=None) -> Tensor:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""
    return log1p_op.bind(x, name=name)


# ── Sin ──────────────────────────────────────────────────────────────────────────────
sin_op = _float_unary("Sin", np.sin)


@sin_op.def_grad
def _sin_grad(op, dy):
    return [dy * cos(conj(op.inputs[0]))]


def sin(x, name=None) -> Tensor:
    """Elementwise sine."""
    return sin_op.bind(x, name=name)


# ── Cos ──────────────────────────────────────────────────────────────────────────────
cos_op = _float_unary("Cos", np.cos)


@cos_op.def_grad
def _cos_grad(op, dy):
    return [-dy * sin(conj(op.inputs[0]))]


def cos(x, name=None) -> Tensor:
    """Elementwise cosine."""
    return cos_op.bind(x, name=name)


# ── Tanh ─────────────────────────────────────────────────────────────────────────────
tanh_op = _float_unary("Tanh", np.tanh)


@tanh_op.def_grad
def _tanh_grad(op, dy):
    y = conj(op.outputs[0])  # TF's TanhGrad: dy * (1 - y * y)
    return [multiply(dy, subtract(_const_like(1, y), multiply(y, y)))]


def tanh(x, name=None) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return tanh_op.bind(x, name=name)


# ── Expm1 ────────────────────────────────────────────────────────────────────────────
def _expm1_kernel(x):
    """TF's float kernel calls the C library's ``expm1f``: ``libm`` gives its bits."""
    if x.dtype == np.float32:
        return libm.expm1f(x)
    return np.expm1(x)


expm1_op = _float_unary("Expm1", _expm1_kernel)


@expm1_op.def_grad
def _expm1_grad(op, dy):
    with control_dependencies([dy]):  # TF: dy * exp(x), not dy * (y + 1)
        return [dy * exp(conj(op.inputs[0]))]


def expm1(x, name=None) -> Tensor:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""
    return expm1_op.bind(x, name=name)


# ── Tan ──────────────────────────────────────────────────────────────────────────────
tan_op = _float_unary("Tan", np.tan)


@tan_op.def_grad
def _tan_grad(op, dy):
    with control_dependencies([dy]):  # TF: sec(x)**2 * dy
        return [square(reciprocal(cos(conj(op.inputs[0])))) * dy]


def tan(x, name=None) -> Tensor:
    """Elementwise tangent."""
    return tan_op.bind(x, name=name)


# ── Asin ─────────────────────────────────────────────────────────────────────────────
asin_op = _float_unary("Asin", np.arcsin)


def _one_minus_square_root_inv(x, dy):
    """``1 / sqrt(1 - x*x)``: the derivative of Asin (and minus Acos's), as TF builds it."""
    return reciprocal(sqrt(subtract(_const_like(1, dy), square(x))))


@asin_op.def_grad
def _asin_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * _one_minus_square_root_inv(conj(op.inputs[0]), dy)]


def asin(x, name=None) -> Tensor:
    """Elementwise arcsine (NaN outside [-1, 1] for reals)."""
    return asin_op.bind(x, name=name)


# ── Acos ─────────────────────────────────────────────────────────────────────────────
acos_op = _float_unary("Acos", np.arccos)


@acos_op.def_grad
def _acos_grad(op, dy):
    with control_dependencies([dy]):
        return [-dy * _one_minus_square_root_inv(conj(op.inputs[0]), dy)]


def acos(x, name=None) -> Tensor:
    """Elementwise arccosine (NaN outside [-1, 1] for reals)."""
    return acos_op.bind(x, name=name)


# ── Atan ─────────────────────────────────────────────────────────────────────────────
atan_op = _float_unary("Atan", np.arctan)


@atan_op.def_grad
def _atan_grad(op, dy):
    with control_dependencies([dy]):  # TF: dy / (1 + x*x)
        x = conj(op.inputs[0])
        return [dy * reciprocal(add(_const_like(1, dy), square(x)))]


def atan(x, name=None) -> Tensor:
    """Elementwise arctangent."""
    return atan_op.bind(x, name=name)


# ── Atan2 ────────────────────────────────────────────────────────────────────────────
atan2_op = OpDef("Atan2", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(FLOATS, "y"),
                 kernel=np.arctan2, input_names=("y", "x"))


@atan2_op.def_grad
def _atan2_grad(op, dy):
    y, x = op.inputs  # the walk sums each gradient back to its input's shape
    with control_dependencies([dy]):
        grad_inv = realdiv(dy, add(square(y), square(x)))
        return [x * grad_inv, -y * grad_inv]


def atan2(y, x, name=None) -> Tensor:
    """Elementwise angle of the point ``(x, y)``, in ``[-pi, pi]`` (note: ``y`` first)."""
    return _apply(atan2_op, [y, x], name)


# ── Sinh ─────────────────────────────────────────────────────────────────────────────
sinh_op = _float_unary("Sinh", np.sinh)


@sinh_op.def_grad
def _sinh_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * cosh(conj(op.inputs[0]))]


def sinh(x, name=None) -> Tensor:
    """Elementwise hyperbolic sine."""
    return sinh_op.bind(x, name=name)


# ── Cosh ─────────────────────────────────────────────────────────────────────────────
cosh_op = _float_unary("Cosh", np.cosh)


@cosh_op.def_grad
def _cosh_grad(op, dy):
    with control_dependencies([dy]):
        return [dy * sinh(conj(op.inputs[0]))]


def cosh(x, name=None) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return cosh_op.bind(x, name=name)


# ── Asinh ────────────────────────────────────────────────────────────────────────────
asinh_op = _float_unary("Asinh", np.arcsinh)


@asinh_op.def_grad
def _asinh_grad(op, dy):
    with control_dependencies([dy]):  # TF: dy / cosh(y), from the output
        return [realdiv(dy, cosh(conj(op.outputs[0])))]


def asinh(x, name=None) -> Tensor:
    """Elementwise inverse hyperbolic sine."""
    return asinh_op.bind(x, name=name)


# ── Acosh ────────────────────────────────────────────────────────────────────────────
acosh_op = _float_unary("Acosh", np.arccosh)


@acosh_op.def_grad
def _acosh_grad(op, dy):
    with control_dependencies([dy]):  # TF: dy / sinh(y), from the output
        return [realdiv(dy, sinh(conj(op.outputs[0])))]


def acosh(x, name=None) -> Tensor:
    """Elementwise inverse hyperbolic cosine (NaN below 1 for reals)."""
    return acosh_op.bind(x, name=name)


# ── Atanh ────────────────────────────────────────────────────────────────────────────
atanh_op = _float_unary("Atanh", np.arctanh)


@atanh_op.def_grad
def _atanh_grad(op, dy):
    with control_dependencies([dy]):  # TF: dy / (1 - x*x)
        x = conj(op.inputs[0])
        return [dy * reciprocal(subtract(_const_like(1, dy), square(x)))]


def atanh(x, name=None) -> Tensor:
    """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1] for reals)."""
    return atanh_op.bind(x, name=name)


# ── Sigmoid ──────────────────────────────────────────────────────────────────────────
def _sigmoid_kernel(x):
    if np.iscomplexobj(x):
        return np.reciprocal(1 + np.exp(-x))
    e = np.exp(-np.absolute(x))  # never overflows
    return np.where(x >= 0, np.reciprocal(1 + e), e / (1 + e))


sigmoid_op = OpDef("Sigmoid", shape=same_shape, dtype=_same_dtype_in(FLOAT_OR_COMPLEX),
                   kernel=_sigmoid_kernel, input_names=("x",))


@sigmoid_op.def_grad
def _sigmoid_grad(op, dy):
    y = conj(op.outputs[0])  # TF's SigmoidGrad: dy * y * (1 - y)
    return [multiply(multiply(dy, y), subtract(_const_like(1, y), y))]


def sigmoid(x, name=None) -> Tensor:
    """Elementwise ``1 / (1 + exp(-x))``."""
    return sigmoid_op.bind(x, name=name)


# ── Round (TF: gradient None) ────────────────────────────────────────────────────────
round_op = OpDef("Round", shape=same_shape, dtype=_same_dtype_in(FLOATS + SIGNED_INTS),
                 kernel=np.round, grad=None, input_names=("x",))


def round(x, name=None) -> Tensor:
    """Rounds half to even (banker's rounding); integers are returned unchanged."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return round_op.bind(x, name=name)


# ── Rint (TF: gradient None) ─────────────────────────────────────────────────────────
def _rint_kernel(x):
    """np.rint; TF 2.21 has no half Rint CPU kernel, so a float16 run fails as TF's does."""
    if x.dtype == np.float16:
        raise errors.InvalidArgumentError(
            None, None, "No OpKernel was registered to support Op 'Rint' with these attrs: "
            "[T=DT_HALF]")
    return np.rint(x)


rint_op = OpDef("Rint", shape=same_shape, dtype=_same_dtype_in(FLOATS), kernel=_rint_kernel,
                grad=None, input_names=("x",))


def rint(x, name=None) -> Tensor:
    """Elementwise nearest integer, halves to even (floats only, unlike ``round``)."""
    return rint_op.bind(x, name=name)


# ── Floor (TF: gradient None) ────────────────────────────────────────────────────────
floor_op = OpDef("Floor", shape=same_shape, dtype=_same_dtype_in(FLOATS), kernel=np.floor,
                 grad=None, input_names=("x",))


def floor(x, name=None) -> Tensor:
    """Elementwise largest integer not greater than ``x``."""
    return floor_op.bind(x, name=name)


# ── Ceil (TF: gradient None) ─────────────────────────────────────────────────────────
ceil_op = OpDef("Ceil", shape=same_shape, dtype=_same_dtype_in(FLOATS), kernel=np.ceil,
                grad=None, input_names=("x",))


def ceil(x, name=None) -> Tensor:
    """Elementwise smallest integer not less than ``x``."""
    return ceil_op.bind(x, name=name)


# ── Pow ──────────────────────────────────────────────────────────────────────────────
def _pow_kernel(x, y):
    if _is_int(x) and np.any(np.asarray(y) < 0):
        raise errors.InvalidArgumentError(
            None, None, "Integers to negative integer powers are not allowed")
    return np.power(x, y)


pow_op = OpDef("Pow", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(SIGNED_NUMERIC),
               kernel=_pow_kernel, input_names=("x", "y"))


@pow_op.def_grad
def _pow_grad(op, dy):
    x, y = op.inputs
    z = conj(op.outputs[0])
    x, y = conj(x), conj(y)
    gx = dy * y * pow(x, y - 1)
    # d/dy = z * log(x), taken as 0 where x <= 0 (TF's "false singularity at x = 0")
    mask = not_equal(x, 0) if x.dtype.is_complex else x > 0
    safe_x = where(mask, x, ones_like(x))
    log_x = where(mask, log(safe_x), zeros_like(x))
    return [gx, dy * z * log_x]


def pow(x, y, name=None) -> Tensor:
    """Elementwise ``x ** y``."""
    with name_scope(name, "Pow", [x]) as scope:
        return _apply(pow_op, [x, y], scope)


# ── ClipByValue ──────────────────────────────────────────────────────────────────────
def _clip_by_value_shape(t, lo, hi):
    for s in (lo, hi):
        if s.ndims:
            merge_shapes(t, s)
    return t


def _clip_by_value_kernel(t, lo, hi):
    return np.minimum(np.maximum(t, lo), hi)


clip_by_value_op = OpDef(
    "ClipByValue", shape=broadcasting(_clip_by_value_shape), dtype=_same_dtype_in(REAL, "t"),
    kernel=_clip_by_value_kernel, input_names=("t", "clip_value_min", "clip_value_max"))


@clip_by_value_op.def_grad
def _clip_by_value_grad(op, dy):
    t, lo, hi = op.inputs  # the walk sums the bounds' gradients back to their shapes
    zeros = zeros_like(dy)
    below, above = less(t, lo), greater(t, hi)
    return [where(logical_or(below, above), zeros, dy), where(below, dy, zeros),
            where(above, dy, zeros)]


# ── clip_by_value (composite: Minimum, Maximum) ──────────────────────────────────────
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


# ── saturate_cast (composite: ClipByValue, Cast) ─────────────────────────────────────
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
                    value, constant(lo_v, dtype=src), constant(hi_v, dtype=src), name="clamp")
        return cast(value, dtype, name=scope)


# ── IsNan, IsInf, IsFinite (not differentiable) ──────────────────────────────────────
def _float_test_dtype(op_type):
    def rule(x, **attrs):
        if x.base_dtype not in FLOATS:
            raise TypeError(f"Value passed to parameter 'x' has DataType {x.base_dtype.name} "
                            f"not in list of allowed values: bfloat16, float16, float32, "
                            f"float64")
        return dtypes.bool
    rule.__name__ = f"_{op_type.lower()}_dtype"
    return rule


def _float_test(op_type, kernel):
    return OpDef(op_type, shape=same_shape, dtype=_float_test_dtype(op_type), kernel=kernel,
                 grad=NO_GRADIENT, input_names=("x",))


is_nan_op = _float_test("IsNan", np.isnan)
is_inf_op = _float_test("IsInf", np.isinf)
is_finite_op = _float_test("IsFinite", np.isfinite)


def is_nan(x, name=None) -> Tensor:
    """Elementwise: is ``x`` NaN (``tf.is_nan``, ``tf.math.is_nan``)."""
    return is_nan_op.bind(x, name=name)


def is_inf(x, name=None) -> Tensor:
    """Elementwise: is ``x`` infinite, either sign (``tf.is_inf``)."""
    return is_inf_op.bind(x, name=name)


def is_finite(x, name=None) -> Tensor:
    """Elementwise: is ``x`` neither NaN nor infinite (``tf.is_finite``).

    >>> import scopeflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.is_finite([1.0, float("nan"), float("inf")])).tolist()
    [True, False, False]
    """
    return is_finite_op.bind(x, name=name)
