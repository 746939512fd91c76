"""``tf.nn.rnn_cell``: TF1's RNN cells, built from existing ops (MatMul, BiasAdd, Split...).

A cell is a layer (``scopeflow/layers/base.py``): it captures its variable scope on its
first call, inside the caller's (``rnn/basic_lstm_cell``), builds its weights there with
TF's names and shapes (``kernel`` ``[input_depth + num_units, 4 * num_units]``, ``bias``),
and re-enters that scope with ``reuse=True`` on later calls (each time step of
``tf.nn.static_rnn``). ``MultiRNNCell`` opens ``cell_0``, ``cell_1``... under its own
scope, as TF's.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import numbers

from scopeflow.framework import tensor_util
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.dtypes import as_dtype
from scopeflow.framework.graph import (
    GraphKeys,
    convert_to_tensor,
    device,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.nest import flatten, is_sequence, map_structure
from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.layers.base import Layer
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.nn import conv_ops, nn_composites
from scopeflow.ops.random import random_ops
from scopeflow.ops.state import init_ops
from scopeflow.state.partitioned_variables import fixed_size_partitioner
from scopeflow.state.partitioning import PartitionedVariable
from scopeflow.state.variable_scope import get_variable_scope, variable_scope

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "DropoutWrapper", "ResidualWrapper", "DeviceWrapper", "LSTMStateTuple"]


# Nested state structures: TF's ``nest`` (framework.nest).
_is_sequence = is_sequence


# ── LSTMStateTuple ───────────────────────────────────────────────────────────────────
class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM cell's state ``(c, h)``: the memory cell, and the output."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _batch_shape(batch_size, size):
    """``[batch_size] + size``; ``size`` an int or (for cells on inputs of higher rank) a
    ``TensorShape``."""
    dims = [int(d) for d in TensorShape(size).as_list()] if isinstance(size, TensorShape) \
        else [int(size)]
    static = tensor_util.constant_value(batch_size) if hasattr(batch_size, "op") else batch_size
    if static is not None:
        return [int(static)] + dims
    return array_ops.stack([batch_size] + dims)


# ── RNNCell: the base ────────────────────────────────────────────────────────────────
class RNNCell(Layer):
    """TF1's abstract cell: ``output, new_state = cell(inputs, state)``; subclasses define
    ``state_size``, ``output_size``, ``build`` and ``call(inputs, state)``."""

    _float_only = False  # TF's own cells (tanh/sigmoid inside) refuse integer dtypes

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        if self._float_only:
            _check_supported_dtype(dtype)

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def __call__(self, inputs, state, scope=None):
        """Builds the cell on its first call, in its captured scope, then runs one step."""
        if scope is not None and self._scope is None:
            with variable_scope(scope) as captured:
                self._scope = captured
        self._set_scope()
        inputs = convert_to_tensor(inputs)
        if self._float_only:
            for t in [inputs, *flatten(state)]:
                _check_supported_dtype(t.dtype)
        with self._call_scope(inputs):
            return self.call(inputs, state)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None):
        """As ``Layer.add_weight``; a weight a custom getter made non-trainable (it is not
        in ``TRAINABLE_VARIABLES``) counts as non-trainable, as in TF's cells."""
        variable = super().add_weight(name, shape, dtype, initializer, regularizer,
                                      trainable, constraint)
        if any(w is variable for w in self._trainable_weights):
            collection = get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
            parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
            if not all(any(p is v for v in collection) for p in parts):
                self._trainable_weights.remove(variable)
                self._non_trainable_weights.append(variable)
        return variable

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """``zero_state`` for ``inputs``' batch size and dtype (or the ones given)."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                static = tensor_util.constant_value(batch_size) \
                    if hasattr(batch_size, "op") else batch_size
                if inputs.shape[0].value != static:
                    raise ValueError("batch size from input tensor is different from the "
                                     f"input param. Input tensor batch: "
                                     f"{inputs.shape[0].value}, batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError("dtype from input tensor is different from the input param. "
                                 f"Input tensor dtype: {inputs.dtype}, dtype: {dtype}")
            batch_size = inputs.shape[0].value or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             f"state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros shaped ``[batch_size, s]`` for each ``s`` in ``state_size``, nested as it."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return map_structure(
                lambda size: array_ops.zeros(_batch_shape(batch_size, size), dtype=dtype),
                self.state_size)


def _check_supported_dtype(dtype):
    if dtype is not None and not (as_dtype(dtype).is_floating or as_dtype(dtype).is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but received dtype: "
                         f"{as_dtype(dtype)}")


def _input_depth(cell, input_shape):
    depth = input_shape[-1].value if input_shape.ndims else None
    if depth is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: "
                         f"{input_shape}")
    return depth


# ── BasicRNNCell ─────────────────────────────────────────────────────────────────────
class BasicRNNCell(RNNCell):
    """``output = new_state = activation(concat([inputs, state]) @ kernel + bias)``."""

    _float_only = True

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None,
                 **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._activation = activation or math_ops.tanh

    state_size = read_only("_num_units")
    output_size = read_only("_num_units")

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_weight("kernel", [depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", [self._num_units],
                                     initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(conv_ops.bias_add(gate_inputs, self._bias))
        return output, output


# ── GRUCell ──────────────────────────────────────────────────────────────────────────
class GRUCell(RNNCell):
    """A gated recurrent unit: ``gates/`` (reset, update) and ``candidate/`` weights."""

    _float_only = True

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = read_only("_num_units")
    output_size = read_only("_num_units")

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        units = self._num_units
        # TF's "gates/kernel" names (not a nested variable scope), so that build() called
        # directly names them in the cell's scope too
        self._gate_kernel = self.add_weight(
            "gates/kernel", [depth + units, 2 * units], initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            "gates/bias", [2 * units], initializer=(self._bias_initializer or
                                                    init_ops.constant_initializer(1.0)))
        self._candidate_kernel = self.add_weight(
            "candidate/kernel", [depth + units, units], initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            "candidate/bias", [units], initializer=(self._bias_initializer or
                                                    init_ops.zeros_initializer()))

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        value = math_ops.sigmoid(conv_ops.bias_add(gate_inputs, self._gate_bias))
        r, u = array_ops.split(value, 2, axis=1)
        candidate = math_ops.matmul(array_ops.concat([inputs, r * state], 1),
                                    self._candidate_kernel)
        c = self._activation(conv_ops.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


# ── BasicLSTMCell ────────────────────────────────────────────────────────────────────
class BasicLSTMCell(RNNCell):
    """An LSTM without peepholes or projection; gates ``i, j, f, o`` in that order in the
    kernel's columns, ``forget_bias`` added to ``f``."""

    _float_only = True

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = int(num_units)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        units = self._num_units
        return LSTMStateTuple(units, units) if self._state_is_tuple else 2 * units

    output_size = read_only("_num_units")

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        units = self._num_units
        self._kernel = self.add_weight("kernel", [depth + units, 4 * units])
        self._bias = self.add_weight("bias", [4 * units],
                                     initializer=init_ops.zeros_initializer())

    def call(self, inputs, state):
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(state, 2, axis=1)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = conv_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(gate_inputs, 4, axis=1)
        forget_bias = constant(self._forget_bias, dtype=f.dtype)
        add, multiply, sigmoid = math_ops.add, math_ops.multiply, math_ops.sigmoid
        new_c = add(multiply(c, sigmoid(add(f, forget_bias))),
                    multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, array_ops.concat([new_c, new_h], 1)


# ── MultiRNNCell ─────────────────────────────────────────────────────────────────────
class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input, under ``cell_<i>``."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(_is_sequence(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag "
                             "state_is_tuple is not set.  State sizes are: "
                             f"{[c.state_size for c in self._cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    output_size = property(lambda self: self._cells[-1].output_size)

    # the stacked cells are the layer's sub-layers: their weights are its weights
    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for c in self._cells for w in c.trainable_weights] + \
            list(self._trainable_weights)

    @property
    def non_trainable_weights(self):
        own = self._non_trainable_weights + ([] if self.trainable
                                             else self._trainable_weights)
        if not self.trainable:
            return [w for c in self._cells for w in c.weights] + own
        return [w for c in self._cells for w in c.non_trainable_weights] + own

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    variables = weights

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    def call(self, inputs, state):
        current = inputs
        new_states = []
        start = 0
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not _is_sequence(state):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self.state_size)}, but received: {state}")
                    cell_state = state[i]
                else:
                    size = cell.state_size
                    cell_state = array_ops.slice(state, [0, start], [-1, size])
                    start += size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, array_ops.concat(new_states, 1)


# ── LSTMCell ─────────────────────────────────────────────────────────────────────────
class LSTMCell(RNNCell):
    """An LSTM with optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``), a
    projection of the output (``projection/kernel``) and clipping of ``c`` and of the
    projected output."""

    _float_only = True

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._num_units = int(num_units)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = None if num_proj is None else int(num_proj)
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        units, out = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(units, out) if self._state_is_tuple else units + out

    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        units = self._num_units
        h_depth = self._num_proj or units
        # deprecated in TF but still honoured: the shards are a PartitionedVariable
        # (kernel/part_0, ...) split on axis 0, which the matmuls read concatenated
        with _partitioned(self._num_unit_shards):
            self._kernel = self.add_weight("kernel", [depth + h_depth, 4 * units],
                                           initializer=self._initializer)
        self._bias = self.add_weight("bias", [4 * units],
                                     initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", [units], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", [units], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", [units], initializer=self._initializer)
        if self._num_proj is not None:
            with variable_scope("projection"), _partitioned(self._num_proj_shards):
                self._proj_kernel = self.add_weight("kernel", [units, self._num_proj],
                                                    initializer=self._initializer)

    def call(self, inputs, state):
        units = self._num_units
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, units])
            m_prev = array_ops.slice(state, [0, units], [-1, self._num_proj or units])
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = conv_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(lstm_matrix, 4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = (sigmoid(f + self._forget_bias) * c_prev
                 + sigmoid(i) * self._activation(j))
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        if self._state_is_tuple:
            return m, LSTMStateTuple(c, m)
        return m, array_ops.concat([c, m], 1)


def _partitioned(num_shards):
    """The current variable scope, with a fixed-size partitioner when ``num_shards``."""
    if num_shards is None:
        return contextlib.nullcontext()
    return variable_scope(get_variable_scope(), partitioner=fixed_size_partitioner(num_shards),
                          auxiliary_name_scope=False)


# ── wrappers: no scope of their own; the wrapped cell's variables keep their names ───
class _Wrapper(RNNCell):
    def __init__(self, cell):
        super().__init__(name=None)
        self._cell = cell

    cell = read_only("_cell")
    state_size = read_only("_cell.state_size")
    output_size = read_only("_cell.output_size")
    trainable_weights = read_only("_cell.trainable_weights")
    non_trainable_weights = read_only("_cell.non_trainable_weights")
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    weights = read_only("_cell.weights")
    variables = weights

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)


def _check_keep_prob(name, value):
    if isinstance(value, numbers.Real) and not 0 <= value <= 1:
        raise ValueError(f"Parameter {name} must be between 0 and 1. Received {value}")
    return value


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and new state (each leaf of the state but an
    ``LSTMStateTuple``'s ``c``). Each leaf's op seed is TF's: the first 31 bits of
    ``md5(str(seed) + "<input|state|output>_<leaf index>")``, so masks are TF's."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        if dropout_state_filter_visitor is not None:
            raise NotImplementedError("DropoutWrapper's dropout_state_filter_visitor")
        self._input_keep_prob = _check_keep_prob("input_keep_prob", input_keep_prob)
        self._output_keep_prob = _check_keep_prob("output_keep_prob", output_keep_prob)
        self._state_keep_prob = _check_keep_prob("state_keep_prob", state_keep_prob)
        self._seed = seed
        self._variational_recurrent = variational_recurrent
        self._noise = {}
        if variational_recurrent:
            # one uniform noise per leaf, shaped [1, size], made here once: every step and
            # every row of the batch then drops the same units (TF's variational dropout)
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(salt_prefix, structure):
                return [random_ops.random_uniform(
                            [1] + _dims_of(size), seed=self._gen_seed(salt_prefix, i),
                            dtype=dtype)
                        for i, size in enumerate(_size_leaves(structure))]

            if not isinstance(input_keep_prob, numbers.Real) or input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < "
                                     "1.0 or is unknown, input_size must be provided")
                self._noise["input"] = batch_noise("input", input_size)
            self._noise["state"] = batch_noise("state", cell.state_size)
            self._noise["output"] = batch_noise("output", cell.output_size)

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        digest = hashlib.md5(f"{self._seed}{salt_prefix}_{index}".encode()).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, keep_prob):
        leaves = _dropout_leaves(values)
        if self._variational_recurrent:
            noise = self._noise[salt_prefix]
            dropped = [_variational_dropout(v, noise[i], keep_prob) if keep else v
                       for i, (v, keep) in enumerate(leaves)]
        else:
            dropped = [nn_composites.dropout(v, rate=1.0 - keep_prob,
                                             seed=self._gen_seed(salt_prefix, i))
                       if keep else v
                       for i, (v, keep) in enumerate(leaves)]
        return _pack_like(values, dropped)

    def __call__(self, inputs, state, scope=None):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = self._cell(inputs, state, scope=scope)
        if should_dropout(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._state_keep_prob)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _dims_of(size):
    return TensorShape(size).as_list() if isinstance(size, TensorShape) else [int(size)]


def _size_leaves(structure):
    """The leaves of a (state or output) size structure; a TensorShape is one leaf."""
    if isinstance(structure, TensorShape) or not _is_sequence(structure):
        return [structure]
    return [leaf for item in structure for leaf in _size_leaves(item)]


def _variational_dropout(value, noise, keep_prob):
    """``value / keep_prob`` where ``keep_prob + noise >= 1``, else 0 (TF's mask rule)."""
    out = math_ops.divide(value, keep_prob) * math_ops.floor(keep_prob + noise)
    out.set_shape(value.shape)
    return out


def _dropout_leaves(structure, keep=True):
    """(leaf, whether DropoutWrapper drops it) depth first: all but an LSTMStateTuple's c."""
    if isinstance(structure, LSTMStateTuple):
        return _dropout_leaves(structure.c, False) + _dropout_leaves(structure.h, keep)
    if _is_sequence(structure):
        return [leaf for item in structure for leaf in _dropout_leaves(item, keep)]
    return [(structure, keep)]


def _pack_like(structure, leaves):
    leaves = iter(leaves)
    packed = map_structure(lambda _: next(leaves), structure)
    return packed


class ResidualWrapper(_Wrapper):
    """The wrapped cell's output plus its input (``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def __call__(self, inputs, state, scope=None):
        outputs, new_state = self._cell(inputs, state, scope=scope)

        def default_residual_fn(inputs, outputs):
            def add(inp, out):
                inp.shape.assert_is_compatible_with(out.shape)
                return inp + out
            return map_structure(add, inputs, outputs)

        residual_fn = self._residual_fn or default_residual_fn
        return residual_fn(inputs, outputs), new_state


class DeviceWrapper(_Wrapper):
    """Runs the wrapped cell (and its zero state) under ``tf.device(device)``: its ops and
    variables get the device string. On a CPU-only machine that is all it does, as TF."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell)
        if "name" in kwargs:
            self._name = kwargs["name"]
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        with device(self._device):
            return self._cell(inputs, state, scope=scope)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
