"""TF1's learning-rate schedules: graph ops on ``global_step`` with TF's formulas and names.

Each returns a scalar tensor (``ExponentialDecay``, ``PolynomialDecay``, ...) to pass as
an optimizer's ``learning_rate``; it changes as the optimizer increments the step.
"""

from __future__ import annotations

import contextlib
import math

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.ops import constant_op, math_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.random.random_ops import random_normal

__all__ = ["exponential_decay", "piecewise_constant", "polynomial_decay", "cosine_decay",
           "inverse_time_decay", "natural_exp_decay", "cosine_decay_restarts",
           "linear_cosine_decay", "noisy_linear_cosine_decay", "piecewise_constant_decay"]


@contextlib.contextmanager
def _schedule(what, name, default_name, learning_rate, global_step, decay_steps):
    """Checks ``global_step``, then, in the schedule's name scope, yields ``(scope,
    initial learning rate, its dtype, global_step and decay_steps cast to it)``."""
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")
    with name_scope(name, default_name) as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype.base_dtype
        step = math_ops.cast(global_step, dtype)
        yield scope, initial, dtype, step, math_ops.cast(decay_steps, dtype)


@contextlib.contextmanager
def _hyper_schedule(name, default_name, learning_rate, global_step, steps, *hypers):
    """The newer (Keras-schedule based) TF1 decays: in the name scope, the initial rate,
    then ``steps`` and each hyper-parameter cast to its dtype, then the step (TF's op
    order, hence its op names). Yields ``(scope, initial, dtype, step, steps, hypers)``.
    """
    if global_step is None:  # TF 2.21 fails converting it
        raise ValueError("None values not supported.")
    with name_scope(name, default_name) as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype.base_dtype
        steps = math_ops.cast(steps, dtype)
        hypers = [math_ops.cast(h, dtype) for h in hypers]
        step = math_ops.cast(global_step, dtype)
        yield scope, initial, dtype, step, steps, hypers


def _progress(step, steps, staircase):
    """How many ``decay_steps`` have passed: whole ones only with ``staircase``."""
    p = step / steps
    return math_ops.floor(p) if staircase else p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ^ (global_step / decay_steps)`` (floored if staircase)."""
    with _schedule("exponential_decay", name, "ExponentialDecay", learning_rate, global_step,
                   decay_steps) as (scope, initial, dtype, step, steps):
        p = _progress(step, steps, staircase)
        return math_ops.multiply(initial, math_ops.pow(math_ops.cast(decay_rate, dtype), p),
                                 name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    with _schedule("natural_exp_decay", name, "NaturalExpDecay", learning_rate, global_step,
                   decay_steps) as (scope, initial, dtype, step, steps):
        p = _progress(step, steps, staircase)
        rate = math_ops.exp(math_ops.negative(math_ops.cast(decay_rate, dtype)) * p)
        return math_ops.multiply(initial, rate, name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with _schedule("inverse_time_decay", name, "InverseTimeDecay", learning_rate, global_step,
                   decay_steps) as (scope, initial, dtype, step, steps):
        p = _progress(step, steps, staircase)
        denom = math_ops.add(constant_op.constant(1, dtype=dtype),
                             math_ops.multiply(math_ops.cast(decay_rate, dtype), p))
        return math_ops.divide(initial, denom, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """``(lr - end) * (1 - step / decay_steps) ^ power + end``; with ``cycle`` the horizon
    grows to the next multiple of ``decay_steps``, else the step stops at ``decay_steps``."""
    with _schedule("polynomial_decay", name, "PolynomialDecay", learning_rate, global_step,
                   decay_steps) as (scope, initial, dtype, step, steps):
        end = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        if cycle:
            multiplier = math_ops.where(math_ops.equal(step, 0.0),
                                        constant_op.constant(1.0, dtype=dtype),
                                        math_ops.ceil(step / steps))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(initial - end, math_ops.pow(1 - p, power)), end,
                            name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, steps) / steps)) + alpha)``."""
    with _schedule("cosine_decay", name, "CosineDecay", learning_rate, global_step,
                   decay_steps) as (scope, initial, dtype, step, steps):
        step = math_ops.minimum(step, steps)
        fraction = step / steps
        cosine = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi, dtype=dtype)
                                           * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(initial, decayed, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[i]`` for ``boundaries[i-1] < x <= boundaries[i]`` (first/last outside).

    TF builds this from ``tf.case``; here it is a chain of ``Select`` ops with the same
    values.
    """
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of "
                         "values")
    with name_scope(name, "PiecewiseConstant") as scope:
        x = convert_to_tensor(x)
        xdt = x.dtype.base_dtype
        bounds = []
        for b in boundaries:
            b = convert_to_tensor(b)
            if b.dtype.base_dtype != xdt:
                if b.dtype.base_dtype == dtypes.int32 and xdt == dtypes.int64:
                    b = math_ops.cast(b, xdt)
                else:
                    raise ValueError(f"Boundaries ({b.dtype.base_dtype.name}) must have the "
                                     f"same dtype as x ({xdt.name}).")
            bounds.append(b)
        vals = [convert_to_tensor(v) for v in values]
        for v in vals[1:]:
            if v.dtype.base_dtype != vals[0].dtype.base_dtype:
                raise ValueError(f"Values must have elements all with the same dtype "
                                 f"({vals[0].dtype.base_dtype.name} vs "
                                 f"{v.dtype.base_dtype.name}).")
        result = vals[-1]
        for i in reversed(range(len(bounds))):
            result = math_ops.where(math_ops.less_equal(x, bounds[i]), vals[i], result,
                                    name=scope if i == 0 else None)
        return result


# TF1 exports the same function under both names.
piecewise_constant_decay = piecewise_constant


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """SGDR: cosine decay restarting after ``first_decay_steps * t_mul^i`` steps, each
    period's peak scaled by ``m_mul^i``. As TF, a ``cond`` on ``t_mul == 1`` picks the
    arithmetic or the geometric count of finished periods."""
    with _hyper_schedule(name, "SGDRDecay", learning_rate, global_step, first_decay_steps,
                         alpha, t_mul, m_mul) as (scope, initial, dtype, step, steps,
                                                  (alpha, t_mul, m_mul)):
        completed = step / steps

        def geometric():
            i_restart = math_ops.floor(math_ops.log(1.0 - completed * (1.0 - t_mul))
                                       / math_ops.log(t_mul))
            sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
            return i_restart, (completed - sum_r) / t_mul ** i_restart

        def arithmetic():
            i_restart = math_ops.floor(completed)
            return i_restart, completed - i_restart

        i_restart, fraction = cond(math_ops.equal(t_mul, 1.0), arithmetic, geometric)
        cosine = 0.5 * m_mul ** i_restart * (
            1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(initial, decayed, name=scope)


def _linear_cosine(step, steps, num_periods, alpha, beta, linear):
    """``(alpha + linear) * 0.5 * (1 + cos(2 pi num_periods step / steps)) + beta``."""
    fraction = 2.0 * num_periods * (step / steps)
    cosine = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
    return (alpha + linear) * cosine + beta


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """A linear ramp to zero times a cosine of ``num_periods`` periods, plus ``beta``
    (Bello et al., Neural Optimizer Search); constant after ``decay_steps``."""
    with _hyper_schedule(name, "LinearCosineDecay", learning_rate, global_step, decay_steps,
                         num_periods, alpha, beta) as (scope, initial, dtype, step, steps,
                                                       (num_periods, alpha, beta)):
        step = math_ops.minimum(step, steps)
        linear = (steps - step) / steps
        decayed = _linear_cosine(step, steps, num_periods, alpha, beta, linear)
        return math_ops.multiply(initial, decayed, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with Gaussian noise on the linear part, of variance
    ``initial_variance / (1 + step)^variance_decay``: one ``RandomStandardNormal`` per
    evaluation, seeded from the graph seed as TF's."""
    with _hyper_schedule(name, "NoisyLinearCosineDecay", learning_rate, global_step,
                         decay_steps, initial_variance, variance_decay, num_periods, alpha,
                         beta) as (scope, initial, dtype, step, steps, hypers):
        initial_variance, variance_decay, num_periods, alpha, beta = hypers
        step = math_ops.minimum(step, steps)
        linear = (steps - step) / steps
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        std = math_ops.sqrt(variance)
        noisy = linear + random_normal(linear.shape, stddev=std)
        decayed = _linear_cosine(step, steps, num_periods, alpha, beta, noisy)
        return math_ops.multiply(initial, decayed, name=scope)
