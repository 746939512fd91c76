"""Keras's pooling layers: ``MaxPooling1D/2D/3D``, ``AveragePooling1D/2D/3D`` and the
global ``GlobalMaxPooling1D/2D/3D``, ``GlobalAveragePooling1D/2D/3D`` (tf_keras
``layers/pooling``), on ``tf.nn``'s pooling ops. ``channels_first`` inputs are pooled as
``channels_last`` between two transposes (the NumPy kernels are NHWC)."""

from __future__ import annotations

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras.engine.base_layer import InputSpec, Layer
from scopeflow.keras.layers.convolutional import (
    _conv_output_length,
    _data_format,
    _normalize_padding,
    _normalize_tuple,
    _to_channels_first,
    _to_channels_last,
)
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.nn import conv3d_ops, pool_ops

__all__ = ["MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
           "AveragePooling2D", "AveragePooling3D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "GlobalMaxPooling3D", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalAveragePooling3D", "MaxPool1D", "MaxPool2D",
           "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "GlobalMaxPool1D",
           "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
           "GlobalAvgPool3D"]


# ── Pooling over windows ─────────────────────────────────────────────────────────────
class _Pooling(Layer):
    """Pools windows of ``pool_size`` every ``strides`` (default: ``pool_size``) over the
    spatial dimensions; 1-D pools run as 2-D over ``[batch, steps, 1, channels]``."""

    _rank = 2
    _max = True

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        data_format = _data_format(data_format)
        if strides is None:
            strides = pool_size
        self.pool_size = _normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = _normalize_tuple(strides, self._rank, "strides")
        self.padding = _normalize_padding(padding)
        self.data_format = data_format

    def _pool(self, x, ksize, strides):
        pad = self.padding.upper()
        if self._rank == 3:
            fn = conv3d_ops.max_pool3d if self._max else conv3d_ops.avg_pool3d
        else:
            fn = pool_ops.max_pool if self._max else pool_ops.avg_pool
        return fn(x, ksize, strides, pad)

    def call(self, inputs):
        rank = inputs.shape.ndims
        if self.data_format == "channels_first":
            inputs = _to_channels_last(inputs, rank)
        if self._rank == 1:
            x = array_ops.expand_dims(inputs, 2)
            out = self._pool(x, [1, self.pool_size[0], 1, 1], [1, self.strides[0], 1, 1])
            out = array_ops.squeeze(out, [2])
        else:
            out = self._pool(inputs, [1, *self.pool_size, 1], [1, *self.strides, 1])
        if self.data_format == "channels_first":
            out = _to_channels_first(out, rank)
        return out

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        out = [_conv_output_length(d, k, self.padding, s)
               for d, k, s in zip(spatial, self.pool_size, self.strides)]
        if first:
            return TensorShape([shape[0], shape[1]] + out)
        return TensorShape([shape[0]] + out + [shape[-1]])

    def get_config(self):
        config = Layer.get_config(self)
        config.update({"pool_size": self.pool_size, "padding": self.padding,
                       "strides": self.strides, "data_format": self.data_format})
        return config


class MaxPooling1D(_Pooling):
    """Max pooling over steps (``[batch, steps, channels]``)."""

    _rank, _max = 1, True

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    """Average pooling over steps (``[batch, steps, channels]``)."""

    _rank, _max = 1, False

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling2D(_Pooling):
    """Max pooling over rows and columns (op ``MaxPool``)."""

    _rank, _max = 2, True

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """Average pooling over rows and columns (op ``AvgPool``)."""

    _rank, _max = 2, False

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(_Pooling):
    """Max pooling over three spatial dimensions (op ``MaxPool3D``)."""

    _rank, _max = 3, True

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling):
    """Average pooling over three spatial dimensions (op ``AvgPool3D``)."""

    _rank, _max = 3, False

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


# ── Global pooling ───────────────────────────────────────────────────────────────────
class _GlobalPooling(Layer):
    """A max or mean over all spatial dimensions; ``keepdims`` keeps them as size 1."""

    _rank = 2
    _max = True

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis in self._axes():
            if dims[axis] == 0:
                raise ValueError(f"Incorrect input shape {dims} with dimension 0 at "
                                 f"reduction axis {axis}.")
        self.built = True

    def _axes(self):
        if self.data_format == "channels_last":
            return list(range(1, self._rank + 1))
        return list(range(2, self._rank + 2))

    def call(self, inputs):
        reduce = math_ops.reduce_max if self._max else math_ops.reduce_mean
        return reduce(inputs, axis=self._axes(), keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        axes = self._axes()
        if self.keepdims:
            return TensorShape([1 if i in axes else d for i, d in enumerate(shape)])
        return TensorShape([d for i, d in enumerate(shape) if i not in axes])

    def get_config(self):
        config = Layer.get_config(self)
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over steps."""

    _rank, _max = 1, True

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(data_format, keepdims, **kwargs)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over steps; with a ``mask`` (``[batch, steps]``), over the unmasked steps."""

    _rank, _max = 1, False

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(data_format, keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        steps_axis = 1 if self.data_format == "channels_last" else 2
        if mask is None:
            return math_ops.reduce_mean(inputs, axis=steps_axis, keepdims=self.keepdims)
        mask = math_ops.cast(mask, inputs.dtype)
        mask = array_ops.expand_dims(mask, 2 if self.data_format == "channels_last" else 1)
        inputs = inputs * mask
        return math_ops.reduce_sum(inputs, axis=steps_axis, keepdims=self.keepdims) / \
            math_ops.reduce_sum(mask, axis=steps_axis, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over rows and columns."""

    _rank, _max = 2, True


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over rows and columns."""

    _rank, _max = 2, False


class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over three spatial dimensions."""

    _rank, _max = 3, True


class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over three spatial dimensions."""

    _rank, _max = 3, False


# Keras's aliases.
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = (
    GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D)
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D)
