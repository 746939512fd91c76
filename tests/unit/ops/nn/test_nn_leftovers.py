"""The fake-quantization ops (tf.fake_quant_with_min_max_*, issue 35).

NumPy checks (the op-table rows in tests/ops/rows_nn_leftovers.py check values against an
independent reference) plus behaviour without TensorFlow, and one live program run under
scopeflow and under TF 2.21 comparing values bit for bit, gradients, op and tensor names,
static shapes (with unknown dims), and error classes and messages.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

PROGRAM = textwrap.dedent('''
    X = np.array([[-3, -1.25, 0.1], [0.33, 1.6, 2.5], [1.04, 5, -0.02], [0.0, -0.7, 0.55]],
                 np.float32)
    XR = (np.random.RandomState(0).randn(60, 3) * 2).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3])
    a = tf.fake_quant_with_min_max_args(x, min=-1.3, max=2.1, num_bits=5)
    v = tf.fake_quant_with_min_max_vars(x, -1.0, 1.5)
    p = tf.fake_quant_with_min_max_vars_per_channel(x, [-1., -2., 0.5], [1., 2., 3.])
    n = tf.fake_quant_with_min_max_vars(x, 0.2, 1.7, narrow_range=True, num_bits=3)
    d = tf.fake_quant_with_min_max_args(x)
    bad = tf.fake_quant_with_min_max_vars(x, 2., 1.)
    g = tf.gradients([a, v, p, n], [x] + list(v.op.inputs[1:]) + list(p.op.inputs[1:]))
    gg = tf.fake_quant_with_min_max_vars_gradient(x * 2, x, 0, 1)
    gp = tf.fake_quant_with_min_max_vars_per_channel_gradient(x * 3, x, [0., -1, 0],
                                                              [1., 1, 1], narrow_range=True)
    ga = tf.fake_quant_with_min_max_args_gradient(x * 3, x, min=-0.5, max=0.7,
                                                  narrow_range=True)
    ts = [a, v, p, n, d, bad] + g + list(gg) + list(gp) + [ga]
    out = {"names": [t.name for t in ts] + [i.name for i in gg[0].op.inputs],
           "types": [t.op.type for t in ts],
           "shapes": [str(t.shape) for t in ts],
           "fields": list(type(gp)._fields),
           "attrs": [a.op.get_attr("min"), a.op.get_attr("num_bits"),
                     d.op.get_attr("max"), n.op.get_attr("narrow_range")]}
    s = tf.Session()
    out["vals"] = [np.asarray(r).tolist() for r in s.run(ts, {x: X})]
    out["rvals"] = [np.asarray(r).tolist() for r in s.run(ts, {x: XR})]
    errs = []
    for f in [lambda: tf.fake_quant_with_min_max_vars(x, [0.], [1.]),
              lambda: tf.fake_quant_with_min_max_vars_per_channel(x, [0., 0], [1., 1]),
              lambda: tf.fake_quant_with_min_max_args(tf.zeros([2], tf.float64)),
              lambda: tf.fake_quant_with_min_max_vars_per_channel(tf.zeros([]), [1.], [2.]),
              lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(
                  x, x, [0., 0], [1., 1]),
              lambda: tf.fake_quant_with_min_max_vars_gradient(x, tf.zeros([2, 2]), 0., 1.)]:
        try:
            f()
            errs.append("ok")
        except Exception as e:
            errs.append(type(e).__name__ + ": " + str(e)[:28])
    for f in [lambda: tf.fake_quant_with_min_max_args(x, min=2., max=1.),
              lambda: tf.fake_quant_with_min_max_args(x, num_bits=1),
              lambda: tf.fake_quant_with_min_max_vars(x, 0., 1., num_bits=17),
              lambda: tf.fake_quant_with_min_max_vars_per_channel_gradient(x, x, [0.] * 3,
                                                                           [1.] * 3,
                                                                           num_bits=1)]:
        try:
            s.run(f(), {x: X})
            errs.append("ok")
        except Exception as e:
            errs.append(type(e).__name__ + ": " + [ln for ln in e.message.split("\\n")
                                                    if "num_bits" in ln or "min has" in ln][0])
    out["errs"] = errs
    u = tf.placeholder(tf.float32)
    out["ushapes"] = [str(t.shape) for t in [
        tf.fake_quant_with_min_max_vars_per_channel(u, [1., 2], [3., 4]),
        tf.fake_quant_with_min_max_vars_per_channel(tf.placeholder(tf.float32, [None, None]),
                                                    u, [3., 4]),
        tf.fake_quant_with_min_max_vars(u, 0., 1.)]
        + list(tf.fake_quant_with_min_max_vars_per_channel_gradient(u, u, u, [1., 2.]))]
    print(json.dumps(out))
''')


def _run_scopeflow():
    import contextlib
    import io
    buf = io.StringIO()
    with tf.Graph().as_default(), contextlib.redirect_stdout(buf):
        exec(PROGRAM, {"tf": tf, "np": np, "json": json})
    return json.loads(buf.getvalue().splitlines()[-1])


def test_fake_quant_matches_tf(tf1):
    want = tf1("tf.disable_v2_behavior()\n" + PROGRAM)
    got = _run_scopeflow()
    for key in ("vals", "rvals"):
        for i, (w, g) in enumerate(zip(want[key], got[key])):
            g, w = np.array(g), np.array(w)
            if g.ndim >= 2:   # elementwise results: bit for bit
                np.testing.assert_array_equal(g, w, err_msg=f"{key}[{i}]")
            else:             # min/max backprops: float32 sums (summation order differs)
                np.testing.assert_allclose(g, w, rtol=2e-7, err_msg=f"{key}[{i}]")
    for key in ("names", "types", "shapes", "fields", "attrs", "ushapes"):
        assert got[key] == want[key], key
    for w, g in zip(want["errs"], got["errs"]):
        assert g.split(":")[0] == w.split(":")[0], (g, w)
    assert got["errs"][4:] == want["errs"][4:]   # TF's run-time messages, word for word
    assert got["errs"][:1] == want["errs"][:1]


def test_fake_quant_values_without_tf():
    x = np.array([-7.0, -6.0, -0.02, 0.0, 0.03, 5.99, 6.2], np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        out = s.run(tf.fake_quant_with_min_max_args(x))
        lo, hi = tf.constant(-1.0), tf.constant(1.0)
        y = tf.fake_quant_with_min_max_vars(tf.constant(x / 6), lo, hi, num_bits=2)
        grads = s.run(tf.gradients(tf.reduce_sum(y * 3.0), [lo, hi]))
    step = np.float32(12 / 255)
    # [-6, 6]: zero point 127.5 rounds (in float32) to 128, so the nudged range is
    # [-128, 127] steps; zero stays exact, -7 clamps to the bottom level, 6.2 to the top.
    np.testing.assert_allclose(out[[0, 6]], [-128 * step, 127 * step], rtol=1e-6)
    assert out[3] == 0.0 and abs(out[4] - step) < 1e-6 and abs(out[2]) < 1e-6
    # 2 bits: zero point 1.5 rounds to 2, the nudged range [-4/3, 2/3]; 5.99/6 and 6.2/6
    # lie above it, so their gradient (3 each) goes to max.
    assert grads == [0.0, 6.0]


def test_fake_quant_errors_without_tf():
    with tf.Graph().as_default(), tf.Session() as s:
        with pytest.raises(errors.InvalidArgumentError, match="min has to be smaller"):
            s.run(tf.fake_quant_with_min_max_args([1.0], min=1.0, max=1.0))
        with pytest.raises(TypeError, match="expected type of float32"):
            tf.fake_quant_with_min_max_vars(np.zeros(2), 0.0, 1.0)
        with pytest.raises(ValueError, match="rank 1"):
            tf.fake_quant_with_min_max_vars_per_channel([[1.0]], 0.0, 1.0)
        x = tf.constant([1.0])  # TF registers the ...Gradient ops as not differentiable
        assert tf.gradients(tf.fake_quant_with_min_max_args_gradient(x, x), x) == [None]


# ── tf.nn.safe_embedding_lookup_sparse ──────────────────────────────────────────────
SAFE_PROGRAM = textwrap.dedent('''
    P = np.arange(12, dtype=np.float32).reshape(6, 2) / 4
    params = tf.constant(P)
    idx = [[0, 0], [0, 1], [1, 0], [3, 0], [3, 2]]
    ids = tf.SparseTensor(idx, tf.constant([1, 3, -1, 5, 2], tf.int64), [4, 3])
    w = tf.SparseTensor(idx, [2.0, 0.5, 1.0, -1.0, 3.0], [4, 3])
    ids3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 1, 0]], tf.constant([4, 0, 2], tf.int64),
                           [2, 2, 2])
    ph = tf.sparse_placeholder(tf.int64)
    nn = tf.nn
    r = [nn.safe_embedding_lookup_sparse(params, ids),
         nn.safe_embedding_lookup_sparse(params, ids, w),
         nn.safe_embedding_lookup_sparse(params, ids, w, combiner="sum", default_id=4),
         nn.safe_embedding_lookup_sparse([params[:3], params[3:]], ids, w, combiner="sqrtn"),
         nn.safe_embedding_lookup_sparse(params, ids3, name="hi"),
         nn.safe_embedding_lookup_sparse(params, ids, default_id=0, max_norm=1.0)]
    u = nn.safe_embedding_lookup_sparse(params, ph)
    g = tf.gradients(r[1], params)[0]
    out = {"names": [t.name for t in r + [u]], "shapes": [str(t.shape) for t in r + [u]],
           "types": sorted({o.type for o in tf.get_default_graph().get_operations()}),
           "gtype": type(g).__name__}
    s = tf.Session()
    out["vals"] = [v.tolist() for v in s.run(r)]
    out["g"] = np.asarray(s.run(tf.convert_to_tensor(g))).tolist()
    out["u"] = s.run(u, {ph: tf.SparseTensorValue([[0, 0, 1]], [3], [2, 1, 2])}).tolist()
    errs = []
    for f in [lambda: nn.safe_embedding_lookup_sparse(None, ids),
              lambda: nn.safe_embedding_lookup_sparse([], ids)]:
        try:
            f()
            errs.append("ok")
        except Exception as e:
            errs.append(type(e).__name__ + ": " + str(e))
    out["errs"] = errs
    print(json.dumps(out))
''')


def _run_scopeflow_program(program):
    import contextlib
    import io
    buf = io.StringIO()
    with tf.Graph().as_default(), contextlib.redirect_stdout(buf):
        exec(program, {"tf": tf, "np": np, "json": json})
    return json.loads(buf.getvalue().splitlines()[-1])


def test_safe_embedding_lookup_sparse_matches_tf(tf1):
    want = tf1("tf.disable_v2_behavior()\n" + SAFE_PROGRAM)
    got = _run_scopeflow_program(SAFE_PROGRAM)
    assert got == want


def test_safe_embedding_lookup_sparse_numpy():
    got = _run_scopeflow_program(SAFE_PROGRAM)
    P = np.arange(12, dtype=np.float32).reshape(6, 2) / 4
    zero = [0.0, 0.0]
    # mean without weights: row 0 averages ids 1, 3; row 1's only id is -1 (dropped);
    # row 3 averages ids 5, 2; empty rows are zeros.
    np.testing.assert_allclose(got["vals"][0], [(P[1] + P[3]) / 2, zero, zero,
                                                (P[5] + P[2]) / 2], rtol=1e-6)
    # weighted mean: weight -1 (id 5) is dropped, so row 3 is P[2].
    np.testing.assert_allclose(got["vals"][1], [(2 * P[1] + .5 * P[3]) / 2.5, zero, zero,
                                                P[2]], rtol=1e-6)
    # "sum" keeps the negative weight; empty rows take default_id 4's embedding.
    np.testing.assert_allclose(got["vals"][2], [2 * P[1] + .5 * P[3], P[4], P[4],
                                                -P[5] + 3 * P[2]], rtol=1e-6)
    # rank 3 ids: the result is [2, 2, dim]
    np.testing.assert_allclose(got["vals"][4], [[P[4], P[0]], [zero, P[2]]], rtol=1e-6)
    assert got["shapes"][-1] == "<unknown>" and got["shapes"][4] == "(2, 2, 2)"
    assert got["errs"] == ["ValueError: Missing embedding_weights None.",
                           "ValueError: Missing embedding_weights [].",]


# ── tf.nn.ctc_unique_labels ──────────────────────────────────────────────────────────
UNIQUE_PROGRAM = textwrap.dedent('''
    ph = tf.placeholder(tf.int32, [None, None])
    r = [tf.nn.ctc_unique_labels([[3, 4, 4, 3], [1, 1, 0, 0], [5, 6, 7, 5]]),
         tf.nn.ctc_unique_labels(tf.constant([[2, 2, 2]], tf.int64), name="u"),
         tf.nn.ctc_unique_labels(ph)]
    out = {"scopes": [[t.name.split("/")[0] for t in x] for x in r],
           "shapes": [[str(t.shape) for t in x] for x in r],
           "dtypes": [[t.dtype.name for t in x] for x in r], "type": type(r[0]).__name__}
    s = tf.Session()
    out["vals"] = [[v.tolist() for v in s.run(x)] for x in r[:2]]
    out["ph"] = [v.tolist() for v in s.run(r[2], {ph: [[9, 8, 9], [0, 0, 7]]})]
    print(json.dumps(out))
''')


def test_ctc_unique_labels_matches_tf(tf1):
    # Tensor names below the scope are map_fn's (TF's TensorArrayStack/TensorArrayGatherV3
    # vs scopeflow's TensorArrayStack): compared by scope only.
    want = tf1("tf.disable_v2_behavior()\n" + UNIQUE_PROGRAM)
    assert _run_scopeflow_program(UNIQUE_PROGRAM) == want


def test_ctc_unique_labels_numpy():
    got = _run_scopeflow_program(UNIQUE_PROGRAM)
    labels = np.array([[3, 4, 4, 3], [1, 1, 0, 0], [5, 6, 7, 5]])
    for row, uniq, idx in zip(labels, *got["vals"][0]):
        first = list(dict.fromkeys(row.tolist()))       # distinct, in order of appearance
        assert uniq == first + [0] * (len(row) - len(first))
        assert [first[i] for i in idx] == row.tolist()
    assert got["ph"] == [[[9, 8, 0], [0, 7, 0]], [[0, 1, 0], [0, 0, 1]]]
    assert got["dtypes"][0] == ["int64", "int32"] and got["shapes"][2] == ["(?, ?)"] * 2


# ── tf.nn.ctc_beam_search_decoder / _v2 ─────────────────────────────────────────────
BEAM_PROGRAM = textwrap.dedent('''
    rng = np.random.RandomState(3)
    SL = np.array([6, 4, 2], np.int32)
    x = tf.placeholder(tf.float32, [None, 3, 4])
    outs = [tf.nn.ctc_beam_search_decoder(x, SL, beam_width=3, top_paths=2),
            tf.nn.ctc_beam_search_decoder(x, SL, beam_width=10, top_paths=3,
                                          merge_repeated=False),
            tf.nn.ctc_beam_search_decoder_v2(x, SL, beam_width=1)]
    res = {"shapes": [[str(t.shape) for sp in d for t in (sp.indices, sp.values,
                                                         sp.dense_shape)] + [str(lp.shape)]
                      for d, lp in outs],
           "names": [[sp.indices.name for sp in d] + [lp.name] for d, lp in outs],
           "types": [outs[0][1].op.type, outs[0][1].dtype.name]}
    s = tf.Session()
    vals, lps = [], []
    for scale in (2, 3, 0.5):
        r = s.run(outs, {x: rng.randn(6, 3, 4).astype(np.float32) * scale})
        vals.append([[[sp.indices.tolist(), sp.values.tolist(), sp.dense_shape.tolist()]
                      for sp in d] for d, lp in r])
        lps.append([lp.tolist() for d, lp in r])
    res["vals"], res["lps"] = vals, lps
    d64, lp64 = tf.nn.ctc_beam_search_decoder(tf.constant(rng.randn(5, 2, 6)), [5, 3],
                                              beam_width=4, top_paths=2)
    r = s.run([d64[1].values, lp64])
    res["f64"] = [r[0].tolist(), r[1].tolist(), lp64.dtype.name]
    errs = []
    for f in [lambda: s.run(tf.nn.ctc_beam_search_decoder(x, [6, 4, 0], top_paths=2)[1],
                            {x: np.zeros([6, 3, 4], np.float32)}),
              lambda: tf.nn.ctc_beam_search_decoder(x, [6, 4]),
              lambda: tf.nn.ctc_beam_search_decoder(tf.zeros([2, 3]), [1, 1])]:
        try:
            f()
            errs.append("ok")
        except Exception as e:
            errs.append(type(e).__name__)
    res["errs"] = errs
    try:
        tf.gradients(outs[0][1], x)
        res["grad"] = "ok"
    except Exception as e:
        res["grad"] = type(e).__name__
    print(json.dumps(res))
''')


def test_ctc_beam_search_decoder_matches_tf(tf1):
    # Random logits (no ties): TF's heap breaks ties between equal beams its own way.
    want = tf1("tf.disable_v2_behavior()\n" + BEAM_PROGRAM)
    got = _run_scopeflow_program(BEAM_PROGRAM)
    for key in ("shapes", "names", "types", "vals", "errs", "grad"):
        assert got[key] == want[key], key
    for g, w in zip(got["lps"], want["lps"]):
        for gi, wi in zip(g, w):
            np.testing.assert_allclose(gi, wi, rtol=1e-5)
    assert got["f64"][0] == want["f64"][0] and got["f64"][2] == want["f64"][2]
    np.testing.assert_allclose(got["f64"][1], want["f64"][1], rtol=1e-7)  # TF: ~3e-9


def _brute_best(x, merge):
    """The most probable label sequence by summing over all frame paths (exact)."""
    import itertools
    n_t, n_c = x.shape
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    scores = {}
    for path in itertools.product(range(n_c), repeat=n_t):
        seq, prev = [], None
        for c in path:
            if c != n_c - 1 and c != prev:
                seq.append(c)
            prev = c
        scores[tuple(seq)] = scores.get(tuple(seq), 0.0) + np.prod(p[np.arange(n_t), path])
    best = max(scores, key=scores.get)
    return list(best), np.log(scores[best])


def test_ctc_beam_search_wide_beam_is_exact():
    """With a beam wider than every prefix, the search is exact: the best sequence and
    its log probability equal the brute-force sum over all alignments."""
    rng = np.random.RandomState(7)
    x = rng.randn(4, 2, 3).astype(np.float64)
    with tf.Graph().as_default(), tf.Session() as s:
        (d,), lp = tf.nn.ctc_beam_search_decoder(tf.constant(x), [4, 4], beam_width=64)
        dense, lp = s.run([tf.sparse.to_dense(d, default_value=-1), lp])
    for b in range(2):
        seq, logp = _brute_best(x[:, b], True)
        assert [c for c in dense[b] if c >= 0] == seq
        np.testing.assert_allclose(lp[b, 0], logp, rtol=1e-10)
