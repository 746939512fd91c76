"""tf.train.ExponentialMovingAverage and assign_moving_average against TensorFlow 2.21.

The names are the checkpoint format; the expected names and values below were printed by
TF 2.21 (TF1 mode) for the same graphs, and ``test_live_against_tensorflow`` re-runs the
scenarios under TF now.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.train  # noqa: F401  (tf.train until scopeflow/__init__ imports it)

# Runs under scopeflow and under TF: `scenario(tf)` builds the graphs and returns what
# TF promises about them (op names and types after the shadows' initial-value conds,
# variables, collections, checkpoint names, values).
SCENARIOS = textwrap.dedent('''
    def _ops(g, n0):
        # The shadows' initial-value conds are built differently (TF: Switch/Merge and an
        # uninitialized-dependency guard; scopeflow: one Cond op), so they are left out.
        # Their output is named <cond>.
        return [[o.name, o.type, [("<cond>" if "cond" in i.name else i.name) for i in o.inputs],
                 sorted(c.name for c in o.control_inputs)]
                for o in g.get_operations()[n0:]
                if "cond" not in o.name and o.type != "IsVariableInitialized"]

    def _names(coll):
        return [v.name for v in coll]

    def variables_case(tf):
        g = tf.Graph()
        with g.as_default():
            w = tf.Variable([1., 2.], name="w")
            with tf.variable_scope("s"):
                b = tf.get_variable("b", [2], initializer=tf.ones_initializer())
            step = tf.Variable(0, name="step", trainable=False)
            n0 = len(g.get_operations())
            ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
            with tf.name_scope("outer"):
                op = ema.apply([w, b])
            out = {"ops": _ops(g, n0), "ret": [op.name, op.type],
                   "globals": _names(tf.global_variables()),
                   "trainable": _names(tf.trainable_variables()),
                   "mavs": _names(tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)),
                   "avg": [ema.average(w).name, ema.average(b).name, ema.average_name(w),
                           ema.average_name(step), ema.average(step) is None],
                   "restore": sorted([k, v.name] for k, v in ema.variables_to_restore().items()),
                   "restore_w": sorted([k, v.name]
                                       for k, v in ema.variables_to_restore([w]).items())}
            upd = [tf.assign(w, w * 2.0), tf.assign(b, b + 1.0), tf.assign_add(step, 3)]
            traj = []
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                traj.append(s.run([ema.average(w), ema.average(b)]))
                for _ in range(3):
                    s.run(op)
                    s.run(upd)
                    traj.append(s.run([ema.average(w), ema.average(b)]))
            out["traj"] = [[a.tolist() for a in t] for t in traj]
        return out

    def tensors_case(tf):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [4, 3], name="x")
            mean, var = tf.nn.moments(x, [0])
            it = tf.placeholder(tf.int32, name="it")
            n0 = len(g.get_operations())
            ema = tf.train.ExponentialMovingAverage(0.9, it, zero_debias=True, name="EMA")
            with tf.variable_scope("vs"):
                op = ema.apply([mean, var])
            plain = tf.train.ExponentialMovingAverage(0.5)
            op2 = plain.apply([mean])
            out = {"ops": _ops(g, n0), "ret": [op.name, op2.name],
                   "globals": _names(tf.global_variables()),
                   "mavs": _names(tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES)),
                   "avg": [ema.average(mean).name, ema.average_name(mean),
                           ema.average_name(x), plain.average(mean).name]}
            traj = []
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for i in range(4):
                    xv = (np.arange(12, dtype=np.float32).reshape(4, 3) * (i + 1))
                    s.run([op, op2], {x: xv, it: i})
                    traj.append([a.tolist() for a in s.run(
                        [ema.average(mean), ema.average(var), plain.average(mean)])])
            out["traj"] = traj
        return out

    def assign_case(tf):
        g = tf.Graph()
        with g.as_default():
            from tensorflow.python.training import moving_averages
            v = tf.Variable([0., 10.], name="v")
            a = moving_averages.assign_moving_average(v, tf.constant([4., 4.]), 0.75,
                                                      zero_debias=False)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                vals = [s.run(a).tolist() for _ in range(2)]
        return {"name": a.name, "vals": vals}
''')


def _scenarios():
    ns = {"np": np}
    exec(SCENARIOS.replace("from tensorflow.python", "from scopeflow.python"), ns)
    return ns


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=1e-6, atol=1e-6)


# ── Against TF's output, as printed by TF 2.21 for the same graphs ────────────────────
def test_variable_shadows_names_collections_and_updates():
    got = _scenarios()["variables_case"](tf)
    ops = {name: (typ, inputs, ctrl) for name, typ, inputs, ctrl in got["ops"]}
    assert [n for n, *_ in got["ops"]][:4] == [
        "w/ExponentialMovingAverage", "w/ExponentialMovingAverage/Assign",
        "w/ExponentialMovingAverage/read", "s/b/ExponentialMovingAverage"]
    assert ops["w/ExponentialMovingAverage"][0] == "VariableV2"
    assert ops["outer/ExponentialMovingAverage/num_updates"] == ("Cast", ["step/read:0"], [])
    assert ops["outer/ExponentialMovingAverage/Minimum"][1] == [
        "outer/ExponentialMovingAverage/decay:0", "outer/ExponentialMovingAverage/truediv:0"]
    assert ops["outer/ExponentialMovingAverage/AssignMovingAvg/sub_1"][1] == [
        "w/ExponentialMovingAverage/read:0", "w/read:0"]
    assert ops["outer/ExponentialMovingAverage/AssignMovingAvg"] == (
        "AssignSub", ["w/ExponentialMovingAverage:0",
                      "outer/ExponentialMovingAverage/AssignMovingAvg/mul:0"], [])
    assert ops["outer/ExponentialMovingAverage/AssignMovingAvg_1"][1][0] == \
        "s/b/ExponentialMovingAverage:0"
    assert ops["outer/ExponentialMovingAverage"] == (
        "NoOp", [], ["outer/ExponentialMovingAverage/AssignMovingAvg",
                     "outer/ExponentialMovingAverage/AssignMovingAvg_1"])
    assert got["ret"] == ["outer/ExponentialMovingAverage", "NoOp"]
    assert got["globals"] == ["w:0", "s/b:0", "step:0", "w/ExponentialMovingAverage:0",
                              "s/b/ExponentialMovingAverage:0"]
    assert got["trainable"] == ["w:0", "s/b:0"]
    assert got["mavs"] == ["w:0", "s/b:0"]
    assert got["avg"] == ["w/ExponentialMovingAverage:0", "s/b/ExponentialMovingAverage:0",
                          "w/ExponentialMovingAverage", "step/ExponentialMovingAverage", True]
    assert got["restore"] == [["s/b/ExponentialMovingAverage", "s/b:0"], ["step", "step:0"],
                              ["w/ExponentialMovingAverage", "w:0"]]
    assert got["restore_w"] == [
        ["s/b", "s/b:0"], ["s/b/ExponentialMovingAverage", "s/b/ExponentialMovingAverage:0"],
        ["step", "step:0"], ["w/ExponentialMovingAverage", "w:0"]]
    # decay = min(0.9, (1 + n) / (10 + n)) with n = 0, 3, 6
    _close(got["traj"], [[[1, 2], [1, 1]], [[1, 2], [1, 1]],
                         [[1.6923077, 3.3846154], [1.6923077, 1.6923077]],
                         [[2.9903846, 5.980769], [2.4278846, 2.4278846]]])


def test_tensor_shadows_zero_debias_names_and_values():
    got = _scenarios()["tensors_case"](tf)
    names = [n for n, *_ in got["ops"]]
    ops = {name: (typ, inputs) for name, typ, inputs, _ in got["ops"]}
    assert names[:4] == ["vs/moments/Squeeze/EMA/Initializer/zeros", "vs/moments/Squeeze/EMA",
                         "vs/moments/Squeeze/EMA/Assign", "vs/moments/Squeeze/EMA/read"]
    # zero_debias: the biased value and the step live in <scope>/<shadow>/{biased,local_step}
    assert ops["vs/EMA/AssignMovingAvg/AssignSub"] == (
        "AssignSub", ["vs/vs/moments/Squeeze/EMA/biased:0", "vs/EMA/AssignMovingAvg/mul:0"])
    assert ops["vs/EMA/AssignMovingAvg/AssignAdd"][1][0] == \
        "vs/vs/moments/Squeeze/EMA/local_step:0"
    assert ops["vs/EMA/AssignMovingAvg/Pow"][1] == ["vs/EMA/AssignMovingAvg/sub_2:0",
                                                    "vs/EMA/AssignMovingAvg/AssignAdd:0"]
    assert ops["vs/EMA/AssignMovingAvg"] == (
        "Assign", ["vs/moments/Squeeze/EMA:0", "vs/EMA/AssignMovingAvg/truediv:0"])
    assert ops["ExponentialMovingAverage/AssignMovingAvg"] == (
        "AssignSub", ["moments/Squeeze/ExponentialMovingAverage:0",
                      "ExponentialMovingAverage/AssignMovingAvg/mul:0"])
    assert got["ret"] == ["vs/EMA", "ExponentialMovingAverage"]
    assert got["globals"] == [
        "vs/moments/Squeeze/EMA:0", "vs/moments/Squeeze_1/EMA:0",
        "vs/vs/moments/Squeeze/EMA/biased:0", "vs/vs/moments/Squeeze/EMA/local_step:0",
        "vs/vs/moments/Squeeze_1/EMA/biased:0", "vs/vs/moments/Squeeze_1/EMA/local_step:0",
        "moments/Squeeze/ExponentialMovingAverage:0"]
    assert got["mavs"] == []   # only variables join MOVING_AVERAGE_VARIABLES
    assert got["avg"] == ["vs/moments/Squeeze/EMA:0", "vs/moments/Squeeze/EMA", "x/EMA",
                          "moments/Squeeze/ExponentialMovingAverage:0"]
    traj = [t[:2] for t in got["traj"]]
    _close(traj, [[[4.5, 5.5, 6.5], [11.25] * 3],
                  [[8.376924, 10.2384615, 12.1], [39.980766] * 3],
                  [[12.342856, 15.085714, 17.828571], [86.96104] * 3],
                  [[16.34652, 19.979078, 23.611637], [152.31982] * 3]])


def test_assign_moving_average_from_tf_module_path():
    got = _scenarios()["assign_case"](tf)
    assert got["name"] == "AssignMovingAvg:0"
    _close(got["vals"], [[1.0, 8.5], [1.75, 7.375]])


def test_shadows_restore_through_saver(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1., 2.], name="w")
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply([w])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tf.assign(w, [3., 6.]))
            s.run(update)
            path = tf.train.Saver().save(s, str(tmp_path / "m"))
    names = {n for n, _ in tf.train.list_variables(path)}
    assert names == {"w", "w/ExponentialMovingAverage"}
    with tf.Graph().as_default():
        w = tf.Variable([0., 0.], name="w")
        restore = tf.train.ExponentialMovingAverage(0.5).variables_to_restore()
        assert restore == {"w/ExponentialMovingAverage": w}
        with tf.Session() as s:
            tf.train.Saver(restore).restore(s, path)
            np.testing.assert_allclose(s.run(w), [2., 4.])


def test_apply_twice_reuses_the_shadow_and_rejects_integers():
    w = tf.Variable(1.0, name="w")
    ema = tf.train.ExponentialMovingAverage(0.9)
    first, second = ema.apply([w]), ema.apply([w])
    assert (first.name, second.name) == ("ExponentialMovingAverage",
                                         "ExponentialMovingAverage_1")
    assert [v.name for v in tf.global_variables()] == ["w:0", "w/ExponentialMovingAverage:0"]
    with pytest.raises(TypeError, match="must be half, float, or double"):
        ema.apply([tf.Variable(1, name="i")])


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    want = tf1(SCENARIOS + textwrap.dedent('''
        out = {"variables": variables_case(tf), "tensors": tensors_case(tf),
               "assign": assign_case(tf)}
        print(json.dumps(out))
    '''))
    ns = _scenarios()
    for key, case in [("variables", "variables_case"), ("tensors", "tensors_case"),
                      ("assign", "assign_case")]:
        got = ns[case](tf)
        for field, value in want[key].items():
            if field in ("traj", "vals"):
                _close(got[field], value)
            else:
                assert got[field] == value, (key, field)


def test_moving_average_variables_lists_what_apply_averages():
    tf.reset_default_graph()
    w = tf.Variable(1.0, name="w")
    tf.Variable(2.0, name="other")
    tf.train.ExponentialMovingAverage(0.9).apply([w])
    assert tf.moving_average_variables() == [w]
