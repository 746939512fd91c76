"""``tf.contrib.seq2seq.sequence_loss`` (TF 1.15): weighted cross entropy of a sequence
of logits, averaged or summed over time steps and/or the batch."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import name_scope
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.math.statistics_ops import count_nonzero
from scopeflow.ops.nn.nn_loss_ops import sparse_softmax_cross_entropy_with_logits

__all__ = ["sequence_loss"]


def _check_ranks(logits, targets, weights):
    if len(logits.get_shape()) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if len(targets.get_shape()) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.get_shape()) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")


def _count(weights, axis=None):
    """How many weights are nonzero, as float32: the divisor of the ``sum_over_*``
    modes."""
    return math_ops.cast(count_nonzero(weights, axis=axis), dtypes.float32)


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """The cross entropy of ``logits`` (``[batch, time, classes]``) against ``targets``
    (``[batch, time]`` ids), each term times ``weights`` (``[batch, time]``).

    ``average_across_*`` divide the summed losses by the summed weights over that axis,
    ``sum_over_*`` by the count of nonzero weights (each division ``div_no_nan``). With
    neither on an axis, that axis stays in the result. ``softmax_loss_function(labels=,
    logits=)`` replaces the sparse softmax cross entropy.
    """
    _check_ranks(logits, targets, weights)
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with name_scope(name or "sequence_loss"):
        num_classes = array_ops.shape(logits)[2]
        logits_flat = array_ops.reshape(logits, [-1, num_classes])
        targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = sparse_softmax_cross_entropy_with_logits(labels=targets,
                                                                logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= array_ops.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent),
                                       math_ops.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent), _count(weights))
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                                       math_ops.reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                                       _count(weights, axis))
        return crossent
