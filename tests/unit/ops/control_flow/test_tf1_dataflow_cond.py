"""TF1's v1 conds (Switch/Merge dataflow) in GraphDefs real TF wrote: imported and run with
TF's dead-tensor semantics (tests/fixtures/tf1_cond_graphs, made by its make_fixtures.py
under TF 2.21 in TF1 mode with control flow v1)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io import protos

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "tf1_cond_graphs"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _graph_def(name):
    return protos.GraphDef.FromString((FIXTURES / f"{name}.pb").read_bytes())


def _value(rec):
    return np.asarray(rec["value"], dtype=rec["dtype"]).reshape(rec["shape"])


def _replay(sess, runs, rename=lambda n: n, feed_map=None):
    """Runs the recorded runs in order and compares each with what TF gave."""
    g = sess.graph
    for run in runs:
        feeds = {}
        for k, v in run["feeds"].items():
            t = (feed_map or {}).get(k)
            t = g.get_tensor_by_name(rename(k)) if t is None else t
            feeds[t] = _value(v)
        fetches = [rename(f) for f in run["fetches"]]
        targets = [rename(t) for t in run["targets"]]
        if "error" in run:
            cls, message = run["error"]
            with pytest.raises(getattr(tf.errors, cls), match=message.replace("[", r"\[")
                               .replace("]", r"\]")):
                sess.run(fetches + targets, feeds)
            continue
        got = sess.run(fetches + targets, feeds)[:len(fetches)]
        for name, want, have in zip(fetches, run["values"], got):
            want = _value(want)
            assert np.asarray(have).dtype == want.dtype, name
            np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["simple", "side_effects", "nested", "frozen_bn_dropout",
                                  "dropout"])
def test_values_errors_and_side_effects_are_tfs(name):
    """Both predicate values; a variable written only in the untaken branch keeps its
    value (and a control dependency on a dead op is dead); a dead fetch raises TF's
    error; conds nested in conds; dropout's masks, its random op running only in the
    training runs."""
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def(name), name="")
        with tf.Session(graph=g) as sess:
            _replay(sess, EXPECTED[name])


def test_dead_branch_has_no_side_effects_with_any_passes(monkeypatch):
    """The plan passes never fold or forward a branch's ops into running."""
    monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", "none")
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def("side_effects"), name="")
        with tf.Session(graph=g) as sess:
            _replay(sess, EXPECTED["side_effects"])


def test_cond_in_a_name_scope_imported_with_input_map_and_a_name():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2], name="my_x")
        training = tf.placeholder(tf.bool, [], name="my_training")
        out, = tf.import_graph_def(
            _graph_def("scoped"), input_map={"model/x:0": x, "model/is_training": training},
            return_elements=["model/out:0"], name="imp")
        assert out.name == "imp/model/out:0"
        assert g.get_operation_by_name("imp/model/cond/Merge").type == "Merge"
        with tf.Session(graph=g) as sess:
            runs = [r for r in EXPECTED["scoped"] if "model/is_training:0" in r["feeds"]]
            _replay(sess, runs, rename=lambda n: "imp/" + n,
                    feed_map={"model/x:0": x, "model/is_training:0": training})


def test_saved_model_with_an_is_training_cond():
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.saved_model.loader.load(sess, ["serve"], str(FIXTURES / "saved_model"))
        _replay(sess, EXPECTED["saved_model"])


def test_dead_fetch_names_its_position_and_live_fetches_still_work():
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def("simple"), name="")
        x = np.array([1.0, 2.0, 3.0], np.float32)
        with tf.Session(graph=g) as sess:
            feeds = {"x:0": x, "pred:0": False}
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Retval\[1\] does not have value"):
                sess.run(["cond/Merge:0", "cond/mul:0"], feeds)
            # A dead target does not run and is no error (TF's too).
            assert sess.run(["cond/Merge:0", "cond/mul"], feeds)[1] is None
            np.testing.assert_array_equal(sess.run("cond/switch_f:0", feeds), False)


def test_while_loops_are_refused_naming_the_node():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError,
                           match=r"node 'loop/Enter' \(op Enter\).*while loops in imported "
                                 r"GraphDefs are not supported yet"):
            tf.import_graph_def(_graph_def("while_loop"), name="")


def test_switch_and_merge_shapes_and_dtypes_as_tf():
    from scopeflow.ops.control_flow import dataflow_ops as d
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        p = tf.placeholder(tf.bool, [])
        f, t = d.switch(x, p)
        assert f.shape.as_list() == [None, 3] and t.dtype == tf.float32
        assert f.name == "Switch:0" and t.name == "Switch:1"
        out, index = d.merge([tf.zeros([2, 3]), tf.zeros([2, 4])])
        assert out.shape.as_list() == [2, None] and index.dtype == tf.int32
        assert index.shape.as_list() == []
        assert d.merge([tf.zeros([2]), tf.zeros([2, 1])])[0].shape.ndims is None
        with pytest.raises(ValueError, match="rank 0"):
            d.switch(x, tf.placeholder(tf.bool, [2]))
        with pytest.raises(TypeError, match="bool"):
            d.switch(x, tf.constant(1.0))
        with pytest.raises(TypeError, match="one dtype"):
            d.merge([tf.zeros([2]), tf.zeros([2], tf.int32)])


def test_gradients_through_switch_and_merge():
    """TF's _SwitchGrad/_MergeGrad outside a cond context: the gradient reaches the input
    on the side that ran."""
    from scopeflow.ops.control_flow import dataflow_ops as d
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        p = tf.placeholder(tf.bool, [])
        f, t = d.switch(x, p)
        y, _ = d.merge([f * 3.0, t * t])
        grad, = tf.gradients(tf.reduce_sum(y), x)
        with tf.Session() as sess:
            xv = np.array([1.0, 2.0], np.float32)
            np.testing.assert_allclose(sess.run(grad, {x: xv, p: True}), 2 * xv)
            np.testing.assert_allclose(sess.run(grad, {x: xv, p: False}), [3.0, 3.0])


def test_tf_graph_def_round_trip_keeps_the_ops():
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def("side_effects"), name="")
        gd = g.as_graph_def()
    types = {n.name: n.op for n in gd.node}
    assert types["cond/Merge"] == "Merge" and types["cond/AssignAdd/Switch"] == "RefSwitch"
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g2) as sess:
            _replay(sess, EXPECTED["side_effects"])


@pytest.mark.tf
def test_tf_runs_the_graph_def_scopeflow_writes_back(tf1, tmp_path):
    """Imported, exported by scopeflow, and run by real TF: TF's values and side effects."""
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def("side_effects"), name="")
        path = tmp_path / "side_effects_sf.pb"
        path.write_bytes(g.as_graph_def().SerializeToString())
    got = tf1(f"""
        gd = tf.GraphDef()
        gd.ParseFromString(open({str(path)!r}, "rb").read())
        tf.import_graph_def(gd, name="")
        s = tf.Session()
        s.run("init")
        out = []
        for p in (True, False, True, False):
            out.append([float(s.run("cond/Merge:0", {{"pred:0": p}}))] +
                       [float(x) for x in s.run(["v:0", "w:0"])])
        print(json.dumps(out))
    """)
    assert got == [[11.0, 11.0, 0.0], [-1.0, 11.0, 5.0], [12.0, 12.0, 5.0], [-1.0, 12.0, 10.0]]


@pytest.mark.tf
def test_hand_built_switch_merge_graphs_as_tf(tf1):
    """Dead control inputs (not into a Merge), a Merge of unrelated predicates and nested
    switches: scopeflow's values and errors are TF's (tf.raw_ops there)."""
    program = """
        S = lambda x, p: {switch}
        M = lambda xs: {merge}
        v = tf.Variable(0.0)
        p = tf.placeholder(tf.bool, [])
        _, t = S(tf.constant(1.0), p)
        gate = tf.identity(t)
        five, six = tf.constant(5.0), tf.constant(6.0)
        with tf.control_dependencies([gate]):
            bump = tf.assign_add(v, 1.0)
            both = M([five, six])[0]
        with tf.control_dependencies([tf.group(gate)]):
            bump2 = tf.assign_add(v, 10.0)
        x = tf.constant([1.0, 2.0])
        a = tf.placeholder(tf.bool, [])
        b = tf.placeholder(tf.bool, [])
        y = M([S(x, a)[0], S(x, b)[1]])[0] * 3.0
        x4 = tf.constant(4.0)
        f, tt = S(S(x4, a)[1], S(b, a)[1])
        inner = M([f + 1.0, tt + 2.0])[0]
        tail = M([S(x4, a)[0] * 0.0, inner])[0] * 10.0
        s = tf.Session()
        s.run(v.initializer)
        out = []
        def run(fetches, feeds):
            try:
                r = s.run(fetches, feeds)
                out.append(np.asarray(r, dtype=object).tolist() if r is not None else None)
            except tf.errors.InvalidArgumentError as e:
                out.append(e.message.strip().split("\\n")[-1])
        run(both, {{p: False}})
        run([bump.op, bump2.op], {{p: False}})
        run(v, {{}})
        run(bump, {{p: False}})
        run([bump.op, bump2.op], {{p: True}})
        run(v, {{}})
        for av in (True, False):
            for bv in (True, False):
                run(y, {{a: av, b: bv}})
                run(tail, {{a: av, b: bv}})
                run([tail, inner], {{a: av, b: bv}})
        print(json.dumps(out, default=float))
    """
    theirs = tf1(program.format(switch="tf.raw_ops.Switch(data=x, pred=p)",
                                merge="tf.raw_ops.Merge(inputs=xs)"))
    import contextlib
    import io
    import textwrap

    from scopeflow.ops.control_flow import dataflow_ops as d
    with tf.Graph().as_default():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(textwrap.dedent(program.format(switch="d.switch(x, p)", merge="d.merge(xs)")),
                 {"tf": tf, "np": np, "json": json, "d": d})
    ours = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert ours == theirs


def test_import_meta_graph_trains_through_tfs_cond_gradient_as_tf():
    """TF's .meta holds a v1 cond and its gradient (Switch/Merge again); restored and
    trained in scopeflow, the losses and weights are TF's."""
    want = EXPECTED["train_meta"]
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(str(FIXTURES / "train_meta" / "model.meta"))
        saver.restore(sess, str(FIXTURES / "train_meta" / "model"))
        x = _value(want["x"])
        losses = []
        for p in want["preds"]:
            feeds = {"x:0": x, "is_training:0": p}
            losses.append(float(sess.run("loss:0", feeds)))
            sess.run("train", feeds)
        np.testing.assert_allclose(losses, want["losses"], rtol=1e-6)
        np.testing.assert_allclose(sess.run("d/kernel:0"), _value(want["kernel"]), rtol=1e-6)
