"""TF1's ``tf.debugging.assert_*`` (and their ``tf.assert_*`` names), built from ``Assert``
as TF's ``check_ops`` builds them in a graph: the condition is ``reduce_all`` of an
elementwise comparison; when both sides are known while the graph is built and the check
fails, ``InvalidArgumentError`` is raised at once with the data as TF writes it.

Also the checks for non-finite values: the ``CheckNumerics`` op (``tf.check_numerics``),
``tf.verify_tensor_all_finite`` (``tf.debugging.assert_all_finite``) and
``tf.add_check_numerics_ops``."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import (
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.opdef import OpDef, same_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array import layout_ops, shape_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math import arithmetic_ops, elementwise_ops, reduction_ops

# Exported by tf.debugging and the root alike; assert_all_finite (tf.debugging only),
# verify_tensor_all_finite and add_check_numerics_ops (the root only) are imported by name.
__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_rank", "assert_rank_at_least",
           "assert_scalar", "assert_integer",
           "assert_type", "check_numerics", "assert_near", "assert_rank_in",
           "assert_proper_iterable", "assert_same_float_dtype", "is_numeric_tensor"]


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _constant_value_string(t):
    if not isinstance(t, Tensor):
        return str(t)
    value = constant_value(t)
    return str(value) if value is not None else t


def _assert_static(condition, data):
    if not condition:
        raise InvalidArgumentError(None, None, "\n".join(
            str(_constant_value_string(x)) for x in data))


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message, *data]
        condition = reduction_ops.reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(np.all(static_func(x_static, y_static)), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x == y`` elementwise (broadcasting)."""
    with name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _binary_assert("==", "assert_equal", arithmetic_ops.equal, np.equal, x, y, data,
                          summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x != y`` elementwise."""
    return _binary_assert("!=", "assert_none_equal", arithmetic_ops.not_equal, np.not_equal,
                          x, y, data, summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x < y`` elementwise."""
    return _binary_assert("<", "assert_less", arithmetic_ops.less, np.less, x, y, data,
                          summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x <= y`` elementwise."""
    return _binary_assert("<=", "assert_less_equal", arithmetic_ops.less_equal,
                          np.less_equal, x, y, data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x > y`` elementwise."""
    return _binary_assert(">", "assert_greater", arithmetic_ops.greater, np.greater, x, y,
                          data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x >= y`` elementwise."""
    return _binary_assert(">=", "assert_greater_equal", arithmetic_ops.greater_equal,
                          np.greater_equal, x, y, data, summarize, message, name)


def _unary_assert(sym, opname, x, data, summarize, message, name, zero_first, check):
    message = _message_prefix(message)
    with name_scope(name, opname, [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            # TF's assert_non_positive lacks a comma here: two items run together.
            heading = f"Condition x {sym} 0 did not hold element-wise:"
            data = ([message, heading + f"x ({x.name}) = ", x] if sym == "<=" else
                    [message, heading, f"x ({x.name}) = ", x])
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return check(a, b, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x > 0`` elementwise."""
    return _unary_assert(">", "assert_positive", x, data, summarize, message, name, True,
                         assert_less)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x < 0`` elementwise."""
    return _unary_assert("<", "assert_negative", x, data, summarize, message, name, False,
                         assert_less)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x >= 0`` elementwise."""
    return _unary_assert(">=", "assert_non_negative", x, data, summarize, message, name,
                         True, assert_less_equal)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x <= 0`` elementwise."""
    return _unary_assert("<=", "assert_non_positive", x, data, summarize, message, name,
                         False, assert_less_equal)


def _assert_rank_condition(x, rank, static_ok, dynamic_condition, data, summarize):
    """TF's ``_assert_rank_condition``: a ``no_op`` when both ranks are known and agree,
    ``_StaticRankError`` when they disagree, else an ``Assert`` of the run-time ranks."""
    assert_type(rank, dtypes.int32)
    rank_static = constant_value(rank)
    if rank_static is not None:
        if rank_static.ndim != 0:
            raise ValueError("Rank must be a scalar.")
        x_rank = x.shape.ndims
        if x_rank is not None:
            if not static_ok(x_rank, rank_static):
                raise _StaticRankError(x_rank, int(rank_static))
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(shape_ops.rank(x), rank)
    if rank_static is None:
        rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ",
                                                rank])
        condition = control_flow_ops.with_dependencies([rank_check], condition)
    return Assert(condition, data, summarize=summarize)


class _StaticRankError(ValueError):
    pass


def _rank_assert(opname, what, static_ok, dynamic_condition, x, rank, data, summarize,
                 message, name):
    with name_scope(name, opname, (x, rank) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have {what}", rank, "Received shape: ",
                    shape_ops.shape(x)]
        try:
            return _assert_rank_condition(x, rank, static_ok, dynamic_condition, data,
                                          summarize)
        except _StaticRankError as e:
            raise ValueError(f"{message}Tensor {x.name} must have {what} {e.args[1]}.  "
                             f"Received rank {e.args[0]}, shape {x.shape}") from None


def _rank_equal(actual, given):
    return actual == given


def _rank_at_least(actual, given):
    return actual >= given


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x`` has rank ``rank``; a ``ValueError`` at once when
    both are known while the graph is built and differ (then a ``no_op`` if they agree)."""
    return _rank_assert("assert_rank", "rank", _rank_equal, arithmetic_ops.equal, x, rank,
                        data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """As ``assert_rank``, for a rank of at least ``rank``."""
    return _rank_assert("assert_rank_at_least", "rank at least", _rank_at_least,
                        arithmetic_ops.greater_equal, x, rank, data, summarize, message, name)


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself, or a ``ValueError`` at once unless its static rank is 0."""
    with name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        if tensor.shape.ndims != 0:
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape for "
                             f"{tensor.name}, saw shape: {tensor.shape}.")
        return tensor


def assert_integer(x, message=None, name=None):
    """A ``no_op``, or ``TypeError`` at once unless ``x`` has an integer type."""
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  '
                            f"Found: {x.name} of dtype {x.dtype}")
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_type(tensor, tf_type, message=None, name=None):
    """A ``no_op``, or ``TypeError`` at once unless ``tensor`` has type ``tf_type``."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{tensor.name} must be of type "
                            f"{tf_type!r}; got {tensor.dtype!r}")
        return control_flow_ops.no_op("statically_determined_correct_type")


# ── CheckNumerics ────────────────────────────────────────────────────────────────────
_CHECKED_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _check_numerics_dtype(tensor, *, message):
    if tensor not in _CHECKED_FLOATS:  # TF's list names bfloat16, which scopeflow lacks
        raise TypeError(f"Value passed to parameter 'tensor' has DataType {tensor.name} not "
                        "in list of allowed values: bfloat16, float16, float32, float64")
    return tensor


def _check_numerics_kernel(tensor, *, message):
    # min and max propagate NaN and reach any Inf: all finite when both are, found without
    # a temporary array (a sum could overflow and warn); the element tests run on failure.
    if tensor.size == 0 or (np.isfinite(tensor.min()) and np.isfinite(tensor.max())):
        return tensor
    nan, inf = bool(np.isnan(tensor).any()), bool(np.isinf(tensor).any())
    what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
    # TF's text loses its leading whitespace on the way to Python (an empty message reads
    # ": Tensor had NaN values").
    raise InvalidArgumentError(None, None, f"{message} : Tensor had {what} values".lstrip())


check_numerics_op = OpDef("CheckNumerics", shape=same_shape, dtype=_check_numerics_dtype,
                          kernel=_check_numerics_kernel, attrs={"message": ""}, aliases=(0,),
                          input_names=("tensor",))


@check_numerics_op.def_grad
def _check_numerics_grad(op, dy):
    # TF formats the attr as Python bytes (op.get_attr gives b'...'), so its message reads
    # "... in gradient. b'msg'"; kept, so the run-time error matches TF's word for word.
    message = op.get_attr("message")
    as_bytes = message.encode("utf-8") if isinstance(message, str) else bytes(message)
    return [check_numerics(dy, "Not a number (NaN) or infinity (Inf) values detected in "
                               f"gradient. {as_bytes!r}")]


def check_numerics(tensor, message, name=None) -> Tensor:
    """``tensor``, or, when it holds a NaN or an infinity, a failed run:
    ``InvalidArgumentError`` "<message> : Tensor had NaN values" ("Inf", "Inf and NaN").

    >>> import scopeflow as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> tf.Session().run(tf.check_numerics(x, "x is bad")).tolist()
    [1.0, 2.0]
    """
    return check_numerics_op.bind(tensor, message=str(message), name=name)


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None) -> Tensor:
    """``t``, after a ``CheckNumerics`` of it has run (TF1's scope ``VerifyFinite``;
    ``tf.debugging.assert_all_finite``). ``x`` and ``message`` are TF2's names of ``t``
    and ``msg``."""
    t = _deprecated_alias("x", x, "t", t)
    msg = _deprecated_alias("message", message, "msg", msg)
    with name_scope(name, "VerifyFinite", [t]):
        t = convert_to_tensor(t, name="x")
        check = check_numerics(t, message=msg)
        return control_flow_ops.with_dependencies([check], t)


assert_all_finite = verify_tensor_all_finite


def _deprecated_alias(new_name, new_value, old_name, old_value):
    """TF's ``deprecated_argument_lookup``: one of the two names, not both."""
    if new_value is not None:
        if old_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return new_value
    return old_value


def add_check_numerics_ops():
    """A ``group`` running a ``CheckNumerics`` of every float16/32/64 tensor in the default
    graph (each named ``"<op name>:<output index>"`` in its message), chained by control
    dependencies in creation order, as TF1 builds them. Run it with the training op to
    find where a NaN or Inf first appears. TF's ``ValueError`` when the graph has a
    ``tf.cond`` or ``tf.while_loop`` (their branches and bodies are not checked)."""
    check_op = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype in _CHECKED_FLOATS:  # not variables' ref outputs, as TF
                if op._cf_context is not None:
                    raise ValueError("`tf.add_check_numerics_ops() is not compatible with "
                                     "TensorFlow control flow operations such as `tf.cond()` "
                                     "or `tf.while_loop()`.")
                with control_dependencies(check_op):
                    check_op = [check_numerics(output, message=f"{op.name}:{output.value_index}")]
    return control_flow_ops.group(*check_op)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """An op failing the run unless ``|x - y| < atol + rtol * |y|`` everywhere (default
    tolerances ``10 * eps`` of the dtype), built as TF builds it."""
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.base_dtype.real_dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message or "",
                    f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * elementwise_ops.abs(y)
        diff = elementwise_ops.abs(x - y)
        condition = reduction_ops.reduce_all(arithmetic_ops.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """An op failing the run unless ``x``'s rank is one of ``ranks``; a ``ValueError`` at
    once when the ranks are known while building and none matches."""
    with name_scope(name, "assert_rank_in", (x,) + tuple(ranks) + tuple(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(r, name="rank") for r in ranks)
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have rank in", *ranks,
                    "Received shape: ", shape_ops.shape(x)]
        statics = [constant_value(r) for r in ranks]
        if x.shape.ndims is not None and all(s is not None for s in statics):
            if x.shape.ndims not in [int(s) for s in statics]:
                raise ValueError(f"{message}Tensor {x.name} must have rank in "
                                 f"{tuple(int(s) for s in statics)}.  Received rank "
                                 f"{x.shape.ndims}, shape {x.shape}")
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        rank = shape_ops.rank(x)
        condition = reduction_ops.reduce_any(
            arithmetic_ops.equal(rank, layout_ops.stack(list(ranks))))
        return Assert(condition, data, summarize=summarize)


def assert_proper_iterable(values):
    """``TypeError`` unless ``values`` is an iterable other than a tensor, an array or a
    string (TF's guard against iterating over one value's elements by mistake)."""
    unintentional = (Tensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional):
        raise TypeError(f"Expected argument \"values\" to be a \"proper\" iterable.  Found: "
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument \"values\" to be iterable.  Found: "
                        f"{type(values)}")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of ``tensors`` (and ``dtype``), ``float32`` if none is given;
    ``ValueError`` if they differ or are not floating point."""
    first = None
    for t in tensors or []:
        if t is None:
            continue
        t_dtype = t.dtype.base_dtype
        if dtype is None:
            dtype, first = t_dtype, t
        elif t_dtype != dtypes.as_dtype(dtype).base_dtype:
            against = f" as {first.name}" if first is not None else ""
            raise ValueError(f"{t.name}, type={t_dtype!r}, must be of the same type "
                             f"({dtypes.as_dtype(dtype)!r}){against}.")
    if dtype is None:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is a graph tensor of a numeric dtype (not bool or string)."""
    return isinstance(tensor, Tensor) and tensor.dtype.base_dtype not in (
        dtypes.bool_, dtypes.string)
