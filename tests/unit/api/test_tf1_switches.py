"""TF1's behaviour switches and ``tf.logging``: the lines TF1 programs start with."""

from __future__ import annotations

import logging

import pytest

import scopeflow.compat.v1 as tf


def test_switches_asking_for_tf1_behaviour_do_nothing():
    for switch in (tf.disable_v2_behavior, tf.disable_eager_execution,
                   tf.disable_resource_variables, tf.disable_v2_tensorshape):
        assert switch() is None
    assert tf.executing_eagerly() is False
    assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""
    with tf.Session() as sess:  # still graph mode
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0


@pytest.mark.parametrize("name", ["enable_eager_execution", "enable_v2_behavior"])
def test_switches_asking_for_tf2_behaviour_say_it_is_not_available(name):
    with pytest.raises(NotImplementedError, match=f"tf.{name}: scopeflow runs TensorFlow 1's "
                                                  "graph mode only"):
        getattr(tf, name)()


def test_logging_levels_and_calls_are_tf1s():
    # TF 2.21: DEBUG 10, INFO 20, WARN 30, ERROR 40, FATAL 50; the default verbosity is WARN.
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
            tf.logging.FATAL) == (10, 20, 30, 40, 50)
    before = tf.logging.get_verbosity()
    logger = logging.getLogger("tensorflow")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 3)
        tf.logging.debug("hidden")
        for _ in range(5):
            tf.logging.log_every_n(tf.logging.INFO, "every %d", 2, 2)
        for _ in range(5):
            tf.logging.log_first_n(tf.logging.WARN, "first", 2)
    finally:
        logger.removeHandler(handler)
        tf.logging.set_verbosity(before)
    assert [r.getMessage() for r in records] == [
        "step 3", "every 2", "every 2", "every 2", "first", "first"]
