"""Exact resume under MonitoredTrainingSession (issue 19's must-show): the seed's CNN with
dropout, fed by the MNIST ``DataSet``, trained 2k steps straight and k + restart + k steps
gives bitwise the same variables: the default Scaffold's saver carries dropout's random
stream and the DataSet's position."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.datasets import mnist
from scopeflow.examples import mnist_cnn


def _train(data_dir, checkpoint_dir, last_step):
    tf.reset_default_graph()
    tf.set_random_seed(0)
    data = mnist.read_data_sets(str(data_dir), validation_size=1000, seed=0)
    x = tf.placeholder(tf.float32, [None, 784])
    labels = tf.placeholder(tf.uint8, [None])
    keep_prob = tf.placeholder_with_default(1.0, [])
    logits, variables = mnist_cnn.cnn_logits(tf.reshape(x, [-1, 28, 28, 1]), keep_prob)
    loss = tf.losses.sparse_softmax_cross_entropy(tf.cast(labels, tf.int32), logits)
    train_op = tf.train.AdamOptimizer(1e-4).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    hooks = [tf.train.StopAtStepHook(last_step=last_step)]
    with tf.train.MonitoredTrainingSession(
            checkpoint_dir=str(checkpoint_dir), hooks=hooks, save_checkpoint_steps=1000,
            save_summaries_steps=None, log_step_count_steps=None) as sess:
        while not sess.should_stop():
            images, digits = data.train.next_batch(50)
            sess.run(train_op, {x: images, labels: digits, keep_prob: 0.5})
    return tf.train.latest_checkpoint(str(checkpoint_dir))


def _weights(prefix):
    reader = tf.train.NewCheckpointReader(prefix)
    return {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}


@pytest.mark.parametrize("k", [2, 3])
def test_k_plus_restart_plus_k_equals_2k_straight(mnist_split_dir, tmp_path, k):
    straight = _weights(_train(mnist_split_dir, tmp_path / "straight", 2 * k))
    assert _train(mnist_split_dir, tmp_path / "resumed", k).endswith(f"model.ckpt-{k}")
    resumed = _weights(_train(mnist_split_dir, tmp_path / "resumed", 2 * k))
    assert int(resumed["global_step"]) == 2 * k
    assert "_scopeflow/training_state" in straight
    assert sorted(straight) == sorted(resumed)
    differ = [name for name in straight
              if np.asarray(straight[name]).tobytes() != np.asarray(resumed[name]).tobytes()]
    assert not differ
