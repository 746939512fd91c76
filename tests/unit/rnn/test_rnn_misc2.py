"""tf.nn.rnn_cell.DeviceWrapper and tf.nn.static_state_saving_rnn against TF 2.21: values,
op names, devices, the saves' control dependencies, state-name errors."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

from ..ops.misc2_harness import assert_same, run_both

CASES = '''
init = tf.constant_initializer(0.1)
class Saver:
    """A state saver keeping each named state in a variable."""
    def __init__(self, sizes):
        self.vars = {n: tf.Variable(np.full([2, k], 0.5, np.float32), name="saved_" + n)
                     for n, k in sizes.items()}
    def state(self, name):
        return tf.identity(self.vars[name], name="state_" + name)
    def save_state(self, name, value):
        return tf.assign(self.vars[name], value, name="save_" + name)
def ssr(cell_fn, names, sizes, n_steps=3):
    with tf.variable_scope("s", initializer=init):
        saver = Saver(sizes)
        xs = [tf.constant(np.full([2, 4], 0.1 * (i + 1), np.float32)) for i in range(n_steps)]
        outputs, state = tf.nn.static_state_saving_rnn(cell_fn(), xs, saver, names)
        flat_state = tf.nest.flatten(state)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        first = sess.run([outputs, state])
        second = sess.run([outputs, state])
        saved = sess.run([saver.vars[n] for n in sorted(sizes)])
        return {"first": first, "second": second, "saved": saved,
                "names": [t.name for t in tf.nest.flatten(outputs) + flat_state],
                "ctrl": [[c.name for c in t.op.control_inputs] for t in flat_state]}
rec("basic", lambda: ssr(lambda: tf.nn.rnn_cell.BasicRNNCell(3), "h", {"h": 3}))
rec("lstm", lambda: ssr(lambda: tf.nn.rnn_cell.BasicLSTMCell(3), ("c", "h"),
                        {"c": 3, "h": 3}))
rec("gru_one", lambda: ssr(lambda: tf.nn.rnn_cell.GRUCell(2), "g", {"g": 2}, 1))
rec("mismatch", lambda: ssr(lambda: tf.nn.rnn_cell.BasicLSTMCell(3), "h", {"h": 3}))
rec("count", lambda: ssr(lambda: tf.nn.rnn_cell.BasicLSTMCell(3), ("c", "h", "x"),
                         {"c": 3, "h": 3, "x": 3}))
rec("not_tuple", lambda: ssr(lambda: tf.nn.rnn_cell.BasicRNNCell(3), ("h",), {"h": 3}))
def device_wrapper():
    with tf.variable_scope("d", initializer=init):
        cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.BasicRNNCell(3), "/cpu:0")
        x = tf.constant(np.ones([2, 4], np.float32))
        z = cell.zero_state(2, tf.float32)
        o, s = cell(x, z)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        ops = tf.get_default_graph().get_operations()
        return {"v": sess.run(o), "sizes": [cell.state_size, cell.output_size],
                "z": [z.name, z.device], "o": [o.name, o.device],
                "dev": sorted(set((op.type, op.device) for op in ops
                                  if op.type in ("MatMul", "BiasAdd", "Tanh", "VariableV2",
                                                 "ConcatV2", "Assign"))),
                "vars": [(v.name, v.device) for v in tf.global_variables()],
                "named": tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.BasicRNNCell(3), "/cpu:0",
                                                      name="foo").name}
rec("device_wrapper", device_wrapper)
'''


def test_rnn_misc2_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    assert_same(ours, theirs)


def test_device_wrapper_places_ops_without_tf():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(2), "/device:CPU:0")
        o, _ = cell(tf.ones([1, 3]), cell.zero_state(1, tf.float32))
        assert o.device == "/device:CPU:0"
        assert cell.output_size == 2


def test_static_state_saving_rnn_name_errors_without_tf():
    class Saver:
        def state(self, name):
            return tf.zeros([1, 2])

        def save_state(self, name, value):
            return tf.no_op()

    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicLSTMCell(2)
        with pytest.raises(ValueError, match="same type"):
            tf.nn.static_state_saving_rnn(cell, [tf.ones([1, 2])], Saver(), "s")
        out, state = tf.nn.static_state_saving_rnn(cell, [np.ones([1, 2], np.float32)],
                                                   Saver(), ("c", "h"))
        assert len(out) == 1 and len(state) == 2
