"""cosine_decay_restarts, linear_cosine_decay, noisy_linear_cosine_decay and
piecewise_constant_decay: values, graph (op names and types) and seeded noise as TF's.

One snippet runs here and under real TensorFlow (the ``tf1`` fixture) and the results are
compared; the NumPy checks below need no TensorFlow.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

import scopeflow as sf

SNIPPET = textwrap.dedent("""
    def _decays():
        out = {}
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(7)
            step = tf.placeholder(tf.int64, [], name="step")
            fns = {
                "sgdr": tf.train.cosine_decay_restarts(0.1, step, 10),
                "sgdr_flat": tf.train.cosine_decay_restarts(0.1, step, 10, t_mul=1.0,
                                                            m_mul=0.5, alpha=0.1),
                "sgdr_geo": tf.train.cosine_decay_restarts(0.5, step, 4, t_mul=3.0,
                                                           m_mul=0.8, name="geo"),
                "lin": tf.train.linear_cosine_decay(0.1, step, 20),
                "lin2": tf.train.linear_cosine_decay(0.2, step, 20, num_periods=2.0,
                                                     alpha=0.1, beta=0.01),
                "noisy": tf.train.noisy_linear_cosine_decay(0.1, step, 20),
                "pc": tf.train.piecewise_constant_decay(step, [5, 10], [1.0, 0.5, 0.1]),
            }
            out["names"] = {k: v.name for k, v in fns.items()}
            # (Not inside conds: those are Switch/Merge in TF, a functional Cond here.)
            out["ops"] = sorted(op.name + ":" + op.type for op in g.get_operations()
                                if op.name.split("/")[0] in ("SGDRDecay", "SGDRDecay_1", "geo",
                                                             "LinearCosineDecay",
                                                             "LinearCosineDecay_1",
                                                             "NoisyLinearCosineDecay")
                                and "/cond/" not in op.name)
            with tf.Session() as s:
                out["values"] = {k: [float(s.run(v, {step: i}))
                                     for i in (0, 1, 3, 4, 9, 10, 15, 16, 25, 40, 100)]
                                 for k, v in fns.items()}
        try:
            tf.train.cosine_decay_restarts(0.1, None, 10)
        except ValueError as e:
            out["err"] = str(e)
        return out

    RESULT = _decays()
""")


def _ours():
    env = {"tf": sf, "np": np}
    exec(SNIPPET, env)  # noqa: S102 - the shared snippet, run against scopeflow
    return env["RESULT"]


def _sgdr(step, first, t_mul=2.0, m_mul=1.0, alpha=0.0, lr=0.1):
    frac = step / first
    if t_mul == 1.0:
        i = math.floor(frac)
        frac -= i
    else:
        i = math.floor(math.log(1 - frac * (1 - t_mul)) / math.log(t_mul))
        frac = (frac - (1 - t_mul ** i) / (1 - t_mul)) / t_mul ** i
    cos = 0.5 * m_mul ** i * (1 + math.cos(math.pi * frac))
    return lr * ((1 - alpha) * cos + alpha)


def test_values_match_the_formulas():
    r = _ours()
    steps = (0, 1, 3, 4, 9, 10, 15, 16, 25, 40, 100)
    np.testing.assert_allclose(r["values"]["sgdr"], [_sgdr(s, 10) for s in steps], rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(r["values"]["sgdr_flat"],
                               [_sgdr(s, 10, 1.0, 0.5, 0.1) for s in steps], rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(r["values"]["sgdr_geo"],
                               [_sgdr(s, 4, 3.0, 0.8, lr=0.5) for s in steps], rtol=1e-4,
                               atol=1e-6)
    lin = [0.1 * ((20 - min(s, 20)) / 20 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20))
                  + 0.001) for s in steps]
    np.testing.assert_allclose(r["values"]["lin"], lin, rtol=1e-5, atol=1e-8)
    np.testing.assert_array_equal(r["values"]["pc"], np.float32([1, 1, 1, 1, .5, .5, .1, .1, .1, .1, .1]))
    assert r["names"]["sgdr"] == "SGDRDecay:0" and r["names"]["sgdr_geo"] == "geo:0"
    assert r["err"] == "None values not supported."


def test_noise_is_seeded_and_vanishes_after_decay_steps():
    a, b = _ours(), _ours()
    assert a["values"]["noisy"] == b["values"]["noisy"]  # graph seed: same stream
    # After decay_steps the linear part and its noise's weight are zero: beta * lr is left
    # only if the cosine factor is 0; here num_periods=0.5 gives cos(pi)=-1 -> 0 factor.
    np.testing.assert_allclose(a["values"]["noisy"][-1], 0.1 * 0.001, rtol=1e-5)
    assert a["values"]["noisy"][1] != pytest.approx(a["values"]["lin"][1])


def test_against_tensorflow(tf1):
    ours = _ours()
    theirs = tf1("tf.disable_v2_behavior()\n" + SNIPPET + "\nprint(json.dumps(RESULT))")
    assert ours["names"] == theirs["names"]
    assert ours["err"] == theirs["err"]
    for k in ours["values"]:
        np.testing.assert_allclose(ours["values"][k], theirs["values"][k], rtol=2e-6,
                                   atol=1e-8, err_msg=k)
    assert ours["ops"] == theirs["ops"]
