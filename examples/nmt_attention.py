"""A small neural machine translation model in the style of TF1's NMT tutorial: an
embedding, a bidirectional LSTM encoder, an LSTM decoder with Bahdanau attention trained
with teacher forcing, then greedy and beam search translation.

    python examples/nmt_attention.py [--steps 300] [--beam-width 3]

The "language pair" is a toy one: a source sentence is 2 to 6 words of a 7-word vocabulary
and its translation is the same words in reverse order. Every batch comes from a seeded
NumPy generator, taken in order, so two runs print the same losses.

The model is the tutorial's stack (``tf.contrib.seq2seq``):

- ``tf.nn.embedding_lookup`` into a source and a target embedding;
- ``tf.nn.bidirectional_dynamic_rnn`` of two ``LSTMCell``s over the source; its outputs,
  concatenated, are the attention memory, and its final states, concatenated, start the
  decoder;
- an ``LSTMCell`` decoder wrapped in ``AttentionWrapper`` with ``BahdanauAttention``
  (``--attention luong``: ``LuongAttention(scale=True)``), the memory masked by the source
  lengths, an attention layer of ``--units``;
- training: ``TrainingHelper`` (teacher forcing: the decoder reads the reference
  translation shifted right by ``<s>``), ``BasicDecoder`` with a bias-free output
  projection, ``dynamic_decode`` and ``sequence_loss`` masked by the target lengths; Adam
  on globally clipped gradients;
- inference, with the trained variables reused: ``GreedyEmbeddingHelper`` and, with
  ``--beam-width`` > 0, ``BeamSearchDecoder`` (encoder outputs, lengths and state tiled by
  ``tile_batch``).

All weights come from one ``random_uniform_initializer`` with an op seed, set on the
model's variable scope (the tutorial's ``init_weight``): each variable's draw depends on
its shape alone, not on the order the variables are made in (so the two embeddings start
equal, as in the tutorial). ``tests/fixtures/nmt_attention/make_fixture.py`` builds the
same network from TensorFlow's core ops (real TensorFlow has no ``tf.contrib``) and its
per-step losses are what this program's must track; ``--dtype float64`` runs both in
float64. ``--data-dir`` is accepted and ignored (the training-comparison harness passes
it to every example).
"""

import argparse

import numpy as np

import scopeflow as tf

PAD, SOS, EOS = 0, 1, 2
VOCAB = 10  # <pad>, <s>, </s> and 7 words
MIN_LEN, MAX_LEN = 2, 6


def make_batch(rng, batch_size):
    """A batch of the toy task: ``(source, source_lengths, decoder_inputs, targets,
    target_lengths)``, each padded to its longest row (sources with ``<pad>``, targets
    with ``</s>``, as the tutorial pads them)."""
    lengths = rng.randint(MIN_LEN, MAX_LEN + 1, size=batch_size)
    src = np.full((batch_size, lengths.max()), PAD, np.int32)
    tgt_in = np.full((batch_size, lengths.max() + 1), EOS, np.int32)
    tgt_out = np.full((batch_size, lengths.max() + 1), EOS, np.int32)
    for row, n in enumerate(lengths):
        words = rng.randint(3, VOCAB, size=n)
        src[row, :n] = words
        tgt_in[row, 0] = SOS
        tgt_in[row, 1:n + 1] = words[::-1]
        tgt_out[row, :n] = words[::-1]
    return src, lengths.astype(np.int32), tgt_in, tgt_out, (lengths + 1).astype(np.int32)


def build_model(args):
    """The training graph and the inference outputs; returns a dict of the tensors and
    ops the loop runs."""
    tf.set_random_seed(args.seed)
    src = tf.placeholder(tf.int32, [None, None], name="source")
    src_len = tf.placeholder(tf.int32, [None], name="source_length")
    tgt_in = tf.placeholder(tf.int32, [None, None], name="target_input")
    tgt_out = tf.placeholder(tf.int32, [None, None], name="target_output")
    tgt_len = tf.placeholder(tf.int32, [None], name="target_length")
    batch_size = tf.size(src_len)
    dtype = tf.as_dtype(args.dtype)

    initializer = tf.random_uniform_initializer(-args.init_weight, args.init_weight,
                                                seed=args.seed)
    with tf.variable_scope("nmt", initializer=initializer):
        with tf.variable_scope("embeddings"):
            emb_src = tf.get_variable("embedding_encoder", [VOCAB, args.embed], dtype)
            emb_tgt = tf.get_variable("embedding_decoder", [VOCAB, args.embed], dtype)

        with tf.variable_scope("encoder"):
            fw = tf.nn.rnn_cell.LSTMCell(args.units)
            bw = tf.nn.rnn_cell.LSTMCell(args.units)
            (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
                fw, bw, tf.nn.embedding_lookup(emb_src, src), sequence_length=src_len,
                dtype=dtype)
            memory = tf.concat([out_fw, out_bw], -1)
            encoder_state = tf.nn.rnn_cell.LSTMStateTuple(
                tf.concat([st_fw.c, st_bw.c], -1), tf.concat([st_fw.h, st_bw.h], -1))

        with tf.variable_scope("decoder") as decoder_scope:
            output_layer = tf.layers.Dense(VOCAB, use_bias=False, name="output_projection")

            def attention_cell(memory, lengths, state, batch):
                """The decoder cell over ``memory`` and its first state from ``state``."""
                if args.attention == "luong":  # scores against the decoder's output
                    mechanism = tf.contrib.seq2seq.LuongAttention(
                        2 * args.units, memory, memory_sequence_length=lengths, scale=True,
                        dtype=dtype)
                else:
                    mechanism = tf.contrib.seq2seq.BahdanauAttention(
                        args.units, memory, memory_sequence_length=lengths, dtype=dtype)
                cell = tf.contrib.seq2seq.AttentionWrapper(
                    tf.nn.rnn_cell.LSTMCell(2 * args.units), mechanism,
                    attention_layer_size=args.units, name="attention")
                return cell, cell.zero_state(batch, dtype).clone(cell_state=state)

            cell, initial_state = attention_cell(memory, src_len, encoder_state, batch_size)
            helper = tf.contrib.seq2seq.TrainingHelper(
                tf.nn.embedding_lookup(emb_tgt, tgt_in), tgt_len)
            decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, initial_state,
                                                      output_layer=output_layer)
            outputs, _, _ = tf.contrib.seq2seq.dynamic_decode(decoder, scope=decoder_scope)
            logits = outputs.rnn_output

        weights = tf.sequence_mask(tgt_len, tf.shape(tgt_out)[1], dtype=dtype)
        loss = tf.contrib.seq2seq.sequence_loss(logits, tgt_out, weights)
        params = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), args.max_gradient_norm)
        train_op = tf.train.AdamOptimizer(args.learning_rate).apply_gradients(
            zip(grads, params))

        start_tokens = tf.fill([batch_size], SOS)
        max_iterations = tf.reduce_max(src_len) * 2
        # dynamic_decode enters the scope object it is given, whose own reuse flag is what
        # counts (an enclosing reuse=True is not inherited by a re-entered scope object)
        with tf.variable_scope(decoder_scope, reuse=True) as infer_scope:
            helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(emb_tgt, start_tokens, EOS)
            decoder = tf.contrib.seq2seq.BasicDecoder(cell, helper, initial_state,
                                                      output_layer=output_layer)
            greedy, _, _ = tf.contrib.seq2seq.dynamic_decode(
                decoder, maximum_iterations=max_iterations, scope=infer_scope)
        beam = None
        if args.beam_width > 0:
            with tf.variable_scope(decoder_scope, reuse=True) as infer_scope:
                tile = lambda t: tf.contrib.seq2seq.tile_batch(t, args.beam_width)  # noqa: E731
                beam_cell, beam_state = attention_cell(
                    tile(memory), tile(src_len), tile(encoder_state),
                    batch_size * args.beam_width)
                decoder = tf.contrib.seq2seq.BeamSearchDecoder(
                    beam_cell, emb_tgt, start_tokens, EOS, beam_state, args.beam_width,
                    output_layer=output_layer)
                beam_out, _, _ = tf.contrib.seq2seq.dynamic_decode(
                    decoder, maximum_iterations=max_iterations, scope=infer_scope)
                beam = beam_out.predicted_ids[:, :, 0]  # the best beam
    return dict(placeholders=(src, src_len, tgt_in, tgt_out, tgt_len), loss=loss,
                train_op=train_op, greedy=greedy.sample_id, beam=beam)


def words(ids):
    """Token ids up to the first ``</s>``, as text."""
    ids = list(ids)
    if EOS in ids:
        ids = ids[:ids.index(EOS)]
    return " ".join(f"w{i - 3}" for i in ids)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--embed", type=int, default=8)
    parser.add_argument("--units", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--init-weight", type=float, default=0.1)
    parser.add_argument("--max-gradient-norm", type=float, default=5.0)
    parser.add_argument("--beam-width", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--attention", choices=["bahdanau", "luong"], default="bahdanau",
                        help="Bahdanau's additive attention or Luong's scaled multiplicative")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                        help="float64 shows the float32 drift from TF is rounding")
    parser.add_argument("--translate", type=int, default=4,
                        help="how many test sentences to translate after training")
    parser.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    model = build_model(args)
    rng = np.random.RandomState(args.seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, args.steps + 1):
            feed = dict(zip(model["placeholders"], make_batch(rng, args.batch_size)))
            loss, _ = sess.run([model["loss"], model["train_op"]], feed)
            print(f"step {step}: loss {loss:.17g}")
        if args.translate:
            src, src_len, *_ = make_batch(np.random.RandomState(args.seed + 1),
                                          args.translate)
            feed = {model["placeholders"][0]: src, model["placeholders"][1]: src_len}
            fetches = {"greedy": model["greedy"]}
            if model["beam"] is not None:
                fetches["beam"] = model["beam"]
            results = sess.run(fetches, feed)
            for row, n in enumerate(src_len):
                print(f"source: {words(src[row, :n])}")
                for kind in fetches:
                    print(f"  {kind}: {words(results[kind][row])}")


if __name__ == "__main__":
    main()
