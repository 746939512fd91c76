"""``tf.contrib.seq2seq.gather_tree`` (TF 1.15): the beams of a beam search, traced back
from each beam's last step through its parents.

TF 1.15 ran this as its own kernel (op type ``GatherTree``, gone from TF 2.21's core, so
it has no op signature to match); here it is built from core ops: a ``tf.while_loop``
over the time steps backwards, gathering each beam's id and parent (``gather`` with
``batch_dims=1``), then every step after a beam's first ``end_token`` set to
``end_token``, as TF's kernel does for broken trajectories. Steps at or past a batch
entry's ``max_sequence_lengths`` hold ``end_token``. A parent id outside ``[0, beam)``
raises InvalidArgumentError with the kernel's message (an Assert before each step's
gather). No gradient, as TF's
(``NotDifferentiable``): the result is integer ids.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import control_dependencies, convert_to_tensor, name_scope
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.tensor_array_ops import TensorArray
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.io.io_ops import string_join
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.math.scan_ops import cumsum
from scopeflow.ops.strings.string_ops import as_string

__all__ = ["gather_tree"]


def _check_ranks(step_ids, parent_ids, max_sequence_lengths, end_token):
    for t, rank, what in ((step_ids, 3, "step_ids"), (parent_ids, 3, "parent_ids"),
                          (max_sequence_lengths, 1, "max_sequence_lengths"),
                          (end_token, 0, "end_token")):
        if t.shape.ndims is not None and t.shape.ndims != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {t.shape.ndims} for "
                             f"'{what}'")
    step_ids.shape.assert_is_compatible_with(parent_ids.shape)


def _check_parents(parent, active, t, beam):
    """An Assert, at step ``t``, that the parents the traced beams are about to follow are
    beams, with the GatherTree kernel's message for the first that is not (its batch entry,
    the step and the beam the trace started from)."""
    bad = math_ops.logical_and(active, math_ops.logical_or(
        math_ops.less(parent, 0), math_ops.greater_equal(parent, beam)))
    first = math_ops.cast(math_ops.argmax(math_ops.cast(
        array_ops.reshape(bad, [-1]), dtypes.int32)), dtypes.int32)
    b, k = math_ops.floordiv(first, beam), math_ops.floormod(first, beam)
    message = string_join([
        "Saw invalid parent id ", as_string(array_ops.reshape(parent, [-1])[first]),
        " at (batch, time, beam) == (", as_string(b), ", ", as_string(t), ", ",
        as_string(k), ")"])
    return Assert(math_ops.logical_not(math_ops.reduce_any(bad)), [message])


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """``step_ids``/``parent_ids``: ``[max_time, batch, beam]`` int32;
    ``max_sequence_lengths``: ``[batch]``; returns the traced-back ids, ``[max_time,
    batch, beam]``."""
    with name_scope(name or "GatherTree"):
        step_ids = convert_to_tensor(step_ids, dtype=dtypes.int32, name="step_ids")
        parent_ids = convert_to_tensor(parent_ids, dtype=dtypes.int32, name="parent_ids")
        lengths = convert_to_tensor(max_sequence_lengths, dtype=dtypes.int32,
                                    name="max_sequence_lengths")
        end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        _check_ranks(step_ids, parent_ids, lengths, end_token)
        shape = array_ops.shape(step_ids)
        max_time, beam = shape[0], shape[2]
        start_parent = reduction_ops.tile(
            array_ops.expand_dims(math_ops.range(beam), 0), array_ops.stack([shape[1], 1]))
        beams_ta = TensorArray(dtypes.int32, size=max_time, element_shape=None)

        def body(t, parent, beams_ta):
            # ``t`` counts down; a beam is traced only within its batch entry's length.
            active = array_ops.expand_dims(math_ops.less(t, lengths), 1)
            with control_dependencies([_check_parents(parent, active, t, beam)]):
                ids = array_ops.gather(step_ids[t], parent, batch_dims=1)
            beams_ta = beams_ta.write(t, reduction_ops.where_v2(active, ids, end_token))
            next_parent = reduction_ops.where_v2(
                active, array_ops.gather(parent_ids[t], parent, batch_dims=1), parent)
            return t - 1, next_parent, beams_ta

        _, _, beams_ta = while_loop(lambda t, *_: t >= 0, body,
                                    (max_time - 1, start_parent, beams_ta))
        beams = beams_ta.stack()
        seen_end = cumsum(math_ops.cast(math_ops.equal(beams, end_token), dtypes.int32),
                          axis=0, exclusive=True) > 0
        beams = reduction_ops.where_v2(seen_end, end_token, beams)
        beams.set_shape(step_ids.shape.merge_with(parent_ids.shape))
        return beams

