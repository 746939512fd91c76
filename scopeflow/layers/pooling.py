"""1-D, 2-D and 3-D max and average pooling, class and functional forms."""

from __future__ import annotations

from scopeflow.layers.base import Layer, _apply_layer, _channels_last, _padding, _tuple
from scopeflow.ops import array_ops
from scopeflow.ops.nn import conv3d_ops, pool_ops


# ── Pooling ──────────────────────────────────────────────────────────────────────────
class _Pooling(Layer):
    _rank = 2
    _pool = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, self._rank, "pool_size")
        self.strides = _tuple(strides if strides is not None else pool_size, self._rank,
                              "strides")
        self.padding = _padding(padding)
        self.data_format = _channels_last(data_format)

    def call(self, inputs):
        pool = type(self)._pool
        if self._rank != 1:
            return pool(inputs, [1, *self.pool_size, 1], [1, *self.strides, 1], self.padding)
        # 1-D: pooled as 2-D over [batch, steps, 1, channels], as TF does.
        expanded = array_ops.expand_dims(inputs, 2)
        out = pool(expanded, [1, self.pool_size[0], 1, 1], [1, self.strides[0], 1, 1],
                   self.padding)
        return array_ops.squeeze(out, [2])


class MaxPooling2D(_Pooling):
    """2-D max pooling (NHWC); op ``max_pooling2d/MaxPool``."""

    _pool = staticmethod(pool_ops.max_pool)


class AveragePooling2D(_Pooling):
    """2-D average pooling (NHWC); op ``average_pooling2d/AvgPool``."""

    _pool = staticmethod(pool_ops.avg_pool)


class MaxPooling1D(_Pooling):
    """1-D max pooling of ``[batch, steps, channels]``: ``ExpandDims``, ``MaxPool``,
    ``Squeeze`` (output ``max_pooling1d/Squeeze``), as TF."""

    _rank = 1
    _pool = staticmethod(pool_ops.max_pool)


class AveragePooling1D(_Pooling):
    """1-D average pooling of ``[batch, steps, channels]`` (``average_pooling1d/Squeeze``)."""

    _rank = 1
    _pool = staticmethod(pool_ops.avg_pool)


class MaxPooling3D(_Pooling):
    """3-D max pooling (NDHWC); op ``max_pooling3d/MaxPool3D``."""

    _rank = 3
    _pool = staticmethod(conv3d_ops.max_pool3d)


class AveragePooling3D(_Pooling):
    """3-D average pooling (NDHWC); op ``average_pooling3d/AvgPool3D``."""

    _rank = 3
    _pool = staticmethod(conv3d_ops.avg_pool3d)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """2-D max pooling (NHWC); see ``MaxPooling2D``."""
    return _apply_layer(MaxPooling2D, locals())


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """2-D average pooling (NHWC); see ``AveragePooling2D``."""
    return _apply_layer(AveragePooling2D, locals())


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """1-D max pooling; see ``MaxPooling1D``."""
    return _apply_layer(MaxPooling1D, locals())


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """1-D average pooling; see ``AveragePooling1D``."""
    return _apply_layer(AveragePooling1D, locals())


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """3-D max pooling (NDHWC); see ``MaxPooling3D``."""
    return _apply_layer(MaxPooling3D, locals())


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """3-D average pooling (NDHWC); see ``AveragePooling3D``."""
    return _apply_layer(AveragePooling3D, locals())
