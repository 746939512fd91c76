"""``tf.TensorArray``: a list of tensors that graph code writes and reads by index.

TF1 keeps a TensorArray's elements in a resource and threads a scalar "flow" through its ops
to order them. Here the flow *is* the value: a Python list of arrays (``None`` where nothing
was written), and each write returns a new list, so a TensorArray is an ordinary value that
crosses ``tf.cond`` and ``tf.while_loop`` boundaries as one tensor of dtype ``variant``.

Gradients follow the same idea: the gradient of a flow is a list of per-element gradients
(``None`` for zero), summed elementwise where several reads meet (``add_flow_grads``).
Errors use TF1's words (``Could not read from TensorArray index 3 because it has not yet
been written to.``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.control_flow.control_flow_ops import no_op

__all__ = ["TensorArray", "add_flow_grads", "add_flow_lists"]


def _error(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _variant(*args, **attrs):
    return dtypes.variant


def _scalar(*args, **attrs):
    return TensorShape([])


def _index(i):
    return int(i)


def _known_shape(flow, element_shape):
    """The element shape a read of an unwritten element gets zeros of, or None: TF's
    declared shape, completed by the shape of the elements written so far."""
    if element_shape is not None and element_shape.is_fully_defined():
        return element_shape.as_tuple()
    written = next((x for x in flow if x is not None), None)
    return None if written is None else np.shape(written)


def _element(flow, i, element_shape, dtype):
    v = flow[i]
    if v is None:
        shape = _known_shape(flow, element_shape)
        if shape is not None:
            return np.zeros(shape, dtype.as_numpy_dtype)
        raise _error(f"Could not read from TensorArray index {i} because it has not yet been "
                     "written to.")
    return v


def _elements(flow, element_shape, dtype):
    return [_element(flow, i, element_shape, dtype) for i in range(len(flow))]


def _stacked(items, element_shape, dtype):
    if not items:
        if element_shape is None or not element_shape.is_fully_defined():
            raise _error("TensorArray has size zero, but element shape "
                         f"{element_shape if element_shape is not None else '<unknown>'} is "
                         "not fully defined. Currently only static shapes are supported when "
                         "packing zero-size TensorArrays.")
        return np.zeros((0,) + element_shape.as_tuple(), dtype.as_numpy_dtype)
    return np.stack(items)


def _written(flow, index, value, dynamic_size):
    """A copy of ``flow`` with ``value`` at ``index`` (TF1's checks)."""
    n = len(flow)
    if index < 0:
        raise _error(f"Tried to write to index {index} but array size is: {n}")
    if index >= n:
        if not dynamic_size:
            raise _error(f"Tried to write to index {index} but array is not resizeable and "
                         f"size is: {n}")
        new = list(flow) + [None] * (index + 1 - n)
    else:
        if flow[index] is not None:
            raise _error(f"Could not write to TensorArray index {index} because it has "
                         "already been written to.")
        new = list(flow)
    other = next((x for x in flow if x is not None), None)
    if other is not None and np.shape(other) != np.shape(value):
        raise _error(f"Could not write to TensorArray index {index} because the value shape "
                     f"is {list(np.shape(value))} which is incompatible with the "
                     f"TensorArray's inferred element shape: {list(np.shape(other))} "
                     "(consider setting infer_shape=False).")
    new[index] = value
    return new


# ── the forward ops ──────────────────────────────────────────────────────────────────
_ATTRS = {"dtype": None, "element_shape": None, "dynamic_size": False}

def _reserve_kernel(size, **attrs):
    return [None] * _index(size)


reserve_op = OpDef("TensorArrayReserve", shape=_scalar, dtype=_variant, attrs=_ATTRS, grad=None,
                   kernel=_reserve_kernel, input_names=("size",))


def _set_item_kernel(flow, index, value, **attrs):
    return _written(flow, _index(index), value, attrs["dynamic_size"])


set_item_op = OpDef("TensorArraySetItem", shape=_scalar, dtype=_variant, attrs=_ATTRS,
                    kernel=_set_item_kernel, input_names=("flow_in", "index", "value"))


def _get_item_kernel(flow, index, *, dtype, element_shape, dynamic_size):
    i = _index(index)
    if not 0 <= i < len(flow):
        raise _error(f"Tried to read from index {i} but array size is: {len(flow)}")
    return _element(flow, i, element_shape, dtype)


def _element_shape_rule(*shapes, dtype, element_shape, dynamic_size):
    return element_shape if element_shape is not None else TensorShape(None)


def _element_dtype(*dts, dtype, element_shape, dynamic_size):
    return dtype


get_item_op = OpDef("TensorArrayGetItem", shape=_element_shape_rule, dtype=_element_dtype,
                    attrs=_ATTRS, kernel=_get_item_kernel, input_names=("flow_in", "index"))


def _stacked_shape(*shapes, dtype, element_shape, dynamic_size):
    if element_shape is None or element_shape.ndims is None:
        return TensorShape(None)
    return TensorShape([None] + element_shape.as_list())


def _stack_kernel(flow, *, dtype, element_shape, dynamic_size):
    return _stacked(_elements(flow, element_shape, dtype),
                    _as_known(_known_shape(flow, element_shape), element_shape), dtype)


def _as_known(shape, declared):
    return TensorShape(shape) if shape is not None else declared


stack_op = OpDef("TensorArrayStackItems", shape=_stacked_shape, dtype=_element_dtype,
                 attrs=_ATTRS, kernel=_stack_kernel, input_names=("flow_in",))


def _from_tensor_kernel(flow, value, **a):
    value = np.asarray(value)
    n = value.shape[0] if value.ndim else 0
    if value.ndim == 0:
        raise _error("Tensor to unstack must be at least a vector")
    if n > len(flow) and not a["dynamic_size"]:
        raise _error(f"Tried to write to index {len(flow)} but array is not resizeable and "
                     f"size is: {len(flow)}")
    new = list(flow) + [None] * max(0, n - len(flow))
    for i in range(n):
        new[i] = value[i]
    return new


from_tensor_op = OpDef("TensorArrayFromTensor", shape=_scalar, dtype=_variant, attrs=_ATTRS,
                       kernel=_from_tensor_kernel, input_names=("flow_in", "value"))


def _gather_kernel(flow, indices, *, dtype, element_shape, dynamic_size):
    items = []
    for i in np.asarray(indices).reshape(-1):
        i = int(i)
        if not 0 <= i < len(flow):
            raise _error(f"Tried to read from index {i} but array size is: {len(flow)}")
        items.append(_element(flow, i, element_shape, dtype))
    return _stacked(items, element_shape, dtype)


gather_op = OpDef("TensorArrayGatherItems", shape=_stacked_shape, dtype=_element_dtype,
                  attrs=_ATTRS, kernel=_gather_kernel, input_names=("flow_in", "indices"))


def _scatter_kernel(flow, indices, value, **a):
    value = np.asarray(value)
    indices = np.asarray(indices).reshape(-1)
    if value.ndim == 0 or value.shape[0] != len(indices):
        raise _error(f"Expected len(indices) == values.shape[0], but saw: {len(indices)} vs. "
                     f"{value.shape[0] if value.ndim else 0}")
    for k, i in enumerate(indices):
        flow = _written(flow, int(i), value[k], a["dynamic_size"])
    return flow


scatter_op = OpDef("TensorArrayScatterItems", shape=_scalar, dtype=_variant, attrs=_ATTRS,
                   kernel=_scatter_kernel, input_names=("flow_in", "indices", "value"))


def _concat_kernel(flow, *, dtype, element_shape, dynamic_size):
    items = [_element(flow, i, None, dtype) for i in range(len(flow))]
    if not items:
        return np.zeros((0,), dtype.as_numpy_dtype)
    return np.concatenate(items, axis=0)


def _concat_shape(*shapes, dtype, element_shape, dynamic_size):
    if element_shape is None or element_shape.ndims is None:
        return TensorShape(None)
    return TensorShape([None] + element_shape.as_list()[1:])


concat_op = OpDef("TensorArrayConcatItems", shape=_concat_shape, dtype=_element_dtype,
                  attrs=_ATTRS, kernel=_concat_kernel, input_names=("flow_in",))


def _split_kernel(flow, value, lengths, **a):
    value = np.asarray(value)
    lengths = [int(n) for n in np.asarray(lengths).reshape(-1)]
    if sum(lengths) != value.shape[0]:
        raise _error(f"Expected sum of lengths to be equal to values.shape[0], but sum of "
                     f"lengths is {sum(lengths)} and value's shape is: {list(value.shape)}")
    if len(lengths) > len(flow) and not a["dynamic_size"]:
        raise _error(f"Tried to write to index {len(flow)} but array is not resizeable and "
                     f"size is: {len(flow)}")
    new = list(flow) + [None] * max(0, len(lengths) - len(flow))
    start = 0
    for i, n in enumerate(lengths):
        new[i] = value[start:start + n]
        start += n
    return new


split_op = OpDef("TensorArraySplitTensor", shape=_scalar, dtype=_variant, attrs=_ATTRS,
                 kernel=_split_kernel, input_names=("flow_in", "value", "lengths"))

def _length_kernel(flow):
    return np.int32(len(flow))


def _int32(*dts):
    return dtypes.int32


length_op = OpDef("TensorArrayLength", shape=_scalar, dtype=_int32, kernel=_length_kernel,
                  grad=None, input_names=("flow_in",))


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
    i = _index(index)
    return _cleared(dflow, [i]), _grad_at(dflow, i, value)


def _get_item_grad(flow, index, dy):
    return _one_hot_list(len(flow), [(_index(index), dy)])


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


def _concat_grad(flow, dy):
    out, start = [], 0
    for v in flow:
        n = 0 if v is None else np.shape(v)[0]
        out.append(np.asarray(dy)[start:start + n])
        start += n
    return out


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
def _concat_grad_rule(op, dy):
    return [concat_grad_op.bind(op.inputs[0], dy)]


@split_op.def_grad
def _split_grad_rule(op, dflow):
    _, value, lengths = op.inputs
    d_in, d_value = split_grad_op.bind(dflow, value, lengths)
    return [d_in, d_value, None]


# ── tf.TensorArray ───────────────────────────────────────────────────────────────────
class TensorArray:
    """TF1's ``tf.TensorArray``: ``write``/``read``/``stack``/``unstack``/``gather``/
    ``scatter``/``concat``/``split``/``size``, each returning a new TensorArray (or tensor).

    >>> ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    >>> tf.Session().run(ta.stack()).tolist()
    [1.0, 2.0]
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        del clear_after_read, colocate_with_first_write_call
        if handle is not None and flow is None:
            flow = handle
        if flow is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both a flow and size at the same time")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        # One cell shared by every TensorArray of this lineage (written in a loop body,
        # stacked after it), so writes anywhere inform the element shape.
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
            self._flow = reserve_op.bind(size, name=tensor_array_name or scope,
                                         **self._attrs())

    def _attrs(self):
        shape = self._element_shape[0]
        return {"dtype": self._dtype, "element_shape": shape if shape.ndims is not None
                else None, "dynamic_size": self._dynamic_size}

    def _with_flow(self, flow):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = \
            self._dtype, self._dynamic_size, self._infer_shape
        ta._element_shape = self._element_shape
        ta._size_value = self._size_value
        ta._flow = flow
        return ta

    def _merge_element_shape(self, shape):
        if not self._infer_shape:
            return
        current = self._element_shape[0]
        if current.ndims is None:
            self._element_shape[0] = shape
            return
        if not current.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {current} "
                             "(and infer_shape=True)")
        self._element_shape[0] = current.merge_with(shape)

    def _merge_row_shape(self, value):
        """Merges in the element shape of ``value``'s rows (``unstack``, ``scatter``)."""
        if value.shape.ndims is not None and value.shape.ndims > 0:
            self._merge_element_shape(TensorShape(value.shape.as_list()[1:]))

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
        return self._with_flow(self._flow)

    def write(self, index, value, name=None):
        with name_scope(name, "TensorArrayWrite", [self._flow, index, value]) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            self._merge_element_shape(value.shape)
            index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
            return self._with_flow(set_item_op.bind(self._flow, index, value, name=scope,
                                                    **self._attrs()))

    def read(self, index, name=None):
        with name_scope(name, "TensorArrayRead", [self._flow, index]) as scope:
            index = convert_to_tensor(index, dtype=dtypes.int32, name="index")
            return get_item_op.bind(self._flow, index, name=scope, **self._attrs())

    def stack(self, name=None):
        with name_scope(name, "TensorArrayStack", [self._flow]) as scope:
            out = stack_op.bind(self._flow, name=scope, **self._attrs())
            if self._size_value is not None:  # TF's stack knows a constant size's count
                out.set_shape(TensorShape([self._size_value]).concatenate(out.shape[1:]))
            return out

    def gather(self, indices, name=None):
        with name_scope(name, "TensorArrayGather", [self._flow, indices]) as scope:
            indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            return gather_op.bind(self._flow, indices, name=scope, **self._attrs())

    def concat(self, name=None):
        with name_scope(name, "TensorArrayConcat", [self._flow]) as scope:
            out = concat_op.bind(self._flow, name=scope, **self._attrs())
            shape = self._element_shape[0]
            if self._size_value is not None and shape.is_fully_defined() and shape.ndims:
                # TF's: a constant count of fully known elements fixes the concat's length.
                out.set_shape([self._size_value * shape.as_list()[0]] + shape.as_list()[1:])
            return out

    def unstack(self, value, name=None):
        with name_scope(name, "TensorArrayUnstack", [self._flow, value]) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            self._merge_row_shape(value)
            return self._with_flow(from_tensor_op.bind(self._flow, value, name=scope,
                                                       **self._attrs()))

    def scatter(self, indices, value, name=None):
        with name_scope(name, "TensorArrayScatter", [self._flow, indices, value]) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            indices = convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            self._merge_row_shape(value)
            return self._with_flow(scatter_op.bind(self._flow, indices, value, name=scope,
                                                   **self._attrs()))

    def split(self, value, lengths, name=None):
        with name_scope(name, "TensorArraySplit", [self._flow, value, lengths]) as scope:
            value = convert_to_tensor(value, dtype=self._dtype, name="value")
            lengths = convert_to_tensor(lengths, dtype=dtypes.int64, name="lengths")
            return self._with_flow(split_op.bind(self._flow, value, lengths, name=scope,
                                                 **self._attrs()))

    def size(self, name=None):
        return length_op.bind(self._flow, name=name or "TensorArraySize")

    def close(self, name=None):
        return no_op(name=name or "TensorArrayClose")

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError(
            "TensorArray.grad is not supported: scopeflow differentiates TensorArrays through "
            "tf.gradients directly")
