"""``tf.data.Dataset.random`` / ``sample_from_datasets`` / ``choose_from_datasets``: TF
2.x's static forms of tf.data.experimental's sources, which TF 2.21's compat.v1 Dataset
has too (``choose_from_datasets`` stops at an exhausted dataset by default there). The
values were printed by TF 2.21 for the same program; the live test reruns it there."""

from __future__ import annotations

import json

import pytest

import scopeflow as tf

PROGRAM = '''
def program(tf):
    tf.set_random_seed(3)
    datasets = {
        "random": tf.data.Dataset.random(seed=4).take(4),
        "sample": tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(0, 5), tf.data.Dataset.range(100, 105)], seed=2),
        "choose": tf.data.Dataset.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)],
            tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 0, 0], tf.int64))),
        "random_graph_seeded": tf.data.Dataset.random().take(2),
    }
    out = {}
    with tf.Session() as sess:
        for key, ds in datasets.items():
            nxt = tf.data.make_one_shot_iterator(ds).get_next()
            out[key] = []
            try:
                while True:
                    out[key].append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                pass
    return out
'''

TF_VALUES = {  # TF 2.21, TF1 mode
    "random": [1995848961, 2377083460, 192503441, 2649255194],
    "sample": [100, 0, 101, 1, 2, 3, 4, 102, 103, 104],
    "choose": [0, 10, 11, 1, 2],
    "random_graph_seeded": [3507506551, 501761998],
}


def _ours():
    scope = {}
    exec(PROGRAM, scope)
    with tf.Graph().as_default():
        return scope["program"](tf)


def test_values_are_tensorflows():
    assert _ours() == TF_VALUES


def test_rerandomize_each_iteration_is_named_as_missing():
    with pytest.raises(NotImplementedError, match="rerandomize_each_iteration"):
        tf.data.Dataset.random(seed=1, rerandomize_each_iteration=True)


def test_same_as_tensorflow(tf1):
    assert tf1(PROGRAM + "\ntf.disable_v2_behavior()\nprint(json.dumps(program(tf)))") == \
        json.loads(json.dumps(TF_VALUES))
