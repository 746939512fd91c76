"""Cases for the Keras layer tests (tests/unit/keras/test_layers_<family>.py), run alike
under real tf_keras (TF 2.21 in TF1 mode) and scopeflow.

Each case is a snippet that sets ``layer`` and ``x`` (a list of input arrays, batch
first) and optionally ``call_kwargs`` (passed to the layer's call), ``as_list`` (call on a
list even for one input), ``feed`` (a function returning extra feeds, e.g. the learning
phase), ``wlow``/``whigh`` (the range of the weights' values), ``fixed_batch`` (a known
batch size), ``grads = False``, ``check_config = False`` and ``after(sess, layer, feed)`` (more JSON-able results,
e.g. the weights after running the updates; ``outputs`` are the layer's outputs). The
runner builds the layer on placeholders (batch dimension ``None``) in a fresh graph, loads
every weight with fixed random values (``layer.set_weights``), runs it and records the
weights' names, the outputs' static shapes, their values, the gradients of a fixed
weighting of the outputs for the trainable weights and the float inputs, and the layer's
config (after building).

``python tests/unit/keras/keras_layer_cases.py <family>...`` run under ``../shared/tools/tf1``
prints real TF's results as JSON: ``tests/fixtures/keras_layers/make_fixtures.sh`` writes
them to ``tests/fixtures/keras_layers/<family>.json``.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def rnd(shape, seed, low=-1.0, high=1.0):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(np.float32)


CASES = {
    "activations": {
        "leaky_relu": "layer = L.LeakyReLU(0.2); x = [rnd((2, 3, 4), 1)]",
        "leaky_relu_default": "layer = L.LeakyReLU(); x = [rnd((2, 5), 1)]",
        "prelu": "layer = L.PReLU(); x = [rnd((2, 3, 4), 1)]",
        "prelu_shared": "layer = L.PReLU(shared_axes=[1]); x = [rnd((2, 3, 4), 1)]",
        "elu": "layer = L.ELU(); x = [rnd((2, 6), 2)]",
        "elu_alpha": "layer = L.ELU(alpha=0.5); x = [rnd((2, 6), 2)]",
        "thresholded_relu": "layer = L.ThresholdedReLU(theta=0.3); x = [rnd((2, 6), 3)]",
        "softmax": "layer = L.Softmax(); x = [rnd((2, 3, 5), 4)]",
        "softmax_axis": "layer = L.Softmax(axis=1); x = [rnd((2, 3, 5), 4)]",
        "relu": "layer = L.ReLU(); x = [rnd((2, 6), 5)]",
        "relu_max": "layer = L.ReLU(max_value=0.5); x = [rnd((2, 6), 5)]",
        "relu6": "layer = L.ReLU(max_value=6); x = [rnd((2, 6), 5) * 8]",
        "relu_slope": "layer = L.ReLU(negative_slope=0.1); x = [rnd((2, 6), 5)]",
        "relu_all": ("layer = L.ReLU(max_value=0.8, negative_slope=0.1, threshold=0.2); "
                     "x = [rnd((2, 6), 5)]"),
    },
    "merge": {
        "add": "layer = L.Add(); x = [rnd((2, 3), 1), rnd((2, 3), 2), rnd((2, 3), 3)]",
        "subtract": "layer = L.Subtract(); x = [rnd((2, 3), 1), rnd((2, 3), 2)]",
        "multiply": "layer = L.Multiply(); x = [rnd((2, 3, 2), 1), rnd((2, 3, 2), 2)]",
        "average": "layer = L.Average(); x = [rnd((2, 3), 1), rnd((2, 3), 2)]",
        "maximum": "layer = L.Maximum(); x = [rnd((2, 3), 1), rnd((2, 3), 2)]",
        "minimum": "layer = L.Minimum(); x = [rnd((2, 3), 1), rnd((2, 3), 2)]",
        "add_ranks": "layer = L.Add(); x = [rnd((2, 3, 4), 1), rnd((2, 4), 2)]",
        "concatenate": "layer = L.Concatenate(); x = [rnd((2, 3), 1), rnd((2, 4), 2)]",
        "concatenate_axis1": ("layer = L.Concatenate(axis=1); "
                              "x = [rnd((2, 3, 2), 1), rnd((2, 1, 2), 2)]"),
        "dot_2d": "layer = L.Dot(axes=1); x = [rnd((2, 4), 1), rnd((2, 4), 2)]",
        "dot_3d": "layer = L.Dot(axes=(2, 2)); x = [rnd((2, 3, 4), 1), rnd((2, 5, 4), 2)]",
        "dot_3d_12": "layer = L.Dot(axes=(1, 2)); x = [rnd((2, 3, 4), 1), rnd((2, 5, 3), 2)]",
        "dot_normalize": ("layer = L.Dot(axes=-1, normalize=True); "
                          "x = [rnd((2, 4), 1), rnd((2, 4), 2)]"),
    },
    "pooling": {
        "max1d": "layer = L.MaxPooling1D(); x = [rnd((2, 7, 3), 1)]",
        "avg1d_same": "layer = L.AveragePooling1D(3, 2, 'same'); x = [rnd((2, 7, 3), 1)]",
        "max2d": "layer = L.MaxPooling2D(); x = [rnd((2, 5, 6, 3), 1)]",
        "avg2d_same": ("layer = L.AveragePooling2D((3, 2), (2, 1), padding='same'); "
                       "x = [rnd((2, 5, 6, 3), 1)]"),
        "max2d_first": ("layer = L.MaxPooling2D(data_format='channels_first'); "
                        "x = [rnd((2, 3, 4, 6), 1)]"),
        "max3d": "layer = L.MaxPooling3D(); x = [rnd((2, 4, 4, 5, 2), 1)]",
        "avg3d": "layer = L.AveragePooling3D((2, 2, 3), padding='same'); "
                 "x = [rnd((2, 4, 4, 5, 2), 1)]",
        "gmax1d": "layer = L.GlobalMaxPooling1D(); x = [rnd((2, 7, 3), 1)]",
        "gavg1d": "layer = L.GlobalAveragePooling1D(); x = [rnd((2, 7, 3), 1)]",
        "gavg1d_masked": (
            "layer = L.GlobalAveragePooling1D(); x = [rnd((2, 4, 3), 1)]\n"
            "m = tf.placeholder(tf.bool, [None, 4]); call_kwargs = {'mask': m}\n"
            "feed = lambda: {m: np.array([[1, 1, 0, 0], [1, 0, 1, 1]], bool)}"),
        "gmax2d": "layer = L.GlobalMaxPooling2D(); x = [rnd((2, 5, 6, 3), 1)]",
        "gavg2d": "layer = L.GlobalAveragePooling2D(); x = [rnd((2, 5, 6, 3), 1)]",
        "gavg2d_first": ("layer = L.GlobalAveragePooling2D(data_format='channels_first'); "
                         "x = [rnd((2, 3, 4, 6), 1)]"),
        "gmax3d": "layer = L.GlobalMaxPooling3D(); x = [rnd((2, 4, 4, 5, 2), 1)]",
        "gavg3d": "layer = L.GlobalAveragePooling3D(); x = [rnd((2, 4, 4, 5, 2), 1)]",
    },
    "convolutional": {
        "conv1d": "layer = L.Conv1D(4, 3); x = [rnd((2, 7, 3), 1)]",
        "conv1d_causal": ("layer = L.Conv1D(2, 3, padding='causal', dilation_rate=2, "
                          "activation='relu'); x = [rnd((2, 7, 3), 1)]"),
        "conv1d_strided": "layer = L.Conv1D(2, 2, strides=2, padding='same'); "
                          "x = [rnd((2, 7, 3), 1)]",
        "conv2d": "layer = L.Conv2D(4, (3, 2)); x = [rnd((2, 6, 5, 3), 1)]",
        "conv2d_same_strided": ("layer = L.Conv2D(3, 3, strides=2, padding='same', "
                                "activation='tanh'); x = [rnd((2, 7, 6, 2), 1)]"),
        "conv2d_dilated_nobias": ("layer = L.Conv2D(2, 2, dilation_rate=2, use_bias=False); "
                                  "x = [rnd((2, 6, 6, 2), 1)]"),
        "conv2d_first": ("layer = L.Conv2D(3, 2, data_format='channels_first'); "
                         "x = [rnd((2, 2, 5, 4), 1)]"),
        "conv3d": "layer = L.Conv3D(2, (2, 3, 2)); x = [rnd((2, 4, 5, 4, 3), 1)]",
        "conv2d_regularized": (
            "R = tf.keras.regularizers\n"
            "layer = L.Conv2D(2, 2, kernel_regularizer=R.l1_l2(0.0, 0.01), bias_regularizer="
            "R.L1L2(l1=0.1), activity_regularizer=R.L1L2(l1=0.01)); "
            "x = [rnd((2, 4, 4, 2), 1)]\n"
            "def after(s, layer, feed):\n"
            "    return sorted(float(v) for v in s.run(layer.losses, feed))\n"),
        "conv2d_transpose": "layer = L.Conv2DTranspose(3, 3); x = [rnd((2, 4, 5, 2), 1)]",
        "conv2d_transpose_s2_same": ("layer = L.Conv2DTranspose(2, 3, strides=2, "
                                     "padding='same'); x = [rnd((2, 3, 4, 2), 1)]"),
        "conv2d_transpose_outpad": ("layer = L.Conv2DTranspose(2, 3, strides=2, "
                                    "output_padding=1); x = [rnd((2, 3, 4, 2), 1)]"),
        "conv3d_transpose": ("layer = L.Conv3DTranspose(2, 2, strides=2); "
                             "x = [rnd((2, 2, 3, 2, 3), 1)]"),
        "separable_conv1d": ("layer = L.SeparableConv1D(4, 3, depth_multiplier=2); "
                             "x = [rnd((2, 7, 3), 1)]"),
        "separable_conv2d": ("layer = L.SeparableConv2D(4, (3, 3), padding='same', "
                             "depth_multiplier=2); x = [rnd((2, 5, 6, 3), 1)]"),
        "depthwise_conv2d": ("layer = L.DepthwiseConv2D(3, depth_multiplier=2); "
                             "x = [rnd((2, 5, 6, 3), 1)]"),
        "depthwise_conv2d_strided": ("layer = L.DepthwiseConv2D(2, strides=2, "
                                     "padding='same'); x = [rnd((2, 5, 6, 3), 1)]"),
        "upsampling1d": "layer = L.UpSampling1D(3); x = [rnd((2, 4, 3), 1)]",
        "upsampling2d": "layer = L.UpSampling2D((2, 3)); x = [rnd((2, 3, 4, 2), 1)]",
        "upsampling2d_bilinear": ("layer = L.UpSampling2D(2, interpolation='bilinear'); "
                                  "x = [rnd((2, 3, 4, 2), 1)]"),
        "upsampling3d": "layer = L.UpSampling3D((2, 1, 2)); x = [rnd((2, 2, 3, 2, 2), 1)]",
        "zeropadding1d": "layer = L.ZeroPadding1D((1, 2)); x = [rnd((2, 4, 3), 1)]",
        "zeropadding2d": "layer = L.ZeroPadding2D(((1, 0), (2, 1))); "
                         "x = [rnd((2, 3, 4, 2), 1)]",
        "zeropadding3d": "layer = L.ZeroPadding3D(1); x = [rnd((2, 2, 3, 2, 2), 1)]",
        "cropping1d": "layer = L.Cropping1D((1, 2)); x = [rnd((2, 6, 3), 1)]",
        "cropping2d": "layer = L.Cropping2D(((1, 0), (2, 1))); x = [rnd((2, 5, 6, 2), 1)]",
        "cropping3d": "layer = L.Cropping3D(1); x = [rnd((2, 4, 5, 4, 2), 1)]",
    },
    "normalization": {
        "batchnorm_inference": ("layer = L.BatchNormalization(); x = [rnd((4, 3), 1)]; "
                                "wlow = 0.2"),
        "batchnorm_training": (
            "layer = L.BatchNormalization(momentum=0.9); x = [rnd((4, 3), 1)]; wlow = 0.2\n"
            "feed = lambda: {K.learning_phase(): True}\n"
            "def after(s, layer, feed):\n"
            "    s.run(layer.updates, feed)\n"
            "    return [w.tolist() for w in layer.get_weights()]\n"),
        "batchnorm_updates_inference": (
            "layer = L.BatchNormalization(momentum=0.9); x = [rnd((4, 3), 1)]; wlow = 0.2\n"
            "def after(s, layer, feed):\n"
            "    s.run(layer.updates, feed)\n"
            "    return [len(layer.updates)] + [w.tolist() for w in layer.get_weights()]\n"),
        "batchnorm_training_true_4d": (
            "layer = L.BatchNormalization(momentum=0.8, epsilon=0.01); "
            "x = [rnd((3, 4, 5, 2), 1)]; wlow = 0.2\n"
            "call_kwargs = {'training': True}\n"
            "def after(s, layer, feed):\n"
            "    s.run(layer.updates, feed)\n"
            "    return [w.tolist() for w in layer.get_weights()]\n"),
        "batchnorm_axis1": (
            "layer = L.BatchNormalization(axis=1); x = [rnd((3, 2, 4, 5), 1)]; wlow = 0.2\n"
            "feed = lambda: {K.learning_phase(): True}\n"
            "def after(s, layer, feed):\n"
            "    s.run(layer.updates, feed)\n"
            "    return [w.tolist() for w in layer.get_weights()]\n"),
        "batchnorm_noscale": ("layer = L.BatchNormalization(center=False, scale=False); "
                              "x = [rnd((4, 3, 2), 1)]; wlow = 0.2"),
        "layernorm": "layer = L.LayerNormalization(); x = [rnd((2, 3, 5), 1)]",
        "layernorm_axes": ("layer = L.LayerNormalization(axis=[1, 2], epsilon=1e-5); "
                           "x = [rnd((2, 3, 4), 1)]"),
    },
    "recurrent": {
        "simple_rnn": "layer = L.SimpleRNN(4); x = [rnd((2, 5, 3), 1)]",
        "simple_rnn_seq_state": ("layer = L.SimpleRNN(3, return_sequences=True, "
                                 "return_state=True); x = [rnd((2, 4, 3), 1)]"),
        "lstm": "layer = L.LSTM(4); x = [rnd((2, 5, 3), 1)]",
        "lstm_regularized": (
            "R = tf.keras.regularizers\n"
            "layer = L.LSTM(2, kernel_regularizer=R.l1_l2(0.0, 0.01), recurrent_regularizer="
            "R.L1L2(l1=0.01), bias_regularizer=R.l1_l2(0.01, 0.01)); "
            "x = [rnd((2, 3, 3), 1)]\n"
            "def after(s, layer, feed):\n"
            "    return sorted(float(v) for v in s.run(layer.losses, feed))\n"),
        "lstm_seq_state": ("layer = L.LSTM(3, return_sequences=True, return_state=True); "
                           "x = [rnd((2, 4, 3), 1)]"),
        "lstm_backwards": ("layer = L.LSTM(3, go_backwards=True, return_sequences=True); "
                           "x = [rnd((2, 4, 3), 1)]"),
        "lstm_unroll_sigmoid": ("layer = L.LSTM(3, unroll=True, recurrent_activation="
                                "'sigmoid', activation='relu'); x = [rnd((2, 4, 3), 1)]"),
        "gru": "layer = L.GRU(4, return_sequences=True); x = [rnd((2, 5, 3), 1)]",
        "gru_reset_after": ("layer = L.GRU(3, reset_after=True, return_state=True); "
                            "x = [rnd((2, 4, 3), 1)]"),
        "rnn_lstm_cell": "layer = L.RNN(L.LSTMCell(3)); x = [rnd((2, 4, 3), 1)]",
        "rnn_stacked": ("layer = L.RNN([L.LSTMCell(3), L.GRUCell(2), L.SimpleRNNCell(4)], "
                        "return_sequences=True); x = [rnd((2, 4, 3), 1)]"),
        "lstm_masked": (
            "layer = L.LSTM(3, return_sequences=True); x = [rnd((3, 5, 2), 1)]\n"
            "m = tf.placeholder(tf.bool, [None, 5])\n"
            "call_kwargs = {'mask': m}\n"
            "feed = lambda: {m: np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], "
            "[1, 0, 1, 0, 0]], bool)}"),
        "gru_masked_last": (
            "layer = L.GRU(3); x = [rnd((3, 5, 2), 1)]\n"
            "m = tf.placeholder(tf.bool, [None, 5])\n"
            "call_kwargs = {'mask': m}\n"
            "feed = lambda: {m: np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], "
            "[1, 0, 1, 0, 0]], bool)}"),
        "lstm_initial_state": (
            "layer = L.LSTM(3, return_state=True); x = [rnd((2, 4, 3), 1)]\n"
            "call_kwargs = {'initial_state': [tf.constant(rnd((2, 3), 7)), "
            "tf.constant(rnd((2, 3), 8))]}"),
        "lstm_stateful": (
            "layer = L.LSTM(2, stateful=True, return_sequences=True); "
            "x = [rnd((2, 3, 3), 1)]; fixed_batch = True\n"
            "def after(s, layer, feed):\n"
            "    s.run(layer.updates, feed)\n"
            "    second = s.run(outputs[0], feed)\n"
            "    return second.tolist()\n"),
        "lstm_dropout_inference": ("layer = L.LSTM(3, dropout=0.5, recurrent_dropout=0.5); "
                                   "x = [rnd((2, 4, 3), 1)]"),
    },
    "wrappers": {
        "time_distributed_dense": ("layer = L.TimeDistributed(L.Dense(4)); "
                                   "x = [rnd((2, 5, 3), 1)]"),
        "time_distributed_conv": ("layer = L.TimeDistributed(L.Conv2D(2, 2)); "
                                  "x = [rnd((2, 3, 4, 4, 2), 1)]"),
        "bidirectional_lstm": "layer = L.Bidirectional(L.LSTM(3)); x = [rnd((2, 4, 3), 1)]",
        "bidirectional_gru_seq_sum": ("layer = L.Bidirectional(L.GRU(3, return_sequences="
                                      "True), merge_mode='sum'); x = [rnd((2, 4, 3), 1)]"),
        "bidirectional_state": ("layer = L.Bidirectional(L.LSTM(2, return_state=True)); "
                                "x = [rnd((2, 4, 3), 1)]"),
        "bidirectional_none": ("layer = L.Bidirectional(L.SimpleRNN(2, return_sequences="
                               "True), merge_mode=None); x = [rnd((2, 4, 3), 1)]"),
        "sequential_masked_text": (
            "layer = tf.keras.Sequential([L.Embedding(10, 4, mask_zero=True), "
            "L.Bidirectional(L.LSTM(3, return_sequences=True)), "
            "L.TimeDistributed(L.Dense(2)), L.GlobalAveragePooling1D(), L.Dense(1)])\n"
            "x = [np.array([[1, 2, 3, 0, 0], [4, 5, 6, 7, 8], [9, 0, 0, 0, 0]])]\n"
            "check_config = False"),
        "bidirectional_masked": (
            "layer = L.Bidirectional(L.LSTM(3, return_sequences=True), merge_mode='ave'); "
            "x = [rnd((3, 5, 2), 1)]\n"
            "m = tf.placeholder(tf.bool, [None, 5])\n"
            "call_kwargs = {'mask': m}\n"
            "feed = lambda: {m: np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], "
            "[1, 0, 1, 0, 0]], bool)}"),
    },
}


def _dtype_of(tf, array):
    return tf.as_dtype(array.dtype)


def run_case(tf, src):
    """One case's results (see the module docstring)."""
    ns = {"tf": tf, "np": np, "L": tf.keras.layers, "K": tf.keras.backend, "rnd": rnd}
    graph = tf.Graph()
    with graph.as_default():
        exec(src, ns)  # noqa: S102 - the case snippets above
        layer, xs = ns["layer"], ns["x"]
        fixed = ns.get("fixed_batch", False)
        phs = [tf.placeholder(_dtype_of(tf, a), [a.shape[0] if fixed else None]
                              + list(a.shape[1:])) for a in xs]
        inputs = phs if ns.get("as_list", len(phs) > 1) else phs[0]
        y = layer(inputs, **ns.get("call_kwargs", {}))
        ys = list(y) if isinstance(y, (list, tuple)) else [y]
        ns["outputs"] = ys
        # Gradients of a fixed weighting of the outputs, for the trainable weights and the
        # float inputs (None where disconnected).
        batch = xs[0].shape[0]
        loss = tf.add_n([tf.reduce_sum(t * rnd([d or batch for d in t.shape.as_list()], 50 + i))
                         for i, t in enumerate(ys)])
        wrt = list(layer.trainable_weights) + [p for p in phs if p.dtype == tf.float32]
        grads = tf.gradients(loss, wrt) if ns.get("grads", True) else []
        grads = [None if g is None else tf.convert_to_tensor(g) for g in grads]  # dense
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            low, high = ns.get("wlow", -1.0), ns.get("whigh", 1.0)
            layer.set_weights([rnd(w.shape, 100 + i, low, high)
                               for i, w in enumerate(layer.get_weights())])
            feed = dict(zip(phs, xs))
            if "feed" in ns:
                feed.update(ns["feed"]())
            values = sess.run(ys, feed)
            grad_values = sess.run([g for g in grads if g is not None], feed)
            grad_values = iter(grad_values)
            result = {
                "weights": [v.name for v in layer.weights],
                "trainable": [v.name for v in layer.trainable_weights],
                "static": [t.shape.as_list() for t in ys],
                "values": [np.asarray(v).tolist() for v in values],
                "grads": [None if g is None else np.asarray(next(grad_values)).tolist()
                          for g in grads],
            }
            if "after" in ns:
                result["after"] = ns["after"](sess, layer, feed)
    result["class"] = type(layer).__name__
    # A model's config is the engine's, not a layer family's: checked elsewhere.
    result["config"] = json_config(layer.get_config()) if ns.get("check_config", True) \
        else None
    return result


def json_config(config):
    """A layer config as JSON has it (tuples as lists, NumPy scalars as numbers)."""
    def default(o):
        if isinstance(o, (np.generic, np.ndarray)):
            return o.tolist()
        raise TypeError(f"not JSON: {o!r}")
    return json.loads(json.dumps(config, default=default))


def check_config(tf, expected):
    """The layer's config is Keras's, and Keras's config makes the same layer here."""
    if expected["config"] is None:
        return
    cls = getattr(tf.keras.layers, expected["class"])
    with tf.Graph().as_default():
        remade = cls.from_config(expected["config"])
        assert json_config(remade.get_config()) == expected["config"]


def run_family(tf, family):
    out = {}
    for name, src in CASES[family].items():
        try:
            out[name] = run_case(tf, src)
        except Exception as e:  # noqa: BLE001 - recorded per case
            out[name] = {"error": f"{type(e).__name__}: {e}"[:500]}
    return out


if __name__ == "__main__":
    import tensorflow.compat.v1 as tf_v1  # the oracle (run under ../shared/tools/tf1)

    tf_v1.disable_v2_behavior()
    print(json.dumps({f: run_family(tf_v1, f) for f in sys.argv[1:]}))


def check(ours, expected, rtol=1e-4, atol=1e-5):
    """Asserts scopeflow's results for a case equal TF's (names, shapes, values)."""
    assert "error" not in expected, expected
    assert ours["weights"] == expected["weights"]
    assert ours["trainable"] == expected["trainable"]
    assert ours["static"] == expected["static"]
    assert len(ours["values"]) == len(expected["values"])
    for got, want in zip(ours["values"], expected["values"]):
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                                   np.asarray(want, dtype=np.float64), rtol=rtol, atol=atol)
    assert ours["class"] == expected["class"]
    assert ours["config"] == expected["config"]
    assert [g is None for g in ours["grads"]] == [g is None for g in expected["grads"]]
    for got, want in zip(ours["grads"], expected["grads"]):
        if want is not None:
            np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                                       np.asarray(want, dtype=np.float64), rtol=rtol,
                                       atol=atol * 10)
    if "after" in expected:
        _close_nested(ours["after"], expected["after"], rtol, atol)


def _close_nested(got, want, rtol, atol):
    try:
        want_array = np.asarray(want, dtype=np.float64)
    except ValueError:  # ragged: compare part by part
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close_nested(g, w, rtol, atol)
        return
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want_array, rtol=rtol,
                               atol=atol)
