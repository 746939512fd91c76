"""``tf.contrib.seq2seq``'s beam search (TF 1.15): ``BeamSearchDecoder``, its state and
outputs, and ``tile_batch``.

The decoder keeps ``beam_width`` hypotheses per batch entry. Its state holds the cell state
split to ``[batch, beam, ...]``, each beam's total log probability, whether it finished
(emitted ``end_token``) and its length. One step runs the cell on the ``[batch * beam]``
merged inputs, takes the log-softmax of the (projected) outputs, gives finished beams all
their mass on ``end_token``, scores every ``(beam, word)`` continuation (log probability
divided by the GNMT length penalty ``((5 + length) / 6) ** alpha``, plus the coverage
penalty with attention) and keeps the ``beam_width`` best per batch entry (``top_k`` over
``beam * vocab``); the cell states follow their parents. ``finalize`` traces the beams back
from the last step through the parent ids (``gather_tree``) and, with
``reorder_tensor_arrays``, reorders the TensorArrays in the cell state (an
``AttentionWrapper``'s alignment history) the same way.

At the start only beam 0 is alive (the others are finished with log probability -inf), so
the first step's continuations all come from one beam.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.contrib.seq2seq.attention_wrapper import AttentionWrapperState
from scopeflow.contrib.seq2seq.basic_decoder import _layer_output_size
from scopeflow.contrib.seq2seq.beam_search_ops import gather_tree
from scopeflow.contrib.seq2seq.decoder import Decoder
from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.nest import flatten, map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.layers.base import Layer
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.nn.embedding_ops import embedding_lookup
from scopeflow.platform import tf_logging

__all__ = ["BeamSearchDecoderOutput", "BeamSearchDecoderState", "BeamSearchDecoder",
           "FinalBeamSearchDecoderOutput", "tile_batch"]


class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState", ("cell_state", "log_probs", "finished", "lengths",
                                   "accumulated_attention_probs"))):
    """The beam search's loop state: the cell state (``[batch, beam, ...]``), each beam's
    total log probability, finished flag and int64 length, and the summed attention
    probabilities (``()`` without coverage penalty)."""

    __slots__ = ()


class BeamSearchDecoderOutput(collections.namedtuple(
        "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids"))):
    """One step's outputs, ``[batch, beam]`` each: the kept continuations' scores, their
    word ids and the beams they continue."""

    __slots__ = ()


class FinalBeamSearchDecoderOutput(collections.namedtuple(
        "FinalBeamDecoderOutput", ["predicted_ids", "beam_search_decoder_output"])):
    """What ``dynamic_decode`` returns for beam search: the traced-back ids (``[batch, T,
    beam]``, or time-major; best beam first) and the raw per-step
    ``BeamSearchDecoderOutput``. (TF named the namedtuple ``FinalBeamDecoderOutput``.)"""

    __slots__ = ()


def _tile_batch(t, multiplier):
    """``[b, ...]`` -> ``[b * multiplier, ...]`` with rows ``b0, b0, ..., b1, b1, ...``."""
    t = convert_to_tensor(t, name="t")
    shape_t = array_ops.shape(t)
    if t.shape.ndims is None or t.shape.ndims < 1:
        raise ValueError("t must have statically known rank")
    tiling = [1] * (t.shape.ndims + 1)
    tiling[1] = multiplier
    batch = t.shape[0].value
    tiled = reduction_ops.tile(array_ops.expand_dims(t, 1), tiling)
    tiled = array_ops.reshape(
        tiled, array_ops.concat(([shape_t[0] * multiplier], shape_t[1:]), 0))
    tiled.set_shape(TensorShape([None if batch is None else batch * multiplier])
                    .concatenate(t.shape[1:]))
    return tiled


def tile_batch(t, multiplier, name=None):
    """Tiles the batch dimension of ``t`` (a tensor or a nested structure of tensors)
    ``multiplier`` times, each entry's copies next to each other (``tile_batch([a, b],
    2) == [a, a, b, b]``)."""
    with name_scope(name or "tile_batch"):
        return map_structure(lambda t_: _tile_batch(t_, multiplier), t)


def _dim(t, axis):
    """``t``'s dimension ``axis``: a Python int where static, else a scalar tensor."""
    value = t.shape[axis].value if t.shape.ndims is not None else None
    return value if value is not None else array_ops.shape(t)[axis]


def _static(x):
    """``x`` as a Python int where it is known before running, else None."""
    if isinstance(x, (int, np.integer)):
        return int(x)
    value = constant_value(convert_to_tensor(x))
    return None if value is None else int(value)


def gather_tree_from_array(t, parent_ids, sequence_length):
    """Reorders the stacked TensorArray ``t`` (``[max_time, batch, beam, ...]`` or
    ``[max_time, batch * beam, ...]``) along the beam search's paths: step ``i`` of beam
    ``k`` becomes the entry of the beam that ``k`` descends from at step ``i``. Steps at
    or past a beam's ``sequence_length`` (``[batch, beam]``) keep their own beam."""
    max_time, batch_size, beam_width = (_dim(parent_ids, i) for i in range(3))
    beam_ids = reduction_ops.tile(
        array_ops.reshape(math_ops.range(beam_width), [1, 1, -1]),
        array_ops.stack([max_time, batch_size, 1]))
    max_lengths = math_ops.cast(math_ops.reduce_max(sequence_length, axis=1), dtypes.int32)
    # An end token no beam id equals: only the lengths cut the traced paths.
    sorted_ids = gather_tree(beam_ids, parent_ids, max_sequence_lengths=max_lengths,
                             end_token=beam_width + 1)
    in_bounds = array_ops.transpose(
        array_ops.sequence_mask(sequence_length, maxlen=max_time), perm=[2, 0, 1])
    sorted_ids = reduction_ops.where_v2(in_bounds, sorted_ids, beam_ids)
    full_shape = array_ops.shape(t)
    grouped = array_ops.reshape(
        t, array_ops.stack([max_time, batch_size, beam_width, -1]))
    ordered = array_ops.gather(grouped, sorted_ids, axis=2, batch_dims=2)
    return array_ops.reshape(ordered, full_shape)


def _check_ndims(t):
    if t.shape.ndims is None:
        raise ValueError(f"Expected tensor ({t}) to have known rank, but ndims == None.")


def _check_static_batch_beam_maybe(shape, batch_size, beam_width):
    """False (with TF's warning) where the static shape cannot be the stacked
    ``[batch * beam, ...]`` or ``[batch, beam, ...]``. The test is TF 1.15's as written:
    a known second dimension must be ``beam`` with a first of ``batch``."""
    if batch_size is not None and shape[0].value is not None and (
            shape[0].value != batch_size * beam_width or (
                shape.ndims >= 2 and shape[1].value is not None
                and (shape[0].value != batch_size or shape[1].value != beam_width))):
        expected = TensorShape([batch_size, beam_width, None])
        tf_logging.warning(
            f"TensorArray reordering expects elements to be reshapable to {expected} which "
            f"is incompatible with the current shape {shape}. Consider setting "
            "reorder_tensor_arrays to False to disable TensorArray reordering during the "
            "beam search.")
        return False
    return True


def _check_batch_beam(t, batch_size, beam_width):
    """An Assert that the stacked TensorArray ``t`` (``[time, ...]``) holds
    ``[batch * beam, ...]`` or ``[batch, beam, ...]`` elements."""
    message = ("TensorArray reordering expects elements to be reshapable to [batch_size, "
               "beam_size, -1] which is incompatible with the dynamic shape of "
               f"{t.name} elements. Consider setting reorder_tensor_arrays to False to "
               "disable TensorArray reordering during the beam search.")
    shape = array_ops.shape(t)
    merged = math_ops.equal(shape[1], batch_size * beam_width)
    if t.shape.ndims == 2:
        condition = merged
    else:
        condition = math_ops.logical_or(merged, math_ops.logical_and(
            math_ops.equal(shape[1], batch_size), math_ops.equal(shape[2], beam_width)))
    return Assert(condition, [message])


def _check_cell(cell):
    if not callable(cell) or not hasattr(cell, "output_size") \
            or not hasattr(cell, "state_size"):
        raise TypeError(f"The argument 'cell' ({cell}) is not an RNNCell: 'output_size' "
                        "property is missing, 'state_size' property is missing, "
                        "is not callable.")


def _as_shape(s):
    if isinstance(s, Tensor):
        value = constant_value(s)
        return TensorShape(None if value is None else [int(v) for v in np.ravel(value)])
    return TensorShape(s)


class BeamSearchDecoder(Decoder):
    """Beam search decoding (see the module docstring).

    With an ``AttentionWrapper`` cell, tile the memory, its lengths and the encoder state
    with ``tile_batch(..., beam_width)`` (not ``tf.tile``) and build the initial state
    with ``zero_state(batch_size * beam_width)`` (then ``.clone(cell_state=...)``).
    ``embedding`` is the ``embedding_lookup`` params or a callable on the ids.
    """

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width,
                 output_layer=None, length_penalty_weight=0.0, coverage_penalty_weight=0.0,
                 reorder_tensor_arrays=True):
        _check_cell(cell)
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._beam_width = beam_width
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        self._embedding_fn = embedding if callable(embedding) else \
            (lambda ids: embedding_lookup(embedding, ids))
        start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32,
                                         name="start_tokens")
        if start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._batch_size = array_ops.size(start_tokens)
        self._initial_cell_state = map_structure(
            self._maybe_split_batch_beams, initial_state, self._cell.state_size)
        self._start_tokens = reduction_ops.tile(array_ops.expand_dims(start_tokens, 1),
                                                [1, beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        # Only beam 0 is alive at the start: the other beams are copies of it.
        self._finished = array_ops.one_hot(
            array_ops.zeros(array_ops.expand_dims(self._batch_size, 0), dtype=dtypes.int32),
            depth=beam_width, on_value=False, off_value=True, dtype=dtypes.bool)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self):
        """True: the beams (and their finished flags) are reordered every step, so
        ``dynamic_decode`` must not OR in its own record of finished entries."""
        return True

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        return map_structure(lambda s: _layer_output_size(self._output_layer, s), size)

    @property
    def output_size(self):
        beams = TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(scores=beams, predicted_ids=beams, parent_ids=beams)

    @property
    def output_dtype(self):
        dtype = flatten(self._initial_cell_state)[0].dtype
        return BeamSearchDecoderOutput(
            scores=map_structure(lambda _: dtype, self._rnn_output_size()),
            predicted_ids=dtypes.int32, parent_ids=dtypes.int32)

    def initialize(self, name=None):
        """Returns ``(finished, start_inputs, initial_state)``: beam 0 alive with log
        probability 0, the others finished at -inf, every length 0."""
        with name_scope(name or "BeamSearchDecoderInitialize"):
            dtype = flatten(self._initial_cell_state)[0].dtype
            log_probs = array_ops.one_hot(
                array_ops.zeros(array_ops.expand_dims(self._batch_size, 0),
                                dtype=dtypes.int32),
                depth=self._beam_width, on_value=convert_to_tensor(0.0, dtype=dtype),
                off_value=convert_to_tensor(-np.inf, dtype=dtype), dtype=dtype)
            attention_probs = get_attention_probs(self._initial_cell_state,
                                                  self._coverage_penalty_weight)
            state = BeamSearchDecoderState(
                cell_state=self._initial_cell_state, log_probs=log_probs,
                finished=self._finished,
                lengths=array_ops.zeros(
                    array_ops.stack([self._batch_size, self._beam_width]),
                    dtype=dtypes.int64),
                accumulated_attention_probs=() if attention_probs is None
                else attention_probs)
            return self._finished, self._start_inputs, state

    def finalize(self, outputs, final_state, sequence_lengths):
        """The beams traced back through the parent ids (``FinalBeamSearchDecoderOutput``)
        and the final state, its TensorArrays reordered (stacked) with
        ``reorder_tensor_arrays``. ``sequence_lengths`` is ignored: the state's lengths
        are the beams' own."""
        del sequence_lengths
        max_lengths = math_ops.cast(math_ops.reduce_max(final_state.lengths, axis=1),
                                    dtypes.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids,
                                    max_sequence_lengths=max_lengths,
                                    end_token=self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=map_structure(
                lambda t: self._maybe_sort_array_beams(t, outputs.parent_ids,
                                                       final_state.lengths),
                final_state.cell_state))
        return (FinalBeamSearchDecoderOutput(predicted_ids=predicted_ids,
                                             beam_search_decoder_output=outputs),
                final_state)

    def _merge_batch_beams(self, t, s=None):
        """``[batch, beam] + s`` -> ``[batch * beam] + s``."""
        s = _as_shape(s)
        static_batch = _static(self._batch_size)
        merged = array_ops.reshape(t, array_ops.concat(
            ([self._batch_size * self._beam_width], array_ops.shape(t)[2:]), 0))
        merged.set_shape(TensorShape(
            [None if static_batch is None else static_batch * self._beam_width])
            .concatenate(s))
        return merged

    def _split_batch_beams(self, t, s=None):
        """``[batch * beam] + s`` -> ``[batch, beam] + s``; a static mismatch (a state not
        built for ``batch * beam``) raises ValueError."""
        s = _as_shape(s)
        split = array_ops.reshape(t, array_ops.concat(
            ([self._batch_size, self._beam_width], array_ops.shape(t)[1:]), 0))
        expected = TensorShape([_static(self._batch_size), self._beam_width]).concatenate(s)
        if not split.shape.is_compatible_with(expected):
            raise ValueError(
                "Unexpected behavior when reshaping between beam width and batch size.  The "
                f"reshaped tensor has shape: {split.shape}.  We expected it to have shape "
                f"(batch_size, beam_width, depth) == {expected}.  Perhaps you forgot to "
                "create a zero_state with batch_size=encoder_batch_size * beam_width?")
        split.set_shape(expected)
        return split

    def _maybe_split_batch_beams(self, t, s):
        """Splits tensors of rank >= 1; scalars and TensorArrays pass through."""
        if isinstance(t, TensorArray):
            return t
        _check_ndims(t)
        return self._split_batch_beams(t, s) if t.shape.ndims >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        """Merges tensors of rank >= 2; others and TensorArrays pass through."""
        if isinstance(t, TensorArray):
            return t
        _check_ndims(t)
        return self._merge_batch_beams(t, s) if t.shape.ndims >= 2 else t

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        """A TensorArray of ``[batch * beam, ...]`` or ``[batch, beam, ...]`` elements,
        stacked and reordered along the beams' paths; anything else as it is."""
        if not isinstance(t, TensorArray):
            return t
        element_shape = t.element_shape
        if element_shape.ndims is None or element_shape.ndims < 1:
            tf_logging.warning(
                f"The TensorArray {t.handle.name} in the cell state is not amenable to "
                "sorting based on the beam search result. For a TensorArray to be sorted, "
                "its elements shape must be defined and have at least a rank of 1, but saw "
                f"shape: {element_shape}")
            return t
        if not _check_static_batch_beam_maybe(element_shape, _static(self._batch_size),
                                              self._beam_width):
            return t
        t = t.stack()
        with control_dependencies([_check_batch_beam(t, self._batch_size,
                                                     self._beam_width)]):
            return gather_tree_from_array(t, parent_ids, sequence_length)

    def step(self, time, inputs, state, name=None):
        """One beam search step: returns ``(BeamSearchDecoderOutput, next
        BeamSearchDecoderState, next_inputs, finished)``."""
        with name_scope(name or "BeamSearchDecoderStep"):
            inputs = map_structure(lambda x: self._merge_batch_beams(x, s=x.shape[2:]),
                                   inputs)
            cell_state = map_structure(self._maybe_merge_batch_beams, state.cell_state,
                                       self._cell.state_size)
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = map_structure(
                lambda out: self._split_batch_beams(out, out.shape[1:]), cell_outputs)
            next_cell_state = map_structure(self._maybe_split_batch_beams, next_cell_state,
                                            self._cell.state_size)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            output, next_state = _beam_search_step(
                time=time, logits=cell_outputs, next_cell_state=next_cell_state,
                beam_state=state, batch_size=self._batch_size, beam_width=self._beam_width,
                end_token=self._end_token, length_penalty_weight=self._length_penalty_weight,
                coverage_penalty_weight=self._coverage_penalty_weight)
            finished = next_state.finished
            sample_ids = output.predicted_ids
            next_inputs = cond(math_ops.reduce_all(finished), lambda: self._start_inputs,
                               lambda: self._embedding_fn(sample_ids))
        return output, next_state, next_inputs, finished


def _beam_search_step(time, logits, next_cell_state, beam_state, batch_size, beam_width,
                      end_token, length_penalty_weight, coverage_penalty_weight):
    """One step of the search on ``logits`` (``[batch, beam, vocab]``): returns the
    ``BeamSearchDecoderOutput`` and the next ``BeamSearchDecoderState``."""
    static_batch = _static(batch_size)
    lengths = beam_state.lengths
    previously_finished = beam_state.finished
    not_finished = math_ops.logical_not(previously_finished)
    step_log_probs = _mask_probs(nn_ops.log_softmax(logits), end_token, previously_finished)
    total_probs = array_ops.expand_dims(beam_state.log_probs, 2) + step_log_probs
    vocab_size = _dim(logits, -1)
    new_lengths = _continuation_lengths(lengths, not_finished, vocab_size, end_token)
    accumulated_attention_probs = _accumulated_attention(
        beam_state, next_cell_state, coverage_penalty_weight, not_finished)
    scores = _get_scores(log_probs=total_probs, sequence_lengths=new_lengths,
                         length_penalty_weight=length_penalty_weight,
                         coverage_penalty_weight=coverage_penalty_weight,
                         finished=previously_finished,
                         accumulated_attention_probs=accumulated_attention_probs)
    next_beam_scores, word_indices = _top_beams(scores, time, batch_size, beam_width,
                                                static_batch)

    next_beam_probs = _tensor_gather_helper(word_indices, total_probs, batch_size,
                                            beam_width * vocab_size, [-1],
                                            name="next_beam_probs")
    next_word_ids, next_beam_ids = _word_and_parent_ids(word_indices, vocab_size)

    parent_finished = _tensor_gather_helper(next_beam_ids, previously_finished, batch_size,
                                            beam_width, [-1])
    next_finished = math_ops.logical_or(parent_finished,
                                        math_ops.equal(next_word_ids, end_token),
                                        name="next_beam_finished")
    # A beam that just emitted the end token counts it; one finished before does not grow.
    next_lengths = _tensor_gather_helper(next_beam_ids, lengths, batch_size, beam_width,
                                         [-1])
    next_lengths += math_ops.cast(math_ops.logical_not(parent_finished), dtypes.int64)
    next_accumulated = _gathered_attention(next_beam_ids, accumulated_attention_probs,
                                           batch_size, beam_width)
    next_cell_state = map_structure(
        lambda t: _maybe_tensor_gather_helper(next_beam_ids, t, batch_size, beam_width,
                                              [batch_size * beam_width, -1]),
        next_cell_state)
    next_state = BeamSearchDecoderState(
        cell_state=next_cell_state, log_probs=next_beam_probs, lengths=next_lengths,
        finished=next_finished, accumulated_attention_probs=next_accumulated)
    output = BeamSearchDecoderOutput(scores=next_beam_scores, predicted_ids=next_word_ids,
                                     parent_ids=next_beam_ids)
    return output, next_state


def _continuation_lengths(lengths, not_finished, vocab_size, end_token):
    """``[batch, beam, vocab]`` lengths: a continuation is one longer than its beam unless
    it is the end token or the beam had finished."""
    grows = math_ops.cast(math_ops.not_equal(math_ops.range(vocab_size), end_token),
                          dtypes.int64)
    return array_ops.expand_dims(lengths, 2) + grows * array_ops.expand_dims(
        math_ops.cast(not_finished, dtypes.int64), 2)


def _accumulated_attention(beam_state, next_cell_state, coverage_penalty_weight,
                           not_finished):
    """The attention summed over the steps (the unfinished beams' this step added), for
    the coverage penalty; None when the penalty is off."""
    attention_probs = get_attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is None:
        return None
    attention_probs *= array_ops.expand_dims(math_ops.cast(not_finished, dtypes.float32), 2)
    return beam_state.accumulated_attention_probs + attention_probs


def _top_beams(scores, time, batch_size, beam_width, static_batch):
    """The ``beam_width`` best scores of each batch row over all beams' continuations,
    and their indices in the flattened ``[beam * vocab]``."""
    convert_to_tensor(time, name="time")
    scores_flat = array_ops.reshape(scores, array_ops.stack([batch_size, -1]))
    next_beam_size = convert_to_tensor(beam_width, dtype=dtypes.int32, name="beam_width")
    next_beam_scores, word_indices = nn_ops.top_k(scores_flat, k=next_beam_size)
    next_beam_scores.set_shape([static_batch, beam_width])
    word_indices.set_shape([static_batch, beam_width])
    return next_beam_scores, word_indices


def _word_and_parent_ids(word_indices, vocab_size):
    """The word (``index % vocab``) and parent beam (``index // vocab``) of each index in
    the flattened ``[beam * vocab]`` scores, as int32."""
    next_word_ids = math_ops.cast(
        math_ops.floormod(word_indices, vocab_size, name="next_beam_word_ids"),
        dtypes.int32)
    next_beam_ids = math_ops.cast(math_ops.floordiv(word_indices, vocab_size),
                                  dtypes.int32, name="next_beam_parent_ids")
    return next_word_ids, next_beam_ids


def _gathered_attention(next_beam_ids, accumulated_attention_probs, batch_size, beam_width):
    """The accumulated attention of each new beam's parent (``()`` without coverage)."""
    if accumulated_attention_probs is None:
        return ()
    return _tensor_gather_helper(
        next_beam_ids, accumulated_attention_probs, batch_size, beam_width,
        [batch_size * beam_width, -1], name="next_accumulated_attention_probs")


def get_attention_probs(next_cell_state, coverage_penalty_weight):
    """The attention probabilities (``[batch, beam, memory_time]``, averaged over the
    attention layers and mechanisms) when the coverage penalty is on, else None; with the
    penalty on and no ``AttentionWrapperState`` in the state, ValueError."""
    if coverage_penalty_weight == 0.0:
        return None
    if isinstance(next_cell_state, AttentionWrapperState):
        per_layer = [attention_probs_from_attn_state(next_cell_state)]
    elif isinstance(next_cell_state, tuple):
        per_layer = [attention_probs_from_attn_state(s) for s in next_cell_state
                     if isinstance(s, AttentionWrapperState)]
    else:
        per_layer = []
    if not per_layer:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    if len(per_layer) == 1:
        return per_layer[0]
    return math_ops.reduce_mean(array_ops.stack(per_layer, -1), -1)


def attention_probs_from_attn_state(attention_state):
    """An ``AttentionWrapperState``'s alignments, averaged over its mechanisms."""
    probs = attention_state.alignments
    if isinstance(probs, tuple):
        probs = math_ops.reduce_mean(array_ops.stack(list(probs), -1), -1)
    return probs


def _length_penalty(sequence_lengths, penalty_factor):
    """GNMT's length penalty ``((5 + length) / 6) ** penalty_factor``
    (arXiv:1609.08144); the scalar 1.0 when the factor is statically 0."""
    penalty_factor = convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = constant_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    return math_ops.div(
        (5. + math_ops.cast(sequence_lengths, dtypes.float32)) ** penalty_factor,
        (5. + 1.) ** penalty_factor)


def _get_scores(log_probs, sequence_lengths, length_penalty_weight,
                coverage_penalty_weight, finished, accumulated_attention_probs):
    """The hypotheses' scores: log probabilities over the length penalty, plus (for
    finished beams) ``coverage_penalty_weight`` times the sum over the memory of
    ``log(min(accumulated attention, 1))`` (positions never attended count as 1)."""
    penalty = math_ops.cast(_length_penalty(sequence_lengths, length_penalty_weight),
                            log_probs.dtype)
    scores = log_probs / penalty
    coverage_penalty_weight = convert_to_tensor(coverage_penalty_weight,
                                                name="coverage_penalty_weight")
    if coverage_penalty_weight.shape.ndims != 0:
        raise ValueError("coverage_penalty_weight should be a scalar, but saw shape: "
                         f"{coverage_penalty_weight.shape}")
    if constant_value(coverage_penalty_weight) == 0.0:
        return scores
    if accumulated_attention_probs is None:
        raise ValueError("accumulated_attention_probs can be None only if coverage penalty "
                         "is disabled.")
    # Masked memory positions (never attended) must not count against the hypothesis.
    attention = reduction_ops.where_v2(
        math_ops.equal(accumulated_attention_probs, 0.0),
        array_ops.ones_like(accumulated_attention_probs), accumulated_attention_probs)
    coverage = math_ops.reduce_sum(
        math_ops.log(reduction_ops.minimum(attention, 1.0)), 2)
    coverage *= math_ops.cast(finished, dtypes.float32)
    return scores + array_ops.expand_dims(coverage * coverage_penalty_weight, 2)


def _mask_probs(probs, eos_token, finished):
    """Finished beams' log probabilities: 0 on ``eos_token``, the dtype's lowest value
    elsewhere (so a finished beam only continues with the end token, at no cost);
    unfinished beams' unchanged."""
    vocab_size = array_ops.shape(probs)[2]
    finished_row = array_ops.one_hot(
        eos_token, vocab_size, dtype=probs.dtype,
        on_value=convert_to_tensor(0., dtype=probs.dtype), off_value=probs.dtype.min)
    return reduction_ops.where_v2(array_ops.expand_dims(finished, 2), finished_row, probs)


def _maybe_tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                gather_shape):
    """``_tensor_gather_helper`` for tensors of rank >= ``len(gather_shape)``; lower ranks
    (the attention wrapper's step count) and TensorArrays pass through."""
    if isinstance(gather_from, TensorArray):
        return gather_from
    _check_ndims(gather_from)
    if gather_from.shape.ndims >= len(gather_shape):
        return _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                     gather_shape)
    return gather_from


def _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                          gather_shape, name=None):
    """Picks, for each batch entry ``b`` and beam ``k``, the slice
    ``gather_indices[b, k]`` of ``b``'s ``range_size`` slices of ``gather_from`` (viewed
    as ``gather_shape``). The result is ``[batch, beam]`` for ``gather_shape == [-1]``, the
    shape of ``gather_from`` otherwise."""
    with name_scope(name or "tensor_gather_helper"):
        offsets = array_ops.expand_dims(math_ops.range(batch_size) * range_size, 1)
        flat_indices = array_ops.reshape(gather_indices + offsets, [-1])
        if len(gather_shape) == 1:
            flat = array_ops.reshape(gather_from, gather_shape)
            final_shape = array_ops.shape(gather_from)[:2]
            kept = 2
        else:
            flat = array_ops.reshape(gather_from, array_ops.stack(gather_shape))
            # Rank > 3 states keep their trailing dimensions (TF's reshape to the first
            # three would fail on them).
            final_shape = array_ops.shape(gather_from)
            kept = gather_from.shape.ndims
        output = array_ops.reshape(array_ops.gather(flat, flat_indices), final_shape,
                                   name="output")
        output.set_shape(TensorShape([_static(batch_size)]).concatenate(
            gather_from.shape[1:kept]))
        return output
