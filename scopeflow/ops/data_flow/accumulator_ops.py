"""Gradient accumulators: ``tf.ConditionalAccumulator`` (dense) and
``tf.SparseConditionalAccumulator`` (rows of a tensor), TF1's tools for synchronous
replicas (``SyncReplicasOptimizer`` aggregates with them).

An accumulator sums the gradients applied to it until ``take_grad(n)`` finds at least
``n``: then it returns their mean (``reduction_type="MEAN"``, per row for the sparse one)
or sum, resets, and advances its global step by one. A gradient whose ``local_step`` is
below the global step is stale and dropped unchecked, as TF drops it. ``take_grad``
blocks until enough gradients arrive (until the run's deadline or the session's close).
Each session holds its own accumulators, as its queues (``queue_ops.session_resource``).

The ops are TF 2.21's: the dense accumulator is a resource
(``ResourceConditionalAccumulator`` and the ``ResourceAccumulator*`` ops), the sparse one a
TF1 string reference (``SparseConditionalAccumulator``, ``SparseAccumulator*`` and
``Accumulator*``); both handles have TF's static shape ``[2]``.
"""

from __future__ import annotations

import threading

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, scalar_shape
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.ops.data_flow.queue_ops import (
    SessionResource,
    deadline_of,
    session_resource,
    wait_until,
)
from scopeflow.ops.math.arithmetic_ops import cast

__all__ = ["ConditionalAccumulatorBase", "ConditionalAccumulator",
           "SparseConditionalAccumulator"]

_KERNEL_DTYPES = (np.float16, np.float32, np.float64)


def _dims(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class _Accumulator(SessionResource):
    """One session's accumulator: the running sum, how many gradients it holds, its step."""

    def __init__(self, name, dtype, shape, reduction_type):
        self.name = name
        self.dtype = dtype
        self.shape = shape  # TensorShape: the declared shape (may be partial)
        self.reduction_type = reduction_type
        self.counter = 0
        self.global_step = 0
        self.sum = None
        self.cond = threading.Condition()
        self.cancelled = False

    def cancel(self):
        with self.cond:
            self.cancelled = True
            self.cond.notify_all()

    def apply(self, local_step, add):
        """Adds a gradient with ``add(self)`` unless it is stale."""
        with self.cond:
            if local_step < self.global_step:
                return  # stale: TF logs and drops it
            add(self)
            self.counter += 1
            self.cond.notify_all()

    def take(self, ctx, num_required, result):
        """Waits for ``num_required`` gradients; returns ``result(self)`` and resets."""
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}")
        with self.cond:
            if not wait_until(self.cond, lambda: self.counter >= num_required, deadline_of(ctx),
                              lambda: self.cancelled):
                raise errors.CancelledError(None, None, "TakeGrad operation was cancelled")
            out = result(self)
            self.counter = 0
            self.sum = None
            self.global_step += 1
            return out

    def set_global_step(self, step):
        with self.cond:
            self.global_step = int(step)


def _check_kernel_dtype(dtype, op_type):
    if dtype.as_numpy_dtype not in _KERNEL_DTYPES:
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op '{op_type}' with dtype "
                        f"{dtype.name}: the CPU kernels take half, float and double")


def _handle(acc):
    h = np.empty((), dtype=object)
    h[()] = acc
    return h


def _acc(handle) -> _Accumulator:
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _handle_shape(**attrs):
    return TensorShape([2])


def _no_outputs(*args, **attrs):
    return []


_ACC_ATTRS = {"dtype": None, "shape": None, "container": "", "shared_name": "",
              "reduction_type": "MEAN"}


# ── the dense accumulator ────────────────────────────────────────────────────────────
def _dense_acc_kernel(ctx, *, dtype, shape, container, shared_name, reduction_type):
    _check_kernel_dtype(dtype, "ResourceConditionalAccumulator")
    return _handle(session_resource(ctx, shared_name, lambda name: _Accumulator(
        name, dtype, as_shape(shape), reduction_type)))


def _resource_dtype(**attrs):
    return _dtypes.resource


dense_accumulator_op = OpDef("ResourceConditionalAccumulator", shape=_handle_shape,
                             dtype=_resource_dtype, kernel=_dense_acc_kernel, attrs=_ACC_ATTRS,
                             stateful=True, grad=NO_GRADIENT)


def _check_dense_shape(acc, grad):
    if acc.counter > 0 and acc.sum.shape != grad.shape:
        raise errors.InvalidArgumentError(
            None, None, f"Shape mismatch: expected {_dims(acc.sum.shape)}, got "
                        f"{_dims(grad.shape)}")
    if not acc.shape.is_compatible_with(TensorShape(grad.shape)):
        raise errors.InvalidArgumentError(
            None, None, f"Shape mismatch: expected {_dims(acc.shape.as_list())}, got "
                        f"{_dims(grad.shape)}")


def _dense_apply_kernel(ctx, handle, local_step, gradient, *, dtype):
    acc = _acc(handle)
    grad = np.asarray(gradient, dtype=acc.dtype.as_numpy_dtype)

    def add(a):
        _check_dense_shape(a, grad)
        a.sum = grad.copy() if a.counter == 0 else a.sum + grad
    acc.apply(int(local_step), add)


def _dense_mean(acc):
    if acc.reduction_type == "MEAN":
        return (acc.sum / acc.dtype.as_numpy_dtype(acc.counter)).astype(acc.sum.dtype)
    return acc.sum


def _dense_take_kernel(ctx, handle, num_required, *, dtype):
    return _acc(handle).take(ctx, int(num_required), _dense_mean)


def _num_accumulated_kernel(ctx, handle):
    acc = _acc(handle)
    with acc.cond:
        return np.int32(acc.counter)


def _set_global_step_kernel(ctx, handle, new_global_step):
    _acc(handle).set_global_step(new_global_step)


def _int32(*args, **attrs):
    return _dtypes.int32


def _unknown_shape(*args, **attrs):
    return TensorShape(None)


def _attr_dtype(*args, dtype):
    return dtype


dense_apply_op = OpDef("ResourceAccumulatorApplyGradient", shape=_no_outputs, dtype=_no_outputs,
                       kernel=_dense_apply_kernel, attrs={"dtype": None}, num_outputs=0,
                       stateful=True, grad=NO_GRADIENT,
                       input_names=("handle", "local_step", "gradient"))
dense_take_op = OpDef("ResourceAccumulatorTakeGradient", shape=_unknown_shape,
                      dtype=_attr_dtype, kernel=_dense_take_kernel, attrs={"dtype": None},
                      stateful=True, grad=NO_GRADIENT, input_names=("handle", "num_required"))
dense_num_op = OpDef("ResourceAccumulatorNumAccumulated", shape=scalar_shape, dtype=_int32,
                     kernel=_num_accumulated_kernel, stateful=True, grad=NO_GRADIENT)
dense_step_op = OpDef("ResourceAccumulatorSetGlobalStep", shape=_no_outputs, dtype=_no_outputs,
                      kernel=_set_global_step_kernel, num_outputs=0, stateful=True,
                      grad=NO_GRADIENT, input_names=("handle", "new_global_step"))


# ── the sparse accumulator ───────────────────────────────────────────────────────────
class _Rows:
    """A sparse gradient being summed: indices in TF's merge order, rows, per-row counts."""

    def __init__(self, indices, values):
        self.indices = indices.copy()
        self.values = values.copy()
        self.counts = np.ones(len(indices), np.int64)

    def merge(self, indices, values):
        """TF's merge of two index lists (a sorted merge; equal indices are summed)."""
        out_i, out_v, out_c = [], [], []
        i = j = 0
        while i < len(self.indices) or j < len(indices):
            if j >= len(indices) or (i < len(self.indices) and self.indices[i] < indices[j]):
                out_i.append(self.indices[i])
                out_v.append(self.values[i])
                out_c.append(self.counts[i])
                i += 1
            elif i >= len(self.indices) or indices[j] < self.indices[i]:
                out_i.append(indices[j])
                out_v.append(values[j])
                out_c.append(1)
                j += 1
            else:
                out_i.append(indices[j])
                out_v.append(self.values[i] + values[j])
                out_c.append(self.counts[i] + 1)
                i += 1
                j += 1
        self.indices = np.array(out_i, np.int64)
        self.values = np.array(out_v, self.values.dtype).reshape((-1,) + self.values.shape[1:])
        self.counts = np.array(out_c, np.int64)


def _sparse_acc_kernel(ctx, *, dtype, shape, container, shared_name, reduction_type):
    _check_kernel_dtype(dtype, "SparseConditionalAccumulator")
    return _handle(session_resource(ctx, shared_name, lambda name: _Accumulator(
        name, dtype, as_shape(shape), reduction_type)))


def _string_ref(**attrs):
    return _dtypes.string._as_ref


sparse_accumulator_op = OpDef("SparseConditionalAccumulator", shape=_handle_shape,
                              dtype=_string_ref, kernel=_sparse_acc_kernel, attrs=_ACC_ATTRS,
                              stateful=True, grad=NO_GRADIENT)


def _starts_with(shape, prefix):
    """Whether ``shape`` begins with the accumulator's (partial) shape ``prefix``: TF's
    rule, under which an accumulator of shape ``()`` takes gradients of any shape."""
    return len(prefix) <= len(shape) and all(
        d is None or int(d) == int(g) for d, g in zip(prefix, shape))


def _check_sparse(acc, indices, values, grad_shape, has_known_shape):
    dims = acc.shape.as_list() if acc.shape.ndims is not None else None
    if has_known_shape and dims is not None and not _starts_with(list(grad_shape), dims):
        raise errors.InvalidArgumentError(
            None, None, f"Shape mismatch: expected shape {_dims(dims)}, got "
                        f"{_dims(list(grad_shape))}")
    if dims is not None and dims and dims[0] is not None:
        for k, index in enumerate(indices):
            if index >= dims[0]:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: index of slice {k} exceeded limits of shape;"
                                f" index is {index} exceeded {dims[0]}")
    expected = list(dims[1:]) if dims is not None else None
    if acc.counter > 0 and acc.sum is not None:
        expected = list(acc.sum.values.shape[1:])
    for d in range(1, values.ndim):
        want = expected[d - 1] if expected is not None and d - 1 < len(expected) else None
        if want is not None and want != values.shape[d]:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: expected values dim {d} to be {want}, got "
                            f"{values.shape[d]}")


def _sparse_apply_kernel(ctx, handle, local_step, gradient_indices, gradient_values,
                         gradient_shape, *, dtype, has_known_shape):
    acc = _acc(handle)
    indices = np.asarray(gradient_indices, np.int64).reshape(-1)
    values = np.asarray(gradient_values, acc.dtype.as_numpy_dtype)

    def add(a):
        _check_sparse(a, indices, values, np.asarray(gradient_shape).reshape(-1),
                      has_known_shape)
        if a.counter == 0:
            a.sum = _Rows(indices, values)
        else:
            a.sum.merge(indices, values)
    acc.apply(int(local_step), add)


def _sparse_result(acc):
    rows = acc.sum
    values = rows.values
    if acc.reduction_type == "MEAN":
        counts = rows.counts.reshape((-1,) + (1,) * (values.ndim - 1))
        values = (values / counts.astype(values.dtype)).astype(values.dtype)
    # The first dim is the accumulator's where it knows it (else -1), the rest the rows'.
    dims = acc.shape.as_list() if acc.shape.ndims is not None else None
    first = dims[0] if dims and dims[0] is not None else -1
    shape = [first] + list(values.shape[1:])
    return rows.indices.copy(), values, np.array(shape, np.int64)


def _sparse_take_kernel(ctx, handle, num_required, *, dtype):
    return _acc(handle).take(ctx, int(num_required), _sparse_result)


def _sparse_take_shapes(*inputs, dtype):
    return [TensorShape(None)] * 3


def _sparse_take_dtypes(*inputs, dtype):
    return [_dtypes.int64, dtype, _dtypes.int64]


sparse_apply_op = OpDef("SparseAccumulatorApplyGradient", shape=_no_outputs, dtype=_no_outputs,
                        kernel=_sparse_apply_kernel,
                        attrs={"dtype": None, "has_known_shape": None}, num_outputs=0,
                        stateful=True, grad=NO_GRADIENT,
                        input_names=("handle", "local_step", "gradient_indices",
                                     "gradient_values", "gradient_shape"))
sparse_take_op = OpDef("SparseAccumulatorTakeGradient", shape=_sparse_take_shapes,
                       dtype=_sparse_take_dtypes, kernel=_sparse_take_kernel,
                       attrs={"dtype": None}, num_outputs=3, stateful=True, grad=NO_GRADIENT,
                       input_names=("handle", "num_required"))
ref_num_op = OpDef("AccumulatorNumAccumulated", shape=scalar_shape, dtype=_int32,
                   kernel=_num_accumulated_kernel, stateful=True, grad=NO_GRADIENT)
ref_step_op = OpDef("AccumulatorSetGlobalStep", shape=_no_outputs, dtype=_no_outputs,
                    kernel=_set_global_step_kernel, num_outputs=0, stateful=True,
                    grad=NO_GRADIENT, input_names=("handle", "new_global_step"))


# ── the Python classes (TF's data_flow_ops) ──────────────────────────────────────────
def _int64(value):
    return cast(convert_to_tensor(value), _dtypes.int64)


def _take_op(op_def, handle, num_required, dtype, name):
    """A take op; ``num_required`` becomes ``<op>/num_required`` as TF's wrapper names it."""
    with name_scope(name, op_def.type, [handle, num_required]) as scope:
        n = convert_to_tensor(num_required, _dtypes.int32, name="num_required")
        return op_def.create([handle, n], {"dtype": dtype}, scope)


class ConditionalAccumulatorBase:
    """What both accumulators share: the handle, dtype, name, count and global step."""

    _num_op = dense_num_op
    _step_op = dense_step_op

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = TensorShape(None) if shape is None else as_shape(shape)
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        """The accumulator's handle tensor."""
        return self._accumulator_ref

    @property
    def name(self):
        """The accumulator op's name (its last name-scope component)."""
        return self._name

    @property
    def dtype(self):
        """The gradients' dtype."""
        return self._dtype

    def num_accumulated(self, name=None):
        """An int32 scalar: how many gradients the accumulator holds now."""
        return self._num_op.bind(self._accumulator_ref,
                                 name=name or f"{self._name}_NumAccumulated")

    def set_global_step(self, new_global_step, name=None):
        """An op that sets the global step (gradients from older steps are then stale)."""
        return self._step_op.create([self._accumulator_ref, _int64(new_global_step)],
                                    name=name or self._step_op.type)


def _make(op_def, dtype, shape, shared_name, name, reduction_type):
    dtype = _dtypes.as_dtype(dtype)
    return op_def.bind(dtype=dtype, shape=TensorShape(None) if shape is None else as_shape(shape),
                       shared_name=shared_name or "", reduction_type=reduction_type, name=name)


def _check_reduction(op_type, reduction_type):
    if reduction_type not in ("MEAN", "SUM"):
        raise ValueError(f"Attr 'reduction_type' of '{op_type}' Op passed string "
                         f"'{reduction_type}' not in: \"MEAN\", \"SUM\".")


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates dense gradients; ``take_grad`` returns their mean (or sum)."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        _check_reduction("ResourceConditionalAccumulator", reduction_type)
        ref = _make(dense_accumulator_op, dtype, shape, shared_name, name, reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op that adds ``grad`` unless ``local_step`` is below the global step."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        return dense_apply_op.create([self._accumulator_ref, _int64(local_step), grad],
                                     {"dtype": self._dtype}, name or dense_apply_op.type)

    def take_grad(self, num_required, name=None):
        """The mean (or sum) of at least ``num_required`` gradients, once they are in."""
        out = _take_op(dense_take_op, self._accumulator_ref, num_required, self._dtype, name)
        tensor = out.outputs[0]
        tensor.set_shape(self._shape)
        return tensor


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates sparse gradients (rows of a tensor); the mean is taken per row."""

    _num_op = ref_num_op
    _step_op = ref_step_op

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        _check_reduction("SparseConditionalAccumulator", reduction_type)
        ref = _make(sparse_accumulator_op, dtype, shape, shared_name, name, reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """``apply_grad`` of an ``IndexedSlices``."""
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op that adds the rows ``grad_values`` at ``grad_indices`` unless stale."""
        values = convert_to_tensor(grad_values, self._dtype)
        shape = _int64([] if grad_shape is None else grad_shape)
        return sparse_apply_op.create(
            [self._accumulator_ref, _int64(local_step), _int64(grad_indices), values, shape],
            {"dtype": self._dtype, "has_known_shape": grad_shape is not None},
            name or sparse_apply_op.type)

    def _take(self, num_required, name):
        return _take_op(sparse_take_op, self._accumulator_ref, num_required, self._dtype, name)

    def take_grad(self, num_required, name=None):
        """``(indices, values, shape)``: the per-row mean (or sum) of the gradients."""
        indices, values, shape = self._take(num_required, name).outputs
        return _SparseTake(indices, values, shape)

    def take_indexed_slices_grad(self, num_required, name=None):
        """``take_grad`` as an ``IndexedSlices``."""
        indices, values, shape = self._take(num_required, name).outputs
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)


class _SparseTake(tuple):
    """TF's ``SparseAccumulatorTakeGradient`` result: a namedtuple of three tensors."""

    __slots__ = ()
    _fields = ("indices", "values", "shape")

    def __new__(cls, indices, values, shape):
        return super().__new__(cls, (indices, values, shape))

    indices = property(lambda self: self[0])
    values = property(lambda self: self[1])
    shape = property(lambda self: self[2])

    def __repr__(self):
        return (f"SparseAccumulatorTakeGradient(indices={self[0]!r}, values={self[1]!r}, "
                f"shape={self[2]!r})")
