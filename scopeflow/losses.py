"""``tf.losses``: the loss collections (regularization losses from ``get_variable``)."""

from __future__ import annotations

from scopeflow.framework.graph import GraphKeys, add_to_collection, get_collection

__all__ = ["get_regularization_loss", "get_regularization_losses", "get_losses", "add_loss",
           "get_total_loss"]


def get_regularization_losses(scope=None) -> list:
    """The tensors in ``REGULARIZATION_LOSSES`` (filtered by ``scope`` with ``re.match``)."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (0.0 when there are none)."""
    from scopeflow.ops import constant_op, math_ops
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
    from scopeflow.ops import math_ops
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in collections")
    return math_ops.add_n(losses, name=name)
