"""TF1's learning-rate schedules: graph ops on ``global_step`` with TF's formulas and names.

Each returns a scalar tensor (``ExponentialDecay``, ``PolynomialDecay``, ...) to pass as
an optimizer's ``learning_rate``; it changes as the optimizer increments the step.

TF 2.21's ``tf.compat.v1.train.*_decay`` build their graphs with the Keras
``LearningRateSchedule`` classes (``legacy_learning_rate_decay.py`` calling
``learning_rate_schedule.py``); each function here follows its class's ``__call__`` line
for line, so the graph is TF's node for node: the same ops, names (``Cast/x``, ``Cast_2``,
``truediv``, ...), inputs and creation order (``tests/unit/train/test_lr_decay_graphs_tf.py``
compares them with TF's). Only ``tf.cond``/``tf.case``'s own ops (in ``cosine_decay_restarts``
and ``piecewise_constant``) are scopeflow's ``If`` in place of TF1's ``Switch``/``Merge``.
"""

from __future__ import annotations

import math

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.nest import flatten
from scopeflow.ops import constant_op, math_ops
from scopeflow.ops.control_flow.cond_ops import case, cond
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.random.random_ops import random_normal

__all__ = ["exponential_decay", "piecewise_constant", "polynomial_decay", "cosine_decay",
           "inverse_time_decay", "natural_exp_decay", "cosine_decay_restarts",
           "linear_cosine_decay", "noisy_linear_cosine_decay", "piecewise_constant_decay"]


def _initial(learning_rate):
    """The schedule's first op, ``initial_learning_rate``, and its dtype (every cast's)."""
    initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
    return initial, initial.dtype


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name):
    """``ExponentialDecay.__call__``: ``lr * decay_rate ^ (step / decay_steps)``."""
    with name_scope(name or "ExponentialDecay") as scope:
        initial, dtype = _initial(learning_rate)
        decay_steps = math_ops.cast(decay_steps, dtype)
        decay_rate = math_ops.cast(decay_rate, dtype)
        step = math_ops.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(initial, math_ops.pow(decay_rate, p), name=scope)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ^ (global_step / decay_steps)`` (floored if staircase)."""
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate) ^ (global_step / decay_steps)``: as TF, the rate
    ``exp(-decay_rate)`` is built first (``Neg``, ``Exp``, outside any scope), then an
    ``ExponentialDecay`` with it (the scope is ``ExponentialDecay`` unless ``name``)."""
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, natural_exp_rate, staircase,
                        name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with name_scope(name or "InverseTimeDecay") as scope:
        initial, dtype = _initial(learning_rate)
        decay_steps = math_ops.cast(decay_steps, dtype)
        decay_rate = math_ops.cast(decay_rate, dtype)
        step = math_ops.cast(global_step, dtype)
        p = step / decay_steps
        if staircase:
            p = math_ops.floor(p)
        const = math_ops.cast(constant_op.constant(1), dtype)
        denom = math_ops.add(const, math_ops.multiply(decay_rate, p))
        return math_ops.divide(initial, denom, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """``(lr - end) * (1 - step / decay_steps) ^ power + end``; with ``cycle`` the horizon
    grows to the next multiple of ``decay_steps``, else the step stops at ``decay_steps``."""
    with name_scope(name or "PolynomialDecay") as scope:
        initial, dtype = _initial(learning_rate)
        end = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:
            # As TF: the ceil divides by the argument itself, not its cast.
            multiplier = where_v2(math_ops.equal(step, 0), 1.0,
                                  math_ops.ceil(step / decay_steps))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(initial - end, math_ops.pow(1 - p, power)), end,
                            name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, steps) / steps)) + alpha)``.

    As TF, the result is the scope's last ``Mul`` (``CosineDecay/Mul_3``), not an op named
    after the scope, and ``pi`` is a float32 constant (a float64 rate fails as in TF)."""
    with name_scope(name or "CosineDecay"):
        initial, dtype = _initial(learning_rate)
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.cast(global_step, dtype)
        step = math_ops.minimum(step, steps)
        completed_fraction = step / steps
        cosine_decayed = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi)
                                                   * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(initial, decayed)


def _boundaries_and_values(x, boundaries, values):
    """The legacy wrapper's conversions and checks (before the schedule's scope): each
    boundary and value a tensor, int32 boundaries cast to an int64 ``x``."""
    boundaries = [convert_to_tensor(b) for b in flatten(boundaries)]
    values = [convert_to_tensor(v) for v in flatten(values)]
    x_recomp = convert_to_tensor(x)
    xdt = x_recomp.dtype.base_dtype
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != xdt:
            if b.dtype.base_dtype == dtypes.int32 and xdt == dtypes.int64:
                boundaries[i] = math_ops.cast(b, xdt)
            else:
                raise ValueError(f"Boundaries ({b.dtype.base_dtype}) must have the same "
                                 f"dtype as x ({xdt}).")
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({values[0].dtype.base_dtype} vs {v.dtype.base_dtype}).")
    return boundaries, values


def _value_fn(v):
    return lambda: v


def piecewise_constant(x, boundaries, values, name=None):
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]`` (first/last outside).

    As TF: the predicates ``x <= b[0]``, ``x > b[-1]`` and ``(x > b[i-1]) & (x <= b[i])``
    pick a value through ``tf.case(..., exclusive=True)`` in the ``PiecewiseConstant``
    scope."""
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of "
                         "values")
    boundaries, values = _boundaries_and_values(x, boundaries, values)
    with name_scope(name or "PiecewiseConstant"):
        x_recomp = convert_to_tensor(x)
        for i, b in enumerate(boundaries):
            if b.dtype.base_dtype != x_recomp.dtype.base_dtype:
                boundaries[i] = math_ops.cast(b, x_recomp.dtype.base_dtype)
        pred_fn_pairs = [(x_recomp <= boundaries[0], _value_fn(values[0])),
                         (x_recomp > boundaries[-1], _value_fn(values[-1]))]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred = (x_recomp > low) & (x_recomp <= high)
            pred_fn_pairs.append((pred, _value_fn(v)))
        return case(pred_fn_pairs, _value_fn(values[0]), exclusive=True)


# TF1 exports the same function under both names.
piecewise_constant_decay = piecewise_constant


def _sgdr_step(completed_fraction, t_mul, geometric):
    """``CosineDecayRestarts``' ``compute_step``: the finished periods and the fraction of
    the current one."""
    if geometric:
        i_restart = math_ops.floor(math_ops.log(1.0 - completed_fraction * (1.0 - t_mul))
                                   / math_ops.log(t_mul))
        sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
        completed_fraction = (completed_fraction - sum_r) / t_mul ** i_restart
    else:
        i_restart = math_ops.floor(completed_fraction)
        completed_fraction -= i_restart
    return i_restart, completed_fraction


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """SGDR: cosine decay restarting after ``first_decay_steps * t_mul^i`` steps, each
    period's peak scaled by ``m_mul^i``. As TF, a ``cond`` on ``t_mul == 1`` picks the
    arithmetic or the geometric count of finished periods."""
    with name_scope(name or "SGDRDecay") as scope:
        initial, dtype = _initial(learning_rate)
        first_decay_steps = math_ops.cast(first_decay_steps, dtype)
        alpha = math_ops.cast(alpha, dtype)
        t_mul = math_ops.cast(t_mul, dtype)
        m_mul = math_ops.cast(m_mul, dtype)
        step = math_ops.cast(global_step, dtype)
        completed_fraction = step / first_decay_steps
        i_restart, completed_fraction = cond(
            math_ops.equal(t_mul, 1.0),
            lambda: _sgdr_step(completed_fraction, t_mul, geometric=False),
            lambda: _sgdr_step(completed_fraction, t_mul, geometric=True))
        m_fac = m_mul ** i_restart
        cosine_decayed = 0.5 * m_fac * (1.0 + math_ops.cos(
            constant_op.constant(math.pi) * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(initial, decayed, name=scope)


def _cosine_part(step, decay_steps, num_periods):
    """``0.5 * (1 + cos(pi * 2 num_periods step / decay_steps))``, TF's op order."""
    completed_fraction = step / decay_steps
    fraction = 2.0 * num_periods * completed_fraction
    return 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """A linear ramp to zero times a cosine of ``num_periods`` periods, plus ``beta``
    (Bello et al., Neural Optimizer Search); constant after ``decay_steps``."""
    with name_scope(name or "LinearCosineDecay") as scope:
        initial, dtype = _initial(learning_rate)
        decay_steps = math_ops.cast(decay_steps, dtype)
        num_periods = math_ops.cast(num_periods, dtype)
        alpha = math_ops.cast(alpha, dtype)
        beta = math_ops.cast(beta, dtype)
        step = math_ops.cast(global_step, dtype)
        step = math_ops.minimum(step, decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        cosine_decayed = _cosine_part(step, decay_steps, num_periods)
        linear_cosine_decayed = (alpha + linear_decayed) * cosine_decayed + beta
        return math_ops.multiply(initial, linear_cosine_decayed, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with Gaussian noise on the linear part, of variance
    ``initial_variance / (1 + step)^variance_decay``: one ``RandomStandardNormal`` per
    evaluation, seeded from the graph seed as TF's."""
    with name_scope(name or "NoisyLinearCosineDecay") as scope:
        initial, dtype = _initial(learning_rate)
        decay_steps = math_ops.cast(decay_steps, dtype)
        initial_variance = math_ops.cast(initial_variance, dtype)
        variance_decay = math_ops.cast(variance_decay, dtype)
        num_periods = math_ops.cast(num_periods, dtype)
        alpha = math_ops.cast(alpha, dtype)
        beta = math_ops.cast(beta, dtype)
        step = math_ops.cast(global_step, dtype)
        step = math_ops.minimum(step, decay_steps)
        linear_decayed = (decay_steps - step) / decay_steps
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        std = math_ops.sqrt(variance)
        noisy_linear_decayed = linear_decayed + random_normal(linear_decayed.shape,
                                                              stddev=std)
        cosine_decayed = _cosine_part(step, decay_steps, num_periods)
        noisy_linear_cosine_decayed = (alpha + noisy_linear_decayed) * cosine_decayed + beta
        return math_ops.multiply(initial, noisy_linear_cosine_decayed, name=scope)
