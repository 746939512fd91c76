"""``tf.contrib.seq2seq``'s decoder interface and ``dynamic_decode`` (TF 1.15).

A ``Decoder`` says how to start (``initialize``) and how to take one step (``step``);
``dynamic_decode`` runs the steps in one ``tf.while_loop`` (variables and ops under
``decoder/``), writing each step's outputs into ``TensorArray``s, until every batch entry
has finished or ``maximum_iterations`` steps ran. It returns the outputs (batch-major
unless ``output_time_major``), the final state and each entry's length (the step at which
it first finished, plus one).
"""

from __future__ import annotations

import abc

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.framework.nest import assert_same_structure, map_structure
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.math import reduction_ops
from scopeflow.rnn.rnn import _transpose_batch_time
from scopeflow.state.variable_scope import variable_scope

__all__ = ["Decoder", "dynamic_decode"]


class Decoder(abc.ABC):
    """What ``dynamic_decode`` drives: ``initialize()`` gives ``(finished, first_inputs,
    initial_state)``; ``step(time, inputs, state)`` gives ``(outputs, next_state,
    next_inputs, finished)``. ``finalize`` may rewrite the stacked outputs (beam search
    does); the default raises NotImplementedError, which ``dynamic_decode`` skips."""

    @property
    def batch_size(self):
        """The batch size of the input (a scalar int32 tensor or a Python int)."""
        raise NotImplementedError

    @property
    def output_size(self):
        """A (nested) ``TensorShape`` per output, without the batch dimension."""
        raise NotImplementedError

    @property
    def output_dtype(self):
        """A (nested) dtype per output, nested as ``output_size``."""
        raise NotImplementedError

    @abc.abstractmethod
    def initialize(self, name=None):
        """Returns ``(finished, initial_inputs, initial_state)``."""

    @abc.abstractmethod
    def step(self, time, inputs, state, name=None):
        """Returns ``(outputs, next_state, next_inputs, finished)``."""

    def finalize(self, outputs, final_state, sequence_lengths):
        """Rewrites the stacked outputs and the final state; by default there is nothing
        to rewrite."""
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        """Whether ``step``'s ``finished`` already includes the entries that finished
        before (then ``dynamic_decode`` does not OR it with its own)."""
        return False


def _static_batch(batch_size):
    """The batch size as a Python int, or None where it is only known at run time."""
    if isinstance(batch_size, int):
        return batch_size
    value = constant_value(convert_to_tensor(batch_size, name="batch_size"))
    return None if value is None else int(value)


def _element_shape(batch_size, size):
    """The shape of one step's output: ``[batch] + size`` (unknown for scalar sizes, as
    TF)."""
    if not isinstance(size, TensorShape) or size.ndims == 0:
        return TensorShape(None)
    return TensorShape([_static_batch(batch_size)]).concatenate(size)


def _zeros(size, dtype, batch_size):
    """Zeros of ``[batch_size] + size``: what finished entries emit under
    ``impute_finished``."""
    dims = list(size.as_list()) if isinstance(size, TensorShape) else \
        list(size) if isinstance(size, (list, tuple)) else [size]
    if isinstance(batch_size, int):
        return array_ops.zeros([batch_size] + dims, dtype=dtype)
    return array_ops.zeros(array_ops.stack([batch_size] + dims), dtype=dtype)


def _check_max_iterations(maximum_iterations):
    if maximum_iterations is None:
        return None
    maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dtypes.int32,
                                           name="maximum_iterations")
    if maximum_iterations.shape.ndims != 0:
        raise ValueError("maximum_iterations must be a scalar")
    return maximum_iterations


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None):
    """Runs ``decoder`` in a ``tf.while_loop`` until all entries finished (or
    ``maximum_iterations`` steps); returns ``(final_outputs, final_state,
    final_sequence_lengths)``.

    With ``impute_finished``, finished entries emit zeros and keep their state, so the
    final state is each entry's state at its end. The caching device TF sets outside loops
    changes nothing on one CPU, so none is set here.
    """
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with variable_scope(scope, "decoder"):
        maximum_iterations = _check_max_iterations(maximum_iterations)
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        zero_outputs = map_structure(
            lambda size, dtype: _zeros(size, dtype, decoder.batch_size),
            decoder.output_size, decoder.output_dtype)
        if maximum_iterations is not None:
            initial_finished = math_ops.logical_or(
                initial_finished, math_ops.greater_equal(0, maximum_iterations))
        initial_sequence_lengths = array_ops.zeros_like(initial_finished, dtype=dtypes.int32)
        initial_time = constant(0, dtype=dtypes.int32)
        initial_outputs_ta = map_structure(
            lambda size, dtype: TensorArray(
                dtype=dtype, size=0, dynamic_size=True,
                element_shape=_element_shape(decoder.batch_size, size)),
            decoder.output_size, decoder.output_dtype)
        body = _loop_body(decoder, impute_finished, zero_outputs)
        res = while_loop(
            lambda time, outputs_ta, state, inputs, finished, lengths:
                math_ops.logical_not(math_ops.reduce_all(finished)),
            body,
            loop_vars=(initial_time, initial_outputs_ta, initial_state, initial_inputs,
                       initial_finished, initial_sequence_lengths),
            parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations,
            swap_memory=swap_memory)
        final_state, final_sequence_lengths = res[2], res[5]
        final_outputs = map_structure(lambda ta: ta.stack(), res[1])
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state,
                                                          final_sequence_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths


def _loop_body(decoder, impute_finished, zero_outputs):
    """The while-loop body: one decoder step, the lengths of entries still running bumped
    to ``time + 1``, and (with ``impute_finished``) finished entries' outputs zeroed and
    states copied through."""

    def maybe_copy_state(new, cur, finished):
        # TensorArrays and scalar states pass through (TF's rule).
        if isinstance(cur, TensorArray):
            return new
        new.set_shape(cur.shape)
        return new if new.shape.ndims == 0 else reduction_ops.where(finished, cur, new)

    def body(time, outputs_ta, state, inputs, finished, sequence_lengths):
        next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(
            time, inputs, state)
        if decoder.tracks_own_finished:
            next_finished = decoder_finished
        else:
            next_finished = math_ops.logical_or(decoder_finished, finished)
        next_sequence_lengths = reduction_ops.where(
            math_ops.logical_not(finished),
            reduction_ops.fill(array_ops.shape(sequence_lengths), time + 1),
            sequence_lengths)
        assert_same_structure(state, decoder_state)
        assert_same_structure(outputs_ta, next_outputs)
        assert_same_structure(inputs, next_inputs)
        emit, next_state = next_outputs, decoder_state
        if impute_finished:
            emit = map_structure(lambda out, zero: reduction_ops.where(finished, zero, out),
                                 next_outputs, zero_outputs)
            next_state = map_structure(lambda new, cur: maybe_copy_state(new, cur, finished),
                                       decoder_state, state)
        outputs_ta = map_structure(lambda ta, out: ta.write(time, out), outputs_ta, emit)
        return (time + 1, outputs_ta, next_state, next_inputs, next_finished,
                next_sequence_lengths)

    return body
