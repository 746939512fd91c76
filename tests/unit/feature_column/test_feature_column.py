"""tf.feature_column (TF1's columns, input_layer, linear_model) against TF 2.21's compat.v1.

The same program runs on scopeflow and on TF (the ``tf1`` fixture): outputs, variable
names and shapes, and seeded embedding initial values must agree; the NumPy checks below
need no TensorFlow.
"""

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf

PROGRAM = textwrap.dedent('''
def run_cases(tf):
    import os
    import tempfile
    fc = tf.feature_column
    vocab_file = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(vocab_file, "w") as f:
        f.write("bb\\nzz\\na\\nq\\n")
    out, names, shapes = {}, {}, {}
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        ids = tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]],
                              tf.constant([1, 2, 0, 3], tf.int64), [4, 2])
        weights = tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]],
                                  tf.constant([0.5, 2.0, -1.5, 3.0]), [4, 2])
        words = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 1]],
                                tf.constant(["a", "bb", "a", "zz"]), [4, 3])
        feats = {
            "price": tf.constant([1.0, 2.0, 3.0, 4.0]),           # rank 1: expanded
            "xy": tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]]),   # int, shape 2
            "ids": ids, "w": weights, "words": words,
            "dense_ids": tf.constant([[1, -1], [-1, -1], [0, 5], [2, 2]], tf.int64),
            "int_keys": tf.constant([[10, 7], [-1, 3], [100, -1], [0, 12345]], tf.int64),
            "colors": tf.constant([["red", ""], ["blue", "pink"], ["", ""], ["x", "red"]]),
            "codes": tf.constant([[3, 40], [7, -1], [-1, -1], [40, 5]]),
        }
        colors = fc.categorical_column_with_vocabulary_list("colors", ["red", "blue"],
                                                            num_oov_buckets=3)
        codes = fc.categorical_column_with_vocabulary_list("codes", [40, 7, 3],
                                                           default_value=1)
        from_file = fc.categorical_column_with_vocabulary_file("words", vocab_file,
                                                               vocabulary_size=3)
        from_file_oov = fc.categorical_column_with_vocabulary_file("words", vocab_file,
                                                                   num_oov_buckets=2)
        price = fc.numeric_column("price", normalizer_fn=lambda x: x * 2.0)
        xy = fc.numeric_column("xy", shape=(2,))
        idc = fc.categorical_column_with_identity("ids", 4)
        dense_id = fc.categorical_column_with_identity("dense_ids", 4, default_value=3)
        hashed = fc.categorical_column_with_hash_bucket("words", 10)
        int_hashed = fc.categorical_column_with_hash_bucket("int_keys", 7, dtype=tf.int64)
        weighted = fc.weighted_categorical_column(idc, "w")
        cols = [price, xy, fc.indicator_column(idc), fc.indicator_column(dense_id),
                fc.indicator_column(hashed), fc.indicator_column(int_hashed),
                fc.indicator_column(weighted),
                fc.embedding_column(idc, 3),
                fc.embedding_column(hashed, 2, combiner="sqrtn"),
                fc.embedding_column(weighted, 4, combiner="sum"),
                fc.embedding_column(dense_id, 2, combiner="mean"),
                fc.indicator_column(colors), fc.indicator_column(codes),
                fc.embedding_column(colors, 2), fc.bucketized_column(xy, [2.0, 4.5, 7.0]),
                fc.indicator_column(fc.bucketized_column(price, [3.0, 5.0])),
                fc.embedding_column(fc.bucketized_column(xy, [0.0, 3.0]), 2)]
        cross = fc.crossed_column(["colors", fc.bucketized_column(price, [3.0, 5.0]), codes],
                                  50)
        cross2 = fc.crossed_column([cross, "words"], 20, hash_key=123)
        out["cross"] = fc.input_layer(feats, [fc.indicator_column(cross),
                                              fc.embedding_column(cross2, 3)])
        out["linear_cross"] = fc.linear_model(feats, [cross, cross2])
        shared = fc.shared_embedding_columns([idc, dense_id], 3, combiner="sqrtn")
        out["shared"] = fc.input_layer(feats, shared)
        named = fc.shared_embedding_columns([weighted, dense_id], 2,
                                            shared_embedding_collection_name="mine")
        out["shared_named"] = fc.input_layer(feats, named + [price])
        deep_ids = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [2, 1, 0], [3, 0, 0], [3, 0, 1]],
                                   tf.constant([1, 2, 0, 3, 3], tf.int64), [4, 2, 2])
        deep = fc.categorical_column_with_identity("deep", 4)
        deep_feats = {"deep": deep_ids}
        out["deep_linear"] = fc.linear_model(deep_feats, [deep], units=3)
        out["file"] = fc.input_layer(feats, [fc.indicator_column(from_file)])
        out["file_oov"] = fc.input_layer(feats, [fc.indicator_column(from_file_oov)])
        out["input_layer"] = fc.input_layer(feats, cols)
        out["linear"] = fc.linear_model(feats, [price, xy, idc, hashed, weighted,
                                                   fc.bucketized_column(xy, [3.0])], units=2)
        out["linear_mean"] = fc.linear_model(feats, [weighted, int_hashed],
                                             sparse_combiner="mean")
        variables = tf.global_variables()
        ones = [tf.assign(v, tf.reshape(tf.cast(tf.range(tf.size(v)), tf.float32) / 10.0,
                                        tf.shape(v)))
                for v in variables if v.name.startswith("linear_model")]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            got = {k: sess.run(v).tolist() for k, v in out.items()}
            got["init"] = {v.name: sess.run(v).tolist() for v in variables
                           if "embedding" in v.name}
            sess.run(ones)
            got["linear_set"] = sess.run(out["linear"]).tolist()
            got["linear_mean_set"] = sess.run(out["linear_mean"]).tolist()
            got["deep_linear_set"] = sess.run(out["deep_linear"]).tolist()
            got["linear_cross_set"] = sess.run(out["linear_cross"]).tolist()
        for k, v in out.items():
            shapes[k] = v.shape.as_list()
        names = {v.name: v.shape.as_list() for v in variables}
        got["trainable"] = sorted(v.name for v in tf.trainable_variables())
    spec = fc.make_parse_example_spec(cols)
    got["spec"] = {k: [type(s).__name__, str(s.dtype.name),
                       list(getattr(s, "shape", [])) if hasattr(s, "shape") else None,
                       list(getattr(s, "default_value", None) or []) or None
                       if hasattr(s, "default_value") else None]
                   for k, s in sorted(spec.items())}
    got["names"] = names
    got["shapes"] = shapes
    got["col_names"] = [c.name for c in cols + shared + named]
    return got
''')


def _ours():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 (the program shared with the TF run)
    return json.loads(json.dumps(scope["run_cases"](tf)))


def test_matches_tensorflow(tf1):
    """Values, variable names/shapes, seeded embedding values, parse specs as TF's."""
    theirs = tf1("tf.disable_v2_behavior()\n" + PROGRAM +
                 "\nprint(json.dumps(run_cases(tf)))\n")
    ours = _ours()
    assert ours["names"] == theirs["names"]
    assert ours["shapes"] == theirs["shapes"]
    assert ours["col_names"] == theirs["col_names"]
    assert ours["trainable"] == theirs["trainable"]
    assert ours["spec"] == theirs["spec"]
    for key in ("input_layer", "deep_linear", "shared", "shared_named", "cross", "linear_cross", "file", "file_oov", "linear", "linear_mean", "linear_set", "linear_mean_set",
                "deep_linear_set", "linear_cross_set"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert ours["init"].keys() == theirs["init"].keys()
    for key in ours["init"]:
        np.testing.assert_allclose(ours["init"][key], theirs["init"][key], rtol=1e-6,
                                   err_msg=key)


def test_indicator_and_embedding_values_without_tf():
    """Multi-hot counts, weighted sums and mean-combined embedding rows by NumPy."""
    fc = tf.feature_column
    g = tf.Graph()
    with g.as_default():
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 1, 2], tf.int64),
                              [3, 2])
        col = fc.categorical_column_with_identity("ids", 3)
        table = np.arange(6, dtype=np.float32).reshape(3, 2)
        emb = fc.embedding_column(col, 2, initializer=tf.constant_initializer(table))
        out = fc.input_layer({"ids": ids}, [emb, fc.indicator_column(col)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
    # Columns by name: ids_embedding (row 1 twice -> mean = row 1; empty row -> 0), then
    # ids_indicator (counts).
    np.testing.assert_allclose(got, [[2, 3, 0, 2, 0], [0, 0, 0, 0, 0], [4, 5, 0, 0, 1]])


def test_identity_out_of_range_fails():
    """Without a default_value an out-of-range id is an error: at run time for a fed
    input, while building for a constant one (TF's static assert)."""
    fc = tf.feature_column
    col = fc.categorical_column_with_identity("ids", 3)
    g = tf.Graph()
    with g.as_default():
        fed = tf.placeholder(tf.int64, [None])
        ids = tf.SparseTensor([[0, 0]], fed, [1, 1])
        out = fc.input_layer({"ids": ids}, [fc.indicator_column(col)])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {fed: [2]}), [[0, 0, 1]])
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(out, {fed: [5]})
        with pytest.raises(tf.errors.InvalidArgumentError):
            fc.input_layer({"ids": tf.SparseTensor([[0, 0]], tf.constant([5], tf.int64),
                                                   [1, 1])}, [fc.indicator_column(col)])


def test_argument_errors():
    fc = tf.feature_column
    with pytest.raises(ValueError, match="num_buckets 0 < 1"):
        fc.categorical_column_with_identity("a", 0)
    with pytest.raises(ValueError, match="hash_bucket_size must be at least 1"):
        fc.categorical_column_with_hash_bucket("a", 0)
    with pytest.raises(ValueError, match="Invalid dimension"):
        fc.embedding_column(fc.categorical_column_with_identity("a", 2), 0)
    with pytest.raises(ValueError, match="Duplicate feature column name"):
        fc.input_layer({"a": tf.constant([1.0])}, [fc.numeric_column("a")] * 2)
    ident = fc.categorical_column_with_identity("a", 3)
    with pytest.raises(ValueError, match="must have the same type"):
        fc.shared_embedding_columns([ident, fc.categorical_column_with_hash_bucket("b", 3)], 2)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([ident, fc.categorical_column_with_identity("b", 4)], 2)
    with pytest.raises(ValueError, match="not supported for crossing"):
        fc.crossed_column([ident, fc.categorical_column_with_hash_bucket("b", 3)], 5)
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("x"), [1.0, 0.0])
    with pytest.raises(ValueError, match="must be a DenseColumn"):
        fc.input_layer({"a": tf.constant([[1]])}, [fc.categorical_column_with_identity("a", 2)])
