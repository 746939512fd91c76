"""``tf.layers``: TF1's functional layers, creating variables with TF's names.

Each call opens ``variable_scope(<name>)`` — ``dense``, ``dense_1``... numbered per
enclosing variable scope, as TF1's layers number them — so variables are
``dense/kernel``, ``dense/bias`` and ops ``dense/MatMul``, ``dense/BiasAdd``. An explicit
``name`` plus ``reuse=True`` (or an enclosing reusing scope) shares the variables.
"""

from __future__ import annotations

import numpy as np

from scopeflow._api import missing_attribute
from scopeflow.framework.graph import GraphKeys, convert_to_tensor, get_default_graph, name_scope
from scopeflow.ops import array_ops, conv_ops, init_ops, math_ops, nn_ops, pool_ops
from scopeflow.ops.constant_op import constant
from scopeflow.variable_scope import get_variable, get_variable_scope, variable_scope

__all__ = ["dense", "conv2d", "max_pooling2d", "average_pooling2d", "dropout", "flatten"]


def _layer_scope(name, base, reuse=None):
    """The layer's variable scope: ``name``, or ``base``/``base_1``... per enclosing scope."""
    if name is None:
        graph = get_default_graph()
        counts = graph._layer_name_counts
        key = (get_variable_scope().name, base)
        n = counts.get(key, 0)
        counts[key] = n + 1
        name = base if n == 0 else f"{base}_{n}"
    return variable_scope(name, reuse=reuse)


def _pair(value, what):
    if isinstance(value, int):
        return value, value
    value = tuple(int(v) for v in value)
    if len(value) != 2:
        raise ValueError(f"The `{what}` argument must be a tuple of 2 integers. Received: "
                         f"{value}")
    return value


def _padding(padding):
    padding = padding.upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: "
                         f"{padding.lower()}")
    return padding


def _channels_last(data_format):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                         f"'channels_last'. Received: {data_format}")
    if data_format == "channels_first":
        raise NotImplementedError("tf.layers with data_format='channels_first' (NCHW) is not "
                                  "supported on the CPU kernels; use channels_last")


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """A fully connected layer: ``activation(inputs @ kernel + bias)``.

    >>> y = tf.layers.dense(tf.zeros([2, 3]), 4, activation=tf.nn.relu)
    >>> y.name, [v.name for v in tf.trainable_variables()]
    ('dense/Relu:0', ['dense/kernel:0', 'dense/bias:0'])
    """
    inputs = convert_to_tensor(inputs)
    in_dim = inputs.shape[-1].value if inputs.shape.ndims else None
    if in_dim is None:
        raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                         "Found `None`.")
    with _layer_scope(name, "dense", reuse):
        kernel = get_variable("kernel", [in_dim, units], dtype=inputs.dtype.base_dtype,
                              initializer=kernel_initializer, regularizer=kernel_regularizer,
                              constraint=kernel_constraint, trainable=trainable)
        rank = inputs.shape.ndims
        if rank == 2:
            out = math_ops.matmul(inputs, kernel)
        else:
            out = math_ops.tensordot(inputs, kernel, [[rank - 1], [0]])
        return _finish(out, units, use_bias, bias_initializer, bias_regularizer,
                       bias_constraint, trainable, activation, activity_regularizer)


def _finish(out, units, use_bias, bias_initializer, bias_regularizer, bias_constraint,
            trainable, activation, activity_regularizer):
    """The shared end of dense and conv2d: ``bias``, ``BiasAdd``, activation, regularizer."""
    if use_bias:
        bias = get_variable("bias", [units], dtype=out.dtype.base_dtype,
                            initializer=bias_initializer or init_ops.zeros_initializer(),
                            regularizer=bias_regularizer, constraint=bias_constraint,
                            trainable=trainable)
        out = conv_ops.bias_add(out, bias)
    if activation is not None:
        out = activation(out)
    _activity_regularizer(activity_regularizer, out)
    return out


def _activity_regularizer(regularizer, out):
    if regularizer is not None:
        with name_scope("ActivityRegularizer"):
            loss = regularizer(out)
        if loss is not None:
            get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution layer (NHWC): variables ``conv2d/kernel`` ``[kh, kw, in, filters]``
    and ``conv2d/bias``; ops ``conv2d/Conv2D``, ``conv2d/BiasAdd``."""
    _channels_last(data_format)
    inputs = convert_to_tensor(inputs)
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    dh, dw = _pair(dilation_rate, "dilation_rate")
    in_ch = inputs.shape[-1].value if inputs.shape.ndims else None
    if in_ch is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    with _layer_scope(name, "conv2d", reuse):
        kernel = get_variable("kernel", [kh, kw, in_ch, filters],
                              dtype=inputs.dtype.base_dtype, initializer=kernel_initializer,
                              regularizer=kernel_regularizer, constraint=kernel_constraint,
                              trainable=trainable)
        out = conv_ops.conv2d(inputs, kernel, strides=[1, sh, sw, 1], padding=_padding(padding),
                              dilations=[1, dh, dw, 1], name="Conv2D")
        return _finish(out, filters, use_bias, bias_initializer, bias_regularizer,
                       bias_constraint, trainable, activation, activity_regularizer)


def _pooling2d(pool, base, inputs, pool_size, strides, padding, data_format, name):
    _channels_last(data_format)
    ph, pw = _pair(pool_size, "pool_size")
    sh, sw = _pair(strides, "strides")
    with _layer_scope(name, base):
        return pool(convert_to_tensor(inputs), [1, ph, pw, 1], [1, sh, sw, 1], _padding(padding))


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """2-D max pooling (NHWC); op ``max_pooling2d/MaxPool``."""
    return _pooling2d(pool_ops.max_pool, "max_pooling2d", inputs, pool_size, strides, padding,
                      data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """2-D average pooling (NHWC); op ``average_pooling2d/AvgPool``."""
    return _pooling2d(pool_ops.avg_pool, "average_pooling2d", inputs, pool_size, strides,
                      padding, data_format, name)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens all but the first dimension: ``[batch, d1, d2...] -> [batch, d1*d2*...]``."""
    inputs = convert_to_tensor(inputs)
    with _layer_scope(name, "flatten"):
        dims = inputs.shape.as_tuple()
        if dims is not None and all(d is not None for d in dims[1:]):
            batch = dims[0] if dims and dims[0] is not None else -1
            shape = constant([batch, int(np.prod(dims[1:]))], name="Const")
        else:
            shape = array_ops.stack([array_ops.shape(inputs)[0], -1])
        return array_ops.reshape(inputs, shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout at ``rate`` when ``training`` (a bool or a bool tensor); identity otherwise.

    NOTE: with a tensor ``training``, TF1 builds a ``cond``; scopeflow selects between the
    dropped and the plain value (``SelectV2``), so the random op runs on every step.
    """
    with _layer_scope(name, "dropout"):
        if training is True:
            return nn_ops.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed)
        if training is False:
            return array_ops.identity(inputs)
        dropped = nn_ops.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed)
        return math_ops.where_v2(convert_to_tensor(training), dropped,
                                 array_ops.identity(inputs))


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    raise missing_attribute(__name__, name)
