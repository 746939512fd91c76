"""Streaming metrics with weights whose shapes are unknown while building: TF squeezes or
expands them at run time and fails the run with its ``Assert`` when they cannot broadcast
(one program under scopeflow and TF); and a layer's weight penalties in ``layer.losses``."""

import textwrap

PROGRAM = textwrap.dedent('''
    out = {}
    metrics = {
        "mean": lambda v, w: tf.metrics.mean(v, weights=w),
        "accuracy": lambda v, w: tf.metrics.accuracy(v, v, weights=w),
        "mse": lambda v, w: tf.metrics.mean_squared_error(v, v * 2.0, weights=w),
        "auc": lambda v, w: tf.metrics.auc(tf.cast(v > 0, tf.bool), tf.sigmoid(v), weights=w),
    }
    cases = [([2, 3], [2, 1]), ([2, 3], [3, 2]), ([2, 3], [2]), ([2, 3], []), ([2, 1], [2, 1, 1]),
             ([2, 3], [2, 3, 2])]
    for name, fn in metrics.items():
        with tf.Graph().as_default():
            v = tf.placeholder(tf.float32, None)
            w = tf.placeholder(tf.float32, None)
            m, up = fn(v, w)
            with tf.Session() as s:
                s.run(tf.local_variables_initializer())
                res = []
                for vs, ws in cases:
                    vv = np.linspace(-1, 1, int(np.prod(vs))).reshape(vs)
                    wv = np.linspace(0.5, 2, int(np.prod(ws))).reshape(ws)
                    try:
                        res.append(round(float(s.run(up, {v: vv, w: wv})), 5))
                    except tf.errors.InvalidArgumentError as e:
                        lines = str(e).split("\\n")
                        msg = next((ln for ln in lines if ln.startswith(
                            ("assertion failed", "Can not squeeze"))), lines[0])
                        res.append(msg.split("[values.shape=]")[0])
                out[name] = res
    with tf.Graph().as_default():
        layer = tf.layers.Dense(3, kernel_regularizer=lambda k: tf.reduce_sum(k))
        layer(tf.zeros([1, 2]))
        layer(tf.zeros([1, 2]))
        # TF builds a new loss tensor at each access of layer.losses; scopeflow returns the
        # one in the collection: the same value
        losses = layer.losses
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out["layer_losses"] = [len(losses), len(tf.get_collection(
                tf.GraphKeys.REGULARIZATION_LOSSES)), bool(s.run(
                    losses[0] - tf.reduce_sum(layer.kernel)) == 0)]
    print(json.dumps(out))
''')


def test_weights_checked_at_run_time(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["mean"][1].startswith("assertion failed: [weights can not be broadcast to "
                                     "values.] [weights.shape=] [mean/cond/Merge:0] [3 2]")
    assert isinstance(got["mean"][2], float)  # [2] weights expand to [2, 1]
    assert got["layer_losses"] == [1, 1, True]


def test_weights_checked_as_tf(tf1, scopeflow_run):
    assert scopeflow_run(PROGRAM) == tf1("tf.disable_v2_behavior()\n" + PROGRAM)
