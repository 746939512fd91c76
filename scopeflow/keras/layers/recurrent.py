"""Keras's recurrent layers as TF1 built them: ``RNN`` over a cell (or a list of cells,
``StackedRNNCells``), ``SimpleRNN``/``SimpleRNNCell``, ``LSTM``/``LSTMCell`` and
``GRU``/``GRUCell`` (TF1's V1 layers: ``recurrent_activation="hard_sigmoid"``, GRU's
``reset_after=False``).

Weights are Keras's: the cell's ``kernel``, ``recurrent_kernel`` and ``bias`` under the
layer's and the cell's scopes (``lstm/lstm_cell/kernel:0``), gates in Keras's order (LSTM
``i, f, c, o``; GRU ``z, r, h``). The time loop is Keras's ``backend.rnn``: a
``tf.while_loop`` over ``TensorArray``\\ s (or a Python loop with ``unroll=True``); a
``mask`` (``[batch, time]``) keeps the previous output and states at masked steps (zeros
as output with ``zero_output_for_mask``). ``dropout``/``recurrent_dropout`` masks are made
once per call and used in training only (``backend.learning_phase()``)."""

from __future__ import annotations

import inspect

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import flatten
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import activations, constraints, initializers, regularizers
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.keras.layers.normalization import smart_cond
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array import reverse_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.nn.conv_ops import bias_add
from scopeflow.ops.nn.nn_composites import dropout as nn_dropout
from scopeflow.ops.state import state_ops

__all__ = ["RNN", "StackedRNNCells", "SimpleRNNCell", "SimpleRNN", "LSTMCell", "LSTM",
           "GRUCell", "GRU", "AbstractRNNCell"]


def _dims(shape):
    return TensorShape(shape).as_list()


def _merged_config(layer, config):
    base = Layer.get_config(layer)
    base.update(config)
    return base


def _size_dims(size):
    """A state or output size (an int or a shape) as a list of dims."""
    if isinstance(size, int):
        return [size]
    return _dims(size)


# ── The time loop: Keras's backend.rnn ───────────────────────────────────────────────
def _where(mask_t, new, old):
    """``new`` where the row's mask is set, else ``old`` (``mask_t`` is ``[batch]``)."""
    cond = mask_t
    for _ in range(new.shape.ndims - 1):
        cond = array_ops.expand_dims(cond, -1)
    return reduction_ops.where_v2(cond, new, old)


def rnn(step_function, inputs, initial_states, output_size, go_backwards=False, mask=None,
        unroll=False, zero_output_for_mask=False):
    """Iterates ``step_function(input_t, states) -> (output_t, new_states)`` over the time
    dimension (1) of ``inputs``; returns ``(last_output, outputs, new_states)`` with
    ``outputs`` ``[batch, time, ...]`` (in the order the steps ran)."""
    ndim = inputs.shape.ndims
    if ndim is None or ndim < 3:
        raise ValueError("Input should be at least 3D.")
    static = inputs.shape.as_list()
    time_major = array_ops.transpose(inputs, [1, 0] + list(range(2, ndim)))
    if mask is not None:
        mask = _time_major_mask(mask)
    if go_backwards:
        time_major = reverse_ops.reverse(time_major, [0])
        if mask is not None:
            mask = reverse_ops.reverse(mask, [0])
    states = list(initial_states)
    if static[0] is None:
        # The batch size may be known from the initial states (TF's shapes carry it).
        known = [s.shape.as_list()[0] for s in states if s.shape.ndims]
        static[0] = next((d for d in known if d is not None), None)
    batch = array_ops.shape(inputs)[0]
    zero_output = array_ops.zeros(array_ops.stack([batch] + _size_dims(output_size)),
                                  dtype=inputs.dtype.base_dtype) if mask is not None else None
    one_step = _masked_step(step_function, zero_output if zero_output_for_mask else None)
    if unroll:
        stacked, last_output, states = _unrolled_rnn(one_step, time_major, mask, static,
                                                     zero_output, states)
    else:
        stacked, last_output, states = _while_rnn(one_step, inputs, time_major, mask, static,
                                                  zero_output, states, output_size, batch)
    outputs = array_ops.transpose(stacked, [1, 0] + list(range(2, stacked.shape.ndims or 3)))
    outputs.set_shape([static[0], static[1]] + _size_dims(output_size))
    return last_output, outputs, states


def _time_major_mask(mask):
    """A ``[batch, time]`` mask as a bool ``[time, batch]`` one."""
    if mask.dtype.base_dtype != dtypes.bool:
        mask = math_ops.cast(mask, dtypes.bool)
    if mask.shape.ndims == 2:
        return array_ops.transpose(mask, [1, 0])
    raise ValueError(f"The mask of an RNN must be [batch, time]; got shape {mask.shape}")


def _masked_step(step_function, masked_output):
    """``one_step(input_t, mask_t, prev_output, states)``: ``step_function``, where rows
    whose mask is off keep their states and give ``masked_output`` (the previous output
    when it is None)."""

    def one_step(input_t, mask_t, prev_output, states):
        output, new_states = step_function(input_t, list(states))
        new_states = flatten(new_states)
        if mask_t is not None:
            keep = masked_output if masked_output is not None else prev_output
            output = _where(mask_t, output, keep)
            new_states = [_where(mask_t, n, s) for n, s in zip(new_states, states)]
        return output, new_states

    return one_step


def _unrolled_rnn(one_step, time_major, mask, static, zero_output, states):
    """``unroll=True``: one graph copy of the step per time step; returns ``(stacked
    time-major outputs, last output, final states)``."""
    steps = static[1]
    if steps is None:
        raise ValueError("Unrolling requires a fixed number of timesteps.")
    inputs_list = array_ops.unstack(time_major, num=steps)
    masks = array_ops.unstack(mask, num=steps) if mask is not None else [None] * steps
    outputs = []
    prev_output = zero_output
    for input_t, mask_t in zip(inputs_list, masks):
        prev_output, states = one_step(input_t, mask_t, prev_output, states)
        outputs.append(prev_output)
    return array_ops.stack(outputs), outputs[-1], states


def _while_rnn(one_step, inputs, time_major, mask, static, zero_output, states, output_size,
               batch):
    """The step in a ``tf.while_loop`` over TensorArrays of the inputs (and mask); returns
    ``(stacked time-major outputs, last output, final states)``."""
    steps = array_ops.shape(time_major)[0]
    input_ta = TensorArray(inputs.dtype.base_dtype, size=steps,
                           element_shape=TensorShape([static[0]] + static[2:]),
                           tensor_array_name="input_ta").unstack(time_major)
    mask_ta = TensorArray(dtypes.bool, size=steps, tensor_array_name="mask_ta").unstack(
        mask) if mask is not None else None
    output_ta = TensorArray(inputs.dtype.base_dtype, size=steps,
                            element_shape=TensorShape([static[0]]
                                                      + _size_dims(output_size)),
                            tensor_array_name="output_ta")
    time = constant(0, dtype=dtypes.int32, name="time")
    first_output = zero_output if zero_output is not None else array_ops.zeros(
        array_ops.stack([batch] + _size_dims(output_size)), dtype=inputs.dtype.base_dtype)
    state_shapes = [s.shape for s in states]
    output_shape = TensorShape([static[0]] + _size_dims(output_size))
    first_output.set_shape(output_shape)

    def body(time, output_ta, prev_output, *states):
        input_t = input_ta.read(time)
        input_t.set_shape([static[0]] + static[2:])
        mask_t = mask_ta.read(time) if mask_ta is not None else None
        output, new_states = one_step(input_t, mask_t, prev_output, states)
        output.set_shape(output_shape)
        for n, shape in zip(new_states, state_shapes):
            n.set_shape(shape)
        return (time + 1, output_ta.write(time, output), output, *new_states)

    loop = while_loop(lambda time, *_: time < steps, body,
                      (time, output_ta, first_output, *states),
                      maximum_iterations=steps)
    return loop[1].stack(), loop[2], list(loop[3:])


# ── Dropout masks (made once per call, used at every step) ───────────────────────────
def _dropout_masks(ones, rate, training, count):
    def dropped():
        return [nn_dropout(ones, rate=rate) for _ in range(count)]

    def kept():
        return [ones for _ in range(count)]

    masks = smart_cond(training, dropped, kept)
    return list(masks) if isinstance(masks, (list, tuple)) else [masks]


class _DropoutMixin:
    """The cells' ``dropout``/``recurrent_dropout`` masks: set by the RNN layer for one
    call (``_set_masks``), read by ``call``."""

    _input_masks = None
    _recurrent_masks = None
    _gates = 1

    def _set_masks(self, inputs_t, state_t, training):
        self._input_masks = self._recurrent_masks = None
        if 0 < self.dropout < 1:
            self._input_masks = _dropout_masks(array_ops.ones_like(inputs_t), self.dropout,
                                               training, self._gates)
        if 0 < self.recurrent_dropout < 1:
            self._recurrent_masks = _dropout_masks(array_ops.ones_like(state_t),
                                                   self.recurrent_dropout, training,
                                                   self._gates)

    def _clear_masks(self):
        self._input_masks = self._recurrent_masks = None


def _dot(x, y):
    return math_ops.matmul(x, y)


# ── Cells ────────────────────────────────────────────────────────────────────────────
class AbstractRNNCell(Layer):
    """A cell: ``call(inputs, states) -> (output, new_states)``, ``state_size``,
    ``output_size``."""

    @property
    def state_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return _zero_state(self.state_size, batch_size, dtype)


def _zero_state(state_size, batch_size, dtype):
    def zeros(size):
        return array_ops.zeros(array_ops.stack([batch_size] + _size_dims(size)), dtype=dtype)

    if isinstance(state_size, (list, tuple)):
        return [zeros(s) for s in state_size]
    return zeros(state_size)


class _Cell(_DropoutMixin, Layer):
    """What the three cells share: their arguments and ``kernel``/``recurrent_kernel``/
    ``bias`` weights (``_gates`` blocks of ``units`` columns)."""

    def __init__(self, units, activation, use_bias, kernel_initializer, recurrent_initializer,
                 bias_initializer, kernel_regularizer, recurrent_regularizer,
                 bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint,
                 dropout, recurrent_dropout, **kwargs):
        super().__init__(**kwargs)
        if units is None or int(units) <= 0:
            raise ValueError("Received an invalid value for argument `units`, expected a "
                             f"positive integer, got {units}.")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))

    def _build_kernels(self, input_dim):
        self.kernel = self.add_weight(
            shape=(input_dim, self.units * self._gates), name="kernel",
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units * self._gates), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)

    def _add_bias(self, shape, initializer):
        self.bias = self.add_weight(shape=shape, name="bias", initializer=initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None

    def _input_dropped(self, inputs, i):
        return inputs * self._input_masks[i] if self._input_masks else inputs

    def _state_dropped(self, h, i):
        return h * self._recurrent_masks[i] if self._recurrent_masks else h

    def _base_config(self):
        return {
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout}

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return _zero_state(self.state_size, batch_size, dtype)


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)``."""

    _gates = 1

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)

    state_size = property(lambda self: self.units)
    output_size = property(lambda self: self.units)

    def build(self, input_shape):
        self._build_kernels(_dims(input_shape)[-1])
        self._add_bias((self.units,), self.bias_initializer)
        self.built = True

    def call(self, inputs, states, training=None):
        prev_output = states[0] if isinstance(states, (list, tuple)) else states
        h = _dot(self._input_dropped(inputs, 0), self.kernel)
        if self.bias is not None:
            h = bias_add(h, self.bias)
        output = h + _dot(self._state_dropped(prev_output, 0), self.recurrent_kernel)
        if self.activation is not None:
            output = self.activation(output)
        return output, [output] if isinstance(states, (list, tuple)) else output

    def get_config(self):
        return _merged_config(self, self._base_config())


class LSTMCell(_Cell):
    """Keras's LSTM step (gates ``i, f, c, o``): ``c = f * c_prev + i * activation(...)``,
    ``h = o * activation(c)``; states ``[h, c]``. ``unit_forget_bias`` starts the forget
    gate's bias at 1."""

    _gates = 4

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=1,
                 **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation

    state_size = property(lambda self: [self.units, self.units])
    output_size = property(lambda self: self.units)

    def build(self, input_shape):
        self._build_kernels(_dims(input_shape)[-1])
        if self.unit_forget_bias:
            units, bias_initializer = self.units, self.bias_initializer

            def initializer(shape, dtype=None, partition_info=None, **kwargs):
                return array_ops.concat([
                    bias_initializer((units,), dtype=dtype),
                    initializers.get("ones")((units,), dtype=dtype),
                    bias_initializer((units * 2,), dtype=dtype)], axis=0)
        else:
            initializer = self.bias_initializer
        self._add_bias((self.units * 4,), initializer)
        self.built = True

    def call(self, inputs, states, training=None):
        h_tm1, c_tm1 = states[0], states[1]
        u = self.units
        k, rk = self.kernel, self.recurrent_kernel
        xs = [_dot(self._input_dropped(inputs, i), k[:, i * u:(i + 1) * u]) for i in range(4)]
        if self.bias is not None:
            xs = [bias_add(x, self.bias[i * u:(i + 1) * u]) for i, x in enumerate(xs)]
        hs = [_dot(self._state_dropped(h_tm1, i), rk[:, i * u:(i + 1) * u]) for i in range(4)]
        i = self.recurrent_activation(xs[0] + hs[0])
        f = self.recurrent_activation(xs[1] + hs[1])
        c = f * c_tm1 + i * self.activation(xs[2] + hs[2])
        o = self.recurrent_activation(xs[3] + hs[3])
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = self._base_config()
        config.update({
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "unit_forget_bias": self.unit_forget_bias, "implementation": self.implementation})
        return _merged_config(self, config)


class GRUCell(_Cell):
    """Keras's GRU step (gates ``z, r, h``): ``h = z * h_prev + (1 - z) * hh``; with
    ``reset_after`` the reset gate applies after the recurrent product, which has its own
    bias (``bias`` is then ``[2, 3 * units]``)."""

    _gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, implementation=1, reset_after=False,
                 **kwargs):
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout,
                         **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = implementation
        self.reset_after = reset_after

    state_size = property(lambda self: self.units)
    output_size = property(lambda self: self.units)

    def build(self, input_shape):
        self._build_kernels(_dims(input_shape)[-1])
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._add_bias(shape, self.bias_initializer)
        self.built = True

    def call(self, inputs, states, training=None):
        h_tm1 = states[0] if isinstance(states, (list, tuple)) else states
        u = self.units
        k, rk = self.kernel, self.recurrent_kernel
        if self.bias is not None:
            input_bias, recurrent_bias = (self.bias[0], self.bias[1]) if self.reset_after \
                else (self.bias, None)
        else:
            input_bias = recurrent_bias = None
        xs = [_dot(self._input_dropped(inputs, i), k[:, i * u:(i + 1) * u]) for i in range(3)]
        if input_bias is not None:
            xs = [bias_add(x, input_bias[i * u:(i + 1) * u]) for i, x in enumerate(xs)]
        hz, hr, hh_in = (self._state_dropped(h_tm1, i) for i in range(3))
        rec_z = _dot(hz, rk[:, :u])
        rec_r = _dot(hr, rk[:, u:2 * u])
        if self.reset_after and recurrent_bias is not None:
            rec_z = bias_add(rec_z, recurrent_bias[:u])
            rec_r = bias_add(rec_r, recurrent_bias[u:2 * u])
        z = self.recurrent_activation(xs[0] + rec_z)
        r = self.recurrent_activation(xs[1] + rec_r)
        if self.reset_after:
            rec_h = _dot(hh_in, rk[:, 2 * u:])
            if recurrent_bias is not None:
                rec_h = bias_add(rec_h, recurrent_bias[2 * u:])
            rec_h = r * rec_h
        else:
            rec_h = _dot(r * hh_in, rk[:, 2 * u:])
        hh = self.activation(xs[2] + rec_h)
        h = z * h_tm1 + (1 - z) * hh
        return h, [h] if isinstance(states, (list, tuple)) else h

    def get_config(self):
        config = self._base_config()
        config.update({
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "implementation": self.implementation, "reset_after": self.reset_after})
        return _merged_config(self, config)


class StackedRNNCells(Layer):
    """Cells run one after another within a step; the states are the cells' states in
    order (``state_size`` is their concatenation)."""

    def __init__(self, cells, **kwargs):
        for cell in cells:
            if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
                raise ValueError("All cells must have a `call` method and a `state_size` "
                                 f"attribute. Received cells={cells}")
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self):
        return [s for cell in self.cells for s in _as_list(cell.state_size)]

    @property
    def output_size(self):
        cell = self.cells[-1]
        return getattr(cell, "output_size", None) or _as_list(cell.state_size)[0]

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return [s for cell in self.cells for s in
                _as_list(_cell_initial_state(cell, batch_size, dtype))]

    def build(self, input_shape):
        from_shape = _dims(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with name_scope(cell.name):
                    cell.build(TensorShape(from_shape))
                    cell.built = True
            from_shape = from_shape[:-1] + [_size_dims(_output_size(cell))[-1]]
        self.built = True

    def call(self, inputs, states, training=None):
        new_states = []
        start = 0
        for cell in self.cells:
            n = len(_as_list(cell.state_size))
            cell_states = states[start:start + n]
            start += n
            if not isinstance(cell.state_size, (list, tuple)):
                cell_states = cell_states[0]
            inputs, cell_new = _call_cell(cell, inputs, cell_states, training)
            new_states.extend(_as_list(cell_new))
        return inputs, new_states

    def _set_masks(self, inputs_t, state_t, training):
        for cell in self.cells:
            if isinstance(cell, _DropoutMixin):
                cell._clear_masks()
        if any(isinstance(c, _DropoutMixin) and (c.dropout or c.recurrent_dropout)
               for c in self.cells):
            raise NotImplementedError("StackedRNNCells: cells with dropout or "
                                      "recurrent_dropout are not supported")

    def _clear_masks(self):
        pass

    def get_config(self):
        cells = [{"class_name": type(c).__name__, "config": c.get_config()}
                 for c in self.cells]
        return _merged_config(self, {"cells": cells})

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [_deserialize_cell(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)


def _inherit_dtype(layer, parent):
    """A sub-layer built by its parent (not called) takes the parent's dtype, as Keras's
    configs show it."""
    if layer._dtype is None:
        layer._dtype = parent._dtype


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    return size if size is not None else _as_list(cell.state_size)[0]


def _cell_initial_state(cell, batch_size, dtype):
    if hasattr(cell, "get_initial_state"):
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return _zero_state(cell.state_size, batch_size, dtype)


def _call_cell(cell, inputs, states, training):
    if isinstance(cell, Layer) and "training" in _call_args(cell):
        return cell.call(inputs, states, training=training)
    return cell.call(inputs, states)


def _call_args(cell):
    try:
        return inspect.signature(cell.call).parameters
    except (TypeError, ValueError):
        return {}


_CELLS = {"SimpleRNNCell": SimpleRNNCell, "LSTMCell": LSTMCell, "GRUCell": GRUCell,
          "StackedRNNCells": StackedRNNCells}


def _deserialize_cell(config, custom_objects=None):
    classes = dict(_CELLS)
    classes.update(custom_objects or {})
    cls = classes.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Unknown cell: {config['class_name']}. Please ensure this object "
                         "is passed to the `custom_objects` argument.")
    return cls.from_config(config["config"])


# ── RNN ──────────────────────────────────────────────────────────────────────────────
class RNN(Layer):
    """Runs ``cell`` over the time dimension of ``[batch, time, ...]`` inputs; the output
    is the last step's (or every step's, ``return_sequences``), followed by the final
    states with ``return_state``. ``stateful`` keeps the final states in variables (a
    fixed batch size) for the next call; ``reset_states()`` zeroes them."""

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call"):
            raise ValueError("Argument `cell` should have a `call` method. The RNN was "
                             f"passed: cell={cell}")
        if not hasattr(cell, "state_size"):
            raise ValueError("The RNN cell should have a `state_size` attribute (tuple of "
                             "integers, one integer per RNN state). Received: "
                             f"cell={cell}")
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        if time_major:
            raise NotImplementedError(f"{type(self).__name__}: time_major=True is not "
                                      "supported")
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        self.supports_masking = True
        self.states = None
        self._num_constants = 0

    @property
    def _state_sizes(self):
        return _as_list(self.cell.state_size)

    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                not isinstance(input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        dims = _dims(input_shape)
        step_input_shape = TensorShape([dims[0]] + dims[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            # Keras's configs: the cells take the layer's dtype; a stack keeps its own.
            for cell in getattr(self.cell, "cells", [self.cell]):
                if isinstance(cell, Layer):
                    _inherit_dtype(cell, self)
            with name_scope(self.cell.name):
                self.cell.build(step_input_shape)
                self.cell.built = True
        if self.stateful:
            self._batch_size = dims[0]
            self.reset_states()
        self.built = True

    def get_initial_state(self, inputs):
        batch = array_ops.shape(inputs)[0]
        state = _cell_initial_state(self.cell, batch, inputs.dtype.base_dtype)
        return _as_list(state)

    def reset_states(self, states=None):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        batch = getattr(self, "_batch_size", None)
        if batch is None:
            raise ValueError(
                "If a RNN is stateful, it needs to know its batch size. Specify the batch "
                "size of your input tensors: \n- If using a Sequential model, specify the "
                "batch size by passing a `batch_input_shape` argument to your first layer.\n"
                "- If using the functional API, specify the batch size by passing a "
                "`batch_shape` argument to your Input layer.")
        if self.states is None:
            self.states = [K.zeros([batch] + _size_dims(size)) for size in self._state_sizes]
            return
        if states is None:
            K.batch_set_value([(s, np.zeros(s.shape.as_list(), np.float32))
                               for s in self.states])
            return
        states = _as_list(states)
        if len(states) != len(self.states):
            raise ValueError(f"Layer {self.name} expects {len(self.states)} states, but it "
                             f"received {len(states)} state values. States received: "
                             f"{states}")
        K.batch_set_value(list(zip(self.states, [np.asarray(v) for v in states])))

    def _split_inputs(self, inputs, initial_state):
        if isinstance(inputs, (list, tuple)):
            inputs = list(inputs)
            if len(inputs) > 1 and initial_state is None:
                initial_state = inputs[1:]
            inputs = inputs[0]
        return inputs, initial_state

    def call(self, inputs, mask=None, training=None, initial_state=None):
        inputs, initial_state = self._split_inputs(inputs, initial_state)
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if self.stateful:
            if initial_state is not None:
                raise NotImplementedError(f"{self.name}: initial_state with stateful=True")
            initial_state = [s.value() if hasattr(s, "value") else s for s in self.states]
        elif initial_state is None:
            initial_state = self.get_initial_state(inputs)
        initial_state = [convert_to_tensor(s) for s in _as_list(initial_state)]
        if len(initial_state) != len(self._state_sizes):
            raise ValueError(f"Layer has {len(self._state_sizes)} states but was passed "
                             f"{len(initial_state)} initial states.")
        dims = inputs.shape.as_list()
        if self.unroll and dims[1] is None:
            raise ValueError(
                "Cannot unroll a RNN if the time dimension is undefined. \n- If using a "
                "Sequential model, specify the time dimension by passing an `input_shape` "
                "or `batch_input_shape` argument to your first layer. If your first layer "
                "is an Embedding, you can also use the `input_length` argument.\n- If using "
                "the functional API, specify the time dimension by passing a `shape` or "
                "`batch_shape` argument to your Input layer.")
        if training is None:
            training = K.learning_phase()
        cell = self.cell
        if isinstance(cell, (_DropoutMixin, StackedRNNCells)):
            first_input = inputs[:, 0]
            cell._set_masks(first_input, initial_state[0], training)
        single_state = not isinstance(cell.state_size, (list, tuple))

        def step(input_t, states):
            cell_states = states[0] if single_state else states
            output, new_states = _call_cell(cell, input_t, cell_states, training)
            return output, _as_list(new_states)

        try:
            last_output, outputs, states = rnn(
                step, inputs, initial_state, _output_size(cell), go_backwards=self.go_backwards,
                mask=mask, unroll=self.unroll, zero_output_for_mask=self.zero_output_for_mask)
        finally:
            if isinstance(cell, (_DropoutMixin, StackedRNNCells)):
                cell._clear_masks()
        if self.stateful:
            self.add_update([state_ops.assign(v, s) for v, s in zip(self.states, states)])
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            return [output] + list(states)
        return output

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                not isinstance(input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        dims = _dims(input_shape)
        out = _size_dims(_output_size(self.cell))
        output_shape = TensorShape(dims[:2] + out if self.return_sequences
                                   else [dims[0]] + out)
        if self.return_state:
            return [output_shape] + [TensorShape([dims[0]] + _size_dims(s))
                                     for s in self._state_sizes]
        return output_shape

    def compute_mask(self, inputs, mask):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self._state_sizes)
        return output_mask

    def get_config(self):
        config = {"return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards,
                  "stateful": self.stateful, "unroll": self.unroll,
                  "time_major": self.time_major}
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = self.zero_output_for_mask
        config["cell"] = {"class_name": type(self.cell).__name__,
                          "config": self.cell.get_config()}
        return _merged_config(self, config)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = _deserialize_cell(config.pop("cell"), custom_objects)
        return cls(cell, **config)


# ── SimpleRNN, LSTM, GRU: an RNN over their cell ─────────────────────────────────────
_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "time_major", "zero_output_for_mask")
_LAYER_ARGS = ("name", "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size",
               "weights", "activity_regularizer", "input_dim", "input_length")


class _CellLayer(RNN):
    """An RNN made around a cell of ``_cell_class`` from the layer's own arguments; the
    cell's arguments are the layer's attributes."""

    _cell_class = None
    _cell_name = None

    def __init__(self, units, cell_kwargs, rnn_kwargs):
        if "implementation" in cell_kwargs and cell_kwargs["implementation"] == 0:
            cell_kwargs["implementation"] = 1
        input_dim = rnn_kwargs.pop("input_dim", None)
        input_length = rnn_kwargs.pop("input_length", None)
        if input_dim is not None:
            rnn_kwargs["input_shape"] = (input_length, input_dim)
        cell = self._cell_class(units, name=self._cell_name,
                                dtype=rnn_kwargs.get("dtype"),
                                trainable=rnn_kwargs.get("trainable", True), **cell_kwargs)
        super().__init__(cell, **rnn_kwargs)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        return super().call(inputs, mask=mask, training=training, initial_state=initial_state)

    def __getattr__(self, name):
        # units, activation, dropout, ...: the cell's.
        if name.startswith("_") or name in ("cell",):
            raise AttributeError(name)
        cell = self.__dict__.get("cell")
        if cell is not None and hasattr(cell, name):
            return getattr(cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def get_config(self):
        config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            config.pop(key, None)
        base = RNN.get_config(self)
        base.pop("cell")
        base.update(config)
        base["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return base

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


def _split_kwargs(kwargs):
    rnn_kwargs = {k: v for k, v in kwargs.items() if k in _RNN_ARGS or k in _LAYER_ARGS}
    unknown = set(kwargs) - set(rnn_kwargs)
    if unknown:
        raise TypeError("Keyword argument not understood:", sorted(unknown)[0])
    return rnn_kwargs


class SimpleRNN(_CellLayer):
    """A fully-connected RNN: ``SimpleRNNCell`` over time."""

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, **kwargs):
        kwargs.pop("implementation", None)
        cell_kwargs = dict(
            activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout)
        rnn_kwargs = _split_kwargs(dict(kwargs, return_sequences=return_sequences,
                                        return_state=return_state, go_backwards=go_backwards,
                                        stateful=stateful, unroll=unroll,
                                        activity_regularizer=activity_regularizer))
        super().__init__(units, cell_kwargs, rnn_kwargs)


class LSTM(_CellLayer):
    """Long short-term memory (TF1's V1 ``LSTM``): ``LSTMCell`` over time; states
    ``[h, c]``."""

    _cell_class, _cell_name = LSTMCell, "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, implementation=1, return_sequences=False,
                 return_state=False, go_backwards=False, stateful=False, unroll=False,
                 **kwargs):
        cell_kwargs = dict(
            activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, implementation=implementation)
        rnn_kwargs = _split_kwargs(dict(kwargs, return_sequences=return_sequences,
                                        return_state=return_state, go_backwards=go_backwards,
                                        stateful=stateful, unroll=unroll,
                                        activity_regularizer=activity_regularizer))
        super().__init__(units, cell_kwargs, rnn_kwargs)


class GRU(_CellLayer):
    """Gated recurrent unit (TF1's V1 ``GRU``, ``reset_after=False``): ``GRUCell`` over
    time."""

    _cell_class, _cell_name = GRUCell, "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=1,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, reset_after=False, **kwargs):
        cell_kwargs = dict(
            activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout,
            implementation=implementation, reset_after=reset_after)
        rnn_kwargs = _split_kwargs(dict(kwargs, return_sequences=return_sequences,
                                        return_state=return_state, go_backwards=go_backwards,
                                        stateful=stateful, unroll=unroll,
                                        activity_regularizer=activity_regularizer))
        super().__init__(units, cell_kwargs, rnn_kwargs)

