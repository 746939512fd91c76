"""Plans specialised on the fed shapes (``runtime.shape_specialization`` and the pass
``passes.shape_specialization``): the same bits and errors as the generic plan, the graph's
shapes untouched, fewer kernel calls, a bounded cache, and a switch."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.math.reduction_ops import ones_like_op
from scopeflow.runtime import passes as plan_passes
from scopeflow.runtime import shape_specialization

NAME = "shape_specialization"


@pytest.fixture
def at_first_run(monkeypatch):
    """Specialise on the first run with a shape tuple (the default waits for the second)."""
    monkeypatch.setattr(shape_specialization, "SPECIALIZE_AT", 1)


def _generic_plan(sess):
    (plan,) = [p for p in sess._plans.values() if p.specializations is not None]
    return plan


def _mlp_step(batch_dim=None):
    """A small softmax-regression training step on ``[None, 4]`` feeds (broadcasts whose
    gradient shapes are computed at run time when the batch is unknown)."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [batch_dim, 4], name="x")
    y = tf.placeholder(tf.int32, [batch_dim], name="y")
    w = tf.Variable(tf.random_normal([4, 3], seed=1), name="w")
    b = tf.Variable(tf.zeros([3]), name="b")
    logits = tf.matmul(x, w) + b
    scale = tf.reduce_mean(x, axis=1, keepdims=True) * 0.5 + 1.0   # [None, 1] broadcast
    logits = logits * scale
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, y, w, b, loss, step


def _feeds(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 4)).astype(np.float32), rng.integers(0, 3, n)


def test_same_bits_as_generic_over_changing_batches(passes, at_first_run):
    x, y, w, b, loss, step = _mlp_step()

    def program(sess):
        sess.run(tf.global_variables_initializer())
        out = []
        for i, n in enumerate([8, 8, 5, 8, 1, 5, 8]):
            xv, yv = _feeds(n, i)
            out.append(sess.run([loss, step], {x: xv, y: yv})[0])
            out.append(sess.run(loss, {x: xv, y: yv}))
        out += sess.run([w, b])
        return out

    passes.compare(NAME, program)


def test_graph_shapes_do_not_change(at_first_run):
    x, y, w, b, loss, step = _mlp_step()
    logits = loss.op.inputs[0]
    before = {t.name: t.shape.as_list() if t.shape.ndims is not None else None
              for op in tf.get_default_graph().get_operations() for t in op.outputs}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            sess.run([loss, step], dict(zip((x, y), _feeds(8, i))))
        assert _generic_plan(sess).specializations.plans()
    after = {t.name: t.shape.as_list() if t.shape.ndims is not None else None
             for op in tf.get_default_graph().get_operations() for t in op.outputs}
    assert before == after
    assert x.shape.as_list() == [None, 4] and logits.shape.as_list() == [None]


def _generic_and_specialised_calls(passes, loss, step, feed):
    """The op types the generic and the specialised plan of ``[loss, step]`` call, the
    specialised one compiled for ``feed``'s shapes."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([loss, step], feed)
        generic = _generic_plan(sess)
        (special,) = generic.specializations.plans()
    return passes.calls(generic), passes.calls(special)


def _static_calls(passes, loss, step, feeds):
    """The op types the plan of ``[loss, step]`` calls (a graph built with static feeds)."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return passes.calls(passes.compile(sess, [loss], feeds, targets=[step]))


def test_specialised_plan_calls_fewer_kernels(passes, at_first_run):
    x, y, w, b, loss, step = _mlp_step()
    generic_calls, special_calls = _generic_and_specialised_calls(
        passes, loss, step, dict(zip((x, y), _feeds(8, 0))))
    assert "Shape" in generic_calls and "BroadcastGradientArgs" in generic_calls
    assert "Shape" not in special_calls and "BroadcastGradientArgs" not in special_calls
    assert len(special_calls) < len(generic_calls)
    # The same graph built with a static batch calls no more kernels than the specialised.
    x, y, w, b, loss, step = _mlp_step(batch_dim=8)
    assert len(special_calls) <= len(_static_calls(passes, loss, step, [x, y])) + 2


def _nce_step(batch_dim=None):
    """word2vec's NCE step (``nce_loss``: ``zeros_like`` labels, an ``AddN`` of padded
    slice gradients) on ``[None]`` feeds, in small."""
    tf.reset_default_graph()
    tf.set_random_seed(5)
    center = tf.placeholder(tf.int32, [batch_dim], name="center")
    target = tf.placeholder(tf.int32, [batch_dim, 1], name="target")
    emb = tf.Variable(tf.random_uniform([40, 6], seed=1), name="emb")
    w = tf.Variable(tf.truncated_normal([40, 6], seed=2), name="w")
    b = tf.Variable(tf.zeros([40]), name="b")
    loss = tf.reduce_mean(tf.nn.nce_loss(weights=w, biases=b, labels=target,
                                         inputs=tf.nn.embedding_lookup(emb, center),
                                         num_sampled=5, num_classes=40))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return center, target, emb, w, b, loss, step


def _nce_feeds(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 40, n), rng.integers(0, 40, (n, 1))


def test_specialised_nce_step_calls_the_static_graphs_kernels(passes, at_first_run):
    # zeros_like of a fed-shaped tensor folds to a constant (a static shape builds a Const)
    # and the padded pieces' AddN absorbs its Pads, as in the static graph's plan.
    center, target, emb, w, b, loss, step = _nce_step()
    generic_calls, special_calls = _generic_and_specialised_calls(
        passes, loss, step, dict(zip((center, target), _nce_feeds(8, 0))))
    assert "ZerosLike" in generic_calls and "Pad" in generic_calls
    assert "ZerosLike" not in special_calls and "Pad" not in special_calls
    center, target, emb, w, b, loss, step = _nce_step(batch_dim=8)
    assert special_calls == _static_calls(passes, loss, step, [center, target])


def test_specialised_nce_step_same_bits(passes, at_first_run):
    center, target, emb, w, b, loss, step = _nce_step()

    def program(sess):
        sess.run(tf.global_variables_initializer())
        out = [sess.run([loss, step], dict(zip((center, target), _nce_feeds(n, i))))[0]
               for i, n in enumerate([8, 8, 3, 8, 3])]
        return out + sess.run([emb, w, b])

    passes.compare(NAME, program)


def test_zeros_and_ones_like_of_fed_shapes(passes, at_first_run):
    def program(sess):
        out = []
        for dtype, value in [(tf.float32, -1.5), (tf.int64, 7), (tf.bool, True),
                             (tf.string, b"ab"), (tf.complex64, 1j)]:
            x = tf.placeholder(dtype, [None, 2])
            big = tf.placeholder(tf.float64, [None, 4096])   # 256 KiB: left to run
            fetches = [tf.zeros_like(x), x if dtype == tf.string else ones_like_op.bind(x),
                       tf.zeros_like(big)]
            for n in (3, 3, 1):
                got = sess.run(fetches, {x: np.full((n, 2), value, dtype.as_numpy_dtype),
                                         big: np.ones((n * 8, 4096))})
                out += [v.tolist() if v.dtype == object else v for v in got]  # (not pointers)
        return out

    values = passes.compare(NAME, program)[0]
    assert values[0].dtype == np.float32 and values[0].shape == (3, 2)
    assert not values[0].any() and values[1].tolist() == [[1, 1]] * 3
    assert values[27] == [[b""] * 2] * 3                                 # strings' zeros


def test_specialises_on_the_second_run_by_default():
    x, y, w, b, loss, step = _mlp_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, dict(zip((x, y), _feeds(8, 0))))
        specs = _generic_plan(sess).specializations
        assert specs.plans() == []          # a shape fed once runs the generic plan
        sess.run(loss, dict(zip((x, y), _feeds(5, 1))))
        assert specs.plans() == []
        sess.run(loss, dict(zip((x, y), _feeds(8, 2))))
        assert len(specs.plans()) == 1      # the second run with [8, 4], [8]


def test_static_feeds_get_no_specialisations():
    x, y, w, b, loss, step = _mlp_step(batch_dim=8)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, dict(zip((x, y), _feeds(8, 0))))
        assert all(p.specializations is None for p in sess._plans.values())


@pytest.mark.parametrize("spec", ["-shape_specialization", "none"])
def test_switched_off_with_the_pass(monkeypatch, spec):
    monkeypatch.setenv(plan_passes.ENV_VAR, spec)
    x, y, w, b, loss, step = _mlp_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, dict(zip((x, y), _feeds(8, 0))))
        assert all(p.specializations is None for p in sess._plans.values())


def test_switched_off_by_disable_meta_optimizer():
    x, y, w, b, loss, step = _mlp_step()
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(loss, dict(zip((x, y), _feeds(8, 0))))
        assert all(p.specializations is None for p in sess._plans.values())


def test_cache_is_bounded_and_wild_shapes_keep_the_generic_plan(monkeypatch, at_first_run):
    monkeypatch.setattr(shape_specialization, "CACHE_SIZE", 3)
    monkeypatch.setattr(shape_specialization, "MAX_COMPILES", 5)
    x, y, w, b, loss, step = _mlp_step()
    monkeypatch.setenv(plan_passes.ENV_VAR, "-shape_specialization")
    plain = tf.Session()
    monkeypatch.delenv(plan_passes.ENV_VAR)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        plain.run(tf.global_variables_initializer())
        for i, n in enumerate([1, 2, 3, 1, 4, 5, 6, 7, 2]):
            feed = dict(zip((x, y), _feeds(n, i)))
            assert sess.run(loss, feed).tobytes() == plain.run(loss, feed).tobytes()
            specs = _generic_plan(sess).specializations
            assert len(specs.plans()) <= 3
            if i == 4:  # 1, 2, 3 and 4 compiled; 1 was used again, so 2 was dropped
                assert [key[0][0] for key in specs._plans] == [3, 1, 4]
        assert specs.disabled and specs.plans() == [] and specs.compiled == 5
    plain.close()


def test_assign_that_may_change_a_shape_turns_it_off(at_first_run):
    x = tf.placeholder(tf.float32, [None], name="x")
    v = tf.Variable(np.zeros(3, np.float32), name="v")
    out = tf.reduce_sum(x * tf.reduce_sum(v))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(out, {x: np.ones(2, np.float32)})
        assert _generic_plan(sess).specializations.plans()
        grow = tf.assign(v, np.ones(5, np.float32), validate_shape=False)
        sess.run(grow)
        assert float(sess.run(out, {x: np.ones(2, np.float32)})) == 10.0
        specs = _generic_plan(sess).specializations
        assert specs.disabled and specs.plans() == []


def test_bad_feeds_raise_the_same_errors(at_first_run):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    z = tf.placeholder(tf.float32, [None, 2], name="z")
    s = tf.reduce_sum(x + z, axis=0)
    r = tf.reshape(x, [-1, 4])

    def errors():
        got = []
        with tf.Session() as sess:
            for fetch, feed in [
                    (s, {x: np.ones((3, 2)), z: np.ones((3, 2))}),    # fine, specialises
                    (s, {x: np.ones((3, 2)), z: np.ones((4, 2))}),    # incompatible at run
                    (s, {x: np.ones((3, 3)), z: np.ones((3, 2))}),    # bad feed shape
                    (s, {x: np.ones((3, 2)), z: np.ones((4, 2))}),    # again, cached plans
                    (r, {x: np.ones((3, 2))}),                         # reshape fails
                    (r, {x: np.ones((3, 2))}),
                    (r, {x: np.ones((4, 2))})]:
                try:
                    got.append(sess.run(fetch, feed).tolist())
                except Exception as e:  # noqa: BLE001 - compared
                    got.append((type(e).__name__, str(e)))
        return got

    on = errors()
    with pytest.MonkeyPatch.context() as m:
        m.setenv(plan_passes.ENV_VAR, "-shape_specialization")
        off = errors()
    assert on == off
    assert on[1][0] == "InvalidArgumentError" and "add" in on[1][1]
    assert on[2][0] == "ValueError" and "x:0" in on[2][1]
    assert on[4][0] == "InvalidArgumentError" and "Reshape" in on[4][1]


def test_ref_reads_and_control_dependencies(passes, at_first_run):
    def program(sess):
        x = tf.placeholder(tf.float32, [None], name="x")
        v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
        a = tf.assign(v, v * 2.0)
        with tf.control_dependencies([a]):
            after = tf.reshape(v, tf.shape(v)) + tf.reduce_sum(x)   # reads v after `a`
        snap = tf.reshape(tf.identity(v), [4])
        fwd = tf.reduce_sum(tf.reshape(x, tf.shape(x)), axis=[])   # forwarded in a plan
        sess.run(v.initializer)
        out = []
        for n in (3, 3, 2, 3):
            feed = {x: np.arange(n, dtype=np.float32)}
            out += sess.run([after, snap, fwd], feed)
            out += sess.run([snap, a], feed)
            out.append(sess.run(fwd, feed))
        return out

    (values,) = passes.compare(NAME, program, runs=1)
    assert values[0].tolist() == [3.0, 5.0, 7.0, 9.0]   # v doubled, plus sum([0, 1, 2])


def test_traced_runs_of_a_specialised_plan(at_first_run):
    x, y, w, b, loss, step = _mlp_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = dict(zip((x, y), _feeds(8, 0)))
        sess.run(loss, feed)
        meta = tf.RunMetadata()
        sess.run(loss, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
        names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert any("MatMul" in n for n in names)


def test_threads_share_the_specialised_plans(at_first_run):
    x, y, w, b, loss, step = _mlp_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = {n: sess.run(loss, dict(zip((x, y), _feeds(n, n)))) for n in (2, 3, 4, 5)}
        failures = []

        def worker():
            for _ in range(20):
                for n, value in want.items():
                    if sess.run(loss, dict(zip((x, y), _feeds(n, n)))) != value:
                        failures.append(n)

        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not failures
