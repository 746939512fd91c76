"""tf.nn.raw_rnn: the loop_fn protocol, finished rows, emit structures, loop state, names."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf

# A program run under both frameworks: a GRU decoder whose rows stop at their lengths,
# one emitting the cell's output and keeping no loop state (`plain`), one emitting
# a custom structure and carrying a loop state (`custom`). It prints JSON.
PROGRAM = """
np.random.seed(0)
x = np.random.RandomState(1).randn(3, 2).astype(np.float32)
lengths = tf.constant([2, 4, 1])
init = tf.constant(x)

def run(scope, emit_custom):
    cell = tf.nn.rnn_cell.GRUCell(3, kernel_initializer=tf.constant_initializer(0.1),
                                  bias_initializer=tf.constant_initializer(0.2))

    def loop_fn(time, cell_output, cell_state, loop_state):
        finished = time >= lengths
        if cell_output is None:
            state = cell.zero_state(3, tf.float32)
            emit = (tf.zeros([2], tf.float32), tf.zeros([], tf.int32)) if emit_custom else None
            return finished, init, state, emit, (tf.constant(0.0) if emit_custom else None)
        nxt = tf.tanh(cell_output[:, :2]) + 0.5
        if emit_custom:
            emit = (cell_output[:, :2] * 2.0, tf.fill([3], time))
            return finished, nxt, cell_state, emit, loop_state + tf.reduce_sum(cell_output)
        return finished, nxt, cell_state, cell_output, None

    emit_ta, final_state, final_loop = tf.nn.raw_rnn(cell, loop_fn, scope=scope)
    emitted = [ta.stack() for ta in emit_ta] if emit_custom else [emit_ta.stack()]
    return emitted, final_state, final_loop

plain, plain_state, plain_loop = run(None, False)
custom, custom_state, custom_loop = run("dec", True)
names = sorted(v.op.name for v in tf.global_variables())
shapes = [str(t.shape) for t in plain + custom] + [str(plain_state.shape)]
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    vals = s.run(plain + custom + [plain_state, custom_state, custom_loop])
print(json.dumps({"names": names, "shapes": shapes, "none": plain_loop is None,
                  "values": [np.asarray(v).tolist() for v in vals]}))
"""


def _run_here():
    import json
    namespace = {"tf": tf, "np": np, "json": json}
    out = []
    namespace["print"] = out.append
    exec(PROGRAM, namespace)  # noqa: S102 - the test's own program
    return json.loads(out[-1])


def test_rows_stop_at_their_lengths_and_emit_zeros_after():
    got = _run_here()
    assert got["names"] == ["dec/gru_cell/candidate/bias", "dec/gru_cell/candidate/kernel",
                            "dec/gru_cell/gates/bias", "dec/gru_cell/gates/kernel",
                            "rnn/gru_cell/candidate/bias", "rnn/gru_cell/candidate/kernel",
                            "rnn/gru_cell/gates/bias", "rnn/gru_cell/gates/kernel"]
    assert got["none"] is True
    assert got["shapes"][:3] == ["(?, 3, 3)", "(?, 3, 2)", "(?, 3)"]
    plain = np.array(got["values"][0])
    assert plain.shape == (4, 3, 3)  # the longest row runs 4 steps
    assert plain[:2, 0].all() and not plain[2:, 0].any()  # row 0: 2 steps
    assert not plain[1:, 2].any() and plain[3, 1].any()
    steps = np.array(got["values"][2])
    assert steps[:, 1].tolist() == [1, 2, 3, 4] and steps[:, 0].tolist() == [1, 2, 0, 0]


def test_loop_fn_errors():
    with pytest.raises(TypeError, match="Argument `loop_fn` must be a callable"):
        tf.nn.raw_rnn(tf.nn.rnn_cell.BasicRNNCell(2), None)


@pytest.mark.tf
def test_matches_tensorflow(tf1):
    want = tf1("tf.disable_v2_behavior()\n" + PROGRAM)
    got = _run_here()
    assert got["names"] == want["names"] and got["shapes"] == want["shapes"]
    assert got["none"] == want["none"]
    for a, b in zip(got["values"], want["values"]):
        np.testing.assert_allclose(np.array(a, float), np.array(b, float), rtol=1e-5, atol=1e-6)
