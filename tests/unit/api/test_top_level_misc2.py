"""bitcast, guarantee_const, timestamp, switch_case, batch_gather, op_scope, DeviceSpec,
initializers.identity and errors.error_code_from_exception_type, compared with TF 2.21."""

import textwrap

import scopeflow as tf

PROGRAM = textwrap.dedent('''
    out = {}
    x = tf.constant([[1, 2], [3, 4]])
    b = [tf.bitcast(tf.constant(1.0), tf.int32), tf.bitcast(tf.constant([1.0, 2.0]), tf.uint8),
         tf.bitcast(tf.constant([[1, 0, 0, 0]], tf.uint8), tf.int32),
         tf.bitcast(tf.constant([1, 2], tf.int64), tf.float64)]
    out["bitcast"] = [[t.op.type, t.name, str(t.shape), t.dtype.name] for t in b]
    i = tf.placeholder(tf.int32, [])
    r = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)])
    r2 = tf.switch_case(i, {0: lambda: tf.constant(1.), 1: lambda: tf.constant(2.)},
                        default=lambda: tf.constant(-1.))
    g = tf.batch_gather(x, [[1], [0]])
    with tf.op_scope([x], "n", "default") as s:
        out["op_scope"] = s
    d = tf.DeviceSpec.from_string("/job:w/replica:1/task:2/device:GPU:3")
    out["device"] = [d.job, d.replica, d.task, d.device_type, d.device_index, d.to_string(),
                     tf.DeviceSpec(job="ps", device_type="cpu", device_index=0).to_string(),
                     d.replace(job="x").to_string(),
                     d.make_merged_spec(tf.DeviceSpec.from_string("/cpu:1")).to_string(),
                     tf.DeviceSpec.from_string("/cpu:0") == tf.DeviceSpec(device_type="CPU",
                                                                           device_index=0)]
    v = tf.get_variable("v", [2, 3], initializer=tf.initializers.identity(gain=2.0))
    out["identity_nodes"] = sorted(n.name for n in tf.get_default_graph().as_graph_def().node
                                   if n.name.startswith("v/"))
    out["codes"] = [tf.errors.error_code_from_exception_type(tf.errors.NotFoundError),
                    str(tf.errors.error_code_from_exception_type(ValueError))]
    t = tf.timestamp()
    out["guarantee"] = [tf.guarantee_const(x).op.type, t.dtype.name, str(t.shape)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["bitcast_vals"] = [np.asarray(v_).tolist() for v_ in sess.run(b)]
        out["switch"] = [[float(a) for a in sess.run([r, r2], {i: k})] for k in (0, 1, 2, 7, -1)]
        out["gather"] = sess.run(g).tolist()
        out["identity"] = sess.run(v).tolist()
        t1, t2 = sess.run(t), sess.run(t)
        out["time_moves"] = bool(t2 >= t1 > 1.7e9)
    print(json.dumps(out))
''')


def test_without_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["bitcast_vals"][0] == 1065353216
    assert got["switch"][3] == [30.0, -1.0]       # out of range: last branch / default
    assert got["time_moves"]
    assert got["identity"] == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]


def test_matches_tf(tf1, scopeflow_run):
    want, got = tf1(PROGRAM), scopeflow_run(PROGRAM)
    assert got == want


def test_bitcast_refuses_a_bad_last_dimension():
    import pytest
    with tf.Graph().as_default(), pytest.raises(ValueError, match="last dimension"):
        tf.bitcast(tf.constant([[1, 0, 0]], tf.uint8), tf.int32)
