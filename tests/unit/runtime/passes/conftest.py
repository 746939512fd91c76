"""Helpers for the plan passes' tests: compile with chosen passes, and compare a program's
results with a pass on and off (every optimisation keeps the unoptimised values bit for bit).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.runtime import passes as plan_passes
from scopeflow.runtime import plan as plan_module


def _bits(value):
    """A comparable form of a fetched structure: dtype, shape and raw bytes of each array."""
    if isinstance(value, (list, tuple)):
        return [_bits(v) for v in value]
    if isinstance(value, dict):
        return {k: _bits(v) for k, v in value.items()}
    if value is None:
        return None
    a = np.asarray(value)
    return (a.dtype.str, a.shape, a.tobytes())


class PassCheck:
    """``compile``: a plan built with exactly the given passes; ``calls``: the op types a
    plan calls kernels for; ``compare``: run a program with all passes, without one, and
    with none, and check the results are the same bits."""

    def __init__(self, monkeypatch):
        self._monkeypatch = monkeypatch

    @staticmethod
    def compile(sess, fetches, feeds=(), passes=None, targets=()):
        return plan_module.compile_plan(list(fetches), list(targets), list(feeds), sess._state,
                                        plan_passes.PASSES if passes is None else passes)

    @staticmethod
    def calls(plan):
        """Op types whose kernels the plan's code calls on every run."""
        called = {m.group(1) for ln in plan.source.splitlines()
                  if (m := re.match(r"\s*(?:[\w, ]+ = )?(?:_snapshot\()?(_k\d+)\(", ln))}
        return sorted(op.type for k, op in enumerate(plan.ops) if f"_k{k}" in called)

    @staticmethod
    def kernel_names(plan, op_type):
        return sorted(plan.fn.__globals__[f"_k{k}"].__name__
                      for k, op in enumerate(plan.ops) if op.type == op_type)

    def compare(self, pass_name, program, runs=2):
        """``program(sess)`` returns a list of results; it runs ``runs`` times in a fresh
        session for each setting. Returns the results with every pass on."""
        assert pass_name in plan_passes.names()
        results, values = {}, None
        for spec in ("all", f"-{pass_name}", "none"):
            self._monkeypatch.setenv(plan_passes.ENV_VAR, spec)
            with tf.Session() as sess:
                runs_values = [program(sess) for _ in range(runs)]
            results[spec] = _bits(runs_values)
            values = values or runs_values
        self._monkeypatch.delenv(plan_passes.ENV_VAR)
        assert results["all"] == results[f"-{pass_name}"], f"{pass_name} changed the results"
        assert results["all"] == results["none"], "the passes changed the results"
        return values


@pytest.fixture
def passes(monkeypatch):
    return PassCheck(monkeypatch)
