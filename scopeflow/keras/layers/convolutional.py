"""Keras's convolution layers and their spatial helpers (tf_keras
``layers/convolutional`` and ``layers/reshaping``): ``Conv1D/2D/3D``,
``Conv2DTranspose``, ``Conv3DTranspose``, ``SeparableConv1D/2D``, ``DepthwiseConv2D``,
``UpSampling1D/2D/3D``, ``ZeroPadding1D/2D/3D`` and ``Cropping1D/2D/3D``.

Weights are Keras's (``conv2d/kernel:0``, ``conv2d/bias:0``, ``depthwise_kernel``,
``pointwise_kernel``), in Keras's layouts; the math is ``tf.nn``'s convolution ops.
``channels_first`` inputs run as ``channels_last`` between two transposes (the NumPy
kernels are NHWC/NDHWC)."""

from __future__ import annotations

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import activations, constraints, initializers, regularizers
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import array_ops
from scopeflow.ops.image import image_ops
from scopeflow.ops.nn import conv3d_ops, conv_composites, conv_ops

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
           "SeparableConv1D", "SeparableConv2D", "DepthwiseConv2D", "UpSampling1D",
           "UpSampling2D", "UpSampling3D", "ZeroPadding1D", "ZeroPadding2D",
           "ZeroPadding3D", "Cropping1D", "Cropping2D", "Cropping3D", "Convolution1D",
           "Convolution2D", "Convolution3D", "Convolution2DTranspose",
           "Convolution3DTranspose", "SeparableConvolution1D", "SeparableConvolution2D"]


# ── Argument helpers (shared with pooling.py) ────────────────────────────────────────
def _normalize_tuple(value, n, name):
    """Keras's ``conv_utils.normalize_tuple``: an int, or ``n`` ints, as an ``n``-tuple."""
    if isinstance(value, int):
        return (value,) * n
    try:
        value_tuple = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(value_tuple) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    for v in value_tuple:
        try:
            int(v)
        except (ValueError, TypeError):
            raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                             f"Received: {value} including element {v} of type "
                             f"{type(v)}") from None
    return tuple(int(v) for v in value_tuple)


def _data_format(value):
    """``None`` -> the backend's ``image_data_format()``; else checked."""
    if value is None:
        fmt = getattr(K, "image_data_format", None)
        value = fmt() if fmt is not None else "channels_last"
    data_format = value.lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value}')
    return data_format


def _normalize_padding(value, allow_causal=False):
    padding = value.lower() if isinstance(value, str) else value
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                         f'"same"{", causal" if allow_causal else ""}. Received: {padding}')
    return padding


def _conv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """Keras's ``conv_utils.conv_output_length``."""
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        length = input_length
    elif padding == "valid":
        length = input_length - dilated + 1
    else:  # full
        length = input_length + dilated - 1
    return (length + stride - 1) // stride


def _deconv_output_length(input_length, filter_size, padding, output_padding=None, stride=0,
                          dilation=1):
    """Keras's ``conv_utils.deconv_output_length``."""
    if input_length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return input_length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return input_length * stride - (stride + filter_size - 2)
        return input_length * stride
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (input_length - 1) * stride + filter_size - 2 * pad + output_padding


def _to_channels_last(x, rank):
    return array_ops.transpose(x, [0] + list(range(2, rank)) + [1])


def _to_channels_first(x, rank):
    return array_ops.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))


def _dims(shape):
    return TensorShape(shape).as_list()


def _channel_dim(input_shape, data_format, layer):
    dims = _dims(input_shape)
    axis = 1 if data_format == "channels_first" else -1
    if not dims or dims[axis] is None:
        raise ValueError("The channel dimension of the inputs should be defined. The "
                         f"input_shape received is {TensorShape(input_shape)}, where axis "
                         f"{axis} (0-based) is the channel dimension, which found to be "
                         f"`None`. ({type(layer).__name__} layer '{layer.name}')")
    return dims[axis]


def _merged_config(layer, config):
    base = Layer.get_config(layer)
    base.update(config)
    return base


# ── Conv: the N-D convolutions' base ─────────────────────────────────────────────────
class Conv(Layer):
    """An N-D convolution: ``kernel`` of shape ``kernel_size + (in, filters)``, an optional
    ``bias`` of ``filters``, then ``activation``."""

    rank = 2

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.rank = rank
        if isinstance(filters, float):
            filters = int(filters)
        if filters is not None and filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.filters = filters
        self.groups = groups or 1
        if self.groups != 1:
            raise NotImplementedError(f"{type(self).__name__}: groups={groups} (grouped "
                                      "convolution) is not supported")
        self.kernel_size = _normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = _normalize_tuple(strides, rank, "strides")
        self.padding = _normalize_padding(padding, allow_causal=rank == 1)
        self.data_format = _data_format(data_format)
        self.dilation_rate = _normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        if self.padding == "causal" and self.data_format != "channels_last":
            raise ValueError("Causal padding is only supported for `Conv1D` and "
                             "`SeparableConv1D` with data_format 'channels_last'.")

    def _kernel_shape(self, input_channel):
        return self.kernel_size + (input_channel, self.filters)

    def build(self, input_shape):
        input_channel = _channel_dim(input_shape, self.data_format, self)
        self.kernel = self.add_weight(
            name="kernel", shape=self._kernel_shape(input_channel),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self._bias_size(input_channel),),
                initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                constraint=self.bias_constraint, trainable=True, dtype=self.dtype)
        else:
            self.bias = None
        self.built = True

    def _bias_size(self, input_channel):
        return self.filters

    def _causal_pad(self, inputs):
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        return array_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])

    def _op_padding(self):
        return "VALID" if self.padding == "causal" else self.padding.upper()

    def _convolve(self, x):
        """The convolution of a channels-last input."""
        pad = self._op_padding()
        if self.rank == 1:
            x = array_ops.expand_dims(x, 1)
            kernel = array_ops.expand_dims(self.kernel, 0)
            out = conv_ops.conv2d(x, kernel, strides=[1, 1, self.strides[0], 1], padding=pad,
                                  dilations=[1, 1, self.dilation_rate[0], 1])
            return array_ops.squeeze(out, [1])
        if self.rank == 2:
            return conv_ops.conv2d(x, self.kernel, strides=[1, *self.strides, 1], padding=pad,
                                   dilations=[1, *self.dilation_rate, 1])
        return conv3d_ops.conv3d(x, self.kernel, strides=[1, *self.strides, 1], padding=pad,
                                 dilations=[1, *self.dilation_rate, 1])

    def call(self, inputs):
        if self.padding == "causal":
            inputs = self._causal_pad(inputs)
        first = self.data_format == "channels_first"
        rank = inputs.shape.ndims
        if first:
            inputs = _to_channels_last(inputs, rank)
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = conv_ops.bias_add(outputs, self.bias)
        if first:
            outputs = _to_channels_first(outputs, rank)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _spatial_output_shape(self, spatial):
        return [_conv_output_length(d, k, self.padding, s, dilation=r) for d, k, s, r in
                zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]

    def _out_channels(self, input_shape):
        return self.filters

    def compute_output_shape(self, input_shape):
        shape = _dims(input_shape)
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        out = self._spatial_output_shape(spatial)
        channels = self._out_channels(shape)
        if first:
            return TensorShape([shape[0], channels] + out)
        return TensorShape([shape[0]] + out + [channels])

    def get_config(self):
        return _merged_config(self, {
            "filters": self.filters, "kernel_size": self.kernel_size,
            "strides": self.strides, "padding": self.padding,
            "data_format": self.data_format, "dilation_rate": self.dilation_rate,
            "groups": self.groups, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint)})


class Conv1D(Conv):
    """1-D convolution over steps (``[batch, steps, channels]``); ``padding="causal"``
    left-pads so that step ``t`` sees only steps up to ``t``."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


class Conv2D(Conv):
    """2-D convolution (op ``Conv2D``, then ``BiasAdd``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


class Conv3D(Conv):
    """3-D convolution (op ``Conv3D``, then ``BiasAdd``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), groups=1, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)


# ── Transposed convolutions ──────────────────────────────────────────────────────────
class _ConvTranspose(Conv):
    """The transpose of a 2-D or 3-D convolution: ``kernel`` is
    ``kernel_size + (filters, in)``; ``output_padding`` fixes the output size."""

    def __init__(self, rank, filters, kernel_size, strides, padding, output_padding,
                 data_format, dilation_rate, activation, use_bias, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, **kwargs):
        groups = kwargs.pop("groups", 1)
        super().__init__(rank, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, groups, activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = _normalize_tuple(output_padding, rank, "output_padding")
            for stride, out_pad in zip(self.strides, self.output_padding):
                if out_pad >= stride:
                    raise ValueError("Strides must be greater than output padding. Received "
                                     f"strides={self.strides}, "
                                     f"output_padding={self.output_padding}.")

    def _kernel_shape(self, input_channel):
        return self.kernel_size + (self.filters, input_channel)

    def _spatial_output_shape(self, spatial):
        pads = self.output_padding or (None,) * self.rank
        return [_deconv_output_length(d, k, self.padding, p, s, r) for d, k, p, s, r in
                zip(spatial, self.kernel_size, pads, self.strides, self.dilation_rate)]

    def _convolve(self, x):
        shape = array_ops.shape(x)
        static = x.shape.as_list()
        spatial = [static[i] if static[i] is not None else shape[i]
                   for i in range(1, self.rank + 1)]
        pads = self.output_padding or (None,) * self.rank
        out_spatial = [_deconv_output_length(d, k, self.padding, p, s, r) for d, k, p, s, r in
                       zip(spatial, self.kernel_size, pads, self.strides, self.dilation_rate)]
        output_shape = array_ops.stack([shape[0], *out_spatial, self.filters])
        fn = conv_ops.conv2d_transpose if self.rank == 2 else conv3d_ops.conv3d_transpose
        kwargs = {}
        if any(r != 1 for r in self.dilation_rate):
            kwargs["dilations"] = [1, *self.dilation_rate, 1]
        out = fn(x, self.kernel, output_shape, strides=[1, *self.strides, 1],
                 padding=self.padding.upper(), **kwargs)
        static_out = [static[0]] + self._spatial_output_shape(static[1:-1]) + [self.filters]
        out.set_shape(static_out)
        return out

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = self.output_padding
        if self.rank == 3:
            config.pop("dilation_rate")  # Keras's Conv3DTranspose config has none
        return config


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution (op ``Conv2DBackpropInput``, then ``BiasAdd``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution (op ``Conv3DBackpropInputV2``, then ``BiasAdd``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides, padding, output_padding,
                         data_format, dilation_rate, activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)


# ── Separable and depthwise convolutions ─────────────────────────────────────────────
class _SeparableConv(Conv):
    """A depthwise convolution (``depthwise_kernel``, ``depth_multiplier`` filters per
    channel) then a 1x1 one (``pointwise_kernel``) mixing the channels."""

    def __init__(self, rank, filters, kernel_size, strides, padding, data_format,
                 dilation_rate, depth_multiplier, activation, use_bias,
                 depthwise_initializer, pointwise_initializer, bias_initializer,
                 depthwise_regularizer, pointwise_regularizer, bias_regularizer,
                 activity_regularizer, depthwise_constraint, pointwise_constraint,
                 bias_constraint, **kwargs):
        # Keras's config also has the (unused) kernel_* arguments and groups.
        groups = kwargs.pop("groups", 1)
        kernel_initializer = kwargs.pop("kernel_initializer", "glorot_uniform")
        kernel_regularizer = kwargs.pop("kernel_regularizer", None)
        kernel_constraint = kwargs.pop("kernel_constraint", None)
        super().__init__(rank, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, groups, activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        input_dim = _channel_dim(input_shape, self.data_format, self)
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=self.kernel_size + (input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self.rank + (self.depth_multiplier * input_dim, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        else:
            self.bias = None
        self.built = True

    def _convolve(self, x):
        pad = self._op_padding()
        if self.rank == 1:
            x = array_ops.expand_dims(x, 1)
            depthwise = array_ops.expand_dims(self.depthwise_kernel, 0)
            pointwise = array_ops.expand_dims(self.pointwise_kernel, 0)
            out = conv_composites.separable_conv2d(
                x, depthwise, pointwise, strides=[1, 1, self.strides[0], 1], padding=pad,
                rate=[1, self.dilation_rate[0]])
            return array_ops.squeeze(out, [1])
        return conv_composites.separable_conv2d(
            x, self.depthwise_kernel, self.pointwise_kernel,
            strides=[1, *self.strides, 1], padding=pad, rate=list(self.dilation_rate))

    def get_config(self):
        config = super().get_config()
        config.update({
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "pointwise_constraint": constraints.serialize(self.pointwise_constraint)})
        return config


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution (run as 2-D over ``[batch, 1, steps, c]``)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution (``tf.nn.separable_conv2d``, then ``BiasAdd``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)


class DepthwiseConv2D(Conv2D):
    """Depthwise 2-D convolution: ``depth_multiplier`` filters per input channel
    (``depthwise_kernel`` ``[kh, kw, in, depth_multiplier]``; bias of ``in * dm``)."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters=None, kernel_size=kernel_size, strides=strides,
                         padding=padding, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, bias_initializer=bias_initializer,
                         **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape):
        dims = _dims(input_shape)
        if len(dims) != 4:
            raise ValueError("Inputs to `DepthwiseConv2D` should have rank 4. Received "
                             f"input_shape={TensorShape(input_shape)}.")
        input_dim = _channel_dim(input_shape, self.data_format, self)
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=self.kernel_size + (input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(input_dim * self.depth_multiplier,),
                initializer=self.bias_initializer, regularizer=self.bias_regularizer,
                constraint=self.bias_constraint, dtype=self.dtype)
        else:
            self.bias = None
        self.built = True

    def _convolve(self, x):
        return conv_ops.depthwise_conv2d(x, self.depthwise_kernel,
                                         strides=[1, *self.strides, 1],
                                         padding=self.padding.upper(),
                                         rate=list(self.dilation_rate))

    def _out_channels(self, input_shape):
        channels = input_shape[1] if self.data_format == "channels_first" else input_shape[-1]
        return None if channels is None else channels * self.depth_multiplier

    def get_config(self):
        config = super().get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer",
                    "kernel_constraint"):
            config.pop(key, None)
        config.update({
            "depth_multiplier": self.depth_multiplier,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint)})
        return config


# ── UpSampling ───────────────────────────────────────────────────────────────────────
def _repeat_elements(x, rep, axis):
    """Keras's ``backend.repeat_elements``: each slice along ``axis`` repeated ``rep``
    times (``[a, b]`` -> ``[a, a, b, b]``); expand, tile and reshape."""
    if rep == 1:
        return x
    dims = x.shape.as_list()
    shape = array_ops.shape(x)
    expanded = array_ops.expand_dims(x, axis + 1)
    multiples = [1] * (len(dims) + 1)
    multiples[axis + 1] = rep
    tiled = array_ops.tile(expanded, multiples)
    new_shape = [dims[i] if dims[i] is not None else shape[i] for i in range(len(dims))]
    new_shape[axis] = new_shape[axis] * rep
    if any(not isinstance(d, int) for d in new_shape):
        new_shape = array_ops.stack(new_shape)
    out = array_ops.reshape(tiled, new_shape)
    out.set_shape([None if d is None else (d * rep if i == axis else d)
                   for i, d in enumerate(dims)])
    return out


class UpSampling1D(Layer):
    """Repeats each step ``size`` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        return _repeat_elements(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        steps = None if dims[1] is None else self.size * dims[1]
        return TensorShape([dims[0], steps, dims[2]])

    def get_config(self):
        return _merged_config(self, {"size": self.size})


class UpSampling2D(Layer):
    """Repeats rows ``size[0]`` and columns ``size[1]`` times (``interpolation="nearest"``)
    or resizes bilinearly (``"bilinear"``, half-pixel centres as ``tf.image.resize``)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.size = _normalize_tuple(size, 2, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError('`interpolation` argument should be one of `"nearest"` or '
                             f'`"bilinear"`. Received: "{interpolation}".')
        self.interpolation = interpolation

    def call(self, inputs):
        first = self.data_format == "channels_first"
        x = _to_channels_last(inputs, 4) if first else inputs
        if self.interpolation == "nearest":
            out = _repeat_elements(_repeat_elements(x, self.size[0], 1), self.size[1], 2)
        else:
            dims = x.shape.as_list()
            if dims[1] is None or dims[2] is None:
                shape = array_ops.shape(x)
                new_size = array_ops.stack([shape[1] * self.size[0], shape[2] * self.size[1]])
            else:
                new_size = [dims[1] * self.size[0], dims[2] * self.size[1]]
            out = image_ops.resize_bilinear(x, new_size, half_pixel_centers=True)
        return _to_channels_first(out, 4) if first else out

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        first = self.data_format == "channels_first"
        h, w = (dims[2], dims[3]) if first else (dims[1], dims[2])
        h = None if h is None else h * self.size[0]
        w = None if w is None else w * self.size[1]
        if first:
            return TensorShape([dims[0], dims[1], h, w])
        return TensorShape([dims[0], h, w, dims[3]])

    def get_config(self):
        return _merged_config(self, {"size": self.size, "data_format": self.data_format,
                                     "interpolation": self.interpolation})


class UpSampling3D(Layer):
    """Repeats each of the three spatial dimensions ``size[i]`` times."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.size = _normalize_tuple(size, 3, "size")

    def call(self, inputs):
        offset = 2 if self.data_format == "channels_first" else 1
        out = inputs
        for i, rep in enumerate(self.size):
            out = _repeat_elements(out, rep, offset + i)
        return out

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        offset = 2 if self.data_format == "channels_first" else 1
        for i, rep in enumerate(self.size):
            if dims[offset + i] is not None:
                dims[offset + i] *= rep
        return TensorShape(dims)

    def get_config(self):
        return _merged_config(self, {"size": self.size, "data_format": self.data_format})


# ── ZeroPadding and Cropping ─────────────────────────────────────────────────────────
def _pairs(value, rank, name):
    """An int, ``rank`` ints (symmetric) or ``rank`` pairs as ``rank`` ``(before, after)``."""
    if isinstance(value, int):
        return ((value, value),) * rank
    value = tuple(value)
    if rank == 1 and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (tuple(value),)
    if len(value) != rank:
        raise ValueError(f"`{name}` should have {rank} elements. Received: {value}.")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, int):
            out.append((v, v))
        else:
            out.append(_normalize_tuple(v, 2, f"{i + 1}st entry of {name}"))
    return tuple(out)


class _Padding(Layer):
    _rank = 2

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = "channels_last" if self._rank == 1 else _data_format(data_format)
        self.padding = _pairs(padding, self._rank, "padding")

    def call(self, inputs):
        spatial = [list(p) for p in self.padding]
        if self.data_format == "channels_first":
            paddings = [[0, 0], [0, 0]] + spatial
        else:
            paddings = [[0, 0]] + spatial + [[0, 0]]
        return array_ops.pad(inputs, paddings)

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        offset = 2 if self.data_format == "channels_first" else 1
        for i, (a, b) in enumerate(self.padding):
            if dims[offset + i] is not None:
                dims[offset + i] += a + b
        return TensorShape(dims)

    def get_config(self):
        config = {"padding": self.padding[0] if self._rank == 1 else self.padding}
        if self._rank != 1:
            config["data_format"] = self.data_format
        return _merged_config(self, config)


class ZeroPadding1D(_Padding):
    """Pads steps with zeros: ``padding`` an int or ``(left, right)``."""

    _rank = 1

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, **kwargs)


class ZeroPadding2D(_Padding):
    """Pads rows and columns with zeros: ``padding`` an int, ``(h, w)`` or
    ``((top, bottom), (left, right))``."""

    _rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding3D(_Padding):
    """Pads three spatial dimensions with zeros."""

    _rank = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class _Cropping(Layer):
    _rank = 2

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = "channels_last" if self._rank == 1 else _data_format(data_format)
        self.cropping = _pairs(cropping, self._rank, "cropping")

    def call(self, inputs):
        offset = 2 if self.data_format == "channels_first" else 1
        rank = inputs.shape.ndims
        begin = [0] * rank
        size = [-1] * rank
        dims = inputs.shape.as_list()
        dynamic = None
        for i, (a, b) in enumerate(self.cropping):
            axis = offset + i
            begin[axis] = a
            if dims[axis] is not None:
                size[axis] = dims[axis] - a - b
            else:
                if dynamic is None:
                    dynamic = array_ops.shape(inputs)
                size[axis] = dynamic[axis] - (a + b)
        if dynamic is not None:
            size = array_ops.stack(size)
        return array_ops.slice(inputs, begin, size)

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        offset = 2 if self.data_format == "channels_first" else 1
        for i, (a, b) in enumerate(self.cropping):
            if dims[offset + i] is not None:
                dims[offset + i] -= a + b
        return TensorShape(dims)

    def get_config(self):
        config = {"cropping": self.cropping[0] if self._rank == 1 else self.cropping}
        if self._rank != 1:
            config["data_format"] = self.data_format
        return _merged_config(self, config)


class Cropping1D(_Cropping):
    """Crops ``(start, end)`` steps."""

    _rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, **kwargs)


class Cropping2D(_Cropping):
    """Crops rows and columns: ``((top, bottom), (left, right))``."""

    _rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops three spatial dimensions."""

    _rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


# Keras's aliases.
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution2DTranspose, Convolution3DTranspose = Conv2DTranspose, Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
