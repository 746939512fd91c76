"""``tf.nn.static_rnn`` and ``tf.nn.static_bidirectional_rnn``: a cell unrolled over a
Python list of time steps, one graph copy of the cell per step, as TF1 builds them.

Variables live under ``rnn/`` (``bidirectional_rnn/fw/``, ``.../bw/``); the first step
creates them and later steps reuse them. With ``sequence_length``, a step at or past a
row's length gives zeros as output and carries the row's state through unchanged (TF's
``_rnn_step`` with its ``Select``s).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.ops import array_ops, math_ops, reduction_ops
from scopeflow.rnn_cell import flatten, map_structure
from scopeflow.variable_scope import variable_scope

__all__ = ["static_rnn", "static_bidirectional_rnn"]


def _check_inputs(inputs):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")


def _batch_size(first_input):
    static = first_input.shape[0].value if first_input.shape.ndims else None
    if static is not None:
        return static
    return array_ops.shape(first_input)[0]


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """Runs ``cell`` over ``inputs`` (a list of ``[batch, depth]`` tensors); returns the
    list of outputs and the final state."""
    _check_inputs(inputs)
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        inputs = [convert_to_tensor(x) for x in inputs]
        first = inputs[0]
        if first.shape.ndims is not None and first.shape.ndims < 2:
            raise ValueError(f"Expected inputs to have rank >= 2, got shape {first.shape}")
        batch_size = _batch_size(first)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError(
                    "If no initial_state is provided, argument `dtype` must be specified")
            state = cell.zero_state(batch_size, dtype)
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32,
                                            name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            output_dtype = flatten(state)[0].dtype
            zero_output = array_ops.zeros(
                array_ops.stack([array_ops.shape(first)[0], cell.output_size]),
                dtype=output_dtype)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, new_state = cell(input_, state)
            if sequence_length is not None:
                done = math_ops.greater_equal(time, sequence_length)
                output = reduction_ops.where(done, zero_output, output)
                new_state = map_structure(
                    lambda old, new, done=done: reduction_ops.where(done, old, new),
                    state, new_state)
            state = new_state
            outputs.append(output)
    return outputs, state


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """A forward and a backward ``static_rnn`` (scopes ``fw`` and ``bw``); each output is
    their outputs concatenated on axis 1. Returns ``(outputs, state_fw, state_bw)``."""
    _check_inputs(inputs)
    if sequence_length is not None:
        raise NotImplementedError(
            "tf.nn.static_bidirectional_rnn with sequence_length (it reverses each row "
            "within its length with ReverseSequence, which scopeflow lacks)")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_bw, state_bw = static_rnn(cell_bw, list(reversed(inputs)),
                                               initial_state_bw, dtype, scope=bw_scope)
        output_bw = list(reversed(reversed_bw))
        outputs = [array_ops.concat([fw, bw], 1) for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw
