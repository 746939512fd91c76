"""``Dense``, ``Flatten``, ``Dropout`` and their functional forms."""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import convert_to_tensor
from scopeflow.layers.base import Layer, _apply_layer, _select
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.nn import conv_ops
from scopeflow.ops.state import init_ops


# ── Dense ────────────────────────────────────────────────────────────────────────────
class _Biased(Layer):
    """Dense and Conv2D's shared pieces: ``kernel``, ``bias``, BiasAdd, the activation."""

    def __init__(self, units, activation, use_bias, kernel_initializer, bias_initializer,
                 kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer or init_ops.zeros_initializer()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.activity_regularizer = activity_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.kernel = self.bias = None

    def _build_weights(self, kernel_shape):
        self.kernel = self.add_weight("kernel", kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _finish(self, out):
        if self.use_bias:
            out = conv_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out


class Dense(_Biased):
    """A fully connected layer: ``activation(inputs @ kernel + bias)``; ``kernel`` is
    ``[in, units]``, ops ``dense/MatMul`` (``Tensordot`` above rank 2), ``dense/BiasAdd``.

    >>> layer = tf.layers.Dense(4)
    >>> y = layer(tf.zeros([2, 3]))
    >>> layer.kernel.name, y.name
    ('dense/kernel:0', 'dense/BiasAdd:0')
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(int(units), activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint,
                         trainable=trainable, name=name, **kwargs)

    def build(self, input_shape):
        in_dim = input_shape[-1].value if input_shape.ndims else None
        if in_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self._build_weights([in_dim, self.units])

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank == 2:
            out = math_ops.matmul(inputs, self.kernel)
        else:
            out = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
        return self._finish(out)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """A fully connected layer: ``activation(inputs @ kernel + bias)`` (see ``Dense``).

    >>> y = tf.layers.dense(tf.zeros([2, 3]), 4, activation=tf.nn.relu)
    >>> y.name, [v.name for v in tf.trainable_variables()]
    ('dense/Relu:0', ['dense/kernel:0', 'dense/bias:0'])
    """
    return _apply_layer(Dense, locals())


# ── Flatten ──────────────────────────────────────────────────────────────────────────
class Flatten(Layer):
    """Flattens all but the first dimension: ``[batch, d1, d2...] -> [batch, d1*d2*...]``
    (``channels_first`` inputs are moved to channels-last order first, as TF)."""

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                             f"'channels_last'. Received: {data_format}")
        self.data_format = data_format

    def call(self, inputs):
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            inputs = array_ops.transpose(inputs, [0, *range(2, rank), 1])
        if rank == 1:
            return array_ops.expand_dims(inputs, 1)
        dims = inputs.shape.as_tuple()
        if dims is not None and all(d is not None for d in dims[1:]):
            shape = constant([-1, int(np.prod(dims[1:]))], name="Const")
        elif dims is not None and dims[0] is not None:
            shape = constant([int(dims[0]), -1], name="Const")
        else:
            shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, shape)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens all but the first dimension; see ``Flatten``."""
    return _apply_layer(Flatten, locals())

class Dropout(Layer):
    """Dropout at ``rate`` when ``training`` (a bool or a bool tensor); ``Identity`` else."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return array_ops.identity(inputs)
        return _select(training,
                       lambda: nn_ops.dropout(inputs, rate=self.rate,
                                              noise_shape=self._noise_shape(inputs),
                                              seed=self.seed),
                       lambda: array_ops.identity(inputs))

    def _noise_shape(self, inputs):
        """TF's nodes: the input's ``Shape`` (a ``None`` entry takes its dimension), then
        the list as one tensor (``<layer>/Const``, or ``stack`` with a ``None``)."""
        if self.noise_shape is None:
            return None
        shape = array_ops.shape(inputs)
        return convert_to_tensor([shape[i] if n is None else n
                                  for i, n in enumerate(self.noise_shape)])


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout at ``rate`` when ``training``; see ``Dropout``."""
    return _apply_layer(Dropout, locals())
