"""TF1's ``Dimension`` objects where ops take int lists (``tf.reshape(x, [-1, s[1] * s[2]])``
with ``s = x.get_shape()``): converted as TF's ops convert them (their int32 default type),
while ``tf.constant`` of such a list is refused as in TF 2.21 (one program, both)."""

import textwrap

PROGRAM = textwrap.dedent('''
    y = tf.placeholder(tf.float32, [None, 4, 5])
    s = y.get_shape()
    builds = {
        "reshape": lambda: tf.reshape(y, [-1, s[1] * s[2]]),
        "slice": lambda: tf.slice(y, [0, 0, 0], [-1, s[1], 2]),
        "tile": lambda: tf.tile(y, [1, s[1] // 2, 1]),
        "fill": lambda: tf.fill([s[1], 2], 1.0),
        "zeros": lambda: tf.zeros([s[1], 3]),
        "ones": lambda: tf.ones(s[1:]),
        "random_normal": lambda: tf.random_normal([s[1], s[2]]),
        "variable": lambda: tf.get_variable("v", [s[1], s[2]]),
        "dense": lambda: tf.layers.dense(y, s[2]),
        "split": lambda: tf.split(y, s[1], axis=1)[0],
        "one_hot": lambda: tf.one_hot([1], s[2]),
        "range": lambda: tf.range(s[1]),
        "float_constant": lambda: tf.constant([s[1]], tf.float32),
        "int_constant": lambda: tf.constant([s[1]], tf.int64),
        "unknown_dim": lambda: tf.reshape(y, [-1, s[0]]),
        "constant": lambda: tf.constant([-1, s[1]]),
    }
    out = {}
    for key, build in builds.items():
        try:
            out[key] = str(build().shape)
        except TypeError as e:
            out[key] = "TypeError"
    with tf.Session() as sess:
        out["run"] = sess.run(tf.reshape(y, [-1, s[1] * s[2]]),
                              {y: np.ones([2, 4, 5])}).shape
    print(json.dumps(out))
''')


def test_dimensions_convert_for_ops(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["reshape"] == "(?, 20)" and got["tile"] == "(?, 8, 5)"
    assert got["constant"] == "TypeError"
    assert got["run"] == [2, 20]


def test_dimensions_convert_as_tf(tf1, scopeflow_run):
    assert scopeflow_run(PROGRAM) == tf1("tf.disable_v2_behavior()\n" + PROGRAM)
