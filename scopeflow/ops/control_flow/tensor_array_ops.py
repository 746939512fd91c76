"""``tf.TensorArray``: a list of tensors that graph code writes and reads by index.

As TF1's resource TensorArray, each run of the graph makes one ``_Store`` (the kernel of
``TensorArrayReserve``): the elements with TF's per-element state (written, read, cleared
after a read), the element shape the kernels check writes against, and the gradient arrays
``TensorArray.grad`` made for it. The array's "flow" tensor (dtype ``variant``) carries the
store from op to op, so the data dependencies order the writes and reads as TF1's flow
does, and the store crosses ``tf.cond`` and ``tf.while_loop`` boundaries as one value.
The ops are stateful: a plan never folds or merges them (a read with ``clear_after_read``
changes the store).

Gradients are values: the gradient of a flow is a list of per-element gradients (``None``
for zero), summed elementwise where several reads meet (``add_flow_grads``). Run-time checks
and their messages are those of TF1's kernels (``TensorArray foo_0: Could not write to
TensorArray index 2 because it has already been written to.``).
"""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.shape_ops import identity_op
from scopeflow.ops.control_flow.control_flow_ops import no_op

__all__ = ["TensorArray", "add_flow_grads", "add_flow_lists"]

# TF numbers every TensorArray a process creates: its resource is named ``foo_<n>``.
_COUNTER = itertools.count()


def _error(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _debug(shape) -> str:
    """TF's ``DebugString`` of a (partial) shape: ``[2,3]``, ``[?,2]``, ``<unknown>``."""
    if shape is None:
        return "<unknown>"
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "<unknown>"
        shape = ["?" if d is None else d for d in shape.as_list()]
    return "[" + ",".join(str(d) for d in shape) + "]"


def _compatible(partial, shape) -> bool:
    return partial is None or partial.is_compatible_with(TensorShape(list(shape)))


def _zeros(shape, dtype):
    if dtype == dtypes.string:
        return np.full(shape, b"", dtype=object)
    return np.zeros(shape, dtype.as_numpy_dtype)


class _Store(list):
    """One run's TensorArray (TF's resource): its elements, ``None`` where unwritten."""

    def __init__(self, size, name, dtype, element_shape, dynamic_size, clear_after_read,
                 identical_shapes, aggregate=False):
        super().__init__([None] * size)
        self.name = name
        self.dtype = dtype
        self.element_shape = element_shape  # a TensorShape, or None when unknown
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_shapes = identical_shapes
        self.aggregate = aggregate          # a gradient array sums repeated writes
        self.read_at = set()
        self.cleared = set()
        self.shapes = {}                    # a gradient array's shapes of unwritten elements
        self.grads = {}                     # TensorArray.grad's arrays, by source

    def __getitem__(self, key):
        # A fetched flow (a scalar tensor): the run's result is the store itself.
        return self if key == () else super().__getitem__(key)

    def fail(self, msg):
        return _error(f"TensorArray {self.name}: {msg}")

    def merge_element_shape(self, shape):
        """TF's ``SetElemShape``: a gather's or stack's declared shape joins the store's."""
        if shape is None or shape.ndims is None:
            return
        if self.element_shape is None:
            self.element_shape = shape
        elif not self.element_shape.is_compatible_with(shape):
            raise self.fail(f"Inconsistent element shapes: {_debug(self.element_shape)} vs. "
                            f"{_debug(shape)}")
        else:
            self.element_shape = self.element_shape.merge_with(shape)

    # -- TF's TensorArray::LockedWriteOrAggregate and LockedRead --------------------------
    def write(self, index, value):
        n = len(self)
        if index < 0 or (not self.dynamic_size and index >= n):
            raise self.fail(f"Tried to write to index {index} but array is not resizeable "
                            f"and size is: {n}")
        if index >= n:
            self.extend([None] * (index + 1 - n))
        shape = np.shape(value)
        if not _compatible(self.element_shape, shape):
            raise self.fail(f"Could not write to TensorArray index {index} because the value "
                            f"shape is {_debug(shape)} which is incompatible with the "
                            f"TensorArray's inferred element shape: "
                            f"{_debug(self.element_shape)} (consider setting "
                            "infer_shape=False).")
        if self.identical_shapes and not (self.element_shape is not None
                                          and self.element_shape.is_fully_defined()):
            self.element_shape = TensorShape(list(shape))
        if index in self.read_at:
            raise self.fail(f"Could not write to TensorArray index {index} because it has "
                            "already been read.")
        old = list.__getitem__(self, index)
        if old is None:
            self[index] = value
        elif not self.aggregate:
            raise self.fail(f"Could not write to TensorArray index {index} because it has "
                            "already been written to.")
        elif np.shape(old) != shape:
            raise self.fail(f"Could not aggregate to TensorArray index {index} because the "
                            f"existing shape is {_debug(np.shape(old))} but the new input "
                            f"shape is {_debug(shape)}.")
        else:
            self[index] = old + value

    def read(self, index):
        if index < 0 or index >= len(self):
            raise _error(f"Tried to read from index {index} but array size is: {len(self)}")
        if index in self.cleared:
            raise self.fail(f"Could not read index {index} twice because it was cleared "
                            "after a previous read (perhaps try setting clear_after_read = "
                            "false?).")
        value = list.__getitem__(self, index)
        if value is None:
            value = self._unwritten(index)
        if self.clear_after_read:
            self.cleared.add(index)
        self.read_at.add(index)
        return value

    def _unwritten(self, index):
        if index in self.shapes:
            return _zeros(self.shapes[index], self.dtype)
        if self.element_shape is None or not self.element_shape.is_fully_defined():
            raise self.fail(
                f"Could not read from TensorArray index {index}.  Furthermore, the element "
                f"shape is not fully defined: {_debug(self.element_shape)}.  It is possible "
                "you are working with a resizeable TensorArray and stop_gradients is not "
                "allowing the gradients to be written.  If you set the full element_shape "
                "property on the forward TensorArray, the proper all-zeros tensor will be "
                "returned instead of incurring this error.")
        return _zeros(self.element_shape.as_tuple(), self.dtype)

    def grad(self, source):
        """TF's ``TensorArrayGrad``: the gradient array for ``source``, made once (later
        calls get the same array) with this array's size and element shapes; it sums
        repeated writes."""
        if source not in self.grads:
            g = _Store(len(self), f"{self.name}@{source}", self.dtype, self.element_shape,
                       False, True, self.identical_shapes, aggregate=True)
            g.shapes = {i: np.shape(v) for i, v in enumerate(list(self)) if v is not None}
            self.grads[source] = g
        return self.grads[source]


def _store(flow):
    """The store a flow carries (a plain list, as a value fed or built elsewhere, becomes a
    fresh store holding its elements)."""
    if isinstance(flow, _Store):
        return flow
    items = list(flow) if flow is not None else []
    s = _Store(len(items), f"TensorArray_{next(_COUNTER)}", dtypes.variant, None, True, False,
               False)
    s[:] = items
    return s


def _check_dtype(store, value_dtype):
    """TF's run-time check of a write's dtype (TF1 builds a write of another dtype)."""
    if value_dtype is not None and store.dtype != dtypes.variant and \
            value_dtype != store.dtype:
        raise _error(f"TensorArray dtype is {dtypes.type_string(store.dtype)} but Op is "
                     f"trying to write dtype {dtypes.type_string(value_dtype)}.")


def _variant(*args, **attrs):
    return dtypes.variant


def _scalar(*args, **attrs):
    return TensorShape([])


def _element_dtype(*dts, dtype, **attrs):
    return dtype


def _int32_input(x, op, param):
    """``x`` as the int32 ``param`` input of the TF op ``op``, refused with TF's
    ``TypeError`` when it is a tensor of another dtype or a value int32 cannot hold."""
    dtype = getattr(x, "dtype", None)
    if hasattr(x, "op") and dtype is not None and dtype.base_dtype != dtypes.int32:
        raise TypeError(f"Input '{param}' of '{op}' Op has type {dtype.base_dtype.name} that "
                        f"does not match expected type of int32.")
    try:
        return convert_to_tensor(x, dtype=dtypes.int32, name=param)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Expected int32 passed to parameter '{param}' of op '{op}', got "
                        f"{x!r} of type '{type(x).__name__}' instead. Error: {e}") from None


def _check_vector(t, scope, op, others):
    """TF's graph-time shape check of a TensorArray op's ``indices``/``lengths`` input: a
    known rank other than 1 is a ``ValueError`` naming the op, as TF's shape function."""
    if t.shape.ndims in (None, 1):
        return
    shapes = [TensorShape([2]), *(x.shape for x in others), TensorShape([])]
    listed = ", ".join("?" if x.ndims is None else
                       "[" + ",".join("?" if d is None else str(d) for d in x.as_list()) + "]"
                       for x in shapes)
    raise ValueError(f"Shape must be rank 1 but is rank {t.shape.ndims} for "
                     f"'{scope}{op}' (op: '{op}') with input shapes: {listed}.")


# ── the forward ops ──────────────────────────────────────────────────────────────────
_RESERVE_ATTRS = {"dtype": None, "element_shape": None, "dynamic_size": False,
                  "clear_after_read": True, "identical_element_shapes": True,
                  "tensor_array_name": ""}


def _reserve_kernel(run, size, *, dtype, element_shape, dynamic_size, clear_after_read,
                    identical_element_shapes, tensor_array_name):
    name = f"{tensor_array_name or run.op.name}_{next(_COUNTER)}"
    return _Store(int(size), name, dtype, element_shape, dynamic_size, clear_after_read,
                  identical_element_shapes)


reserve_op = OpDef("TensorArrayReserve", shape=_scalar, dtype=_variant, attrs=_RESERVE_ATTRS,
                   grad=None, kernel=_reserve_kernel, stateful=True, input_names=("size",))

# A write's ``T`` is its value's dtype, checked against the array's when it runs (as TF1).
_WRITE_ATTRS = {"T": None}


def _set_item_kernel(run, flow, index, value, *, T):
    store = _store(flow)
    _check_dtype(store, T)
    store.write(int(index), value)
    return store


set_item_op = OpDef("TensorArraySetItem", shape=_scalar, dtype=_variant, attrs=_WRITE_ATTRS,
                    kernel=_set_item_kernel, stateful=True,
                    input_names=("flow_in", "index", "value"))

_READ_ATTRS = {"dtype": None, "element_shape": None}


def _get_item_kernel(run, flow, index, *, dtype, element_shape):
    return _store(flow).read(int(index))


def _element_shape_rule(*shapes, dtype, element_shape):
    return element_shape if element_shape is not None else TensorShape(None)


get_item_op = OpDef("TensorArrayGetItem", shape=_element_shape_rule, dtype=_element_dtype,
                    attrs=_READ_ATTRS, kernel=_get_item_kernel, stateful=True,
                    input_names=("flow_in", "index"))


def _stacked_shape(*shapes, dtype, element_shape):
    if element_shape is None or element_shape.ndims is None:
        return TensorShape(None)
    return TensorShape([None] + element_shape.as_list())


def _gathered(store, indices, element_shape):
    """TF's ``TensorArrayGather`` (and so stack): the elements at ``indices``, one shape."""
    store.merge_element_shape(element_shape)
    if not indices:
        shape = store.element_shape
        if shape is None or not shape.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, f"TensorArray has size zero, but element shape {_debug(shape)} "
                "is not fully defined. Currently only static shapes are supported when "
                "packing zero-size TensorArrays.")
        return _zeros((0,) + shape.as_tuple(), store.dtype)
    items = [store.read(i) for i in indices]
    first = np.shape(items[0])
    for i, v in enumerate(items[1:], 1):
        if np.shape(v) != first:
            raise _error(f"TensorArray has inconsistent shapes.  Index 0 has shape: "
                         f"{_debug(first)} but index {i} has shape: {_debug(np.shape(v))}")
    return np.stack(items)


def _stack_kernel(run, flow, *, dtype, element_shape):
    store = _store(flow)
    return _gathered(store, list(range(len(store))), element_shape)


stack_op = OpDef("TensorArrayStackItems", shape=_stacked_shape, dtype=_element_dtype,
                 attrs=_READ_ATTRS, kernel=_stack_kernel, stateful=True,
                 input_names=("flow_in",))


def _gather_kernel(run, flow, indices, *, dtype, element_shape):
    indices = [int(i) for i in np.asarray(indices).reshape(-1)]
    return _gathered(_store(flow), indices, element_shape)


gather_op = OpDef("TensorArrayGatherItems", shape=_stacked_shape, dtype=_element_dtype,
                  attrs=_READ_ATTRS, kernel=_gather_kernel, stateful=True,
                  input_names=("flow_in", "indices"))


def _scattered(store, indices, value, T):
    """TF's ``TensorArrayScatter``'s checks, then one write per index."""
    _check_dtype(store, T)
    value = np.asarray(value) if not isinstance(value, np.ndarray) else value
    if value.ndim == 0:
        raise _error("Expected value to be at least a vector, but received shape: []")
    if value.shape[0] != len(indices):
        raise _error(f"Expected len(indices) == values.shape[0], but saw: {len(indices)} vs. "
                     f"{value.shape[0]}")
    if indices and not store.dynamic_size and max(indices) >= len(store):
        raise _error(f"Max scatter index must be < array size ({max(indices)} vs. "
                     f"{len(store)})")
    for k, i in enumerate(indices):
        store.write(i, value[k])
    return store


def _from_tensor_kernel(run, flow, value, *, T):
    value = np.asarray(value)
    if value.ndim == 0:  # TF's unstack slices shape(value)[0]
        raise _error("slice index 0 of dimension 0 out of bounds.")
    return _scattered(_store(flow), list(range(value.shape[0])), value, T)


from_tensor_op = OpDef("TensorArrayFromTensor", shape=_scalar, dtype=_variant,
                       attrs=_WRITE_ATTRS, kernel=_from_tensor_kernel, stateful=True,
                       input_names=("flow_in", "value"))


def _scatter_kernel(run, flow, indices, value, *, T):
    indices = [int(i) for i in np.asarray(indices).reshape(-1)]
    return _scattered(_store(flow), indices, value, T)


scatter_op = OpDef("TensorArrayScatterItems", shape=_scalar, dtype=_variant,
                   attrs=_WRITE_ATTRS, kernel=_scatter_kernel, stateful=True,
                   input_names=("flow_in", "indices", "value"))


def _concat_kernel(run, flow, *, dtype, element_shape_except0):
    """TF's ``TensorArrayConcat``: the elements joined on their first axis, and their
    lengths (which its gradient splits by)."""
    store = _store(flow)
    items = [store.read(i) for i in range(len(store))]
    if not items:
        shape = element_shape_except0
        if shape is None or not shape.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, f"TensorArray has size zero, but element_shape_except0 "
                f"{_debug(shape)} is not fully defined. Currently only static shapes are "
                "supported when concatenating zero-size TensorArrays.")
        return _zeros((0,) + shape.as_tuple(), store.dtype), np.zeros(0, np.int64)
    first = None
    for i, v in enumerate(items):
        if np.ndim(v) == 0:
            raise _error(f"Concat saw a scalar shape at index {i} but requires at least "
                         "vectors.  Did you mean to call pack?")
        rest = np.shape(v)[1:]
        if first is None:
            first = rest
        elif rest != first:
            raise _error(f"TensorArray has inconsistent shapes.  Index 0 has (excepting "
                         f"dimension 0) shape: {_debug(first)} but index {i} has "
                         f"(excepting dimension 0) shape: {_debug(rest)}")
    lengths = np.array([np.shape(v)[0] for v in items], np.int64)
    return np.concatenate(items, axis=0), lengths


def _concat_shape(*shapes, dtype, element_shape_except0):
    rest = element_shape_except0
    value = TensorShape(None) if rest is None or rest.ndims is None else \
        TensorShape([None] + rest.as_list())
    return [value, TensorShape([None])]


def _concat_dtype(*dts, dtype, element_shape_except0):
    return [dtype, dtypes.int64]


concat_op = OpDef("TensorArrayConcatItems", shape=_concat_shape, dtype=_concat_dtype,
                  attrs={"dtype": None, "element_shape_except0": None}, num_outputs=2,
                  kernel=_concat_kernel, stateful=True, input_names=("flow_in",))


def _split_kernel(run, flow, value, lengths, *, T):
    """TF's ``TensorArraySplit``: its checks in its order, then one write per piece."""
    store = _store(flow)
    _check_dtype(store, T)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise _error(f"Expected lengths to be a vector, received shape: "
                     f"{_debug(lengths.shape)}")
    value = np.asarray(value)
    if value.ndim == 0:
        raise _error("Expected value to be at least a vector, but received shape: []")
    lengths = [int(n) for n in lengths]
    if sum(lengths) != value.shape[0]:
        raise _error(f"Expected sum of lengths to be equal to values.shape[0], but sum of "
                     f"lengths is {sum(lengths)} and value's shape is: {_debug(value.shape)}")
    if not store.dynamic_size and len(store) != len(lengths):
        raise _error(f"TensorArray's size is not equal to the size of lengths "
                     f"({len(store)} vs. {len(lengths)}), and the TensorArray is not marked "
                     "as dynamically resizeable")
    start = 0
    for i, n in enumerate(lengths):
        store.write(i, value[start:start + n])
        start += n
    return store


split_op = OpDef("TensorArraySplitTensor", shape=_scalar, dtype=_variant, attrs=_WRITE_ATTRS,
                 kernel=_split_kernel, stateful=True,
                 input_names=("flow_in", "value", "lengths"))


def _length_kernel(run, flow):
    return np.int32(len(_store(flow)))


def _int32(*dts):
    return dtypes.int32


length_op = OpDef("TensorArrayLength", shape=_scalar, dtype=_int32, kernel=_length_kernel,
                  grad=None, stateful=True, input_names=("flow_in",))


def _grad_array_kernel(run, flow, *, source):
    return _store(flow).grad(source)


grad_array_op = OpDef("TensorArrayGradArray", shape=_scalar, dtype=_variant, attrs={"source": ""},
                      kernel=_grad_array_kernel, grad=None, stateful=True,
                      input_names=("flow_in",))


# ── gradients: a flow's gradient is a list of per-element gradients ──────────────────
def add_flow_grads(grads, name=None):
    """The elementwise sum of several gradients of one flow."""
    return add_grads_op.bind(*grads, name=name)


def add_flow_lists(*lists):
    """Sums flow gradients (lists of arrays, ``None`` for zero) elementwise."""
    lists = [g for g in lists if g is not None]
    if not lists:
        return None
    n = max(len(g) for g in lists)
    out = [None] * n
    for g in lists:
        for i, v in enumerate(g):
            if v is not None:
                out[i] = v if out[i] is None else out[i] + v
    return out


add_grads_op = OpDef("TensorArrayAddGrads", shape=_scalar, dtype=_variant, kernel=add_flow_lists,
                     grad=None)


def _grad_at(dflow, i, like):
    g = None if dflow is None or i >= len(dflow) else dflow[i]
    return np.zeros_like(like) if g is None else g


def _cleared(dflow, indices):
    if dflow is None:
        return None
    out = list(dflow)
    for i in indices:
        if i < len(out):
            out[i] = None
    return out


def _one_hot_list(n, items):
    out = [None] * n
    for i, g in items:
        out[i] = g if out[i] is None else out[i] + g
    return out


def _grad_op(type_name, kernel, value_input=None):
    """A gradient op: it outputs a flow gradient, and with ``value_input`` also the
    gradient of that input (its dtype and shape)."""
    if value_input is None:
        return OpDef(type_name, shape=_scalar, dtype=_variant, kernel=kernel, grad=None)
    return OpDef(type_name, kernel=kernel, grad=None,
                 shape=lambda *shapes: [TensorShape([]), shapes[value_input]],
                 dtype=lambda *dts: [dtypes.variant, dts[value_input]])


def _set_item_grad(dflow, index, value):
    i = int(index)
    return _cleared(dflow, [i]), _grad_at(dflow, i, value)


def _get_item_grad(flow, index, dy):
    return _one_hot_list(len(flow), [(int(index), dy)])


def _stack_grad(flow, dy):
    return list(np.asarray(dy))


def _from_tensor_grad(dflow, value):
    n = len(value)
    dvalue = np.stack([_grad_at(dflow, i, value[i]) for i in range(n)]) if n else \
        np.zeros_like(value)
    return _cleared(dflow, range(n)), dvalue


def _gather_grad(flow, indices, dy):
    idx = (int(i) for i in np.asarray(indices).reshape(-1))
    return _one_hot_list(len(flow), list(zip(idx, np.asarray(dy))))


set_item_grad_op = _grad_op("TensorArraySetItemGrad", _set_item_grad, value_input=2)
get_item_grad_op = _grad_op("TensorArrayGetItemGrad", _get_item_grad)
stack_grad_op = _grad_op("TensorArrayStackGrad", _stack_grad)
from_tensor_grad_op = _grad_op("TensorArrayFromTensorGrad", _from_tensor_grad, value_input=1)
gather_grad_op = _grad_op("TensorArrayGatherGrad", _gather_grad)


def _scatter_grad(dflow, indices, value):
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    dvalue = np.stack([_grad_at(dflow, i, value[k]) for k, i in enumerate(idx)]) \
        if idx else np.zeros_like(value)
    return _cleared(dflow, idx), dvalue


scatter_grad_op = _grad_op("TensorArrayScatterGrad", _scatter_grad, value_input=2)


def _concat_grad(lengths, dy):
    """``dy`` split by the lengths the concat saw (its second output)."""
    ends = np.cumsum(np.asarray(lengths, np.int64))
    return np.split(np.asarray(dy), ends[:-1]) if len(ends) else []


concat_grad_op = _grad_op("TensorArrayConcatGrad", _concat_grad)


def _split_grad(dflow, value, lengths):
    lengths = [int(n) for n in np.asarray(lengths).reshape(-1)]
    parts, start = [], 0
    for i, n in enumerate(lengths):
        parts.append(_grad_at(dflow, i, value[start:start + n]))
        start += n
    dvalue = np.concatenate(parts, 0) if parts else np.zeros_like(value)
    return _cleared(dflow, range(len(lengths))), dvalue


split_grad_op = _grad_op("TensorArraySplitGrad", _split_grad, value_input=1)


@set_item_op.def_grad
def _set_item_grad_rule(op, dflow):
    flow_in, index, value = op.inputs
    d_in, d_value = set_item_grad_op.bind(dflow, index, value)
    return [d_in, None, d_value]


@get_item_op.def_grad
def _get_item_grad_rule(op, dy):
    flow, index = op.inputs
    return [get_item_grad_op.bind(flow, index, dy), None]


@stack_op.def_grad
def _stack_grad_rule(op, dy):
    return [stack_grad_op.bind(op.inputs[0], dy)]


@from_tensor_op.def_grad
def _from_tensor_grad_rule(op, dflow):
    value = op.inputs[1]
    d_in, d_value = from_tensor_grad_op.bind(dflow, value)
    return [d_in, d_value]


@gather_op.def_grad
def _gather_grad_rule(op, dy):
    flow, indices = op.inputs
    return [gather_grad_op.bind(flow, indices, dy), None]


@scatter_op.def_grad
def _scatter_grad_rule(op, dflow):
    _, indices, value = op.inputs
    d_in, d_value = scatter_grad_op.bind(dflow, indices, value)
    return [d_in, None, d_value]


@concat_op.def_grad
def _concat_grad_rule(op, dy, dlengths):
    return [None if dy is None else concat_grad_op.bind(op.outputs[1], dy)]


@split_op.def_grad
def _split_grad_rule(op, dflow):
    _, value, lengths = op.inputs
    d_in, d_value = split_grad_op.bind(dflow, value, lengths)
    return [d_in, d_value, None]


# ── tf.TensorArray ───────────────────────────────────────────────────────────────────
class TensorArray:
    """TF1's ``tf.TensorArray``: ``write``/``read``/``stack``/``unstack``/``gather``/
    ``scatter``/``concat``/``split``/``size``/``grad``, each returning a new TensorArray
    (or tensor) on the same array.

    >>> ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    >>> tf.Session().run(ta.stack()).tolist()
    [1.0, 2.0]
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        del colocate_with_first_write_call  # one device: nothing to colocate
        if handle is not None and flow is None:
            flow = handle
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `handle` and `size` arguments at the same "
                             "time.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        # One cell shared by every TensorArray of this lineage (written in a loop body,
        # stacked after it; and its gradient arrays), as TF's.
        self._element_shape = [as_shape(element_shape) if element_shape is not None
                               else TensorShape(None)]
        self._size_value = None  # a constant size of a fixed-size array (TF's num_elements)
        if flow is not None:
            self._flow = flow
            return
        with name_scope(name, "TensorArray", [size]) as scope:
            size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
            value = constant_value(size)
            if value is not None and not self._dynamic_size and np.ndim(value) == 0:
                self._size_value = int(value)
            declared = self._element_shape[0]
            self._flow = reserve_op.bind(
                size, name=scope, dtype=self._dtype,
                element_shape=declared if declared.ndims is not None else None,
                dynamic_size=self._dynamic_size,
                clear_after_read=True if clear_after_read is None else bool(clear_after_read),
                identical_element_shapes=bool(infer_shape),
                tensor_array_name=tensor_array_name or "")

    def _attrs(self):
        shape = self._element_shape[0]
        return {"dtype": self._dtype,
                "element_shape": shape if shape.ndims is not None else None}

    def _with_flow(self, flow):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = \
            self._dtype, self._dynamic_size, self._infer_shape
        ta._element_shape = self._element_shape
        ta._size_value = self._size_value
        ta._flow = flow
        return ta

    def _merge_element_shape(self, shape):
        """TF's ``_check_element_shape``: a write's shape must be compatible with the
        element shape; with ``infer_shape`` it also refines it."""
        current = self._element_shape[0]
        if not shape.is_compatible_with(current):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {current} ")
        if self._infer_shape:
            self._element_shape[0] = current.merge_with(shape)

    def _value(self, value):
        """A written value as TF1 converts it: to the array's dtype where it can be, else
        as it is (the write then fails when it runs, as TF1's)."""
        value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        return value, {"T": value.dtype.base_dtype}

    # -- properties ----------------------------------------------------------------------
    flow = read_only("_flow")
    handle = read_only("_flow")
    dtype = read_only("_dtype")
    dynamic_size = read_only("_dynamic_size")

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape[0]

    # -- ops -----------------------------------------------------------------------------
    def identity(self):
        """The same array through an ``Identity`` of its flow, so control dependencies
        around the call order what reads it."""
        return self._with_flow(identity_op.bind(self._flow, name="Identity"))

    def write(self, index, value, name=None):
        with name_scope(name, "TensorArrayWrite", [self._flow, index, value]) as scope:
            value, attrs = self._value(value)
            self._merge_element_shape(value.shape)
            index = _int32_input(index, "TensorArrayWriteV3", "index")
            return self._with_flow(set_item_op.bind(self._flow, index, value, name=scope,
                                                    **attrs))

    def read(self, index, name=None):
        with name_scope(name, "TensorArrayRead", [self._flow, index]) as scope:
            index = _int32_input(index, "TensorArrayReadV3", "index")
            return get_item_op.bind(self._flow, index, name=scope, **self._attrs())

    def stack(self, name=None):
        with name_scope(name, "TensorArrayStack", [self._flow]) as scope:
            out = stack_op.bind(self._flow, name=scope, **self._attrs())
            if self._size_value is not None and self.element_shape.ndims is not None:
                # TF's stack knows a constant size's count
                out.set_shape(TensorShape([self._size_value]).concatenate(out.shape[1:]))
            return out

    def gather(self, indices, name=None):
        with name_scope(name, "TensorArrayGather", [self._flow, indices]) as scope:
            indices = _int32_input(indices, "TensorArrayGatherV3", "indices")
            _check_vector(indices, scope, "TensorArrayGatherV3", [indices])
            return gather_op.bind(self._flow, indices, name=scope, **self._attrs())

    def concat(self, name=None):
        with name_scope(name, "TensorArrayConcat", [self._flow]) as scope:
            shape = self._element_shape[0]
            rest = shape[1:] if shape.ndims else None
            out = concat_op.bind(self._flow, name=scope, dtype=self._dtype,
                                 element_shape_except0=rest if shape.ndims != 0
                                 else TensorShape([]))[0]
            if shape.ndims and self._infer_shape and self._size_value is not None and \
                    shape.as_list()[0] is not None:
                # TF's: a constant count of known first dimensions fixes the length.
                out.set_shape([self._size_value * shape.as_list()[0]] + shape.as_list()[1:])
            return out

    def unstack(self, value, name=None):
        with name_scope(name, "TensorArrayUnstack", [self._flow, value]) as scope:
            value, attrs = self._value(value)
            if value.shape.ndims == 0:
                raise ValueError("slice index 0 of dimension 0 out of bounds. for "
                                 "'TensorArrayUnstack/strided_slice': the value to unstack "
                                 "is a scalar")
            self._merge_row_shape(value)
            return self._with_flow(from_tensor_op.bind(self._flow, value, name=scope,
                                                       **attrs))

    def scatter(self, indices, value, name=None):
        with name_scope(name, "TensorArrayScatter", [self._flow, value, indices]) as scope:
            value, attrs = self._value(value)
            indices = _int32_input(indices, "TensorArrayScatterV3", "indices")
            _check_vector(indices, scope, "TensorArrayScatterV3", [indices, value])
            self._merge_row_shape(value)
            return self._with_flow(scatter_op.bind(self._flow, indices, value, name=scope,
                                                   **attrs))

    def _merge_row_shape(self, value):
        """Merges in the element shape of ``value``'s rows (``unstack``, ``scatter``)."""
        if value.shape.ndims is not None and value.shape.ndims > 0:
            self._merge_element_shape(TensorShape(value.shape.as_list()[1:]))

    def split(self, value, lengths, name=None):
        with name_scope(name, "TensorArraySplit", [self._flow, value, lengths]) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            lengths = convert_to_tensor(lengths, preferred_dtype=dtypes.int64, name="lengths")
            _check_vector(lengths, scope, "TensorArraySplitV3", [value, lengths])
            known = constant_value(lengths)
            if value.shape.ndims is not None and known is not None and np.ndim(known) and \
                    np.size(known) and np.max(known) == np.min(known):
                # TF's: equal constant lengths give the pieces' shape
                self._merge_element_shape(TensorShape([int(np.ravel(known)[0])]).concatenate(
                    value.shape[1:]))
            return self._with_flow(split_op.bind(self._flow, value, lengths, name=scope,
                                                 T=value.dtype.base_dtype))

    def size(self, name=None):
        return length_op.bind(self._flow, name=name or "TensorArraySize")

    def close(self, name=None):
        return no_op(name=name or "TensorArrayClose")

    def grad(self, source, flow=None, name=None):
        """TF1's gradient array for ``source``: the same array for every call with that
        source, sized as this array when it runs; writes to it sum up."""
        flow = self._flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad", [flow]) as scope:
            g = self._with_flow(grad_array_op.bind(flow, source=source, name=scope))
        g._dynamic_size, g._size_value = False, None
        return g
