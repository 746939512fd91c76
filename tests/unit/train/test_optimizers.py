"""Optimizers against TensorFlow: trajectories, slot/variable/op names, reuse, in-place state.

The fixtures (tests/fixtures/tf_optimizers/optimizers.json) come from running
``gen_optimizers.py`` under real TF 2.21; the same scenario code runs here on scopeflow.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.train  # noqa: F401  (tf.train until scopeflow/__init__ imports it)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_optimizers"
REF = json.loads((FIXTURES / "optimizers.json").read_text())


def _gen():
    spec = importlib.util.spec_from_file_location("gen_optimizers",
                                                  FIXTURES / "gen_optimizers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _gen()


@pytest.fixture(scope="module")
def ours():
    return GEN.run_all(tf)


def _close(got, want):
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(GEN.OPTIMIZERS))
def test_dense_trajectory_and_names_match_tf(ours, name):
    got, want = ours["dense"][name], REF["dense"][name]
    assert got["names"] == want["names"]          # slot variables: w/Adam, w/Adam_1, ...
    assert got["slots"] == want["slots"]
    assert got["updates"] == want["updates"]      # Adam/update_w/ApplyAdam, ...
    assert got["train_op"] == want["train_op"]
    assert got["step"] == want["step"] == GEN.STEPS
    _close(got["traj"], want["traj"])


@pytest.mark.parametrize("name", sorted(GEN.OPTIMIZERS))
def test_sparse_trajectory_matches_tf(ours, name):
    got, want = ours["sparse"][name], REF["sparse"][name]
    assert got["slots"] == want["slots"]
    _close(got["traj"], want["traj"])


@pytest.mark.parametrize("name", sorted(GEN.SCHEDULES) + ["adam_int32_step"])
def test_schedules_with_global_step_match_tf(ours, name):
    got, want = ours["schedule"][name], REF["schedule"][name]
    assert got["names"] == want["names"]
    assert got["step"] == want["step"]
    _close(got["traj"], want["traj"])


@pytest.mark.parametrize("name", sorted(GEN.OPTIMIZERS))
def test_mlp_loss_trajectory_matches_tf(name):
    _close(GEN._mlp_case(tf, GEN.OPTIMIZERS[name]), REF["mlp"][name])


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    """Re-runs a few scenarios under real TF now (not only the stored fixture)."""
    want = tf1(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("g", {str(FIXTURES / 'gen_optimizers.py')!r})
        g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
        tf.disable_eager_execution()
        out = {{n: [g._dense_case(tf, g.OPTIMIZERS[n]), g._sparse_case(tf, g.OPTIMIZERS[n]),
                   g._mlp_case(tf, g.OPTIMIZERS[n])] for n in ["adam", "rmsprop_centered", "ftrl"]}}
        print(json.dumps(out))
    """)
    for n, (dense, sparse, mlp) in want.items():
        got = GEN._dense_case(tf, GEN.OPTIMIZERS[n])
        assert got["names"] == dense["names"]
        _close(got["traj"], dense["traj"])
        _close(GEN._sparse_case(tf, GEN.OPTIMIZERS[n])["traj"], sparse["traj"])
        _close(GEN._mlp_case(tf, GEN.OPTIMIZERS[n]), mlp)


# ── Names and scopes ─────────────────────────────────────────────────────────────────
def test_minimize_inside_reuse_scope_creates_slots_with_tf_names():
    # TF 2.21 (with AUTO_REUSE, since reuse=True fails there): net/net/w/Adam,
    # net_1/beta1_power, train op net_1/Adam.
    with tf.variable_scope("net"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    with tf.variable_scope("net", reuse=True):
        loss = tf.reduce_sum(w * w)
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
    t2 = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.name_scope("ns"):
        t3 = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="mymin")
    assert [v.op.name for v in tf.global_variables()] == [
        "net/w", "net_1/beta1_power", "net_1/beta2_power", "net/net/w/Adam",
        "net/net/w/Adam_1", "beta1_power", "beta2_power", "net/w/Adam", "net/w/Adam_1",
        "net/w/Momentum"]
    assert (train.name, t2.name, t3.name) == ("net_1/Adam", "Adam", "ns/mymin")
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train, t2, t3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.9, 0.9], rtol=1e-6)


def test_slots_never_silently_shared_between_optimizers():
    w = tf.Variable([1.0], name="w")
    a, b = tf.train.MomentumOptimizer(0.1, 0.9), tf.train.MomentumOptimizer(0.1, 0.9)
    a.minimize(w * w)
    b.minimize(w * w)
    assert a.get_slot(w, "momentum").op.name == "w/Momentum"
    assert b.get_slot(w, "momentum").op.name == "w/Momentum_1"


def test_get_slot_and_variables():
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable(3.0, name="v", trainable=False)
    opt = tf.train.AdamOptimizer()
    opt.minimize(tf.reduce_sum(w * w) + v)
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(w, "m").op.name == "w/Adam"
    assert opt.get_slot(v, "m") is None and opt.get_slot(w, "nope") is None
    assert [x.op.name for x in opt.variables()] == ["beta1_power", "beta2_power", "w/Adam",
                                                    "w/Adam_1"]
    assert not any(x.trainable for x in opt.variables())


def test_no_gradients_error_lists_variables():
    w = tf.Variable(1.0, name="w")
    tf.Variable(2.0, name="u")
    loss = tf.constant(1.0) * 2.0
    with pytest.raises(ValueError, match=r"No gradients provided for any variable, check your "
                       r"graph for ops that do not support gradients, between variables "
                       r"\[.*'w:0'.*'u:0'.*\] and loss"):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with pytest.raises(ValueError, match="No variables to optimize"):
        tf.train.GradientDescentOptimizer(0.1).minimize(w * w, var_list=[])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.train.GradientDescentOptimizer(0.1).apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.GradientDescentOptimizer(0.1, name="")


def test_var_list_restricts_updates():
    w = tf.Variable(1.0, name="w")
    u = tf.Variable(1.0, name="u")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(w * u, var_list=[w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run([w, u]) == [0.5, 1.0]


def test_compute_gradients_then_clip_then_apply():
    from scopeflow.ops.math.clip_ops import clip_by_global_norm
    w = tf.Variable([3.0, 4.0], name="w")
    opt = tf.train.GradientDescentOptimizer(1.0)
    gv = opt.compute_gradients(tf.reduce_sum(w * w))  # grad [6, 8], norm 10
    clipped, norm = clip_by_global_norm([g for g, _ in gv], 1.0)
    train = opt.apply_gradients(zip(clipped, [v for _, v in gv]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _, n = sess.run([train, norm])
        assert n == pytest.approx(10.0)
        np.testing.assert_allclose(sess.run(w), [2.4, 3.2], rtol=1e-6)


# ── In-place, sparse, state ──────────────────────────────────────────────────────────
@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "rmsprop_centered"])
def test_updates_are_in_place(name):
    w = tf.Variable(np.ones((64, 32), np.float32), name="w")
    opt = GEN.OPTIMIZERS[name](tf, 0.01)
    train = opt.minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        state = sess._state.vars
        # The variable and its slots keep their arrays (beta1_power, a scalar, is Assigned).
        before = {k: id(v) for k, v in state.items() if v.ndim}
        for _ in range(3):
            sess.run(train)
        assert {k: id(v) for k, v in state.items() if v.ndim} == before
        assert state["w"].dtype == np.float32
        assert not np.shares_memory(sess.run(w), state["w"])  # fetches never alias state


def test_sparse_update_touches_only_given_rows():
    e = tf.Variable(np.ones((6, 2), np.float32), name="emb")
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    grad = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, 2.0]]), tf.constant([4, 1]),
                            tf.constant([6, 2]))
    train = opt.apply_gradients([(grad, e)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got = sess.run(e)
        np.testing.assert_allclose(got[[0, 2, 3, 5]], 1.0)
        np.testing.assert_allclose(got[4], 0.9, rtol=1e-6)
        np.testing.assert_allclose(got[1], 0.8, rtol=1e-6)


def test_sparse_index_out_of_range_is_invalid_argument():
    e = tf.Variable(np.ones((3, 2), np.float32), name="emb")
    grad = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([7]), tf.constant([3, 2]))
    train = tf.train.AdagradOptimizer(0.1).apply_gradients([(grad, e)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7"):
            sess.run(train)


def test_uninitialized_slot_fails_with_its_name():
    w = tf.Variable([1.0], name="w")
    train = tf.train.AdamOptimizer().minimize(w * w)
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="w/Adam|beta1_power"):
            sess.run(train)


def test_float64_variables_stay_float64():
    w = tf.Variable(np.array([1.0, 2.0]), name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(w).dtype == np.float64


def test_integer_loss_is_rejected():
    tf.Variable(1.0, name="w")
    with pytest.raises(ValueError, match="Invalid type int32"):
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1))
