"""The kinds of values TF1's API takes, named for annotations (what mypy and IDEs show).

TF1 accepts many spellings of one thing: a dtype is a ``tf.DType``, its name, a NumPy
dtype or a Python type; a shape is a ``TensorShape``, a list with ``None`` for unknown
sizes, or None for an unknown rank. These aliases say so once, for the public functions
that annotate their parameters. Modules import them under ``TYPE_CHECKING`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from scopeflow.framework.dtypes import DType
from scopeflow.framework.tensor_shape import Dimension, TensorShape

__all__ = ["DTypeLike", "ShapeLike", "FeedDict", "Partitioner"]

DTypeLike = DType | str | type | np.dtype
ShapeLike = TensorShape | Sequence[int | Dimension | None] | int | None
# What a run is fed: {placeholder or tensor (or its name): value}.
FeedDict = Mapping[Any, Any]
# A partitioner: (shape=, dtype=) -> how many parts along each axis.
Partitioner = Callable[..., list[int]]
