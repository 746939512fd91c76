"""``tf.layers``: TF1's layers (class and functional forms), creating variables with TF's names.

A layer object captures its variable scope on its first call — ``variable_scope(name)``
when it has a name, else ``variable_scope(None, default_name="dense")``, which numbers
``dense``, ``dense_1``... among the scopes opened in the enclosing variable scope, as TF1's
legacy layers do — and builds its variables there (``dense/kernel``, ``dense/bias``); its
ops go to that scope's name scope (``dense/MatMul``). Because scope counts restart each
time an enclosing scope is re-entered, rebuilding a network in
``variable_scope("Net", reuse=True)`` (a GAN discriminator, a second tower) finds
``Net/dense/kernel`` again while the ops go to ``Net_1/dense/``. ``reuse=True`` given to a
layer function opens ``variable_scope(name or "dense", reuse=True)`` instead. The
functional forms (``tf.layers.dense``...) build one layer object and call it, as TF does.
"""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.layers.base import Layer
from scopeflow.layers.convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    SeparableConv1D,
    SeparableConv2D,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    separable_conv1d,
    separable_conv2d,
)
from scopeflow.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from scopeflow.layers.input_spec import InputSpec
from scopeflow.layers.normalization import BatchNormalization, batch_normalization
from scopeflow.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    average_pooling1d,
    average_pooling2d,
    average_pooling3d,
    max_pooling1d,
    max_pooling2d,
    max_pooling3d,
)

__all__ = [
    "Layer", "Dense", "Conv2D", "Conv2DTranspose", "Flatten", "Dropout", "MaxPooling1D",
    "MaxPooling2D", "conv2d_transpose",
    "AveragePooling1D", "AveragePooling2D", "BatchNormalization", "dense", "conv2d",
    "flatten", "dropout", "max_pooling1d", "max_pooling2d", "average_pooling1d",
    "average_pooling2d", "batch_normalization", "Conv1D", "conv1d", "SeparableConv2D",
    "separable_conv2d", "Conv3D", "conv3d", "MaxPooling3D", "max_pooling3d",
    "AveragePooling3D", "average_pooling3d", "Conv3DTranspose", "conv3d_transpose",
    "SeparableConv1D", "separable_conv1d", "InputSpec",
]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
