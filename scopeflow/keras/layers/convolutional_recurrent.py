"""Keras's convolutional LSTM as TF1 built it: ``ConvLSTM2D``, an ``RNN`` (recurrent.py's
time loop, masks and dropout) over a cell whose gates are 2-D convolutions.

The weights are tf_keras's, under the layer's scope only (``conv_lstm2d/kernel:0``):
``kernel`` ``kernel_size + (channels, 4 * filters)``, ``recurrent_kernel``
``kernel_size + (filters, 4 * filters)``, ``bias`` ``(4 * filters,)``, gates in the order
``i, f, c, o``. The input convolutions take the layer's ``strides``, ``padding`` and
``dilation_rate``; the recurrent ones are ``"same"`` with stride 1. Inputs are
``[batch, time, rows, cols, channels]`` (``channels_last``)."""

from __future__ import annotations

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import activations, constraints, initializers, regularizers
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.keras.layers.convolutional import (
    _conv_output_length,
    _data_format,
    _normalize_padding,
    _normalize_tuple,
)
from scopeflow.keras.layers.recurrent import (
    RNN,
    _DropoutMixin,
    _inherit_dtype,
    _merged_config,
)
from scopeflow.ops import array_ops
from scopeflow.ops.nn import conv_ops

__all__ = ["ConvLSTM2D"]


def _dims(shape):
    return TensorShape(shape).as_list()


class ConvLSTM2DCell(_DropoutMixin, Layer):
    """One ConvLSTM step: ``i, f, o = recurrent_activation(conv(x, W) + conv(h, U) + b)``,
    ``c = f * c_prev + i * activation(conv(x, W_c) + conv(h, U_c) + b_c)``,
    ``h = o * activation(c)``; states ``[h, c]``."""

    _gates = 4

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size = _normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = _normalize_tuple(strides, 2, "strides")
        self.padding = _normalize_padding(padding)
        self.data_format = _data_format(data_format)
        if self.data_format != "channels_last":
            raise NotImplementedError("ConvLSTM2D(data_format='channels_first') is not "
                                      "implemented in scopeflow's tf.keras")
        self.dilation_rate = _normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.state_size = (self.filters, self.filters)
        self.output_size = None

    def spatial_output(self, rows, cols):
        return [_conv_output_length(d, k, self.padding, s, dilation=r) for d, k, s, r in
                zip((rows, cols), self.kernel_size, self.strides, self.dilation_rate)]

    def build(self, input_shape):
        dims = _dims(input_shape)
        if dims[-1] is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        out = self.spatial_output(dims[1], dims[2])
        if None in out:
            raise NotImplementedError("ConvLSTM2D with unknown rows or columns is not "
                                      "implemented in scopeflow's tf.keras; got input "
                                      f"shape {TensorShape(input_shape)}")
        self.output_size = TensorShape(out + [self.filters])
        self.kernel_shape = self.kernel_size + (dims[-1], self.filters * 4)
        self.kernel = self.add_weight(
            shape=self.kernel_shape, initializer=self.kernel_initializer, name="kernel",
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=self.kernel_size + (self.filters, self.filters * 4),
            initializer=self.recurrent_initializer, name="recurrent_kernel",
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint)
        if self.use_bias:
            if self.unit_forget_bias:
                filters, bias_initializer = self.filters, self.bias_initializer

                def initializer(shape, dtype=None, partition_info=None, **kwargs):
                    return array_ops.concat([
                        bias_initializer((filters,), dtype=dtype),
                        initializers.get("ones")((filters,), dtype=dtype),
                        bias_initializer((filters * 2,), dtype=dtype)], axis=0)
            else:
                initializer = self.bias_initializer
            self.bias = self.add_weight(shape=(self.filters * 4,), name="bias",
                                        initializer=initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def input_conv(self, x, w, b=None):
        out = conv_ops.conv2d(x, w, strides=[1, *self.strides, 1],
                              padding=self.padding.upper(),
                              dilations=[1, *self.dilation_rate, 1])
        if b is not None:
            out = conv_ops.bias_add(out, b)
        return out

    def recurrent_conv(self, x, w):
        return conv_ops.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")

    def call(self, inputs, states, training=None):
        h_tm1, c_tm1 = states[0], states[1]
        f = self.filters
        xs = []
        hs = []
        for g in range(4):
            x_g = inputs * self._input_masks[g] if self._input_masks else inputs
            h_g = h_tm1 * self._recurrent_masks[g] if self._recurrent_masks else h_tm1
            b_g = self.bias[g * f:(g + 1) * f] if self.bias is not None else None
            xs.append(self.input_conv(x_g, self.kernel[..., g * f:(g + 1) * f], b_g))
            hs.append(self.recurrent_conv(h_g, self.recurrent_kernel[..., g * f:(g + 1) * f]))
        i = self.recurrent_activation(xs[0] + hs[0])
        fg = self.recurrent_activation(xs[1] + hs[1])
        c = fg * c_tm1 + i * self.activation(xs[2] + hs[2])
        o = self.recurrent_activation(xs[3] + hs[3])
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = {
            "filters": self.filters, "kernel_size": self.kernel_size,
            "strides": self.strides, "padding": self.padding,
            "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout}
        return _merged_config(self, config)


_CELL_ARGS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout")


class ConvLSTM2D(RNN):
    """A convolutional LSTM over ``[batch, time, rows, cols, channels]`` inputs: the output
    is the last step's ``h`` ``[batch, rows', cols', filters]`` (every step's with
    ``return_sequences``), then ``[h, c]`` with ``return_state``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        if kwargs.pop("unroll", False):
            raise TypeError("Unrolling is not possible with convolutional RNNs. Received: "
                            "unroll=True")
        kwargs.pop("time_major", None)
        if stateful:
            raise NotImplementedError("ConvLSTM2D(stateful=True) is not implemented in "
                                      "scopeflow's tf.keras")
        cell = ConvLSTM2DCell(
            filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
            recurrent_activation=recurrent_activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, name="conv_lstm_cell",
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True))
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=False,
                         activity_regularizer=activity_regularizer, **kwargs)

    def _init_set_name(self, name, zero_based=True):
        # tf_keras 2.21's default name (TF 1.15's snake case made it "conv_lst_m2d").
        if not name:
            self._name = K.unique_object_name("conv_lstm2d", zero_based=zero_based)
        else:
            self._name = name

    def __getattr__(self, name):
        # filters, kernel_size, activation, ...: the cell's.
        if name.startswith("_") or name in ("cell",):
            raise AttributeError(name)
        cell = self.__dict__.get("cell")
        if cell is not None and name in _CELL_ARGS:
            return getattr(cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def build(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                not isinstance(input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        dims = _dims(input_shape)
        if len(dims) != 5:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the "
                             f"layer: expected ndim=5, found ndim={len(dims)}. Full shape "
                             f"received: {TensorShape(input_shape)}")
        if not self.cell.built:
            # tf_keras's ConvRNN builds its cell under the layer's own scope.
            _inherit_dtype(self.cell, self)
            self.cell.build(TensorShape([dims[0]] + dims[2:]))
        self.built = True

    def get_initial_state(self, inputs):
        # tf_keras's: the time-summed zeros through the input convolution, so the state has
        # the output's rows and columns.
        zeros = array_ops.zeros_like(inputs[:, 0])
        shape = list(self.cell.kernel_shape)
        shape[-1] = self.cell.filters
        state = self.cell.input_conv(zeros, array_ops.zeros(shape, dtype=zeros.dtype))
        return [state, state]

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list) and input_shape and \
                not isinstance(input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        dims = _dims(input_shape)
        out = self.cell.spatial_output(dims[2], dims[3]) + [self.cell.filters]
        output_shape = TensorShape(dims[:2] + out if self.return_sequences
                                   else [dims[0]] + out)
        if self.return_state:
            return [output_shape] + [TensorShape([dims[0]] + out)] * 2
        return output_shape

    def get_config(self):
        config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            config.pop(key, None)
        base = RNN.get_config(self)
        base.pop("cell")
        base.update(config)
        base["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return base

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)
