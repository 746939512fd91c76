"""tf.contrib.seq2seq.ScheduledOutputTrainingHelper (TF 1.15).

TF 1.15's basic_decoder_test.py cases for it are ported with the checks they make (TF 2.21,
the oracle, has no contrib). The sampling itself is checked against real TensorFlow: a
decode written as a plain ``tf.while_loop`` with one seeded ``random_uniform`` per step
(TF 1.15's ``Bernoulli(p).sample(batch, seed)``), its next input the cell output where the
draw fell below ``p`` and the ground truth elsewhere, run under scopeflow and under TF.
"""

import numpy as np
import pytest

import scopeflow as tf

s2s = tf.contrib.seq2seq


# ── TF 1.15 basic_decoder_test.py: testStepWithScheduledOutputTrainingHelper* ──────────
def _test_step_with_scheduled_output_training_helper(sampling_probability,
                                                     use_next_inputs_fn,
                                                     use_auxiliary_inputs):
    tf.reset_default_graph()
    sequence_length = [3, 4, 3, 1, 0]
    batch_size, max_time, input_depth = 5, 8, 7
    cell_depth = input_depth
    rs = np.random.RandomState(1)
    auxiliary_inputs = rs.randn(batch_size, max_time, 4).astype(np.float32) \
        if use_auxiliary_inputs else None
    inputs = rs.randn(batch_size, max_time, input_depth).astype(np.float32)
    cell = tf.nn.rnn_cell.LSTMCell(cell_depth)
    sampling_probability = tf.constant(sampling_probability)
    next_inputs_fn = None
    if use_next_inputs_fn:
        def next_inputs_fn(outputs):
            return tf.one_hot(tf.argmax(outputs, axis=1), cell_depth, dtype=tf.float32)

    helper = s2s.ScheduledOutputTrainingHelper(
        inputs=inputs, sequence_length=sequence_length,
        sampling_probability=sampling_probability, time_major=False,
        next_inputs_fn=next_inputs_fn, auxiliary_inputs=auxiliary_inputs)
    my_decoder = s2s.BasicDecoder(
        cell=cell, helper=helper,
        initial_state=cell.zero_state(dtype=tf.float32, batch_size=batch_size))
    assert my_decoder.output_size == s2s.BasicDecoderOutput(cell_depth, tf.TensorShape([]))
    assert my_decoder.output_dtype == s2s.BasicDecoderOutput(tf.float32, tf.int32)
    first_finished, first_inputs, first_state = my_decoder.initialize()
    step_outputs, step_state, step_next_inputs, step_finished = my_decoder.step(
        tf.constant(0), first_inputs, first_state)
    fetches = {"first_finished": first_finished, "step_outputs": step_outputs,
               "step_next_inputs": step_next_inputs, "step_finished": step_finished}
    if use_next_inputs_fn:
        fetches["after_fn"] = next_inputs_fn(step_outputs.rnn_output)
    assert isinstance(first_state, tf.nn.rnn_cell.LSTMStateTuple)
    assert isinstance(step_state, tf.nn.rnn_cell.LSTMStateTuple)
    assert isinstance(step_outputs, s2s.BasicDecoderOutput)
    assert step_outputs[0].shape.as_list() == [batch_size, cell_depth]
    assert step_outputs[1].shape.as_list() == [batch_size]
    assert step_state[0].shape.as_list() == [batch_size, cell_depth]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r = sess.run(fetches)
    np.testing.assert_array_equal(r["first_finished"], [False, False, False, False, True])
    np.testing.assert_array_equal(r["step_finished"], [False, False, False, True, True])
    sample_ids = r["step_outputs"].sample_id
    assert sample_ids.dtype == np.int32
    where_not = np.where(np.logical_not(sample_ids))
    where = np.where(sample_ids)
    aux = auxiliary_inputs[:, 1] if use_auxiliary_inputs else \
        np.array([]).reshape(batch_size, 0).astype(np.float32)
    sampled = r["after_fn"][where] if use_next_inputs_fn else r["step_outputs"].rnn_output[where]
    np.testing.assert_allclose(r["step_next_inputs"][where],
                               np.concatenate((sampled, aux[where]), axis=-1), rtol=1e-6)
    np.testing.assert_allclose(
        r["step_next_inputs"][where_not],
        np.concatenate((np.squeeze(inputs[where_not, 1], axis=0), aux[where_not]), axis=-1),
        rtol=1e-6)
    return sample_ids


def test_step_with_scheduled_output_training_helper_without_next_inputs_fn_or_aux_inputs():
    _test_step_with_scheduled_output_training_helper(0.5, False, False)


def test_step_with_scheduled_output_training_helper_with_next_inputs_fn():
    _test_step_with_scheduled_output_training_helper(0.5, True, False)


def test_step_with_scheduled_output_training_helper_with_auxiliary_inputs():
    _test_step_with_scheduled_output_training_helper(0.5, False, True)


def test_step_with_scheduled_output_training_helper_with_next_inputs_fn_and_aux_inputs():
    _test_step_with_scheduled_output_training_helper(0.5, True, True)


def test_step_with_scheduled_output_training_helper_with_no_sampling():
    ids = _test_step_with_scheduled_output_training_helper(0.0, True, True)
    assert not ids.any()


def test_sampling_probability_one_feeds_outputs_and_errors():
    ids = _test_step_with_scheduled_output_training_helper(1.0, False, True)
    assert ids.all()
    with pytest.raises(ValueError, match="sampling_probability must be either a scalar or a "
                                         "vector. saw shape: \\(1, 1\\)"):
        s2s.ScheduledOutputTrainingHelper(np.zeros([2, 3, 4], np.float32), [3, 3],
                                          [[0.5]])


# ── a whole decode against TF ────────────────────────────────────────────────────────
B, T, D = 4, 5, 3
RS = np.random.RandomState(5)
X = RS.randn(B, T, D).astype(np.float32)
LENS = [5, 3, 4, 1]
KERNEL = (RS.randn(2 * D, D) * 0.7).astype(np.float32)
BIAS = (RS.randn(D) * 0.1).astype(np.float32)
P, SEED, GRAPH_SEED = 0.5, 7, 3

REFERENCE = """
def reference():
    tf.reset_default_graph()
    tf.set_random_seed(GRAPH_SEED)
    x = tf.constant(X)
    kernel, bias = tf.constant(KERNEL), tf.constant(BIAS)
    steps = max(LENS)

    def body(t, inp, h, outs, ids):
        h = tf.tanh(tf.matmul(tf.concat([inp, h], 1), kernel) + bias)
        # TF runs a loop's iterations in parallel: a draw that depends on nothing in
        # the loop may run out of step order. Tying it to the step's output keeps TF's
        # draws in order (scopeflow runs the iterations one after another).
        with tf.control_dependencies([h]):
            sample = tf.cast(tf.random_uniform([B], seed=SEED) < P, tf.int32)
        truth = tf.cond(t + 1 < steps, lambda: x[:, tf.minimum(t + 1, T - 1)],
                        lambda: tf.zeros([B, D]))
        nxt = tf.where(tf.cast(sample, tf.bool), h, truth)
        return t + 1, nxt, h, outs.write(t, h), ids.write(t, sample)

    _, _, h, outs, ids = tf.while_loop(
        lambda t, *_: t < steps, body,
        (tf.constant(0), x[:, 0], tf.zeros([B, D]), tf.TensorArray(tf.float32, steps),
         tf.TensorArray(tf.int32, steps)))
    with tf.Session() as sess:
        r = sess.run([tf.transpose(outs.stack(), [1, 0, 2]), tf.transpose(ids.stack()), h])
    return [np.asarray(a).tolist() for a in r]
"""


def _env():
    return {"tf": tf, "np": np, "X": X, "LENS": LENS, "KERNEL": KERNEL, "BIAS": BIAS,
            "B": B, "T": T, "D": D, "P": P, "SEED": SEED, "GRAPH_SEED": GRAPH_SEED}


def _scopeflow_decode():
    tf.reset_default_graph()
    tf.set_random_seed(GRAPH_SEED)
    cell = tf.nn.rnn_cell.BasicRNNCell(D)
    helper = s2s.ScheduledOutputTrainingHelper(tf.constant(X), LENS, P, seed=SEED)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(B, tf.float32))
    out, state, lens = s2s.dynamic_decode(dec)
    assigns = [v.assign(w) for v, w in zip(tf.trainable_variables(), [KERNEL, BIAS])]
    with tf.Session() as sess:
        sess.run(assigns)
        return sess.run([out.rnn_output, out.sample_id, state, lens])


def _check(ref):
    outs, ids, h, lens = _scopeflow_decode()
    np.testing.assert_allclose(outs, ref[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ids, ref[1])
    np.testing.assert_allclose(h, ref[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(lens, LENS)
    # The draws sample some entries and not others, so both branches are exercised.
    assert 0 < np.asarray(ref[1]).mean() < 1


def test_decode_matches_core_op_reference_without_tf():
    env = _env()
    exec(REFERENCE, env)
    _check(env["reference"]())


def test_decode_matches_tf(tf1):
    consts = {"X": X.tolist(), "LENS": LENS, "KERNEL": KERNEL.tolist(),
              "BIAS": BIAS.tolist(), "B": B, "T": T, "D": D, "P": P, "SEED": SEED,
              "GRAPH_SEED": GRAPH_SEED}
    ref = tf1(f"""
tf.disable_v2_behavior()
C = {consts!r}
X, KERNEL, BIAS = (np.asarray(C[k], np.float32) for k in ("X", "KERNEL", "BIAS"))
LENS, B, T, D, P, SEED, GRAPH_SEED = (C[k] for k in ("LENS", "B", "T", "D", "P", "SEED",
                                                       "GRAPH_SEED"))
{REFERENCE}
print(json.dumps(reference()))
""")
    _check(ref)
