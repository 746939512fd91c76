"""assert_near, assert_rank_in, assert_proper_iterable, assert_same_float_dtype and
is_numeric_tensor: TF's verdicts and messages (one program under scopeflow and TF 2.21)."""

import textwrap

PROGRAM = textwrap.dedent('''
out = {}
x = tf.constant([1.0, 2.0]); p = tf.placeholder(tf.float32)
ops = {"near_ok": tf.assert_near(x, x + 1e-7), "near_bad": tf.debugging.assert_near(x, x + 1.0, message="m"),
       "rank_in_dyn": tf.debugging.assert_rank_in(p, [1, 2])}
out["names"] = {k: v.name for k, v in ops.items()}
with tf.Session() as s:
    for k, v in ops.items():
        try:
            s.run(v, {p: np.zeros((2, 2, 2), np.float32)}); out[k] = "ok"
        except tf.errors.InvalidArgumentError as e:
            out[k] = "InvalidArgumentError"
try:
    tf.debugging.assert_rank_in(x, [0, 2], message="msg")
except ValueError as e:
    out["static"] = str(e)
out["ok_static"] = tf.debugging.assert_rank_in(x, [1, 3]).type
errs = []
for v in ("ab", np.zeros(2), x, 5):
    try:
        tf.debugging.assert_proper_iterable(v); errs.append("ok")
    except TypeError as e:
        errs.append(str(e))
tf.debugging.assert_proper_iterable([1]); out["iter"] = errs
out["same_float"] = [tf.debugging.assert_same_float_dtype([x]).name, tf.debugging.assert_same_float_dtype().name]
try:
    tf.debugging.assert_same_float_dtype([x, tf.constant([1.0], tf.float64)])
except ValueError as e:
    out["same_float_err"] = str(e)
try:
    tf.debugging.assert_same_float_dtype([tf.constant(1)])
except ValueError as e:
    out["int_err"] = str(e)
out["numeric"] = [tf.debugging.is_numeric_tensor(t) for t in (x, tf.constant(True), tf.constant("a"), 3)]
print(json.dumps(out))
''')


def test_verdicts_without_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    assert [got["near_ok"], got["near_bad"], got["rank_in_dyn"]] == [
        "ok", "InvalidArgumentError", "InvalidArgumentError"]
    assert got["numeric"] == [True, False, False, False]


def test_matches_tf(tf1, scopeflow_run):
    want, got = tf1(PROGRAM), scopeflow_run(PROGRAM)
    for key in ("near_ok", "near_bad", "rank_in_dyn", "static", "ok_static", "same_float",
                "int_err", "numeric"):
        assert got[key] == want[key], key
    # The class named in the third message is TF's own tensor class, and DType's repr
    # differs (tf.float64 vs <dtype: 'float64'>); the rest of the words are TF's.
    assert got["iter"][:2] + got["iter"][3:] == want["iter"][:2] + want["iter"][3:]
    assert got["same_float_err"].split(",")[0] == want["same_float_err"].split(",")[0]
