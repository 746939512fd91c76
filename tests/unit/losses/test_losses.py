"""tf.losses against TensorFlow 2.21 (recorded fixtures), the LOSSES collection, and errors.

Fixtures: tests/fixtures/tf_nn/ (``make_fixtures.py``, the ``losses`` family).
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

from ..ops.nn.test_nn_ops import check_case, load_fixtures

MOD, CASES, RECORDS = load_fixtures("losses")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_tensorflow(case):
    check_case(MOD, case, RECORDS[case[0]])


def test_losses_go_to_the_collection():
    a = tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.5])
    b = tf.losses.absolute_difference([1.0], [2.0], loss_collection="mine")
    c = tf.losses.huber_loss([1.0], [2.0], loss_collection=None)
    assert tf.losses.get_losses() == [a]
    assert tf.get_collection("mine") == [b]
    assert c not in tf.losses.get_losses()
    with tf.Session() as sess:
        assert sess.run(tf.losses.get_total_loss()) == pytest.approx(0.25)


def test_names_and_shapes():
    loss = tf.losses.softmax_cross_entropy(tf.ones([3, 4]), tf.zeros([3, 4]))
    assert loss.name == "softmax_cross_entropy_loss/value:0" and loss.shape.as_list() == []
    none = tf.losses.mean_squared_error(tf.ones([3, 4]), tf.zeros([3, 4]),
                                        reduction=tf.losses.Reduction.NONE)
    assert none.shape.as_list() == [3, 4]


def test_reduction_validation_and_broadcast_errors():
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        tf.losses.mean_squared_error([1.0], [1.0], reduction="mean")
    with pytest.raises(ValueError, match="weights can not be broadcast"):
        tf.losses.mean_squared_error(tf.ones([3, 4]), tf.ones([3, 4]), weights=tf.ones([2, 4]))
    with pytest.raises(ValueError, match="must not be None"):
        tf.losses.log_loss(None, [1.0])
    assert tf.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS == \
        tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS


def test_all_zero_weights_give_zero_not_nan():
    loss = tf.losses.mean_squared_error(tf.ones([2, 2]), tf.zeros([2, 2]), weights=0.0)
    with tf.Session() as sess:
        assert sess.run(loss) == 0.0
    assert np.isfinite(0.0)
