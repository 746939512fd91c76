"""Variable state: ``VariableV2`` and the ops that assign to variables in a session."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, _merge_error
from scopeflow.framework.kernel_context import UninitializedVariable
from scopeflow.framework.opdef import NO_GRADIENT, DTypeMismatch, OpDef, broadcast_shape, ref
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["variable_op_v2", "assign", "assign_add", "assign_sub", "is_variable_initialized"]


def _uninitialized(ctx, name):
    return UninitializedVariable(ctx.op.graph._ops_by_name[name])


# ── VariableV2 ───────────────────────────────────────────────────────────────────────
def _variable_kernel(ctx, *, shape, dtype, container, shared_name):
    try:
        return ctx.state.vars[ctx.key]
    except KeyError:
        raise UninitializedVariable(ctx.op) from None


def _variable_shape(*, shape, dtype, container, shared_name):
    return shape


def _variable_dtype(*, shape, dtype, container, shared_name):
    return dtype._as_ref


variable_op = OpDef(
    "VariableV2", shape=_variable_shape, dtype=_variable_dtype, kernel=_variable_kernel,
    attrs={"shape": None, "dtype": None, "container": "", "shared_name": ""},
    stateful=True, aliases=True, grad=NO_GRADIENT)


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """The raw TF1 variable op: its output is a reference to the session-held value."""
    t = variable_op.bind(shape=TensorShape(shape), dtype=dtype.base_dtype, container=container,
                         shared_name=shared_name, name=name)
    t._ref_key = t.op.name
    return t


def _ref_output(t, ref):
    t._ref_key = ref._ref_key
    return t


# ── Assign ───────────────────────────────────────────────────────────────────────────
def _assign_shape(ref, value, *, validate_shape, use_locking):
    if validate_shape:
        if not ref.is_compatible_with(value):
            raise ValueError(_merge_error(ref, value))
        return ref.merge_with(value)
    return value


def _assign_dtype(ref, value, **attrs):
    if ref is not value:
        raise DTypeMismatch(1, value, ref)  # "Input 'value' of 'Assign' Op has type ..."
    return ref._as_ref


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"  # TF's TensorShape::DebugString


def _check_assign_shape(ctx, old, value, validate_shape):
    # Raised without its op: the executor adds the op and the user's line that made it.
    if validate_shape and old is not None and old.shape != np.shape(value):
        raise errors.InvalidArgumentError(
            None, None, f"Assign requires shapes of both tensors to match. lhs shape= "
            f"{_dims(old.shape)} rhs shape= {_dims(np.shape(value))}")


def _assign_kernel(ctx, ref, value, *, validate_shape, use_locking):
    """As TF's ``AssignOp``: an initialized variable of the value's size is written in place
    (everything that forwards its buffer, like ``v/read``, sees the new value); otherwise
    the variable gets a new buffer of its own (later in-place updates must not touch the
    source)."""
    state = ctx.state.vars
    old = state.get(ref)
    _check_assign_shape(ctx, old, value, validate_shape)
    if old is not None and old.size == np.size(value):
        if old.shape != np.shape(value):  # validate_shape=False: the same buffer, reshaped
            old = state[ref] = old.reshape(np.shape(value))
        np.copyto(old, value)
        return old
    new = state[ref] = np.array(value, copy=True)
    return new


assign_op = OpDef("Assign", shape=_assign_shape, dtype=_assign_dtype, kernel=_assign_kernel,
                  attrs={"validate_shape": True, "use_locking": True}, stateful=True,
                  aliases=True, grad=None, input_names=(ref("ref"), "value"))


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Stores ``value`` in the variable ``ref``; returns the ref (its new value)."""
    if not isinstance(ref, Tensor):
        if validate_shape is None or not hasattr(ref, "_variable"):
            return ref.assign(value, use_locking=use_locking, name=name)
        ref = ref._variable  # TF assigns to a ref variable's ref tensor with validate_shape
    return _ref_output(assign_op.bind(
        ref, value, validate_shape=True if validate_shape is None else validate_shape,
        use_locking=True if use_locking is None else use_locking, name=name or "Assign"), ref)


# ── AssignAdd / AssignSub: shared rules ──────────────────────────────────────────────
def _assign_update_shape(ref, value, *, use_locking):
    broadcast_shape(ref, value)
    return ref


def _assign_update(ctx, ref, value, ufunc):
    """``ufunc(var, value)`` into the variable ``ref`` in place (the session owns it)."""
    try:
        var = ctx.state.vars[ref]
    except KeyError:
        raise _uninitialized(ctx, ref) from None
    try:
        ufunc(var, value, out=var)
    except ValueError:  # NumPy checks the shapes (nothing is written when they differ)
        # TF's DenseUpdateOp wording; TF wants equal shapes, scopeflow also lets a value
        # that broadcasts to the variable's shape through (a scalar step, say).
        raise errors.InvalidArgumentError(
            None, None, "Parameters and update must be the same size") from None
    return var


def _assign_update_op(op_type, kernel):
    """``AssignAdd`` or ``AssignSub``: the shared rules, inputs and properties."""
    return OpDef(op_type, shape=_assign_update_shape, dtype=_assign_dtype, kernel=kernel,
                 attrs={"use_locking": False}, stateful=True, aliases=True, grad=None,
                 input_names=(ref("ref"), "value"))


def _bind_assign_update(op, method, ref, value, use_locking, name):
    """``op`` on a ref tensor; a ``Variable``'s own ``method`` (``assign_add``...) otherwise."""
    if not isinstance(ref, Tensor):
        return getattr(ref, method)(value, use_locking=use_locking, name=name)
    return _ref_output(op.bind(ref, value, use_locking=bool(use_locking),
                               name=name or op.type), ref)


# ── AssignAdd ────────────────────────────────────────────────────────────────────────
def _assign_add_kernel(ctx, ref, value, *, use_locking):
    return _assign_update(ctx, ref, value, np.add)


assign_add_op = _assign_update_op("AssignAdd", _assign_add_kernel)


def assign_add(ref, value, use_locking=None, name=None):
    """Adds ``value`` to the variable in place; returns the ref."""
    return _bind_assign_update(assign_add_op, "assign_add", ref, value, use_locking, name)


# ── AssignSub ────────────────────────────────────────────────────────────────────────
def _assign_sub_kernel(ctx, ref, value, *, use_locking):
    return _assign_update(ctx, ref, value, np.subtract)


assign_sub_op = _assign_update_op("AssignSub", _assign_sub_kernel)


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts ``value`` from the variable in place; returns the ref."""
    return _bind_assign_update(assign_sub_op, "assign_sub", ref, value, use_locking, name)


# ── IsVariableInitialized ────────────────────────────────────────────────────────────
def _is_variable_initialized_shape(ref, *, dtype):
    return TensorShape([])


def _is_variable_initialized_dtype(ref, *, dtype):
    return dtypes.bool_


def _is_variable_initialized_kernel(ctx, ref, *, dtype):
    return np.array(ref in ctx.state.vars)


is_variable_initialized_op = OpDef(
    "IsVariableInitialized", shape=_is_variable_initialized_shape,
    dtype=_is_variable_initialized_dtype, kernel=_is_variable_initialized_kernel,
    attrs={"dtype": None}, stateful=True, grad=NO_GRADIENT, input_names=(ref("ref"),))


def is_variable_initialized(ref, name=None):
    """A scalar bool: whether the variable has a value in the session."""
    if getattr(ref, "_is_resource", False):  # TF's: a resource variable's VarIsInitializedOp
        return ref.is_initialized(name=name)
    ref = getattr(ref, "_variable", ref)
    return is_variable_initialized_op.bind(ref, dtype=ref.dtype.base_dtype, name=name)
