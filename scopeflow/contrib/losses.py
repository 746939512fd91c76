"""``tf.contrib.losses`` (``slim.losses``) as TF 1.15 had it.

These are the losses that came before ``tf.losses``, and slim programs still call them:
``slim.losses.softmax_cross_entropy(logits, onehot_labels)``, then
``slim.losses.get_total_loss()``. They differ from ``tf.losses`` in ways that change results,
which is why they are not aliases of it:

- the network's output comes first (``logits``/``predictions``, then the labels);
- ``weights`` may have fewer dimensions than the losses (``[batch]`` weights for
  ``[batch, d]`` losses): each loss is first summed over the dimensions ``weights`` lacks,
  and a trailing size-1 dimension of ``weights`` is squeezed;
- the mean divides by the number of loss elements whose weight is non-zero, a weight
  counting once for every element it broadcasts over (0 when none is, TF's "safe" mean);
- ``hinge_loss`` returns the unweighted per-element losses and adds nothing to a collection.

Every other loss adds its scalar to ``tf.GraphKeys.LOSSES`` and is named
``<loss scope>/value`` (``softmax_cross_entropy_loss/value``), as TF's.
"""

from __future__ import annotations

import contextlib

from scopeflow.contrib.arg_scope import add_arg_scope
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    convert_to_tensor,
    name_scope,
)
from scopeflow.losses.losses_impl import get_losses, get_regularization_losses
from scopeflow.ops import array_ops, math_ops, nn_ops

__all__ = ["absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
           "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]


# ── the collections ─────────────────────────────────────────────────────────────────
@add_arg_scope
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (nothing when it is None or empty), so that
    :func:`get_total_loss` counts a loss built by hand."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the ``LOSSES`` collection and, unless ``add_regularization_losses`` is
    False, of ``REGULARIZATION_LOSSES`` (the layers' ``weights_regularizer`` terms)."""
    losses = get_losses()
    if add_regularization_losses:
        losses = losses + get_regularization_losses()
    if not losses:
        raise ValueError("tf.contrib.losses.get_total_loss: there are no losses to add up "
                         "(the LOSSES and REGULARIZATION_LOSSES collections are empty)")
    return math_ops.add_n(losses, name=name)


# ── the weighted mean every loss ends with ──────────────────────────────────────────
def _safe_div(numerator, denominator, name="value"):
    """``numerator / denominator``, 0 where ``denominator`` is 0 (the inner ``where`` keeps
    the division itself finite, so no NaN reaches the gradient either)."""
    positive = math_ops.greater(denominator, 0)
    safe = math_ops.where(math_ops.equal(denominator, 0), array_ops.ones_like(denominator),
                          denominator)
    return math_ops.where(positive, math_ops.div(numerator, safe),
                          array_ops.zeros_like(numerator), name=name)


def _scale_losses(losses, weights):
    """``sum(losses * weights)`` with ``weights`` of rank r <= rank(losses): ``losses`` is
    summed over its dimensions from r on first, then weighted."""
    axes = list(range(max(0, weights.shape.ndims), losses.shape.ndims))
    reduced = math_ops.reduce_sum(losses, axis=axes)
    return math_ops.reduce_sum(math_ops.multiply(reduced, weights))


def _num_present(losses, weights, per_batch=False):
    """How many elements of ``losses`` have a non-zero weight once ``weights`` is broadcast
    over them: in total, or per example (a ``[batch]`` vector) with ``per_batch``."""
    if weights.shape.ndims == 0:
        batch_size = array_ops.reshape(array_ops.slice(array_ops.shape(losses), [0], [1]),
                                       [])
        per_example = math_ops.div(math_ops.to_float(array_ops.size(losses)),
                                   math_ops.to_float(batch_size))
        per_example = math_ops.where(math_ops.equal(weights, 0), 0.0, per_example)
        counts = math_ops.multiply(
            array_ops.ones(array_ops.reshape(batch_size, [1])), per_example)
    else:
        nonzero = math_ops.reduce_sum(
            math_ops.to_float(math_ops.not_equal(weights, 0)),
            axis=list(range(1, weights.shape.ndims)))
        broadcast_dims = array_ops.slice(array_ops.shape(losses), [weights.shape.ndims], [-1])
        counts = math_ops.multiply(nonzero,
                                   math_ops.to_float(math_ops.reduce_prod(broadcast_dims)))
    return counts if per_batch else math_ops.reduce_sum(counts)


def _known_rank_weights(weights, losses, where):
    """``weights`` as float32, of a known rank (and ``losses``' rank known): the reduction
    depends on both ranks."""
    weights = math_ops.to_float(convert_to_tensor(weights))
    if losses.shape.ndims is None:
        raise ValueError(f"tf.contrib.losses.{where}: the rank of the losses must be known")
    if weights.shape.ndims is None:
        raise ValueError(f"tf.contrib.losses.{where}: the rank of weights must be known")
    return weights


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted mean of ``losses`` (``[batch, d1, ... dN]``) over the elements whose
    weight is non-zero, ``weights`` a scalar or of shape ``[batch, d1, ... dK]``, K <= N;
    added to ``LOSSES``. Named ``<scope>/value``, of ``losses``' dtype.

    >>> tf.contrib.losses.compute_weighted_loss([[1.0, 3.0], [5.0, 7.0]], [1.0, 0.0]).name
    'weighted_loss/value:0'
    """
    with name_scope(scope, "weighted_loss", [losses, weights]):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype.base_dtype
        losses = math_ops.to_float(losses)
        weights = _known_rank_weights(weights, losses, "compute_weighted_loss")
        if weights.shape.ndims > 1 and weights.shape[-1] in (1, None):
            weights = array_ops.squeeze(weights, [-1])
        total = _scale_losses(losses, weights)
        mean = _safe_div(math_ops.reduce_sum(total), _num_present(losses, weights))
        mean = math_ops.cast(mean, input_dtype)
        add_loss(mean)
        return mean


# ── the losses ──────────────────────────────────────────────────────────────────────
@contextlib.contextmanager
def _loss_scope(where, scope, default_name, first, second, weights=None,
                names=("predictions", "labels")):
    """Opens the loss's name scope; yields it with ``first`` and ``second`` as tensors of
    compatible shapes (the error names the function and the arguments)."""
    if second is None:
        raise ValueError(f"tf.contrib.losses.{where}: `{names[1]}` must not be None")
    values = [first, second] if weights is None else [first, second, weights]
    with name_scope(scope, default_name, values) as opened:
        first, second = convert_to_tensor(first), convert_to_tensor(second)
        if not first.shape.is_compatible_with(second.shape):
            raise ValueError(f"tf.contrib.losses.{where}: the shapes of `{names[0]}` "
                             f"{first.shape} and `{names[1]}` {second.shape} are "
                             "incompatible")
        yield opened, first, second


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    """The weighted mean of ``|predictions - labels|``.

    >>> tf.contrib.losses.absolute_difference([1.0, 2.0], [3.0, 2.0]).name
    'absolute_difference/value:0'
    """
    with _loss_scope("absolute_difference", scope, "absolute_difference", predictions,
                     labels, weights) as (scope, predictions, labels):
        losses = math_ops.abs(math_ops.subtract(math_ops.to_float(predictions),
                                                math_ops.to_float(labels)))
        return compute_weighted_loss(losses, weights, scope=scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """The weighted mean of ``(predictions - labels) ** 2``."""
    with _loss_scope("mean_squared_error", scope, "mean_squared_error", predictions,
                     labels, weights) as (scope, predictions, labels):
        losses = math_ops.square(math_ops.subtract(math_ops.to_float(predictions),
                                                   math_ops.to_float(labels)))
        return compute_weighted_loss(losses, weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    """The weighted mean of ``-labels log(p + eps) - (1 - labels) log(1 - p + eps)``,
    ``p`` the predicted probabilities."""
    with _loss_scope("log_loss", scope, "log_loss", predictions, labels,
                     weights) as (scope, predictions, labels):
        predictions, labels = math_ops.to_float(predictions), math_ops.to_float(labels)
        losses = math_ops.subtract(
            math_ops.negative(math_ops.multiply(labels, math_ops.log(predictions + epsilon))),
            math_ops.multiply(1 - labels, math_ops.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope=scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    """The weighted mean of ``sigmoid_cross_entropy_with_logits``; ``label_smoothing`` moves
    the labels towards 1/2: ``labels * (1 - s) + s / 2``."""
    with _loss_scope("sigmoid_cross_entropy", scope, "sigmoid_cross_entropy_loss", logits,
                     multi_class_labels, weights, ("logits", "multi_class_labels")) as (
                         scope, logits, labels):
        labels = math_ops.cast(labels, logits.dtype.base_dtype)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    """The weighted mean of the per-example softmax cross-entropy (no gradient into the
    labels); ``label_smoothing`` moves the labels towards ``1 / num_classes``:
    ``labels * (1 - s) + s / num_classes``. ``weights``: a scalar or ``[batch]``.

    >>> logits = tf.constant([[1.0, 2.0]])
    >>> tf.contrib.losses.softmax_cross_entropy(logits, [[0.0, 1.0]]).name
    'softmax_cross_entropy_loss/value:0'
    """
    with _loss_scope("softmax_cross_entropy", scope, "softmax_cross_entropy_loss", logits,
                     onehot_labels, weights, ("logits", "onehot_labels")) as (
                         scope, logits, labels):
        labels = math_ops.cast(labels, logits.dtype.base_dtype)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[1], logits.dtype.base_dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        losses = nn_ops.softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """The weighted mean of the per-example softmax cross-entropy of integer ``labels``
    (``[batch]`` or ``[batch, 1]``); ``weights``: a scalar, ``[batch]`` or ``[batch, 1]``."""
    if labels is None:
        raise ValueError("tf.contrib.losses.sparse_softmax_cross_entropy: `labels` must not "
                         "be None")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    [logits, labels, weights]) as scope:
        labels = convert_to_tensor(labels)
        labels = array_ops.reshape(labels, [array_ops.shape(labels)[0]])
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def hinge_loss(logits, labels=None, scope=None):
    """The per-element hinge loss ``relu(1 - (2 labels - 1) logits)`` for 0/1 ``labels``,
    unweighted and unreduced, and added to no collection (as TF 1.15's)."""
    with _loss_scope("hinge_loss", scope, "hinge_loss", logits, labels,
                     names=("logits", "labels")) as (scope, logits, labels):
        labels = math_ops.to_float(labels)
        all_ones = array_ops.ones_like(labels)
        signs = math_ops.subtract(2 * labels, all_ones)
        return nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(signs, logits)))


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """The weighted mean, over the examples, of the squared differences between pairs of
    errors within one example: with ``d = predictions - labels`` of ``n`` elements per
    example, ``2 sum(d**2) / n - 2 sum(d)**2 / n**2``, ``n`` counting only elements of
    non-zero weight. ``weights``: a scalar or ``[batch]``."""
    with _loss_scope("mean_pairwise_squared_error", scope, "mean_pairwise_squared_error",
                     predictions, labels, weights) as (scope, predictions, labels):
        diffs = math_ops.subtract(math_ops.to_float(predictions), math_ops.to_float(labels))
        weights = _known_rank_weights(weights, diffs, "mean_pairwise_squared_error")
        axes = list(range(1, diffs.shape.ndims))
        count = _num_present(diffs, weights, per_batch=True)
        term1 = 2.0 * _safe_div(math_ops.reduce_sum(math_ops.square(diffs), axis=axes),
                                count)
        term2 = 2.0 * _safe_div(math_ops.square(math_ops.reduce_sum(diffs, axis=axes)),
                                math_ops.square(count))
        loss = _scale_losses(math_ops.subtract(term1, term2), weights)
        mean = math_ops.where(math_ops.greater(math_ops.reduce_sum(count), 0), loss,
                              array_ops.zeros_like(loss), name="value")
        add_loss(mean)
        return mean


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """The weighted mean of ``1 - sum(predictions * labels, axis)``, for unit-normalized
    ``predictions`` and ``labels`` (``dim`` is ``axis``'s old name)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("tf.contrib.losses.cosine_distance: cannot specify both 'axis' "
                             "and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("tf.contrib.losses.cosine_distance: `axis` and `dim` cannot both "
                         "be None")
    with _loss_scope("cosine_distance", scope, "cosine_distance_loss", predictions, labels,
                     weights) as (scope, predictions, labels):
        products = math_ops.multiply(math_ops.to_float(predictions), math_ops.to_float(labels))
        losses = 1 - math_ops.reduce_sum(products, axis=[axis])
        return compute_weighted_loss(losses, weights, scope=scope)


def __getattr__(name):
    """A TF 1.x name scopeflow lacks raises NotImplementedError naming it
    (scopeflow/framework/api_fallback.py)."""
    raise missing_attribute(__name__, name)
