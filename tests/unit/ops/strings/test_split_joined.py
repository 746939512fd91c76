"""StringSplit / StringSplitV2 split all strings in one joined C call; empty strings,
neighbouring delimiters, several delimiter bytes and whitespace runs keep TF's tokens."""

import inspect

import scopeflow as tf

WORDS = [b"a_b", b"", b"_", b"__x_", b"a b", b" lead  trail ", b"\tx\ny", b"q,w_e", b"", b"z"]
CASES = [("v1", "_", True), ("v1", "_", False), ("v1", "_,", True), ("v1", " ", False),
         ("v2", "_", -1), ("v2", None, -1), ("v2", ",_", -1), ("v2", "_", 1)]


def _run(mod, words, cases):
    x = mod.constant(words)
    sps = [mod.string_split(x, sep, skip_empty=arg) if kind == "v1"
           else mod.strings.split(x, sep, maxsplit=arg) for kind, sep, arg in cases]
    with mod.Session() as sess:
        got = sess.run([(sp.indices, sp.values, sp.dense_shape) for sp in sps])
    return [[i.tolist(), [t.decode("latin-1") for t in v], s.tolist()] for i, v, s in got]


def test_tokens_and_positions():
    skip, keep = _run(tf, WORDS, CASES[:2])
    assert skip[1] == ["a", "b", "x", "a b", " lead  trail ", "\tx\ny", "q,w", "e", "z"]
    assert skip[0][:4] == [[0, 0], [0, 1], [3, 0], [4, 0]] and skip[2] == [10, 2]
    assert keep[1][:8] == ["a", "b", "", "", "", "", "x", ""]   # "" itself has no tokens
    assert keep[0][2:8] == [[2, 0], [2, 1], [3, 0], [3, 1], [3, 2], [3, 3]]
    assert keep[2] == [10, 4]


def test_against_tf(tf1):
    src = inspect.getsource(_run)
    want = tf1("import json, tensorflow.compat.v1 as tf; tf.disable_v2_behavior()\n" + src +
               f"\nprint(json.dumps(_run(tf, {WORDS!r}, {CASES!r})))")
    assert _run(tf, WORDS, CASES) == want
