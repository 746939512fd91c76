"""tf.train.replica_device_setter, device functions and colocation: node devices as TF's.

The same graph-building code runs under scopeflow and under TF; every node's device must
be the same string.
"""

import pytest

import scopeflow as tf

_BUILD = """
with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    v1 = tf.Variable(1.0, name="v1")
    v2 = tf.Variable(2.0, name="v2")
    with tf.device("/cpu:0"):
        v3 = tf.Variable(3.0, name="v3")
        c = v1 + v2
    with tf.device("/job:foo/task:3"):
        v4 = tf.Variable(4.0, name="v4")
    with tf.device(None):
        d = tf.constant(1.0, name="d")
    e = tf.assign_add(v3, 2.0, name="e")
with tf.device("/gpu:1"):
    with tf.device(tf.train.replica_device_setter(
            cluster={"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]},
            worker_device="/job:worker/task:0")):
        w1 = tf.Variable(1.0, name="w1")
        f = w1 * 3.0
        opt = tf.train.GradientDescentOptimizer(0.1).minimize(f)
with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)):
    with tf.device("/cpu:0"):
        z = tf.Variable(1.0, name="z")
with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_device="/job:ps/cpu:0",
                                              worker_device="", ps_ops=["Const"],
                                              ps_strategy=lambda op: 2)):
    k = tf.constant(1.0, name="k")
    k2 = tf.identity(k, name="k2")
with tf.device("/job:ps"):
    w = tf.Variable(1.0, name="w")
with tf.device("/gpu:0"):
    b = tf.assign(w, 2.0, name="b")
    with tf.colocate_with(w.op):
        g = tf.constant(1.0, name="g")
        with tf.device("/cpu:1"):
            g2 = tf.constant(1.0, name="g2")
    with tf.colocate_with(v1.op):
        g3 = tf.constant(1.0, name="g3")
        with tf.colocate_with(None, ignore_existing=True):
            g4 = tf.constant(1.0, name="g4")
nothing = [tf.train.replica_device_setter(ps_tasks=0) is None,
           tf.train.replica_device_setter(cluster={"worker": ["a"]}) is None]
devices = {n.name: n.device for n in tf.get_default_graph().as_graph_def().node}
"""


def _ours():
    ns = {"tf": tf}
    with tf.Graph().as_default():
        exec(_BUILD, ns)   # noqa: S102
    return [ns["devices"], ns["nothing"]]


def test_devices_without_tf():
    devices, nothing = _ours()
    assert nothing == [True, True]
    assert devices["v1"] == devices["v1/read"] == devices["v1/Assign"] == "/job:ps/task:0"
    assert devices["v2"] == "/job:ps/task:1"
    assert devices["v3"] == "/job:ps/task:0/device:CPU:0"   # round robin skipped v4
    assert devices["v4"] == "/job:foo/task:3"
    assert devices["add"] == "/job:worker/device:CPU:0" and devices["d"] == ""
    assert devices["k"] == "/job:ps/task:2/device:CPU:0" and devices["k2"] == ""
    assert devices["b"] == devices["g"] == devices["g2"] == "/job:ps"
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_devices_match_tf(tf1):
    got = tf1("tf.disable_v2_behavior()\n" + _BUILD +
              "print(json.dumps([devices, nothing]))")
    assert _ours() == got
