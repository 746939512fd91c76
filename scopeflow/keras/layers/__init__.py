"""``tf.keras.layers``: Keras's layers in graph mode (``dense/kernel:0``)."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.keras.engine.base_layer import InputSpec, Layer
from scopeflow.keras.engine.input_layer import Input, InputLayer
from scopeflow.keras.layers.core import (
    Activation,
    ActivityRegularization,
    Dense,
    Dropout,
    Flatten,
    Lambda,
    Masking,
    Permute,
    RepeatVector,
    Reshape,
    SpatialDropout1D,
)
from scopeflow.keras.layers.embeddings import Embedding

__all__ = ["Layer", "InputSpec", "Input", "InputLayer", "Activation", "ActivityRegularization",
           "Dense", "Dropout", "Flatten", "Lambda", "Masking", "Permute", "RepeatVector",
           "Reshape", "SpatialDropout1D", "Embedding"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)


# Convolution, pooling, normalization, merge, advanced activation and recurrent layers,
# and the wrappers (scopeflow/keras/layers/<family>.py).
from scopeflow.keras.layers import advanced_activations as _advanced_activations  # noqa: E402
from scopeflow.keras.layers import convolutional as _convolutional  # noqa: E402
from scopeflow.keras.layers import merge as _merge  # noqa: E402
from scopeflow.keras.layers import normalization as _normalization  # noqa: E402
from scopeflow.keras.layers import pooling as _pooling  # noqa: E402
from scopeflow.keras.layers import recurrent as _recurrent  # noqa: E402
from scopeflow.keras.layers import wrappers as _wrappers  # noqa: E402
from scopeflow.keras.layers.advanced_activations import *  # noqa: E402,F403
from scopeflow.keras.layers.convolutional import *  # noqa: E402,F403
from scopeflow.keras.layers.merge import *  # noqa: E402,F403
from scopeflow.keras.layers.normalization import *  # noqa: E402,F403
from scopeflow.keras.layers.pooling import *  # noqa: E402,F403
from scopeflow.keras.layers.recurrent import *  # noqa: E402,F403
from scopeflow.keras.layers.wrappers import *  # noqa: E402,F403

__all__ += [name for module in (_advanced_activations, _convolutional, _merge, _normalization,
                                _pooling, _recurrent, _wrappers) for name in module.__all__]
from scopeflow.keras.layers.convolutional_recurrent import ConvLSTM2D  # noqa: E402

__all__ += ["ConvLSTM2D"]

from scopeflow.keras.utils.generic_utils import (  # noqa: E402
    deserialize_keras_object as _deserialize_keras_object,
)

__all__ += ["serialize", "deserialize"]


def serialize(layer):
    """``{'class_name': ..., 'config': layer.get_config()}``."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """The layer a ``serialize`` dict describes (a layer class of this module, or one of
    ``custom_objects``)."""
    classes = {name: value for name, value in globals().items()
               if isinstance(value, type) and issubclass(value, Layer)}
    return _deserialize_keras_object(config, module_objects=classes,
                                     custom_objects=custom_objects,
                                     printable_module_name="layer")
