"""``tf.contrib.seq2seq``'s attention, as TF 1.15 had it (contrib/seq2seq/.../attention_wrapper.py).

An attention mechanism holds the encoder's memory (``values``, rows past
``memory_sequence_length`` zeroed) and its ``keys`` (the memory through ``memory_layer``, a
bias-free Dense built at construction, so its variable is ``memory_layer/kernel`` in the
caller's scope). Called with a query (the decoder cell's output) and its previous state, it
scores every memory step (Bahdanau: ``v . tanh(keys + query_layer(query))``; Luong:
``query . keys``), masks the steps past the lengths with ``score_mask_value`` (-inf) and
turns the scores into alignments with ``probability_fn`` (softmax). ``AttentionWrapper`` is
an RNN cell that feeds ``[inputs, previous attention]`` to the wrapped cell, scores its
output, and returns the context (``alignments @ values``), through ``attention_layer`` when
``attention_layer_size`` is given. Its scope is ``attention_wrapper``; the scoring weights
live under ``attention_wrapper/bahdanau_attention/`` (``query_layer/kernel``,
``attention_v``, ``attention_g``, ``attention_b``) or ``.../luong_attention/attention_g``,
and the output layer at ``attention_wrapper/attention_layer/kernel``, TF's names, so that
TF 1.x checkpoints load.
"""

from __future__ import annotations

import collections
import functools
import math

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.nest import flatten, map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.layers.base import Layer
from scopeflow.layers.core import Dense
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.control_flow import functional_ops
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math import reduction_ops, scan_ops
from scopeflow.ops.random import random_ops
from scopeflow.ops.state import init_ops
from scopeflow.rnn.rnn_cell import RNNCell
from scopeflow.state.variable_scope import get_variable, variable_scope

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "LuongAttention", "BahdanauAttention", "hardmax", "safe_cumprod",
           "monotonic_attention", "BahdanauMonotonicAttention", "LuongMonotonicAttention"]


def _dim(tensor, axis):
    """A dimension of ``tensor``: static when known, else read from its shape at run time."""
    shape = tensor.shape
    static = shape[axis].value if shape.ndims is not None else None
    return static if static is not None else array_ops.shape(tensor)[axis]


def _zeros(size, batch_size, dtype):
    """TF's ``_zero_state_tensors`` for one size: zeros ``[batch_size, size]``."""
    if isinstance(batch_size, int) and isinstance(size, int):
        return array_ops.zeros([batch_size, size], dtype=dtype)
    return array_ops.zeros(array_ops.stack([batch_size, size]), dtype=dtype)


class AttentionMechanism:
    """The base every attention mechanism derives from (``AttentionWrapper`` checks it)."""

    @property
    def alignments_size(self):
        raise NotImplementedError

    @property
    def state_size(self):
        raise NotImplementedError


def _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined):
    """The memory as tensors, rows past ``memory_sequence_length`` zeroed (TF checks at run
    time that the lengths' batch matches the memory's)."""
    memory = map_structure(lambda m: convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is not None:
        memory_sequence_length = convert_to_tensor(memory_sequence_length,
                                                   name="memory_sequence_length")
    if check_inner_dims_defined:
        for m in flatten(memory):
            if m.shape.ndims is None or not TensorShape(m.shape.dims[2:]).is_fully_defined():
                raise ValueError(f"Expected memory {m.name} to have fully defined inner dims, "
                                 f"but saw shape: {m.shape}")
    if memory_sequence_length is None:
        return memory
    first = flatten(memory)[0]
    mask = array_ops.sequence_mask(memory_sequence_length, maxlen=array_ops.shape(first)[1],
                                   dtype=first.dtype)
    lengths_batch = _dim(memory_sequence_length, 0)

    def masked(m):
        rank = m.shape.ndims if m.shape.ndims is not None else array_ops.rank(m)
        extra_ones = array_ops.ones(rank - 2, dtype=dtypes.int32)
        message = "memory_sequence_length and memory tensor batch sizes do not match."
        with control_dependencies([check_ops.assert_equal(lengths_batch, _dim(m, 0),
                                                          message=message)]):
            m_mask = array_ops.reshape(
                mask, array_ops.concat((array_ops.shape(mask), extra_ones), 0))
            return m * m_mask

    return map_structure(masked, memory)


def _maybe_mask_score(score, memory_sequence_length, score_mask_value):
    """Scores past each row's length replaced by ``score_mask_value`` (after TF's run-time
    check that every length is positive)."""
    if memory_sequence_length is None:
        return score
    message = "All values in memory_sequence_length must greater than zero."
    with control_dependencies([check_ops.assert_positive(memory_sequence_length,
                                                         message=message)]):
        score_mask = array_ops.sequence_mask(memory_sequence_length,
                                             maxlen=array_ops.shape(score)[1])
        score_mask_values = score_mask_value * array_ops.ones_like(score)
        return reduction_ops.where(score_mask, score, score_mask_values)


class _BaseAttentionMechanism(AttentionMechanism):
    """Holds the query and memory layers and the prepared memory (``values``) and ``keys``."""

    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None,
                 memory_layer=None, check_inner_dims_defined=True, score_mask_value=None,
                 custom_key_value_fn=None, name=None):
        for what, layer in (("query_layer", query_layer), ("memory_layer", memory_layer)):
            if layer is not None and not isinstance(layer, Layer):
                raise TypeError(f"{what} is not a Layer: {type(layer).__name__}")
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype
        if not callable(probability_fn):
            raise TypeError("probability_fn must be callable, saw type: "
                            f"{type(probability_fn).__name__}")
        if score_mask_value is None:
            score_mask_value = dtypes.as_dtype(self.dtype).as_numpy_dtype(-np.inf)
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, memory_sequence_length, score_mask_value), prev)
        with name_scope(name or "BaseAttentionMechanismInit"):
            self._values = _prepare_memory(memory, memory_sequence_length,
                                           check_inner_dims_defined)
            self._keys = self.memory_layer(self._values) if self.memory_layer \
                else self._values
            if custom_key_value_fn is not None:
                self._keys, self._values = custom_key_value_fn(self._keys, self._values)
            self._batch_size = _dim(self._keys, 0)
            self._alignments_size = _dim(self._keys, 1)

    memory_layer = property(lambda self: self._memory_layer)
    query_layer = property(lambda self: self._query_layer)
    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)
    batch_size = property(lambda self: self._batch_size)
    alignments_size = property(lambda self: self._alignments_size)
    state_size = property(lambda self: self._alignments_size)

    def initial_alignments(self, batch_size, dtype):
        """Zeros ``[batch_size, alignments_size]``: softmax attention ignores the previous
        alignments (monotonic attention starts from a one-hot instead)."""
        return _zeros(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size, dtype):
        """The mechanism's state at the first step: its initial alignments."""
        return self.initial_alignments(batch_size, dtype)


def _luong_score(query, keys, attention_g):
    """``query . keys`` over the units axis (times ``attention_g`` when scaled):
    ``[batch, max_time]``."""
    depth = query.shape[-1].value
    key_units = keys.shape[-1].value
    if depth != key_units:
        raise ValueError(
            "Incompatible or unknown inner dimensions between query and keys.  "
            f"Query ({query}) has units: {depth}.  Keys ({keys}) have units: {key_units}.  "
            f"Perhaps you need to set num_units to the keys' dimension ({key_units})?")
    score = math_ops.matmul(array_ops.expand_dims(query, 1), keys, transpose_b=True)
    score = array_ops.squeeze(score, [1])
    if attention_g is not None:
        score = attention_g * score
    return score


class LuongAttention(_BaseAttentionMechanism):
    """Luong's multiplicative attention (EMNLP 2015); ``scale=True`` multiplies the score
    by a learned scalar ``attention_g`` (initially 1). Only the memory goes through a
    layer, so ``num_units`` must equal the query's depth."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="LuongAttention"):
        probability_fn = probability_fn or nn_ops.softmax
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=None,
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value, custom_key_value_fn=custom_key_value_fn,
            name=name)
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query, state):
        """``(alignments, next_state)`` for ``query`` ``[batch, num_units]``; the next
        state is the alignments."""
        with variable_scope(None, default_name="luong_attention", values=[query]):
            attention_g = None
            if self._scale:
                attention_g = get_variable("attention_g", shape=(), dtype=query.dtype,
                                           initializer=init_ops.ones_initializer())
            score = _luong_score(query, self._keys, attention_g)
        alignments = self._probability_fn(score, state)
        return alignments, alignments



def _bahdanau_score_in_scope(mechanism, processed_query):
    """The Bahdanau score of a (monotonic) Bahdanau mechanism, its variables
    (``attention_v``; ``attention_g``/``attention_b`` when normalized) made in the current
    scope as TF 1.15 makes them."""
    dtype, units = processed_query.dtype, mechanism._num_units
    attention_v = get_variable("attention_v", [units], dtype=dtype)
    attention_g = attention_b = None
    if mechanism._normalize:
        attention_g = get_variable(
            "attention_g", shape=(), dtype=dtype,
            initializer=init_ops.constant_initializer(math.sqrt(1. / units)))
        attention_b = get_variable("attention_b", [units], dtype=dtype,
                                   initializer=init_ops.zeros_initializer())
    return _bahdanau_score(processed_query, mechanism._keys, attention_v,
                           attention_g=attention_g, attention_b=attention_b)

def _bahdanau_score(processed_query, keys, attention_v, attention_g=None,
                    attention_b=None):
    """``sum(v * tanh(keys + query))`` over the units axis; normalized, ``v`` is
    ``g * v / ||v||`` and a bias is added inside the tanh (Salimans & Kingma's weight
    normalization)."""
    processed_query = array_ops.expand_dims(processed_query, 1)
    if attention_g is not None and attention_b is not None:
        normed_v = attention_g * attention_v * math_ops.rsqrt(
            math_ops.reduce_sum(math_ops.square(attention_v)))
        return math_ops.reduce_sum(
            normed_v * math_ops.tanh(keys + processed_query + attention_b), [2])
    return math_ops.reduce_sum(attention_v * math_ops.tanh(keys + processed_query), [2])


class BahdanauAttention(_BaseAttentionMechanism):
    """Bahdanau's additive attention (ICLR 2015), ``normalize=True`` its weight-normalized
    form; the query goes through ``query_layer`` and the memory through ``memory_layer``
    (both bias-free Dense layers of ``num_units``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="BahdanauAttention"):
        probability_fn = probability_fn or nn_ops.softmax
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value, custom_key_value_fn=custom_key_value_fn,
            name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query, state):
        """``(alignments, next_state)`` for ``query`` ``[batch, query_depth]``."""
        with variable_scope(None, default_name="bahdanau_attention", values=[query]):
            processed_query = self.query_layer(query) if self.query_layer else query
            score = _bahdanau_score_in_scope(self, processed_query)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def safe_cumprod(x, *args, **kwargs):
    """``cumprod`` as ``exp(cumsum(log(x)))`` with ``x`` clipped to ``[tiny, 1]``: stable
    (and with a usable gradient) where ``x`` has very small or zero entries. ``args`` and
    ``kwargs`` are ``cumsum``'s (``axis``, ``exclusive``, ``reverse``)."""
    with name_scope("SafeCumprod"):
        x = convert_to_tensor(x, name="x")
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        return math_ops.exp(scan_ops.cumsum(
            math_ops.log(math_ops.clip_by_value(x, tiny, 1)), *args, **kwargs))


def hardmax(logits, name=None):
    """One-hot vectors (in ``logits``' dtype) at the maximum of the last axis."""
    with name_scope(name or "Hardmax"):
        logits = convert_to_tensor(logits, name="logits")
        depth = _dim(logits, -1)
        return array_ops.one_hot(math_ops.argmax(logits, -1), depth, dtype=logits.dtype)


def monotonic_attention(p_choose_i, previous_attention, mode):
    """The monotonic attention distribution (Raffel et al., ICML 2017) from the choosing
    probabilities ``p_choose_i`` and the previous step's attention, both ``[batch, time]``.

    ``mode``: ``'recursive'`` (a ``scan`` over time: exact), ``'parallel'`` (closed form
    with cumulative sums and products: faster, clipped against division by zero) or
    ``'hard'`` (``p_choose_i`` all 0 or 1: exact and cheap).
    """
    p_choose_i = convert_to_tensor(p_choose_i, name="p_choose_i")
    previous_attention = convert_to_tensor(previous_attention, name="previous_attention")
    if mode == "recursive":
        batch_size = _dim(p_choose_i, 0)
        # [1, 1 - p[0], ..., 1 - p[-2]]; q[i] = (1 - p[i-1]) q[i-1] + previous[i]
        shifted_1mp_choose_i = array_ops.concat(
            [array_ops.ones((batch_size, 1)), 1 - p_choose_i[:, :-1]], 1)
        q = functional_ops.scan(
            lambda x, yz: array_ops.reshape(yz[0] * x + yz[1], (batch_size,)),
            [array_ops.transpose(shifted_1mp_choose_i),
             array_ops.transpose(previous_attention)],
            array_ops.zeros((batch_size,)))
        return p_choose_i * array_ops.transpose(q)
    if mode == "parallel":
        cumprod_1mp_choose_i = safe_cumprod(1 - p_choose_i, axis=1, exclusive=True)
        return p_choose_i * cumprod_1mp_choose_i * scan_ops.cumsum(
            previous_attention / math_ops.clip_by_value(cumprod_1mp_choose_i, 1e-10, 1.),
            axis=1)
    if mode == "hard":
        # drop the steps before the last chosen one, then keep only the first chosen after
        p_choose_i *= scan_ops.cumsum(previous_attention, axis=1)
        return p_choose_i * scan_ops.cumprod(1 - p_choose_i, axis=1, exclusive=True)
    raise ValueError("mode must be 'recursive', 'parallel', or 'hard'.")


def _monotonic_probability_fn(score, previous_alignments, sigmoid_noise, mode, seed=None):
    """Scores to monotonic alignments: optional pre-sigmoid Gaussian noise (pushes the
    choices towards 0/1 in training), a sigmoid (a step for ``'hard'``), then
    ``monotonic_attention``."""
    if sigmoid_noise > 0:
        noise = random_ops.random_normal(array_ops.shape(score), dtype=score.dtype, seed=seed)
        score += sigmoid_noise * noise
    if mode == "hard":
        p_choose_i = math_ops.cast(score > 0, score.dtype)
    else:
        p_choose_i = math_ops.sigmoid(score)
    return monotonic_attention(p_choose_i, previous_alignments, mode)


class _BaseMonotonicAttentionMechanism(_BaseAttentionMechanism):
    """Monotonic attention starts from a Dirac at the first memory step (its recurrence
    needs the previous alignments to sum to one)."""

    def initial_alignments(self, batch_size, dtype):
        """One-hot at step 0: ``[batch_size, alignments_size]``."""
        return array_ops.one_hot(array_ops.zeros((batch_size,), dtype=dtypes.int32),
                                 self._alignments_size, dtype=dtype)


def _monotonic_fn(sigmoid_noise, sigmoid_noise_seed, mode):
    return functools.partial(_monotonic_probability_fn, sigmoid_noise=sigmoid_noise,
                             mode=mode, seed=sigmoid_noise_seed)


def _score_bias(dtype, init):
    """The learned scalar added to the scores before the sigmoid (``score_bias_init``:
    negative for long memories)."""
    return get_variable("attention_score_bias", dtype=dtype, initializer=init)


class BahdanauMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Bahdanau's additive score plus a learned bias, through monotonic attention instead
    of a softmax."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 score_mask_value=None, sigmoid_noise=0., sigmoid_noise_seed=None,
                 score_bias_init=0., mode="parallel", dtype=None,
                 name="BahdanauMonotonicAttention"):
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=_monotonic_fn(sigmoid_noise, sigmoid_noise_seed, mode),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value, name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name
        self._score_bias_init = score_bias_init

    def __call__(self, query, state):
        """``(alignments, next_state)``; the next state is the alignments."""
        with variable_scope(None, default_name="bahdanau_monotonic_attention",
                            values=[query]):
            processed_query = self.query_layer(query) if self.query_layer else query
            score = _bahdanau_score_in_scope(self, processed_query)
            score += _score_bias(processed_query.dtype, self._score_bias_init)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class LuongMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Luong's multiplicative score plus a learned bias, through monotonic attention."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 score_mask_value=None, sigmoid_noise=0., sigmoid_noise_seed=None,
                 score_bias_init=0., mode="parallel", dtype=None,
                 name="LuongMonotonicAttention"):
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=None,
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=_monotonic_fn(sigmoid_noise, sigmoid_noise_seed, mode),
            memory_sequence_length=memory_sequence_length,
            score_mask_value=score_mask_value, name=name)
        self._num_units = num_units
        self._scale = scale
        self._score_bias_init = score_bias_init
        self._name = name

    def __call__(self, query, state):
        """``(alignments, next_state)``; the next state is the alignments."""
        with variable_scope(None, default_name="luong_monotonic_attention", values=[query]):
            attention_g = None
            if self._scale:
                attention_g = get_variable("attention_g", shape=(), dtype=query.dtype,
                                           initializer=init_ops.ones_initializer())
            score = _luong_score(query, self._keys, attention_g)
            score += _score_bias(query.dtype, self._score_bias_init)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments",
                                  "alignment_history", "attention_state"))):
    """An ``AttentionWrapper``'s state: the wrapped cell's state, the last attention, the
    step, the alignments (a tuple with several mechanisms), the alignment history (a
    TensorArray, or ``()`` when not kept) and the mechanisms' states."""

    __slots__ = ()

    def clone(self, **kwargs):
        """This state with the given fields replaced (``state.clone(cell_state=enc)``); a
        replacing tensor takes the static shape of the one it replaces, as TF's."""
        def with_same_shape(old, new):
            if hasattr(old, "shape") and hasattr(new, "set_shape") and \
                    not isinstance(old, TensorArray):
                new.set_shape(old.shape)
            return new

        return map_structure(with_same_shape, self, super()._replace(**kwargs))


def _compute_attention(attention_mechanism, cell_output, attention_state, attention_layer):
    """One mechanism's ``(attention, alignments, next_attention_state)``: the context is
    ``alignments @ values``, through ``attention_layer`` with the cell output when given."""
    alignments, next_attention_state = attention_mechanism(cell_output, state=attention_state)
    context = math_ops.matmul(array_ops.expand_dims(alignments, 1), attention_mechanism.values)
    context = array_ops.squeeze(context, [1])
    if attention_layer is not None:
        attention = attention_layer(array_ops.concat([cell_output, context], 1))
    else:
        attention = context
    return attention, alignments, next_attention_state


def _as_tuple(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _check_mechanisms(attention_mechanism):
    if isinstance(attention_mechanism, (list, tuple)):
        for mechanism in attention_mechanism:
            if not isinstance(mechanism, AttentionMechanism):
                raise TypeError("attention_mechanism must contain only instances of "
                                "AttentionMechanism, saw type: "
                                f"{type(mechanism).__name__}")
        return True, tuple(attention_mechanism)
    if not isinstance(attention_mechanism, AttentionMechanism):
        raise TypeError("attention_mechanism must be an AttentionMechanism or list of "
                        "multiple AttentionMechanism instances, saw type: "
                        f"{type(attention_mechanism).__name__}")
    return False, (attention_mechanism,)


def _default_cell_input_fn(inputs, attention):
    return array_ops.concat([inputs, attention], -1)


class AttentionWrapper(RNNCell):
    """Wraps ``cell`` with attention over one or several mechanisms' memories.

    Each step: the cell runs on ``cell_input_fn(inputs, previous attention)`` (their concat
    by default); each mechanism scores the cell's output; the attentions (contexts, or
    ``attention_layer(concat([cell_output, context]))``) are concatenated. The step outputs
    the attention (``output_attention=True``, Luong's form) or the cell's output
    (Bahdanau's form), and the state carries both forward.
    """

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history=False, cell_input_fn=None, output_attention=True,
                 initial_cell_state=None, name=None, attention_layer=None,
                 attention_fn=None):
        super().__init__(name=name)
        if not isinstance(cell, RNNCell):
            raise TypeError(f"cell must be an RNNCell, saw type: {type(cell).__name__}")
        self._is_multi, mechanisms = _check_mechanisms(attention_mechanism)
        if cell_input_fn is not None and not callable(cell_input_fn):
            raise TypeError("cell_input_fn must be callable, saw type: "
                            f"{type(cell_input_fn).__name__}")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be "
                             "set")
        self._attention_layers, self._attention_layer_size = self._make_attention_layers(
            cell, mechanisms, attention_layer_size, attention_layer)
        self._cell = cell
        self._attention_mechanisms = mechanisms
        self._cell_input_fn = cell_input_fn or _default_cell_input_fn
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._attention_fn = attention_fn or _compute_attention
        self._initial_cell_state = None
        if initial_cell_state is not None:
            with name_scope(name or "AttentionWrapperInit"):
                self._initial_cell_state = self._checked_initial_state(initial_cell_state)

    @staticmethod
    def _make_attention_layers(cell, mechanisms, attention_layer_size, attention_layer):
        """The output layers (one per mechanism, or None) and the attention's total depth."""
        if attention_layer_size is not None:
            sizes = _as_tuple(attention_layer_size)
            if len(sizes) != len(mechanisms):
                raise ValueError("If provided, attention_layer_size must contain exactly one "
                                 "integer per attention_mechanism, saw: "
                                 f"{len(sizes)} vs {len(mechanisms)}")
            layers = tuple(Dense(size, name="attention_layer", use_bias=False,
                                 dtype=mechanisms[i].dtype) for i, size in enumerate(sizes))
            return layers, sum(sizes)
        if attention_layer is not None:
            layers = _as_tuple(attention_layer)
            if len(layers) != len(mechanisms):
                raise ValueError("If provided, attention_layer must contain exactly one layer "
                                 "per attention_mechanism, saw: "
                                 f"{len(layers)} vs {len(mechanisms)}")
            return layers, sum(int(layer.units) for layer in layers)
        return None, sum(m.values.shape[-1].value for m in mechanisms)

    def _checked_initial_state(self, initial_cell_state):
        state_batch_size = _dim(flatten(initial_cell_state)[-1], 0)
        message = (f"When constructing AttentionWrapper {self._base_name}: Non-matching batch "
                   "sizes between the memory (encoder output) and initial_cell_state.  Are "
                   "you using the BeamSearchDecoder?  You may need to tile your initial state "
                   "via the tf.contrib.seq2seq.tile_batch function with argument "
                   "multiple=beam_width.")
        with control_dependencies(self._batch_size_checks(state_batch_size, message)):
            return map_structure(
                lambda s: array_ops.identity(s, name="check_initial_cell_state"),
                initial_cell_state)

    def _batch_size_checks(self, batch_size, error_message):
        return [check_ops.assert_equal(batch_size, m.batch_size, message=error_message)
                for m in self._attention_mechanisms]

    def _item_or_tuple(self, seq):
        """A tuple with several mechanisms, the single item with one (as constructed)."""
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else \
            self._cell.output_size

    @property
    def state_size(self):
        """An ``AttentionWrapperState`` of the parts' sizes (``()`` for the histories)."""
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size
                                           for m in self._attention_mechanisms),
            attention_state=self._item_or_tuple(m.state_size
                                                for m in self._attention_mechanisms),
            alignment_history=self._item_or_tuple(
                m.alignments_size if self._alignment_history else ()
                for m in self._attention_mechanisms))

    def zero_state(self, batch_size, dtype):
        """The first state: the cell's zero (or ``initial_cell_state``), zero attention and
        alignments, empty alignment histories; asserts at run time that ``batch_size`` is
        the memory's."""
        with name_scope(type(self).__name__ + "ZeroState"):
            cell_state = self._initial_cell_state if self._initial_cell_state is not None \
                else self._cell.zero_state(batch_size, dtype)
            message = (
                f"When calling zero_state of AttentionWrapper {self._base_name}: Non-matching "
                "batch sizes between the memory (encoder output) and the requested batch "
                "size.  Are you using the BeamSearchDecoder?  If so, make sure your encoder "
                "output has been tiled to beam_width via tf.contrib.seq2seq.tile_batch, and "
                "the batch_size= argument passed to zero_state is batch_size * beam_width.")
            with control_dependencies(self._batch_size_checks(batch_size, message)):
                cell_state = map_structure(
                    lambda s: array_ops.identity(s, name="checked_cell_state"), cell_state)
            alignments = [m.initial_alignments(batch_size, dtype)
                          for m in self._attention_mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state,
                time=array_ops.zeros([], dtype=dtypes.int32),
                attention=_zeros(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(alignments),
                attention_state=self._item_or_tuple(
                    m.initial_state(batch_size, dtype) for m in self._attention_mechanisms),
                alignment_history=self._item_or_tuple(
                    TensorArray(dtype=dtype, size=0, dynamic_size=True,
                                element_shape=a.shape) if self._alignment_history else ()
                    for a in alignments))

    def call(self, inputs, state):
        """One step (see the class docstring); returns ``(output, next_state)``."""
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("Expected state to be instance of AttentionWrapperState. "
                            f"Received type {type(state)} instead.")
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        message = (
            f"When applying AttentionWrapper {self._base_name}: Non-matching batch sizes "
            "between the memory (encoder output) and the query (decoder output).  Are you "
            "using the BeamSearchDecoder?  You may need to tile your memory input via the "
            "tf.contrib.seq2seq.tile_batch function with argument multiple=beam_width.")
        with control_dependencies(self._batch_size_checks(_dim(cell_output, 0), message)):
            cell_output = array_ops.identity(cell_output, name="checked_cell_output")
        previous_states = state.attention_state if self._is_multi else [state.attention_state]
        previous_histories = state.alignment_history if self._is_multi \
            else [state.alignment_history]
        attentions, all_alignments, states, histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            attention, alignments, next_attention_state = self._attention_fn(
                mechanism, cell_output, previous_states[i],
                self._attention_layers[i] if self._attention_layers else None)
            histories.append(previous_histories[i].write(state.time, alignments)
                             if self._alignment_history else ())
            attentions.append(attention)
            all_alignments.append(alignments)
            states.append(next_attention_state)
        attention = array_ops.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(states),
            alignments=self._item_or_tuple(all_alignments),
            alignment_history=self._item_or_tuple(histories))
        return (attention if self._output_attention else cell_output), next_state
