"""Resource variables' ops: ``VarHandleOp`` and the ops that read and write through its
handle (TF's ``resource_variable_ops``), with the ``Resource*`` optimizer updates.

A ``VarHandleOp`` outputs a scalar ``resource``: a ``ResourceHandle`` naming the variable
(its ``shared_name``, which is the op's name unless given). The value lives in the
session (``ctx.state.vars[name]``), as a ref variable's does. Unlike a ref variable's
``v/read``, a ``ReadVariableOp`` *copies*: a read is the variable as it was when the read
ran, and later assigns in the same step do not change it (TF's copy-on-write buffers).

Reading a variable that has no value fails as TF's does: ``FailedPreconditionError``
("Could not find variable v. ... it can also mean the variable is uninitialized").

The ``Resource(Sparse)Apply*`` and ``ResourceScatter*`` ops run the kernels of their ref
counterparts (``training_ops``, ``scatter_ops``) on the variables the handles name, and
have no outputs.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY, OpDef, from_tensors, scalar_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops
from scopeflow.ops.state import (  # noqa: F401 - scatter_ops: see below
    proximal_training_ops,
    scatter_ops,
    training_ops,
)

# registers Scatter{Mul,Div,Min,Max}, whose kernels ResourceScatter{Mul,...} run

__all__ = [
    "ResourceHandle", "var_handle_op", "read_variable_op", "assign_variable_op",
    "assign_add_variable_op", "assign_sub_variable_op", "var_is_initialized_op",
    "variable_shape", "resource_gather", "resource_scatter_add", "resource_scatter_sub",
    "resource_scatter_mul", "resource_scatter_div", "resource_scatter_min",
    "resource_scatter_max", "resource_scatter_update", "resource_apply", "is_resource",
    "zeros_like_variable",
]


class ResourceHandle:
    """The value of a ``VarHandleOp``: which session variable its ops read and write."""

    __slots__ = ("name", "container", "dtype", "shape")

    def __init__(self, name, container, dtype, shape):
        self.name, self.container, self.dtype, self.shape = name, container, dtype, shape

    def __repr__(self):
        return f"<ResourceHandle {self.container or 'localhost'}/{self.name}>"


def is_resource(x) -> bool:
    """Whether ``x`` is a resource variable or a ``resource`` tensor (a handle)."""
    t = getattr(x, "handle", x)
    return isinstance(t, Tensor) and t.dtype.base_dtype == dtypes.resource


def _handle_of(x) -> Tensor:
    """The handle tensor of a resource variable (or the handle itself)."""
    return getattr(x, "handle", x)


def _key(resource) -> str:
    """The session key of the variable a handle value names."""
    h = resource[()] if isinstance(resource, np.ndarray) else resource
    if not isinstance(h, ResourceHandle):
        raise errors.InvalidArgumentError(
            None, None, f"Expected a resource handle for a variable, got {h!r}")
    return h.name


def _not_found(ctx, key) -> str:
    if ctx.state.vars:
        return f"Resource localhost/{key}/N10tensorflow3VarE does not exist."
    return f"Container localhost does not exist. (Could not find resource: localhost/{key})"


def _lookup_error(ctx, key) -> errors.OpError:
    """TF's error for an update or gather of a variable without a value (``NotFound``)."""
    return errors.NotFoundError(None, None, _not_found(ctx, key))


def _missing(ctx, key) -> errors.OpError:
    """TF's error for a read of a variable without a value."""
    tail = _not_found(ctx, key)
    return errors.FailedPreconditionError(
        None, None, f"Could not find variable {key}. This could mean that the variable has "
        "been deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
        f"container=localhost, status error message={tail}")


def _value(ctx, resource) -> np.ndarray:
    key = _key(resource)
    try:
        return ctx.state.vars[key]
    except KeyError:
        raise _missing(ctx, key) from None


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _handle_shape(handle: Tensor) -> TensorShape:
    """The variable shape a handle tensor carries (unknown unless it is a VarHandleOp's)."""
    op = handle.op
    if op.type == "VarHandleOp":
        return TensorShape(op._attrs["shape"])
    return TensorShape(None)


def _handle_dtype(handle: Tensor):
    op = handle.op
    return op._attrs["dtype"] if op.type == "VarHandleOp" else None


def _no_outputs(*args, **attrs):
    return []


def _resource(*args, **attrs):
    return dtypes.resource


def _check_value_dtype(handle: Tensor, value: Tensor, op_type: str):
    expected = _handle_dtype(handle)
    if expected is not None and value.dtype.base_dtype != expected:
        raise TypeError(f"Input 'value' of '{op_type}' Op has type {value.dtype.name} that "
                        f"does not match the variable's type {expected.name}.")


# ── VarHandleOp ──────────────────────────────────────────────────────────────────────
def _var_handle_kernel(ctx, *, container, shared_name, dtype, shape):
    out = np.empty((), dtype=object)
    out[()] = ResourceHandle(shared_name or ctx.key, container, dtype, shape)
    return out


var_handle_op_def = OpDef(
    "VarHandleOp", shape=scalar_shape, dtype=_resource, kernel=_var_handle_kernel,
    attrs={"container": "", "shared_name": "", "dtype": None, "shape": None}, stateful=True,
    grad=NO_GRADIENT)


def var_handle_op(dtype, shape, container="", shared_name="", name=None) -> Tensor:
    """A handle to the session variable ``shared_name`` (TF's ``VarHandleOp``)."""
    return var_handle_op_def.bind(dtype=dtypes.as_dtype(dtype).base_dtype,
                                  shape=TensorShape(shape), container=container or "",
                                  shared_name=shared_name, name=name or "VarHandleOp")


# ── ReadVariableOp ───────────────────────────────────────────────────────────────────
def _read_variable_shape(resource, *, dtype):
    return _handle_shape(resource)


def _read_variable_dtype(resource, *, dtype):
    return dtype


def _read_variable_kernel(ctx, resource, *, dtype):
    # A copy: later assigns in the same step must not change what this read returned.
    return np.array(_value(ctx, resource), copy=True)


read_variable_op_def = OpDef(
    "ReadVariableOp", shape=from_tensors(_read_variable_shape), dtype=_read_variable_dtype,
    kernel=_read_variable_kernel, attrs={"dtype": None}, stateful=True,
    input_names=("resource",))


@read_variable_op_def.def_grad
def _read_variable_grad(op, dy):
    return [dy]  # TF's: the gradient of the read flows to the handle unchanged


def read_variable_op(resource, dtype, name=None) -> Tensor:
    """The variable's current value (a copy)."""
    return read_variable_op_def.bind(resource, dtype=dtypes.as_dtype(dtype).base_dtype,
                                     name=name or "ReadVariableOp")


# ── AssignVariableOp ─────────────────────────────────────────────────────────────────
def _assign_variable_kernel(ctx, resource, value, *, validate_shape):
    key = _key(resource)
    old = ctx.state.vars.get(key)
    if validate_shape and old is not None and old.shape != np.shape(value):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to assign variable with wrong shape. Expected "
            f"{_dims(old.shape)} got {_dims(np.shape(value))}")
    ctx.state.vars[key] = np.array(value, copy=True)  # the variable's own buffer


assign_variable_op_def = OpDef(
    "AssignVariableOp", shape=_no_outputs, dtype=_no_outputs, kernel=_assign_variable_kernel,
    attrs={"validate_shape": False}, num_outputs=0, stateful=True, grad=NO_GRADIENT,
    input_names=("resource", "value"))


def assign_variable_op(resource, value, validate_shape=False, name=None):
    """Stores ``value`` in the variable (the op; it has no outputs)."""
    resource = _handle_of(resource)
    dtype = _handle_dtype(resource)
    if not isinstance(value, Tensor):
        value = convert_to_tensor(value, dtype=dtype, name="value")
    _check_value_dtype(resource, value, "AssignVariableOp")
    return assign_variable_op_def.bind(resource, value, validate_shape=validate_shape,
                                       name=name or "AssignVariableOp")


# ── AssignAddVariableOp / AssignSubVariableOp: shared rules ──────────────────────────
def _update_variable(ctx, resource, value, ufunc):
    key = _key(resource)
    var = ctx.state.vars.get(key)
    if var is None:
        raise _lookup_error(ctx, key)
    if var.shape != np.shape(value):
        raise errors.InvalidArgumentError(
            None, None, f"Cannot update variable with shape {_dims(var.shape)} using a Tensor "
            f"with shape {_dims(np.shape(value))}, shapes must be equal.")
    ufunc(var, value, out=var)  # reads copied what they returned: in place is safe


def _update_variable_op(op_type, kernel):
    return OpDef(op_type, shape=_no_outputs, dtype=_no_outputs, kernel=kernel, num_outputs=0,
                 stateful=True, grad=NO_GRADIENT, input_names=("resource", "value"))


def _bind_update(op_def, resource, value, name):
    resource = _handle_of(resource)
    value = convert_to_tensor(value, dtype=_handle_dtype(resource), name="value")
    _check_value_dtype(resource, value, op_def.type)
    return op_def.bind(resource, value, name=name or op_def.type)


# ── AssignAddVariableOp ──────────────────────────────────────────────────────────────
def _assign_add_variable_kernel(ctx, resource, value):
    _update_variable(ctx, resource, value, np.add)


assign_add_variable_op_def = _update_variable_op("AssignAddVariableOp",
                                                 _assign_add_variable_kernel)


def assign_add_variable_op(resource, value, name=None):
    """Adds ``value`` to the variable (the op; it has no outputs)."""
    return _bind_update(assign_add_variable_op_def, resource, value, name)


# ── AssignSubVariableOp ──────────────────────────────────────────────────────────────
def _assign_sub_variable_kernel(ctx, resource, value):
    _update_variable(ctx, resource, value, np.subtract)


assign_sub_variable_op_def = _update_variable_op("AssignSubVariableOp",
                                                 _assign_sub_variable_kernel)


def assign_sub_variable_op(resource, value, name=None):
    """Subtracts ``value`` from the variable (the op; it has no outputs)."""
    return _bind_update(assign_sub_variable_op_def, resource, value, name)


# ── VarIsInitializedOp ───────────────────────────────────────────────────────────────
def _var_is_initialized_dtype(resource):
    return dtypes.bool_


def _var_is_initialized_kernel(ctx, resource):
    return np.array(_key(resource) in ctx.state.vars)


var_is_initialized_op_def = OpDef(
    "VarIsInitializedOp", shape=scalar_shape, dtype=_var_is_initialized_dtype,
    kernel=_var_is_initialized_kernel, stateful=True, grad=None,
    input_names=("resource",))


def var_is_initialized_op(resource, name=None) -> Tensor:
    """A scalar bool: whether the variable has a value in the session."""
    return var_is_initialized_op_def.bind(_handle_of(resource),
                                          name=name or "VarIsInitializedOp")


# ── VariableShape ────────────────────────────────────────────────────────────────────
def _variable_shape_shape(resource, *, out_type):
    shape = _handle_shape(resource)
    return TensorShape([shape.ndims if shape.ndims is not None else None])


def _variable_shape_dtype(resource, *, out_type):
    return out_type


def _variable_shape_kernel(ctx, resource, *, out_type):
    return np.array(_value(ctx, resource).shape, dtype=out_type.as_numpy_dtype)


variable_shape_op_def = OpDef(
    "VariableShape", shape=from_tensors(_variable_shape_shape), dtype=_variable_shape_dtype,
    kernel=_variable_shape_kernel, attrs={"out_type": dtypes.int32}, stateful=True,
    grad=None, input_names=("input",))


def variable_shape(resource, out_type=dtypes.int32, name=None) -> Tensor:
    """The variable's shape, read at run time."""
    return variable_shape_op_def.bind(_handle_of(resource), out_type=out_type,
                                      name=name or "VariableShape")


# ── ResourceGather ───────────────────────────────────────────────────────────────────
def _resource_gather_shape(resource, indices, *, dtype, batch_dims, validate_indices):
    var = _handle_shape(resource)
    if var.ndims is None or indices.shape.ndims is None:
        return TensorShape(None)
    return indices.shape.concatenate(var[1:])


def _resource_gather_dtype(resource, indices, *, dtype, batch_dims, validate_indices):
    return dtype


def _resource_gather_kernel(ctx, resource, indices, *, dtype, batch_dims, validate_indices):
    key = _key(resource)
    var = ctx.state.vars.get(key)
    if var is None:
        raise _lookup_error(ctx, key)
    indices = np.asarray(indices)
    n = var.shape[0] if var.ndim else 0
    flat = indices.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= n))
    if bad.size:
        where = np.unravel_index(int(bad[0]), indices.shape) if indices.ndim else ()
        at = "[" + ",".join(str(int(i)) for i in where) + "]" if where else ""
        raise errors.InvalidArgumentError(
            None, None, f"indices{at} = {flat[bad[0]]} is not in [0, {n})")
    return np.take(var, indices, axis=0)


resource_gather_op_def = OpDef(
    "ResourceGather", shape=from_tensors(_resource_gather_shape), dtype=_resource_gather_dtype,
    kernel=_resource_gather_kernel,
    attrs={"dtype": None, "batch_dims": 0, "validate_indices": True}, stateful=True,
    input_names=("resource", "indices"))


@resource_gather_op_def.def_grad
def _resource_gather_grad(op, dy):
    """TF's ``_GatherGrad``: rows of the variable, as ``IndexedSlices``."""
    handle, indices = op.inputs
    params_shape = variable_shape(handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(dy, values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True,
                    name=None) -> Tensor:
    """Rows ``indices`` of the variable (a new tensor)."""
    if batch_dims:
        raise NotImplementedError("ResourceGather with batch_dims != 0 is not implemented "
                                  "in scopeflow")
    return resource_gather_op_def.bind(_handle_of(resource), indices,
                                       dtype=dtypes.as_dtype(dtype).base_dtype,
                                       batch_dims=batch_dims,
                                       validate_indices=validate_indices,
                                       name=name or "ResourceGather")


# ── ResourceScatter*: shared rules ───────────────────────────────────────────────────
def _resource_scatter_kernel(ctx, resource, indices, updates):
    """``Scatter<X>``'s kernel (its op type without ``Resource``) on the handle's variable."""
    key = _key(resource)
    if key not in ctx.state.vars:
        raise _lookup_error(ctx, key)
    ref_op = REGISTRY[ctx.op.type[len("Resource"):]]
    ref_op.kernel(ctx, key, indices, updates, use_locking=True)


def _resource_scatter_op(op_type):
    return OpDef(op_type, shape=_no_outputs, dtype=_no_outputs,
                 kernel=_resource_scatter_kernel, num_outputs=0, stateful=True, grad=NO_GRADIENT,
                 input_names=("resource", "indices", "updates"))


def _bind_scatter(op_def, resource, indices, updates, name):
    resource = _handle_of(resource)
    updates = convert_to_tensor(updates, dtype=_handle_dtype(resource), name="updates")
    return op_def.bind(resource, indices, updates, name=name or op_def.type)


# ── ResourceScatterAdd ───────────────────────────────────────────────────────────────
resource_scatter_add_op = _resource_scatter_op("ResourceScatterAdd")


def resource_scatter_add(resource, indices, updates, name=None):
    """``var[indices] += updates`` (the op; it has no outputs)."""
    return _bind_scatter(resource_scatter_add_op, resource, indices, updates, name)


# ── ResourceScatterSub ───────────────────────────────────────────────────────────────
resource_scatter_sub_op = _resource_scatter_op("ResourceScatterSub")


def resource_scatter_sub(resource, indices, updates, name=None):
    """``var[indices] -= updates``."""
    return _bind_scatter(resource_scatter_sub_op, resource, indices, updates, name)


# ── ResourceScatterMul ───────────────────────────────────────────────────────────────
resource_scatter_mul_op = _resource_scatter_op("ResourceScatterMul")


def resource_scatter_mul(resource, indices, updates, name=None):
    """``var[indices] *= updates``."""
    return _bind_scatter(resource_scatter_mul_op, resource, indices, updates, name)


# ── ResourceScatterDiv ───────────────────────────────────────────────────────────────
resource_scatter_div_op = _resource_scatter_op("ResourceScatterDiv")


def resource_scatter_div(resource, indices, updates, name=None):
    """``var[indices] /= updates``."""
    return _bind_scatter(resource_scatter_div_op, resource, indices, updates, name)


# ── ResourceScatterMin ───────────────────────────────────────────────────────────────
resource_scatter_min_op = _resource_scatter_op("ResourceScatterMin")


def resource_scatter_min(resource, indices, updates, name=None):
    """``var[indices] = min(var[indices], updates)``."""
    return _bind_scatter(resource_scatter_min_op, resource, indices, updates, name)


# ── ResourceScatterMax ───────────────────────────────────────────────────────────────
resource_scatter_max_op = _resource_scatter_op("ResourceScatterMax")


def resource_scatter_max(resource, indices, updates, name=None):
    """``var[indices] = max(var[indices], updates)``."""
    return _bind_scatter(resource_scatter_max_op, resource, indices, updates, name)


# ── ResourceScatterUpdate ────────────────────────────────────────────────────────────
resource_scatter_update_op = _resource_scatter_op("ResourceScatterUpdate")


def resource_scatter_update(resource, indices, updates, name=None):
    """``var[indices] = updates``."""
    return _bind_scatter(resource_scatter_update_op, resource, indices, updates, name)


# ── Resource(Sparse)Apply*: shared rules ─────────────────────────────────────────────
def _resource_apply_dtype(*dts, **attrs):
    """Handles first; then the hyper-parameters and gradient in one float type (integer
    ``indices`` aside)."""
    floats = {d for d in dts if d != dtypes.resource and not d.is_integer}
    if len(floats) > 1:
        raise TypeError(f"Inputs have types {sorted(d.name for d in floats)}; they must all "
                        "have the variable's type")
    return []


def _resource_apply_kernel(ctx, *inputs, **attrs):
    """``<X>``'s kernel (the op type without ``Resource``) on the variables the handles
    name."""
    ref_op = REGISTRY[ctx.op.type[len("Resource"):]]
    n = len(ref_op.ref_inputs)
    keys = []
    for resource in inputs[:n]:
        key = _key(resource)
        if key not in ctx.state.vars:  # TF 2.21's words for an update of no variable
            raise errors.InternalError(None, None, "Invalid variable reference.")
        keys.append(key)
    ref_op.kernel(ctx, *keys, *inputs[n:], **attrs)


def _resource_apply_op(ref_op):
    """``Resource<X>`` for the ref op ``<X>``: its inputs (handles for the refs) and attrs."""
    return OpDef("Resource" + ref_op.type, shape=_no_outputs, dtype=_resource_apply_dtype,
                 kernel=_resource_apply_kernel, attrs=dict(ref_op.attrs), num_outputs=0,
                 stateful=True, grad=NO_GRADIENT, input_names=ref_op.input_names)


# ── ResourceApplyGradientDescent ─────────────────────────────────────────────────────
resource_apply_gradient_descent_op = _resource_apply_op(training_ops.apply_gradient_descent_op)
# ── ResourceApplyMomentum ────────────────────────────────────────────────────────────
resource_apply_momentum_op = _resource_apply_op(training_ops.apply_momentum_op)
# ── ResourceSparseApplyMomentum ──────────────────────────────────────────────────────
resource_sparse_apply_momentum_op = _resource_apply_op(training_ops.sparse_apply_momentum_op)
# ── ResourceApplyAdam ────────────────────────────────────────────────────────────────
resource_apply_adam_op = _resource_apply_op(training_ops.apply_adam_op)
# ── ResourceSparseApplyAdam (scopeflow's fused form of TF's Adam sparse update) ──────
resource_sparse_apply_adam_op = _resource_apply_op(training_ops.sparse_apply_adam_op)
# ── ResourceApplyAdagrad ─────────────────────────────────────────────────────────────
resource_apply_adagrad_op = _resource_apply_op(training_ops.apply_adagrad_op)
# ── ResourceSparseApplyAdagrad ───────────────────────────────────────────────────────
resource_sparse_apply_adagrad_op = _resource_apply_op(training_ops.sparse_apply_adagrad_op)
# ── ResourceApplyRMSProp ─────────────────────────────────────────────────────────────
resource_apply_rms_prop_op = _resource_apply_op(training_ops.apply_rms_prop_op)
# ── ResourceApplyCenteredRMSProp ─────────────────────────────────────────────────────
resource_apply_centered_rms_prop_op = _resource_apply_op(
    training_ops.apply_centered_rms_prop_op)
# ── ResourceSparseApplyRMSProp ───────────────────────────────────────────────────────
resource_sparse_apply_rms_prop_op = _resource_apply_op(training_ops.sparse_apply_rms_prop_op)
# ── ResourceSparseApplyCenteredRMSProp ───────────────────────────────────────────────
resource_sparse_apply_centered_rms_prop_op = _resource_apply_op(
    training_ops.sparse_apply_centered_rms_prop_op)
# ── ResourceApplyAdadelta ────────────────────────────────────────────────────────────
resource_apply_adadelta_op = _resource_apply_op(training_ops.apply_adadelta_op)
# ── ResourceSparseApplyAdadelta ──────────────────────────────────────────────────────
resource_sparse_apply_adadelta_op = _resource_apply_op(training_ops.sparse_apply_adadelta_op)
# ── ResourceApplyFtrl ────────────────────────────────────────────────────────────────
resource_apply_ftrl_op = _resource_apply_op(training_ops.apply_ftrl_op)
# ── ResourceApplyFtrlV2 ──────────────────────────────────────────────────────────────
resource_apply_ftrl_v2_op = _resource_apply_op(training_ops.apply_ftrl_v2_op)
# ── ResourceSparseApplyFtrl ──────────────────────────────────────────────────────────
resource_sparse_apply_ftrl_op = _resource_apply_op(training_ops.sparse_apply_ftrl_op)
# ── ResourceSparseApplyFtrlV2 ────────────────────────────────────────────────────────
resource_sparse_apply_ftrl_v2_op = _resource_apply_op(training_ops.sparse_apply_ftrl_v2_op)

# ── ResourceApplyProximalGradientDescent ─────────────────────────────────────────────
resource_apply_proximal_gradient_descent_op = _resource_apply_op(
    proximal_training_ops.apply_proximal_gradient_descent_op)
# ── ResourceSparseApplyProximalGradientDescent ───────────────────────────────────────
resource_sparse_apply_proximal_gradient_descent_op = _resource_apply_op(
    proximal_training_ops.sparse_apply_proximal_gradient_descent_op)
# ── ResourceApplyProximalAdagrad ─────────────────────────────────────────────────────
resource_apply_proximal_adagrad_op = _resource_apply_op(
    proximal_training_ops.apply_proximal_adagrad_op)
# ── ResourceSparseApplyProximalAdagrad ───────────────────────────────────────────────
resource_sparse_apply_proximal_adagrad_op = _resource_apply_op(
    proximal_training_ops.sparse_apply_proximal_adagrad_op)
# ── ResourceApplyAdagradDA ───────────────────────────────────────────────────────────
resource_apply_adagrad_da_op = _resource_apply_op(proximal_training_ops.apply_adagrad_da_op)
# ── ResourceSparseApplyAdagradDA ─────────────────────────────────────────────────────
resource_sparse_apply_adagrad_da_op = _resource_apply_op(
    proximal_training_ops.sparse_apply_adagrad_da_op)


def zeros_like_variable(handle) -> Tensor:
    """Zeros of the variable a handle names (its shape and dtype): a resource input's zero
    gradient, as TF's ``ZerosLike`` for a resource."""
    dtype = _handle_dtype(handle) or dtypes.float32
    shape = _handle_shape(handle)
    if shape.is_fully_defined():
        return array_ops.zeros(shape.as_list(), dtype)
    return array_ops.zeros(variable_shape(handle), dtype)


def resource_apply(ref_op_type, *inputs, name=None, **attrs):
    """The ``Resource<ref_op_type>`` update on resource variables (or handles) ``inputs``
    (the refs' places), e.g. ``resource_apply("ApplyAdam", var, m, v, ...)``; the op."""
    op_def = REGISTRY["Resource" + ref_op_type]
    n = len(REGISTRY[ref_op_type].ref_inputs)
    handles = [_handle_of(x) for x in inputs[:n]]
    dtype = _handle_dtype(handles[0])
    rest = [x if isinstance(x, Tensor) else convert_to_tensor(
        x, dtype=None if op_def.input_names[n + i] == "indices" else dtype,
        name=op_def.input_names[n + i]) for i, x in enumerate(inputs[n:])]
    attrs = {k: v for k, v in attrs.items() if k in op_def.attrs}  # ResourceScatter*: none
    return op_def.bind(*handles, *rest, name=name or op_def.type, **attrs)

