"""The plan compiler's rewrites: each is one pass, in a module of its own.

``compile_plan`` prunes, orders, runs the enabled passes over a ``PlanIR``, then works
out liveness and generates the code. A pass never changes what a run computes; it only
changes how. Each pass module defines:

- ``NAME``: what users call it (``SCOPEFLOW_PLAN_PASSES``, ``describe``);
- ``touches(op_def) -> bool``: whether the pass can ever rewrite an op of this type;
- ``applies(op, ir)``: what it would do to this op of this plan, or ``None``;
- ``rewrite(op, ir, match)``: doing it, by editing ``ir.steps[op]`` (and ``ir.changed()``
  when that changes what runs or what reads what).

Passes ask ``ir.memory`` (``scopeflow.runtime.memory``) everything about ownership and
aliasing, so TF1's rules for variables' buffers are kept in one place.

Which passes run is a per-session choice, read from the environment when a ``Session`` is
made (``SCOPEFLOW_PLAN_PASSES``) or from its ``config``: ``all`` (the default), ``none``,
a comma-separated list of pass names to run, or a list of ``-name`` entries to leave out.
Turning them off rules the optimiser out when a result looks wrong; values stay the same.
"""

from __future__ import annotations

import os

from scopeflow.framework import opdef
from scopeflow.runtime.passes import (
    buffer_reuse,
    const_kernels,
    constant_folding,
    owning_kernels,
    pass_through,
    producer_absorption,
)

__all__ = ["PASSES", "ENV_VAR", "select", "from_environment", "run_passes", "names"]

# In order: later passes rely on earlier ones (folded values, the final readers).
PASSES = (constant_folding, pass_through, producer_absorption, const_kernels, owning_kernels,
          buffer_reuse)
ENV_VAR = "SCOPEFLOW_PLAN_PASSES"
_BY_NAME = {p.NAME: p for p in PASSES}


def names() -> list[str]:
    return [p.NAME for p in PASSES]


def select(spec: str | None) -> tuple:
    """The passes a spec turns on: ``None``/``"all"``, ``"none"``, ``"a,b"`` or ``"-a,-b"``."""
    spec = (spec or "all").strip()
    if spec == "all":
        return PASSES
    if spec == "none":
        return ()
    items = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [s for s in items if s.lstrip("-") not in _BY_NAME]
    excluded = [s for s in items if s.startswith("-")]
    if unknown or (excluded and len(excluded) != len(items)):
        raise ValueError(
            f"{ENV_VAR}={spec!r}: expected 'all', 'none', pass names to run, or '-name' "
            f"entries to leave out (not both); unknown: {unknown or 'none'}; the passes are "
            f"{', '.join(names())}")
    if excluded:
        return tuple(p for p in PASSES if "-" + p.NAME not in excluded)
    return tuple(p for p in PASSES if p.NAME in items)


def from_environment() -> tuple:
    return select(os.environ.get(ENV_VAR))


def run_passes(passes, ir) -> None:
    """Runs each pass over the plan's ops, in order."""
    for p in passes:
        for op in ir.ops:
            match = p.applies(op, ir)
            if match is not None:
                p.rewrite(op, ir, match)
                ir.steps[op].rewritten_by.append(p.NAME)


# ``describe(op_type)`` (in the framework layer, below this one) lists these.
opdef.PLAN_PASSES.extend(PASSES)
