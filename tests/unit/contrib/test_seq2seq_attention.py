"""``tf.contrib.seq2seq``'s attention (scopeflow/contrib/seq2seq/attention_wrapper.py).

TF 2.21 has no contrib, so the oracle is TF 1.15's attention math written with TF core ops
in a ``tf.nn.rnn_cell.RNNCell`` run by TF's ``dynamic_rnn``, with the same weights; the
checks without TF compare scopeflow's ``AttentionWrapper`` over ``dynamic_rnn`` with a NumPy
version of the same steps, and check TF 1.15's variable names, state structure and errors.
"""

import json

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.contrib.seq2seq.attention_wrapper import (
    AttentionWrapper,
    AttentionWrapperState,
    BahdanauAttention,
    BahdanauMonotonicAttention,
    LuongAttention,
    LuongMonotonicAttention,
    hardmax,
    monotonic_attention,
    safe_cumprod,
)

B, T_MEM, D_MEM, T_IN, D_IN, H = 2, 5, 3, 4, 2, 4

# name, mechanism, flag (normalize / scale), attention_layer_size, output_attention,
# memory lengths, alignment_history
CASES = [
    ("bahdanau", "bahdanau", False, None, False, None, False),
    ("bahdanau_norm", "bahdanau", True, 3, True, [5, 3], True),
    ("luong", "luong", False, 2, True, [2, 5], True),
    ("luong_scale", "luong", True, None, False, [4, 4], False),
]


def _weights(case):
    """Deterministic weights for one case, by TF 1.15's variable names."""
    name, mech, flag, layer_size, _, _, _ = case
    rng = np.random.RandomState(len(name) * 7 + (3 if flag else 0))
    units = 5 if mech == "bahdanau" else H
    att = layer_size or D_MEM
    w = {"memory_layer/kernel": rng.randn(D_MEM, units) * 0.5,
         "basic_rnn_cell/kernel": rng.randn(D_IN + att + H, H) * 0.5,
         "basic_rnn_cell/bias": rng.randn(H) * 0.1}
    scope = "bahdanau_attention" if mech == "bahdanau" else "luong_attention"
    if mech == "bahdanau":
        w[f"{scope}/query_layer/kernel"] = rng.randn(H, units) * 0.5
        w[f"{scope}/attention_v"] = rng.randn(units)
        if flag:
            w[f"{scope}/attention_g"] = np.float64(0.7)
            w[f"{scope}/attention_b"] = rng.randn(units) * 0.1
    elif flag:
        w[f"{scope}/attention_g"] = np.float64(1.3)
    if layer_size:
        w["attention_layer/kernel"] = rng.randn(H + D_MEM, layer_size) * 0.5
    return {k: np.asarray(v, np.float32) for k, v in w.items()}


MEMORY = np.random.RandomState(10).randn(B, T_MEM, D_MEM).astype(np.float32)
INPUTS = np.random.RandomState(11).randn(B, T_IN, D_IN).astype(np.float32)


def _run_scopeflow(case):
    """The case through scopeflow's AttentionWrapper and dynamic_rnn, weights loaded."""
    _, mech, flag, layer_size, output_attention, lengths, history = case
    w = _weights(case)
    with tf.Graph().as_default():
        units = w["memory_layer/kernel"].shape[1]
        if mech == "bahdanau":
            m = BahdanauAttention(units, MEMORY, memory_sequence_length=lengths,
                                  normalize=flag)
        else:
            m = LuongAttention(units, MEMORY, memory_sequence_length=lengths, scale=flag)
        cell = AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), m,
                                attention_layer_size=layer_size,
                                output_attention=output_attention, alignment_history=history)
        out, state = tf.nn.dynamic_rnn(cell, INPUTS, dtype=tf.float32)
        names = sorted(v.op.name for v in tf.global_variables())
        fetch = {"out": out, "h": state.cell_state, "attention": state.attention,
                 "alignments": state.alignments, "time": state.time}
        if history:
            fetch["history"] = state.alignment_history.stack()
        with tf.Session() as sess:
            for v in tf.global_variables():
                key = v.op.name.replace("rnn/attention_wrapper/", "")
                v.load(w[key], sess)
            values = sess.run(fetch)
    return names, values


def _reference(case):
    """TF 1.15's steps in NumPy."""
    _, mech, flag, layer_size, output_attention, lengths, _ = case
    w = _weights(case)
    keys = MEMORY @ w["memory_layer/kernel"]
    values = MEMORY
    mask = np.ones((B, T_MEM), bool)
    if lengths is not None:
        mask = np.arange(T_MEM)[None] < np.asarray(lengths)[:, None]
        values = MEMORY * mask[..., None]
        keys = values @ w["memory_layer/kernel"]
    h = np.zeros((B, H), np.float32)
    attention = np.zeros((B, layer_size or D_MEM), np.float32)
    outs, history = [], []
    for t in range(T_IN):
        x = np.concatenate([INPUTS[:, t], attention, h], 1)
        h = np.tanh(x @ w["basic_rnn_cell/kernel"] + w["basic_rnn_cell/bias"])
        if mech == "bahdanau":
            q = (h @ w["bahdanau_attention/query_layer/kernel"])[:, None]
            v = w["bahdanau_attention/attention_v"]
            if flag:
                v = w["bahdanau_attention/attention_g"] * v / np.sqrt(np.sum(v * v))
                q = q + w["bahdanau_attention/attention_b"]
            score = np.sum(v * np.tanh(keys + q), 2)
        else:
            score = np.einsum("bu,btu->bt", h, keys)
            if flag:
                score = score * w["luong_attention/attention_g"]
        score = np.where(mask, score, -np.inf)
        e = np.exp(score - score.max(1, keepdims=True))
        alignments = e / e.sum(1, keepdims=True)
        context = np.einsum("bt,btd->bd", alignments, values)
        attention = np.concatenate([h, context], 1) @ w["attention_layer/kernel"] \
            if layer_size else context
        outs.append(attention if output_attention else h)
        history.append(alignments)
    return {"out": np.stack(outs, 1), "h": h, "attention": attention,
            "alignments": alignments, "history": np.stack(history), "time": T_IN}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_attention_wrapper_matches_numpy_steps(case):
    _, values = _run_scopeflow(case)
    ref = _reference(case)
    for key, got in values.items():
        np.testing.assert_allclose(got, ref[key], rtol=1e-5, atol=1e-5, err_msg=key)


def test_variable_names_are_tf_1_15s():
    names, _ = _run_scopeflow(CASES[1])
    assert names == sorted([
        "memory_layer/kernel", "rnn/attention_wrapper/basic_rnn_cell/kernel",
        "rnn/attention_wrapper/basic_rnn_cell/bias",
        "rnn/attention_wrapper/bahdanau_attention/query_layer/kernel",
        "rnn/attention_wrapper/bahdanau_attention/attention_v",
        "rnn/attention_wrapper/bahdanau_attention/attention_g",
        "rnn/attention_wrapper/bahdanau_attention/attention_b",
        "rnn/attention_wrapper/attention_layer/kernel"])
    names, _ = _run_scopeflow(CASES[3])
    assert "rnn/attention_wrapper/luong_attention/attention_g" in names
    assert "memory_layer/kernel" in names


def test_state_structure_clone_and_initial_cell_state():
    with tf.Graph().as_default():
        m = LuongAttention(H, MEMORY)
        init = tf.fill([B, H], 2.0)
        cell = AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), m, initial_cell_state=init,
                                cell_input_fn=lambda inputs, attention: inputs)
        assert cell.output_size == D_MEM
        size = cell.state_size
        assert isinstance(size, AttentionWrapperState)
        assert (size.cell_state, size.attention, size.alignments, size.attention_state,
                size.alignment_history) == (H, D_MEM, T_MEM, T_MEM, ())
        state = cell.zero_state(B, tf.float32)
        assert state.time.dtype == tf.int32 and state.time.shape.ndims == 0
        cloned = state.clone(cell_state=tf.placeholder(tf.float32))
        assert cloned.cell_state.shape.as_list() == [B, H]  # takes the replaced one's shape
        assert cloned.attention is state.attention
        out, new_state = cell(tf.constant(INPUTS[:, 0]), state)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            h0, s0, t1 = sess.run([state.cell_state, new_state.cell_state, new_state.time])
        np.testing.assert_array_equal(h0, np.full((B, H), 2.0, np.float32))
        assert t1 == 1 and s0.shape == (B, H)


def test_errors():
    with tf.Graph().as_default():
        m = BahdanauAttention(3, MEMORY)
        with pytest.raises(TypeError, match="cell must be an RNNCell"):
            AttentionWrapper(object(), m)
        with pytest.raises(TypeError, match="attention_mechanism must be an "):
            AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), "m")
        with pytest.raises(ValueError, match="exactly one integer per attention_mechanism"):
            AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), m, attention_layer_size=[2, 3])
        with pytest.raises(ValueError, match="Only one of attention_layer_size"):
            AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), m, attention_layer_size=2,
                             attention_layer=tf.layers.Dense(2))
        with pytest.raises(ValueError, match="fully defined inner dims"):
            BahdanauAttention(3, tf.placeholder(tf.float32, [2, 5, None]))
        luong = LuongAttention(3, MEMORY)
        with pytest.raises(ValueError, match="Incompatible or unknown inner dimensions"):
            luong(tf.zeros([B, 4]), None)


def test_two_mechanisms_concatenate_attentions():
    with tf.Graph().as_default():
        m1, m2 = BahdanauAttention(3, MEMORY), LuongAttention(H, MEMORY)
        cell = AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), [m1, m2],
                                attention_layer_size=[2, 3])
        out, state = tf.nn.dynamic_rnn(cell, INPUTS, dtype=tf.float32)
        assert out.shape.as_list() == [B, T_IN, 5]
        assert isinstance(state.alignments, tuple) and len(state.alignments) == 2
        names = {v.op.name for v in tf.global_variables()}
        assert {"rnn/attention_wrapper/attention_layer/kernel",
                "rnn/attention_wrapper/attention_layer_1/kernel",
                "memory_layer/kernel", "memory_layer_1/kernel"} <= names


def test_hardmax_and_safe_cumprod():
    x = np.array([[0.5, 2.0, -1.0], [3.0, 1.0, 3.0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        hm = hardmax(x)
        p = np.array([[0.5, 0.0, 0.25], [1.0, 0.5, 0.5]], np.float32)
        cp = safe_cumprod(p, axis=1, exclusive=True)
        got_hm, got_cp = sess.run([hm, cp])
    assert hm.dtype == tf.float32 and hm.op.name.startswith("Hardmax")
    np.testing.assert_array_equal(got_hm, [[0, 1, 0], [1, 0, 0]])
    tiny = np.finfo(np.float32).tiny
    expected = np.exp(np.cumsum(np.log(np.clip(p, tiny, 1)), 1))
    expected = np.concatenate([np.ones((2, 1)), expected[:, :-1]], 1)
    np.testing.assert_allclose(got_cp, expected, rtol=1e-6)


_TF_ORACLE = """
tf.disable_v2_behavior()
cases = json.loads(CASES_JSON)
mem = np.array(MEMORY_JSON, np.float32)
inputs = np.array(INPUTS_JSON, np.float32)

class Att(tf.nn.rnn_cell.RNNCell):
    # TF 1.15's AttentionWrapper over a BasicRNNCell, written with TF core ops
    def __init__(self, c, w):
        super().__init__()
        self.c, self.w = c, {k: tf.constant(np.array(v, np.float32)) for k, v in w.items()}
        self.att = c["layer"] or mem.shape[2]
        self.values = tf.constant(mem)
        self.mask = None
        if c["lengths"] is not None:
            self.mask = tf.sequence_mask(c["lengths"], mem.shape[1])
            self.values = self.values * tf.cast(self.mask, tf.float32)[:, :, None]
        self.keys = tf.einsum("btd,du->btu", self.values, self.w["memory_layer/kernel"])
    state_size = property(lambda self: (4, self.att, mem.shape[1]))
    output_size = property(lambda self: self.att if self.c["out_att"] else 4)
    def call(self, x, s):
        h, att, _ = s
        w, c = self.w, self.c
        x = tf.concat([x, att, h], 1)
        h = tf.tanh(tf.matmul(x, w["basic_rnn_cell/kernel"]) + w["basic_rnn_cell/bias"])
        if c["mech"] == "bahdanau":
            q = tf.matmul(h, w["bahdanau_attention/query_layer/kernel"])[:, None]
            v = w["bahdanau_attention/attention_v"]
            if c["flag"]:
                v = w["bahdanau_attention/attention_g"] * v * tf.rsqrt(tf.reduce_sum(v * v))
                q = q + w["bahdanau_attention/attention_b"]
            score = tf.reduce_sum(v * tf.tanh(self.keys + q), 2)
        else:
            score = tf.squeeze(tf.matmul(h[:, None], self.keys, transpose_b=True), [1])
            if c["flag"]:
                score = w["luong_attention/attention_g"] * score
        if self.mask is not None:
            score = tf.where(self.mask, score, -np.inf * tf.ones_like(score))
        al = tf.nn.softmax(score)
        ctx = tf.squeeze(tf.matmul(al[:, None], self.values), [1])
        att = tf.matmul(tf.concat([h, ctx], 1), w["attention_layer/kernel"]) \\
            if c["layer"] else ctx
        return (att if c["out_att"] else h), (h, att, al)

res = []
for c in cases:
    with tf.Graph().as_default():
        out, (h, att, al) = tf.nn.dynamic_rnn(Att(c, c["w"]), inputs, dtype=tf.float32)
        with tf.Session() as sess:
            o, hh, aa, ll = sess.run([out, h, att, al])
    res.append({"out": o.tolist(), "h": hh.tolist(), "attention": aa.tolist(),
                "alignments": ll.tolist()})
print(json.dumps(res))
"""


def test_attention_wrapper_matches_tf(tf1):
    cases = [{"mech": c[1], "flag": c[2], "layer": c[3], "out_att": c[4], "lengths": c[5],
              "w": {k: v.tolist() for k, v in _weights(c).items()}} for c in CASES]
    code = _TF_ORACLE.replace("CASES_JSON", repr(json.dumps(cases))) \
        .replace("MEMORY_JSON", repr(MEMORY.tolist())).replace("INPUTS_JSON",
                                                               repr(INPUTS.tolist()))
    expected = tf1(code)
    for case, want in zip(CASES, expected):
        _, got = _run_scopeflow(case)
        for key, value in want.items():
            np.testing.assert_allclose(got[key], np.asarray(value, np.float32), rtol=1e-5,
                                       atol=1e-5, err_msg=f"{case[0]} {key}")


def test_gradients_match_finite_differences():
    """d(loss)/d(weights) through the while loop, the masking and the softmax, against
    central differences of the forward run (float64)."""
    mem = MEMORY.astype(np.float64)
    with tf.Graph().as_default():
        m = BahdanauAttention(3, mem, memory_sequence_length=[5, 2], normalize=True,
                              dtype=tf.float64)
        cell = AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H, dtype=tf.float64), m,
                                attention_layer_size=2)
        out, _ = tf.nn.dynamic_rnn(cell, INPUTS.astype(np.float64), dtype=tf.float64)
        loss = tf.reduce_sum(tf.sin(out))
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for var, grad in zip(variables, sess.run(grads)):
                value = sess.run(var)
                flat = value.reshape(-1)
                for i in range(0, flat.size, max(1, flat.size // 3)):
                    numeric = []
                    for step in (1e-6, -1e-6):
                        bumped = flat.copy()
                        bumped[i] += step
                        var.load(bumped.reshape(value.shape), sess)
                        numeric.append(sess.run(loss))
                    var.load(value, sess)
                    np.testing.assert_allclose(grad.reshape(-1)[i],
                                               (numeric[0] - numeric[1]) / 2e-6,
                                               rtol=1e-4, atol=1e-6, err_msg=var.name)


def _monotonic_reference(p, previous):
    """The recurrence itself: ``q[i] = (1 - p[i-1]) q[i-1] + previous[i]``,
    ``attention[i] = p[i] q[i]``."""
    q = np.zeros_like(p)
    for i in range(p.shape[1]):
        q[:, i] = previous[:, i] + (q[:, i - 1] * (1 - p[:, i - 1]) if i else 0)
    return p * q


def test_monotonic_attention_modes():
    rng = np.random.RandomState(3)
    p = rng.uniform(0.05, 0.95, (3, 6)).astype(np.float32)
    previous = rng.dirichlet(np.ones(6), 3).astype(np.float32)
    hard_p = (rng.uniform(size=(3, 6)) > 0.5).astype(np.float32)
    hard_prev = np.eye(6, dtype=np.float32)[[0, 2, 4]]
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([monotonic_attention(p, previous, "recursive"),
                        monotonic_attention(p, previous, "parallel"),
                        monotonic_attention(hard_p, hard_prev, "hard")])
        with pytest.raises(ValueError, match="mode must be 'recursive', 'parallel', or 'hard'"):
            monotonic_attention(p, previous, "soft")
    want = _monotonic_reference(p, previous)
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], _monotonic_reference(hard_p, hard_prev), atol=0)


@pytest.mark.parametrize("cls", ["bahdanau", "luong"])
def test_monotonic_mechanisms_in_the_wrapper(cls):
    with tf.Graph().as_default():
        if cls == "bahdanau":
            m = BahdanauMonotonicAttention(3, MEMORY, memory_sequence_length=[5, 3],
                                           normalize=True, score_bias_init=-1.0)
            scope = "bahdanau_monotonic_attention"
        else:
            m = LuongMonotonicAttention(H, MEMORY, memory_sequence_length=[5, 3], scale=True,
                                        score_bias_init=-1.0)
            scope = "luong_monotonic_attention"
        cell = AttentionWrapper(tf.nn.rnn_cell.BasicRNNCell(H), m, alignment_history=True)
        first = cell.zero_state(B, tf.float32).alignments
        _, state = tf.nn.dynamic_rnn(cell, INPUTS, dtype=tf.float32)
        names = {v.op.name for v in tf.global_variables()}
        assert f"rnn/attention_wrapper/{scope}/attention_score_bias" in names
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first, history = sess.run([first, state.alignment_history.stack()])
    np.testing.assert_array_equal(first, np.eye(T_MEM, dtype=np.float32)[[0, 0]])
    assert history.shape == (T_IN, B, T_MEM)
    assert np.all(history[:, 1, 3:] == 0)  # past the memory's length: sigmoid(-inf) = 0
    assert np.all(history.sum(-1) <= 1 + 1e-6) and np.all(history >= 0)
