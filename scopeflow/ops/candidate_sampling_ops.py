"""Candidate samplers (log-uniform, uniform) for sampled losses, with TF seeds."""

from __future__ import annotations

__all__: list[str] = []
