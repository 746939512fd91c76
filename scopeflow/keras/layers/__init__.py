"""``tf.keras.layers``: Keras's layers in graph mode (``dense/kernel:0``)."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.keras.engine.base_layer import InputSpec, Layer

__all__ = ["Layer", "InputSpec"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
