"""Convolution and pooling (NHWC; NCHW where TF accepts it), with their gradients."""

from __future__ import annotations

__all__: list[str] = []
