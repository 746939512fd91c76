"""SavedModels the serving tests serve: written by scopeflow's builder (test_serve.py)."""

import scopeflow as tf


def build_versioned(base, versions=(1, 3)):
    """``base/<v>/``: a model per version whose weight is the version number, so a test
    can tell which one answers. Signatures:

    * ``serving_default`` (predict): inputs ``a`` float [-1, 2] and ``tag`` string [-1];
      outputs ``total`` = v * (a0 + a1) float [-1], ``tag_bytes`` = tag, ``count`` int32
      [-1] (the string's length);
    * ``classify``: serialized tf.Examples with float features ``x`` [2] and ``bias`` [1]
      (default 0, added to x); ``classes``
      ("neg", "pos") and ``scores`` (x0 / v, x1 * v);
    * ``regress``: the same examples; ``outputs`` = v * x0 + x1.
    """
    for v in versions:
        with tf.Graph().as_default():
            a = tf.placeholder(tf.float32, [None, 2], name="a")
            tag = tf.placeholder(tf.string, [None], name="tag")
            w = tf.Variable(float(v), name="w")
            total = tf.identity(w * tf.reduce_sum(a, axis=1), name="total")
            tag_out = tf.identity(tag, name="tag_out")
            count = tf.strings.length(tag, name="count")
            ex = tf.placeholder(tf.string, [None], name="examples")
            # Two features: scopeflow's ParseExampleV2 with a single output hands the
            # consumer a 1-tuple (a runtime bug, reported), so one more with a default.
            feats = tf.parse_example(ex, {"x": tf.FixedLenFeature([2], tf.float32),
                                          "bias": tf.FixedLenFeature([1], tf.float32,
                                                                     default_value=[0.0])})
            x = feats["x"] + feats["bias"]
            scores = tf.stack([x[:, 0] / w, x[:, 1] * w], axis=1, name="scores")
            classes = tf.tile(tf.constant([[b"neg", b"pos"]]), tf.stack([tf.shape(x)[0], 1]),
                              name="classes")
            reg = tf.identity(w * x[:, 0] + x[:, 1], name="reg")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                builder = tf.saved_model.builder.SavedModelBuilder(f"{base}/{v}")
                sigs = {
                    "serving_default": tf.saved_model.signature_def_utils.predict_signature_def(
                        {"a": a, "tag": tag},
                        {"total": total, "tag_bytes": tag_out, "count": count}),
                    "classify": tf.saved_model.signature_def_utils.classification_signature_def(
                        ex, classes, scores),
                    "regress": tf.saved_model.signature_def_utils.regression_signature_def(
                        ex, reg),
                }
                builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.SERVING],
                                                     signature_def_map=sigs)
                builder.save()
    return base
