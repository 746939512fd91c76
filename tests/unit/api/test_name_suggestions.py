"""A misspelt name gets TensorFlow's exact error text first, then a "Did you mean": graph
lookups (get_tensor_by_name, get_operation_by_name, as_graph_element) and restores (the
unused checkpoint key of the same shape and dtype)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def _build():
    with tf.name_scope("layer1"):
        tf.Variable(tf.zeros([2]), name="weights")
    with tf.name_scope("layer2"):
        tf.Variable(tf.zeros([2]), name="weights")
    tf.no_op(name="train")
    return tf.get_default_graph()


# (method, name, exception, TF 2.21's str() of it, our addition). TF's text is recorded
# from TensorFlow 2.21 for the graph _build makes (test_live_prefixes_match_tensorflow).
CASES = [
    ("get_tensor_by_name", "layer1/weight:0", KeyError,
     "\"The name 'layer1/weight:0' refers to a Tensor which does not exist. The operation, "
     "'layer1/weight', does not exist in the graph.",
     " Did you mean 'layer1/weights:0', 'layer2/weights:0' or 'layer1/weights/read:0'?\""),
    ("get_operation_by_name", "layer1/weight", KeyError,
     "\"The name 'layer1/weight' refers to an Operation not in the graph.",
     " Did you mean 'layer1/weights', 'layer2/weights' or 'layer1/weights/read'?\""),
    ("as_graph_element", "layer1/weight", KeyError,
     "\"The name 'layer1/weight' refers to an Operation not in the graph.",
     " Did you mean 'layer1/weights', 'layer2/weights' or 'layer1/weights/read'?\""),
    ("as_graph_element", "layer1/weight:0", KeyError,
     "\"The name 'layer1/weight:0' refers to a Tensor which does not exist. The operation, "
     "'layer1/weight', does not exist in the graph.",
     " Did you mean 'layer1/weights:0', 'layer2/weights:0' or 'layer1/weights/read:0'?\""),
    ("get_tensor_by_name", "layer1/weight", ValueError,
     "The name 'layer1/weight' looks like an (invalid) Operation name, not a Tensor. Tensor "
     "names must be of the form \"<op_name>:<output_index>\".",
     " Did you mean 'layer1/weights:0', 'layer2/weights:0' or 'layer1/weights/read:0'?"),
    # A scope left out: the ops with that last name component.
    ("get_tensor_by_name", "weights:0", KeyError,
     "\"The name 'weights:0' refers to a Tensor which does not exist. The operation, "
     "'weights', does not exist in the graph.",
     " Did you mean 'layer1/weights:0' or 'layer2/weights:0'?\""),
    # An op without outputs is no tensor to suggest; nothing close: TF's text alone.
    ("get_tensor_by_name", "trains:0", KeyError,
     "\"The name 'trains:0' refers to a Tensor which does not exist. The operation, 'trains', "
     "does not exist in the graph.", "\""),
    ("get_operation_by_name", "xyzzy", KeyError,
     "\"The name 'xyzzy' refers to an Operation not in the graph.", "\""),
    ("get_operation_by_name", "trains", KeyError,
     "\"The name 'trains' refers to an Operation not in the graph.", " Did you mean 'train'?\""),
]


@pytest.mark.parametrize("method,name,exc,tf_text,ours", CASES,
                         ids=[f"{c[0]}({c[1]})" for c in CASES])
def test_graph_lookup_suggestions(method, name, exc, tf_text, ours):
    graph = _build()
    with pytest.raises(exc) as info:
        getattr(graph, method)(name)
    assert str(info.value) == tf_text + ours


def test_lookups_that_tf_already_explains_keep_tf_text_alone():
    graph = _build()
    with pytest.raises(KeyError) as info:
        graph.get_tensor_by_name("layer1/weights:3")
    assert str(info.value) == ("\"The name 'layer1/weights:3' refers to a Tensor which does not "
                               "exist. The operation, 'layer1/weights', exists but only has 1 "
                               "outputs.\"")


def test_session_fetch_carries_the_suggestion():
    _build()
    with tf.Session() as sess, pytest.raises(ValueError) as info:
        sess.run("layer1/weight:0")
    assert str(info.value).startswith(
        "Argument `fetch` = layer1/weight:0 cannot be interpreted as a Tensor. (\"The name "
        "'layer1/weight:0' refers to a Tensor which does not exist. The operation, "
        "'layer1/weight', does not exist in the graph. Did you mean 'layer1/weights:0'")


@pytest.mark.tf
def test_live_prefixes_match_tensorflow(tf1):
    cases = [(m, n) for m, n, *_ in CASES]
    got = tf1(f"""
        g = tf.Graph()
        with g.as_default():
            with tf.name_scope("layer1"):
                tf.Variable(tf.zeros([2]), name="weights")
            with tf.name_scope("layer2"):
                tf.Variable(tf.zeros([2]), name="weights")
            tf.no_op(name="train")
        out = []
        for method, name in {cases!r}:
            try:
                getattr(g, method)(name)
                out.append(None)
            except Exception as e:
                out.append([type(e).__name__, str(e)])
        print(json.dumps(out))
    """)
    for (method, name, exc, tf_text, ours), (tf_exc, tf_str) in zip(CASES, got):
        assert tf_exc == exc.__name__
        assert tf_str == tf_text + ("\"" if ours.endswith("\"") else ""), (method, name)


# ── restores ─────────────────────────────────────────────────────────────────────────────
def _save_conv_checkpoint(tmp_path):
    with tf.variable_scope("conv1"):
        tf.Variable(np.ones([3, 3, 1, 8], np.float32), name="W")
        tf.Variable(np.zeros([8], np.float32), name="b")
    tf.Variable(np.zeros([8], np.float32), name="other_b")
    tf.Variable(np.zeros([8], np.int32), name="steps")   # same shape, another dtype
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    return path


# TF 2.21's text for a restore whose variable conv1/bias the checkpoint lacks
# (tests/fixtures/tf_saver records the same phrases for its cases).
TF_MISSING_PREFIX = (
    "Restoring from checkpoint failed. This is most likely due to a Variable name or other "
    "graph key that is missing from the checkpoint. Please ensure that you have not altered "
    "the graph expected based on the checkpoint. Original error:\n\n"
    "Key conv1/bias not found in checkpoint")


def test_restore_suggests_unused_keys_of_the_same_shape_and_dtype(tmp_path):
    path = _save_conv_checkpoint(tmp_path)
    with tf.variable_scope("conv1"):
        tf.get_variable("filter", [3, 3, 1, 8])
        tf.get_variable("bias", [8])
    saver = tf.train.Saver()
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as info:
        saver.restore(sess, path)
    message = str(info.value)
    assert message.startswith(TF_MISSING_PREFIX)
    assert ("    conv1/bias: float32 [8], created at" in message
            and "      unused checkpoint keys of the same shape and dtype: 'conv1/b', 'other_b'\n"
            in message)   # closest name first; 'steps' is int32
    assert "      unused checkpoint key of the same shape and dtype: 'conv1/W'" in message
    assert ("2 missing names have unused checkpoint keys of the same shape and dtype (e.g. "
            "'conv1/bias' and 'conv1/b')") in message
    assert "tf.train.Saver({'conv1/b': <the variable conv1/bias>, ...})" in message

    report = saver.preview(path)
    assert report.same_shape_unused == {"conv1/bias": ["conv1/b", "other_b"],
                                        "conv1/filter": ["conv1/W"]}


def test_restore_suggestion_needs_same_dtype_and_an_unused_key(tmp_path):
    path = _save_conv_checkpoint(tmp_path)
    with tf.variable_scope("conv1"):
        tf.get_variable("W", [3, 3, 1, 8])          # uses conv1/W
        tf.get_variable("kernel2", [3, 3, 1, 8])    # conv1/W is used: no suggestion
        tf.get_variable("b64", [8], dtype=tf.float64)   # no float64 key of shape [8]
    report = tf.train.Saver().preview(path)
    assert sorted(report.missing) == ["conv1/b64", "conv1/kernel2"]
    assert report.same_shape_unused == {}
    assert "unused checkpoint key" not in report.problems_text()


def test_one_renamed_variable_gets_a_mapping_fix(tmp_path):
    path = _save_conv_checkpoint(tmp_path)
    with tf.variable_scope("conv1"):
        tf.get_variable("W", [3, 3, 1, 8])
        tf.get_variable("bias", [8])
    report = tf.train.Saver().preview(path)
    assert report.fixes[0].startswith(
        "the checkpoint's unused key 'conv1/b' has the shape and dtype of the missing "
        "'conv1/bias': if it is the same parameter under another name, map it with a dict")
