"""ProximalGradientDescent, ProximalAdagrad and AdagradDA optimizers and their Apply ops.

The same snippet runs here and under real TensorFlow (the ``tf1`` fixture): a few steps of
each optimizer on a dense and on a sparse (gather with repeated rows) loss, with and without
L1/L2; trajectories, slot variable names and op types must match TF's.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as sf
from scopeflow.ops.state import proximal_training_ops

SNIPPET = textwrap.dedent("""
    def _run_case(opt_name, kw, sparse):
        g = tf.Graph()
        with g.as_default():
            w = tf.Variable(np.array([[0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [1.5, -0.7, 0.05]],
                                     np.float32), name="w")
            c = tf.constant(np.array([[0.3, -0.4, 0.2], [1.0, -2.0, 0.5], [0.1, 0.0, -0.6]],
                                     np.float32))
            gs = tf.train.get_or_create_global_step()
            if sparse:
                rows = tf.gather(w, [2, 0, 2])
                loss = tf.reduce_sum(rows * tf.gather(c, [0, 1, 2])) + \\
                    0.5 * tf.reduce_sum(rows * rows)
            else:
                loss = tf.reduce_sum(w * c) + 0.5 * tf.reduce_sum(w * w * w)
            if opt_name == "pgd":
                opt = tf.train.ProximalGradientDescentOptimizer(0.2, **kw)
            elif opt_name == "padagrad":
                opt = tf.train.ProximalAdagradOptimizer(0.3, **kw)
            else:
                opt = tf.train.AdagradDAOptimizer(0.3, gs, **kw)
            train = opt.minimize(loss, global_step=gs)
            types = sorted({op.type for op in g.get_operations()
                            if "Proximal" in op.type or "AdagradDA" in op.type})
            names = sorted(v.op.name for v in tf.global_variables())
            traj = []
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for _ in range(4):
                    s.run(train)
                    traj.append(s.run(w).tolist())
                slots = {n: s.run(opt.get_slot(w, n)).tolist()
                         for n in opt.get_slot_names()}
            return {"types": types, "names": names, "traj": traj, "slots": slots}

    CASES = []
    for _opt in ("pgd", "padagrad", "da"):
        for _kw in ({}, {"l1_regularization_strength": 0.05},
                    {"l1_regularization_strength": 0.1, "l2_regularization_strength": 0.2},
                    {"l2_regularization_strength": 0.3}):
            for _sparse in (False, True):
                CASES.append((_opt, _kw, _sparse))
    if True:
        CASES.append(("padagrad", {"initial_accumulator_value": 0.5}, False))
        CASES.append(("da", {"initial_gradient_squared_accumulator_value": 0.7,
                             "l1_regularization_strength": 0.01}, True))
    RESULTS = [_run_case(*case) for case in CASES]
""")


def _ours():
    env = {"tf": sf, "np": np}
    exec(SNIPPET, env)  # noqa: S102 - the shared snippet, run against scopeflow
    return env["CASES"], env["RESULTS"]


def _reference_pgd(w, g, lr, l1, l2):
    prox = w - lr * g
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    return prox / (1 + lr * l2)


def test_proximal_gd_first_step_matches_formula():
    _, results = _ours()
    w0 = np.array([[0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [1.5, -0.7, 0.05]], np.float32)
    c = np.array([[0.3, -0.4, 0.2], [1.0, -2.0, 0.5], [0.1, 0.0, -0.6]], np.float32)
    # Case 4 is pgd, l1=0.1, l2=0.2, dense: loss = sum(w*c) + 0.5*sum(w^3).
    want = _reference_pgd(w0, c + 1.5 * w0 * w0, 0.2, 0.1, 0.2)
    np.testing.assert_allclose(results[4]["traj"][0], want, rtol=1e-6)


def test_adagrad_da_slots_and_first_step():
    cases, results = _ours()
    i = cases.index(("da", {}, False))
    assert results[i]["names"] == ["global_step", "w", "w/AdagradDA", "w/AdagradDA_1"]
    w0 = np.array([[0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [1.5, -0.7, 0.05]], np.float32)
    c = np.array([[0.3, -0.4, 0.2], [1.0, -2.0, 0.5], [0.1, 0.0, -0.6]], np.float32)
    g = c + 1.5 * w0 * w0
    want = -g * 0.3 / np.sqrt(0.1 + g * g)
    np.testing.assert_allclose(results[i]["traj"][0], want, rtol=1e-5)


def test_bad_hyperparameters_raise():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        sf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value"):
        sf.train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=-1)


def test_adagrad_da_global_step_must_be_int64():
    with sf.Graph().as_default():
        v = sf.Variable(np.zeros(2, np.float32))
        with pytest.raises(TypeError, match="int64"):
            proximal_training_ops.apply_adagrad_da(
                v, v, v, np.ones(2, np.float32), np.float32(0.1), np.float32(0),
                np.float32(0), np.int32(1))


def test_against_tensorflow(tf1):
    cases, ours = _ours()
    theirs = tf1("tf.disable_v2_behavior()\n" + SNIPPET + "\nprint(json.dumps(RESULTS))")
    for case, a, b in zip(cases, ours, theirs):
        assert a["types"] == b["types"], case
        assert a["names"] == b["names"], case
        np.testing.assert_allclose(a["traj"], b["traj"], rtol=2e-6, atol=1e-7,
                                   err_msg=json.dumps(case))
        assert a["slots"].keys() == b["slots"].keys(), case
        for k in a["slots"]:
            np.testing.assert_allclose(a["slots"][k], b["slots"][k], rtol=2e-6, atol=1e-7,
                                       err_msg=json.dumps(case))
