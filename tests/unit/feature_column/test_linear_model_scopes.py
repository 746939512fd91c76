"""linear_model's variable and op names inside variable scopes, as TF 2.21 / 2.15 name them
(names taken from both: they agree)."""
import scopeflow as tf

fc = tf.feature_column


def _build():
    feats = {"a": tf.constant([[1.0], [2.0]]), "c": tf.constant([[0], [2]], dtype=tf.int64)}
    cols = [fc.numeric_column("a"), fc.categorical_column_with_identity("c", 3)]
    return feats, cols


def test_linear_model_variable_names_in_nested_scopes():
    g = tf.Graph()
    with g.as_default():
        outs = [fc.linear_model(*_build())]
        with tf.variable_scope("linear"):
            outs.append(fc.linear_model(*_build()))
        with tf.variable_scope("outer"):
            with tf.variable_scope("inner"):
                outs.append(fc.linear_model(*_build()))
        with tf.variable_scope("linear", reuse=True):
            outs.append(fc.linear_model(*_build()))
        names = [v.name for v in tf.global_variables()]
    assert names == [
        "linear_model/a/weights:0", "linear_model/c/weights:0", "linear_model/bias_weights:0",
        "linear/linear_model/a/weights:0", "linear/linear_model/c/weights:0",
        "linear/linear_model/bias_weights:0",
        "outer/inner/linear_model/a/weights:0", "outer/inner/linear_model/c/weights:0",
        "outer/inner/linear_model/bias_weights:0"]
    assert [o.name for o in outs] == [
        "linear_model_1/linear_model/weighted_sum:0",
        "linear/linear_model_1/linear_model/weighted_sum:0",
        "outer/inner/linear_model_1/linear_model/weighted_sum:0",
        "linear_1/linear_model_1/linear_model/weighted_sum:0"]


def test_input_layer_names_in_scope_with_reuse():
    g = tf.Graph()
    with g.as_default():
        outs = []
        for reuse in (None, True):
            with tf.variable_scope("x", reuse=reuse):
                feats, _ = _build()
                emb = fc.embedding_column(fc.categorical_column_with_identity("c", 3), 2)
                outs.append(fc.input_layer(feats, [fc.numeric_column("a"), emb]))
        assert [v.name for v in tf.global_variables()] == [
            "x/input_layer/c_embedding/embedding_weights:0"]
    assert [o.name for o in outs] == ["x/input_layer/concat:0", "x_1/input_layer/concat:0"]
