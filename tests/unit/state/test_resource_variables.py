"""Resource variables (``use_resource=True``): TF's graph node for node, value semantics
(a read is a copy), gradients, optimizers, checkpoints and TF-written graphs.

The ``*_as_tf`` tests run one snippet under scopeflow and under real TensorFlow (TF1 mode)
and compare what each prints: node names and types, values, error classes and messages.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "resource_variables"


# ── The same program under scopeflow and TF ──────────────────────────────────────────
_GRAPH_SNIPPET = """
def err(f):
    try:
        f()
        return None
    except Exception as e:
        msg = getattr(e, "message", str(e))
        return [type(e).__name__, [ln for ln in msg.splitlines() if ln.strip()
                                   and not ln.strip().startswith("[[")][-1]]

out = {}
v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
with tf.variable_scope("s", use_resource=True):
    w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer())
with tf.name_scope("sc"):
    y = v * 2.0
    r = v.read_value()
    a = v.assign_add([1., 1.])
    g = w.sparse_read([0, 2])
    vv = v.value()
b = v.assign([5., 6.], read_value=False)
out["type"] = type(v).__name__
out["ops"] = [(o.name, o.type, [i.name for i in o.inputs], [c.name for c in o.control_inputs])
              for o in tf.get_default_graph().get_operations()]
out["names"] = [v.name, v.handle.name, v.initializer.name, v.initial_value.name,
                r.name, vv.name, a.name, str(a.dtype.name), b.name, w.name]
proto = v.to_proto()
out["proto"] = [proto.variable_name, proto.initializer_name, proto.snapshot_name,
                proto.is_resource, proto.initial_value_name, proto.trainable]
out["shape_error"] = err(lambda: v.assign([1., 2., 3.]))
x = tf.Variable(5.0, name="x")
bad_gather = w.sparse_read([7])
p = tf.placeholder(tf.float32)
add_p = v.assign_add(p, read_value=False)
with tf.Session() as sess:
    out["uninit_read"] = err(lambda: sess.run(v))
    out["uninit_gather"] = err(lambda: sess.run(g))
    out["report"] = [s.decode() for s in sess.run(tf.report_uninitialized_variables())]
    sess.run(x.initializer)
    out["uninit_read_2"] = err(lambda: sess.run(v))
    sess.run(tf.global_variables_initializer())
    out["report_2"] = sess.run(tf.report_uninitialized_variables()).tolist()
    out["a_then_v"] = [t.tolist() for t in sess.run([a, v])]
    out["g"] = sess.run(g).tolist()
    out["bad_gather"] = err(lambda: sess.run(bad_gather))
    out["bad_update"] = err(lambda: sess.run(add_p, {p: [1., 2., 3.]}))
    sess.run(b)
    out["after_b"] = v.eval().tolist()
    out["read_value"] = sess.run(v.assign_add([1., 1.]).read_value()).tolist()
print(json.dumps(out))
"""

_SEMANTICS_SNIPPET = """
out = {}
v = tf.Variable(1.0, use_resource=True)
a = v.assign(7.0)
with tf.control_dependencies([a]):
    rv = v.read_value()
    plus = v + 0.0
r0 = v.read_value()
with tf.control_dependencies([r0]):
    a2 = v.assign(9.0)
inc = v.assign_add(1.0)
with tf.Session() as sess:
    for name, fetch in [("rv", rv), ("plus", plus), ("a", a), ("r0_a2", [r0, a2]),
                        ("a2_r0", [a2, r0]), ("inc", inc)]:
        sess.run(v.initializer)
        got = sess.run(fetch)
        out[name] = np.asarray(got).tolist()
    sess.run(v.initializer)
    x = sess.run(v)
    sess.run(a)
    out["copy"] = float(x)
print(json.dumps(out))
"""

_TRAIN_SNIPPET = """
out = {}
for opt_name in ["GradientDescent", "Momentum", "Adam", "Adagrad", "RMSProp", "Adadelta",
                 "Ftrl", "CenteredRMSProp", "ProximalGD", "ProximalAdagrad", "AdagradDA"]:
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", initializer=np.array([[0.5, -1.0], [2.0, 0.25]], np.float32),
                            use_resource=True)
        e = tf.get_variable("e", initializer=np.arange(8, dtype=np.float32).reshape(4, 2),
                            use_resource=True)
        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w))) + \\
            tf.reduce_sum(tf.square(e.sparse_read([0, 2, 2])))
        step = tf.train.get_or_create_global_step()
        opt = {"GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.01),
               "Momentum": lambda: tf.train.MomentumOptimizer(0.01, 0.9),
               "Adam": lambda: tf.train.AdamOptimizer(0.1),
               "Adagrad": lambda: tf.train.AdagradOptimizer(0.1),
               "RMSProp": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5),
               "CenteredRMSProp": lambda: tf.train.RMSPropOptimizer(0.01, centered=True),
               "Adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
               "Ftrl": lambda: tf.train.FtrlOptimizer(0.1),
               "ProximalGD": lambda: tf.train.ProximalGradientDescentOptimizer(
                   0.05, l1_regularization_strength=0.01, l2_regularization_strength=0.1),
               "ProximalAdagrad": lambda: tf.train.ProximalAdagradOptimizer(
                   0.1, l1_regularization_strength=0.01),
               "AdagradDA": lambda: tf.train.AdagradDAOptimizer(
                   0.1, step, l1_regularization_strength=0.01)}[opt_name]()
        train = opt.minimize(loss, global_step=step)
        types = sorted({o.type for o in g.get_operations() if o.type.startswith("Resource")})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            out[opt_name] = [sess.run(w).tolist(), sess.run(e).tolist(), int(sess.run(step)),
                             types]
print(json.dumps(out))
"""


def _compare(tf1, scopeflow_run, snippet):
    ours, theirs = scopeflow_run(snippet), tf1("tf.disable_v2_behavior()\n" + snippet)
    return ours, theirs


def test_graph_names_values_and_errors_as_tf(tf1, scopeflow_run):
    ours, theirs = _compare(tf1, scopeflow_run, _GRAPH_SNIPPET)
    assert ours == theirs


def test_reads_are_copies_as_tf(tf1, scopeflow_run):
    ours, theirs = _compare(tf1, scopeflow_run, _SEMANTICS_SNIPPET)
    assert ours == theirs


def test_optimizers_train_resource_variables_as_tf(tf1, scopeflow_run):
    ours, theirs = _compare(tf1, scopeflow_run, _TRAIN_SNIPPET)
    for name in theirs:
        w, e, step, types = ours[name]
        tw, te, tstep, ttypes = theirs[name]
        np.testing.assert_allclose(w, tw, rtol=2e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(e, te, rtol=2e-5, atol=1e-6, err_msg=name)
        assert step == tstep
        # TF's sparse updates of GradientDescent and Adam are ResourceScatterAdd
        # compositions; scopeflow's are ResourceScatterSub / its fused
        # ResourceSparseApplyAdam (same values): compare the dense and gather ops only.
        keep = {t for t in ttypes if t not in ("ResourceScatterAdd",)}
        assert keep <= set(types), name


# ── scopeflow alone ──────────────────────────────────────────────────────────────────
def _graph():
    return tf.Graph().as_default()


def test_use_resource_paths_and_switch():
    with _graph():
        assert type(tf.Variable(1.0)).__name__ == "Variable"
        assert type(tf.Variable(1.0, use_resource=True)).__name__ == "ResourceVariable"
        with tf.variable_scope("a", use_resource=True):
            v = tf.get_variable("v", [2])
            with tf.variable_scope("b"):
                u = tf.get_variable("u", [2])
        assert v.handle.op.type == u.handle.op.type == "VarHandleOp"
        assert not hasattr(tf.get_variable("r", [1]), "handle")
        tf.enable_resource_variables()
        try:
            assert tf.resource_variables_enabled()
            assert type(tf.Variable(1.0)).__name__ == "ResourceVariable"
            assert type(tf.get_variable("z", [1])).__name__ == "ResourceVariable"
            assert type(tf.Variable(1.0, use_resource=False)).__name__ == "Variable"
        finally:
            tf.disable_resource_variables()
        assert not tf.resource_variables_enabled()
        assert isinstance(v, tf.Variable)


def test_read_is_not_aliased_by_a_later_assign():
    with _graph(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.0], use_resource=True)
        r = v.read_value()
        with tf.control_dependencies([r]):
            a = v.assign([7.0, 8.0])
        sess.run(v.initializer)
        got_r, _ = sess.run([r, a])
        np.testing.assert_array_equal(got_r, [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v), [7.0, 8.0])


def test_gradients_dense_and_sparse():
    with _graph(), tf.Session() as sess:
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], use_resource=True)
        loss = tf.reduce_sum(v * v)
        dense = tf.gradients(loss, v)[0]
        sparse = tf.gradients(tf.reduce_sum(v.sparse_read([2, 0, 2])), v)[0]
        assert isinstance(sparse, tf.IndexedSlices)
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(dense), 2 * sess.run(v))
        got = sess.run(sparse)
        np.testing.assert_array_equal(got.indices, [2, 0, 2])
        np.testing.assert_array_equal(got.values, np.ones((3, 2)))
        np.testing.assert_array_equal(got.dense_shape, [3, 2])


def test_gather_and_embedding_lookup_read_rows_as_tf():
    """As TF: ``tf.gather``/``embedding_lookup`` of a resource variable are its
    ``sparse_read`` (``ResourceGather``, named ``Gather``/``embedding_lookup``)."""
    with _graph() as g:
        w = tf.get_variable("w", [4, 2], use_resource=True)
        e = tf.nn.embedding_lookup(w, [0, 2])
        r = tf.gather(w, [1])
        assert [(o.name, o.type) for o in g.get_operations()][-5:] == [
            ("embedding_lookup/ids", "Const"), ("embedding_lookup", "ResourceGather"),
            ("embedding_lookup/Identity", "Identity"), ("Gather/indices", "Const"),
            ("Gather", "ResourceGather")]
        assert isinstance(tf.gradients(tf.reduce_sum(e) + tf.reduce_sum(r), w)[0],
                          tf.IndexedSlices)


def test_scatter_methods_and_lazy_reads():
    with _graph(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.0, 3.0, 4.0], use_resource=True)
        delta = tf.IndexedSlices(tf.constant([10.0, 20.0]), tf.constant([0, 3]))
        cases = {"scatter_add": [11, 2, 3, 24], "scatter_sub": [-9, 2, 3, -16],
                 "scatter_mul": [10, 2, 3, 80], "scatter_div": [0.1, 2, 3, 0.2],
                 "scatter_max": [10, 2, 3, 20], "scatter_min": [1, 2, 3, 4],
                 "scatter_update": [10, 2, 3, 20]}
        for method, want in cases.items():
            sess.run(v.initializer)
            result = getattr(v, method)(delta)
            assert result.op.type == "Resource" + "".join(
                p.capitalize() for p in method.split("_"))
            np.testing.assert_allclose(sess.run(result), want, rtol=1e-6, err_msg=method)
        for fn, want in [(tf.scatter_add, [6, 2, 3, 4]), (tf.scatter_update, [5, 2, 3, 4])]:
            sess.run(v.initializer)  # TF's state_ops: the Resource* op, a read after it
            result = fn(v, [0], [5.0])
            assert result.op.type.startswith("ResourceScatter")
            np.testing.assert_array_equal(sess.run(result), want)
        sess.run(v.initializer)
        op = v.assign_sub([1.0, 1.0, 1.0, 1.0], read_value=False)
        assert op.type == "AssignSubVariableOp"
        sess.run(op)
        np.testing.assert_array_equal(v.eval(), [0.0, 1.0, 2.0, 3.0])
        v.load([9.0, 9.0, 9.0, 9.0], sess)
        np.testing.assert_array_equal(sess.run(v), [9.0] * 4)
        np.testing.assert_array_equal(sess.run(v.initialized_value()), [9.0] * 4)


def test_initialized_value_initializes_first():
    with _graph(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.0], use_resource=True)
        w = tf.Variable(v.initialized_value() * 2.0, use_resource=True)
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), [2.0, 4.0])


def test_uninitialized_updates_fail_with_tf_errors():
    with _graph(), tf.Session() as sess:  # TF 2.21's classes and words
        v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
        x = tf.Variable(1.0)
        cases = [(v.assign_add([1.0, 1.0], read_value=False), tf.errors.NotFoundError),
                 (v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))).op,
                  tf.errors.NotFoundError),
                 (tf.train.GradientDescentOptimizer(0.1).apply_gradients(
                     [(tf.constant([1.0, 1.0]), v)]), tf.errors.InternalError)]
        words = ["Container localhost does not exist. (Could not find resource: localhost/v)",
                 "Resource localhost/v/N10tensorflow3VarE does not exist."]
        for word in words:
            for op, error in cases:
                with pytest.raises(error) as info:
                    sess.run(op)
                want = word if error is tf.errors.NotFoundError else \
                    "Invalid variable reference."
                assert want in info.value.message
            sess.run(x.initializer)


def test_saver_round_trip_with_ref_variables(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with _graph(), tf.Session() as sess:
        w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3),
                            use_resource=True)
        b = tf.get_variable("b", initializer=np.float32([1.0, 2.0]))  # a ref variable
        saver = tf.train.Saver()
        assert {o.type for o in tf.get_default_graph().get_operations()
                if o.name.startswith("save/Assign")} == {"AssignVariableOp", "Assign"}
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign(w * 10.0))
        saver.save(sess, prefix)
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == ["b", "w"]
    with _graph(), tf.Session() as sess:  # the same keys restore into ref variables
        w = tf.get_variable("w", [2, 3])
        b = tf.get_variable("b", [2], use_resource=True)
        tf.train.Saver().restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3) * 10.0)
        np.testing.assert_array_equal(sess.run(b), [1.0, 2.0])


def test_export_and_import_meta_graph(tmp_path):
    prefix = str(tmp_path / "m")
    with _graph(), tf.Session() as sess:
        v = tf.get_variable("v", initializer=np.float32([3.0, 4.0]), use_resource=True)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(v * v))
        tf.add_to_collection("train", train)
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, prefix)
    with _graph() as g, tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        (v,) = tf.global_variables()
        assert type(v).__name__ == "ResourceVariable" and v.name == "v:0"
        saver.restore(sess, prefix)
        sess.run(tf.get_collection("train")[0])
        np.testing.assert_allclose(sess.run(v), [0.0, 0.0])
        assert g.get_operation_by_name("GradientDescent/update_v/"
                                       "ResourceApplyGradientDescent")


# ── A graph and checkpoint TF wrote ──────────────────────────────────────────────────
def _batch(step):
    rng = np.random.RandomState(step)
    return {"x:0": rng.randn(4, 3).astype(np.float32),
            "ids:0": rng.randint(0, 5, size=4).astype(np.int32),
            "y:0": rng.randn(4, 1).astype(np.float32)}


def test_tf_written_meta_graph_and_checkpoint_train_as_in_tf():
    expected = json.loads((FIXTURE / "expected.json").read_text())
    prefix = str(FIXTURE / "model.ckpt")
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == expected["keys"]
    with _graph() as g, tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        variables = {v.op.name: v for v in tf.global_variables()}
        assert type(variables["model/w"]).__name__ == "ResourceVariable"
        loss = tf.get_collection("loss")[0]
        train = tf.get_collection(tf.GraphKeys.TRAIN_OP)[0]
        saver.restore(sess, prefix)
        losses = [float(sess.run([loss, train], _batch(i))[0]) for i in (3, 4)]
        np.testing.assert_allclose(losses, expected["losses"], rtol=1e-5)
        for name in ("w", "b", "emb"):
            np.testing.assert_allclose(sess.run(variables["model/" + name]), expected[name],
                                       rtol=1e-5, atol=1e-7)
        assert sess.run(g.get_tensor_by_name("global_step:0")) == expected["global_step"]


def test_scopeflow_written_meta_graph_trains_in_tf(tf1, tmp_path):
    """A scopeflow graph with resource variables (partitioned ones and sparse Adam updates
    included) and its checkpoint load in TF, whose next step gives scopeflow's values."""
    prefix = str(tmp_path / "m")
    with _graph(), tf.Session() as sess:
        with tf.variable_scope("p", use_resource=True,
                               partitioner=tf.fixed_size_partitioner(2)):
            pv = tf.get_variable("pv", [4, 2], initializer=tf.ones_initializer())
        v = tf.get_variable("v", initializer=np.float32([[3.0], [4.0]]), use_resource=True)
        e = tf.get_variable("e", initializer=np.arange(6, dtype=np.float32).reshape(3, 2),
                            use_resource=True)
        loss = tf.reduce_sum(tf.matmul(tf.constant([[1.0, 2.0]]), v)) + \
            tf.reduce_sum(tf.square(e.sparse_read([0, 2, 2]))) + \
            tf.reduce_sum(tf.nn.embedding_lookup(pv, [1, 3]))
        train = tf.train.AdamOptimizer(0.1).minimize(loss, name="train")
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        tf.train.Saver().save(sess, prefix)
        sess.run(train)
        ours = [sess.run(v).tolist(), sess.run(e).tolist()]
    theirs = tf1(f"""
        tf.disable_v2_behavior()
        saver = tf.train.import_meta_graph({prefix + '.meta'!r})
        g = tf.get_default_graph()
        with tf.Session() as sess:
            saver.restore(sess, {prefix!r})
            sess.run(g.get_operation_by_name("train"))
            print(json.dumps([sess.run(g.get_tensor_by_name(n + "/Read/ReadVariableOp:0"))
                              .tolist() for n in ("v", "e")]))
    """)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_enable_resource_variables_trains_in_a_monitored_session(tmp_path):
    tf.enable_resource_variables()
    try:
        with _graph():
            w = tf.get_variable("w", initializer=np.float32([[1.0], [2.0]]))
            step = tf.train.get_or_create_global_step()
            assert type(w).__name__ == type(step).__name__ == "ResourceVariable"
            loss = tf.reduce_sum(tf.matmul(tf.constant([[1.0, 2.0]]), w))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
            assert train.type == "AssignAddVariableOp"
            with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path)) as sess:
                for _ in range(3):
                    sess.run(train)
                assert sess.run(step) == 3
    finally:
        tf.disable_resource_variables()
    with _graph(), tf.Session() as sess:  # ref variables restore the same keys
        w = tf.get_variable("w", [2, 1])
        tf.train.Saver([w]).restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        np.testing.assert_allclose(sess.run(w), [[-0.5], [-1.0]])
