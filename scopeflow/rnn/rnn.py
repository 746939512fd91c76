"""TF1's recurrent-network drivers.

``tf.nn.static_rnn`` and ``tf.nn.static_bidirectional_rnn`` unroll a cell over a Python list
of time steps, one graph copy of the cell per step. ``tf.nn.dynamic_rnn`` and
``tf.nn.bidirectional_dynamic_rnn`` run one copy of the cell in a ``tf.while_loop`` over
the time steps of one tensor (reading them from a ``TensorArray``, writing the outputs into
another), as TF1's ``_dynamic_rnn_loop`` does, ops under ``rnn/while/``. ``tf.nn.raw_rnn``
runs the cell in a ``tf.while_loop`` whose inputs, stopping and outputs a ``loop_fn``
decides (seq2seq decoders feeding back their predictions).

Variables live under ``rnn/`` (``bidirectional_rnn/fw/``, ``.../bw/``); the first step
creates them and later steps reuse them. With ``sequence_length``, a step at or past a
row's length gives zeros as output and carries the row's state through unchanged (TF's
``_rnn_step`` with its ``Select``s).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.dtypes import as_dtype
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.nest import (
    assert_same_structure,
    flatten,
    is_sequence,
    map_structure,
    pack_sequence_as,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array import reverse_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.op_helpers import _partial_dims, _shape_from_dims
from scopeflow.state.variable_scope import variable_scope

__all__ = ["static_rnn", "static_bidirectional_rnn", "dynamic_rnn",
           "bidirectional_dynamic_rnn", "raw_rnn", "static_state_saving_rnn"]


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
    """Runs ``cell`` over ``inputs`` (a list of ``[batch, depth...]`` tensors, or of nested
    structures of them); returns the list of outputs and the final state."""
    _check_inputs(inputs)
    outputs = []
    with variable_scope(scope or "rnn") as varscope:
        inputs = [map_structure(convert_to_tensor, x) for x in inputs]
        flat_first = flatten(inputs[0])
        batch_size = _static_batch_size(flat_first)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError(
                    "If no initial_state is provided, argument `dtype` must be specified")
            state = cell.zero_state(batch_size, dtype)
        if sequence_length is not None:
            sequence_length, zero_output = _static_sequence_length(
                cell, sequence_length, batch_size, state, flat_first)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, new_state = cell(input_, state)
            if sequence_length is not None:
                done = math_ops.greater_equal(time, sequence_length)
                output = map_structure(
                    lambda zero, new, done=done: _where_rows(done, zero, new),
                    zero_output, output)
                new_state = map_structure(
                    lambda old, new, done=done: _where_rows(done, old, new),
                    state, new_state)
            state = new_state
            outputs.append(output)
    return outputs, state


def _static_batch_size(flat_first):
    """The batch size of the first step's inputs: static where one knows it, else the
    first input's dynamic ``shape[0]``; inputs must have rank >= 2."""
    for x in flat_first:
        if x.shape.ndims is not None and x.shape.ndims < 2:
            raise ValueError(f"Expected inputs to have rank >= 2, got shape {x.shape}")
    batch_size = next((x.shape[0].value for x in flat_first if x.shape.ndims
                       and x.shape[0].value is not None), None)
    if batch_size is None:
        batch_size = array_ops.shape(flat_first[0])[0]
    return batch_size


def _static_sequence_length(cell, sequence_length, batch_size, state, flat_first):
    """``sequence_length`` as an int32 vector, and the zero output a finished row gives."""
    sequence_length = math_ops.cast(sequence_length, dtypes.int32, name="sequence_length")
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError("Argument `sequence_length` must be a vector of length "
                         f"{batch_size}. Received sequence_length={sequence_length}.")
    output_dtype = flatten(state)[0].dtype
    rows = array_ops.shape(flat_first[0])[0]
    zero_output = map_structure(
        lambda size: array_ops.zeros(array_ops.stack([rows] + _dims(size)),
                                     dtype=output_dtype),
        cell.output_size)
    return sequence_length, zero_output


def _where_rows(done, old, new):
    """``old`` in the rows that are ``done``, ``new`` elsewhere, keeping ``new``'s static
    shape (the zeros' shape comes from a ``Pack`` of dynamic sizes)."""
    out = reduction_ops.where(done, old, new)
    out.set_shape(new.shape)
    return out


def _saver_initial_state(state_saver, state_name, state_size):
    """The initial state from ``state_saver.state(name)``, one name per state leaf."""
    if is_sequence(state_size) != is_sequence(state_name):
        raise ValueError("Argument `state_name` should be the same type as "
                         f"`cell.state_size`. Received: state_name={state_name!s}, "
                         f"cell.state_size={state_size!s}.")
    if not is_sequence(state_size):
        return state_saver.state(state_name)
    names, sizes = flatten(state_name), flatten(state_size)
    if len(names) != len(sizes):
        raise ValueError("Number of elements in argument `state_name` and "
                         "`cell.state_size` are mismatched. Received "
                         f"state_name={state_name} with {len(names)} "
                         f"elements and cell.state_size={state_size} with "
                         f"{len(sizes)} elements.")
    return pack_sequence_as(state_size, [state_saver.state(n) for n in names])


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """``static_rnn`` whose initial state comes from ``state_saver.state(name)`` and whose
    final state goes to ``state_saver.save_state(name, value)`` (as TF: the last output
    and the final state are identities that run after the saves).

    ``state_name``: a string, or a structure of strings matching ``cell.state_size``.
    Returns ``(outputs, state)`` as ``static_rnn``.
    """
    state_size = cell.state_size
    initial_state = _saver_initial_state(state_saver, state_name, state_size)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    is_tuple = is_sequence(state_size)
    names = flatten(state_name) if is_tuple else [state_name]
    leaves = flatten(state) if is_tuple else [state]
    saves = [state_saver.save_state(n, v) for n, v in zip(names, leaves)]
    with control_dependencies(saves):
        last = outputs[-1]
        outputs[-1] = pack_sequence_as(last, [array_ops.identity(o) for o in flatten(last)])
        identities = [array_ops.identity(s) for s in leaves]
        state = pack_sequence_as(state, identities) if is_tuple else identities[0]
    return outputs, state


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """A forward and a backward ``static_rnn`` (scopes ``fw`` and ``bw``); each output is
    their outputs concatenated on axis 1. Returns ``(outputs, state_fw, state_bw)``."""
    _check_inputs(inputs)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            reversed_bw, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw,
                                               dtype, sequence_length, scope=bw_scope)
        output_bw = _reverse_seq(reversed_bw, sequence_length)
        outputs = [map_structure(lambda f, b: array_ops.concat([f, b], 1), fw, bw)
                   for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def _reverse_seq(steps, lengths):
    """The list of time steps reversed; with ``lengths``, each row within its length (TF1's
    ``_reverse_seq``: stack, ``ReverseSequence``, unstack, for each part of nested steps)."""
    if lengths is None:
        return list(reversed(steps))
    flat_steps = [flatten(step) for step in steps]
    lengths = math_ops.cast(lengths, dtypes.int64)
    reversed_parts = []
    for part in zip(*flat_steps):
        stacked = array_ops.stack(list(part))
        reversed_ = reverse_ops.reverse_sequence(stacked, lengths, seq_axis=0, batch_axis=1)
        out = array_ops.unstack(reversed_, num=len(steps))
        for before, after in zip(part, out):
            after.set_shape(before.shape)
        reversed_parts.append(out)
    return [pack_sequence_as(step, [parts[t] for parts in reversed_parts])
            for t, step in enumerate(steps)]


# ── dynamic_rnn ──────────────────────────────────────────────────────────────────────
def _transpose_batch_time(x):
    """``[batch, time, ...]`` <-> ``[time, batch, ...]``."""
    rank = x.shape.ndims
    if rank is not None and rank < 2:
        raise ValueError(f"Expected input tensor {x} to have rank at least 2")
    perm = [1, 0] + list(range(2, rank)) if rank is not None else None
    if perm is None:
        r = array_ops.rank(x)
        perm = array_ops.concat([[1, 0], math_ops.range(2, r)], 0)
    return array_ops.transpose(x, perm)


def _dims(size):
    return list(size.as_list()) if isinstance(size, TensorShape) else \
        list(size) if isinstance(size, (list, tuple)) else [size]


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` (``[batch, time, depth]``, or
    ``[time, batch, depth]`` with ``time_major``) in a ``tf.while_loop``; returns
    ``(outputs, final_state)``.

    With ``sequence_length``, steps at or past a row's length output zeros and leave its
    state as it was, and the loop stops after the longest row (TF1's rules).
    """
    with variable_scope(scope or "rnn"):
        flat_input = [convert_to_tensor(x) for x in flatten(inputs)]
        if not time_major:
            flat_input = [_transpose_batch_time(x) for x in flat_input]
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size, "
                                 f"but saw shape: {sequence_length.shape}")
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_batch_size(flat_input)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If there is no initial_state, you must give a dtype.")
            state = cell.zero_state(batch_size, dtype)
        inputs_tm = pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs_tm, state, swap_memory,
                                                 sequence_length, dtype)
        if not time_major:
            outputs = map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _best_effort_batch_size(flat_input):
    for x in flat_input:
        if x.shape.ndims is not None and x.shape.ndims < 2:
            raise ValueError(f"Expected input tensor {x} to have rank at least 2")
        dim = x.shape.as_tuple()[1] if x.shape.ndims is not None else None
        if dim is not None:
            return dim
    return array_ops.shape(flat_input[0])[1]


def _dynamic_rnn_loop(cell, inputs, initial_state, swap_memory, sequence_length, dtype):
    state = initial_state
    flat_input = flatten(inputs)
    flat_output_size = flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_batch_size(flat_input)
    got_shapes = [x.shape for x in flat_input]
    const_time_steps = got_shapes[0].as_tuple()[0] if got_shapes[0].ndims else None
    const_batch_size = batch_size if isinstance(batch_size, int) else None
    state_dtype = _infer_state_dtype(dtype, state)
    if sequence_length is not None:
        max_len = math_ops.reduce_max(sequence_length)
        zero_output = map_structure(
            lambda size: array_ops.zeros(
                array_ops.stack([batch_size] + _dims(size)), dtype=state_dtype),
            cell.output_size)
    else:
        max_len = time_steps
    time = constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass
    output_tas = [TensorArray(state_dtype, size=time_steps, element_shape=TensorShape(
                      [const_batch_size] + _dims(size)),
                      tensor_array_name=f"{base_name}output_{i}")
                  for i, size in enumerate(flat_output_size)]
    input_tas = _unstacked_inputs(flat_input, time_steps, base_name)

    def time_step(time, output_tas, state):
        input_t = [ta.read(time) for ta in input_tas]
        for x, shape in zip(input_t, got_shapes):
            if shape.ndims is not None:
                x.set_shape(shape[1:])
        input_t = pack_sequence_as(inputs, input_t)
        output, new_state = cell(input_t, state)
        if sequence_length is not None:
            output, new_state = _past_the_end(math_ops.greater_equal(time, sequence_length),
                                              zero_output, output, state, new_state)
        output_tas = [ta.write(time, out) for ta, out in zip(output_tas, flatten(output))]
        return time + 1, output_tas, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_len))
    _, output_tas, final_state = while_loop(
        lambda time, *_: time < loop_bound, time_step, (time, output_tas, state),
        maximum_iterations=time_steps, swap_memory=swap_memory)
    outputs = _stacked_outputs(output_tas, flat_output_size, const_time_steps,
                               const_batch_size)
    return pack_sequence_as(cell.output_size, outputs), final_state


def _infer_state_dtype(dtype, state):
    """TF's ``_infer_state_dtype``: an explicit dtype wins (a cell's state may be int32
    while its outputs are float32); otherwise the state's."""
    state_leaves = [x for x in flatten(state) if not isinstance(x, TensorArray)]
    return as_dtype(dtype) if dtype is not None else \
        state_leaves[0].dtype.base_dtype if state_leaves else None


def _stacked_outputs(output_tas, flat_output_size, const_time_steps, const_batch_size):
    """Each output TensorArray stacked, ``[time, batch, size...]`` with the static dims."""
    outputs = []
    for ta, size in zip(output_tas, flat_output_size):
        out = ta.stack()
        out.set_shape(TensorShape([const_time_steps, const_batch_size] + _dims(size)))
        outputs.append(out)
    return outputs


def _unstacked_inputs(flat_input, time_steps, base_name):
    """A TensorArray per (time-major) input, unstacked along time."""
    return [TensorArray(x.dtype, size=time_steps, element_shape=x.shape[1:]
                        if x.shape.ndims is not None else None,
                        tensor_array_name=f"{base_name}input_{i}").unstack(x)
            for i, x in enumerate(flat_input)]


def _past_the_end(done, zero_output, output, state, new_state):
    """A step's output and state where the sequences that ended (``done``) give zeros and
    keep their state."""
    output = map_structure(lambda zero, new: reduction_ops.where(done, zero, new),
                           zero_output, output)
    new_state = map_structure(lambda old, new: _copy_one_through(done, old, new),
                              state, new_state)
    return output, new_state


def _copy_one_through(done, old, new):
    """TF's rule: TensorArrays and scalars in a state (an attention wrapper's history and
    time) pass through; other parts keep their old value where the sequence ended."""
    if isinstance(old, TensorArray) or old.shape.ndims == 0:
        return new
    return reduction_ops.where(done, old, new)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """A forward and a backward ``dynamic_rnn`` (scopes ``bidirectional_rnn/fw`` and
    ``/bw``); the backward one reads each row reversed (within its length, with
    ``sequence_length``). Returns ``((output_fw, output_bw), (state_fw, state_bw))``."""
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                parallel_iterations, swap_memory, time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def reverse(x):
            if sequence_length is not None:
                return reverse_ops.reverse_sequence(x, seq_lengths=sequence_length,
                                                    seq_axis=time_axis, batch_axis=batch_axis)
            return reverse_ops.reverse(x, axis=[time_axis])

        with variable_scope("bw") as bw_scope:
            reversed_inputs = map_structure(reverse, inputs)
            tmp, state_bw = dynamic_rnn(
                cell_bw, reversed_inputs, sequence_length, initial_state_bw, dtype,
                parallel_iterations, swap_memory, time_major, scope=bw_scope)
    output_bw = map_structure(reverse, tmp)
    return (output_fw, output_bw), (state_fw, state_bw)


# ── raw_rnn ──────────────────────────────────────────────────────────────────────────
def _as_shape(size):
    """A size (int, list, TensorShape or 1-D int tensor) as a TensorShape (TF's
    ``_maybe_tensor_shape_from_tensor``)."""
    if isinstance(size, TensorShape):
        return size
    if isinstance(size, Tensor):
        return _shape_from_dims(_partial_dims(size))
    return TensorShape(_dims(size))


def _concat_batch(batch_size, size):
    """``[batch_size] + size`` as a shape for ``zeros``: a list when both are static, else
    a 1-D tensor (TF's ``rnn_cell_impl._concat``)."""
    if isinstance(size, Tensor):
        return array_ops.concat([array_ops.reshape(batch_size, [1]), size], 0) \
            if isinstance(batch_size, Tensor) else \
            array_ops.concat([constant([batch_size]), size], 0)
    dims = _dims(size)
    if isinstance(batch_size, Tensor):
        return array_ops.stack([batch_size] + dims)
    return [batch_size] + dims


def _raw_rnn_batch_size(flat_input):
    """``(const_batch_size, batch_size)`` of ``loop_fn``'s first inputs: the static size
    (or None) they agree on, and that size or the first input's dynamic ``shape[0]``."""
    input_shape = [convert_to_tensor(x).shape for x in flat_input]
    static_batch_size = input_shape[0][0] if input_shape[0].ndims else \
        TensorShape([None])[0]
    for shape_i in input_shape:
        other = shape_i[0] if shape_i.ndims else TensorShape([None])[0]
        static_batch_size.assert_is_compatible_with(other)
    batch_size = static_batch_size.value
    const_batch_size = batch_size
    if batch_size is None:
        batch_size = array_ops.shape(flat_input[0])[0]
    return const_batch_size, batch_size


def _raw_rnn_emit_arrays(cell, emit_structure, flat_state, const_batch_size, batch_size):
    """The TensorArrays the loop writes emitted outputs into, and the zeros finished rows
    emit, both in ``emit_structure`` (the cell's output structure when it is None)."""
    if emit_structure is not None:
        flat_emit_structure = flatten(emit_structure)
        flat_emit_size = [emit.shape if emit.shape.is_fully_defined()
                          else array_ops.shape(emit) for emit in flat_emit_structure]
        flat_emit_dtypes = [emit.dtype for emit in flat_emit_structure]
    else:
        emit_structure = cell.output_size
        flat_emit_size = flatten(emit_structure)
        flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)

    flat_emit_ta = [
        TensorArray(dtype=dtype_i, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                    element_shape=TensorShape([const_batch_size]).concatenate(
                        _as_shape(size_i)))
        for i, (dtype_i, size_i) in enumerate(zip(flat_emit_dtypes, flat_emit_size))]
    emit_ta = pack_sequence_as(emit_structure, flat_emit_ta)
    flat_zero_emit = [array_ops.zeros(_concat_batch(batch_size, size_i), dtype_i)
                      for size_i, dtype_i in zip(flat_emit_size, flat_emit_dtypes)]
    return emit_ta, pack_sequence_as(emit_structure, flat_zero_emit)


def _raw_rnn_body(cell, loop_fn, zero_emit):
    """The while-loop body of ``raw_rnn``: one cell step, then ``loop_fn``; finished rows
    emit zeros and keep their state (``_copy_one_through``)."""

    def body(time, elements_finished, current_input, emit_ta, state, loop_state):
        next_output, cell_state = cell(current_input, state)
        assert_same_structure(state, cell_state)
        assert_same_structure(cell.output_size, next_output)
        next_time = time + 1
        (next_finished, next_input, next_state, emit_output,
         next_loop_state) = loop_fn(next_time, next_output, cell_state, loop_state)
        assert_same_structure(state, next_state)
        assert_same_structure(current_input, next_input)
        assert_same_structure(emit_ta, emit_output)
        loop_state = loop_state if next_loop_state is None else next_loop_state

        def copy_fn(cur_i, cand_i):
            return _copy_one_through(elements_finished, cur_i, cand_i)

        emit_output = map_structure(copy_fn, zero_emit, emit_output)
        next_state = map_structure(copy_fn, state, next_state)
        emit_ta = map_structure(lambda ta, emit: ta.write(time, emit), emit_ta,
                                emit_output)
        elements_finished = math_ops.logical_or(elements_finished, next_finished)
        return (next_time, elements_finished, next_input, emit_ta, next_state,
                loop_state)

    return body


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs ``cell`` in a ``tf.while_loop`` driven by ``loop_fn`` (TF1's ``raw_rnn``).

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns ``(finished, next_input,
    next_cell_state, emit_output, next_loop_state)``; it is called once with ``time = 0``
    and ``None``s (giving the first input, the initial state and, as ``emit_output``, the
    structure emitted, or ``None`` for the cell's output), then after each step. Rows that
    finished emit zeros and keep their state; the loop stops when all have finished.
    Returns ``(emit_ta, final_state, final_loop_state)``: TensorArrays of the emitted
    outputs, time-major (``final_loop_state`` is None when ``loop_fn`` keeps none).
    """
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with variable_scope(scope or "rnn"):
        time = constant(0, dtype=dtypes.int32)
        (elements_finished, next_input, initial_state, emit_structure,
         init_loop_state) = loop_fn(time, None, None, None)
        flat_input = flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None else \
            constant(0, dtype=dtypes.int32)

        const_batch_size, batch_size = _raw_rnn_batch_size(flat_input)

        assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(x) for x in flatten(initial_state)]
        state = pack_sequence_as(initial_state, flat_state)
        emit_ta, zero_emit = _raw_rnn_emit_arrays(cell, emit_structure, flat_state,
                                                  const_batch_size, batch_size)

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        returned = while_loop(
            condition, _raw_rnn_body(cell, loop_fn, zero_emit),
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state
