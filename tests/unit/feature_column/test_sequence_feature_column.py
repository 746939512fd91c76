"""tf.feature_column.sequence_* against TF 2.21's compat.v1.

The same program runs on scopeflow and on TF (the ``tf1`` fixture): the sequence
categorical columns' rank-3 ids, embedding/indicator columns' per-step tensors and
sequence lengths (``_get_sequence_dense_tensor``), ``sequence_numeric_column``'s
``get_sequence_dense_tensor``, ``linear_model`` over sequence columns, parse specs and
error messages. The NumPy checks need no TensorFlow.
"""

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.feature_column.feature_column import _Features

PROGRAM = textwrap.dedent('''
def run_cases(tf, Builder, Cache):
    import os
    import tempfile
    fc = tf.feature_column
    vocab_file = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(vocab_file, "w") as f:
        f.write("bb\\nzz\\na\\nq\\n")
    got, shapes, errors = {}, {}, {}
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        ids = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [2, 0]],
                              tf.constant([1, 2, 0, 3], tf.int64), [3, 3])
        deep = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 1]],
                               tf.constant([1, 2, 0, 3], tf.int64), [2, 2, 2])
        words = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]],
                                tf.constant(["a", "bb", "x", "zz"]), [3, 3])
        nums = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                               tf.constant([1., 2., 3., 4., 5., 6.]), [3, 4])
        nums3 = tf.SparseTensor([[0, 0, 0], [0, 1, 0], [1, 0, 0]],
                                tf.constant([1., 2., 3.]), [2, 2, 1])
        feats = {"ids": ids, "deep": deep, "words": words, "nums": nums, "nums3": nums3,
                 "dense": tf.constant([[1, -1], [2, 0], [-1, -1]], tf.int64),
                 "flat": tf.constant([2, 0, 1], tf.int64)}
        ident = fc.sequence_categorical_column_with_identity("ids", 4)
        deep_c = fc.sequence_categorical_column_with_identity("deep", 4)
        dense_c = fc.sequence_categorical_column_with_identity("dense", 3, default_value=0)
        flat_c = fc.sequence_categorical_column_with_identity("flat", 3)
        hashed = fc.sequence_categorical_column_with_hash_bucket("words", 5)
        vlist = fc.sequence_categorical_column_with_vocabulary_list(
            "words", ["a", "zz"], num_oov_buckets=2)
        vfile = fc.sequence_categorical_column_with_vocabulary_file("words", vocab_file)
        cats = {"ident": ident, "deep": deep_c, "dense": dense_c, "flat": flat_c,
                "hashed": hashed, "vlist": vlist, "vfile": vfile}
        out = {}
        for key, col in cats.items():
            out["ids_" + key] = col._get_sparse_tensors(Builder(feats)).id_tensor
            out["ind_" + key] = fc.indicator_column(col)._get_sequence_dense_tensor(
                Builder(feats))
        with tf.variable_scope("one"):
            out["emb_ident"] = fc.embedding_column(ident, 2)._get_sequence_dense_tensor(
                Builder(feats))
        with tf.variable_scope("two"):
            out["emb_vlist"] = fc.embedding_column(vlist, 3, combiner="sum")\\
                ._get_sequence_dense_tensor(Builder(feats))
        with tf.variable_scope("three"):
            shared = fc.shared_embedding_columns([ident, deep_c], 2, combiner="sqrtn")
            out["emb_shared_a"] = shared[0]._get_sequence_dense_tensor(Builder(feats))
            out["emb_shared_b"] = shared[1]._get_sequence_dense_tensor(Builder(feats))
        num = fc.sequence_numeric_column(
            "nums", shape=(2,), default_value=-1.,
            normalizer_fn=lambda x: tf.SparseTensor(x.indices, x.values * 2., x.dense_shape))
        num3 = fc.sequence_numeric_column("nums3")
        out["num"] = num.get_sequence_dense_tensor(Cache(feats), None)
        out["num3"] = num3.get_sequence_dense_tensor(Cache(feats), None)
        lin = fc.linear_model(feats, [ident, vlist], units=2)
        variables = tf.global_variables()
        fill = [tf.assign(v, tf.reshape(tf.cast(tf.range(tf.size(v)), tf.float32) / 10.0,
                                        tf.shape(v)))
                for v in variables if v.name.startswith("linear_model")]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            for key, value in sess.run(out).items():
                if hasattr(value, "dense_shape"):
                    value = [value.indices.tolist(), value.values.tolist(),
                             value.dense_shape.tolist()]
                elif hasattr(value, "sequence_length"):
                    value = [value.dense_tensor.tolist(), value.sequence_length.tolist()]
                got[key] = value
            sess.run(fill)
            got["linear"] = sess.run(lin).tolist()
        for key, value in out.items():
            if hasattr(value, "sequence_length"):
                shapes[key] = [value.dense_tensor.shape.as_list()[-1:],
                               value.sequence_length.shape.as_list()]
        got["vars"] = sorted((v.name, v.shape.as_list()) for v in variables)
        got["spec"] = {k: [type(s).__name__, s.dtype.name] for k, s in
                       fc.make_parse_example_spec([ident, vlist]).items()}
        got["num_spec"] = {k: [type(s).__name__, s.dtype.name] for k, s in
                           num.parse_example_spec.items()}
        got["attrs"] = [ident.name, ident.num_buckets, ident._num_buckets, vlist.num_buckets,
                        num.name, num.shape, num.variable_shape.as_list(), num.parents]
        plain = fc.categorical_column_with_identity("ids", 4)
        cases = {
            "emb_input_layer": lambda: fc.input_layer(feats, [fc.embedding_column(ident, 2)]),
            "ind_input_layer": lambda: fc.input_layer(feats, [fc.indicator_column(ident)]),
            "num_input_layer": lambda: fc.input_layer(feats, [num]),
            "num_spec": lambda: fc.make_parse_example_spec([num]),
            "emb_plain": lambda: fc.embedding_column(plain, 2)._get_sequence_dense_tensor(
                Builder(feats)),
            "ind_plain": lambda: fc.indicator_column(plain)._get_sequence_dense_tensor(
                Builder(feats)),
            "shape0": lambda: fc.sequence_numeric_column("a", shape=(0,)),
            "shape_float": lambda: fc.sequence_numeric_column("a", shape=(1.5,)),
            "num_dtype": lambda: fc.sequence_numeric_column("a", dtype=tf.string),
            "normalizer": lambda: fc.sequence_numeric_column("a", normalizer_fn=3),
            "num_buckets": lambda: fc.sequence_categorical_column_with_identity("a", 0),
            "default": lambda: fc.sequence_categorical_column_with_identity("a", 3, 5),
            "hash_dtype": lambda: fc.sequence_categorical_column_with_hash_bucket(
                "a", 4, tf.float32),
            "vocab_empty": lambda: fc.sequence_categorical_column_with_vocabulary_list(
                "a", []),
            "vocab_file": lambda: fc.sequence_categorical_column_with_vocabulary_file(
                "a", None),
            "num_dense": lambda: num3.get_sequence_dense_tensor(
                Cache({"nums3": tf.constant([[1., 2.]])}), None),
        }
        for key, case in cases.items():
            try:
                case()
                errors[key] = None
            except Exception as e:  # noqa: BLE001 - the class and text are compared
                errors[key] = [type(e).__name__, str(e).split(" Given")[0]]
    got["shapes"] = shapes
    got["errors"] = errors
    return got
''')


def _ours():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 (the program shared with the TF run)
    return json.loads(json.dumps(scope["run_cases"](tf, _Features, _Features)))


def test_matches_tensorflow(tf1):
    """Ids, per-step tensors, lengths, seeded embeddings, linear model, specs and errors."""
    theirs = tf1("tf.disable_v2_behavior()\n"
                 "from tensorflow.python.feature_column.feature_column import _LazyBuilder\n"
                 "from tensorflow.python.feature_column.feature_column_v2 import "
                 "FeatureTransformationCache\n" + PROGRAM +
                 "\nprint(json.dumps(run_cases(tf, _LazyBuilder, "
                 "FeatureTransformationCache)))\n")
    ours = _ours()
    for key in ("vars", "spec", "num_spec", "attrs", "shapes", "errors"):
        assert ours[key] == theirs[key], key
    for key in theirs:
        if key.startswith(("ids_", "ind_", "emb_", "num")) and key not in (
                "num_spec",):
            for a, b in zip(ours[key], theirs[key]):
                np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=key)
    np.testing.assert_allclose(ours["linear"], theirs["linear"], rtol=1e-6)


def test_sequence_values_without_tf():
    """Per-step embeddings keep each step's ids apart (mean within a step only); steps
    beyond an example's length and empty examples are zeros with length 0."""
    fc = tf.feature_column
    g = tf.Graph()
    with g.as_default():
        ids = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [2, 0, 0]],
                              tf.constant([0, 2, 1, 1], tf.int64), [3, 2, 2])
        col = fc.sequence_categorical_column_with_identity("ids", 3)
        table = np.arange(6, dtype=np.float32).reshape(3, 2)
        emb = fc.embedding_column(col, 2, initializer=tf.constant_initializer(table))
        dense, length = emb._get_sequence_dense_tensor(_Features({"ids": ids}))
        hot, hot_length = fc.indicator_column(col)._get_sequence_dense_tensor(
            _Features({"ids": ids}))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([dense, length, hot, hot_length])
    np.testing.assert_allclose(got[0], [[[2, 3], [2, 3]], [[0, 0], [0, 0]],
                                        [[2, 3], [0, 0]]])
    np.testing.assert_array_equal(got[1], [2, 0, 1])
    np.testing.assert_allclose(got[2], [[[1, 0, 1], [0, 1, 0]], [[0, 0, 0], [0, 0, 0]],
                                        [[0, 1, 0], [0, 0, 0]]])
    np.testing.assert_array_equal(got[3], [2, 0, 1])


def test_numeric_groups_values_into_steps():
    """shape (2,): four values are two steps; a row's odd value count rounds up."""
    fc = tf.feature_column
    g = tf.Graph()
    with g.as_default():
        sp = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]],
                             tf.constant([1., 2., 3., 4., 5., 6., 7.]), [2, 4])
        col = fc.sequence_numeric_column("x", shape=(2,), default_value=9.)
        dense, length = col.get_sequence_dense_tensor(_Features({"x": sp}), None)
        assert dense.shape.as_list() == [2, 2, 2]
        with tf.Session() as sess:
            got = sess.run([dense, length])
    np.testing.assert_allclose(got[0], [[[1, 2], [3, 9]], [[4, 5], [6, 7]]])
    np.testing.assert_array_equal(got[1], [2, 2])


def test_errors_without_tf():
    fc = tf.feature_column
    col = fc.sequence_categorical_column_with_identity("a", 3)
    with pytest.raises(ValueError, match="must not be of type _SequenceCategoricalColumn"):
        fc.input_layer({"a": tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])},
                       [fc.embedding_column(col, 2)])
    with pytest.raises(TypeError, match="shape dimensions must be integer"):
        fc.sequence_numeric_column("x", shape=(2.0,))
    with pytest.raises(ValueError, match="All feature_columns must be _FeatureColumn"):
        fc.make_parse_example_spec([fc.sequence_numeric_column("x")])
