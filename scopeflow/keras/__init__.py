"""``tf.keras`` as TF 1.13-1.15 used it, in graph mode: layers whose variables live in the
default graph (``dense/kernel:0``), models trained in ``backend.get_session()``."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
    utils,
)
from scopeflow.keras.engine.input_layer import Input
from scopeflow.keras.engine.sequential import Sequential
from scopeflow.keras.engine.training import Model

__all__ = ["activations", "backend", "callbacks", "constraints", "initializers", "layers",
           "losses", "metrics", "models", "optimizers", "regularizers", "utils", "Input",
           "Model", "Sequential"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
