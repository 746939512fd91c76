"""tf.contrib.seq2seq's beam search: ``BeamSearchDecoder`` under ``dynamic_decode``.

TF 2.21 has no contrib, so the values are checked two ways:

* against a beam search written with TF1 core ops (``REFERENCE``: the same fixed-weight
  RNN cell and projection unrolled step by step, log-softmax, end-token masking, GNMT
  length penalty, ``top_k`` over ``beam * vocab``, parents gathered with ``batch_dims``),
  run under scopeflow (no TensorFlow needed) and under real TensorFlow (``tf1``), plus a
  NumPy trace-back of the parents as TF's ``gather_tree`` kernel does it;
* by TF 1.15's own beam_search_decoder_test.py cases, rewritten in
  tests/unit/contrib/test_seq2seq_beam_search_ported.py with the values they state.
"""

import numpy as np
import pytest

import scopeflow as tf

s2s = tf.contrib.seq2seq
B, D, H, V = 3, 4, 5, 7
RS = np.random.RandomState(11)
W = {"kernel": (RS.randn(D + H, H) * 0.8).astype(np.float32),
     "bias": (RS.randn(H) * 0.1).astype(np.float32),
     "dense_kernel": (RS.randn(H, V) * 2.0).astype(np.float32),
     "dense_bias": (RS.randn(V) * 0.5).astype(np.float32),
     "emb": RS.randn(V, D).astype(np.float32),
     "h0": RS.randn(B, H).astype(np.float32)}
START = [1, 2, 0]
MAX_ITERS = 6

# Runs under scopeflow and TF alike (``tf`` is whichever is imported): every step of the
# search, unrolled MAX_ITERS times.
REFERENCE = """
def reference(K, end_token, alpha):
    tf.reset_default_graph()
    kernel, bias = tf.constant(W["kernel"]), tf.constant(W["bias"])
    dk, db, emb = tf.constant(W["dense_kernel"]), tf.constant(W["dense_bias"]), \\
        tf.constant(W["emb"])
    h = tf.reshape(tf.tile(tf.constant(W["h0"])[:, None], [1, K, 1]), [B * K, H])
    inp = tf.reshape(tf.nn.embedding_lookup(emb, tf.tile(tf.constant(START)[:, None],
                                                          [1, K])), [B * K, D])
    first = tf.one_hot(tf.zeros([B], tf.int32), K, on_value=True, off_value=False)
    log_probs = tf.where(first, tf.zeros([B, K]), tf.fill([B, K], -np.inf))
    finished = tf.logical_not(first)
    lengths = tf.zeros([B, K], tf.int64)
    eos_row = tf.one_hot(end_token, V, on_value=0.0, off_value=np.finfo(np.float32).min)
    grows = tf.cast(tf.not_equal(tf.range(V), end_token), tf.int64)
    steps = []
    for _ in range(MAX_ITERS):
        h = tf.tanh(tf.matmul(tf.concat([inp, h], 1), kernel) + bias)
        logits = tf.reshape(tf.matmul(h, dk) + db, [B, K, V])
        step_lp = tf.where(tf.tile(finished[:, :, None], [1, 1, V]),
                           tf.tile(eos_row[None, None], [B, K, 1]), tf.nn.log_softmax(logits))
        total = log_probs[:, :, None] + step_lp
        new_len = lengths[:, :, None] + grows * tf.cast(
            tf.logical_not(finished), tf.int64)[:, :, None]
        scores = total
        if alpha:
            scores = total / ((5. + tf.cast(new_len, tf.float32)) / 6.) ** alpha
        top, idx = tf.nn.top_k(tf.reshape(scores, [B, -1]), K)
        word, parent = idx % V, idx // V
        log_probs = tf.gather(tf.reshape(total, [B, -1]), idx, batch_dims=1)
        parent_finished = tf.gather(finished, parent, batch_dims=1)
        finished = tf.logical_or(parent_finished, tf.equal(word, end_token))
        lengths = tf.gather(lengths, parent, batch_dims=1) + tf.cast(
            tf.logical_not(parent_finished), tf.int64)
        h = tf.reshape(tf.gather(tf.reshape(h, [B, K, H]), parent, batch_dims=1), [B * K, H])
        inp = tf.reshape(tf.nn.embedding_lookup(emb, word), [B * K, D])
        steps.append([top, word, parent, log_probs, finished, lengths, h])
    with tf.Session() as sess:
        r = sess.run(steps)
    return [[np.asarray(a).tolist() for a in step] for step in r]
"""

CASES = [(3, 0, 0.0), (3, 3, 0.0), (3, 3, 0.6), (2, 5, 1.2), (2, 1, 1.0), (9, 2, 0.6)]


def _scopeflow_reference(K, end_token, alpha):
    env = {"tf": tf, "np": np, "W": W, "B": B, "D": D, "H": H, "V": V, "START": START,
           "MAX_ITERS": MAX_ITERS}
    exec(REFERENCE, env)
    return env["reference"](K, end_token, alpha)


def _gather_tree(ids, parents, max_lengths, end_token):
    """TF's GatherTree kernel in NumPy: ``[T, batch, beam]`` ids traced back from the last
    step each batch entry reached; everything after a beam's first end token is the end
    token, and so is every step at or past the entry's length."""
    T, nb, K = ids.shape
    out = np.full_like(ids, end_token)
    for b in range(nb):
        n = max_lengths[b]
        for k in range(K):
            parent = k
            for t in range(n - 1, -1, -1):
                out[t, b, k] = ids[t, b, parent]
                parent = parents[t, b, parent]
            seen = False
            for t in range(n):
                if seen:
                    out[t, b, k] = end_token
                seen = seen or out[t, b, k] == end_token
    return out


def _expected(ref, K, end_token):
    """What dynamic_decode returns, from the unrolled steps: it stops after the first step
    at which every beam finished; its length for each beam position is one past the last
    step at which the beam in that position had not finished before (beams move, so a
    position can be unfinished again after a finished beam left it)."""
    steps = len(ref)
    for t, step in enumerate(ref):
        if np.all(step[4]):
            steps = t + 1
            break
    ref = ref[:steps]
    scores, words, parents = (np.stack([np.asarray(s[i]) for s in ref]) for i in range(3))
    last = ref[-1]
    finished_before = np.concatenate(
        [np.tile(np.arange(K) > 0, (1, B, 1)), np.stack([s[4] for s in ref])[:-1]])
    running = ~finished_before.astype(bool)
    seq_lens = np.max(running * np.arange(1, steps + 1)[:, None, None], axis=0)
    lengths = np.asarray(last[5])
    ids = _gather_tree(words, parents, lengths.max(1), end_token)
    return {"scores": scores, "words": words, "parents": parents, "ids": ids,
            "log_probs": np.asarray(last[3]), "finished": np.asarray(last[4]),
            "lengths": lengths, "seq_lens": seq_lens, "h": np.asarray(last[6])}


def _scopeflow_beam_search(K, end_token, alpha, time_major=False):
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    proj = tf.layers.Dense(V)
    init = s2s.tile_batch(tf.constant(W["h0"]), K)
    dec = s2s.BeamSearchDecoder(cell, tf.constant(W["emb"]), START, end_token, init, K,
                                output_layer=proj, length_penalty_weight=alpha)
    out, state, lens = s2s.dynamic_decode(dec, output_time_major=time_major,
                                          maximum_iterations=MAX_ITERS)
    names = [v.name for v in tf.trainable_variables()]
    assigns = [v.assign(W[k]) for v, k in zip(
        tf.trainable_variables(), ["kernel", "bias", "dense_kernel", "dense_bias"])]
    shapes = [out.predicted_ids.shape.as_list(),
              out.beam_search_decoder_output.scores.shape.as_list(),
              state.log_probs.shape.as_list(), state.cell_state.shape.as_list()]
    with tf.Session() as sess:
        sess.run(assigns)
        r = sess.run({"out": out, "state": state, "lens": lens})
    assert isinstance(out, s2s.FinalBeamSearchDecoderOutput)
    assert isinstance(state, s2s.BeamSearchDecoderState)
    return names, shapes, r


def _check(ref, K, end_token, alpha):
    want = _expected(ref, K, end_token)
    names, shapes, r = _scopeflow_beam_search(K, end_token, alpha)
    assert names == ["decoder/basic_rnn_cell/kernel:0", "decoder/basic_rnn_cell/bias:0",
                     "decoder/dense/kernel:0", "decoder/dense/bias:0"]
    assert shapes == [[B, None, K], [B, None, K], [B, K], [B, K, H]]
    raw = r["out"].beam_search_decoder_output
    # Batch-major outputs: [batch, time, beam].
    np.testing.assert_allclose(raw.scores, want["scores"].transpose(1, 0, 2), rtol=1e-5)
    np.testing.assert_array_equal(raw.predicted_ids, want["words"].transpose(1, 0, 2))
    np.testing.assert_array_equal(raw.parent_ids, want["parents"].transpose(1, 0, 2))
    np.testing.assert_array_equal(r["out"].predicted_ids, want["ids"].transpose(1, 0, 2))
    state = r["state"]
    np.testing.assert_allclose(state.log_probs, want["log_probs"], rtol=1e-5)
    np.testing.assert_array_equal(state.finished, want["finished"])
    np.testing.assert_array_equal(state.lengths, want["lengths"])
    assert state.lengths.dtype == np.int64
    np.testing.assert_allclose(state.cell_state.reshape(B * K, H), want["h"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(r["lens"], want["seq_lens"])


@pytest.mark.parametrize("K,end_token,alpha", CASES)
def test_beam_search_matches_core_op_reference_without_tf(K, end_token, alpha):
    _check(_scopeflow_reference(K, end_token, alpha), K, end_token, alpha)


def test_beam_search_matches_tf(tf1):
    consts = {"W": {k: v.tolist() for k, v in W.items()}, "B": B, "D": D, "H": H, "V": V,
              "START": START, "MAX_ITERS": MAX_ITERS}
    refs = tf1(f"""
tf.disable_v2_behavior()
C = {consts!r}
W = {{k: np.asarray(v, np.float32) for k, v in C["W"].items()}}
B, D, H, V, START, MAX_ITERS = C["B"], C["D"], C["H"], C["V"], C["START"], C["MAX_ITERS"]
{REFERENCE}
print(json.dumps([reference(*case) for case in {CASES!r}]))
""")
    for ref, (K, end_token, alpha) in zip(refs, CASES):
        _check(ref, K, end_token, alpha)
        # The scopeflow-run reference is TF's too (the no-TF tests check against it).
        mine = _scopeflow_reference(K, end_token, alpha)
        for step_tf, step_sf in zip(ref, mine):
            for a, b in zip(step_tf, step_sf):
                np.testing.assert_allclose(np.asarray(a, np.float64),
                                           np.asarray(b, np.float64), rtol=1e-5, atol=1e-6)


def test_some_case_finishes_early_and_some_runs_out():
    """The cases cover both stops: all beams finished before MAX_ITERS, and the limit."""
    stops = []
    for K, end_token, alpha in CASES:
        ref = _scopeflow_reference(K, end_token, alpha)
        stops.append(len(_expected(ref, K, end_token)["words"]))
    assert min(stops) < MAX_ITERS and max(stops) == MAX_ITERS


def test_time_major_and_callable_embedding():
    names, shapes, r = _scopeflow_beam_search(3, 3, 0.6, time_major=True)
    want = _expected(_scopeflow_reference(3, 3, 0.6), 3, 3)
    assert shapes[0] == [None, B, 3]
    np.testing.assert_array_equal(r["out"].predicted_ids, want["ids"])
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    emb = tf.constant(W["emb"])
    dec = s2s.BeamSearchDecoder(cell, lambda ids: tf.nn.embedding_lookup(emb, ids), START,
                                3, s2s.tile_batch(tf.constant(W["h0"]), 2), 2)
    out, _, _ = s2s.dynamic_decode(dec, maximum_iterations=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ids = sess.run(out.predicted_ids)
    assert ids.shape[0] == B and ids.shape[2] == 2 and ids.max() < H


MEMORY = RS.randn(B, 4, D).astype(np.float32)
ENC_LEN = np.array([3, 2, 4])


def _attention_parts(K, alignment_history=False, static_time=False):
    # Seeded: with random weights, beam and greedy decoding may break a near-tie apart.
    tf.set_random_seed(7)
    memory = tf.constant(MEMORY) if static_time else \
        tf.placeholder_with_default(MEMORY, shape=(None, None, D))
    mech = s2s.LuongAttention(H, s2s.tile_batch(memory, K),
                              memory_sequence_length=s2s.tile_batch(ENC_LEN, K))
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(H), mech, attention_layer_size=H,
                                alignment_history=alignment_history)
    return cell, tf.layers.Dense(V)


def _attention_decoder(K, cell, output_layer, **kwargs):
    """A beam search decoder on ``cell`` with a fresh initial state (its own TensorArray
    of alignments); the cell and layer objects keep their weights across decoders."""
    init = cell.zero_state(B * K, tf.float32).clone(cell_state=s2s.tile_batch(
        tf.nn.rnn_cell.LSTMStateTuple(tf.constant(W["h0"]), tf.constant(W["h0"])), K))
    return s2s.BeamSearchDecoder(cell, tf.constant(W["emb"]), START, 3, init, K,
                                 output_layer=output_layer, **kwargs), init


def test_attention_beam_of_one_is_greedy_decoding():
    """With one beam and no penalties, beam search is greedy decoding: the same ids as
    BasicDecoder + GreedyEmbeddingHelper on the same attention cell and weights."""
    tf.reset_default_graph()
    cell, layer = _attention_parts(1)
    dec, init = _attention_decoder(1, cell, layer)
    out, state, _ = s2s.dynamic_decode(dec, maximum_iterations=MAX_ITERS)
    n_vars = len(tf.trainable_variables())
    greedy = s2s.BasicDecoder(cell, s2s.GreedyEmbeddingHelper(tf.constant(W["emb"]),
                                                              START, 3),
                              init, output_layer=layer)
    gout, _, _ = s2s.dynamic_decode(greedy, maximum_iterations=MAX_ITERS)
    assert len(tf.trainable_variables()) == n_vars
    assert isinstance(state.cell_state, s2s.AttentionWrapperState)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ids, gids = sess.run([out.predicted_ids[:, :, 0], gout.sample_id])
    steps = gids.shape[1]
    np.testing.assert_array_equal(ids[:, :steps], gids)


def test_attention_alignment_history_reordered_along_beams():
    """With reorder_tensor_arrays, the alignment history comes back stacked and reordered:
    it equals the raw history gathered along each beam's traced path."""
    tf.reset_default_graph()
    K = 3
    cell, layer = _attention_parts(K, alignment_history=True)
    dec, _ = _attention_decoder(K, cell, layer, coverage_penalty_weight=0.3,
                                length_penalty_weight=0.5)
    out, state, _ = s2s.dynamic_decode(dec, output_time_major=True,
                                       maximum_iterations=MAX_ITERS)
    raw_dec, _ = _attention_decoder(K, cell, layer, coverage_penalty_weight=0.3,
                                    length_penalty_weight=0.5, reorder_tensor_arrays=False)
    raw_out, raw_state, _ = s2s.dynamic_decode(raw_dec, output_time_major=True,
                                               maximum_iterations=MAX_ITERS)
    history = state.cell_state.alignment_history
    assert isinstance(history, tf.Tensor)
    assert isinstance(raw_state.cell_state.alignment_history, tf.TensorArray)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sorted_h, raw_h, parents, ids, raw_ids, lengths = sess.run(
            [history, raw_state.cell_state.alignment_history.stack(),
             out.beam_search_decoder_output.parent_ids, out.predicted_ids,
             raw_out.predicted_ids, state.lengths])
    np.testing.assert_array_equal(ids, raw_ids)
    T = parents.shape[0]
    raw_h = raw_h.reshape(T, B, K, -1)
    want = raw_h.copy()
    for b in range(B):
        for k in range(K):
            beam = k
            # The path is traced from the entry's longest beam's end; steps past this
            # beam's own length keep their entry.
            for t in range(lengths.max(1)[b] - 1, -1, -1):
                if t < lengths[b, k]:
                    want[t, b, k] = raw_h[t, b, beam]
                beam = parents[t, b, beam]
    np.testing.assert_allclose(sorted_h.reshape(T, B, K, -1), want, rtol=1e-6)


def test_alignment_history_with_static_memory_time_is_not_reordered():
    """TF 1.15's static check rejects ``[batch * beam, known_time]`` elements (it wants a
    known second dimension to be the beam): the history comes back as the TensorArray, with
    TF's warning. A memory of unknown time (above) is reordered."""
    tf.reset_default_graph()
    cell, layer = _attention_parts(2, alignment_history=True, static_time=True)
    dec, _ = _attention_decoder(2, cell, layer)
    _, state, _ = s2s.dynamic_decode(dec, maximum_iterations=3)
    assert isinstance(state.cell_state.alignment_history, tf.TensorArray)


def test_coverage_penalty_needs_attention_and_state_checks():
    tf.reset_default_graph()
    cell = tf.nn.rnn_cell.BasicRNNCell(H)
    init = s2s.tile_batch(tf.constant(W["h0"]), 2)
    dec = s2s.BeamSearchDecoder(cell, W["emb"], START, 0, init, 2,
                                coverage_penalty_weight=0.5)
    with pytest.raises(ValueError, match="coverage_penalty_weight must be 0.0 if no cell "
                                         "is attentional"):
        dec.initialize()
    with pytest.raises(ValueError, match="start_tokens must be a vector"):
        s2s.BeamSearchDecoder(cell, W["emb"], 1, 0, init, 2)
    with pytest.raises(ValueError, match="end_token must be a scalar"):
        s2s.BeamSearchDecoder(cell, W["emb"], START, [0], init, 2)
    with pytest.raises(TypeError, match="output_layer must be a Layer"):
        s2s.BeamSearchDecoder(cell, W["emb"], START, 0, init, 2, output_layer=lambda x: x)
    with pytest.raises(TypeError, match="is not an RNNCell"):
        s2s.BeamSearchDecoder(object(), W["emb"], START, 0, init, 2)
    # An initial state not tiled to batch * beam (the split's reshape fails, as TF's).
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 15 elements"):
        s2s.BeamSearchDecoder(cell, W["emb"], START, 0, tf.constant(W["h0"]), 2)
    assert dec.tracks_own_finished is True
    assert dec.output_size == s2s.BeamSearchDecoderOutput(
        tf.TensorShape([2]), tf.TensorShape([2]), tf.TensorShape([2]))
    assert dec.output_dtype == s2s.BeamSearchDecoderOutput(tf.float32, tf.int32, tf.int32)
    assert s2s.FinalBeamSearchDecoderOutput.__name__ == "FinalBeamSearchDecoderOutput"
    assert s2s.BeamSearchDecoderState._fields == (
        "cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs")


def test_scores_with_length_and_coverage_penalties():
    """The scores as TF 1.15 defines them: log probabilities over ((5 + length) / 6) **
    alpha, plus, for finished beams, weight * sum(log(min(attention, 1))) with unattended
    (zero) positions counted as 1."""
    from scopeflow.contrib.seq2seq import beam_search_decoder as bsd
    tf.reset_default_graph()
    rs = np.random.RandomState(2)
    log_probs = -rs.rand(2, 3, 4).astype(np.float32) * 5
    lengths = rs.randint(0, 6, (2, 3, 4)).astype(np.int64)
    finished = np.array([[True, False, True], [False, True, False]])
    acc = (rs.rand(2, 3, 5) * 1.6).astype(np.float32)
    acc[:, :, -1] = 0.0
    scores = bsd._get_scores(tf.constant(log_probs), tf.constant(lengths), 0.7, 0.4,
                             tf.constant(finished), tf.constant(acc))
    plain = bsd._get_scores(tf.constant(log_probs), tf.constant(lengths), 0.0, 0.0,
                            tf.constant(finished), None)
    with tf.Session() as sess:
        got, got_plain = sess.run([scores, plain])
    coverage = np.log(np.minimum(np.where(acc == 0, 1, acc), 1)).sum(-1) * finished
    want = log_probs / ((5. + lengths) / 6.) ** 0.7 + 0.4 * coverage[:, :, None]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_array_equal(got_plain, log_probs)
    with pytest.raises(ValueError, match="accumulated_attention_probs can be None only if "
                                         "coverage penalty is disabled"):
        bsd._get_scores(tf.constant(log_probs), tf.constant(lengths), 0.0, 0.4,
                        tf.constant(finished), None)
    with pytest.raises(ValueError, match="coverage_penalty_weight should be a scalar"):
        bsd._get_scores(tf.constant(log_probs), tf.constant(lengths), 0.0, [0.4],
                        tf.constant(finished), tf.constant(acc))


def test_attention_probs_average_layers_and_mechanisms():
    from scopeflow.contrib.seq2seq import beam_search_decoder as bsd
    tf.reset_default_graph()
    a, b, c = (np.full([1, 2, 3], v, np.float32) for v in (0.1, 0.3, 0.8))

    def state(alignments):
        return s2s.AttentionWrapperState(cell_state=(), attention=(), time=(),
                                         alignments=alignments, alignment_history=(),
                                         attention_state=())

    two_layers = (state(tf.constant(a)), tf.zeros([1]), state((tf.constant(b),
                                                                tf.constant(c))))
    assert bsd.get_attention_probs(two_layers, 0.0) is None
    with tf.Session() as sess:
        got = sess.run(bsd.get_attention_probs(two_layers, 0.5))
    np.testing.assert_allclose(got, (0.1 + (0.3 + 0.8) / 2) / 2, rtol=1e-6)


# TF 1.15's tf.contrib.seq2seq, name by name (its API docs for r1.15).
TF115_SEQ2SEQ = [
    "AttentionMechanism", "AttentionWrapper", "AttentionWrapperState", "BahdanauAttention",
    "BahdanauMonotonicAttention", "BasicDecoder", "BasicDecoderOutput", "BeamSearchDecoder",
    "BeamSearchDecoderOutput", "BeamSearchDecoderState", "CustomHelper", "Decoder",
    "FinalBeamSearchDecoderOutput", "GreedyEmbeddingHelper", "Helper", "InferenceHelper",
    "LuongAttention", "LuongMonotonicAttention", "SampleEmbeddingHelper",
    "ScheduledEmbeddingTrainingHelper", "ScheduledOutputTrainingHelper", "TrainingHelper",
    "dynamic_decode", "gather_tree", "hardmax", "monotonic_attention", "safe_cumprod",
    "sequence_loss", "tile_batch"]


def test_every_tf115_public_name_is_there():
    assert [n for n in TF115_SEQ2SEQ if not hasattr(s2s, n)] == []
    assert sorted(s2s.__all__) == sorted(TF115_SEQ2SEQ)
