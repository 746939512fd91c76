"""embedding_lookup and the sampled losses against TensorFlow 2.21 (TF1 semantics).

``tests/fixtures/tf_embedding/program.py`` builds the same cases with either API;
``cases.json`` holds TensorFlow's results (refresh: ``../shared/tools/tf1
tests/fixtures/tf_embedding/generate.py``). Gradients are compared densified.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf

HERE = Path(__file__).resolve().parents[3] / "fixtures" / "tf_embedding"
WANT = json.loads((HERE / "cases.json").read_text())


def _program():
    spec = importlib.util.spec_from_file_location("tf_embedding_program", HERE / "program.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PROGRAM = _program()


def _kinds(kinds):
    return ["Tensor" if k in ("SymbolicTensor", "Tensor") else k for k in kinds]


@pytest.fixture(scope="module")
def lookups():
    return PROGRAM.lookup_cases(tf)


@pytest.fixture(scope="module")
def sampled_losses():
    return PROGRAM.sampled_loss_cases(tf)


@pytest.mark.parametrize("key", sorted(WANT["lookup"]))
def test_embedding_lookup_matches_tf(lookups, key):
    got, want = lookups[key], WANT["lookup"][key]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6, atol=1e-7)
    assert got["shape"] == want["shape"] and got["name"] == want["name"]
    assert got["kinds"] == want["kinds"] == ["IndexedSlices"] * len(want["kinds"])
    for g, w in zip(got["grads"], want["grads"]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", sorted(WANT["sampled_loss"]))
def test_sampled_losses_match_tf(sampled_losses, key):
    got, want = sampled_losses[key], WANT["sampled_loss"][key]
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5, atol=1e-6)
    # weights and biases get IndexedSlices (sparse), the inputs a dense tensor
    assert _kinds(got["kinds"]) == _kinds(want["kinds"])
    for g, w in zip(got["grads"], want["grads"]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_seed_graph_names_match_tf():
    got, want = PROGRAM.seed_graph(tf), WANT["seed_graph"]
    assert got["ops"] == want["ops"]
    assert got["embed"] == want["embed"] == "embed/embedding/Identity:0"
    assert got["loss"] == want["loss"] == "loss/loss:0"
    assert got["variables"] == want["variables"]
    assert got["grad_kinds"] == want["grad_kinds"] == ["IndexedSlices"] * 3


def test_repeated_ids_sum_in_dense_gradient():
    params = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    emb = tf.nn.embedding_lookup(params, [2, 2, 0, 2])
    (g,) = tf.gradients(tf.reduce_sum(emb), params)
    assert isinstance(g, tf.IndexedSlices)
    with tf.Session() as sess:
        dense = sess.run(tf.convert_to_tensor(g))
    np.testing.assert_array_equal(dense[:, 0], [1, 0, 3, 0])


def test_errors_match_tf():
    with pytest.raises(ValueError, match="Need at least one param"):
        tf.nn.embedding_lookup([], [0])
    with pytest.raises(ValueError, match="Unrecognized partition strategy"):
        tf.nn.embedding_lookup([tf.zeros([2, 2]), tf.zeros([2, 2])], [0], "bogus")


def test_word2vec_step_updates_only_looked_up_rows():
    train = tf.train
    center = tf.placeholder(tf.int32, [4])
    target = tf.placeholder(tf.int32, [4, 1])
    m = tf.get_variable("m", initializer=np.ones((30, 3), np.float32))
    w = tf.get_variable("w", initializer=np.full((30, 3), 0.5, np.float32))
    b = tf.get_variable("b", initializer=np.zeros(30, np.float32))
    loss = tf.reduce_mean(tf.nn.nce_loss(w, b, target, tf.nn.embedding_lookup(m, center),
                                         num_sampled=5, num_classes=30))
    step = train.GradientDescentOptimizer(1.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {center: [1, 2, 2, 7], target: [[3], [4], [4], [5]]})
        changed = np.flatnonzero(np.any(sess.run(m) != 1.0, axis=1))
    assert changed.tolist() == [1, 2, 7]


@pytest.mark.tf
def test_live_partitioned_lookup_against_tensorflow(tf1):
    code = """
    p = [tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) + 100 * k) for k in range(3)]
    res = []
    for strategy in ("mod", "div"):
        e = tf.nn.embedding_lookup(p, [[11, 0], [5, 7]], partition_strategy=strategy,
                                   max_norm=150.0)
        g = [tf.convert_to_tensor(x) for x in tf.gradients(tf.reduce_sum(e * e), p)]
        with tf.Session() as s:
            res.append([v.tolist() for v in s.run([e] + g)])
    print(json.dumps(res))
    """
    want = tf1(code)
    p = [tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) + 100 * k) for k in range(3)]
    got = []
    for strategy in ("mod", "div"):
        e = tf.nn.embedding_lookup(p, [[11, 0], [5, 7]], partition_strategy=strategy,
                                   max_norm=150.0)
        g = [tf.convert_to_tensor(x) for x in tf.gradients(tf.reduce_sum(e * e), p)]
        with tf.Session() as s:
            got.append([v.tolist() for v in s.run([e] + g)])
    for a, b in zip(got, want):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5)


def test_partition_stitch_and_sparse_to_dense_are_top_level():
    """tf.dynamic_partition / tf.dynamic_stitch / tf.sparse_to_dense, as TF 2.21 gives them."""
    p = tf.dynamic_partition(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([0, 1, 0, 1]), 2)
    s = tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([1, 3])], p)
    d = tf.sparse_to_dense([[0, 1]], [2, 2], [5.0])
    parts, stitched, dense = tf.Session().run([p, s, d])
    np.testing.assert_array_equal(parts[0], [1.0, 3.0])
    np.testing.assert_array_equal(parts[1], [2.0, 4.0])
    np.testing.assert_array_equal(stitched, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(dense, [[0.0, 5.0], [0.0, 0.0]])
