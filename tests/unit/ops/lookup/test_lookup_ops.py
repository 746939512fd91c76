"""``tf.lookup`` tables (scopeflow/ops/lookup/lookup_ops.py): NumPy references without
TensorFlow, and programs run under scopeflow and under live TF1 (the ``tf1`` fixture) that
must print the same graphs, values, static shapes and errors."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.strings import hashing

pytestmark = pytest.mark.filterwarnings("ignore::scopeflow.GraphGrowthWarning")

PRELUDE = '''
import numpy as np
def j(x):
    if isinstance(x, dict):
        return {k: j(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [j(v) for v in x]
    if isinstance(x, np.ndarray):
        return j(x.tolist())
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, np.generic):
        return x.item()
    return x
def err(e):
    if isinstance(e, tf.errors.OpError):
        lines = [ln for ln in str(e.message).splitlines() if ln and not ln.startswith("\\t")]
        return [type(e).__name__, lines[-1]]
    # a graph-construction error: its message up to the node TF (or scopeflow) names
    return [type(e).__name__, str(e).split(" for '")[0]]
def attempt(sess, fetch, **kw):
    try:
        return j(sess.run(fetch, **kw))
    except tf.errors.OpError as e:
        return err(e)
def build(fn):
    try:
        return fn()
    except Exception as e:
        return err(e)
'''


def both(tf1, code, files=None):
    """Runs ``code`` (setting ``result``) under scopeflow and under TF; both results.
    ``files``: {name: text}, written to a folder the program reaches as ``D``."""
    helpers = ""
    if files:
        import tempfile
        folder = tempfile.mkdtemp(prefix="sf_lookup_")
        for name, text in files.items():
            with open(f"{folder}/{name}", "w") as f:
                f.write(text)
        helpers = f"D = {folder!r}\n"
    body = PRELUDE + helpers + textwrap.dedent(code)
    tf.reset_default_graph()
    ns = {"tf": tf, "json": json}
    exec(compile(body, "<scopeflow program>", "exec"), ns)  # noqa: S102 - the test program
    got = json.loads(json.dumps(ns["result"]))
    want = tf1("tf.disable_eager_execution()\n" + body + "\nprint(json.dumps(result))\n")
    return got, want


VOCAB = {"v.txt": "emerson\t10\nlake\t20\npalmer\t30\n", "e.txt": "a b\n\nc d\n",
         "n.txt": "1 x\n2 y\nz 3\n", "f.txt": "k 1.5\nm -2e3\n"}


# ── Without TensorFlow ───────────────────────────────────────────────────────────────
def _fresh():
    tf.reset_default_graph()


def test_static_hash_table_values_shapes_and_default():
    _fresh()
    keys = np.array([b"a", b"b", b"c"], dtype=object)
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(keys, np.array([7, 8, 9], np.int64)), -1)
    q = tf.placeholder(tf.string, [None, 2])
    out = table.lookup(q)
    assert out.shape.as_list() == [None, 2] and out.dtype == tf.int64
    assert table[q].shape.as_list() == [None, 2]
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run(out, {q: [[b"a", b"zz"], [b"c", b"b"]]})
        assert sess.run(table.size()) == 3
    np.testing.assert_array_equal(got, [[7, -1], [9, 8]])


def test_lookup_before_initialization_fails_and_size_is_zero():
    _fresh()
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], [3, 4]), 0)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
            sess.run(table.lookup(tf.constant([1])))
        sess.run(table.initializer)
        sess.run(table.initializer)  # the same entries again: nothing to do
        np.testing.assert_array_equal(sess.run(table.lookup(tf.constant([2, 5]))), [4, 0])
    with tf.Session() as sess:  # a new session has a new (empty) table
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(table.lookup(tf.constant([1])))


def test_duplicate_keys_must_agree():
    _fresh()
    same = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b", "a"], [1, 2, 1]), -1)
    clash = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["x", "b", "a", "b", "a"], [0, 2, 1, 5, 6]), -1)
    with tf.Session() as sess:
        sess.run(same.initializer)
        assert sess.run(same.size()) == 2
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Key b has 2 and trying to add value 5"):
            sess.run(clash.initializer)


def test_vocabulary_table_buckets_are_fingerprint64():
    _fresh()
    words = [b"emerson", b"lake", b"palmer"]
    init = tf.lookup.KeyValueTensorInitializer(words, np.arange(3, dtype=np.int64))
    table = tf.lookup.StaticVocabularyTable(init, 5)
    queries = [b"lake", b"", b"king", b"crimson", b"palmer", b"yes"]
    ints = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(np.array([10, 20], np.int64),
                                            np.array([0, 1], np.int64)), 7,
        lookup_key_dtype=tf.int32)
    bare = tf.lookup.StaticVocabularyTable(None, 4)
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run(table.lookup(tf.constant(queries)))
        got_int = sess.run(ints.lookup(tf.constant([20, -3, 123456], tf.int32)))
        got_bare = sess.run(bare.lookup(tf.constant(queries)))
        sizes = sess.run([table.size(), ints.size(), bare.size()])
    want = [words.index(q) if q in words else 3 + hashing.fingerprint64(q) % 5
            for q in queries]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        got_int, [1] + [2 + hashing.fingerprint64(str(v).encode()) % 7 for v in (-3, 123456)])
    np.testing.assert_array_equal(got_bare, [hashing.fingerprint64(q) % 4 for q in queries])
    assert sizes == [8, 9, 4]


def test_text_file_initializer_columns_line_numbers_and_offset(tmp_path):
    _fresh()
    path = tmp_path / "v.txt"
    path.write_text(VOCAB["v.txt"])
    cols = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(path), tf.string, 0, tf.int64, 1, delimiter="\t"), -1)
    lines = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(path), tf.string, 0, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER,
        vocab_size=2, value_index_offset=5), -1)
    with tf.Session() as sess:
        sess.run(tf.initialize_all_tables())
        np.testing.assert_array_equal(
            sess.run(cols.lookup(tf.constant(["palmer", "x", "emerson"]))), [30, -1, 10])
        np.testing.assert_array_equal(
            sess.run(lines.lookup(tf.constant(["lake", "palmer"]))), [6, -1])


def test_tables_initializer_groups_the_collection():
    _fresh()
    assert tf.tables_initializer().type == "NoOp"
    tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1], [2]), 0)
    init = tf.initializers.tables_initializer()
    assert init.name == "init_all_tables_1"
    assert [op.type for op in init.control_inputs] == ["LookupTableImportV2"]
    assert [op.name for op in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)] == [
        "key_value_init/LookupTableImportV2"]


def test_lookup_is_not_differentiable():
    _fresh()
    default = tf.constant(0.5)
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer([1, 2], [1.0, 2.0]), default)
    assert tf.gradients(table.lookup(tf.constant([1, 3])), [default]) == [None]


# ── Against TensorFlow ───────────────────────────────────────────────────────────────
@pytest.mark.tf
def test_graphs_values_and_static_shapes_match_tf(tf1):
    got, want = both(tf1, """
        kv = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [7, 8, 9])
        t = tf.lookup.StaticHashTable(kv, -1, name="words")
        q = tf.placeholder(tf.string, [None, 2])
        u = tf.placeholder(tf.string)
        lk = [t.lookup(q), t[u], t.lookup(tf.constant("b"), name="one")]
        sp = tf.SparseTensor([[0, 0], [1, 1]], tf.constant(["c", "q"]), [2, 2])
        lsp = t.lookup(sp)
        ex = t.export()
        f = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([3, 1], tf.int64), [0.5, 1.5]), -2.0)
        s32 = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            [1, 2], ["one", "two"]), "?")
        v = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64)), 5)
        vi = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), 7,
            lookup_key_dtype=tf.int32, name="ids/")
        vb = tf.lookup.StaticVocabularyTable(None, 4)
        words = ["lake", "", "king", "crimson", "palmer", "yes", "a", "b", "c", "d",
                 "\\u00e9t\\u00e9", "x" * 40]
        out = [v.lookup(tf.constant(words)), vi.lookup(tf.constant([20, -3, 123456, 7])),
               vb.lookup(tf.constant(words)), v.size(), vi.size(), vb.size(),
               f.lookup(tf.constant([1, 2, 3], tf.int64)), s32.lookup(tf.constant([2, 0])),
               t.size(name="n")]
        init = tf.tables_initializer()
        g = tf.get_default_graph()
        ops = [[o.name, o.type, [i.name for i in o.inputs],
                [o2.name for o2 in o.control_inputs]] for o in g.get_operations()
               if o.type != "Const"]
        attrs = [[o.name, o.get_attr("key_dtype").name, o.get_attr("value_dtype").name,
                  o.get_attr("use_node_name_sharing"), j(o.get_attr("container"))]
                 for o in g.get_operations() if o.type == "HashTableV2"]
        static = [[x.dtype.name, str(x.shape)] for x in lk + list(ex) + out] + [
            lsp.values.shape.as_list(), t.name, v.name, vi.name, vb.name,
            [x.name for x in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)],
            init.name, t.key_dtype.name, t.value_dtype.name, v.key_dtype.name,
            vi.key_dtype.name, v.value_dtype.name, vb.resource_handle,
            t.default_value.name, t.resource_handle.name, t.initializer.name,
            vb.initializer.type]
        with tf.Session() as sess:
            sess.run(init)
            vals = [attempt(sess, lk, feed_dict={q: [["a", "zz"], ["c", "b"]],
                                                 u: [["c"], ["x"], ["a"]]}),
                    attempt(sess, lsp.values), attempt(sess, out),
                    sorted(zip(*attempt(sess, ex)))]
        result = [ops, attrs, static, vals]
    """)
    assert got == want


@pytest.mark.tf
def test_text_file_tables_match_tf(tf1):
    got, want = both(tf1, """
        T = tf.lookup.TextFileInitializer
        I = tf.lookup.TextFileIndex
        tabs = [tf.lookup.StaticHashTable(T(D + "/v.txt", tf.string, 0, tf.int64, 1), -1),
                tf.lookup.StaticHashTable(T(D + "/v.txt", tf.string, I.WHOLE_LINE,
                                            tf.int64, I.LINE_NUMBER), -1),
                tf.lookup.StaticHashTable(T(D + "/v.txt", tf.int64, I.LINE_NUMBER,
                                            tf.string, I.WHOLE_LINE), "?"),
                tf.lookup.StaticHashTable(T(D + "/v.txt", tf.string, 0, tf.int64,
                                            I.LINE_NUMBER, vocab_size=2,
                                            value_index_offset=5), -1),
                tf.lookup.StaticHashTable(T(D + "/n.txt", tf.string, 1, tf.int64, 0,
                                            delimiter=" ", vocab_size=2), -1),
                tf.lookup.StaticHashTable(T(D + "/f.txt", tf.string, 0, tf.float64, 1,
                                            delimiter=" "), 0.0),
                tf.lookup.StaticHashTable(T(D + "/f.txt", tf.string, 0, tf.float32, 1,
                                            delimiter=" ", vocab_size=2), 0.0),
                tf.lookup.StaticHashTable(T(D + "/v.txt", tf.string, 0, tf.string, 1,
                                            vocab_size=3, name="cols"), "none"),
                tf.lookup.StaticHashTable(T(tf.constant(D + "/v.txt"), tf.string, 0,
                                            tf.int32, 1), 0)]
        v = tf.lookup.StaticVocabularyTable(T(D + "/v.txt", tf.string, 0, tf.int64,
                                              I.LINE_NUMBER), 3)
        keys = [tf.constant(["lake", "x"]), tf.constant(["lake\\t20"]),
                tf.constant([0, 2, 7], tf.int64), tf.constant(["lake", "palmer"]),
                tf.constant(["x", "y", "z"]), tf.constant(["k", "m"]),
                tf.constant(["k", "m"]), tf.constant(["palmer"]), tf.constant(["lake"])]
        outs = [t.lookup(k) for t, k in zip(tabs, keys)] + [
            v.lookup(tf.constant(["palmer", "tarkus"])), v.size(), tabs[3].size()]
        g = tf.get_default_graph()
        ops = [[o.name, o.type, [i.name for i in o.inputs]] for o in g.get_operations()
               if o.type not in ("Const",)]
        attrs = [j([o.get_attr(a) for a in ("key_index", "value_index", "vocab_size",
                                            "delimiter", "offset")])
                 for o in g.get_operations() if o.type == "InitializeTableFromTextFileV2"]
        shared = [j(o.get_attr("shared_name")).replace(D, "D")
                  for o in g.get_operations() if o.type == "HashTableV2"]
        assets = [x.name for x in tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)]
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            vals = attempt(sess, outs)
        result = [ops, attrs, shared, assets, vals]
    """, files=VOCAB)
    assert len(got) == len(want)
    bad = [f"part {i}: {g} != {w}" for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, "\n".join(bad)


@pytest.mark.tf
def test_errors_match_tf(tf1):
    got, want = both(tf1, """
        K = tf.lookup.KeyValueTensorInitializer
        H = tf.lookup.StaticHashTable
        T = tf.lookup.TextFileInitializer
        res = []
        def run_err(make, fetch=lambda t: t.lookup(tf.constant(["a"])), init=True):
            g = tf.Graph()
            with g.as_default():
                t = build(make)
                if isinstance(t, list) and isinstance(t[0], str):
                    return t
                f = build(lambda: fetch(t))
                if isinstance(f, list) and isinstance(f[0], str):
                    return f
                with tf.Session() as sess:
                    if init:
                        r = attempt(sess, tf.tables_initializer())
                        if r is not None:
                            return r
                    return attempt(sess, f)
        res.append(run_err(lambda: H(K(["a"], [1]), -1), init=False))
        res.append(run_err(lambda: H(K(["a"], [1]), -1), lambda t: t.size(), init=False))
        res.append(run_err(lambda: H(K(["a"], [1]), -1), lambda t: t.export(), init=False))
        res.append(run_err(lambda: H(K(["a", "b", "a"], [1, 2, 3]), -1)))
        res.append(run_err(lambda: H(K([4, 2, 4], [1.5, 2.0, 2.5]), -1.0),
                           lambda t: t.lookup(tf.constant([4]))))
        res.append(run_err(lambda: H(K(["a", "a"], [1, 1]), -1)))
        res.append(run_err(lambda: H(K(["a", "b"], [1, 2, 3]), -1)))
        res.append(run_err(lambda: H(K([["a", "b"]], [[1, 2]]), -1)))
        res.append(run_err(lambda: H(K(["a", "b"], [1, 2]), -1),
                           lambda t: t.lookup(tf.constant([1]))))
        res.append(run_err(lambda: H(K(["a", "b"], [1, 2]), 1.5)))
        res.append(run_err(lambda: H(K(["a", "b"], [1, 2]), [1, 2])))
        res.append(run_err(lambda: H(K([1.5, 2.5], [1, 2]), -1),
                           lambda t: t.lookup(tf.constant([1.5]))))
        res.append(run_err(lambda: H(K([True], [1]), -1),
                           lambda t: t.lookup(tf.constant([True]))))
        res.append(run_err(lambda: H(K([1], [1]), -1),
                           lambda t: t.lookup(tf.constant([1], tf.int64))))
        def shared_types():
            # two tables of one file read the same way share the table: of other types
            # the second fails
            g = tf.Graph()
            with g.as_default():
                a = H(T(D + "/v.txt", tf.string, 0, tf.int64, 1), -1)
                b = H(T(D + "/v.txt", tf.string, 0, tf.string, 1), "")
                with tf.Session() as sess:
                    return [attempt(sess, a.size()), attempt(sess, b.size())]
        res.append(shared_types())
        for args, kw in [((D + "/v.txt", tf.string, 0, tf.int64, -1), {"vocab_size": 5}),
                         ((D + "/v.txt", tf.string, 0, tf.int64, 3), {}),
                         ((D + "/v.txt", tf.int64, 0, tf.int64, 1), {}),
                         ((D + "/v.txt", tf.string, 1, tf.int32, 0), {}),
                         ((D + "/f.txt", tf.string, 1, tf.float32, 0), {"delimiter": " "}),
                         ((D + "/f.txt", tf.string, 0, tf.float64, 0), {"delimiter": " "}),
                         ((D + "/nope.txt", tf.string, 0, tf.int64, 1), {}),
                         ((D + "/e.txt", tf.string, 0, tf.string, 1), {"delimiter": " "}),
                         ((D + "/v.txt", tf.string, 0, tf.int64, 1), {"delimiter": "ab"}),
                         (("", tf.string, 0, tf.int64, 1), {}),
                         ((D + "/v.txt", tf.string, -3, tf.int64, 1), {}),
                         ((D + "/v.txt", tf.string, 0, tf.int64, -3), {}),
                         ((D + "/v.txt", tf.int32, -1, tf.int64, 1), {}),
                         ((D + "/v.txt", tf.string, 0, tf.int32, -1), {}),
                         ((D + "/v.txt", tf.float32, -2, tf.int64, 1), {}),
                         ((D + "/v.txt", tf.string, 0, tf.bool, -2), {}),
                         ((D + "/v.txt", tf.string, 0, tf.int64, 1), {"vocab_size": 0})]:
            res.append(run_err(lambda: H(T(*args, **kw), -1 if args[3] != tf.string else ""),
                               lambda t: t.size()))
        V = tf.lookup.StaticVocabularyTable
        i64 = lambda x: tf.constant(x, tf.int64)
        res.append(run_err(lambda: V(K(["a"], [0]), 4)))
        res.append(run_err(lambda: V(K(["a"], i64([0])), 0)))
        res.append(run_err(lambda: V(K([1], i64([0])), 2)))
        res.append(run_err(lambda: V(K(i64([1]), i64([0])), 2, lookup_key_dtype=tf.string)))
        res.append(run_err(lambda: V(K(["a"], i64([0])), 2, lookup_key_dtype=tf.float32)))
        res.append(run_err(lambda: V(K(["a"], i64([0])), 2),
                           lambda t: t.lookup(tf.constant([1]))))
        res.append(run_err(lambda: V(None, 2), lambda t: t.lookup(tf.constant([1]))))
        def reinit():
            g = tf.Graph()
            with g.as_default():
                k = tf.placeholder(tf.string, [None])
                t = H(K(k, [1, 2]), -1)
                with tf.Session() as sess:
                    out = [attempt(sess, t.initializer, feed_dict={k: ["a", "b"]}),
                           attempt(sess, t.initializer, feed_dict={k: ["b", "a"]}),
                           attempt(sess, t.initializer, feed_dict={k: ["c", "d"]}),
                           attempt(sess, t.lookup(tf.constant(["a", "c"])))]
                return out
        res.append(reinit())
        def grads():
            g = tf.Graph()
            with g.as_default():
                d = tf.constant(0.5)
                k = tf.constant([1, 2])
                t = H(K(k, [1.0, 2.0]), d)
                v = tf.lookup.StaticVocabularyTable(None, 3)
                s = tf.constant(["a"])
                return [x is None for x in tf.gradients(t.lookup(k) * 2.0, [d])] + [
                    x is None for x in tf.gradients(tf.cast(v.lookup(s), tf.float32), [s])]
        res.append(build(grads))
        result = res
    """, files=VOCAB)
    assert len(got) == len(want)
    bad = [f"case {i}: {g} != {w}" for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, "\n".join(bad)


@pytest.mark.tf
def test_file_details_empty_tables_and_tables_in_cond_match_tf(tf1):
    got, want = both(tf1, """
        def run(make, keys):
            g = tf.Graph()
            with g.as_default():
                t = build(make)
                if isinstance(t, list):
                    return t
                out = t.lookup(keys())
                with tf.Session() as s:
                    r = attempt(s, tf.tables_initializer())
                    return r if r is not None else attempt(s, [out, t.size()])
        T = tf.lookup.TextFileInitializer
        H = tf.lookup.StaticHashTable
        K = tf.lookup.KeyValueTensorInitializer
        res = [
            run(lambda: H(T(D + "/v.txt", tf.string, 0, tf.int64, 1, value_index_offset=5),
                          -1), lambda: tf.constant(["lake"])),
            run(lambda: H(T(D + "/v.txt", tf.string, 0, tf.int32, 1, value_index_offset=3),
                          -1), lambda: tf.constant(["lake"])),
            run(lambda: H(T(D + "/crlf.txt", tf.string, 0, tf.int64, 1), -1),
                lambda: tf.constant(["a", "b"])),
            run(lambda: H(T(D + "/dup.txt", tf.string, 0, tf.int64, 1, delimiter=" "), -1),
                lambda: tf.constant(["x"])),
            run(lambda: H(T(D + "/dup.txt", tf.string, 0, tf.int64, -1, delimiter=" "), -1),
                lambda: tf.constant(["x"])),
            run(lambda: H(T(D + "/ints.txt", tf.int64, -2, tf.int64, -1), -1),
                lambda: tf.constant([34, 12, 5], tf.int64)),
            run(lambda: H(T(D + "/ints.txt", tf.int32, -2, tf.int64, -1), -1),
                lambda: tf.constant([34, 12, 5], tf.int32)),
            run(lambda: H(T(D + "/nonl.txt", tf.string, 0, tf.int32, 1), -1),
                lambda: tf.constant(["b"])),
            run(lambda: H(T(D + "/v.txt", tf.string, 0, tf.string, 1, vocab_size=1), ""),
                lambda: tf.constant(["emerson", "lake"])),
            run(lambda: H(K(["\\u00e9", "b"], [1, 2]), -1), lambda: tf.constant(["\\u00e9"])),
            run(lambda: H(K(np.zeros(0, object), np.zeros(0, np.int64),
                            key_dtype=tf.string), -1), lambda: tf.constant(["a"])),
            run(lambda: H(K(["a", "b"], [True, False]), False),
                lambda: tf.constant(["b", "q"])),
        ]
        g = tf.Graph()
        with g.as_default():
            p = tf.placeholder(tf.bool)
            def f():
                t = H(K(["a"], [1]), -1)
                return t.lookup(tf.constant(["a"]))
            o = tf.cond(p, f, lambda: tf.constant([0]))
            names = [[op.name, op.type] for op in g.get_operations()
                     if "Lookup" in op.type or "Table" in op.type]
            with tf.Session() as s:
                s.run(tf.tables_initializer())
                res.append([names, attempt(s, o, feed_dict={p: True})])
        result = res
    """, files={**VOCAB, "crlf.txt": "a\t1\r\nb\t2\r\n", "dup.txt": "x 5\ny 6\nx 7\n",
                "ints.txt": "12\n34\n", "nonl.txt": "a\t1\nb\t2"})
    assert len(got) == len(want)
    bad = [f"case {i}: {g} != {w}" for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, "\n".join(bad)
