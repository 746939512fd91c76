"""Neural-network ops: activations, softmax, cross-entropy losses, dropout, normalization."""

from __future__ import annotations

__all__: list[str] = []
