"""The fast paths of the word2vec (NCE) training step keep TF's values and errors.

- plans fold constant subgraphs (shape arithmetic, ``ones``/``zeros_like`` of static
  shapes, ``Slice`` gradient paddings) at compile time, as TF's grappler does;
- the candidate sampler samples upcoming runs in batches, and looks up the true classes'
  expected counts in a per-session table once the op has run often;
- ``ScatterAdd``/``ScatterSub`` apply repeated rows one after another, as TF's kernel;
- ``Select`` with a constant zeros branch (sigmoid cross-entropy and Select's gradient)
  is a bitwise AND with the condition's mask, chosen when the plan is compiled;
- ``MatMul`` with an inner dimension of 1 (an outer product) multiplies elementwise;
- elementwise ufuncs write into an input that dies there when the plan can prove the run
  owns it alone (never a feed, a variable, a constant, a fetched or a shared value);
- ``Slice`` and ``Pad`` with constant bounds/paddings check and lay out once per shape;
- pass-through ops (``Identity``, ``StopGradient``, a ``Reshape`` to the shape its input
  has) are not called: their readers use the input's value;
- an ``AddN`` of zero-padded pieces that do not overlap (the gradient of ``Slice``s that
  split one tensor) writes each piece into its place, and the ``Pad``s do not run.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import random_seed
from scopeflow.ops import candidate_sampling_ops, philox, training_ops
from scopeflow.runtime import plan as plan_module


def _kernel_calls(plan):
    """Op types whose kernels the plan's code calls on every run."""
    called = {line.split(" = ")[-1].split("(")[0].strip() for line in plan.source.splitlines()}
    return sorted(op.type for k, op in enumerate(plan.ops) if f"_k{k}" in called)


# ── constant folding in plans ────────────────────────────────────────────────────────
def test_constant_subgraphs_run_once_at_compile_time():
    x = tf.placeholder(tf.float32, [2, 3])
    ones = tf.ones(tf.stack([tf.constant(2), tf.shape(x)[1]]))  # Pack, Fill of constants
    y = x * ones
    with tf.Session() as sess:
        p = plan_module.compile_plan([y], [], [x], sess._state)
        assert _kernel_calls(p) == ["Mul"]
        assert {"Pack", "Fill"} <= {op.type for op in p.ops}  # still part of the plan
        np.testing.assert_array_equal(sess.run(y, {x: np.full((2, 3), 2.0)}),
                                      np.full((2, 3), 2.0))


def test_fetched_folded_values_are_copies():
    z = tf.ones(tf.stack([2, 2])) + 1.0
    with tf.Session() as sess:
        first = sess.run(z)
        first[:] = 7.0
        np.testing.assert_array_equal(sess.run(z), np.full((2, 2), 2.0))


def test_failing_constant_op_fails_at_run_time_naming_it():
    bad = tf.gather(tf.constant([1.0, 2.0]), tf.constant([5]), name="bad_gather")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad_gather"):
            sess.run(bad)


def test_values_too_big_to_fold_are_not_computed_at_compile_time(monkeypatch):
    from scopeflow.ops import array_ops
    calls = []
    real = array_ops.fill_op.kernel
    monkeypatch.setattr(array_ops.fill_op, "kernel",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    big, small = tf.zeros([300, 300]), tf.ones(tf.stack([3, 4]))  # 360 KB, 48 bytes
    with tf.Session() as sess:
        p = plan_module.compile_plan([big, small], [], [], sess._state)
        assert _kernel_calls(p) == ["Fill"] and len(calls) == 1  # the small one, folded
        b, s = sess.run([big, small])
    assert b.shape == (300, 300) and not b.any() and s.tolist() == [[1.0] * 4] * 3


def test_stateful_ops_are_not_folded():
    r = tf.random_uniform(tf.stack([3]), seed=1)
    with tf.Session() as sess:
        assert not np.array_equal(sess.run(r), sess.run(r))


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
        return -np.expm1(np.float32(tries) * np.log1p(-p))

    return (picked, counts(sampler.prob(np.array(true_classes))),
            counts(sampler.prob(np.array(picked))))


@pytest.mark.parametrize("kind,k,unique,range_max", [
    ("log", 6, True, 1000), ("log", 12, True, 14), ("log", 5, False, 100),
    ("uni", 7, True, 9), ("uni", 4, False, 50)])
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


# ── Select with a constant zeros branch ──────────────────────────────────────────────
def _plan_kernel_names(plan, op_type):
    return sorted(plan.fn.__globals__[f"_k{k}"].__name__
                  for k, op in enumerate(plan.ops) if op.type == op_type)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_select_with_constant_zeros_is_exact_and_chosen_at_compile_time(dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 7)) * 10).astype(dtype)
    if x.dtype.kind == "f":
        x[0, :5] = [np.nan, -0.0, np.inf, -np.inf, 1e-310 if dtype == np.float64 else 1e-40]
        x.view(f"u{x.itemsize}")[0, 5] |= 0b101  # a NaN with a payload
        x.view(f"u{x.itemsize}")[0, 5] |= np.array(np.inf, dtype).view(f"u{x.itemsize}")
    c = rng.random((6, 7)) > 0.5
    cp, xp = tf.placeholder(tf.bool, [6, 7]), tf.placeholder(tf.as_dtype(dtype), [6, 7])
    zeros = tf.zeros([6, 7], tf.as_dtype(dtype))
    ys = [tf.where(cp, zeros, xp), tf.where(cp, xp, zeros), tf.where(cp, xp, -zeros),
          tf.where(cp, xp, xp)]
    with tf.Session() as sess:
        got = sess.run(ys, {cp: c, xp: x})
        plan = plan_module.compile_plan(ys, [], [cp, xp], sess._state)
    wants = [np.where(c, 0, x).astype(dtype), np.where(c, x, 0).astype(dtype),
             np.where(c, x, -np.zeros((), dtype)), x]
    for g, w in zip(got, wants):
        assert g.dtype == dtype and g.shape == (6, 7)
        np.testing.assert_array_equal(g.view(f"u{x.itemsize}"), w.view(f"u{x.itemsize}"))
    # -0.0 is not +0.0 (its sign would be lost), and x is not a constant
    expected = ["_select_else_zeros", "_select_then_zeros", "_select_kernel", "_select_kernel"]
    if x.dtype.kind != "f":  # an integer -0 is 0
        expected[2] = "_select_else_zeros"
    assert _plan_kernel_names(plan, "Select") == sorted(expected)


def test_select_with_constant_zeros_falls_back_for_a_vector_condition():
    c = tf.placeholder(tf.bool, [3])
    y = tf.where(c, tf.ones([3, 2]), tf.zeros([3, 2]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {c: [True, False, True]}),
                                      [[1, 1], [0, 0], [1, 1]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Number of batches of 'then' must match size of 'cond', but "
                                 "saw: 3 vs. 2"):
            sess.run(tf.where(tf.placeholder_with_default([True, False], [None]),
                              tf.ones([3, 2]), tf.zeros([3, 2])))


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


# ── buffer reuse by elementwise ufuncs ───────────────────────────────────────────────
def _reusing_ops(plan):
    return sorted(plan.ops[k].type for k in range(len(plan.ops))
                  if f"_k{k}(" in plan.source and
                  any(line.strip().startswith(f"t{k}_0 = _k{k}(") and "out=" in line
                      for line in plan.source.splitlines()))


def test_elementwise_chains_reuse_buffers_the_run_owns_alone():
    rng = np.random.default_rng(11)
    x = tf.placeholder(tf.float32, [4, 3])
    v = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    w = tf.matmul(x, tf.ones([3, 3]))             # fresh
    c = tf.negative(tf.reshape(tf.exp(w) * 2.0, [12]))  # each reuses (through the view)
    s = tf.sqrt(tf.abs(tf.matmul(x, tf.ones([3, 3]) * 2.0) + 1.0))  # each reuses
    d = s + s                                     # read twice: not reused
    e = x * 3.0                                   # a feed: never written
    f = v * 1.5                                   # a variable: never written
    h = tf.matmul(x, tf.ones([3, 3]) * 3.0)
    k = tf.exp(h)                                 # h is fetched too: not reused
    fetches = [c, d, e, f, h, k]
    feed = rng.standard_normal((4, 3)).astype(np.float32)
    before = feed.copy()
    with tf.Session() as sess:
        sess.run(v.initializer)
        vinit = sess.run(v)
        got = sess.run(fetches, {x: feed})
        plan = plan_module.compile_plan(fetches, [], [x], sess._state)
        assert _reusing_ops(plan) == ["Abs", "AddV2", "Exp", "Mul", "Neg", "Sqrt"]
        np.testing.assert_array_equal(sess.run(v), vinit)
    np.testing.assert_array_equal(feed, before)
    wv = feed @ np.ones((3, 3), np.float32)
    sv = np.sqrt(np.abs(feed @ np.full((3, 3), 2, np.float32) + np.float32(1)))
    hv = feed @ np.full((3, 3), 3, np.float32)
    want = [-(np.exp(wv) * np.float32(2)).reshape(12), sv + sv, feed * np.float32(3),
            vinit * np.float32(1.5), hv, np.exp(hv)]
    for g, wanted in zip(got, want):
        np.testing.assert_array_equal(g, wanted)


def test_buffer_reuse_never_writes_into_a_fed_value_seen_through_a_view():
    x = tf.placeholder(tf.float32, [2, 2])
    w = tf.matmul(x, tf.ones([2, 2]))
    y = tf.negative(tf.reshape(w, [4]))
    fed = np.arange(4, dtype=np.float32).reshape(2, 2)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {w: fed}), [0, -1, -2, -3])
        np.testing.assert_array_equal(sess.run(y, {x: fed}), [-1, -1, -5, -5])
    np.testing.assert_array_equal(fed, np.arange(4).reshape(2, 2))


# ── pass-through ops are skipped ─────────────────────────────────────────────────────
def _locals_never_freed(plan):
    """Plan locals that are neither deleted after their last reader nor returned."""
    lines = [ln.strip() for ln in plan.source.splitlines()]
    made = {v.strip() for ln in lines if ln.startswith("t") and " = " in ln
            for v in ln.split(" = ")[0].split(",") if v.strip()}
    freed = {v.strip() for ln in lines if ln.startswith("del ") for v in ln[4:].split(",")}
    returned = next(ln for ln in lines if ln.startswith("return"))
    return sorted(v for v in made - freed if v not in returned)


def test_pass_through_ops_are_not_called_and_values_stay_right():
    x = tf.placeholder(tf.float32, [2, 3])
    m = tf.matmul(x, tf.ones([3, 3]))
    same = tf.reshape(tf.stop_gradient(tf.identity(m)), [2, 3])  # a chain of three
    flat = tf.reshape(same, [6])                                  # a real reshape
    z = tf.reduce_sum(flat) * m
    y = tf.exp(same) + 1.0                # the last reader of m reads it through the chain
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        got = sess.run([y, z], {x: feed})
        plan = plan_module.compile_plan([y, z], [], [x], sess._state)
    assert _kernel_calls(plan) == ["AddV2", "Exp", "MatMul", "Mul", "Reshape", "Sum"]
    assert _locals_never_freed(plan) == []
    mv = feed @ np.ones((3, 3), np.float32)
    np.testing.assert_array_equal(got[0], np.exp(mv) + np.float32(1))
    np.testing.assert_array_equal(got[1], mv.sum() * mv)


def test_pass_through_of_a_feed_is_copied_when_fetched_and_never_written():
    x = tf.placeholder(tf.float32, [3])
    y = tf.identity(x)
    z = tf.negative(tf.reshape(y, [3]))   # a ufunc on a (skipped) view of a feed
    fed = np.array([1.0, 2.0, 3.0], np.float32)
    with tf.Session() as sess:
        got_y, got_z = sess.run([y, z], {x: fed})
    np.testing.assert_array_equal(got_z, [-1, -2, -3])
    np.testing.assert_array_equal(fed, [1, 2, 3])
    got_y[0] = 9.0
    np.testing.assert_array_equal(fed, [1, 2, 3])


def test_identity_of_a_variable_still_reads_it_in_order():
    v = tf.Variable(1.0)
    before = tf.identity(v)
    with tf.control_dependencies([before]):
        bump = tf.assign_add(v, 1.0)
    with tf.control_dependencies([bump]):
        after = tf.identity(v)
    with tf.Session() as sess:
        sess.run(v.initializer)
        plan = plan_module.compile_plan([after], [], [], sess._state)
        assert _kernel_calls(plan).count("Identity") == 1
        assert sess.run(after) == 2.0


def test_reshape_to_a_shape_known_only_at_run_time_still_checks():
    x = tf.placeholder(tf.float32, [2, 3])
    shape = tf.placeholder(tf.int32, [2])
    y = tf.reshape(x, shape)
    with tf.Session() as sess:
        feed = np.ones((2, 3), np.float32)
        assert sess.run(y, {x: feed, shape: [3, 2]}).shape == (3, 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape"):
            sess.run(y, {x: feed, shape: [4, 2]})


# ── AddN of padded pieces ────────────────────────────────────────────────────────────
def _special_values(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::5] = -0.0
    flat[1::7] = np.inf
    flat[2::11] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("paddings,piece_shapes", [
    ([[[0, 2], [0, 0]], [[3, 0], [0, 0]]], [(3, 4), (2, 4)]),            # split rows
    ([[[0, 0], [0, 3]], [[0, 0], [1, 0]]], [(5, 1), (5, 3)]),            # split columns
    ([[[0, 4], [0, 0]], [[2, 0], [1, 1]]], [(1, 4), (3, 2)]),            # with gaps
    ([[[0, 0], [0, 2]], [[0, 3], [2, 0]], [[2, 0], [2, 0]]], [(5, 2), (2, 2), (3, 2)]),
])
def test_add_n_of_padded_pieces_is_exact_and_skips_the_pads(dtype, paddings, piece_shapes):
    rng = np.random.default_rng(5)
    phs = [tf.placeholder(dtype, s) for s in piece_shapes]
    pieces = [tf.identity(tf.negative(p)) for p in phs]     # the run's own arrays
    total = tf.add_n([tf.pad(x, pad) for x, pad in zip(pieces, paddings)])
    feed = {p: _special_values(rng, s, dtype) for p, s in zip(phs, piece_shapes)}
    with tf.Session() as sess:
        got = sess.run(total, feed)
        plan = plan_module.compile_plan([total], [], phs, sess._state)
    assert "Pad" not in _kernel_calls(plan)
    k = next(k for k, op in enumerate(plan.ops) if op.type == "AddN")
    assert plan.fn.__globals__[f"_k{k}"].__name__ == "_add_n_of_padded_pieces"
    padded = [np.pad(-feed[p], pad) for p, pad in zip(phs, paddings)]
    want = padded[0] + padded[1]
    for x in padded[2:]:
        want = want + x
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_add_n_of_pads_that_overlap_or_are_shared_adds_as_usual():
    x = tf.placeholder(tf.float32, [2, 2])
    y = -x
    overlap = tf.add_n([tf.pad(y, [[0, 1], [0, 0]]), tf.pad(y * 2.0, [[1, 0], [0, 0]])])
    shared_pad = tf.pad(y, [[0, 2], [0, 0]])
    shared = tf.add_n([shared_pad, tf.pad(y + 1.0, [[2, 0], [0, 0]])])
    fed_paddings = tf.placeholder(tf.int32, [2, 2])
    dynamic = tf.add_n([tf.pad(y, fed_paddings), tf.pad(y - 1.0, [[0, 0], [2, 0]])])
    feed = -np.array([[1, 2], [3, 4]], np.float32)
    with tf.Session() as sess:
        fetches = [overlap, shared, shared_pad, dynamic]
        got = sess.run(fetches, {x: feed, fed_paddings: [[0, 0], [0, 2]]})
        plan = plan_module.compile_plan(fetches, [], [x, fed_paddings], sess._state)
    assert _kernel_calls(plan).count("Pad") == 6
    assert all(plan.fn.__globals__[f"_k{k}"].__name__ == "_add_n_kernel"
               for k, op in enumerate(plan.ops) if op.type == "AddN")
    np.testing.assert_array_equal(got[0], [[1, 2], [5, 8], [6, 8]])
    np.testing.assert_array_equal(got[1], [[1, 2], [3, 4], [2, 3], [4, 5]])
    np.testing.assert_array_equal(got[3], [[1, 2, 0, 1], [3, 4, 2, 3]])


def test_add_n_of_padded_variables_reads_them_where_the_pads_run():
    v = tf.Variable([1.0, 2.0])
    first = tf.pad(v._ref(), [[0, 2]])    # the variable's ref tensor, read by the Pad
    bump = tf.assign_add(v, [10.0, 10.0])  # runs after the Pad: plans run in creation order
    with tf.control_dependencies([bump]):
        second = tf.pad(v._ref(), [[2, 0]])
    total = tf.add_n([first, second])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(total), [1, 2, 11, 12])


def test_gradient_of_slices_that_split_a_tensor_skips_the_pads():
    x = tf.placeholder(tf.float32, [5, 3])
    w = x * 1.0
    top, mid = tf.slice(w, [0, 0], [2, -1]), tf.slice(w, [2, 0], [2, -1])
    rest = tf.slice(w, [4, 0], [-1, -1])
    # The gradient of ``top * 3`` is a constant (folded), the others are computed.
    loss = (tf.reduce_sum(top * 3.0) + tf.reduce_sum(tf.square(mid))
            + tf.reduce_sum(tf.exp(rest)))
    grad, = tf.gradients(loss, [w])
    feed = np.arange(15, dtype=np.float32).reshape(5, 3) / 8
    with tf.Session() as sess:
        got = sess.run(grad, {x: feed})
        plan = plan_module.compile_plan([grad], [], [x], sess._state)
    assert "Pad" not in _kernel_calls(plan)
    want = np.concatenate([np.full((2, 3), 3.0, np.float32), 2 * feed[2:4], np.exp(feed[4:])])
    np.testing.assert_array_equal(got, want)


# ── Slice and Pad with constant bounds ───────────────────────────────────────────────
def test_slice_and_pad_with_constants_check_once_per_shape_and_still_raise():
    x = tf.placeholder(tf.float32, None)  # unknown rank: checks happen at run time
    y = tf.pad(tf.slice(x, [1, 0], [2, -1]), [[1, 0], [0, 2]])
    with tf.Session() as sess:
        plan = plan_module.compile_plan([y], [], [x], sess._state)
        assert _plan_kernel_names(plan, "Slice") == ["_slice_constant_bounds"]
        assert _plan_kernel_names(plan, "Pad") == ["_pad_constant_paddings"]
        for shape in [(3, 2), (4, 3), (3, 2)]:  # a new shape, then a remembered one
            v = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            np.testing.assert_array_equal(sess.run(y, {x: v}), np.pad(v[1:3], [[1, 0], [0, 2]]))
        for _ in range(2):  # a failed check is not remembered
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[0\] in"):
                sess.run(y, {x: np.zeros((2, 2), np.float32)})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Expected begin and size arguments to be 1-D"):
                sess.run(y, {x: np.zeros((3, 2, 1), np.float32)})
        z = tf.pad(x, [[1, 1]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="The first dimension of paddings must be the rank"):
            sess.run(z, {x: np.zeros((2, 2), np.float32)})
        np.testing.assert_array_equal(sess.run(z, {x: [5.0]}), [0, 5, 0])
