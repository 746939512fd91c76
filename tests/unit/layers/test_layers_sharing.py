"""tf.layers under variable sharing: TF1's layer naming under reuse, AUTO_REUSE, nested
scopes, explicit names and the layer's own ``reuse=``; and variable_scope's improper
nesting. Every expected name below was printed by TF 2.21 (tf.compat.v1 with the legacy
tf_keras layers) running the same program.
"""

from __future__ import annotations

import pytest

import scopeflow as tf


def _x():
    return tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")


def _names(outs):
    return [o.name for o in outs], sorted(v.name for v in tf.global_variables())


def test_rebuilding_a_network_under_reuse_finds_the_same_variables():
    x, outs = _x(), []
    for reuse in (None, True):
        with tf.variable_scope("Net", reuse=reuse):
            h = tf.layers.conv2d(x, 2, 3)
            f = tf.layers.flatten(h)
            outs += [h, tf.layers.dense(f, 5), tf.layers.dense(f, 1)]
    # TF 2.21:
    assert _names(outs) == (
        ["Net/conv2d/BiasAdd:0", "Net/dense/BiasAdd:0", "Net/dense_1/BiasAdd:0",
         "Net_1/conv2d/BiasAdd:0", "Net_1/dense/BiasAdd:0", "Net_1/dense_1/BiasAdd:0"],
        ["Net/conv2d/bias:0", "Net/conv2d/kernel:0", "Net/dense/bias:0", "Net/dense/kernel:0",
         "Net/dense_1/bias:0", "Net/dense_1/kernel:0"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([outs[1], outs[4]], {x: [[[[1.0, 2.0, 3.0]] * 4] * 4] * 2})
    assert (a == b).all()


def test_auto_reuse_shares_default_and_explicit_names():
    x, outs = _x(), []
    for _ in range(2):
        with tf.variable_scope("D", reuse=tf.AUTO_REUSE):
            outs += [tf.layers.dense(x, 5), tf.layers.dense(x, 1, name="out")]
    # TF 2.21:
    assert _names(outs) == (
        ["D/dense/BiasAdd:0", "D/out/BiasAdd:0", "D_1/dense/BiasAdd:0", "D_1/out/BiasAdd:0"],
        ["D/dense/bias:0", "D/dense/kernel:0", "D/out/bias:0", "D/out/kernel:0"])


def test_nested_scopes_inherit_reuse():
    x, outs = _x(), []
    for reuse in (None, True):
        with tf.variable_scope("G", reuse=reuse):
            with tf.variable_scope("Net"):
                outs.append(tf.layers.dense(x, 5))
            outs.append(tf.layers.dense(x, 1))
    # TF 2.21:
    assert _names(outs) == (
        ["G/Net/dense/BiasAdd:0", "G/dense/BiasAdd:0", "G_1/Net/dense/BiasAdd:0",
         "G_1/dense/BiasAdd:0"],
        ["G/Net/dense/bias:0", "G/Net/dense/kernel:0", "G/dense/bias:0", "G/dense/kernel:0"])


def test_reuse_passed_to_the_layer_function():
    x = _x()
    outs = [tf.layers.dense(x, 3, name="fc"), tf.layers.dense(x, 3, name="fc", reuse=True),
            tf.layers.dense(x, 3), tf.layers.dense(x, 3, reuse=True), tf.layers.dense(x, 3)]
    # TF 2.21: reuse=True opens variable_scope("dense", reuse=True), which finds dense/;
    # the next unnamed layer is dense_1 (its name scope dense_2).
    assert _names(outs) == (
        ["fc/BiasAdd:0", "fc_1/BiasAdd:0", "dense/BiasAdd:0", "dense_1/BiasAdd:0",
         "dense_2/BiasAdd:0"],
        ["dense/bias:0", "dense/kernel:0", "dense_1/bias:0", "dense_1/kernel:0", "fc/bias:0",
         "fc/kernel:0"])


def test_layer_names_count_variable_scopes_not_name_scopes():
    x = _x()
    with tf.variable_scope("dense"):
        tf.get_variable("v", [1])
    outs = [tf.layers.dense(x, 3)]
    with tf.name_scope("foo"):
        outs.append(tf.layers.dense(x, 3))
    with tf.name_scope("foo"):
        outs.append(tf.layers.dense(x, 3))
    # TF 2.21:
    assert _names(outs) == (
        ["dense_1/BiasAdd:0", "foo/dense/BiasAdd:0", "foo_1/dense/BiasAdd:0"],
        ["dense/v:0", "dense_1/bias:0", "dense_1/kernel:0", "dense_2/bias:0",
         "dense_2/kernel:0", "dense_3/bias:0", "dense_3/kernel:0"])


def test_reentering_by_scope_object_and_by_name():
    x, outs = _x(), []
    with tf.variable_scope("S") as s:
        outs.append(tf.layers.dense(x, 3))
    with tf.variable_scope(s, reuse=True):
        outs.append(tf.layers.dense(x, 3))
    with tf.variable_scope("S", reuse=True):
        outs.append(tf.layers.dense(x, 3))
    with tf.variable_scope("S"):
        outs.append(tf.layers.dense(x, 3, reuse=True))
    # TF 2.21:
    assert _names(outs) == (
        ["S/dense/BiasAdd:0", "S_1/dense/BiasAdd:0", "S_2/dense/BiasAdd:0",
         "S_3/dense/BiasAdd:0"], ["S/dense/bias:0", "S/dense/kernel:0"])


def test_what_tf_rejects_under_reuse_is_rejected():
    x = _x()
    with tf.variable_scope("Net"):
        tf.layers.dense(x, 3)
    # TF 2.21: a new name in a reusing scope, and a second layer after reuse_variables().
    msg = ("Variable Net/other/kernel does not exist, or was not created with "
           "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    with tf.variable_scope("Net", reuse=True):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            tf.layers.dense(x, 3, name="other")
    with tf.variable_scope("N2"):
        tf.layers.dense(x, 3)
        tf.get_variable_scope().reuse_variables()
        with pytest.raises(ValueError, match="Variable N2/dense_1/kernel does not exist"):
            tf.layers.dense(x, 3)


def test_layers_without_variables_under_reuse():
    x, outs = _x(), []
    for reuse in (None, True):
        with tf.variable_scope("Net", reuse=reuse):
            outs.append(tf.layers.max_pooling2d(x, 2, 2))
            outs.append(tf.layers.dropout(x, training=True))
    # TF 2.21:
    assert _names(outs) == (
        ["Net/max_pooling2d/MaxPool:0", "Net/dropout/dropout/SelectV2:0",
         "Net_1/max_pooling2d/MaxPool:0", "Net_1/dropout/dropout/SelectV2:0"], [])


def test_gan_discriminator_with_batch_norm_and_dropout():
    z = tf.placeholder(tf.float32, [None, 4, 4, 2])
    t = tf.placeholder(tf.bool, [])
    names = []
    for reuse in (None, True):
        with tf.variable_scope("disc", reuse=reuse):
            h = tf.layers.conv2d(z, 3, 2, name="c1")
            h = tf.layers.batch_normalization(h, training=True)
            h = tf.layers.dropout(h, 0.3, training=t)
            f = tf.layers.flatten(h)
            names += [f.name, tf.layers.dense(f, 1).name]
        assert f.shape.as_list() == [None, 27]
    # TF 2.21 (its dropout output is dropout/cond/Merge: a cond; see Dropout's NOTE):
    assert names == ["disc/flatten/Reshape:0", "disc/dense/BiasAdd:0",
                     "disc_1/flatten/Reshape:0", "disc_1/dense/BiasAdd:0"]
    assert [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "disc/batch_normalization/AssignMovingAvg",
        "disc/batch_normalization/AssignMovingAvg_1",
        "disc_1/batch_normalization/AssignMovingAvg",
        "disc_1/batch_normalization/AssignMovingAvg_1"]
    assert (len(tf.global_variables()), len(tf.trainable_variables())) == (8, 6)


# ── variable_scope's improper nesting ─────────────────────────────────────────────────
def test_improper_nesting_then_exits_in_order():
    outer = tf.variable_scope("outer")
    outer.__enter__()
    inner = tf.variable_scope("inner")
    inner.__enter__()
    # TF 2.21: the outer exit raises, leaving the variable scope (not the name scope).
    with pytest.raises(RuntimeError, match=r"^Improper nesting of variable_scope\.$"):
        outer.__exit__(None, None, None)
    assert tf.get_variable_scope().name == "outer/inner"
    assert tf.get_default_graph().get_name_scope() == ""
    inner.__exit__(None, None, None)
    assert tf.get_variable_scope().name == "outer"
    assert tf.get_default_graph().get_name_scope() == "outer"
    outer.__exit__(None, None, None)  # TF 2.21: exits cleanly now, back to the root scope
    assert tf.get_variable_scope().name == ""
    assert tf.get_default_graph().get_name_scope() == "outer"  # TF 2.21's quirk
    assert (tf.get_variable("v", [1]).name, tf.constant(1).name) == ("v:0", "outer/Const:0")


def test_improper_nesting_in_with_statements_raises_at_each_level():
    b = tf.variable_scope("b")
    with pytest.raises(RuntimeError, match="Improper nesting") as info:
        with tf.variable_scope("outer"):
            with tf.variable_scope("mid"):
                b.__enter__()
    # TF 2.21: the outer scope's exit raises again, the first error as its context.
    assert isinstance(info.value.__context__, RuntimeError)
    assert tf.get_variable_scope().name == "outer/mid/b"
    assert tf.get_default_graph().get_name_scope() == ""
    with tf.variable_scope("next"):
        assert tf.get_variable("w", [1]).name == "outer/mid/b/next/w:0"
        assert tf.constant(1).name == "next/Const:0"
    b.__exit__(None, None, None)  # leaves the graph it made the default
    assert tf.get_variable_scope().name == "outer/mid"


def test_variable_scope_checks_arguments_when_built():
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is "
                                        "required"):
        tf.variable_scope(None)
