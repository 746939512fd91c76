"""RNN cells as TF1 code drives them beyond ``dynamic_rnn``: ``get_initial_state`` and
``zero_state`` on every cell, ``build()`` called directly, TF's refusal of integer cells,
and nested state tuples as ``feed_dict`` keys and fetches (one program, scopeflow and TF)."""

import textwrap

PROGRAM = textwrap.dedent('''
    rnn_cell = tf.nn.rnn_cell
    out = {}

    def rec(key):
        def deco(f):
            with tf.Graph().as_default():
                tf.set_random_seed(7)
                try:
                    out[key] = f()
                except Exception as e:
                    out[key] = type(e).__name__ + ": " + str(e).split("\\n")[0]
        return deco

    @rec("initial_states")
    def _():
        res = []
        for c in [rnn_cell.BasicRNNCell(3), rnn_cell.BasicLSTMCell(3), rnn_cell.GRUCell(3),
                  rnn_cell.LSTMCell(3, num_proj=2),
                  rnn_cell.MultiRNNCell([rnn_cell.GRUCell(2), rnn_cell.LSTMCell(3)])]:
            z = c.zero_state(4, tf.float32)
            g = c.get_initial_state(batch_size=4, dtype=tf.float32)
            i = c.get_initial_state(inputs=tf.placeholder(tf.float64, [None, 5]))
            res.append([str(tf.nest.map_structure(lambda t: t.shape.as_list(), z)),
                        str(tf.nest.map_structure(lambda t: t.name, g)),
                        str(tf.nest.map_structure(lambda t: (t.shape.as_list(), t.dtype.name), i))])
        return res

    @rec("initial_state_errors")
    def _():
        c, x, errs = rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [4, 5]), []
        for kw in ({"inputs": x, "batch_size": 3}, {"inputs": x, "dtype": tf.float64}, {}):
            try:
                c.get_initial_state(**kw)
            except ValueError as e:
                errs.append(str(e))
        return errs

    @rec("build_names")
    def _():
        for _ in range(2):
            rnn_cell.LSTMCell(3).build(tf.TensorShape([None, 5]))
        cell = rnn_cell.GRUCell(2)
        cell.build(tf.TensorShape([None, 5]))
        cell(tf.zeros([1, 5]), tf.zeros([1, 2]))  # no second build
        return [v.name for v in tf.global_variables()]

    @rec("int_cell")
    def _():
        return str(rnn_cell.BasicRNNCell(3, dtype=tf.int32))

    @rec("int_inputs")
    def _():
        x = tf.placeholder(tf.int32, [2, 4, 5])
        return str(tf.nn.dynamic_rnn(rnn_cell.GRUCell(3), x, dtype=tf.int32))

    @rec("state_tuple_feed")
    def _():
        c = rnn_cell.BasicLSTMCell(3)
        x = tf.placeholder(tf.float32, [2, 4, 5])
        init = c.zero_state(2, tf.float32)
        _, s = tf.nn.dynamic_rnn(c, x, initial_state=init)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xv = np.linspace(-1, 1, 40, dtype=np.float32).reshape(2, 4, 5)
            st = sess.run(s, {x: xv})
            st2 = sess.run(s, {x: xv, init: st})
            errs = []
            for bad in ({init: (st.c,)}, {init: st, init.c: st.c}):
                try:
                    sess.run(s, {**bad, x: xv})
                except ValueError as e:
                    errs.append(str(e).split(". Key:")[0])
            return [type(st).__name__, np.round(st2.h, 4).tolist(), errs]

    print(json.dumps(out))
''')


def test_rnn_cells_without_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert got["build_names"] == ["lstm_cell/kernel:0", "lstm_cell/bias:0",
                                  "lstm_cell_1/kernel:0", "lstm_cell_1/bias:0",
                                  "gru_cell/gates/kernel:0", "gru_cell/gates/bias:0",
                                  "gru_cell/candidate/kernel:0", "gru_cell/candidate/bias:0"]
    assert got["int_cell"] == ("ValueError: RNN cell only supports floating point inputs, but "
                               "received dtype: <dtype: 'int32'>")
    assert got["state_tuple_feed"][0] == "LSTMStateTuple"


def test_rnn_cells_match_tf(tf1, scopeflow_run):
    want = tf1("tf.disable_v2_behavior()\n" + PROGRAM)
    assert scopeflow_run(PROGRAM) == want


def test_sequence_length_passes_scalars_and_tensor_arrays_through():
    """TF's ``_copy_one_through``: an attention wrapper's ``time`` (a scalar) and alignment
    history (a TensorArray) are not masked by ``sequence_length``."""
    import numpy as np

    import scopeflow as tf

    with tf.Graph().as_default():
        memory = tf.constant(np.ones([2, 5, 4], np.float32))
        cell = tf.contrib.seq2seq.AttentionWrapper(
            tf.nn.rnn_cell.GRUCell(3), tf.contrib.seq2seq.BahdanauAttention(3, memory),
            alignment_history=True)
        x = tf.constant(np.linspace(-1, 1, 48, dtype=np.float32).reshape(2, 6, 4))
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 6],
                                       initial_state=cell.zero_state(2, tf.float32))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, t, hist = sess.run([out, state.time, state.alignment_history.stack()])
    assert t == 6 and hist.shape == (6, 2, 5)
    assert not o[0, 3:].any() and o[1, 3:].any()  # the short row's outputs end at 3
