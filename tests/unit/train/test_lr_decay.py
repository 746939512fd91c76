"""Learning-rate schedules: TF's formulas over steps (values vs closed forms and TF)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.train  # noqa: F401

# Closed forms of TF's schedules (keras LearningRateSchedule __call__ bodies).
CASES = {
    "exponential": (lambda gs: tf.train.exponential_decay(0.1, gs, 3, 0.5),
                    lambda s: 0.1 * 0.5 ** (s / 3)),
    "exponential_stair": (lambda gs: tf.train.exponential_decay(0.1, gs, 3, 0.5, True),
                          lambda s: 0.1 * 0.5 ** (s // 3)),
    "inverse_time": (lambda gs: tf.train.inverse_time_decay(0.1, gs, 2, 0.5),
                     lambda s: 0.1 / (1 + 0.5 * s / 2)),
    "inverse_time_stair": (lambda gs: tf.train.inverse_time_decay(0.1, gs, 2, 0.5, True),
                           lambda s: 0.1 / (1 + 0.5 * (s // 2))),
    "natural_exp": (lambda gs: tf.train.natural_exp_decay(0.1, gs, 2, 0.5),
                    lambda s: 0.1 * math.exp(-0.5 * s / 2)),
    "polynomial": (lambda gs: tf.train.polynomial_decay(0.1, gs, 4, 0.01, power=2.0),
                   lambda s: (0.1 - 0.01) * (1 - min(s, 4) / 4) ** 2 + 0.01),
    "polynomial_cycle": (
        lambda gs: tf.train.polynomial_decay(0.1, gs, 4, 0.01, cycle=True),
        lambda s: (0.1 - 0.01) * (1 - s / (4 * (1 if s == 0 else math.ceil(s / 4)))) + 0.01),
    "cosine": (lambda gs: tf.train.cosine_decay(0.1, gs, 6, alpha=0.2),
               lambda s: 0.1 * ((1 - 0.2) * 0.5 * (1 + math.cos(math.pi * min(s, 6) / 6))
                                + 0.2)),
    "piecewise": (lambda gs: tf.train.piecewise_constant(gs, [2, 5], [1.0, 0.5, 0.1]),
                  lambda s: 1.0 if s <= 2 else 0.5 if s <= 5 else 0.1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_schedule_values(name):
    build, ref = CASES[name]
    gs = tf.train.get_or_create_global_step()
    lr = build(gs)
    assert lr.dtype.base_dtype == tf.float32 and lr.shape.ndims == 0
    with tf.Session() as sess:
        for s in range(10):
            gs.load(s, sess)
            assert sess.run(lr) == pytest.approx(ref(s), rel=1e-6), s


def test_schedule_op_names_match_tf():
    # TF 2.21: ExponentialDecay:0, PolynomialDecay:0, InverseTimeDecay:0.
    gs = tf.train.get_or_create_global_step()
    assert tf.train.exponential_decay(0.1, gs, 10, 0.9).name == "ExponentialDecay:0"
    assert tf.train.polynomial_decay(0.1, gs, 10).name == "PolynomialDecay:0"
    assert tf.train.inverse_time_decay(0.1, gs, 10, 0.5).name == "InverseTimeDecay:0"
    assert tf.train.exponential_decay(0.1, gs, 10, 0.9, name="lr").name == "lr:0"


def test_schedules_require_global_step():
    # TF 2.21's message: its schedule converts the step like any other argument.
    with pytest.raises(ValueError, match="None values not supported"):
        tf.train.exponential_decay(0.1, None, 10, 0.9)


def test_piecewise_constant_checks():
    gs = tf.train.get_or_create_global_step()  # int64: int32 boundaries are promoted
    with pytest.raises(ValueError, match="1 less than the length of values"):
        tf.train.piecewise_constant(gs, [1], [1.0])
    with pytest.raises(ValueError, match="same dtype as x"):
        tf.train.piecewise_constant(gs, [1.5], [1.0, 2.0])
    with pytest.raises(ValueError, match="all with the same dtype"):
        tf.train.piecewise_constant(gs, [1], [1.0, 2])


def test_schedule_works_with_int32_step_variable():
    gs = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
    lr = tf.train.exponential_decay(np.float32(1.0), gs, 1, 0.5, staircase=True)
    with tf.Session() as sess:
        sess.run(gs.initializer)
        gs.load(3, sess)
        assert sess.run(lr) == 0.125
