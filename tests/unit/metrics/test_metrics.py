"""tf.metrics: streaming values, variable and op names, collections, errors.

Every expected value, name and message here was observed under TensorFlow 2.21 with TF1
semantics (``tensorflow.compat.v1``, ``disable_v2_behavior``), running the same programs;
the tests themselves need no TensorFlow.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import api_fallback as _api

# ── a battery of streaming updates: three batches per metric ────────────────────────
N, BATCHES = 8, 3


def _data():
    """The batches (RandomState's legacy stream, the same on every NumPy)."""
    rng = np.random.RandomState(0)

    def batches(kind):
        out = []
        for _ in range(BATCHES):
            if kind == "cls":
                out.append(rng.randint(0, 3, size=N).astype(np.int64))
            elif kind == "bin":
                out.append(rng.randint(0, 2, size=N).astype(np.int64))
            elif kind == "prob":
                out.append(np.round(rng.rand(N), 2).astype(np.float32))
            elif kind == "w":
                out.append(np.round(rng.rand(N) * 2, 1).astype(np.float32))
            else:
                out.append(np.round(rng.randn(N), 2).astype(np.float32))
        return out

    return dict(cls_l=batches("cls"), cls_p=batches("cls"), bin_l=batches("bin"),
                bin_p=batches("bin"), prob=batches("prob"), w=batches("w"),
                fl=batches("f"), fp=batches("f"))


DATA = _data()
m = tf.metrics

# name -> the metric, built from placeholders P(key, dtype) fed with DATA[key].
BUILD = {
    "accuracy": lambda P: m.accuracy(P("cls_l", tf.int64), P("cls_p", tf.int64)),
    "accuracy_w": lambda P: m.accuracy(P("cls_l", tf.int64), P("cls_p", tf.int64),
                                       weights=P("w", tf.float32)),
    "mean": lambda P: m.mean(P("fl", tf.float32)),
    "mean_w": lambda P: m.mean(P("fl", tf.float32), weights=P("w", tf.float32), name="my_mean"),
    "precision": lambda P: m.precision(P("bin_l", tf.int64), P("bin_p", tf.int64)),
    "precision_w": lambda P: m.precision(P("bin_l", tf.int64), P("bin_p", tf.int64),
                                         weights=P("w", tf.float32)),
    "recall": lambda P: m.recall(P("bin_l", tf.int64), P("bin_p", tf.int64)),
    "recall_w": lambda P: m.recall(P("bin_l", tf.int64), P("bin_p", tf.int64),
                                   weights=P("w", tf.float32)),
    "tp_w": lambda P: m.true_positives(P("bin_l", tf.int64), P("bin_p", tf.int64),
                                       weights=P("w", tf.float32)),
    "fp": lambda P: m.false_positives(P("bin_l", tf.int64), P("bin_p", tf.int64)),
    "fn_w": lambda P: m.false_negatives(P("bin_l", tf.int64), P("bin_p", tf.int64),
                                        weights=P("w", tf.float32)),
    "auc": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32)),
    "auc_w5": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32),
                              weights=P("w", tf.float32), num_thresholds=5),
    "auc_pr": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32), curve="PR"),
    "auc_pr_ci_w": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32),
                                   weights=P("w", tf.float32), curve="PR",
                                   summation_method="careful_interpolation",
                                   num_thresholds=20),
    "auc_min": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32),
                               summation_method="minoring", num_thresholds=10),
    "auc_maj_thr": lambda P: m.auc(P("bin_l", tf.int64), P("prob", tf.float32),
                                   summation_method="majoring", thresholds=[0.7, 0.2, 0.5]),
    "mean_iou": lambda P: m.mean_iou(P("cls_l", tf.int64), P("cls_p", tf.int64), num_classes=3),
    "mean_iou_w": lambda P: m.mean_iou(P("cls_l", tf.int64), P("cls_p", tf.int64),
                                       num_classes=4, weights=P("w", tf.float32)),
    "mae_w": lambda P: m.mean_absolute_error(P("fl", tf.float32), P("fp", tf.float32),
                                             weights=P("w", tf.float32)),
    "mse": lambda P: m.mean_squared_error(P("fl", tf.float32), P("fp", tf.float32)),
    "rmse_w": lambda P: m.root_mean_squared_error(P("fl", tf.float32), P("fp", tf.float32),
                                                  weights=P("w", tf.float32)),
    "tn_w": lambda P: m.true_negatives(P("bin_l", tf.int64), P("bin_p", tf.int64),
                                       weights=P("w", tf.float32)),
    "mean_tensor_w": lambda P: m.mean_tensor(tf.reshape(P("fl", tf.float32), [2, 4]),
                                             weights=tf.reshape(P("w", tf.float32), [2, 4])),
    "pct_below_w": lambda P: m.percentage_below(P("fl", tf.float32), 0.2,
                                                weights=P("w", tf.float32)),
    "mre": lambda P: m.mean_relative_error(P("fl", tf.float32), P("fp", tf.float32),
                                           normalizer=tf.abs(P("w", tf.float32)) - 0.5),
    "mcd_w": lambda P: m.mean_cosine_distance(
        tf.reshape(P("fl", tf.float32), [4, 2]), tf.reshape(P("fp", tf.float32), [4, 2]),
        dim=1, weights=tf.reshape(P("w", tf.float32), [4, 2])[:, :1]),
    "mpca_w": lambda P: m.mean_per_class_accuracy(P("cls_l", tf.int64), P("cls_p", tf.int64),
                                                  num_classes=3, weights=P("w", tf.float32)),
    "tp_thr_w": lambda P: m.true_positives_at_thresholds(
        P("bin_l", tf.int64), P("prob", tf.float32), [0.3, 0.5, 0.8], weights=P("w", tf.float32)),
    "fp_thr": lambda P: m.false_positives_at_thresholds(P("bin_l", tf.int64),
                                                        P("prob", tf.float32), [0.3, 0.5, 0.8]),
    "fn_thr": lambda P: m.false_negatives_at_thresholds(P("bin_l", tf.int64),
                                                        P("prob", tf.float32), [0.3, 0.5, 0.8]),
    "tn_thr": lambda P: m.true_negatives_at_thresholds(P("bin_l", tf.int64),
                                                       P("prob", tf.float32), [0.3, 0.5, 0.8]),
    "prec_thr_w": lambda P: m.precision_at_thresholds(
        P("bin_l", tf.int64), P("prob", tf.float32), [0.3, 0.5, 0.8], weights=P("w", tf.float32)),
    "rec_thr": lambda P: m.recall_at_thresholds(P("bin_l", tf.int64), P("prob", tf.float32),
                                                [0.3, 0.5, 0.8]),
    "sens_at_spec": lambda P: m.sensitivity_at_specificity(
        P("bin_l", tf.int64), P("prob", tf.float32), 0.6, num_thresholds=11),
    "spec_at_sens_w": lambda P: m.specificity_at_sensitivity(
        P("bin_l", tf.int64), P("prob", tf.float32), 0.5, weights=P("w", tf.float32),
        num_thresholds=11),
}

# TF 2.21: name -> (value name, update_op name, local variables, per batch the value
# update_op returns (and the value read after it, where the two differ)). The value read
# before the first batch is 0 everywhere, but 1 for mean_cosine_distance (1 - mean).
EXPECTED = {
    'accuracy': ('accuracy/value:0', 'accuracy/update_op:0', ['accuracy/total:0', 'accuracy/count:0'],
        [0.25, 0.25, 0.20833333]),
    'accuracy_w': ('accuracy/value:0', 'accuracy/update_op:0', ['accuracy/total:0', 'accuracy/count:0'],
        [0.29487178, 0.19402984, 0.13656387]),
    'mean': ('mean/value:0', 'mean/update_op:0', ['mean/total:0', 'mean/count:0'],
        [0.37374997, 0.4325, 0.40125]),
    'mean_w': ('my_mean/value:0', 'my_mean/update_op:0', ['my_mean/total:0', 'my_mean/count:0'],
        [0.45974356, 0.6538806, 0.53863436]),
    'precision': ('precision/value:0', 'precision/update_op:0', ['precision/true_positives/count:0', 'precision/false_positives/count:0'],
        [0.25, 0.5714286, 0.5555556]),
    'precision_w': ('precision/value:0', 'precision/update_op:0', ['precision/true_positives/count:0', 'precision/false_positives/count:0'],
        [0.3, 0.6164383, 0.6333333]),
    'recall': ('recall/value:0', 'recall/update_op:0', ['recall/true_positives/count:0', 'recall/false_negatives/count:0'],
        [0.33333334, 0.44444445, 0.3846154]),
    'recall_w': ('recall/value:0', 'recall/update_op:0', ['recall/true_positives/count:0', 'recall/false_negatives/count:0'],
        [0.6, 0.6716418, 0.4488189]),
    'tp_w': ('true_positives/Identity:0', 'true_positives/AssignAdd:0', ['true_positives/count:0'],
        [1.2, 4.5, 5.7]),
    'fp': ('false_positives/Identity:0', 'false_positives/AssignAdd:0', ['false_positives/count:0'],
        [3.0, 3.0, 4.0]),
    'fn_w': ('false_negatives/Identity:0', 'false_negatives/AssignAdd:0', ['false_negatives/count:0'],
        [0.8, 2.2, 7.0]),
    'auc': ('auc/value:0', 'auc/update_op:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.6666666, 0.47619048, 0.42307693]),
    'auc_w5': ('auc/value:0', 'auc/update_op:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.4750002, 0.57607484, 0.45720467]),
    'auc_pr': ('auc/value:0', 'auc/update_op:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.6222221, 0.56406456, 0.51772386]),
    'auc_pr_ci_w': ('auc/interpolate_pr_auc:0', 'auc/interpolate_pr_auc_1:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.4823863, 0.6167556, 0.55987394]),
    'auc_min': ('auc/value:0', 'auc/update_op:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.6, 0.44444445, 0.38461542]),
    'auc_maj_thr': ('auc/value:0', 'auc/update_op:0', ['auc/true_positives:0', 'auc/false_negatives:0', 'auc/true_negatives:0', 'auc/false_positives:0'],
        [0.73333335, 0.6666666, 0.60839164]),
    'mean_iou': ('mean_iou/Select_1:0', 'mean_iou/AssignAdd:0', ['mean_iou/total_confusion_matrix:0'],
        [([[1.0, 2.0, 0.0], [1.0, 0.0, 2.0], [0.0, 1.0, 1.0]], 0.16666667), ([[2.0, 4.0, 1.0], [2.0, 0.0, 2.0], [1.0, 2.0, 2.0]], 0.14999999), ([[3.0, 6.0, 1.0], [5.0, 0.0, 4.0], [1.0, 2.0, 2.0]], 0.12916666)]),
    'mean_iou_w': ('mean_iou/Select_1:0', 'mean_iou/AssignAdd:0', ['mean_iou/total_confusion_matrix:0'],
        [([[1.0, 1.7000000476837158, 0.0, 0.0], [1.2000000476837158, 0.0, 0.7000000029802322, 0.0], [0.0, 1.899999976158142, 1.2999999523162842, 0.0], [0.0, 0.0, 0.0, 0.0]], 0.1965812), ([[1.300000011920929, 3.700000047683716, 0.0, 0.0], [2.4000000953674316, 0.0, 0.7000000029802322, 0.0], [1.7000000476837158, 2.2999999821186066, 1.2999999523162842, 0.0], [0.0, 0.0, 0.0, 0.0]], 0.11984127), ([[1.800000011920929, 6.0000001192092896, 0.0, 0.0], [6.0000001192092896, 0.0, 3.5999999791383743, 0.0], [1.7000000476837158, 2.2999999821186066, 1.2999999523162842, 0.0], [0.0, 0.0, 0.0, 0.0]], 0.087398805)]),
    'mae_w': ('mean_absolute_error/value:0', 'mean_absolute_error/update_op:0', ['mean_absolute_error/total:0', 'mean_absolute_error/count:0'],
        [0.5853846, 0.812388, 1.0830836]),
    'mse': ('mean_squared_error/value:0', 'mean_squared_error/update_op:0', ['mean_squared_error/total:0', 'mean_squared_error/count:0'],
        [0.56105006, 1.3764188, 1.6590333]),
    'rmse_w': ('Sqrt:0', 'Sqrt_1:0', ['root_mean_squared_error/total:0', 'root_mean_squared_error/count:0'],
        [0.6871775, 1.1733909, 1.3562013]),
    'tn_w': ('true_negatives/Identity:0', 'true_negatives/AssignAdd:0', ['true_negatives/count:0'],
        [3.0, 3.9, 6.7000003]),
    'mean_tensor_w': ('mean/value:0', 'mean/update_op:0', ['mean/total_tensor:0', 'mean/count_tensor:0'],
        [[[1.18, -0.18, -1.07, 1.05], [-0.4, 1.22, 0.21, 0.97999996]], [[1.0042857, 0.47578943, -0.665, 1.5433333], [-0.13499999, 1.22, 1.4443477, 0.97999996]], [[-0.13285713, 0.57874995, -0.9093548, 1.8448], [-0.18241379, 0.45741937, 1.6074286, 1.2091666]]]),
    'pct_below_w': ('percentage_below_threshold/value:0', 'percentage_below_threshold/update_op:0', ['percentage_below_threshold/total:0', 'percentage_below_threshold/count:0'],
        [0.34615386, 0.33582088, 0.40088105]),
    'mre': ('mean_relative_error/value:0', 'mean_relative_error/update_op:0', ['mean_relative_error/total:0', 'mean_relative_error/count:0'],
        [1.0017557, -1.2548811, -0.34431234]),
    'mcd_w': ('Sub:0', 'Sub_1:0', ['mean_cosine_distance/total:0', 'mean_cosine_distance/count:0'],
        [-0.6664616, 0.42777532, 0.4973212]),
    'mpca_w': ('mean_accuracy/mean_accuracy:0', 'mean_accuracy/update_op:0', ['mean_accuracy/total:0', 'mean_accuracy/count:0'],
        [([0.3703704, 0.0, 0.40625], 0.25887346), ([0.26000002, 0.0, 0.24528301], 0.16842766), ([0.23076923, 0.0, 0.24528301], 0.15868407)]),
    'tp_thr_w': ('true_positives/Identity:0', 'true_positives/AssignAdd:0', ['true_positives/true_positives:0'],
        [[0.6, 0.6, 0.6], [3.9, 3.5, 1.8000001], [3.9, 3.5, 1.8000001]]),
    'fp_thr': ('false_positives/Identity:0', 'false_positives/AssignAdd:0', ['false_positives/false_positives:0'],
        [[2.0, 1.0, 0.0], [4.0, 3.0, 2.0], [7.0, 4.0, 2.0]]),
    'fn_thr': ('false_negatives/Identity:0', 'false_negatives/AssignAdd:0', ['false_negatives/false_negatives:0'],
        [[2.0, 2.0, 2.0], [4.0, 5.0, 7.0], [8.0, 9.0, 11.0]]),
    'tn_thr': ('true_negatives/Identity:0', 'true_negatives/AssignAdd:0', ['true_negatives/true_negatives:0'],
        [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0], [4.0, 7.0, 9.0]]),
    'prec_thr_w': ('precision_at_thresholds/precision_value:0', 'precision_at_thresholds/precision_update_op:0', ['precision_at_thresholds/true_positives:0', 'precision_at_thresholds/false_positives:0'],
        [[0.17142858, 0.37499997, 0.9999998], [0.5064935, 0.6481481, 0.6666667], [0.37142858, 0.53846157, 0.6666667]]),
    'rec_thr': ('recall_at_thresholds/recall_value:0', 'recall_at_thresholds/recall_update_op:0', ['recall_at_thresholds/true_positives:0', 'recall_at_thresholds/false_negatives:0'],
        [[0.33333334, 0.33333334, 0.33333334], [0.5555556, 0.44444445, 0.22222222], [0.3846154, 0.30769232, 0.15384616]]),
    'sens_at_spec': ('sensitivity_at_specificity/value:0', 'sensitivity_at_specificity/update_op:0', ['sensitivity_at_specificity/true_positives:0', 'sensitivity_at_specificity/false_negatives:0', 'sensitivity_at_specificity/true_negatives:0', 'sensitivity_at_specificity/false_positives:0'],
        [0.33333334, 0.5555556, 0.30769232]),
    'spec_at_sens_w': ('specificity_at_sensitivity/value:0', 'specificity_at_sensitivity/update_op:0', ['specificity_at_sensitivity/true_positives:0', 'specificity_at_sensitivity/false_negatives:0', 'specificity_at_sensitivity/true_negatives:0', 'specificity_at_sensitivity/false_positives:0'],
        [1.0, 0.86567163, 0.34]),
}


@pytest.mark.parametrize("case", list(BUILD))
def test_streaming_battery(case):
    value_name, update_name, local_names, steps = EXPECTED[case]
    with tf.Graph().as_default():
        feeds = {}

        def P(key, dtype):
            feeds[key] = tf.placeholder(dtype, [None], name=key)
            return feeds[key]

        value, update_op = BUILD[case](P)
        assert (value.name, update_op.name) == (value_name, update_name)
        assert [v.name for v in tf.local_variables()] == local_names
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            initial = sess.run(value)
            np.testing.assert_array_equal(initial, np.full_like(initial, case == "mcd_w"))
            # float32 sums may round differently from TF's in the last bit: rtol 1e-6.
            for i, step in enumerate(steps):
                updated, after = step if isinstance(step, tuple) else (step, step)
                got = sess.run(update_op, {ph: DATA[k][i] for k, ph in feeds.items()})
                np.testing.assert_allclose(got, updated, rtol=1e-6, atol=1e-7)
                np.testing.assert_allclose(sess.run(value), after, rtol=1e-6, atol=1e-7)
                # Reading the value again changes nothing.
                np.testing.assert_allclose(sess.run(value), after, rtol=1e-6, atol=1e-7)


# ── top-k metrics: three batches each ───────────────────────────────────────────────
def _k_data():
    rng = np.random.RandomState(3)
    logits = [np.round(rng.rand(4, 5), 2).astype(np.float32) for _ in range(BATCHES)]
    lab1 = [rng.randint(0, 5, size=4).astype(np.int64) for _ in range(BATCHES)]
    lab2 = [rng.randint(0, 5, size=(4, 2)).astype(np.int64) for _ in range(BATCHES)]
    w = [np.round(rng.rand(4), 1).astype(np.float32) for _ in range(BATCHES)]
    return dict(logits=logits, lab1=lab1, lab2=lab2, w=w)


K_DATA = _k_data()
_LAB1, _LAB2, _LOGITS, _W = ("lab1", [None]), ("lab2", [None, 2]), ("logits", [None, 5]), \
    ("w", [None])

K_BUILD = {
    "recall_at_2": lambda P: m.recall_at_k(P(_LAB1, tf.int64), P(_LOGITS), 2),
    "recall_at_3_w_lab2": lambda P: m.recall_at_k(P(_LAB2, tf.int64), P(_LOGITS), 3,
                                                  weights=P(_W)),
    "recall_at_2_class1": lambda P: m.recall_at_k(P(_LAB2, tf.int64), P(_LOGITS), 2,
                                                  class_id=1),
    "precision_at_2": lambda P: m.precision_at_k(P(_LAB1, tf.int64), P(_LOGITS), 2),
    "precision_at_3_w_lab2": lambda P: m.precision_at_k(P(_LAB2, tf.int64), P(_LOGITS), 3,
                                                        weights=P(_W)),
    "precision_at_top_k": lambda P: m.precision_at_top_k(P(_LAB2, tf.int64),
                                                         tf.nn.top_k(P(_LOGITS), 2)[1]),
    "recall_at_top_k_class3": lambda P: m.recall_at_top_k(
        P(_LAB2, tf.int64), tf.nn.top_k(P(_LOGITS), 3)[1], class_id=3),
    "sparse_precision_at_k": lambda P: m.sparse_precision_at_k(P(_LAB1, tf.int64),
                                                               P(_LOGITS), 1),
    "ap_at_3": lambda P: m.average_precision_at_k(P(_LAB2, tf.int64), P(_LOGITS), 3),
    "ap_at_2_w": lambda P: m.average_precision_at_k(P(_LAB1, tf.int64), P(_LOGITS), 2,
                                                    weights=P(_W)),
}

nan = float("nan")
# TF 2.21: name -> (value name, update name, local variables, value before any batch,
# per batch the value update returns, which the value then reads too). float64 throughout.
K_EXPECTED = {
    'recall_at_2': ('recall_at_2:0', 'recall_at_2/update:0', ['recall_at_2/true_positive_at_2:0', 'recall_at_2/false_negative_at_2:0'],
        nan, [0.25, 0.375, 0.5]),
    'recall_at_3_w_lab2': ('recall_at_3:0', 'recall_at_3/update:0', ['recall_at_3/true_positive_at_3:0', 'recall_at_3/false_negative_at_3:0'],
        nan, [0.705882350878732, 0.8285714264629649, 0.76973684102173]),
    'recall_at_2_class1': ('recall_at_2_class1:0', 'recall_at_2_class1/update:0', ['recall_at_2_class1/true_positive_at_2_class1:0', 'recall_at_2_class1/false_negative_at_2_class1:0'],
        nan, [nan, 1.0, 1.0]),
    'precision_at_2': ('precision_at_2:0', 'precision_at_2/update:0', ['precision_at_2/true_positive_at_2:0', 'precision_at_2/false_positive_at_2:0'],
        nan, [0.125, 0.1875, 0.25]),
    'precision_at_3_w_lab2': ('precision_at_3:0', 'precision_at_3/update:0', ['precision_at_3/true_positive_at_3:0', 'precision_at_3/false_positive_at_3:0'],
        nan, [0.4137931027395405, 0.5178571419068136, 0.4698795178992462]),
    'precision_at_top_k': ('precision_at_k:0', 'precision_at_k/update:0', ['precision_at_k/true_positive_at_k:0', 'precision_at_k/false_positive_at_k:0'],
        nan, [0.375, 0.5625, 0.4583333333333333]),
    'recall_at_top_k_class3': ('recall_at_k_class3:0', 'recall_at_k_class3/update:0', ['recall_at_k_class3/true_positive_at_k_class3:0', 'recall_at_k_class3/false_negative_at_k_class3:0'],
        nan, [0.0, 0.3333333333333333, 0.4]),
    'sparse_precision_at_k': ('precision_at_1:0', 'precision_at_1/update:0', ['precision_at_1/true_positive_at_1:0', 'precision_at_1/false_positive_at_1:0'],
        nan, [0.25, 0.25, 0.25]),
    'ap_at_3': ('average_precision_at_3/mean:0', 'average_precision_at_3:0', ['average_precision_at_3/max_1:0', 'average_precision_at_3/total:0'],
        0.0, [0.5, 0.6041666666666666, 0.5069444444444444]),
    'ap_at_2_w': ('average_precision_at_2/mean:0', 'average_precision_at_2:0', ['average_precision_at_2/max_1:0', 'average_precision_at_2/total:0'],
        0.0, [0.3448275890418381, 0.401785716851603, 0.4216867494105532]),
}


@pytest.mark.parametrize("case", list(K_BUILD))
def test_top_k_battery(case):
    value_name, update_name, local_names, initial, steps = K_EXPECTED[case]
    with tf.Graph().as_default():
        feeds = {}

        def P(key_shape, dtype=tf.float32):
            key, shape = key_shape
            feeds[key] = tf.placeholder(dtype, shape, name=key)
            return feeds[key]

        value, update_op = K_BUILD[case](P)
        assert (value.name, update_op.name) == (value_name, update_name)
        assert [v.name for v in tf.local_variables()] == local_names
        assert value.dtype == update_op.dtype == tf.float64
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            np.testing.assert_equal(sess.run(value), initial)
            for i, expected in enumerate(steps):
                got = sess.run(update_op, {ph: K_DATA[k][i] for k, ph in feeds.items()})
                np.testing.assert_allclose(got, expected, rtol=1e-12)
                np.testing.assert_allclose(sess.run(value), expected, rtol=1e-12)


def test_top_k_label_sets():
    """Labels are sets: a repeated label counts once, a label outside the classes is a
    positive never predicted (TF 2.21's dense set semantics); average precision ignores
    labels outside [0, num_classes) but counts a repeated label twice among the relevant."""
    with tf.Graph().as_default():
        logits = tf.constant([[0.1, 0.9, 0.2, 0.8, 0.0], [0.5, 0.1, 0.1, 0.2, 0.3]])
        updates = []
        for labels in ([[1, -1], [0, 0]], [[1, 7], [4, 4]], [[2, 2], [0, 3]]):
            labels = tf.constant(labels, tf.int64)
            updates.append([m.recall_at_k(labels, logits, 2)[1],
                            m.precision_at_k(labels, logits, 2)[1],
                            m.average_precision_at_k(labels, logits, 3)[1],
                            m.recall_at_k(labels, logits, 2, class_id=0)[1]])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            got = [sess.run(u) for u in updates]
    # TF 2.21
    np.testing.assert_allclose(got, [[0.6666666666666666, 0.5, 0.75, 1.0],
                                     [0.6666666666666666, 0.5, 0.625, nan],
                                     [0.3333333333333333, 0.25, 0.49999999999999994, 1.0]],
                               rtol=1e-12)


# ── the graph TF builds ─────────────────────────────────────────────────────────────
def _ops(graph, skip=("l", "p", "w")):
    return [(op.name, op.type, [t.name for t in op.inputs],
             sorted(c.name for c in op.control_inputs))
            for op in graph.get_operations() if op.name not in skip]


# TF 2.21: tf.metrics.mean(tf.constant([[1., 2.], [3., 4.]]),
#                          weights=tf.constant([[1.], [0.]])), every op in creation order.
MEAN_BROADCAST_OPS = [
    ('Const', 'Const', [], []),
    ('Const_1', 'Const', [], []),
    ('mean/total/Initializer/zeros', 'Const', [], []),
    ('mean/total', 'VariableV2', [], []),
    ('mean/total/Assign', 'Assign', ['mean/total:0', 'mean/total/Initializer/zeros:0'], []),
    ('mean/total/read', 'Identity', ['mean/total:0'], []),
    ('mean/count/Initializer/zeros', 'Const', [], []),
    ('mean/count', 'VariableV2', [], []),
    ('mean/count/Assign', 'Assign', ['mean/count:0', 'mean/count/Initializer/zeros:0'], []),
    ('mean/count/read', 'Identity', ['mean/count:0'], []),
    ('mean/broadcast_weights/assert_broadcastable/weights/shape', 'Const', [], []),
    ('mean/broadcast_weights/assert_broadcastable/weights/rank', 'Const', [], []),
    ('mean/broadcast_weights/assert_broadcastable/values/shape', 'Const', [], []),
    ('mean/broadcast_weights/assert_broadcastable/values/rank', 'Const', [], []),
    ('mean/broadcast_weights/assert_broadcastable/static_dims_check_success', 'NoOp', [], []),
    ('mean/broadcast_weights/ones_like/Shape/shape_as_tensor', 'Const', [], ['mean/broadcast_weights/assert_broadcastable/static_dims_check_success']),
    ('mean/broadcast_weights/ones_like/Const', 'Const', [], ['mean/broadcast_weights/assert_broadcastable/static_dims_check_success']),
    ('mean/broadcast_weights/ones_like', 'Fill', ['mean/broadcast_weights/ones_like/Shape/shape_as_tensor:0', 'mean/broadcast_weights/ones_like/Const:0'], []),
    ('mean/broadcast_weights', 'Mul', ['Const_1:0', 'mean/broadcast_weights/ones_like:0'], []),
    ('mean/Mul', 'Mul', ['Const:0', 'mean/broadcast_weights:0'], []),
    ('mean/Const', 'Const', [], []),
    ('mean/Sum', 'Sum', ['mean/broadcast_weights:0', 'mean/Const:0'], []),
    ('mean/Const_1', 'Const', [], []),
    ('mean/Sum_1', 'Sum', ['mean/Mul:0', 'mean/Const_1:0'], []),
    ('mean/AssignAdd', 'AssignAdd', ['mean/total:0', 'mean/Sum_1:0'], []),
    ('mean/AssignAdd_1', 'AssignAdd', ['mean/count:0', 'mean/Sum:0'], ['mean/Mul']),
    ('mean/Maximum/y', 'Const', [], []),
    ('mean/Maximum', 'Maximum', ['mean/count/read:0', 'mean/Maximum/y:0'], []),
    ('mean/value', 'DivNoNan', ['mean/total/read:0', 'mean/Maximum:0'], []),
    ('mean/Maximum_1/y', 'Const', [], []),
    ('mean/Maximum_1', 'Maximum', ['mean/AssignAdd_1:0', 'mean/Maximum_1/y:0'], []),
    ('mean/update_op', 'DivNoNan', ['mean/AssignAdd:0', 'mean/Maximum_1:0'], []),
]

# TF 2.21: tf.metrics.precision(l, l, weights=w), l int64 [None], w float32 [None].
PRECISION_OPS = [
    ('precision/Cast', 'Cast', ['l:0'], []),
    ('precision/Cast_1', 'Cast', ['l:0'], []),
    ('precision/true_positives/Equal/y', 'Const', [], []),
    ('precision/true_positives/Equal', 'Equal', ['precision/Cast_1:0', 'precision/true_positives/Equal/y:0'], []),
    ('precision/true_positives/Equal_1/y', 'Const', [], []),
    ('precision/true_positives/Equal_1', 'Equal', ['precision/Cast:0', 'precision/true_positives/Equal_1/y:0'], []),
    ('precision/true_positives/LogicalAnd', 'LogicalAnd', ['precision/true_positives/Equal:0', 'precision/true_positives/Equal_1:0'], []),
    ('precision/true_positives/assert_type/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/true_positives/count/Initializer/zeros', 'Const', [], []),
    ('precision/true_positives/count', 'VariableV2', [], []),
    ('precision/true_positives/count/Assign', 'Assign', ['precision/true_positives/count:0', 'precision/true_positives/count/Initializer/zeros:0'], []),
    ('precision/true_positives/count/read', 'Identity', ['precision/true_positives/count:0'], []),
    ('precision/true_positives/Cast', 'Cast', ['precision/true_positives/LogicalAnd:0'], []),
    ('precision/true_positives/Rank', 'Const', [], []),
    ('precision/true_positives/assert_rank_in/rank', 'Const', [], []),
    ('precision/true_positives/assert_rank_in/Shape', 'Shape', ['w:0'], []),
    ('precision/true_positives/assert_rank_in/assert_type/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/true_positives/assert_rank_in/assert_type_1/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/true_positives/assert_rank_in/static_checks_determined_all_ok', 'NoOp', [], []),
    ('precision/true_positives/Mul', 'Mul', ['precision/true_positives/Cast:0', 'w:0'], ['precision/true_positives/assert_rank_in/static_checks_determined_all_ok']),
    ('precision/true_positives/Identity', 'Identity', ['precision/true_positives/count/read:0'], []),
    ('precision/true_positives/Const', 'Const', [], []),
    ('precision/true_positives/Sum', 'Sum', ['precision/true_positives/Mul:0', 'precision/true_positives/Const:0'], []),
    ('precision/true_positives/AssignAdd', 'AssignAdd', ['precision/true_positives/count:0', 'precision/true_positives/Sum:0'], []),
    ('precision/false_positives/Equal/y', 'Const', [], []),
    ('precision/false_positives/Equal', 'Equal', ['precision/Cast_1:0', 'precision/false_positives/Equal/y:0'], []),
    ('precision/false_positives/Equal_1/y', 'Const', [], []),
    ('precision/false_positives/Equal_1', 'Equal', ['precision/Cast:0', 'precision/false_positives/Equal_1/y:0'], []),
    ('precision/false_positives/LogicalAnd', 'LogicalAnd', ['precision/false_positives/Equal:0', 'precision/false_positives/Equal_1:0'], []),
    ('precision/false_positives/assert_type/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/false_positives/count/Initializer/zeros', 'Const', [], []),
    ('precision/false_positives/count', 'VariableV2', [], []),
    ('precision/false_positives/count/Assign', 'Assign', ['precision/false_positives/count:0', 'precision/false_positives/count/Initializer/zeros:0'], []),
    ('precision/false_positives/count/read', 'Identity', ['precision/false_positives/count:0'], []),
    ('precision/false_positives/Cast', 'Cast', ['precision/false_positives/LogicalAnd:0'], []),
    ('precision/false_positives/Rank', 'Const', [], []),
    ('precision/false_positives/assert_rank_in/rank', 'Const', [], []),
    ('precision/false_positives/assert_rank_in/Shape', 'Shape', ['w:0'], []),
    ('precision/false_positives/assert_rank_in/assert_type/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/false_positives/assert_rank_in/assert_type_1/statically_determined_correct_type', 'NoOp', [], []),
    ('precision/false_positives/assert_rank_in/static_checks_determined_all_ok', 'NoOp', [], []),
    ('precision/false_positives/Mul', 'Mul', ['precision/false_positives/Cast:0', 'w:0'], ['precision/false_positives/assert_rank_in/static_checks_determined_all_ok']),
    ('precision/false_positives/Identity', 'Identity', ['precision/false_positives/count/read:0'], []),
    ('precision/false_positives/Const', 'Const', [], []),
    ('precision/false_positives/Sum', 'Sum', ['precision/false_positives/Mul:0', 'precision/false_positives/Const:0'], []),
    ('precision/false_positives/AssignAdd', 'AssignAdd', ['precision/false_positives/count:0', 'precision/false_positives/Sum:0'], []),
    ('precision/add', 'AddV2', ['precision/true_positives/Identity:0', 'precision/false_positives/Identity:0'], []),
    ('precision/Greater/y', 'Const', [], []),
    ('precision/Greater', 'Greater', ['precision/add:0', 'precision/Greater/y:0'], []),
    ('precision/add_1', 'AddV2', ['precision/true_positives/Identity:0', 'precision/false_positives/Identity:0'], []),
    ('precision/truediv', 'RealDiv', ['precision/true_positives/Identity:0', 'precision/add_1:0'], []),
    ('precision/value/e', 'Const', [], []),
    ('precision/value', 'Select', ['precision/Greater:0', 'precision/truediv:0', 'precision/value/e:0'], []),
    ('precision/add_2', 'AddV2', ['precision/true_positives/AssignAdd:0', 'precision/false_positives/AssignAdd:0'], []),
    ('precision/Greater_1/y', 'Const', [], []),
    ('precision/Greater_1', 'Greater', ['precision/add_2:0', 'precision/Greater_1/y:0'], []),
    ('precision/add_3', 'AddV2', ['precision/true_positives/AssignAdd:0', 'precision/false_positives/AssignAdd:0'], []),
    ('precision/truediv_1', 'RealDiv', ['precision/true_positives/AssignAdd:0', 'precision/add_3:0'], []),
    ('precision/update_op/e', 'Const', [], []),
    ('precision/update_op', 'Select', ['precision/Greater_1:0', 'precision/truediv_1:0', 'precision/update_op/e:0'], []),
]


def test_graph_of_mean_with_broadcast_weights():
    """TF's ops, inputs and control inputs; the value (Maximum, value) is built before the
    update here (see scopeflow/metrics.py), so compare without the order."""
    g = tf.Graph()
    with g.as_default():
        tf.metrics.mean(tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                        weights=tf.constant([[1.0], [0.0]]))
        assert sorted(_ops(g)) == sorted(MEAN_BROADCAST_OPS)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            # TF 2.21: 1.5 (the second row has weight 0)
            assert sess.run("mean/update_op:0") == pytest.approx(1.5)


def test_graph_of_precision_with_weights():
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.int64, [None], name="l")
        weights = tf.placeholder(tf.float32, [None], name="w")
        tf.metrics.precision(labels, labels, weights=weights)
        assert _ops(g) == PRECISION_OPS


# ── state: local variables ───────────────────────────────────────────────────────────
def test_state_is_local_metric_variables():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [None])
        predictions = tf.placeholder(tf.int64, [None])
        acc, acc_update = tf.metrics.accuracy(labels, predictions)
        acc2, _ = tf.metrics.accuracy(labels, predictions, weights=tf.placeholder(tf.float32))
        # TF 2.21
        assert (acc.name, acc_update.name, acc2.name) == (
            "accuracy/value:0", "accuracy/update_op:0", "accuracy_1/value:0")
        assert acc.op.type == acc_update.op.type == "DivNoNan"
        names = ["accuracy/total:0", "accuracy/count:0", "accuracy_1/total:0",
                 "accuracy_1/count:0"]
        assert [v.name for v in tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)] == names
        assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
        assert [v.name for v in tf.local_variables()] == names
        assert tf.global_variables() == [] and tf.trainable_variables() == []
        assert all(not v.trainable for v in tf.local_variables())
        init = tf.local_variables_initializer()
        assert (init.name, init.type) == ("init", "NoOp")
        assert sorted(op.name for op in init.control_inputs) == [
            "accuracy/count/Assign", "accuracy/total/Assign", "accuracy_1/count/Assign",
            "accuracy_1/total/Assign"]
        with tf.Session() as sess:
            # TF 2.21: both are reported uninitialized until local_variables_initializer runs
            assert list(sess.run(tf.report_uninitialized_variables())) == [
                b"accuracy/total", b"accuracy/count", b"accuracy_1/total", b"accuracy_1/count"]
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(acc)


def test_default_saver_does_not_save_metric_variables(tmp_path):
    with tf.Graph().as_default():
        tf.metrics.accuracy([1, 2], [1, 3])
        with pytest.raises(ValueError, match="^No variables to save$"):  # TF 2.21
            tf.train.Saver()
        tf.Variable(1.0, name="gv")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            path = saver.save(sess, str(tmp_path / "model"))
        assert [name for name, _ in tf.train.list_variables(path)] == ["gv"]


def test_collections():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        value, update_op = tf.metrics.mean(x, metrics_collections=["mc"],
                                           updates_collections=["uc"])
        assert tf.get_collection("mc") == [value] and tf.get_collection("uc") == [update_op]
        rmse, rmse_update = tf.metrics.root_mean_squared_error(
            x, x, metrics_collections=["mc"], updates_collections=["uc"])
        assert tf.get_collection("mc") == [value, rmse]
        assert tf.get_collection("uc") == [update_op, rmse_update]
        p, p_update = tf.metrics.precision(x, x, metrics_collections=["pc"],
                                           updates_collections=["pu"])
        # TF 2.21: only the precision itself goes to the collections, not its counts
        assert tf.get_collection("pc") == [p] and tf.get_collection("pu") == [p_update]


def test_value_and_update_in_one_run():
    """TF orders nothing between a metric's value and its update_op. TF 2.21 over 30 runs of
    run([value, update_op]): mean gave the value before the batch 16-26 times and never the
    value after it; true_positives (whose value is an Identity of the variable) gave the
    value after it 24 times and never the one before. scopeflow gives those answers always."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        value, update_op = tf.metrics.mean(x)
        tp, tp_update = tf.metrics.true_positives(x, x)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            got = [tuple(sess.run([value, update_op], {x: [float(i), 1.0]})) for i in range(4)]
            # TF 2.21
            assert got == [(0.0, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 1.25)]
            assert sess.run([tp, tp_update], {x: [1.0, 0.0, 2.0]}) == [2.0, 2.0]


def test_static_squeeze_and_scalar_weights():
    with tf.Graph().as_default():
        _, a = tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 2, 0]),
                                   weights=tf.constant([[1.0], [2.0], [3.0]]))
        _, b = tf.metrics.accuracy(tf.constant([[1], [2], [3]]), tf.constant([1, 2, 0]),
                                   weights=2.0)
        _, c = tf.metrics.mean(tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                               weights=tf.constant([[1.0], [0.0]]))
        _, d = tf.metrics.mean([1, 2, 4])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            # TF 2.21
            np.testing.assert_allclose(sess.run([a, b, c, d]), [0.5, 0.6666667, 1.5, 2.3333333],
                                       rtol=1e-6)


# ── errors (TF 2.21's messages) ──────────────────────────────────────────────────────
def test_weights_that_do_not_broadcast():
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            tf.metrics.mean(tf.constant([1.0, 2.0]), weights=tf.constant([1.0, 2.0, 3.0]))
        assert str(e.value).startswith(
            "weights can not be broadcast to values. Mismatch at dim 0. values.shape=[2], "
            "weights.shape=[3]. Received weights=")
        with pytest.raises(ValueError) as e:
            tf.metrics.mean(tf.constant([[1.0, 2.0]]), weights=tf.constant([1.0, 2.0]))
        assert str(e.value).startswith(
            "weights can not be broadcast to values. Mismatch at dim 0. values.shape=[1 2], "
            "weights.shape=[2 1]. Received weights=")
        with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(2,\) are incompatible$"):
            tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1, 2, 3]))
        with pytest.raises(ValueError, match=r"^Tensor Placeholder:0 must have rank in \(0, 1\)\."
                                             r"  Received rank 3, shape \(\?, \?, \?\)$"):
            tf.metrics.true_positives([1, 0], [1, 0], weights=tf.placeholder(
                tf.float32, [None, None, None]))


def test_auc_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^Curve must be either ROC or PR. Curve XX is "
                                             "unknown.$"):
            tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.2]), curve="XX")
        with pytest.raises(ValueError) as e:
            tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.2]), summation_method="bad")
        assert str(e.value) == (
            "Invalid summation_method: bad summation_method should be 'trapezoidal', "
            "'careful_interpolation', 'minoring', or 'majoring'.")
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.metrics.auc(tf.constant([1, 0]), tf.constant([1.5, 0.2]))
        assert e.value.message == ("predictions must be in [0, 1]\nCondition x <= y did not "
                                   "hold element-wise:\nx (Const_1:0) = \n[1.5 0.2]\n"
                                   "y (auc/Cast_1/x:0) = \n1.0")
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^`specificity` must be in the range \[0, 1\]\. "
                                             r"Currently, `specificity` got 1\.5\.$"):
            tf.metrics.sensitivity_at_specificity([1], [0.5], 1.5)
        with pytest.raises(ValueError, match=r"^`sensitivity` must be in the range \[0, 1\]\. "
                                             r"Currently, `sensitivity` is -0\.5\.$"):
            tf.metrics.specificity_at_sensitivity([1], [0.5], -0.5)


def test_mean_iou_class_ids_out_of_range():
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^`predictions` out of bound\nCondition x < y did not hold"):
            tf.metrics.mean_iou(tf.constant([1, 0]), tf.constant([1, 3]), 3)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^`labels` contains negative values.  \nCondition x >= 0"):
            tf.metrics.mean_iou(tf.constant([1, -1]), tf.constant([1, 0]), 3)


def test_namespace():
    assert tf.compat.v1.metrics is tf.metrics
    # Every tf.compat.v1.metrics name of TF 2.21 is here.
    assert sorted(n for n in _api.tf1_names("metrics") if not hasattr(tf.metrics, n)) == []
    with pytest.raises(AttributeError, match="^module 'scopeflow.metrics' has no attribute "
                                             "'acuracy'. Did you mean: 'accuracy'"):
        tf.metrics.acuracy  # noqa: B018
