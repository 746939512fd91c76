"""``tf.contrib.seq2seq``'s helpers (TF 1.15): what a ``BasicDecoder`` feeds its cell.

A ``Helper`` gives the first inputs (``initialize``), picks sample ids from each step's
outputs (``sample``) and gives the next inputs and which entries finished
(``next_inputs``). ``TrainingHelper`` reads the ground-truth inputs step by step (teacher
forcing); ``GreedyEmbeddingHelper`` feeds back the embedding of each step's argmax and
finishes an entry at ``end_token``; ``SampleEmbeddingHelper`` feeds back a sample of the
softmax instead; ``ScheduledEmbeddingTrainingHelper`` replaces each ground-truth input by
the embedding of a sample with probability ``sampling_probability`` (scheduled sampling);
``ScheduledOutputTrainingHelper`` replaces it by the step's output itself.
Samples are TF 1.15's ``Categorical(logits).sample(seed)``: one ``Multinomial`` draw per
row, int32.
"""

from __future__ import annotations

import abc

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.nest import map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.scatter_nd_ops import gather_nd, scatter_nd
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.nn.embedding_ops import embedding_lookup
from scopeflow.ops.random.random_ops import multinomial, random_uniform
from scopeflow.rnn.rnn import _transpose_batch_time

__all__ = ["Helper", "CustomHelper", "TrainingHelper", "GreedyEmbeddingHelper",
           "SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper",
           "ScheduledOutputTrainingHelper", "InferenceHelper"]


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


class CustomHelper(Helper):
    """A helper made of three functions: ``initialize_fn() -> (finished, inputs)``,
    ``sample_fn(time, outputs, state) -> sample_ids`` and ``next_inputs_fn(time, outputs,
    state, sample_ids) -> (finished, next_inputs, next_state)``."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None,
                 sample_ids_dtype=None):
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or dtypes.int32

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        with name_scope(name or f"{type(self).__name__}Initialize"):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = array_ops.size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        with name_scope(name or f"{type(self).__name__}Sample"):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name or f"{type(self).__name__}NextInputs"):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state,
                                        sample_ids=sample_ids)


def _categorical_sample(logits, seed):
    """One int32 class id per row of ``logits`` (TF 1.15's ``Categorical.sample``: a
    ``Multinomial`` draw on the rows flattened to 2-D, reshaped back)."""
    depth = array_ops.shape(logits)[-1]
    draws = multinomial(array_ops.reshape(logits, [-1, depth]), 1, seed=seed,
                        output_dtype=dtypes.int32)
    return array_ops.reshape(draws, array_ops.shape(logits)[:-1])


def _embedding_fn(embedding):
    if callable(embedding):
        return embedding
    return lambda ids: embedding_lookup(embedding, ids)


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
        self._embedding_fn = _embedding_fn(embedding)
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
        return math_ops.cast(math_ops.argmax(outputs, axis=-1), dtypes.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = math_ops.equal(sample_ids, self._end_token)
        all_finished = math_ops.reduce_all(finished)
        next_inputs = cond(all_finished, lambda: self._start_inputs,
                           lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state



class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """``GreedyEmbeddingHelper`` that samples from ``softmax(outputs /
    softmax_temperature)`` instead of taking the argmax."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None,
                 seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        if not isinstance(outputs, Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        logits = outputs if self._softmax_temperature is None else \
            outputs / self._softmax_temperature
        return _categorical_sample(logits, self._seed)


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """``TrainingHelper`` with scheduled sampling: each entry's next input is, with
    probability ``sampling_probability``, the embedding of a sample of its outputs
    instead of the ground truth. Sample ids are -1 where no sampling took place."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability,
                 time_major=False, seed=None, scheduling_seed=None, name=None):
        with name_scope(name or "ScheduledEmbeddingSamplingWrapper"):
            self._embedding_fn = _embedding_fn(embedding)
            self._sampling_probability = convert_to_tensor(sampling_probability,
                                                           name="sampling_probability")
            if self._sampling_probability.shape.ndims not in (0, 1):
                raise ValueError("sampling_probability must be either a scalar or a vector. "
                                 f"saw shape: {self._sampling_probability.shape}")
            self._seed = seed
            self._scheduling_seed = scheduling_seed
            super().__init__(inputs=inputs, sequence_length=sequence_length,
                             time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name or "ScheduledEmbeddingTrainingHelperSample"):
            noise = random_uniform([self.batch_size], seed=self._scheduling_seed)
            select_sample = math_ops.greater(self._sampling_probability, noise)
            return reduction_ops.where(select_sample, _categorical_sample(outputs, self._seed),
                                       reduction_ops.tile([-1], [self.batch_size]))

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name or "ScheduledEmbeddingTrainingHelperSample"):
            finished, base_next_inputs, state = super().next_inputs(
                time=time, outputs=outputs, state=state, sample_ids=sample_ids, name=name)

            def maybe_sample():
                # Sampled rows take the embedding of their sample, the others the truth.
                where_sampling = math_ops.cast(
                    reduction_ops.where(sample_ids > -1), dtypes.int32)
                where_not_sampling = math_ops.cast(
                    reduction_ops.where(sample_ids <= -1), dtypes.int32)
                sampled = self._embedding_fn(array_ops.gather(
                    sample_ids, array_ops.reshape(where_sampling, [-1])))
                kept = array_ops.gather(base_next_inputs,
                                        array_ops.reshape(where_not_sampling, [-1]))
                base_shape = array_ops.shape(base_next_inputs)
                return scatter_nd(where_sampling, sampled, base_shape) + \
                    scatter_nd(where_not_sampling, kept, base_shape)

            next_inputs = cond(math_ops.reduce_all(finished), lambda: base_next_inputs,
                               maybe_sample)
            return finished, next_inputs, state


def _bernoulli_sample(probs, sample_shape, seed):
    """TF 1.15's ``Bernoulli(probs).sample(sample_shape, seed)``: int32 ones where a
    uniform draw of shape ``sample_shape + shape(probs)`` falls below ``probs``."""
    shape = array_ops.concat([array_ops.reshape(sample_shape, [-1]),
                              array_ops.shape(probs)], 0)
    uniform = random_uniform(shape, seed=seed, dtype=probs.dtype)
    return math_ops.cast(math_ops.less(uniform, probs), dtypes.int32)


class ScheduledOutputTrainingHelper(TrainingHelper):
    """``TrainingHelper`` with scheduled sampling on the outputs themselves: with
    probability ``sampling_probability`` an entry's next input is its own output (through
    ``next_inputs_fn`` if given) instead of the ground truth; ``auxiliary_inputs`` are
    concatenated to either. Sample ids are 1 where sampling took place, 0 elsewhere."""

    def __init__(self, inputs, sequence_length, sampling_probability, time_major=False,
                 seed=None, next_inputs_fn=None, auxiliary_inputs=None, name=None):
        with name_scope(name or "ScheduledOutputTrainingHelper"):
            self._sampling_probability = convert_to_tensor(sampling_probability,
                                                           name="sampling_probability")
            if self._sampling_probability.shape.ndims not in (0, 1):
                raise ValueError("sampling_probability must be either a scalar or a vector. "
                                 f"saw shape: {self._sampling_probability.shape}")
            if auxiliary_inputs is None:
                maybe_concatenated_inputs = inputs
            else:
                inputs = convert_to_tensor(inputs, name="inputs")
                auxiliary_inputs = convert_to_tensor(auxiliary_inputs,
                                                     name="auxiliary_inputs")
                maybe_concatenated_inputs = map_structure(
                    lambda x, y: array_ops.concat((x, y), -1), inputs, auxiliary_inputs)
                if not time_major:
                    auxiliary_inputs = map_structure(_transpose_batch_time,
                                                     auxiliary_inputs)
            self._auxiliary_input_tas = None if auxiliary_inputs is None else \
                map_structure(_unstack_ta, auxiliary_inputs)
            self._seed = seed
            self._next_inputs_fn = next_inputs_fn
            super().__init__(inputs=maybe_concatenated_inputs,
                             sequence_length=sequence_length, time_major=time_major,
                             name=name)

    def sample(self, time, outputs, state, name=None):
        with name_scope(name or "ScheduledOutputTrainingHelperSample"):
            return _bernoulli_sample(self._sampling_probability, self.batch_size,
                                     self._seed)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with name_scope(name or "ScheduledOutputTrainingHelperNextInputs"):
            finished, base_next_inputs, state = super().next_inputs(
                time=time, outputs=outputs, state=state, sample_ids=sample_ids, name=name)
            sampling = math_ops.cast(sample_ids, dtypes.bool)

            def with_auxiliary(outputs_, indices=None):
                if self._auxiliary_input_tas is None:
                    return outputs_
                auxiliary = map_structure(lambda ta: ta.read(time + 1),
                                          self._auxiliary_input_tas)
                if indices is not None:
                    auxiliary = gather_nd(auxiliary, indices)
                return map_structure(lambda x, y: array_ops.concat((x, y), -1), outputs_,
                                     auxiliary)

            def maybe_sample():
                if self._next_inputs_fn is None:
                    return reduction_ops.where(sampling, with_auxiliary(outputs),
                                               base_next_inputs)
                # next_inputs_fn only sees the sampled rows; the rest keep the truth.
                where_sampling = math_ops.cast(reduction_ops.where(sampling), dtypes.int32)
                where_not_sampling = math_ops.cast(
                    reduction_ops.where(math_ops.logical_not(sampling)), dtypes.int32)
                sampled = with_auxiliary(
                    self._next_inputs_fn(gather_nd(outputs, where_sampling)),
                    where_sampling)
                kept = gather_nd(base_next_inputs, where_not_sampling)
                base_shape = array_ops.shape(base_next_inputs)
                return scatter_nd(where_sampling, sampled, base_shape) + \
                    scatter_nd(where_not_sampling, kept, base_shape)

            no_samples = math_ops.logical_not(math_ops.reduce_any(sampling))
            next_inputs = cond(math_ops.logical_or(math_ops.reduce_all(finished),
                                                   no_samples),
                               lambda: base_next_inputs, maybe_sample)
            return finished, next_inputs, state


class InferenceHelper(Helper):
    """Inference on outputs that are not token ids: ``sample_fn(outputs)`` gives the
    samples, ``next_inputs_fn(sample_ids)`` the next inputs (the samples themselves without
    it), ``end_fn(sample_ids)`` which entries finished."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn,
                 next_inputs_fn=None):
        self._sample_fn = sample_fn
        self._end_fn = end_fn
        self._sample_shape = TensorShape(sample_shape)
        self._sample_dtype = sample_dtype
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = array_ops.shape(start_inputs)[0]
        self._start_inputs = convert_to_tensor(start_inputs, name="start_inputs")

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_dtype

    def initialize(self, name=None):
        finished = reduction_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        next_inputs = sample_ids if self._next_inputs_fn is None else \
            self._next_inputs_fn(sample_ids)
        return self._end_fn(sample_ids), next_inputs, state
