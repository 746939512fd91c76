"""The fast paths of the word2vec (NCE) training step keep TF's values and errors.

- with static batch sizes, the step's shape arithmetic folds away (plan passes: their own
  tests are in ``tests/unit/runtime/passes/``);
- the candidate sampler samples upcoming runs in batches, and looks up the true classes'
  expected counts in a per-session table once the op has run often;
- ``ScatterAdd``/``ScatterSub`` apply repeated rows one after another, as TF's kernel;
- ``Pad`` and ``GatherV2`` keep TF's checks;
- ``MatMul`` with an inner dimension of 1 (an outer product) multiplies elementwise.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import random_seed
from scopeflow.ops.math import libm
from scopeflow.ops.random import candidate_sampling_ops, philox
from scopeflow.ops.state import training_ops


def _kernel_calls(plan):
    """Op types whose kernels the plan's code calls on every run."""
    called = {line.split(" = ")[-1].split("(")[0].strip() for line in plan.source.splitlines()}
    return sorted(op.type for k, op in enumerate(plan.ops) if f"_k{k}" in called)


# ── the whole step ───────────────────────────────────────────────────────────────────


def _word2vec(vocab=500, batch=16, sampled=8):
    center = tf.placeholder(tf.int32, [batch])
    target = tf.placeholder(tf.int32, [batch, 1])
    with tf.name_scope("embed"):
        m = tf.get_variable("embed_matrix", [vocab, 4], initializer=tf.random_uniform_initializer())
        embed = tf.nn.embedding_lookup(m, center, name="embedding")
    with tf.name_scope("loss"):
        w = tf.get_variable("nce_weight", [vocab, 4],
                            initializer=tf.truncated_normal_initializer())
        b = tf.get_variable("nce_bias", initializer=tf.zeros([vocab]))
        loss = tf.reduce_mean(tf.nn.nce_loss(w, b, target, embed, sampled, vocab), name="loss")
    step = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    return center, target, loss, step


def test_word2vec_step_runs_no_shape_arithmetic():
    """TF's nce_loss and its gradient build Pack/Fill/StridedSlice/ConcatOffset/Tile from
    static shapes; with static batch sizes all of them fold."""
    center, target, loss, step = _word2vec()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {center: np.arange(16), target: np.arange(16).reshape(16, 1) * 3}
        sess.run([loss, step], feed)
        p = max(sess._plans.values(), key=lambda plan: len(plan.ops))
    called = set(_kernel_calls(p))
    assert not called & {"Pack", "Fill", "StridedSlice", "ConcatOffset", "Tile", "Shape"}
    assert {"LogUniformCandidateSampler", "GatherV2", "ScatterSub", "MatMul"} <= called
    assert len(_kernel_calls(p)) < 0.65 * sum(op.type != "Const" for op in p.ops)


# ── the candidate sampler: runs sampled ahead equal runs sampled one by one ──────────
def _reference_run(stream, sampler, k, unique, true_classes):
    """TF's ``SampleBatchGetExpectedCount`` for one run, draw by draw."""
    start = stream.reserve32(2048 * k)
    picked, tries, n = [], 0, 2 * k
    while len(picked) < k:
        w = stream.words(start, 2 * n).astype(np.uint64).reshape(n, 2)
        draws = sampler.sample(w[:, 0], w[:, 1]).tolist()
        picked, tries = [], 0
        for v in draws:
            tries += 1
            if not unique or v not in picked:
                picked.append(v)
            if len(picked) == k:
                break
        n *= 2

    def counts(p):
        p = np.float32(p)
        if tries == k:
            return p * np.float32(k)
        return -libm.expm1f(np.float32(tries) * libm.log1pf(-p))  # the C library's, as TF

    return (picked, counts(sampler.prob(np.array(true_classes))),
            counts(sampler.prob(np.array(picked))))


@pytest.mark.parametrize("kind,k,unique,range_max", [
    ("log", 6, True, 1000), ("log", 12, True, 14), ("log", 5, False, 100),
    ("uni", 7, True, 9), ("uni", 4, False, 50)])
@pytest.mark.bitexact
def test_sampled_ahead_runs_equal_the_stream_read_run_by_run(kind, k, unique, range_max):
    true = np.array([[1], [range_max - 1], [3]], np.int64)
    fn = (tf.nn.log_uniform_candidate_sampler if kind == "log"
          else tf.nn.uniform_candidate_sampler)
    outs = fn(tf.constant(true), 1, k, unique, range_max, seed=5)
    with tf.Session() as sess:  # 70 runs: batches of 1, 2, 4, .., 64, and the class table
        got = [sess.run(list(outs)) for _ in range(70)]
    stream = philox.PhiloxStream(random_seed.DEFAULT_GRAPH_SEED, 5)
    sampler = (candidate_sampling_ops._LogUniformSampler if kind == "log"
               else candidate_sampling_ops._UniformSampler)(range_max)
    for s, t, c in got:
        ws, wt, wc = _reference_run(stream, sampler, k, unique, true)
        assert s.tolist() == ws
        np.testing.assert_array_equal(t, wt)
        np.testing.assert_array_equal(c, wc)


def test_true_classes_outside_the_range_skip_the_table():
    true = tf.placeholder(tf.int64, [1, 1])
    s, t, c = tf.nn.log_uniform_candidate_sampler(true, 1, 4, True, 50, seed=3)
    with tf.Session() as sess:
        for _ in range(40):
            sess.run(t, {true: [[7]]})
        far = sess.run(t, {true: [[10**6]]})
    assert far.shape == (1, 1) and 0 < far[0, 0] < 1e-3


# ── ScatterAdd / ScatterSub with repeated indices ────────────────────────────────────
def test_scatter_applies_repeated_rows_in_order_as_tf():
    rng = np.random.default_rng(1)
    for trial in range(100):
        n = int(rng.integers(1, 12))
        shape = (n,) + tuple(int(d) for d in rng.integers(1, 4, rng.integers(0, 3)))
        idx = rng.integers(0, n, int(rng.integers(0, 30)))
        upd = rng.standard_normal(idx.shape + shape[1:]).astype(np.float32)
        init = rng.standard_normal(shape).astype(np.float32)
        for op, ufunc in ((training_ops.scatter_sub, np.subtract),
                          (training_ops.scatter_add, np.add)):
            tf.reset_default_graph()
            v = tf.Variable(init)
            out = op(v, tf.constant(idx, tf.int64), tf.constant(upd))
            with tf.Session() as sess:
                sess.run(v.initializer)
                got = sess.run(out)
            want = init.copy()
            for j, i in enumerate(idx):
                want[i] = ufunc(want[i], upd[j])
            np.testing.assert_array_equal(got, want, err_msg=f"trial {trial}")


def test_scatter_index_out_of_range_names_the_first_bad_position():
    v = tf.Variable(np.zeros((4, 2), np.float32))
    out = training_ops.scatter_sub(v, tf.constant([1, 9, -1]), tf.ones([3, 2]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 9 is not in"):
            sess.run(out)


def test_scatter_scalar_update_broadcasts():
    v = tf.Variable(np.zeros((3, 2), np.float32))
    out = training_ops.scatter_add(v, tf.constant([2, 0, 2]), tf.constant(1.5))
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(out), [[1.5, 1.5], [0, 0], [3, 3]])


# ── Pad (the Slice gradients) and GatherV2 (the lookups) ─────────────────────────────
@pytest.mark.parametrize("constant", [None, -2.5])
def test_pad_matches_numpy(constant):
    rng = np.random.default_rng(3)
    for _ in range(30):
        x = rng.standard_normal(tuple(int(d) for d in rng.integers(0, 4, 3))).astype(np.float32)
        p = rng.integers(0, 3, (3, 2)).astype(np.int32)
        tf.reset_default_graph()
        if constant is None:
            y = tf.pad(tf.constant(x), tf.constant(p))
        else:
            y = tf.pad(tf.constant(x), tf.constant(p), constant_values=constant)
        with tf.Session() as sess:
            got = sess.run(y)
        want = np.pad(x, p, constant_values=0.0 if constant is None else constant)
        np.testing.assert_array_equal(got, want)


def test_pad_checks_fed_paddings_as_tf():
    p = tf.placeholder(tf.int32, [None, None])
    y = tf.pad(tf.zeros([2, 3]), p)
    with tf.Session() as sess:
        for bad, msg in (([[1, 1, 1], [0, 0, 0]], r"paddings must be a matrix with 2 columns: "
                                                  r"\[2,3\]"),
                         ([[1, 1]], r"The first dimension of paddings must be the rank"),
                         ([[1, -1], [0, 0]], r"Paddings must be non-negative")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                sess.run(y, {p: bad})
        assert sess.run(y, {p: [[1, 0], [0, 2]]}).shape == (3, 5)


def test_gather_out_of_range_ids_name_the_first_bad_one():
    ids = tf.placeholder(tf.int32, [None])
    g = tf.gather(tf.constant([[1.0, 2.0], [3.0, 4.0]]), ids)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {ids: [1, 0]}), [[3, 4], [1, 2]])
        for bad, msg in (([0, 5, 7], r"indices\[1\] = 5 is not in \[0, 2\)"),
                         ([1, -1], r"indices\[1\] = -1 is not in \[0, 2\)")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                sess.run(g, {ids: bad})


def test_scatter_python_indices_keep_their_integer_type_and_tf_names():
    """As TF's ``_apply_op_helper``: T comes from the variable, Tindices from the indices."""
    v = tf.Variable(np.zeros((5, 3), np.float32), name="v")
    a = training_ops.scatter_sub(v, [1, 2], np.ones((2, 3), np.float32))
    b = training_ops.scatter_add(v, np.array([0], np.int64), [[1.0, 2.0, 3.0]], name="add_me")
    assert [(t.op.name, t.dtype.name) for t in a.op.inputs[1:]] == [
        ("ScatterSub/indices", "int32"), ("ScatterSub/updates", "float32")]
    assert [(t.op.name, t.dtype.name) for t in b.op.inputs[1:]] == [
        ("add_me/indices", "int64"), ("add_me/updates", "float32")]
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(a)
        np.testing.assert_array_equal(sess.run(b)[:3], [[1, 2, 3], [-1, -1, -1], [-1, -1, -1]])


# ── MatMul with an inner dimension of 1 (an outer product) ──────────────────────────
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_outer_product_matmul_is_exact(dtype):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((128, 1)).astype(dtype)
    b = rng.standard_normal((1, 65)).astype(dtype)
    a[:3, 0] = [-0.0, np.inf, 1e-30]
    b[0, :4] = [np.nan, -0.0, 1e-30, 2.0]
    with np.errstate(invalid="ignore"):
        want = np.dot(a, b)  # BLAS: a zero accumulator plus one product
    for ta, tb in ((False, False), (True, True)):
        y = tf.matmul(tf.constant(a.T if ta else a), tf.constant(b.T if tb else b),
                      transpose_a=ta, transpose_b=tb)
        with tf.Session() as sess:
            got = sess.run(y)
        np.testing.assert_array_equal(got.view(f"u{a.itemsize}"), want.view(f"u{a.itemsize}"))
    assert not np.signbit(want[0, 3]) and np.isnan(want[1, 0])  # -0.0 * 2 is +0.0, as TF
