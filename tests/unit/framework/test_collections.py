"""Collections and GraphKeys as TF1 (literals observed with TF 2.21)."""

from __future__ import annotations

import scopeflow as tf


def test_add_get_and_ref():
    tf.add_to_collection("k", 1)
    tf.add_to_collection("k", 2)
    tf.add_to_collections(["k", "j"], 3)
    tf.get_collection_ref("k").append(4)  # the ref is the live list
    tf.get_collection("k").append(5)  # get_collection is a copy
    # From TF 2.21.
    assert tf.get_collection("k") == [1, 2, 3, 4]
    assert tf.get_collection("j") == [3]
    assert tf.get_collection("missing") == []
    assert sorted(tf.get_default_graph().get_all_collection_keys()) == ["j", "k"]


def test_add_to_collections_with_a_string_adds_once():
    tf.add_to_collections("k", 1)
    assert tf.get_collection("k") == [1]


def test_scope_filter_is_re_match_on_name():
    with tf.name_scope("foo"):
        a = tf.constant(1.0, name="a")
    with tf.name_scope("foobar"):
        b = tf.constant(1.0, name="b")
    with tf.name_scope("bar"):
        c = tf.constant(1.0, name="c")
    for t in (a, b, c):
        tf.add_to_collection("t", t)
    tf.add_to_collection("t", 7)  # no .name: skipped when filtering

    def names(scope):
        return [t.name for t in tf.get_collection("t", scope)]

    # From TF 2.21: re.match, so "foo" also matches "foobar/", "ar" matches nothing.
    assert names("foo") == ["foo/a:0", "foobar/b:0"]
    assert names("foo/") == ["foo/a:0"]
    assert names("b.r") == ["bar/c:0"]
    assert names("ar") == []


def test_variable_collection_helpers_filter_by_scope():
    with tf.name_scope("a"):
        v = tf.Variable(1.0, name="v")
    w = tf.Variable(1.0, name="w")
    assert tf.global_variables("a") == [v]
    assert tf.global_variables() == [v, w]
    assert tf.trainable_variables("w") == [w]


def test_graph_keys_strings():
    # From TF 2.21.
    expected = {
        "GLOBAL_VARIABLES": "variables", "LOCAL_VARIABLES": "local_variables",
        "TRAINABLE_VARIABLES": "trainable_variables", "SUMMARIES": "summaries",
        "QUEUE_RUNNERS": "queue_runners", "UPDATE_OPS": "update_ops", "LOSSES": "losses",
        "REGULARIZATION_LOSSES": "regularization_losses", "GLOBAL_STEP": "global_step",
        "TRAIN_OP": "train_op", "INIT_OP": "init_op", "MODEL_VARIABLES": "model_variables",
        "MOVING_AVERAGE_VARIABLES": "moving_average_variables", "SAVERS": "savers",
        "VARIABLES": "variables", "METRIC_VARIABLES": "metric_variables",
        "TABLE_INITIALIZERS": "table_initializer", "READY_OP": "ready_op",
        "LOCAL_INIT_OP": "local_init_op", "SUMMARY_OP": "summary_op",
        "ACTIVATIONS": "activations", "WEIGHTS": "weights", "BIASES": "biases",
        "EVAL_STEP": "eval_step", "RESOURCES": "resources", "LOCAL_RESOURCES": "local_resources",
        "ASSET_FILEPATHS": "asset_filepaths", "CONCATENATED_VARIABLES": "concatenated_variables",
        "SAVEABLE_OBJECTS": "saveable_objects", "COND_CONTEXT": "cond_context",
        "WHILE_CONTEXT": "while_context", "READY_FOR_LOCAL_INIT_OP": "ready_for_local_init_op",
        "TRAINABLE_RESOURCE_VARIABLES": "trainable_resource_variables",
    }
    assert {k: getattr(tf.GraphKeys, k) for k in expected} == expected


def test_collections_are_per_graph():
    g = tf.Graph()
    with g.as_default():
        tf.add_to_collection("k", 1)
    assert tf.get_collection("k") == [] and g.get_collection("k") == [1]
