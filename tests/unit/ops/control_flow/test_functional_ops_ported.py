"""TensorFlow's own foldl / foldr / scan tests (control_flow/functional_ops_test.py, graph
mode with TF1 control flow), rewritten against the public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name; TF tests of internals
(``function.Defun`` with the raw ``functional_ops.While`` / ``For`` / ``If`` /
``remote_call`` / ``partitioned_call`` ops), of eager or v2-only behaviour, or of a
cluster's device placement are listed in ``SKIPPED`` with the reason. The tests use only
names that real TensorFlow's ``tf.compat.v1`` has too, so
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""

from __future__ import annotations

import contextlib

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None


@contextlib.contextmanager
def _session():
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _equal(want, got):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))


def _close(want, got, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))


def _simple_scoped_fn(a, x):
    """(a, x) -> 2(x + a), with the 2 a variable in scope."""
    with tf.variable_scope("body"):
        two = tf.get_variable("two", [], dtype=tf.int32,
                              initializer=tf.constant_initializer(2))
        return tf.multiply(tf.add(a, x), two)


# ── foldl / foldr ────────────────────────────────────────────────────────────────────
def test_foldl_simple():
    with _session() as sess:
        elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
        r = tf.foldl(lambda a, x: tf.multiply(tf.add(a, x), 2), elems)
        _equal(np.int32(208), sess.run(r))
        r = tf.foldl(lambda a, x: tf.multiply(tf.add(a, x), 2), elems, initializer=10)
        _equal(np.int32(880), sess.run(r))


def test_foldl_single_input_multi_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = np.array([1, -1.0])
        r = sess.run(tf.foldl(lambda a, x: a + x, elems, initializer))
        _equal(22.0, r[0])
        _equal(20.0, r[1])


def test_foldl_multi_input_single_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r = tf.foldl(lambda a, x: a + x[0] + x[1], (elems, -elems), np.array(1.0))
        _equal(1.0, sess.run(r))


def test_foldl_multi_input_different_dims_single_output():
    with _session() as sess:
        elems = np.array([[1.0, 1.0, 1.0], [2.0, 3.0, 4.0]])
        other_elems = np.array([-1.0, 1.0])
        r = tf.foldl(lambda a, x: a + x[0] * x[1], (elems, other_elems),
                     np.array([0.0, 0.0, 0.0]))
        _equal([1.0, 2.0, 3.0], sess.run(r))


def _check_scoped(fold, first, second):
    with _session() as sess:
        with tf.variable_scope("root") as varscope:
            elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
            r = fold(_simple_scoped_fn, elems)
            assert len(tf.trainable_variables()) == 1
            assert tf.trainable_variables()[0].name == "root/body/two:0"
            sess.run([tf.global_variables_initializer()])
            _equal(first, sess.run(r))
            varscope.reuse_variables()
            r = fold(_simple_scoped_fn, elems, initializer=10 if fold is not tf.scan else 2)
            assert len(tf.trainable_variables()) == 1
            _equal(second, sess.run(r))


def test_foldl_scoped():
    _check_scoped(tf.foldl, np.int32(208), np.int32(880))


def test_foldr_simple():
    with _session() as sess:
        elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
        r = tf.foldr(lambda a, x: tf.multiply(tf.add(a, x), 2), elems)
        _equal(np.int32(450), sess.run(r))
        r = tf.foldr(lambda a, x: tf.multiply(tf.add(a, x), 2), elems, initializer=10)
        _equal(np.int32(1282), sess.run(r))


def test_foldr_single_input_multi_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r = sess.run(tf.foldr(lambda a, x: a + x, elems, np.array([1, -1.0])))
        _equal(22.0, r[0])
        _equal(20.0, r[1])


def test_foldr_multi_input_single_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r = tf.foldr(lambda a, x: a + x[0] + x[1], (elems, -elems), np.array(1.0))
        _equal(1.0, sess.run(r))


def test_foldr_scoped():
    _check_scoped(tf.foldr, np.int32(450), np.int32(1282))


def test_fold_grad():
    with _session() as sess:
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.foldl(lambda a, x: tf.multiply(a, x), elems, initializer=v)
        _equal(np.float32(720.0), sess.run(tf.gradients(r, v)[0]))
        r = tf.foldr(lambda a, x: tf.multiply(a, x), elems, initializer=v)
        _equal(np.float32(720.0), sess.run(tf.gradients(r, v)[0]))


def test_fold_shape():
    with _session() as sess:
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        y = tf.foldl(lambda _, current: current, x, initializer=tf.constant([0, 0, 0]))
        assert y.get_shape().as_list() == list(sess.run(y).shape)


# ── scan ─────────────────────────────────────────────────────────────────────────────
def test_scan_simple():
    with _session() as sess:
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems)
        _equal(np.float32([1., 2., 6., 24., 120., 720.]), sess.run(r))
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v)
        _equal(np.float32([2., 4., 12., 48., 240., 1440.]), sess.run(r))


def test_scan_reverse():
    with _session() as sess:
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, reverse=True)
        _equal(np.float32([720., 720., 360., 120., 30., 6.]), sess.run(r))
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v, reverse=True)
        _equal(np.float32([1440., 1440., 720., 240., 60., 12.]), sess.run(r))


def test_scan_single_input_multi_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        initializer = (np.array(1.0), np.array(-1.0))
        r = sess.run(tf.scan(lambda a, x: (a[0] * x, -a[1] * x), elems, initializer))
        _equal([1.0, 2.0, 6.0, 24.0, 120.0, 720.0], r[0])
        _equal([1.0, -2.0, 6.0, -24.0, 120.0, -720.0], r[1])


def test_scan_multi_input_single_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r = tf.scan(lambda a, x: a * (x[0] + x[1]), (elems + 1, -elems), np.array(1.0))
        _equal([1.0] * 6, sess.run(r))


def test_scan_multi_input_same_type_output():
    with _session() as sess:
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        r = sess.run(tf.scan(lambda a, x: (a[0] + x[0], a[1] + x[1]), (elems, -elems)))
        _equal(np.cumsum(elems), r[0])
        _equal(np.cumsum(-elems), r[1])


def test_scan_multi_output_mismatched_initializer():
    with _session():
        elems = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        with _raises(ValueError, "two structures don't have the same nested structure"):
            tf.scan(lambda a, x: (a, -a), elems, np.array(1.0))


def test_scan_scoped():
    _check_scoped(tf.scan, np.int32([1, 6, 18, 44, 98, 208]),
                  np.int32([6, 16, 38, 84, 178, 368]))


def test_scan_foldl_nested():
    with _session() as sess:
        elems = tf.constant([1.0, 2.0, 3.0, 4.0], name="data")
        inner_elems = tf.constant([0.5, 0.5], name="data")

        def r_inner(a, x):
            return tf.foldl(lambda b, y: b * y * x, inner_elems, initializer=a)

        _close([1., 1., 2.25, 9.], sess.run(tf.scan(r_inner, elems)))


def test_scan_control():
    with _session() as sess:
        s = tf.placeholder(tf.float32, shape=[None])
        b = tf.placeholder(tf.bool)
        with tf.control_dependencies([b]):
            c = tf.scan(lambda a, x: x * a, s)
        _close(np.float32([1.0, 3.0, 9.0]), sess.run(c, {s: [1, 3, 3], b: True}))


def test_scan_grad():
    with _session() as sess:
        elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="data")
        v = tf.constant(2.0, name="v")
        r = tf.scan(lambda a, x: tf.multiply(a, x), elems, initializer=v)
        _equal(np.float32(873.0), sess.run(tf.gradients(r, v)[0]))


def test_scan_gradient_with_part_stop_gradient():
    with _session() as sess:
        a = tf.Variable(0.0, name="a")
        b = tf.Variable(0.0, name="b")
        elems = tf.zeros(5)
        l0, l1 = tf.scan(lambda elem_, input_: (a, b), elems, initializer=(0., 0.))
        loss = l0 + tf.stop_gradient(l1)
        grad = tf.gradients(ys=[loss], xs=[a, b])
        sess.run(tf.global_variables_initializer())
        # b's gradient is a zero from the loop's accumulator, not None
        got = sess.run(grad)
        _equal(np.float32(5.0), got[0])
        _equal(np.float32(0.0), got[1])


def test_scan_shape():
    with _session() as sess:
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        y = tf.scan(lambda _, current: current, x, initializer=tf.constant([0, 0, 0]))
        assert y.get_shape().as_list() == list(sess.run(y).shape)


def test_scan_empty_tensor():
    with _session() as sess:
        x = tf.scan(lambda x, _: x, tf.range(0), initializer=tf.ones([2, 4]))
        assert x.get_shape().as_list() == [0, 2, 4]
        assert sess.run(x).shape == (0, 2, 4)


def test_scan_unknown_shape():
    with _session():
        x = tf.placeholder(tf.float32)
        initializer = tf.placeholder(tf.float32)
        y = tf.scan(lambda _, current: current, x, initializer=initializer)
        assert y.get_shape().dims is None


def test_scan_varying_shape():
    with _session() as sess:
        x = tf.placeholder(dtype=tf.float32, shape=[None, 2])
        x_t = tf.transpose(x)
        result = tf.scan(lambda a, x: a + x, x)
        result_t = tf.scan(lambda a, x: a + x, x_t, infer_shape=False)
        result_grad = tf.gradients(result, [x])[0]
        result_t_grad = tf.gradients(result_t, [x_t])[0]
        got = sess.run([result, result_t, result_grad, result_t_grad], {x: [[1.0, 2.0]]})
        _equal(np.float32([[1.0, 2.0]]), got[0])
        _equal(np.float32([[1.0], [3.0]]), got[1])
        _equal(np.float32([[1.0, 1.0]]), got[2])
        _equal(np.float32([[2.0], [1.0]]), got[3])


# ── TF tests not ported ──────────────────────────────────────────────────────────────
_DEFUN = ("builds a function.Defun and calls the raw functional_ops.{} op, which "
          "tf.compat.v1 does not export")
_CLUSTER = "device placement across a local cluster / several CPU or GPU devices"
SKIPPED = {
    "testRemoteFunction": _CLUSTER,
    "testRemoteFunctionDirectSession": _CLUSTER,
    "testRemoteFunctionSameDeviceDirectSession": _DEFUN.format("remote_call"),
    "testRemoteFunctionCPUGPU": _CLUSTER,
    "testRemoteFunctionGPUCPU": _CLUSTER,
    "testRemoteFunctionGPUCPUStrings": _CLUSTER,
    "testRemoteFunctionCrossProcess": _CLUSTER,
    "testRemoteFunctionCancellation": "v2-only: collectives with an async eager executor",
    "testIf": _DEFUN.format("If"),
    "testWhile": _DEFUN.format("While"),
    "testToBool": "tests the raw gen_functional_ops.to_bool op (eager), not the public API",
    "testWhileInt32": _DEFUN.format("While"),
    "testWhileLowering": _DEFUN.format("While") + ", and sets the private "
                         "_lower_using_switch_merge attr",
    "testWhileError": _DEFUN.format("While"),
    "testWhileInMultipleSubgraphs": _DEFUN.format("While"),
    "testWhileCapturedInputs": _DEFUN.format("While"),
    "testFor": _DEFUN.format("For"),
    "testForWithWhile": _DEFUN.format("For"),
    "testForWithWhileNaming": _DEFUN.format("For") + " and reads its FunctionDefLibrary",
    "testForCapturedInputs": _DEFUN.format("For"),
    "testForMLP": _DEFUN.format("For"),
    "testForMLPWhile": _DEFUN.format("For"),
    "testForError": _DEFUN.format("For"),
    "testGradient": _DEFUN.format("Gradient"),
    "testCollective": "v2-only: collectives in a tf.function over logical devices",
    "PartitionedCallTest.*": _DEFUN.format("partitioned_call") + " (and device placement)",
    "FunctionalOpsCaseTest.*":
        "calls the raw gen_functional_ops.case op with concrete tf.functions (TF2 "
        "function machinery); tf.case itself is ported in test_control_flow_ported.py",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
