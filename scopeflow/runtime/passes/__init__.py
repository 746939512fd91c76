"""The plan compiler's rewrites: each is one pass, in a module of its own.

``compile_plan`` prunes, orders, runs the enabled passes over a ``PlanIR``, then works
out liveness and generates the code. A pass never changes what a run computes; it only
changes how. Each pass module defines:

- ``NAME``: what users call it (``SCOPEFLOW_PLAN_PASSES``, ``describe``);
- ``RULES``: its rewrite rules, keyed by op type (each a tuple of named functions, tried
  in order; empty for a pass that applies to any op, as ``constant_folding``). The rules
  are the pass's own, as grappler's optimizer stages and tinygrad's pattern matchers keep
  theirs: an ``OpDef`` says what an op computes, never how a plan may compute it faster;
- ``touches(op_def) -> bool``: whether the pass can ever rewrite an op of this type;
- ``applies(op, ir)``: what it would do to this op of this plan, or ``None``;
- ``rewrite(op, ir, match)``: doing it, by editing ``ir.steps[op]`` (and ``ir.changed()``
  when that changes what runs or what reads what).

Passes ask ``ir.memory`` (``scopeflow.runtime.memory``) everything about ownership and
aliasing, so TF1's rules for variables' buffers are kept in one place, and ``ir.shape(t)``
for static shapes (in a plan specialised on the fed shapes, ``shape_specialization`` infers
them from those).

Which passes run is a per-session choice. The environment, read when a ``Session`` is made
(``SCOPEFLOW_PLAN_PASSES``), says ``all`` (the default), ``none``, a comma-separated list of
pass names to run, or a list of ``-name`` entries to leave out. A ``tf.ConfigProto`` given
to the session turns off what TF1's own switches turn off (``for_config``). Turning passes
off rules the optimiser out when a result looks wrong; values stay the same.
"""

from __future__ import annotations

import os

from scopeflow.framework import opdef
from scopeflow.runtime.passes import (
    buffer_reuse,
    const_kernels,
    constant_folding,
    consumer_fusion,
    gradient_gates,
    owning_kernels,
    pass_through,
    producer_absorption,
    shape_specialization,
)

__all__ = ["PASSES", "ENV_VAR", "select", "from_environment", "for_config", "run_passes",
           "names"]

# In order: later passes rely on earlier ones (shapes inferred from the fed ones, folded
# values, the final readers).
PASSES = (gradient_gates, shape_specialization, constant_folding, pass_through, producer_absorption,
          consumer_fusion, const_kernels, owning_kernels, buffer_reuse)
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


# TF's enum values (config.proto, rewriter_config.proto).
_OPT_LEVEL_L0 = -1        # OptimizerOptions.L0: no constant folding
_TOGGLE_OFF = 2           # RewriterConfig.OFF
_NO_MEM_OPT = 1           # RewriterConfig.NO_MEM_OPT


def for_config(config, passes=PASSES) -> tuple:
    """``passes`` less the ones a session ``config`` (a ``tf.ConfigProto``) switches off, as
    TF1's switches do for grappler and the graph optimizer:

    - ``graph_options.rewrite_options.disable_meta_optimizer``: every pass;
    - ``graph_options.optimizer_options.opt_level = L0`` or ``rewrite_options
      .constant_folding = OFF``: ``constant_folding``;
    - ``rewrite_options.dependency_optimization = OFF`` (which removes Identity ops in
      TF): ``pass_through``;
    - ``rewrite_options.arithmetic_optimization = OFF``: ``producer_absorption`` and
      ``const_kernels``;
    - ``rewrite_options.remapping = OFF`` (TF's fused ops): ``consumer_fusion``;
    - ``rewrite_options.memory_optimization = NO_MEM_OPT``: ``buffer_reuse`` and
      ``owning_kernels``.
    """
    graph_options = getattr(config, "graph_options", None)
    if graph_options is None:
        return tuple(passes)
    rewrite = graph_options.rewrite_options
    if rewrite.disable_meta_optimizer:
        return ()
    off = set()
    if (graph_options.optimizer_options.opt_level == _OPT_LEVEL_L0
            or rewrite.constant_folding == _TOGGLE_OFF):
        off.add(constant_folding.NAME)
    if rewrite.dependency_optimization == _TOGGLE_OFF:
        off.add(pass_through.NAME)
    if rewrite.arithmetic_optimization == _TOGGLE_OFF:
        off.update((producer_absorption.NAME, const_kernels.NAME))
    if rewrite.remapping == _TOGGLE_OFF:
        off.add(consumer_fusion.NAME)
    if rewrite.memory_optimization == _NO_MEM_OPT:
        off.update((buffer_reuse.NAME, owning_kernels.NAME))
    return tuple(p for p in passes if p.NAME not in off)


def run_passes(passes, ir) -> None:
    """Runs each pass over the plan's ops, in order."""
    skip = ir.dead_region  # ops that may be dead (runtime.dead_tensors): left as they are
    for p in passes:
        for op in ir.ops:
            if skip and op in skip:
                continue
            match = p.applies(op, ir)
            if match is not None:
                p.rewrite(op, ir, match)
                ir.steps[op].rewritten_by.append(p.NAME)


# ``describe(op_type)`` (in the framework layer, below this one) lists these. Assigned, not
# extended: doctest collection may execute this module a second time.
opdef.PLAN_PASSES[:] = PASSES
