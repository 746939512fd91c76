"""TF1's weighted losses with ``Reduction``, and the loss collections (``tf.losses``)."""

from __future__ import annotations

import contextlib

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from scopeflow.ops import array_ops, constant_op, math_ops, nn_ops

__all__ = ["get_regularization_loss", "get_regularization_losses", "get_losses", "add_loss",
           "get_total_loss", "Reduction", "compute_weighted_loss", "absolute_difference",
           "mean_squared_error", "huber_loss", "log_loss", "sigmoid_cross_entropy",
           "softmax_cross_entropy", "sparse_softmax_cross_entropy", "cosine_distance",
           "hinge_loss", "mean_pairwise_squared_error"]


def get_regularization_losses(scope=None) -> list:
    """The tensors in ``REGULARIZATION_LOSSES`` (filtered by ``scope`` with ``re.match``)."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    return get_collection(loss_collection, scope)


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of ``LOSSES`` (plus regularization losses)."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in collections")
    return math_ops.add_n(losses, name=name)


# ── Reduction and the weighted reduction every loss ends with ────────────────────────
class Reduction:
    """How ``compute_weighted_loss`` reduces the weighted per-element losses."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of "
                             f"{cls.all()}.")


def _check_broadcastable(weights, values):
    """Static part of TF's ``assert_broadcastable``: rank 0, or same rank with dims 1 or equal."""
    ws, vs = weights.shape, values.shape
    if ws.ndims is None or vs.ndims is None or ws.ndims == 0:
        return
    bad = ws.ndims != vs.ndims or any(
        w is not None and v is not None and w not in (1, v)
        for w, v in zip(ws.as_tuple(), vs.as_tuple()))
    if bad:
        raise ValueError(f"weights can not be broadcast to values. values.rank={vs.ndims}. "
                         f"weights.rank={ws.ndims}. values.shape={vs}. weights.shape={ws}.")


def _safe_mean(total, count):
    """TF's ``div_no_nan(sum(total), count, name="value")``: 0 where ``count`` is 0."""
    total = math_ops.reduce_sum(total)
    is_zero = math_ops.equal(count, 0.0)
    safe = math_ops.where(is_zero, array_ops.ones_like(count), count)
    return math_ops.where(is_zero, array_ops.zeros_like(total),
                          math_ops.truediv(total, safe), name="value")


def _num_present(losses, weights, per_batch=False):
    """The number of elements of ``losses`` whose broadcast weight is non-zero (per batch
    row, kept ``[batch, 1, ...]``, with ``per_batch``; a non-zero Python float weight gives
    the total element count even then, as TF)."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = math_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                 array_ops.ones_like(weights))
        present = math_ops.multiply(present, array_ops.ones_like(losses))
        if per_batch:
            return math_ops.reduce_sum(present, math_ops.range(1, array_ops.rank(present)),
                                       keepdims=True, name=scope)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), losses.dtype)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights``, reduced as ``reduction`` says, added to ``loss_collection``.

    >>> compute_weighted_loss([1.0, 3.0], [1.0, 0.0]).name
    'weighted_loss/value:0'
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype.base_dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(weights, dtypes.float32)
        _check_broadcastable(weights, losses)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, math_ops.reduce_sum(
                    math_ops.multiply(array_ops.ones_like(losses), weights)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, _num_elements(losses))
        loss = math_ops.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


# ── the losses (TF1's tf.losses.*) ───────────────────────────────────────────────────
@contextlib.contextmanager
def _loss_scope(scope, default_name, labels, predictions, weights,
                what=("labels", "predictions")):
    """Checks that neither ``labels`` nor ``predictions`` (named ``what`` in the error) is
    None, then opens the loss's name scope over them and ``weights``; yields the scope."""
    if labels is None:
        raise ValueError(f"Argument `{what[0]}` must not be None.")
    if predictions is None:
        raise ValueError(f"Argument `{what[1]}` must not be None.")
    with name_scope(scope, default_name, (predictions, labels, weights)) as opened:
        yield opened


def _float32_pair(labels, predictions):
    predictions = math_ops.cast(predictions, dtypes.float32)
    labels = math_ops.cast(labels, dtypes.float32)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``abs(predictions - labels)``.

    >>> absolute_difference([1.0], [3.0]).op.type
    'Select'
    """
    with _loss_scope(scope, "absolute_difference", labels, predictions, weights) as scope:
        labels, predictions = _float32_pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``(predictions - labels) ** 2``.

    >>> mean_squared_error([1.0], [3.0]).name
    'mean_squared_error/value:0'
    """
    with _loss_scope(scope, "mean_squared_error", labels, predictions, weights) as scope:
        labels, predictions = _float32_pair(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Quadratic within ``delta`` of the label, linear beyond.

    >>> huber_loss([1.0], [3.0]).name
    'huber_loss/value:0'
    """
    with _loss_scope(scope, "huber_loss", labels, predictions, weights) as scope:
        labels, predictions = _float32_pair(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(
            math_ops.multiply(0.5, math_ops.multiply(quadratic, quadratic)),
            math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)``.

    >>> log_loss([1.0], [0.5]).name
    'log_loss/value:0'
    """
    with _loss_scope(scope, "log_loss", labels, predictions, weights) as scope:
        labels, predictions = _float32_pair(labels, predictions)
        losses = math_ops.subtract(
            math_ops.negative(math_ops.multiply(
                labels, math_ops.log(math_ops.add(predictions, epsilon)))),
            math_ops.multiply(math_ops.subtract(1.0, labels), math_ops.log(
                math_ops.add(math_ops.subtract(1.0, predictions), epsilon))))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def _logits_and_labels(logits, labels):
    """``logits`` as a tensor and ``labels`` cast to its type, of a compatible shape."""
    logits = convert_to_tensor(logits)
    labels = math_ops.cast(labels, logits.dtype.base_dtype)
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {logits.shape} and {labels.shape} are incompatible")
    return logits, labels


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``sigmoid_cross_entropy_with_logits`` (labels smoothed towards 1/2).

    >>> sigmoid_cross_entropy([[1.0]], [[0.0]]).name
    'sigmoid_cross_entropy_loss/value:0'
    """
    with _loss_scope(scope, "sigmoid_cross_entropy_loss", multi_class_labels, logits, weights,
                     ("multi_class_labels", "logits")) as scope:
        logits, labels = _logits_and_labels(logits, multi_class_labels)
        if label_smoothing > 0:
            labels = math_ops.add(math_ops.multiply(labels, 1 - label_smoothing),
                                  0.5 * label_smoothing)
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross-entropy per example (``label_smoothing`` spreads mass evenly).

    >>> softmax_cross_entropy([[0.0, 1.0]], [[1.0, 2.0]]).name
    'softmax_cross_entropy_loss/value:0'
    """
    with _loss_scope(scope, "softmax_cross_entropy_loss", onehot_labels, logits, weights,
                     ("onehot_labels", "logits")) as scope:
        logits, labels = _logits_and_labels(logits, onehot_labels)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype.base_dtype)
            smooth_negatives = math_ops.truediv(label_smoothing, num_classes)
            labels = math_ops.add(math_ops.multiply(labels, 1.0 - label_smoothing),
                                  smooth_negatives)
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def _squeeze_last(t, other_rank):
    """Drops a trailing size-1 dim of ``t`` when its rank is ``other_rank`` (TF's
    ``_remove_squeezable_dimensions`` for sparse labels and their weights)."""
    if t.shape.ndims is not None and t.shape.ndims == other_rank and t.shape[-1] in (1, None):
        return array_ops.squeeze(t, [-1])
    return t


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sparse softmax cross-entropy (``labels`` of shape ``[batch]`` or
    ``[batch, 1]``).

    >>> sparse_softmax_cross_entropy([1], [[1.0, 2.0]]).name
    'sparse_softmax_cross_entropy_loss/value:0'
    """
    with _loss_scope(scope, "sparse_softmax_cross_entropy_loss", labels, logits, weights,
                     ("labels", "logits")) as scope:
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(labels)
        rank = logits.shape.ndims
        if rank is not None:
            labels = _squeeze_last(labels, rank)
            if isinstance(weights, Tensor) or not isinstance(weights, (int, float)):
                weights = convert_to_tensor(weights)
                weights = _squeeze_last(weights, rank)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)



def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """Weighted ``1 - sum(labels * predictions, axis)`` (inputs assumed unit-normalized).

    >>> cosine_distance([[1.0, 0.0]], [[0.0, 1.0]], axis=1).name
    'cosine_distance_loss/value:0'
    """
    axis = math_ops._deprecated_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    with _loss_scope(scope, "cosine_distance_loss", labels, predictions, weights) as scope:
        labels, predictions = _float32_pair(labels, predictions)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``relu(1 - (2 * labels - 1) * logits)`` for 0/1 ``labels``.

    >>> hinge_loss([1.0], [0.5]).name
    'hinge_loss/value:0'
    """
    with _loss_scope(scope, "hinge_loss", labels, logits, weights,
                     what=("labels", "logits")) as scope:
        labels, logits = _float32_pair(labels, logits)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES):
    """Mean over each batch row's pairs of ``((a_i - a_j) - (p_i - p_j)) ** 2``, weighted
    per row and summed: TF's closed form ``2 * (sum(d**2)/(n-1) - sum(d)**2/(n(n-1)))``.

    ``weights`` is a tensor here, so the present count is always per batch row, as TF.

    >>> mean_pairwise_squared_error([[1.0, 2.0]], [[1.0, 3.0]]).name
    'mean_pairwise_squared_error/value_2:0'
    """
    with _loss_scope(scope, "mean_pairwise_squared_error", labels, predictions, weights):
        weights = math_ops.cast(weights, dtypes.float32)
        labels = math_ops.cast(labels, dtypes.float32)
        _check_broadcastable(weights, labels)
        predictions = math_ops.cast(predictions, dtypes.float32)
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
        diffs = math_ops.subtract(predictions, labels)
        axis = math_ops.range(1, array_ops.rank(diffs))
        sum_squares_diff_per_batch = math_ops.reduce_sum(math_ops.square(diffs), axis=axis,
                                                         keepdims=True)
        num_present_per_batch = _num_present(diffs, weights, per_batch=True)
        term1 = 2.0 * math_ops.div_no_nan(sum_squares_diff_per_batch,
                                          math_ops.maximum(num_present_per_batch - 1, 0),
                                          name="value")
        sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = 2.0 * math_ops.div_no_nan(
            math_ops.square(sum_diff),
            math_ops.maximum(math_ops.multiply(num_present_per_batch,
                                               num_present_per_batch - 1), 0),
            name="value")
        loss = math_ops.reduce_sum(math_ops.multiply(term1 - term2, weights))
        mean_loss = math_ops.where(math_ops.reduce_sum(num_present_per_batch) > 0, loss,
                                   array_ops.zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss
