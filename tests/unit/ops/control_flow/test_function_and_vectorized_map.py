"""tf.function, tf.wrap_function (compat.v1) and tf.vectorized_map in TF1 graph mode: one
scenario under scopeflow and under TensorFlow; values, shapes, dtypes and errors compared
(the graphs differ: TF calls library functions with PartitionedCall, see function_ops)."""

from __future__ import annotations

import json
import textwrap

import numpy as np

import scopeflow as tf

SCENARIO = textwrap.dedent('''
    out = {}
    def sig(t):
        return [t.shape.as_list() if t.shape.rank is not None else None, t.dtype.name]
    x = tf.constant([1.0, 2.0, 3.0])
    @tf.function
    def f(a, b=2.0):
        return tf.sin(a) * b
    fetch = {"f": f(x), "f3": f(x, 3.0), "fgrad": tf.gradients(f(x), x)[0]}
    out["f_type"] = [type(f).__name__, f.python_function.__name__]
    fs = tf.function(lambda a: a * 2.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    fetch["fs"] = fs([1.0, 2.0])
    try:
        fs(tf.constant([[1.0]]))
    except TypeError as e:
        out["fs_err"] = str(e)
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.w = tf.Variable(2.0, name="w")
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, v):
            return v * self.w
    fetch["method"] = Scale()([1.0, 2.0])
    def g(a):
        return a * 2.0, a + 1.0
    wf = tf.wrap_function(g, [tf.TensorSpec([3], tf.float32)])
    out["wf"] = [type(wf).__name__, [t.name for t in wf.inputs], [t.name for t in wf.outputs],
                 [sig(t) for t in wf.inputs]]
    fetch["wf"] = wf(x)
    fetch["wf_pruned"] = wf.prune(wf.inputs[0], wf.outputs[1])(x)
    e = tf.reshape(tf.range(6.0), [2, 3])
    w = tf.constant([1.0, 2.0, 3.0])
    p = tf.placeholder(tf.float32, [None, 3])
    vm = {
        "basic": tf.vectorized_map(lambda t: t * 2.0 + tf.reduce_sum(t), e),
        "tuple": tf.vectorized_map(lambda t: (t[0] * 2, t[1]), (w, tf.constant([1, 2, 3]))),
        "capture": tf.vectorized_map(lambda t: t * w, e),
        "const": tf.vectorized_map(lambda t: tf.constant(5.0), e),
        "matmul": tf.vectorized_map(lambda t: tf.matmul(tf.expand_dims(t, 0), tf.ones([3, 2])),
                                    e),
        "dict": tf.vectorized_map(lambda d: {"s": d["a"] + 1.0}, {"a": e}),
        "dyn": tf.vectorized_map(lambda t: tf.reduce_max(t), p),
    }
    out["vm_sigs"] = {k: [sig(t) for t in tf.nest.flatten(v)] for k, v in vm.items()}
    fetch["vm"] = vm
    fetch["vm_grad"] = tf.gradients(vm["capture"], e)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(fetch, {p: np.arange(12.0).reshape(4, 3)})
    out["values"] = json.loads(json.dumps(vals, default=lambda a: np.asarray(a).tolist()))
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def _close(a, b):
    if isinstance(a, dict):
        return set(a) == set(b) and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and a and isinstance(a[0], (list, dict)) and not all(
            isinstance(v, list) and v and not isinstance(v[0], (list, dict)) for v in a):
        return len(a) == len(b) and all(_close(u, v) for u, v in zip(a, b))
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-5)


def test_here():
    out = _run_here()
    vals = out["values"]
    np.testing.assert_allclose(vals["fgrad"], 2 * np.cos([1.0, 2.0, 3.0]), rtol=1e-6)
    assert vals["vm"]["basic"] == [[3.0, 5.0, 7.0], [18.0, 20.0, 22.0]]
    assert out["vm_sigs"]["dyn"] == [[[None], "float32"]]
    assert vals["wf_pruned"] == [2.0, 3.0, 4.0]


def test_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    ours = _run_here()
    tv, ov = theirs.pop("values"), ours.pop("values")
    assert ours == theirs
    assert _close(ov, tv)
