"""``Conv1D``, ``Conv2D``, ``Conv3D``, ``SeparableConv1D``, ``SeparableConv2D``,
``Conv2DTranspose``,
``Conv3DTranspose`` and their functional forms."""

from __future__ import annotations

from scopeflow.layers.base import _apply_layer, _channels_last, _forwarded, _padding, _tuple
from scopeflow.layers.core import _Biased
from scopeflow.ops import array_ops
from scopeflow.ops.nn import conv3d_ops, conv_composites, conv_ops


# ── Conv2D ───────────────────────────────────────────────────────────────────────────
class Conv2D(_Biased):
    """A 2-D convolution layer (NHWC): ``kernel`` ``[kh, kw, in, filters]`` and ``bias``;
    ops ``conv2d/Conv2D``, ``conv2d/BiasAdd``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(int(filters), activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint,
                         trainable=trainable, name=name, **kwargs)
        self.filters = self.units
        self.kernel_size = _tuple(kernel_size, 2, "kernel_size")
        self.strides = _tuple(strides, 2, "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)
        self.dilation_rate = _tuple(dilation_rate, 2, "dilation_rate")

    def build(self, input_shape):
        in_ch = input_shape[-1].value if input_shape.ndims else None
        if in_ch is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}, where axis -1 (0-based) "
                             "is the channel dimension, which found to be `None`.")
        self._build_weights([*self.kernel_size, in_ch, self.filters])

    def call(self, inputs):
        (sh, sw), (dh, dw) = self.strides, self.dilation_rate
        out = conv_ops.conv2d(inputs, self.kernel, strides=[1, sh, sw, 1], padding=self.padding,
                              dilations=[1, dh, dw, 1], name="Conv2D")
        return self._finish(out)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution layer (NHWC); see ``Conv2D``."""
    return _apply_layer(Conv2D, locals())


# ── Conv1D ───────────────────────────────────────────────────────────────────────────
class Conv1D(Conv2D):
    """A 1-D convolution layer of ``[batch, steps, channels]``: ``kernel``
    ``[k, in, filters]`` and ``bias``; ops ``conv1d/Conv1D/ExpandDims``, ``conv1d/Conv1D``
    (the ``Conv2D``), ``conv1d/Conv1D/Squeeze``, ``conv1d/BiasAdd``, as TF's.
    ``padding="causal"`` pads the start of the steps first (``conv1d/Pad``)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        causal = isinstance(padding, str) and padding.lower() == "causal"
        super().__init__(filters, 1, strides=1, padding="valid" if causal else padding,
                         data_format=data_format, dilation_rate=1, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)
        self.kernel_size = _tuple(kernel_size, 1, "kernel_size")
        self.strides = _tuple(strides, 1, "strides")
        self.dilation_rate = _tuple(dilation_rate, 1, "dilation_rate")
        self.padding = "CAUSAL" if causal else self.padding

    def build(self, input_shape):
        if input_shape.ndims is not None and input_shape.ndims != 3:
            raise ValueError(f"Input 0 of layer conv1d is incompatible with the layer: "
                             f"expected ndim=3, found ndim={input_shape.ndims}. Full shape "
                             f"received: {input_shape}")
        super().build(input_shape)

    def call(self, inputs):
        padding = self.padding
        if padding == "CAUSAL":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = array_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "VALID"
        out = conv_composites.conv1d(inputs, self.kernel, stride=self.strides[0],
                                     padding=padding, dilations=self.dilation_rate[0],
                                     name="Conv1D")
        return self._finish(out)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 1-D convolution layer (``[batch, steps, channels]``); see ``Conv1D``.

    >>> y = tf.layers.conv1d(tf.zeros([2, 5, 3]), 4, 2)
    >>> y.name, [v.name for v in tf.trainable_variables()]
    ('conv1d/BiasAdd:0', ['conv1d/kernel:0', 'conv1d/bias:0'])
    """
    return _apply_layer(Conv1D, locals())


# ── Conv3D ───────────────────────────────────────────────────────────────────────────
class Conv3D(Conv2D):
    """A 3-D convolution layer (NDHWC): ``kernel`` ``[kd, kh, kw, in, filters]`` and
    ``bias``; ops ``conv3d/Conv3D``, ``conv3d/BiasAdd``."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, 1, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, data_format=data_format, **kwargs)
        self.kernel_size = _tuple(kernel_size, 3, "kernel_size")
        self.strides = _tuple(strides, 3, "strides")
        self.padding = _padding(padding)
        self.dilation_rate = _tuple(dilation_rate, 3, "dilation_rate")

    def call(self, inputs):
        out = conv3d_ops.conv3d(inputs, self.kernel, strides=[1, *self.strides, 1],
                                padding=self.padding, dilations=[1, *self.dilation_rate, 1],
                                name="Conv3D")
        return self._finish(out)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 3-D convolution layer (NDHWC); see ``Conv3D``."""
    return _apply_layer(Conv3D, locals())


# ── SeparableConv2D ──────────────────────────────────────────────────────────────────
class SeparableConv2D(Conv2D):
    """A depthwise-separable 2-D convolution (NHWC): ``depthwise_kernel``
    ``[kh, kw, in, depth_multiplier]``, ``pointwise_kernel``
    ``[1, 1, in * depth_multiplier, filters]``, ``bias``; ops
    ``separable_conv2d/separable_conv2d/depthwise``, ``separable_conv2d/separable_conv2d``
    (the 1x1 ``Conv2D``), ``separable_conv2d/BiasAdd``, as TF's."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=None,
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint
        self.depthwise_kernel = self.pointwise_kernel = None

    def build(self, input_shape):
        if input_shape.ndims is not None and input_shape.ndims != 4:
            raise ValueError(f"Inputs to `SeparableConv2D` should have rank 4. Received "
                             f"input shape: {input_shape}")
        in_ch = input_shape[-1].value if input_shape.ndims else None
        if in_ch is None:
            raise ValueError("The channel dimension of the inputs to `SeparableConv2D` "
                             "should be defined. Found `None`.")
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, in_ch, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1, 1, in_ch * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def call(self, inputs):
        out = conv_composites.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel,
            strides=[1, *self.strides, 1], padding=self.padding, rate=self.dilation_rate)
        return self._finish(out)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A depthwise-separable 2-D convolution layer (NHWC); see ``SeparableConv2D``."""
    return _apply_layer(SeparableConv2D, locals())


# ── SeparableConv1D ──────────────────────────────────────────────────────────────────
class SeparableConv1D(SeparableConv2D):
    """A depthwise-separable 1-D convolution of ``[batch, steps, channels]``:
    ``depthwise_kernel`` ``[k, in, depth_multiplier]``, ``pointwise_kernel``
    ``[1, in * depth_multiplier, filters]``, ``bias``. As TF's (tf_keras): inputs and
    kernels get a unit height (``ExpandDims``), then ``separable_conv2d``, the ``BiasAdd``
    in 4-D, ``Squeeze``, and the activation; ``padding="causal"`` pads the start first."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=None,
                 depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        causal = isinstance(padding, str) and padding.lower() == "causal"
        super().__init__(filters, 1, strides=1, padding="valid" if causal else padding,
                         data_format=data_format, dilation_rate=1,
                         depth_multiplier=depth_multiplier, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         pointwise_initializer=pointwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         pointwise_regularizer=pointwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         pointwise_constraint=pointwise_constraint,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self.kernel_size = _tuple(kernel_size, 1, "kernel_size")
        self.strides = _tuple(strides, 1, "strides")
        self.dilation_rate = _tuple(dilation_rate, 1, "dilation_rate")
        self.padding = "CAUSAL" if causal else self.padding

    def build(self, input_shape):
        if input_shape.ndims is not None and input_shape.ndims != 3:
            raise ValueError(f"Input 0 of layer separable_conv1d is incompatible with the "
                             f"layer: expected ndim=3, found ndim={input_shape.ndims}. Full "
                             f"shape received: {input_shape}")
        in_ch = input_shape[-1].value if input_shape.ndims else None
        if in_ch is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [self.kernel_size[0], in_ch, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1, in_ch * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def call(self, inputs):
        padding = self.padding
        if padding == "CAUSAL":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = array_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "VALID"
        s = self.strides[0]
        inputs = array_ops.expand_dims(inputs, 1)
        depthwise = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise = array_ops.expand_dims(self.pointwise_kernel, 0)
        out = conv_composites.separable_conv2d(
            inputs, depthwise, pointwise, strides=[1, s, s, 1], padding=padding,
            rate=[1, self.dilation_rate[0]])
        if self.use_bias:
            out = conv_ops.bias_add(out, self.bias)
        out = array_ops.squeeze(out, [1])
        if self.activation is not None:
            out = self.activation(out)
        return out


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
                     data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=None,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A depthwise-separable 1-D convolution layer; see ``SeparableConv1D``.

    >>> y = tf.layers.separable_conv1d(tf.zeros([2, 5, 3]), 4, 2)
    >>> y.name, [v.name for v in tf.trainable_variables()][:2]
    ('separable_conv1d/Squeeze:0', ['separable_conv1d/depthwise_kernel:0', \
'separable_conv1d/pointwise_kernel:0'])
    """
    return _apply_layer(SeparableConv1D, locals())


# ── Conv2DTranspose ──────────────────────────────────────────────────────────────────
def _deconv_length(size, k, padding, stride):
    """TF's ``deconv_output_length`` (no output padding, no dilation); ``size`` may be a
    tensor (an unknown dimension)."""
    if padding == "VALID":
        return size * stride + max(k - stride, 0)
    return size * stride


class Conv2DTranspose(Conv2D):
    """The transpose of a 2-D convolution (NHWC), as TF's: ``kernel``
    ``[kh, kw, filters, in]``, ops ``conv2d_transpose/stack`` (the output shape) and
    ``conv2d_transpose/conv2d_transpose`` (``Conv2DBackpropInput``), ``BiasAdd``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        # TF's signature (no dilation_rate), passed on as it is.
        super().__init__(**_forwarded(locals()))

    def build(self, input_shape):
        if input_shape.ndims != 4:
            raise ValueError(f"Inputs should have rank 4. Received input_shape="
                             f"{input_shape}.")
        in_ch = input_shape[-1].value
        if in_ch is None:
            raise ValueError("The channel dimension of the inputs to `Conv2DTranspose` should "
                             "be defined. The input_shape received is "
                             f"{input_shape}, where axis -1 (0-based) is the channel "
                             "dimension, which found to be `None`.")
        self._build_weights([*self.kernel_size, self.filters, in_ch])

    def call(self, inputs):
        dims = inputs.shape.as_tuple()
        shape = array_ops.shape(inputs)
        batch = shape[0]
        sizes = [dims[i] if dims[i] is not None else shape[i] for i in (1, 2)]
        out_hw = [_deconv_length(size, k, self.padding, s)
                  for size, k, s in zip(sizes, self.kernel_size, self.strides)]
        output_shape = array_ops.stack([batch, *out_hw, self.filters])
        # TF's Keras backend tests ``output_shape[0] is None`` on the stacked tensor, which
        # leaves an unused ``strided_slice_1`` in the graph; built here for TF's node list.
        output_shape[0]  # noqa: B018
        out = conv_ops.conv2d_transpose(inputs, self.kernel, output_shape,
                                        strides=[1, *self.strides, 1], padding=self.padding)
        out.set_shape([dims[0], *[v if isinstance(v, int) else None for v in out_hw],
                       self.filters])
        return self._finish(out)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A transposed 2-D convolution (NHWC); see ``Conv2DTranspose``."""
    return _apply_layer(Conv2DTranspose, locals())


# ── Conv3DTranspose ──────────────────────────────────────────────────────────────────
class Conv3DTranspose(Conv3D):
    """The transpose of a 3-D convolution (NDHWC), as TF's: ``kernel``
    ``[kd, kh, kw, filters, in]``, ops ``conv3d_transpose/stack`` (the output shape) and
    ``conv3d_transpose/conv3d_transpose`` (``Conv3DBackpropInputV2``), ``BiasAdd``."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        # TF's signature (no dilation_rate), passed on as it is.
        super().__init__(**_forwarded(locals()))

    def build(self, input_shape):
        if input_shape.ndims != 5:
            raise ValueError(f"Inputs should have rank 5, received input shape: "
                             f"{input_shape}")
        in_ch = input_shape[-1].value
        if in_ch is None:
            raise ValueError("The channel dimension of the inputs should be defined, found "
                             "None: " + str(input_shape))
        self._build_weights([*self.kernel_size, self.filters, in_ch])

    def call(self, inputs):
        dims = inputs.shape.as_tuple()
        shape = array_ops.shape(inputs)
        # TF's Keras layer takes every size from the run-time shape, known or not (its
        # nodes: strided_slice_1..3, mul..mul_2); the static shape is set after.
        batch = shape[0]
        sizes = [shape[i] for i in (1, 2, 3)]
        out_dhw = [_deconv_length(size, k, self.padding, s)
                   for size, k, s in zip(sizes, self.kernel_size, self.strides)]
        output_shape = array_ops.stack([batch, *out_dhw, self.filters])
        out = conv3d_ops.conv3d_transpose(inputs, self.kernel, output_shape,
                                          strides=[1, *self.strides, 1], padding=self.padding)
        out.set_shape([dims[0], *[None if d is None else _deconv_length(d, k, self.padding, s)
                                  for d, k, s in zip(dims[1:4], self.kernel_size,
                                                     self.strides)],
                       self.filters])
        return self._finish(out)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A transposed 3-D convolution (NDHWC); see ``Conv3DTranspose``.

    >>> y = tf.layers.conv3d_transpose(tf.zeros([2, 3, 4, 5, 2]), 4, 3, strides=2,
    ...                                padding="same")
    >>> y.shape.as_list(), [v.name for v in tf.trainable_variables()]
    ([2, 6, 8, 10, 4], ['conv3d_transpose/kernel:0', 'conv3d_transpose/bias:0'])
    """
    return _apply_layer(Conv3DTranspose, locals())
