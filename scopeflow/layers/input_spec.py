"""``tf.layers.InputSpec``: what a layer accepts as input (dtype, shape or rank bounds, known
sizes of some axes), as tf_keras's legacy layers define it (TF 2.21 with tf_keras)."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["InputSpec"]


class InputSpec:
    """``tf.layers.InputSpec(dtype=None, shape=None, ndim=None, max_ndim=None,
    min_ndim=None, axes=None, allow_last_axis_squeeze=False, name=None, optional=False)``.

    A known ``shape`` sets ``ndim``; ``dtype`` is kept as its name (``'float32'``).

    >>> tf.layers.InputSpec(dtype=tf.float32, shape=(None, 3))
    InputSpec(dtype=float32, shape=(None, 3), ndim=2)
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        shape = TensorShape(shape)
        if shape.ndims is None:
            self.shape = None
            self.ndim = ndim
        else:
            self.shape = tuple(shape.as_list())
            self.ndim = len(self.shape)
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.optional = optional
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError("Argument `axes` must be a dict with integer keys. "
                            f"Received: axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(f"Axis {max_axis} is greater than the maximum allowed value: "
                                 f"{max_dim}")

    def __repr__(self):
        fields = [("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
                  ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim),
                  ("axes", self.axes)]
        return f"InputSpec({', '.join(f'{k}={v}' for k, v in fields if v)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)
