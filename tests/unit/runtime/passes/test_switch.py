"""The switch that turns plan passes off, and ``describe`` naming the passes of an op."""

from __future__ import annotations

import pytest

import scopeflow as tf
from scopeflow.runtime import passes as plan_passes


def test_specs_select_passes():
    names = plan_passes.names()
    assert [p.NAME for p in plan_passes.select(None)] == names
    assert [p.NAME for p in plan_passes.select("all")] == names
    assert plan_passes.select("none") == ()
    assert [p.NAME for p in plan_passes.select("buffer_reuse, constant_folding")] == [
        "constant_folding", "buffer_reuse"]
    assert [p.NAME for p in plan_passes.select("-buffer_reuse")] == [
        n for n in names if n != "buffer_reuse"]
    for bad in ("constant_fold", "-buffer_reuse,constant_folding"):
        with pytest.raises(ValueError, match="SCOPEFLOW_PLAN_PASSES"):
            plan_passes.select(bad)


def test_sessions_read_the_switch_when_made(monkeypatch):
    x = tf.placeholder(tf.float32, [2])
    y = tf.identity(x) * tf.ones(tf.stack([2]))
    monkeypatch.setenv(plan_passes.ENV_VAR, "none")
    off = tf.Session()
    monkeypatch.setenv(plan_passes.ENV_VAR, "pass_through")
    some = tf.Session()
    monkeypatch.delenv(plan_passes.ENV_VAR)
    on = tf.Session()
    kernels = {}
    for name, sess in (("off", off), ("some", some), ("on", on)):
        assert sess.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
        (plan,) = sess._plans.values()
        kernels[name] = sorted({op.type for k, op in enumerate(plan.ops)
                                if f"_k{k}(" in plan.source})
    assert kernels["off"] == ["Fill", "Identity", "Mul"]
    assert kernels["some"] == ["Fill", "Mul"]
    assert kernels["on"] == ["Mul"]
    monkeypatch.setenv(plan_passes.ENV_VAR, "nonsense")
    with pytest.raises(ValueError, match="unknown: \\['nonsense'\\]"):
        tf.Session()


def test_describe_lists_the_passes_that_may_rewrite_an_op():
    assert tf.describe("Select").splitlines()[-1].split() == [
        "passes", "gradient_gates,", "constant_folding,", "producer_absorption,",
        "const_kernels"]
    assert "pass_through" in tf.describe("Mul")
    assert "pass_through" in tf.describe("Identity")
    assert "buffer_reuse" in tf.describe("Exp")
    assert "owning_kernels" in tf.describe("Assign")
    assert "producer_absorption" in tf.describe("AddN")
    assert tf.describe("VariableV2").splitlines()[-1] == "  passes (none)"


def _names(sess):
    return [p.NAME for p in sess._passes]


def test_tf1_config_switches_turn_the_matching_passes_off(monkeypatch):
    from scopeflow.io.protos import RewriterConfig

    everything = plan_passes.names()
    assert _names(tf.Session(config=tf.ConfigProto(allow_soft_placement=True))) == everything
    cases = [
        (lambda c: setattr(c.graph_options.optimizer_options, "opt_level",
                           tf.OptimizerOptions.L0), {"constant_folding"}),
        (lambda c: setattr(c.graph_options.rewrite_options, "constant_folding",
                           RewriterConfig.OFF), {"constant_folding"}),
        (lambda c: setattr(c.graph_options.rewrite_options, "dependency_optimization",
                           RewriterConfig.OFF), {"pass_through"}),
        (lambda c: setattr(c.graph_options.rewrite_options, "arithmetic_optimization",
                           RewriterConfig.OFF), {"producer_absorption", "const_kernels"}),
        (lambda c: setattr(c.graph_options.rewrite_options, "memory_optimization",
                           RewriterConfig.NO_MEM_OPT), {"buffer_reuse", "owning_kernels"}),
        (lambda c: setattr(c.graph_options.rewrite_options, "disable_meta_optimizer", True),
         set(everything)),
    ]
    for change, off in cases:
        config = tf.ConfigProto()
        change(config)
        assert _names(tf.Session(config=config)) == [n for n in everything if n not in off]
    # The environment can only turn more off.
    monkeypatch.setenv(plan_passes.ENV_VAR, "-buffer_reuse")
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = RewriterConfig.OFF
    assert _names(tf.Session(config=config)) == [
        n for n in everything if n not in ("buffer_reuse", "pass_through")]
