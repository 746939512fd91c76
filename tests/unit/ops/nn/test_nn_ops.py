"""nn ops against TensorFlow 2.21: values and gradients from recorded fixtures, errors,
op names, and a live check (``@pytest.mark.tf``).

The fixtures in tests/fixtures/tf_nn/ were recorded by ``make_fixtures.py`` (run it under
../shared/tools/tf1 to refresh them); the same module builds the scopeflow side.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_nn"


def load_fixtures(family):
    spec = importlib.util.spec_from_file_location("tf_nn_cases", FIXTURES / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    records = json.loads((FIXTURES / "expected.json").read_text())["cases"]
    return mod, [c for c in mod.CASES if c[1] == family], records


def check_case(mod, case, record, rtol=1e-5):
    outs, grads = mod.run_case(tf, case)
    want_outs = [mod.decode(d) for d in record["outputs"]]
    want_grads = [mod.decode(d) for d in record["grads"]]
    assert len(outs) == len(want_outs) and len(grads) == len(want_grads)
    for kind, got_list, want_list in (("output", outs, want_outs), ("grad", grads, want_grads)):
        for i, (got, want) in enumerate(zip(got_list, want_list)):
            assert got.dtype == want.dtype, f"{kind} {i}: dtype {got.dtype} vs TF {want.dtype}"
            assert got.shape == want.shape, f"{kind} {i}: shape {got.shape} vs TF {want.shape}"
            if "dropout" in case[0] and kind == "output":
                np.testing.assert_array_equal(got == 0, want == 0, err_msg="dropout mask")
            atol = rtol * max(1.0, float(np.nanmax(np.abs(want)))) if want.size and \
                want.dtype.kind == "f" and np.isfinite(want).any() else 0
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                       err_msg=f"{case[0]}: {kind} {i}")


MOD, CASES, RECORDS = load_fixtures("nn")


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.bitexact)  # the mask
                                  if "dropout" in c[0] else c for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_tensorflow(case):
    check_case(MOD, case, RECORDS[case[0]])


# ── errors and edge cases ────────────────────────────────────────────────────────────
def test_sparse_xent_out_of_range_label_is_invalid_argument():
    logits = tf.placeholder(tf.float32, [3, 4])
    labels = tf.placeholder(tf.int32, [3])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with tf.Session() as sess:
        for bad, value in (([0, 5, 1], 5), ([0, -1, 1], -1)):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=rf"Received a label value of {value} which is outside "
                               rf"the valid range of \[0, 4\)\.  Label values: "):
                sess.run(loss, {logits: np.zeros([3, 4]), labels: bad})


def test_sparse_xent_rank_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros([2, 3], tf.int32),
                                                       logits=tf.zeros([2, 3]))


def test_sigmoid_xent_shape_mismatch():
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([3]), logits=tf.zeros([3, 4]))


def test_xent_v1_needs_named_arguments():
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits([[1.0]], [[1.0]])


def test_dropout_arguments():
    x = tf.ones([2, 2])
    with pytest.raises(ValueError, match="provide a rate"):
        tf.nn.dropout(x)
    with pytest.raises(ValueError, match=r"range \[0, 1\)"):
        tf.nn.dropout(x, rate=1.0)
    assert tf.nn.dropout(x, rate=0.0) is x


def test_dropout_keep_prob_placeholder_train_and_eval():
    x = tf.ones([50, 40])
    keep = tf.placeholder(tf.float32)
    y = tf.nn.dropout(x, keep, seed=5)
    with tf.Session() as sess:
        train = sess.run(y, {keep: 0.5})
        evaluate = sess.run(y, {keep: 1.0})
    assert set(np.unique(train)) <= {0.0, 2.0} and 0.4 < (train > 0).mean() < 0.6
    np.testing.assert_array_equal(evaluate, np.ones([50, 40], np.float32))


def test_softmax_keeps_float32_and_is_stable():
    y = tf.nn.softmax(tf.constant([[1e30, 0.0, -1e30]], tf.float32))
    with tf.Session() as sess:
        v = sess.run(y)
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v, [[1, 0, 0]])


def test_top_k_gradient_scatters_to_indices():
    x = tf.constant([[1.0, 5.0, 3.0, 5.0]])
    values, _ = tf.nn.top_k(x, 2)
    (g,) = tf.gradients(values, x, grad_ys=tf.constant([[10.0, 20.0]]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g), [[0, 10, 0, 20]])


# ── op names (pinned from TF 2.21) ───────────────────────────────────────────────────
def _small_model(tf_mod):
    x = tf_mod.placeholder(tf_mod.float32, [None, 6], name="x")
    y = tf_mod.placeholder(tf_mod.int32, [None], name="y")
    keep = tf_mod.placeholder(tf_mod.float32, name="keep_prob")
    w = tf_mod.constant(np.full([6, 4], 0.1, np.float32), name="w")
    h = tf_mod.nn.relu(tf_mod.matmul(x, w))
    h = tf_mod.nn.dropout(h, keep)
    onehot = tf_mod.one_hot(y, 4)
    tf_mod.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=h)
    tf_mod.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
    tf_mod.nn.softmax(h)
    tf_mod.nn.l2_loss(w)
    tf_mod.losses.sparse_softmax_cross_entropy(y, h)
    tf_mod.nn.in_top_k(h, y, 1)


_NAMED_TYPES = {"Relu", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                "Softmax", "L2Loss", "RandomUniform", "GreaterEqual", "InTopKV2",
                "Placeholder"}
TF_SMALL_MODEL_OPS = [
    ("x", "Placeholder"), ("y", "Placeholder"), ("keep_prob", "Placeholder"),
    ("Relu", "Relu"),
    ("dropout/random_uniform/RandomUniform", "RandomUniform"),
    ("dropout/GreaterEqual", "GreaterEqual"),
    ("softmax_cross_entropy_with_logits", "SoftmaxCrossEntropyWithLogits"),
    ("SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits",
     "SparseSoftmaxCrossEntropyWithLogits"),
    ("Softmax", "Softmax"), ("L2Loss", "L2Loss"),
    ("sparse_softmax_cross_entropy_loss/xentropy/xentropy",
     "SparseSoftmaxCrossEntropyWithLogits"),
    ("in_top_k/InTopKV2", "InTopKV2"),
]


def _named_ops(graph):
    return [(op.name, op.type) for op in graph.get_operations() if op.type in _NAMED_TYPES]


def test_small_model_op_names_match_tensorflow():
    _small_model(tf)
    assert _named_ops(tf.get_default_graph()) == TF_SMALL_MODEL_OPS


@pytest.mark.tf
def test_small_model_op_names_live(tf1):
    got = tf1(f"""
        tf.disable_eager_execution()
        _NAMED_TYPES = {sorted(_NAMED_TYPES)!r}
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        keep = tf.placeholder(tf.float32, name="keep_prob")
        w = tf.constant(np.full([6, 4], 0.1, np.float32), name="w")
        h = tf.nn.relu(tf.matmul(x, w))
        h = tf.nn.dropout(h, keep)
        onehot = tf.one_hot(y, 4)
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=h)
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
        tf.nn.softmax(h)
        tf.nn.l2_loss(w)
        tf.losses.sparse_softmax_cross_entropy(y, h)
        tf.nn.in_top_k(h, y, 1)
        print(json.dumps([(o.name, o.type) for o in tf.get_default_graph().get_operations()
                          if o.type in _NAMED_TYPES]))
    """)
    assert [tuple(p) for p in got] == TF_SMALL_MODEL_OPS


@pytest.mark.bitexact
@pytest.mark.tf
def test_xent_and_dropout_live(tf1):
    """A fresh draw of inputs, compared live: xent value/gradients and a seeded mask."""
    rng = np.random.default_rng(42)
    logits = (rng.standard_normal((5, 7)) * 4).astype(np.float32)
    labels = rng.dirichlet(np.ones(7), 5).astype(np.float32)
    want = tf1(f"""
        tf.disable_eager_execution()
        x = tf.constant(np.array({logits.tolist()!r}, np.float32))
        y = tf.constant(np.array({labels.tolist()!r}, np.float32))
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)
        gx, gy = tf.gradients(loss, [x, y])
        tf.set_random_seed(9)
        d = tf.nn.dropout(tf.ones([8, 9]), rate=0.4, seed=2)
        with tf.Session() as s:
            vals = s.run([loss, gx, gy, d])
        print(json.dumps([v.tolist() for v in vals]))
    """)
    x, y = tf.constant(logits), tf.constant(labels)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)
    gx, gy = tf.gradients(loss, [x, y])
    tf.set_random_seed(9)
    d = tf.nn.dropout(tf.ones([8, 9]), rate=0.4, seed=2)
    with tf.Session() as sess:
        got = sess.run([loss, gx, gy, d])
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, np.array(w, np.float32), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[3], np.array(want[3], np.float32))
