"""tf.contrib.seq2seq's decoding core against references written with core ops.

TF 2.21 has no contrib, so the references are the same computations written with TF1 core
ops (dynamic_rnn plus a dense projection for TrainingHelper decoding, a static greedy
unroll for GreedyEmbeddingHelper, masked cross entropy for sequence_loss). The same
reference code runs under scopeflow (checks without TensorFlow) and under TensorFlow
(``tf1`` fixture), with the same NumPy weights.
"""

import numpy as np
import pytest

import scopeflow as tf

s2s = tf.contrib.seq2seq
B, T, D, H, V = 3, 5, 4, 6, 5
RS = np.random.RandomState(7)
X = RS.randn(B, T, D).astype(np.float32)
LENS = [5, 3, 2]
W = {"kernel": (RS.randn(D + H, 4 * H) * 0.5).astype(np.float32),
     "bias": (RS.randn(4 * H) * 0.1).astype(np.float32),
     "dense_kernel": (RS.randn(H, V) * 1.5).astype(np.float32),
     "dense_bias": (RS.randn(V) * 0.5).astype(np.float32),
     "emb": RS.randn(V, D).astype(np.float32)}
MAX_ITERS = 7
START = [1, 2, 0]

# Runs under scopeflow and TF alike (``tf`` is whichever is imported): the reference values.
REFERENCE = """
def weights_init(name):
    return tf.constant_initializer(W[name])

def reference():
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    x = tf.constant(X)
    lens = tf.constant(LENS)
    outs, (c, h) = tf.nn.dynamic_rnn(cell, x, sequence_length=lens, dtype=tf.float32)
    proj = tf.layers.Dense(V)
    mask = tf.sequence_mask(lens, T, dtype=tf.float32)[:, :, None]
    logits = proj(outs) * mask
    ids = tf.cast(tf.argmax(logits, -1), tf.int32)
    # Greedy: a static unroll with the same cell and projection.
    emb = tf.constant(W["emb"])
    state = cell.zero_state(B, tf.float32)
    inp = tf.nn.embedding_lookup(emb, tf.constant(START))
    g_logits, g_ids = [], []
    for _ in range(MAX_ITERS):
        out, state = cell(inp, state)
        lg = proj(out)
        sid = tf.argmax(lg, -1, output_type=tf.int32)
        g_logits.append(lg)
        g_ids.append(sid)
        inp = tf.nn.embedding_lookup(emb, sid)
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        r = sess.run([logits, ids, c, h, tf.stack(g_logits, 1), tf.stack(g_ids, 1)])
    return [np.asarray(a).tolist() for a in r]
"""


def _greedy_truncate(g_logits, g_ids, end_token):
    """dynamic_decode's view of the unroll: stop once every row emitted ``end_token``;
    each row's length is its first end step + 1."""
    g_ids = np.asarray(g_ids)
    hit = g_ids == end_token
    first = np.where(hit.any(1), hit.argmax(1) + 1, MAX_ITERS)
    steps = int(first.max())
    return np.asarray(g_logits)[:, :steps], g_ids[:, :steps], first


def _scopeflow_decode(end_token):
    """dynamic_decode with TrainingHelper (impute_finished) and GreedyEmbeddingHelper."""
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    proj = tf.layers.Dense(V)
    helper = s2s.TrainingHelper(tf.constant(X), tf.constant(LENS))
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(B, tf.float32), output_layer=proj)
    out, state, lens = s2s.dynamic_decode(dec, impute_finished=True)
    names = [v.name for v in tf.trainable_variables()]
    greedy = s2s.GreedyEmbeddingHelper(tf.constant(W["emb"]), START, end_token)
    with tf.variable_scope("decoder", reuse=True):
        gdec = s2s.BasicDecoder(cell, greedy, cell.zero_state(B, tf.float32),
                                output_layer=proj)
    gout, _, glens = s2s.dynamic_decode(gdec, maximum_iterations=MAX_ITERS, scope="decoder")
    shapes = [out.rnn_output.shape.as_list(), out.sample_id.shape.as_list(),
              gout.rnn_output.shape.as_list(), lens.shape.as_list()]
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        r = sess.run([out, state, lens, gout, glens])
    return names, shapes, r


def _check_decode(ref, names, shapes, r, end_token):
    logits, ids, c, h, g_logits, g_ids = ref
    out, state, lens, gout, glens = r
    assert names == ["decoder/basic_lstm_cell/kernel:0", "decoder/basic_lstm_cell/bias:0",
                     "decoder/dense/kernel:0", "decoder/dense/bias:0"]
    assert shapes == [[B, None, V], [B, None], [B, None, V], [B]]
    np.testing.assert_allclose(out.rnn_output, logits, rtol=1e-5, atol=1e-5)
    # Finished rows sample from zeroed outputs: impute_finished zeroes the ids too.
    np.testing.assert_array_equal(out.sample_id, np.asarray(ids) * (np.arange(T) < np.array(
        LENS)[:, None]))
    np.testing.assert_allclose(state.c, c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(state.h, h, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(lens, LENS)
    want_logits, want_ids, want_lens = _greedy_truncate(g_logits, g_ids, end_token)
    np.testing.assert_allclose(gout.rnn_output, want_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(gout.sample_id, want_ids)
    np.testing.assert_array_equal(glens, want_lens)


def _scopeflow_reference():
    env = {"tf": tf, "np": np, "W": W, "X": X, "LENS": LENS, "B": B, "T": T, "H": H,
           "V": V, "MAX_ITERS": MAX_ITERS, "START": START}
    exec(REFERENCE, env)
    return env["reference"]()


@pytest.mark.parametrize("end_token", [0, 1, 4])
def test_decode_matches_core_op_reference_without_tf(end_token):
    names, shapes, r = _scopeflow_decode(end_token)
    _check_decode(_scopeflow_reference(), names, shapes, r, end_token)


def test_decode_matches_tf(tf1):
    consts = {"W": {k: v.tolist() for k, v in W.items()}, "X": X.tolist(), "LENS": LENS,
              "B": B, "T": T, "H": H, "V": V, "MAX_ITERS": MAX_ITERS, "START": START}
    ref = tf1(f"""
tf.disable_v2_behavior()
C = {consts!r}
W = {{k: np.asarray(v, np.float32) for k, v in C["W"].items()}}
X = np.asarray(C["X"], np.float32)
LENS, B, T, H, V, MAX_ITERS = C["LENS"], C["B"], C["T"], C["H"], C["V"], C["MAX_ITERS"]
START = C["START"]
{REFERENCE}
print(json.dumps(reference()))
""")
    for end_token in (0, 1, 4):
        names, shapes, r = _scopeflow_decode(end_token)
        _check_decode(ref, names, shapes, r, end_token)
    # The scopeflow-run reference is TF's too (the no-TF test checks against it).
    for a, b in zip(ref, _scopeflow_reference()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_output_time_major_and_zero_iterations():
    """output_time_major gives [time, batch, ...]; maximum_iterations=0 decodes nothing."""
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    helper = s2s.TrainingHelper(tf.constant(X.transpose(1, 0, 2)), LENS, time_major=True)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(B, tf.float32))
    out, _, lens = s2s.dynamic_decode(dec, output_time_major=True)
    # A fresh helper: its TensorArray of inputs may be read once per index (as TF's).
    dec0 = s2s.BasicDecoder(cell, s2s.TrainingHelper(tf.constant(X), LENS),
                            cell.zero_state(B, tf.float32))
    out0, _, lens0 = s2s.dynamic_decode(dec0, maximum_iterations=0, scope="zero")
    assert out.rnn_output.shape.as_list() == [None, B, H]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, n, o0, n0 = sess.run([out.rnn_output, lens, out0.rnn_output, lens0])
    assert o.shape == (T, B, H) and n.tolist() == LENS
    assert o0.shape == (B, 0, H) and n0.tolist() == [0, 0, 0]


def test_errors():
    tf.reset_default_graph()
    with pytest.raises(TypeError, match="Expected decoder to be type Decoder"):
        s2s.dynamic_decode(object())
    with pytest.raises(ValueError, match="Expected sequence_length to be a vector"):
        s2s.TrainingHelper(tf.constant(X), 3)
    with pytest.raises(ValueError, match="end_token must be a scalar"):
        s2s.GreedyEmbeddingHelper(tf.constant(W["emb"]), START, [1])
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    helper = s2s.TrainingHelper(tf.constant(X), LENS)
    with pytest.raises(TypeError, match="helper must be a Helper"):
        s2s.BasicDecoder(cell, object(), None)
    with pytest.raises(TypeError, match="output_layer must be a Layer"):
        s2s.BasicDecoder(cell, helper, None, output_layer=lambda x: x)
    z = tf.zeros([2, 3, 4])
    with pytest.raises(ValueError, match="Logits must be a"):
        s2s.sequence_loss(z[0], z[:, :, 0], z[:, :, 0])
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        s2s.sequence_loss(z, z[:, :, 0], z[:, :, 0], sum_over_timesteps=True)


# ── sequence_loss ────────────────────────────────────────────────────────────────────
LOGITS = RS.randn(3, 4, 5).astype(np.float32)
TARGETS = RS.randint(0, 5, size=(3, 4)).astype(np.int32)
WEIGHTS = np.array([[1, 1, 0.5, 0], [1, 0, 0, 0], [0, 0, 0, 0]], np.float32)
MODES = [(True, True, False, False), (True, False, False, False),
         (False, True, False, False), (False, False, True, True),
         (False, False, True, False), (False, False, False, True),
         (False, False, False, False)]


def _loss_reference(at, ab, st, sb):
    """NumPy: masked cross entropy, averaged by summed weights or by nonzero counts."""
    logp = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
    ce = -np.take_along_axis(logp, TARGETS[..., None], -1)[..., 0] * WEIGHTS
    axis = None if (at and ab) or (st and sb) else 0 if (ab or sb) else 1 \
        if (at or st) else "none"
    if axis == "none":
        return ce
    den = WEIGHTS.sum(axis) if (at or ab) else (WEIGHTS != 0).sum(axis)
    num = ce.sum(axis)
    return np.where(den == 0, 0.0, num / np.where(den == 0, 1, den))


def _scopeflow_losses():
    tf.reset_default_graph()
    args = (tf.constant(LOGITS), tf.constant(TARGETS), tf.constant(WEIGHTS))
    losses = [s2s.sequence_loss(*args, average_across_timesteps=at, average_across_batch=ab,
                                sum_over_timesteps=st, sum_over_batch=sb)
              for at, ab, st, sb in MODES]
    custom = s2s.sequence_loss(
        *args, softmax_loss_function=lambda labels, logits: tf.reduce_sum(
            logits, -1) * tf.cast(labels, tf.float32))
    with tf.Session() as sess:
        return losses, sess.run(losses + [custom])


def test_sequence_loss_without_tf():
    losses, values = _scopeflow_losses()
    assert losses[0].op.name == "sequence_loss/div_no_nan"
    assert [t.shape.as_list() for t in losses] == [[], [3], [4], [], [3], [4], [3, 4]]
    for mode, got in zip(MODES, values):
        np.testing.assert_allclose(got, _loss_reference(*mode), rtol=1e-5, atol=1e-6)
    want = (LOGITS.sum(-1) * TARGETS * WEIGHTS).sum() / WEIGHTS.sum()
    np.testing.assert_allclose(values[-1], want, rtol=1e-5)


def test_sequence_loss_matches_tf_core_ops(tf1):
    """TF's core ops, the same formulas, all modes (TF 1.15's sequence_loss body)."""
    ref = tf1(f"""
tf.disable_v2_behavior()
logits = tf.constant({LOGITS.tolist()!r})
targets = tf.constant({TARGETS.tolist()!r})
weights = tf.constant({WEIGHTS.tolist()!r})
ce = tf.reshape(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.reshape(targets, [-1]), logits=tf.reshape(logits, [-1, 5])), [3, 4]) * weights
cnt = lambda a=None: tf.cast(tf.count_nonzero(weights, axis=a), tf.float32)
outs = [tf.div_no_nan(tf.reduce_sum(ce), tf.reduce_sum(weights)),
        tf.div_no_nan(tf.reduce_sum(ce, [1]), tf.reduce_sum(weights, [1])),
        tf.div_no_nan(tf.reduce_sum(ce, [0]), tf.reduce_sum(weights, [0])),
        tf.div_no_nan(tf.reduce_sum(ce), cnt()),
        tf.div_no_nan(tf.reduce_sum(ce, [1]), cnt([1])),
        tf.div_no_nan(tf.reduce_sum(ce, [0]), cnt([0])), ce]
with tf.Session() as s:
    print(json.dumps([np.asarray(v).tolist() for v in s.run(outs)]))
""")
    _, values = _scopeflow_losses()
    for want, got in zip(ref, values):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_tile_batch():
    tf.reset_default_graph()
    x = tf.constant(X)
    tiled = s2s.tile_batch((x, {"s": tf.constant(LENS)}), 3)
    ph = tf.placeholder(tf.float32, [None, 2])
    assert tiled[0].shape.as_list() == [B * 3, T, D]
    assert s2s.tile_batch(ph, 2).shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="t must have statically known rank"):
        s2s.tile_batch(tf.constant(1.0), 2)
    with tf.Session() as sess:
        a, b = sess.run([tiled[0], tiled[1]["s"]])
    np.testing.assert_array_equal(a, np.repeat(X, 3, axis=0))
    assert b.tolist() == [5, 5, 5, 3, 3, 3, 2, 2, 2]


# ── gather_tree ──────────────────────────────────────────────────────────────────────
def _gather_tree_reference(step, parent, lens, end):
    """TF 1.15's GatherTree CPU kernel, transcribed loop by loop into NumPy."""
    max_time, batch, beam = step.shape
    out = np.full_like(step, end)
    for b in range(batch):
        for k in range(beam):
            length = min(max_time, lens[b])
            if length <= 0:
                continue
            out[length - 1, b, k] = step[length - 1, b, k]
            p = parent[length - 1, b, k]
            for level in range(length - 2, -1, -1):
                out[level, b, k] = step[level, b, p]
                p = parent[level, b, p]
            finished = False
            for t in range(length):
                if finished:
                    out[t, b, k] = end
                elif out[t, b, k] == end:
                    finished = True
    return out


def test_gather_tree():
    tf.reset_default_graph()
    rs = np.random.RandomState(3)
    step = rs.randint(0, 6, (6, 3, 4)).astype(np.int32)
    parent = rs.randint(0, 4, (6, 3, 4)).astype(np.int32)
    lens = np.array([6, 3, 0], np.int32)
    cases = [s2s.gather_tree(step, parent, lens, end) for end in (2, 9)]
    ph = tf.placeholder(tf.int32, [None, None, 4])
    assert cases[0].shape.as_list() == [6, 3, 4]
    assert s2s.gather_tree(ph, ph, [1], 0).shape.as_list() == [None, None, 4]
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        s2s.gather_tree(step, parent, lens, [1])
    # A hand-checked case (one batch entry, two beams, three steps).
    small = s2s.gather_tree([[[1, 2]], [[3, 4]], [[5, 6]]], [[[0, 0]], [[0, 0]], [[1, 0]]],
                            [3], 9)
    with tf.Session() as sess:
        got = sess.run(cases + [small])
    for end, value in zip((2, 9), got):
        np.testing.assert_array_equal(value, _gather_tree_reference(step, parent, lens, end))
    # Beam 0: 5 <- beam 1 (4) <- beam 0 (1); beam 1: 6 <- beam 0 (3) <- beam 0 (1).
    assert got[-1][:, 0].T.tolist() == [[1, 4, 5], [1, 3, 6]]


# ── SampleEmbeddingHelper ────────────────────────────────────────────────────────────
# A sampling decode written as a plain tf.while_loop: one Multinomial op (seed 11 under
# graph seed 5) run once per step, as TF 1.15's Categorical.sample inside dynamic_decode.
SAMPLE_REFERENCE = """
def sample_reference(end_token, steps):
    tf.reset_default_graph()
    tf.set_random_seed(5)
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    proj = tf.layers.Dense(V)
    emb = tf.constant(W["emb"])
    inp0 = tf.nn.embedding_lookup(emb, tf.constant(START))

    def body(t, inp, state, finished, lens, ids_ta):
        out, state = cell(inp, state)
        sid = tf.reshape(tf.multinomial(proj(out) / 0.7, 1, seed=11,
                                        output_dtype=tf.int32), [B])
        lens = tf.where(finished, lens, tf.fill([B], t + 1))
        finished = tf.logical_or(finished, tf.equal(sid, end_token))
        return (t + 1, tf.nn.embedding_lookup(emb, sid), state, finished, lens,
                ids_ta.write(t, sid))

    loop = tf.while_loop(
        lambda t, inp, state, finished, *_: tf.logical_not(tf.reduce_all(finished)), body,
        (tf.constant(0), inp0, cell.zero_state(B, tf.float32), tf.fill([B], False),
         tf.zeros([B], tf.int32), tf.TensorArray(tf.int32, size=0, dynamic_size=True)),
        maximum_iterations=steps)
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        ids, lens = sess.run([tf.transpose(loop[5].stack()), loop[4]])
    return [ids.tolist(), lens.tolist()]
"""


def _scopeflow_sample_decode(end_token, steps):
    tf.reset_default_graph()
    tf.set_random_seed(5)
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    helper = s2s.SampleEmbeddingHelper(tf.constant(W["emb"]), START, end_token,
                                       softmax_temperature=0.7, seed=11)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(B, tf.float32),
                           output_layer=tf.layers.Dense(V))
    out, _, lens = s2s.dynamic_decode(dec, maximum_iterations=steps)
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        ids, n = sess.run([out.sample_id, lens])
    return [ids.tolist(), n.tolist()]


SAMPLE_CASES = [(4, 6), (1, 9)]


def test_sample_embedding_helper_without_tf():
    env = {"tf": tf, "np": np, "W": W, "B": B, "H": H, "V": V, "START": START}
    exec(SAMPLE_REFERENCE, env)
    for end_token, steps in SAMPLE_CASES:
        assert _scopeflow_sample_decode(end_token, steps) == \
            env["sample_reference"](end_token, steps)


def test_sample_embedding_helper_matches_tf(tf1):
    consts = {"W": {k: v.tolist() for k, v in W.items()}, "B": B, "H": H, "V": V,
              "START": START}
    ref = tf1(f"""
tf.disable_v2_behavior()
C = {consts!r}
W = {{k: np.asarray(v, np.float32) for k, v in C["W"].items()}}
B, H, V, START = C["B"], C["H"], C["V"], C["START"]
{SAMPLE_REFERENCE}
print(json.dumps([sample_reference(e, s) for e, s in {SAMPLE_CASES!r}]))
""")
    got = [_scopeflow_sample_decode(e, s) for e, s in SAMPLE_CASES]
    assert got == ref


# ── ScheduledEmbeddingTrainingHelper ─────────────────────────────────────────────────
# Scheduled sampling as a plain tf.while_loop: per step a RandomUniform (seed 3) picks the
# rows that sample, a Multinomial (seed 11) samples them; they get the sample's embedding,
# the other rows the next ground-truth input. RandomUniform does not depend on the loop's
# values, so TF runs it for several iterations at once in whatever order (also inside TF
# 1.15's dynamic_decode); parallel_iterations=1 gives TF the step order scopeflow runs.
SCHEDULED_REFERENCE = """
def scheduled_reference():
    tf.reset_default_graph()
    tf.set_random_seed(5)
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    proj = tf.layers.Dense(V)
    emb = tf.constant(W["emb"])
    x_tm = tf.constant(np.concatenate([X.transpose(1, 0, 2), np.zeros((1, B, D), "f")]))
    lens = tf.constant(LENS)

    def body(t, inp, state, logits_ta, ids_ta):
        out, state = cell(inp, state)
        logits = proj(out)
        select = 0.5 > tf.random_uniform([B], seed=3)
        sid = tf.where(select, tf.reshape(tf.multinomial(logits, 1, seed=11,
                                                         output_dtype=tf.int32), [B]),
                       tf.fill([B], -1))
        truth = tf.gather(x_tm, t + 1)
        nxt = tf.where(sid > -1, tf.nn.embedding_lookup(emb, tf.maximum(sid, 0)), truth)
        nxt = tf.cond(tf.reduce_all(t + 1 >= lens), lambda: truth, lambda: nxt)
        return t + 1, nxt, state, logits_ta.write(t, logits), ids_ta.write(t, sid)

    loop = tf.while_loop(
        lambda t, *_: t < tf.reduce_max(lens), body,
        (tf.constant(0), x_tm[0], cell.zero_state(B, tf.float32),
         tf.TensorArray(tf.float32, size=0, dynamic_size=True),
         tf.TensorArray(tf.int32, size=0, dynamic_size=True)), parallel_iterations=1)
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        logits, ids = sess.run([loop[3].stack(), loop[4].stack()])
    return [logits.transpose(1, 0, 2).tolist(), ids.T.tolist()]
"""


def _scopeflow_scheduled_decode():
    tf.reset_default_graph()
    tf.set_random_seed(5)
    cell = tf.nn.rnn_cell.BasicLSTMCell(H)
    helper = s2s.ScheduledEmbeddingTrainingHelper(
        tf.constant(X), LENS, tf.constant(W["emb"]), 0.5, seed=11, scheduling_seed=3)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(B, tf.float32),
                           output_layer=tf.layers.Dense(V))
    out, _, lens = s2s.dynamic_decode(dec)
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assigns)
        o, n = sess.run([out, lens])
    assert n.tolist() == LENS
    return o.rnn_output, o.sample_id


def _check_scheduled(ref):
    logits, ids = _scopeflow_scheduled_decode()
    np.testing.assert_allclose(logits, ref[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(ids, ref[1])
    assert (ids == -1).any() and (ids >= 0).any()  # both kinds of rows occur


def test_scheduled_embedding_training_helper_without_tf():
    env = {"tf": tf, "np": np, "W": W, "X": X, "LENS": LENS, "B": B, "D": D, "H": H,
           "V": V}
    exec(SCHEDULED_REFERENCE, env)
    _check_scheduled(env["scheduled_reference"]())
    with pytest.raises(ValueError, match="sampling_probability must be either a scalar"):
        s2s.ScheduledEmbeddingTrainingHelper(tf.constant(X), LENS, W["emb"], [[0.5]])


def test_scheduled_embedding_training_helper_matches_tf(tf1):
    consts = {"W": {k: v.tolist() for k, v in W.items()}, "X": X.tolist(), "LENS": LENS,
              "B": B, "D": D, "H": H, "V": V}
    ref = tf1(f"""
tf.disable_v2_behavior()
C = {consts!r}
W = {{k: np.asarray(v, np.float32) for k, v in C["W"].items()}}
X = np.asarray(C["X"], np.float32)
LENS, B, D, H, V = C["LENS"], C["B"], C["D"], C["H"], C["V"]
{SCHEDULED_REFERENCE}
print(json.dumps(scheduled_reference()))
""")
    _check_scheduled(ref)


def test_custom_helper():
    """A CustomHelper feeding back the cell output: row 1 finishes after one step, row 0
    after three; batch_size is known only after initialize (TF's ValueError before)."""
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(D)
    stop = tf.constant([3, 1])
    helper = s2s.CustomHelper(
        lambda: (tf.constant([False, False]), tf.ones([2, D])),
        lambda time, outputs, state: tf.cast(tf.argmax(outputs, -1), tf.int32),
        lambda time, outputs, state, sample_ids: (time + 1 >= stop, outputs, state))
    with pytest.raises(ValueError, match="batch_size accessed before initialize"):
        _ = helper.batch_size
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    out, state, lens = s2s.dynamic_decode(dec, impute_finished=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, st, n = sess.run([out.rnn_output, state, lens])
    assert n.tolist() == [3, 1] and o.shape == (2, 3, D)
    np.testing.assert_array_equal(o[1, 1:], 0.0)  # imputed zeros after row 1 finished
    np.testing.assert_allclose(st, o[np.arange(2), n - 1], rtol=1e-6)  # RNN state = output


def test_inference_helper():
    """Regression-style decoding: the cell output is the sample and the next input; an
    entry ends when its first output component goes negative (or at maximum_iterations)."""
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    helper = s2s.InferenceHelper(
        sample_fn=lambda outputs: outputs, sample_shape=[2], sample_dtype=tf.float32,
        start_inputs=tf.constant([[1.0, 0.0], [0.0, 1.0]]),
        end_fn=lambda sample_ids: sample_ids[:, 0] < 0)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    out, _, lens = s2s.dynamic_decode(dec, maximum_iterations=4)
    assert out.sample_id.shape.as_list() == [2, None, 2]
    kernel = np.array([[0.5, -1.0], [1.0, 0.5], [0.2, 0.3], [-0.4, 0.1]], np.float32)
    assign = tf.trainable_variables()[0].assign(kernel)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(assign)
        o, n = sess.run([out, lens])
    # NumPy: h' = tanh([x, h] @ kernel); x' = h'; stop once h'[0] < 0.
    x, h, want, ends = np.eye(2, dtype=np.float32), np.zeros((2, 2), np.float32), [], [4, 4]
    for t in range(o.rnn_output.shape[1]):
        h = np.tanh(np.concatenate([x, h], 1) @ kernel)
        x = h
        want.append(h)
        ends = [min(e, t + 1) if h[i, 0] < 0 else e for i, e in enumerate(ends)]
    np.testing.assert_allclose(o.rnn_output, np.stack(want, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(o.sample_id, o.rnn_output)
    assert n.tolist() == ends and min(ends) < 4
