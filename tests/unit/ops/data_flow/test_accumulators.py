"""tf.ConditionalAccumulator and tf.SparseConditionalAccumulator against TF 2.21: the same
program (applies, stale gradients, takes, global steps, shape errors) run under both."""

import numpy as np
import pytest

import scopeflow as tf

_PROGRAM = """
import numpy as np
out = []
def err(fn):
    try:
        fn()
        return None
    except Exception as e:
        return [type(e).__name__, str(e).split("\\n")[0] if type(e).__name__ == "ValueError"
                else [ln for ln in str(e).splitlines() if "mismatch" in ln or "positive" in ln
                      or "Timed out" in ln][:1]]
g = tf.Graph()
with g.as_default():
    ac = tf.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    a1 = ac.apply_grad([1., 2.], local_step=0)
    a2 = ac.apply_grad([3., 6.], local_step=1)
    a3 = ac.apply_grad(np.array([5., 5.], np.float32), local_step=-1)
    n, t, sg = ac.num_accumulated(), ac.take_grad(2), ac.set_global_step(5)
    out.append([[o.name, o.type] if not hasattr(o, "op") else
                [o.name, o.op.type, o.shape.as_list(), o.dtype.name] for o in (a1, a2, n, t, sg)])
    out.append([ac.name, ac.dtype.name, ac.accumulator_ref.name,
                ac.accumulator_ref.shape.as_list(), ac.accumulator_ref.dtype.name])
    out.append(err(lambda: ac.apply_grad([1., 2., 3.])))
    out.append(err(lambda: ac.apply_grad([[1., 2.]])))
    out.append(err(lambda: tf.ConditionalAccumulator(tf.float32, reduction_type="X")))
    take0, take2 = ac.take_grad(0), ac.take_grad(2)
    u = tf.ConditionalAccumulator(tf.float64, reduction_type="SUM")
    p = tf.placeholder(tf.float64, None)
    up, ut = u.apply_grad(p), u.take_grad(1)
    with tf.Session() as s:
        s.run(a1); s.run(a2); c1 = s.run(n); s.run(a3); c2 = s.run(n)
        v = s.run(t).tolist(); c3 = s.run(n)
        s.run(a1); c4 = s.run(n); s.run(sg); s.run(a2); c5 = s.run(n)
        out.append([int(c1), int(c2), v, int(c3), int(c4), int(c5)])
        out.append(err(lambda: s.run(take0)))
        out.append(err(lambda: s.run(take2, options=tf.RunOptions(timeout_in_ms=200))))
        s.run(up, {p: [1., 2.]}); s.run(up, {p: [3., 4.]})
        out.append(err(lambda: s.run(up, {p: [1., 2., 3.]})))
        out.append(s.run(ut).tolist())
with tf.Graph().as_default():
    sp = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
    s1 = sp.apply_grad([0, 2], [[1., 1.], [2., 2.]], grad_shape=[4, 2], local_step=0)
    s2 = sp.apply_indexed_slices_grad(tf.IndexedSlices(
        tf.constant([[4., 4.], [6., 6.]]), tf.constant([2, 3], tf.int64),
        tf.constant([4, 2], tf.int64)))
    tk = sp.take_grad(2)
    late = sp.apply_grad([3, 1], [[7., 8.], [1., 1.]], local_step=1)
    tk2 = sp.take_indexed_slices_grad(1)
    bad1 = sp.apply_grad([5], [[1., 1.]], grad_shape=[4, 2], local_step=1)
    bad2 = sp.apply_grad([1], [[1., 1., 1.]], local_step=1)
    out.append([sp.accumulator_ref.op.type, sp.accumulator_ref.dtype.name,
                sp.num_accumulated().name, sp.num_accumulated().op.type,
                sp.set_global_step(2).type, [x.name for x in tk], type(tk2).__name__])
    anyshape = tf.SparseConditionalAccumulator(tf.float32, shape=())
    narrow = tf.SparseConditionalAccumulator(tf.float32, shape=[2])
    a_any = anyshape.apply_grad([0, 2], [[1., 1.], [2., 2.]], grad_shape=[3, 2])
    a_narrow = narrow.apply_grad([0], [[1., 1.]], grad_shape=[3, 2])
    t_any = anyshape.take_grad(1)
    out.append([t_any.indices.op.inputs[1].name, tk.indices.op.inputs[1].name])
    sums = tf.SparseConditionalAccumulator(tf.float64, reduction_type="SUM")
    sa, st = sums.apply_grad([1, 1], np.array([[1.], [2.]])), sums.take_grad(1)
    with tf.Session() as s:
        s.run(s1); s.run(s2)
        r = s.run(tk)
        out.append([r.indices.tolist(), r.values.tolist(), r.shape.tolist()])
        s.run(late)
        r = s.run(tk2)
        out.append([r.indices.tolist(), r.values.tolist(), r.dense_shape.tolist()])
        out.append(err(lambda: s.run(bad1)))
        out.append(err(lambda: s.run(bad2)))
        s.run(a_any)
        r = s.run(t_any)
        out.append([r.indices.tolist(), r.shape.tolist()])
        out.append(err(lambda: s.run(a_narrow)) is not None)
        s.run(sa)
        r = s.run(st)
        out.append([r.indices.tolist(), r.values.tolist(), r.shape.tolist()])
"""


def _ours():
    scope = {"tf": tf}
    exec(_PROGRAM, scope)
    return scope["out"]


def test_accumulators_without_tf():
    out = _ours()
    assert out[5] == [2, 2, [2.0, 4.0], 0, 0, 0]  # stale gradients dropped, mean of two
    assert out[9] == [4.0, 6.0]  # SUM of two float64 gradients
    assert out[12] == [[0, 2, 3], [[1.0, 1.0], [3.0, 3.0], [6.0, 6.0]], [4, 2]]  # per-row mean
    assert out[16] == [[0, 2], [-1, 2]] and out[17]  # shape () takes any; [2] is no prefix


def test_accumulators_match_tf(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + _PROGRAM + "\nprint(json.dumps(out))\n")
    assert _ours() == theirs


def test_take_grad_waits_for_another_thread():
    import threading
    with tf.Graph().as_default():
        ac = tf.ConditionalAccumulator(tf.float32, shape=[])
        apply, take = ac.apply_grad(3.0), ac.take_grad(1)
        with tf.Session() as sess:
            thread = threading.Timer(0.2, lambda: sess.run(apply))
            thread.start()
            assert sess.run(take) == pytest.approx(3.0)
            thread.join()
        np.testing.assert_equal(tf.Session().run(ac.num_accumulated()), 0)
