"""pass_through: Identity, StopGradient and same-shape Reshapes are not called."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def _locals_never_freed(plan):
    """Plan locals that are neither deleted after their last reader nor returned."""
    lines = [ln.strip() for ln in plan.source.splitlines()]
    made = {v.strip() for ln in lines if ln.startswith("t") and " = " in ln
            for v in ln.split(" = ")[0].split(",") if v.strip()}
    freed = {v.strip() for ln in lines if ln.startswith("del ") for v in ln[4:].split(",")}
    returned = next(ln for ln in lines if ln.startswith("return"))
    return sorted(v for v in made - freed if v not in returned)


def test_pass_through_ops_are_not_called_and_values_stay_right(passes):
    x = tf.placeholder(tf.float32, [2, 3])
    m = tf.matmul(x, tf.ones([3, 3]))
    same = tf.reshape(tf.stop_gradient(tf.identity(m)), [2, 3])  # a chain of three
    flat = tf.reshape(same, [6])                                  # a real reshape
    z = tf.reduce_sum(flat) * m
    y = tf.exp(same) + 1.0                # the last reader of m reads it through the chain
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        plan = passes.compile(sess, [y, z], [x])
    assert passes.calls(plan) == ["AddV2", "Exp", "MatMul", "Mul", "Reshape", "Sum"]
    assert _locals_never_freed(plan) == []
    got = passes.compare("pass_through", lambda sess: sess.run([y, z], {x: feed}))[0]
    mv = feed @ np.ones((3, 3), np.float32)
    np.testing.assert_array_equal(got[0], np.exp(mv) + np.float32(1))
    np.testing.assert_array_equal(got[1], mv.sum() * mv)


def test_pass_through_of_a_feed_is_copied_when_fetched_and_never_written(passes):
    x = tf.placeholder(tf.float32, [3])
    y = tf.identity(x)
    z = tf.negative(tf.reshape(y, [3]))   # a ufunc on a (skipped) view of a feed
    fed = np.array([1.0, 2.0, 3.0], np.float32)

    def program(sess):
        got_y, got_z = sess.run([y, z], {x: fed})
        got_y[0] = 9.0
        return [got_z, fed.copy()]

    for got_z, after in passes.compare("pass_through", program):
        np.testing.assert_array_equal(got_z, [-1, -2, -3])
        np.testing.assert_array_equal(after, [1, 2, 3])


def test_reads_of_a_variable_through_skipped_identities_see_earlier_writes(passes):
    """TF1: a reader sees the variable as it is when the reader runs (SEMANTICS.md)."""
    v = tf.Variable(1.0)
    before = tf.identity(v) * 1.0          # computes: a snapshot before the bump
    with tf.control_dependencies([before]):
        bump = tf.assign_add(v, 1.0)
    with tf.control_dependencies([bump]):
        after = tf.identity(tf.identity(v))
        doubled = after * 2.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        plan = passes.compile(sess, [before, after, doubled])
        assert "Identity" not in passes.calls(plan)

    def program(sess):
        sess.run(v.initializer)
        return [sess.run([before, after, doubled]), sess.run([before, after, doubled])]

    for first, second in passes.compare("pass_through", program):
        assert [float(a) for a in first] == [1.0, 2.0, 4.0]
        assert [float(a) for a in second] == [2.0, 3.0, 6.0]


def test_a_read_stays_in_place_when_an_assign_may_give_the_variable_a_new_buffer(passes):
    """``validate_shape=False`` to another size makes a new buffer; TF's earlier read keeps
    the old one (and with the same size, sees the new values in its own shape)."""
    reads, writes = [], []
    for value in ([[1.0, 2.0, 3.0]] * 2, [[5.0, 6.0], [7.0, 8.0]]):
        v = tf.Variable([1.0, 2.0, 3.0, 4.0])
        reads.append(v.read_value())
        with tf.control_dependencies([reads[-1]]):
            writes.append(tf.assign(v, value, validate_shape=False))

    def program(sess):
        sess.run(tf.global_variables_initializer())
        return sess.run([writes, reads])

    (grown, same_size), (r1, r2) = passes.compare("pass_through", program, runs=1)[0]
    assert grown.shape == (2, 3) and r1.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert same_size.shape == (2, 2) and r2.tolist() == [5.0, 6.0, 7.0, 8.0]


def test_reshape_to_a_shape_known_only_at_run_time_still_checks():
    x = tf.placeholder(tf.float32, [2, 3])
    shape = tf.placeholder(tf.int32, [2])
    y = tf.reshape(x, shape)
    with tf.Session() as sess:
        feed = np.ones((2, 3), np.float32)
        assert sess.run(y, {x: feed, shape: [3, 2]}).shape == (3, 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape"):
            sess.run(y, {x: feed, shape: [4, 2]})


@pytest.mark.parametrize("passes_spec", ["all", "none"])
def test_uninitialized_reads_through_skipped_identities_blame_the_op_tf_names(
        passes_spec, monkeypatch):
    """TF 2.21 names the op that reads the ref (``v/read``), whatever reads that."""
    monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", passes_spec)
    v = tf.Variable([1.0, 2.0], name="v")
    cases = {"v/read": [v * 2.0, tf.identity(tf.identity(v)) * 2.0,
                        tf.reduce_sum(tf.reshape(v, [2, 1]))],
             "read": [v.read_value()]}
    with tf.Session() as sess:
        for name, fetches in cases.items():
            for t in fetches:
                with pytest.raises(tf.errors.FailedPreconditionError) as e:
                    sess.run(t)
                assert e.value.op.name == name


@pytest.mark.parametrize("passes_spec", ["all", "none"])
def test_an_identity_of_a_variable_run_only_for_its_effect_still_reads_it(
        passes_spec, monkeypatch):
    """A group or control input of ``tf.identity(v)`` reads ``v``: uninitialized, it fails
    (TF: FailedPreconditionError), however the plan skips pass-through ops."""
    monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", passes_spec)
    v = tf.Variable(1.0, name="v")
    group = tf.group(tf.identity(v))
    with tf.control_dependencies([tf.identity(v)]):
        after = tf.constant(2.0)
    with tf.Session() as sess:
        for fetch in (group, after):
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="uninitialized value v"):
                sess.run(fetch)
        sess.run(v.initializer)
        assert sess.run([group, after]) == [None, 2.0]


_SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-45, -3.5, 7.25], np.float32)


def test_a_mul_by_a_constant_scalar_one_is_not_called(passes):
    """``x * 1`` and ``1 * x`` (a learning rate of 1.0 before a ``ScatterSub``) are ``x``,
    bit for bit: signed zeros, infinities, NaN, subnormals; ints too."""
    x = tf.placeholder(tf.float32, [8])
    i = tf.placeholder(tf.int64, [3])
    m = tf.square(x)
    y = tf.negative(m * 1.0)                               # x * 1
    z = tf.exp(tf.scalar_mul(1.0, tf.abs(x)))              # 1 * x (scalar_mul's order)
    w = (i * 1) + 2
    with tf.Session() as sess:
        plan = passes.compile(sess, [y, z, w], [x, i])
    assert passes.calls(plan) == ["Abs", "AddV2", "Exp", "Neg", "Square"]
    feed = {x: _SPECIAL, i: np.array([-4, 0, 2**40], np.int64)}
    y_got, z_got, w_got = passes.compare("pass_through",
                                         lambda sess: sess.run([y, z, w], feed))[0]
    assert y_got.tobytes() == np.negative(np.square(_SPECIAL)).tobytes()
    assert z_got.tobytes() == np.exp(np.abs(_SPECIAL)).tobytes()
    assert w_got.tolist() == [-2, 2, 2**40 + 2]


def test_a_mul_by_one_stays_where_its_copy_can_be_seen(passes):
    """Called as ever: of a variable (a snapshot before a later write), fetched (an array of
    its own), by a one that is not a scalar (it broadcasts), or complex (``inf * (1+0j)``
    is NaN). Where it is skipped, its reader never writes into the buffer it shares."""
    v = tf.Variable([1.0, 2.0])
    before = v * 1.0
    with tf.control_dependencies([before]):
        bump = tf.assign_add(v, [1.0, 1.0])
    x = tf.placeholder(tf.float32, [3])
    fetched = x * 1.0
    grown = x * tf.ones([2, 1])
    c = tf.placeholder(tf.complex64, [2])
    complex_one = c * tf.constant(1 + 0j, tf.complex64)
    m = tf.square(x)
    shared = tf.exp(m * 1.0)                      # m is fetched as well: not overwritten
    fed_read = tf.negative(x * 1.0)               # the feed is never written either
    fetches = [before, bump, fetched, grown, complex_one, m, shared, fed_read]
    with tf.Session() as sess:
        plan = passes.compile(sess, fetches, [x, c], targets=())
    assert passes.calls(plan).count("Mul") == 4
    fx = np.array([1.0, -2.0, 3.0], np.float32)
    fc = np.array([np.inf + 0j, 1 - 2j], np.complex64)

    def program(sess):
        sess.run(v.initializer)
        got = sess.run(fetches, {x: fx, c: fc})
        return got + [fx.copy()]

    got = passes.compare("pass_through", program)[0]
    assert got[0].tolist() == [1.0, 2.0] and got[1].tolist() == [2.0, 3.0]
    assert got[2].tolist() == fx.tolist() and not np.shares_memory(got[2], fx)
    assert got[3].shape == (2, 3)
    assert np.isnan(got[4][0].imag) or np.isnan(got[4][0].real)
    assert got[5].tolist() == (fx * fx).tolist()
    assert got[6].tolist() == np.exp(fx * fx).tolist()
    assert got[7].tolist() == (-fx).tolist() and got[8].tolist() == fx.tolist()


def test_a_chain_forwarded_by_two_passes_keeps_its_source_alive(passes):
    # pass_through forwards the Identity to the product; only the fed shape shows the
    # Reshape of the Identity to be a no-op, and shape_specialization forwards it to the
    # Identity's output. The Reshape's readers must keep the product alive (a gradient's
    # control_dependency, then a flattening Reshape's gradient: every softmax
    # cross-entropy's gradient has that chain).
    x = tf.placeholder(tf.float32, [None, 3])
    g = x * 2.0
    r = tf.reshape(tf.identity(g), [-1, 3])
    y = tf.exp(r) + tf.reduce_sum(r, 0, keepdims=True)
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = np.exp(feed * 2) + (feed * 2).sum(0, keepdims=True)
    for _ in range(2):  # the second run compiles the plan specialised on the fed shape
        got = passes.compare("pass_through", lambda sess: sess.run(y, {x: feed}))
        np.testing.assert_allclose(got[0] if isinstance(got, list) else got, want, rtol=1e-6)
