"""tf.nondifferentiable_batch_function: the BatchFunction op calling its traced function,
compared with TensorFlow (TF1 graph mode): op, attrs, values, errors, no gradient."""

from __future__ import annotations

import json
import textwrap

import numpy as np

import scopeflow as tf

SCENARIO = textwrap.dedent('''
import numpy as np, json
out = {}
x = tf.placeholder(tf.float32, [None, 3])
w = tf.constant(2.0)
@tf.nondifferentiable_batch_function(1, 10, 100000)
def g(a):
    return a * w
z = g(x)
@tf.nondifferentiable_batch_function(1, 10, 100000, allowed_batch_sizes=[4, 10])
def h(a, b):
    return a + b, tf.reduce_sum(a, axis=1)
zz = h(x, x)
s0 = g(tf.constant(1.0))
op = z.op
out["op"] = [op.type, op.name, [i.name for i in op.inputs], z.shape.ndims, z.dtype.name,
             type(zz).__name__, len(zz)]
out["attrs"] = [op.get_attr("max_batch_size"), list(op.get_attr("allowed_batch_sizes")),
                list(zz[0].op.get_attr("allowed_batch_sizes")),
                [(lambda v: v.decode() if isinstance(v, bytes) else v)(zz[0].op.get_attr("shared_name"))],
                [t.name for t in op.get_attr("Tout")], [t.name for t in op.get_attr("Tcaptured")]]
try:
    tf.gradients(z, x)
    out["grad"] = "ok"
except LookupError as e:
    out["grad"] = "LookupError"
try:
    g(3.0)
except Exception as e:
    out["nontensor"] = [type(e).__name__, str(e)]
runs = []
with tf.Session() as s:
    for feed in [np.ones([12, 3]), np.arange(9.0).reshape(3, 3), np.ones([0, 3])]:
        try:
            runs.append(json.loads(json.dumps(s.run([z, zz], {x: feed}), default=lambda a: np.asarray(a).tolist())))
        except tf.errors.InvalidArgumentError as e:
            runs.append([l for l in str(e).splitlines() if "atch" in l and "node" not in l.lower() and "File" not in l and "stack" not in l][:1])
    try:
        s.run(s0)
    except tf.errors.InvalidArgumentError as e:
        runs.append([l for l in str(e).splitlines() if "atch" in l and "node" not in l.lower() and "File" not in l and "stack" not in l][:1])
out["runs"] = runs
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def test_batch_function_here():
    out = _run_here()
    assert out["op"][:2] == ["BatchFunction", "batch/BatchFunction"]
    assert out["runs"][1][1][1] == [3.0, 12.0, 21.0]
    assert out["grad"] == "LookupError"


def test_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    assert _run_here() == theirs
