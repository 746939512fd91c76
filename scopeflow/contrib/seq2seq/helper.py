"""``tf.contrib.seq2seq``'s helpers (TF 1.15): what a ``BasicDecoder`` feeds its cell.

A ``Helper`` gives the first inputs (``initialize``), picks sample ids from each step's
outputs (``sample``) and gives the next inputs and which entries finished
(``next_inputs``). ``TrainingHelper`` reads the ground-truth inputs step by step (teacher
forcing); ``GreedyEmbeddingHelper`` feeds back the embedding of each step's argmax and
finishes an entry at ``end_token``.
"""

from __future__ import annotations

import abc

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.nest import map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.nn.embedding_ops import embedding_lookup
from scopeflow.rnn.rnn import _transpose_batch_time

__all__ = ["Helper", "TrainingHelper", "GreedyEmbeddingHelper"]


class Helper(abc.ABC):
    """The interface ``BasicDecoder`` samples through (TF 1.15's ``Helper``)."""

    @property
    @abc.abstractmethod
    def batch_size(self):
        """The batch size (a scalar int32 tensor)."""

    @property
    @abc.abstractmethod
    def sample_ids_shape(self):
        """The shape of one entry's sample id (``TensorShape([])`` for token ids)."""

    @property
    @abc.abstractmethod
    def sample_ids_dtype(self):
        """The dtype of the sample ids."""

    @abc.abstractmethod
    def initialize(self, name=None):
        """Returns ``(initial_finished, initial_inputs)``."""

    @abc.abstractmethod
    def sample(self, time, outputs, state, name=None):
        """Returns the sample ids of this step."""

    @abc.abstractmethod
    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """Returns ``(finished, next_inputs, next_state)``."""


def _unstack_ta(inp):
    """A time-major input as a TensorArray of its steps."""
    return TensorArray(dtype=inp.dtype, size=array_ops.shape(inp)[0],
                       element_shape=inp.shape[1:]).unstack(inp)


class TrainingHelper(Helper):
    """Feeds the ground-truth ``inputs`` one step at a time; entry ``b`` finishes once
    ``time + 1 >= sequence_length[b]``. Sample ids are the argmax of the outputs (int32).

    When every entry has finished, the next inputs are zeros, so no read runs past the
    end of the inputs.
    """

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with name_scope(name or "TrainingHelper"):
            inputs = map_structure(lambda x: convert_to_tensor(x, name="inputs"), inputs)
            self._inputs = inputs
            if not time_major:
                inputs = map_structure(_transpose_batch_time, inputs)
            self._input_tas = map_structure(_unstack_ta, inputs)
            self._sequence_length = convert_to_tensor(sequence_length,
                                                      name="sequence_length")
            if self._sequence_length.shape.ndims != 1:
                raise ValueError("Expected sequence_length to be a vector, but received "
                                 f"shape: {self._sequence_length.shape}")
            self._zero_inputs = map_structure(
                lambda inp: array_ops.zeros_like(inp[0, :]), inputs)
            self._batch_size = array_ops.size(sequence_length)

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def _inputs_at(self, time, finished):
        """The inputs of step ``time``, or zeros once every entry finished."""
        all_finished = math_ops.reduce_all(finished)
        return cond(all_finished, lambda: self._zero_inputs,
                    lambda: map_structure(lambda ta: ta.read(time), self._input_tas))

    def initialize(self, name=None):
        with name_scope(name or "TrainingHelperInitialize"):
            finished = math_ops.equal(0, self._sequence_length)
            return finished, self._inputs_at(0, finished)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name or "TrainingHelperSample"):
            return math_ops.cast(math_ops.argmax(outputs, axis=-1), dtypes.int32)

    def next_inputs(self, time, outputs, state, name=None, **unused_kwargs):
        with name_scope(name or "TrainingHelperNextInputs"):
            next_time = time + 1
            finished = math_ops.greater_equal(next_time, self._sequence_length)
            return finished, self._inputs_at(next_time, finished), state


class GreedyEmbeddingHelper(Helper):
    """Greedy decoding: feeds back ``embedding(argmax(outputs))``, starting from
    ``embedding(start_tokens)``; an entry finishes when its argmax is ``end_token``.

    ``embedding`` is an embedding matrix (looked up with ``embedding_lookup``) or a
    callable taking the int32 ids. Once every entry finished, the next inputs are the start
    inputs (they are never used).
    """

    def __init__(self, embedding, start_tokens, end_token):
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: embedding_lookup(embedding, ids)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32,
                                               name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._start_tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = array_ops.size(start_tokens)
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return dtypes.int32

    def initialize(self, name=None):
        finished = reduction_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        if not isinstance(outputs, Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return math_ops.argmax(outputs, axis=-1, output_type=dtypes.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = math_ops.equal(sample_ids, self._end_token)
        all_finished = math_ops.reduce_all(finished)
        next_inputs = cond(all_finished, lambda: self._start_inputs,
                           lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state

