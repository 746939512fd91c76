"""``tf.keras.models``: ``Model``, ``Sequential``."""

from __future__ import annotations

from scopeflow.keras.engine.sequential import Sequential
from scopeflow.keras.engine.training import Model

__all__ = ["Model", "Sequential"]
