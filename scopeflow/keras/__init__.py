"""``tf.keras`` as TF 1.13-1.15 used it, in graph mode: layers whose variables live in the
default graph (``dense/kernel:0``), models trained in ``backend.get_session()``."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.keras import (
    activations,
    backend,
    constraints,
    initializers,
    layers,
    regularizers,
    utils,
)

__all__ = ["activations", "backend", "constraints", "initializers", "layers", "regularizers",
           "utils"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
