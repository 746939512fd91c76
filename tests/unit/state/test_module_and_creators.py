"""tf.Module, tf.variable_creator_scope and tf.container: one scenario run under scopeflow
and under TensorFlow (TF1 graph mode), the names and orders compared."""

from __future__ import annotations

import json
import textwrap

import scopeflow as tf

SCENARIO = textwrap.dedent('''
    out = {}
    class Sub(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.k = tf.Variable(5.0, name="k")
    class MyModel(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(1.0, name="w")
                self.b = tf.Variable(2.0, name="b", trainable=False)
            self.sub = Sub()
            self.lst = [Sub(), tf.Variable(3.0, name="z")]
            self.d = {"y": self.w, "a": {"q": Sub()}}
        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.identity(x * self.w, name="out")
    m = MyModel()
    out["name"] = [m.name, m.name_scope.name if hasattr(m.name_scope, "name") else ""]
    out["vars"] = [v.name for v in m.variables]
    out["trainable"] = [v.name for v in m.trainable_variables]
    out["non_trainable"] = [v.name for v in m.non_trainable_variables]
    out["subs"] = [s.name for s in m.submodules]
    out["calls"] = [m(tf.constant(1.0)).name, m(tf.constant(1.0)).name]
    m2 = MyModel(name="mine")
    out["m2"] = [v.name for v in m2.variables]
    with tf.name_scope("outer"):
        m3 = MyModel()
        out["m3"] = [m3.name] + [v.name for v in m3.variables] + [m3(tf.constant(1.0)).name]
    try:
        MyModel(name="a b")
    except ValueError as e:
        out["bad"] = str(e)
    out["paths"] = [list(p) for p, _ in m._flatten(predicate=lambda v: isinstance(v, tf.Variable),
                                                    with_path=True)]
    log = []
    def c1(next_creator, **kw):
        log.append(["c1", sorted(kw), repr(kw["aggregation"]), repr(kw["synchronization"]),
                    kw["name"], kw["trainable"], kw["validate_shape"]])
        kw["name"] = "renamed"
        return next_creator(**kw)
    def c2(next_creator, **kw):
        log.append(["c2", kw["name"]])
        return next_creator(**kw)
    with tf.variable_creator_scope(c1):
        with tf.variable_creator_scope(c2):
            a = tf.Variable(1.0, name="a")
            b = tf.get_variable("b", shape=[2])
    with tf.variable_creator_scope(lambda next_creator, **kw: tf.constant(7.0)):
        c = tf.Variable(1.0)
    out["creators"] = [a.name, b.name, c.op.type, log[0], log[1], log[2][0], log[3][0]]
    with tf.container("ctr") as cname:
        q = tf.FIFOQueue(3, tf.float32)
        v = tf.Variable(1.0, name="vv")
        k = tf.constant(1.0)
        with tf.container(""):
            q2 = tf.FIFOQueue(3, tf.float32)
    attr = lambda op: op.get_attr("container").decode() if isinstance(
        op.get_attr("container"), bytes) else op.get_attr("container")
    out["container"] = [cname, attr(q.queue_ref.op), attr(v.op), attr(q2.queue_ref.op),
                        "container" in k.op.node_def.attr]
''')


def _run_here():
    scope = {"tf": tf}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def test_module_discovery_order_and_scopes():
    out = _run_here()
    assert out["vars"][:3] == ["my_model/b:0", "my_model/w:0", "z:0"]
    assert out["calls"] == ["my_model/out:0", "my_model/out_1:0"]
    assert out["m3"][1] == "outer/my_model/b:0" and out["m3"][-1] == "outer/my_model/out:0"
    assert out["name"] == ["my_model", "my_model/"]


def test_creator_chain_runs_innermost_first():
    out = _run_here()
    assert out["creators"][:3] == ["renamed:0", "renamed_1:0", "Const"]
    assert out["creators"][3] == ["c2", "a"]
    assert out["container"] == ["ctr", "ctr", "ctr", "", False]


def test_matches_tensorflow(tf1):
    code = "tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n"
    assert _run_here() == tf1(code)
