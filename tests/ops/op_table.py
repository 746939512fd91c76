"""The registry-driven op table: one ``OpCase`` row per (op type, sample).

Each op family keeps its rows in ``tests/ops/rows_<family>.py`` as a module-level list
``ROWS``. ``test_op_table.py`` checks every row three ways — forward values against the
NumPy reference, static shape/dtype against the runtime value, and that the kernel only
returns memory shared with its inputs when its OpDef says ``aliases=True`` — and fails
when a registered op type has no row (or no explicit exemption with a reason).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class OpCase:
    """One sample of an op.

    op_type: the registered op type this row exercises (must appear in the built graph).
    build:   ``build(tf, *inputs) -> Tensor | list[Tensor]`` using the public API; the
             inputs arrive as placeholders (or constants when ``as_constants``).
    ref:     ``ref(*arrays) -> array | list[array]``: the expected values (NumPy).
    inputs:  the input arrays (exact dtypes matter: float32 stays float32).
    rtol/atol: tolerances of the value comparison.
    as_constants: pass inputs as ``tf.constant`` (for ops needing static values).
    check_values: False for ops whose values can't be compared (random ops check stats
             inside ``ref`` instead and return None).
    id:      a readable test id.
    check_grad/grad_tol: the numeric gradient check (float inputs are promoted to float64
             when the op accepts it) for ops that have a gradient rule.
    """

    op_type: str
    build: Callable
    ref: Callable
    inputs: list = field(default_factory=list)
    rtol: float = 1e-6
    atol: float = 1e-6
    as_constants: bool = False
    check_values: bool = True
    id: str = ""
    check_grad: bool = True   # False at non-differentiable points (ties, kinks)
    grad_tol: float = 2e-3    # relative tolerance of analytic vs numeric gradients


def all_rows() -> list[OpCase]:
    rows = []
    here = Path(__file__).parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("rows_"):
            mod = importlib.import_module(f"ops.{info.name}")
            rows.extend(mod.ROWS)
    return rows


def all_exemptions() -> dict[str, str]:
    """Op types tested elsewhere, with the reason (``EXEMPT`` dicts in rows modules)."""
    out = {}
    here = Path(__file__).parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("rows_"):
            mod = importlib.import_module(f"ops.{info.name}")
            out.update(getattr(mod, "EXEMPT", {}))
    return out


def rand(*shape, dtype=np.float32, low=-2.0, high=2.0, seed=0):
    rng = np.random.default_rng(seed + sum(shape) * 7 + len(shape))
    return rng.uniform(low, high, size=shape).astype(dtype)
