"""Embedding lookups (sparse gradients) and sampled losses (NCE, sampled softmax)."""

from __future__ import annotations

__all__: list[str] = []
