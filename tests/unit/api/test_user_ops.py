"""``tf.user_ops.my_fact``: TF's example user op, as TF 2.21 builds and runs it."""

import scopeflow as tf


def _describe(tf):
    fact = tf.user_ops.my_fact()
    with tf.Session() as sess:
        value = sess.run(fact)
    return {"name": fact.name, "type": fact.op.type, "dtype": fact.dtype.name,
            "inputs": len(fact.op.inputs), "value": value.decode()}


def test_my_fact_matches_tf(tf1):
    with tf.Graph().as_default():
        ours = _describe(tf)
    theirs = tf1("""
        tf.disable_v2_behavior()
        fact = tf.user_ops.my_fact()
        with tf.Session() as sess:
            value = sess.run(fact)
        print(json.dumps({"name": fact.name, "type": fact.op.type, "dtype": fact.dtype.name,
                          "inputs": len(fact.op.inputs), "value": value.decode()}))
    """)
    assert ours == theirs


def test_my_fact_value_without_tf():
    with tf.Graph().as_default():
        assert _describe(tf) == {"name": "Fact:0", "type": "Fact", "dtype": "string",
                                 "inputs": 0, "value": "0! == 1"}
