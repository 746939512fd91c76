"""owning_kernels: Assign keeps an array the run owns alone (a restored tensor) as the
variable's buffer, only when nothing else in the run uses that variable."""

from __future__ import annotations

import numpy as np

import scopeflow as tf
from scopeflow.ops.io import io_ops


def _assign_kernels(passes, plan):
    return passes.kernel_names(plan, "Assign")


def test_restore_keeps_restored_arrays_but_never_aliases_a_fetch(passes, tmp_path):
    v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
    saver = tf.train.Saver([v])
    add = tf.assign_add(v, tf.ones(4))
    restored = io_ops.restore_v2(str(tmp_path / "m"), ["v"], [""], [tf.float32])
    assign_fetched = tf.assign(v, restored)
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = saver.save(sess, str(tmp_path / "m"))
        restore_all = sess.graph.get_operation_by_name(saver.saver_def.restore_op_name)
        assert _assign_kernels(passes, passes.compile(sess, [], targets=[restore_all])) == [
            "_assign_owned_kernel"]
        # A restored value that is also fetched is copied into the variable.
        assert _assign_kernels(passes, passes.compile(sess, [restored, assign_fetched])) == [
            "_assign_kernel"]

    def program(sess):
        sess.run(v.initializer)
        sess.run(tf.assign(v, tf.zeros(4)))
        saver.restore(sess, path)
        first = sess.run(v)
        sess.run(add)
        value, _ = sess.run([restored, assign_fetched])
        sess.run(add)
        return [first, value, sess.run(v)]

    for first, value, final in passes.compare("owning_kernels", program, runs=1):
        np.testing.assert_array_equal(first, np.arange(4))
        np.testing.assert_array_equal(value, np.arange(4))  # not changed by the last add
        np.testing.assert_array_equal(final, np.arange(1, 5))


def test_an_assign_in_a_run_that_also_reads_the_variable_writes_in_place(passes):
    """Another reader of the variable in the run (v/read before the Assign, fetched at
    the end) must see the assigned values: TF's Assign writes into the buffer."""
    v = tf.Variable([1.0, 2.0])
    snap = tf.identity(v)
    with tf.control_dependencies([snap]):
        assign = tf.assign(v, tf.exp(tf.random_uniform([2]) * 0.0))  # the run's own
    alone = tf.assign(v, tf.exp(tf.random_uniform([2])))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert _assign_kernels(passes, passes.compile(sess, [snap, assign])) == [
            "_assign_kernel"]
        assert _assign_kernels(passes, passes.compile(sess, [], targets=[alone.op])) == [
            "_assign_owned_kernel"]

    def program(sess):
        sess.run(v.initializer)
        return sess.run([snap, assign])

    for got in passes.compare("owning_kernels", program):
        assert [a.tolist() for a in got] == [[1.0, 1.0], [1.0, 1.0]]
