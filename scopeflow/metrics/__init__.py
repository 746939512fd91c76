"""``tf.metrics``: TF1's streaming metrics.

Each metric returns ``(value, update_op)``. Its state lives in local variables (collections
``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``: not trainable, not saved by a default
``Saver``, initialized by ``tf.local_variables_initializer()``), created under a variable
scope named as TF names it (``accuracy/total``, ``accuracy/count``, ``auc/true_positives``).
``update_op`` adds a batch to the state and returns the metric after it; ``value`` reads
the state without changing it. The variables, the names of the value and update tensors and
the control dependencies are TF's (``tensorflow/python/ops/metrics_impl.py``), and so is
every op where scopeflow has TF's ops (``mean``, ``accuracy``, ``precision``... op for op).
Where TF uses ops scopeflow lacks, the same values come from others: ``mean_iou``'s
confusion matrix is a segment sum (TF: ``ScatterNd``) and its diagonal a gather; the top-k
metrics compare elements where TF uses set operations, and take dense labels only (TF also
takes a ``SparseTensor``); ``specificity_at_sensitivity`` and ``average_precision_at_k``
need no ``cumsum``.

Reading ``value`` and running ``update_op`` in one ``Session.run``: TF orders nothing
between them, so its answer depends on its thread pool. scopeflow runs unordered ops in
creation order (docs/plans.md). The metrics built on ``mean`` (``accuracy``, the
regression errors, ``percentage_below``...), ``mean_tensor`` and ``mean_iou`` build their
value before their update, so they give the value before the batch, TF's usual answer for
them; the others give the value after it (which TF gives too, or mixes).

Where TF checks inputs at run time with ``Assert`` ops (predictions in [0, 1] for ``auc``,
labels in range for ``mean_iou``, weights broadcastable when shapes are only known at run
time), scopeflow makes the check when the values or shapes are known while the graph is
built, and raises TF's error then, as TF itself does for constant inputs.
"""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.metrics.confusion import (
    auc,
    false_negatives,
    false_negatives_at_thresholds,
    false_positives,
    false_positives_at_thresholds,
    precision,
    precision_at_thresholds,
    recall,
    recall_at_thresholds,
    sensitivity_at_specificity,
    specificity_at_sensitivity,
    true_negatives,
    true_negatives_at_thresholds,
    true_positives,
    true_positives_at_thresholds,
)
from scopeflow.metrics.mean_iou import (
    mean_iou,
)
from scopeflow.metrics.means import (
    accuracy,
    mean,
    mean_absolute_error,
    mean_cosine_distance,
    mean_per_class_accuracy,
    mean_relative_error,
    mean_squared_error,
    mean_tensor,
    percentage_below,
    root_mean_squared_error,
)
from scopeflow.metrics.top_k import (
    average_precision_at_k,
    precision_at_k,
    precision_at_top_k,
    recall_at_k,
    recall_at_top_k,
    sparse_average_precision_at_k,
    sparse_precision_at_k,
)

__all__ = ["accuracy", "auc", "false_negatives", "false_negatives_at_thresholds",
           "false_positives", "false_positives_at_thresholds", "mean", "mean_absolute_error",
           "mean_cosine_distance", "mean_iou", "mean_per_class_accuracy",
           "mean_relative_error", "mean_squared_error", "mean_tensor", "percentage_below",
           "precision", "precision_at_thresholds", "recall", "recall_at_thresholds",
           "root_mean_squared_error", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "true_negatives", "true_negatives_at_thresholds",
           "true_positives", "true_positives_at_thresholds", "recall_at_k", "recall_at_top_k",
           "precision_at_k", "precision_at_top_k", "sparse_precision_at_k",
           "average_precision_at_k", "sparse_average_precision_at_k"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
