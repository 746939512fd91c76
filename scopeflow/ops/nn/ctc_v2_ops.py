"""TF1's ``tf.nn.ctc_loss_v2``: CTC loss with dense or sparse labels and a movable blank.

Sparse labels take TF's own route: the blank moves to the last class (the logits' class
axis rotated, label ids above the blank shifted down) and the ``CTCLoss`` op computes the
loss and its fused gradient. Dense labels (``[batch, max_label_length]``, each row's first
``label_length`` ids counting) go the same way here, through ``CTCLoss`` on the rows'
leading ids: TF instead builds ``ctc_loss_dense``, a forward-backward graph of its own,
which gives the same loss and gradient wherever the labels fit the logits. Where a label
sequence can't be aligned within its ``logit_length`` TF's dense graph gives a large
finite loss (its log 0 is ``log(1e-307)``), while ``CTCLoss`` refuses the batch, as TF's
op does for sparse labels.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.nn.ctc_ops import ctc_loss

__all__ = ["ctc_loss_v2"]


def _class_dim(logits):
    dims = logits.shape.as_tuple() if logits.shape.ndims is not None else None
    value = dims[2] if dims is not None else None
    return value if value is not None else array_ops.shape(logits)[2]


def _rotate_blank(labels, logits, blank_index):
    """Logits with class ``blank_index`` moved last; sparse label ids above it shifted."""
    if blank_index < 0:
        blank_index += _class_dim(logits)
    if isinstance(blank_index, Tensor) or blank_index != _class_dim(logits) - 1:
        logits = array_ops.concat([logits[:, :, :blank_index],
                                   logits[:, :, blank_index + 1:],
                                   logits[:, :, blank_index:blank_index + 1]], axis=2)
        values = math_ops.where(labels.values < blank_index, labels.values,
                                 labels.values - 1)
        labels = SparseTensor(labels.indices, values, labels.dense_shape)
    return labels, logits


def _dense_to_sparse(labels, label_length):
    """The first ``label_length[b]`` ids of each row of ``labels`` as a SparseTensor."""
    labels = convert_to_tensor(labels, name="labels")
    label_length = math_ops.cast(convert_to_tensor(label_length, name="label_length"),
                                 dtypes.int64)
    width = math_ops.cast(array_ops.shape(labels)[1], dtypes.int64)
    mask = array_ops.expand_dims(math_ops.range(width), 0) < \
        array_ops.expand_dims(label_length, 1)
    indices = math_ops.where(mask)
    values = math_ops.cast(array_ops.gather_nd(labels, indices), dtypes.int32)
    return SparseTensor(indices, values, math_ops.cast(array_ops.shape(labels), dtypes.int64))


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None) -> Tensor:
    """The negative log-likelihood of each batch entry's label sequence under CTC.

    ``labels``: a SparseTensor (then ``blank_index`` is required) or dense int ids
    ``[batch, max_label_length]`` with ``label_length`` (dense labels' blank defaults to
    class 0). ``logits``: ``[time, batch, classes]`` (``[batch, time, classes]`` unless
    ``logits_time_major``). ``unique`` (TF's speed-up for dense labels) changes nothing.

    >>> l = tf.nn.ctc_loss_v2([[1, 2]], tf.zeros([4, 1, 3]), [2], [4])
    >>> l.shape.as_list()
    [1]
    """
    del unique   # only an optimisation of TF's dense graph
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a "
                             "SparseTensor.")
    elif blank_index is None:
        blank_index = 0
    with name_scope(name, "ctc_loss_v2" if isinstance(labels, SparseTensor)
                    else "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        logits = convert_to_tensor(logits, name="logits")
        if not isinstance(labels, SparseTensor):
            labels = _dense_to_sparse(labels, label_length)
        if not logits_time_major:
            logits = array_ops.transpose(logits, [1, 0, 2])
        labels, logits = _rotate_blank(labels, logits, blank_index)
        return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length,
                        time_major=True)
