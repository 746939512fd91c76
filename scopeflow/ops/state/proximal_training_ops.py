"""TF's proximal and dual-averaging update ops: ``ApplyProximalGradientDescent``,
``ApplyProximalAdagrad``, ``ApplyAdagradDA`` and their ``SparseApply*`` forms.

They sit beside ``training_ops`` (same static rules, same in-place kernels on the session's
arrays) and serve ``tf.train.ProximalGradientDescentOptimizer``,
``ProximalAdagradOptimizer`` and ``AdagradDAOptimizer``. The formulas are TF's CPU kernels
(``core/kernels/training_ops.cc``) in the variable's dtype:

* proximal step: ``prox = var - lr * grad``; with ``l1 > 0``
  ``var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)``, else
  ``var = prox / (1 + lr * l2)``. Proximal Adagrad uses ``lr * rsqrt(accum)`` (after
  ``accum += grad^2``) as the per-element rate.
* Adagrad dual averaging: ``g_acc += grad; gg_acc += grad^2``; with ``l1 > 0``
  ``var = -sign(g_acc) * lr * max(|g_acc| - l1 * step, 0) / (l2 * step * lr + sqrt(gg_acc))``
  else ``var = -g_acc * lr / (l2 * step * lr + sqrt(gg_acc))``, ``step`` being the int64
  ``global_step`` input.

Sparse forms update only the rows named by ``indices`` (duplicates summed first, as the
optimizers do).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX, INDEX
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, ref
from scopeflow.ops.state.training_ops import (
    _bind,
    _check_same_shape,
    _make_rules,
    _refs,
    _rows,
    _training_op,
)

__all__ = [
    "apply_proximal_gradient_descent", "sparse_apply_proximal_gradient_descent",
    "apply_proximal_adagrad", "sparse_apply_proximal_adagrad", "apply_adagrad_da",
    "sparse_apply_adagrad_da",
]


def _proximal(prox, lr, l1, l2):
    """TF's soft-threshold-and-shrink of ``prox`` with (scalar or per-element) rate ``lr``."""
    one = np.ones((), prox.dtype)
    if l1 > 0:
        shrunk = np.maximum(np.abs(prox) - lr * l1, np.zeros((), prox.dtype))
        return np.sign(prox) * shrunk / (one + lr * l2)
    return prox / (one + lr * l2)


# ── ApplyProximalGradientDescent / SparseApplyProximalGradientDescent ────────────────
def _apply_pgd_kernel(ctx, var, alpha, l1, l2, delta, *, use_locking):
    (var,) = _refs(ctx, var)
    delta = np.asarray(delta)
    _check_same_shape(ctx, var, "delta", delta)
    var[...] = _proximal(var - alpha * delta, alpha, l1, l2)
    return var


apply_proximal_gradient_descent_op = _training_op(
    "ApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "delta"), _apply_pgd_kernel,
    {}, n_refs=1, grad="delta")


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False, name=None):
    """FOBOS step with a fixed rate: ``var = prox(var - alpha * delta)``."""
    return _bind(apply_proximal_gradient_descent_op, var, alpha, l1, l2, delta,
                 use_locking=use_locking, name=name)


def _sparse_apply_pgd_kernel(ctx, var, alpha, l1, l2, grad, indices, *, use_locking):
    (var,) = _refs(ctx, var)
    idx, g = _rows(ctx, var, indices, grad)
    var[idx] = _proximal(var[idx] - alpha * g, alpha, l1, l2)
    return var


sparse_apply_proximal_gradient_descent_op = _training_op(
    "SparseApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "grad", "indices"),
    _sparse_apply_pgd_kernel, {}, n_refs=1, indices="indices")


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices,
                                           use_locking=False, name=None):
    """The proximal gradient-descent step on the rows ``indices`` only."""
    return _bind(sparse_apply_proximal_gradient_descent_op, var, alpha, l1, l2, grad,
                 indices, use_locking=use_locking, name=name)


# ── ApplyProximalAdagrad / SparseApplyProximalAdagrad ────────────────────────────────
def _proximal_adagrad_rows(var, accum, lr, l1, l2, g):
    """Updates ``accum`` in place and returns the new ``var`` (rows)."""
    accum += g * g
    rate = lr / np.sqrt(accum)
    return _proximal(var - g * rate, rate, l1, l2)


def _apply_proximal_adagrad_kernel(ctx, var, accum, lr, l1, l2, grad, *, use_locking):
    var, accum = _refs(ctx, var, accum)
    _check_same_shape(ctx, var, "accum", accum)
    var[...] = _proximal_adagrad_rows(var, accum, lr, l1, l2, np.asarray(grad))
    return var


apply_proximal_adagrad_op = _training_op(
    "ApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad"),
    _apply_proximal_adagrad_kernel, {}, n_refs=2)


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False, name=None):
    """``accum += grad^2``, then the proximal step with rate ``lr / sqrt(accum)``."""
    return _bind(apply_proximal_adagrad_op, var, accum, lr, l1, l2, grad,
                 use_locking=use_locking, name=name)


def _sparse_apply_proximal_adagrad_kernel(ctx, var, accum, lr, l1, l2, grad, indices, *,
                                          use_locking):
    var, accum = _refs(ctx, var, accum)
    idx, g = _rows(ctx, var, indices, grad)
    a = accum[idx]
    var[idx] = _proximal_adagrad_rows(var[idx], a, lr, l1, l2, g)
    accum[idx] = a
    return var


sparse_apply_proximal_adagrad_op = _training_op(
    "SparseApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad", "indices"),
    _sparse_apply_proximal_adagrad_kernel, {}, n_refs=2, indices="indices")


def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False,
                                  name=None):
    """Proximal Adagrad on the rows ``indices`` only."""
    return _bind(sparse_apply_proximal_adagrad_op, var, accum, lr, l1, l2, grad, indices,
                 use_locking=use_locking, name=name)


# ── ApplyAdagradDA / SparseApplyAdagradDA ────────────────────────────────────────────
def _da_rows(var_dtype, g_acc, gg_acc, g, lr, l1, l2, step):
    """Accumulates in place; returns the new ``var`` rows (a closed form of the sums)."""
    g_acc += g
    gg_acc += g * g
    step = np.asarray(step).astype(var_dtype)
    denom = l2 * step * lr + np.sqrt(gg_acc)
    if l1 > 0:
        shrunk = np.maximum(np.abs(g_acc) - l1 * step, np.zeros((), var_dtype))
        return -np.sign(g_acc) * lr * shrunk / denom
    return -g_acc * lr / denom


def _da_op(op_type, input_names, kernel, indices=None):
    """Like ``_training_op``, but ``global_step`` (the last input) is int64, not var's type."""
    n_refs, grad_at = 3, input_names.index("grad")
    indices_at = input_names.index(indices) if indices else None
    skip = {grad_at, indices_at} | set(range(n_refs))
    scalars = [i for i in range(len(input_names)) if i not in skip]
    shape, _ = _make_rules(n_refs, scalars, grad_at, indices_at)

    def dtype(*dts, **attrs):
        var = check_dtype(dts[0], FLOAT_OR_COMPLEX, "var")
        for i, d in enumerate(dts[:-1]):
            if i == indices_at:
                check_dtype(d, INDEX, "indices")
            elif d is not var:
                raise TypeError(f"Input {i} has type {d.name} that does not match type "
                                f"{var.name} of the variable")
        if dts[-1] is not dtypes.int64:
            raise TypeError(f"Input 'global_step' of '{op_type}' Op has type "
                            f"{dts[-1].name} that does not match expected type of int64.")
        return var._as_ref

    return OpDef(op_type, shape=shape, dtype=dtype, kernel=kernel,
                 attrs={"use_locking": False}, stateful=True, aliases=True, grad=NO_GRADIENT,
                 input_names=tuple(map(ref, input_names[:n_refs])) + input_names[n_refs:])


def _apply_adagrad_da_kernel(ctx, var, g_acc, gg_acc, grad, lr, l1, l2, global_step, *,
                             use_locking):
    var, g_acc, gg_acc = _refs(ctx, var, g_acc, gg_acc)
    _check_same_shape(ctx, var, "accum", g_acc)
    _check_same_shape(ctx, var, "accum", gg_acc)
    var[...] = _da_rows(var.dtype, g_acc, gg_acc, np.asarray(grad), lr, l1, l2, global_step)
    return var


apply_adagrad_da_op = _da_op(
    "ApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
                       "lr", "l1", "l2", "global_step"), _apply_adagrad_da_kernel)


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
                     l2, global_step, use_locking=False, name=None):
    """Adagrad dual averaging: the variable is recomputed from the accumulated sums."""
    return _bind(apply_adagrad_da_op, var, gradient_accumulator, gradient_squared_accumulator,
                 grad, lr, l1, l2, global_step, use_locking=use_locking, name=name)


def _sparse_apply_adagrad_da_kernel(ctx, var, g_acc, gg_acc, grad, indices, lr, l1, l2,
                                    global_step, *, use_locking):
    var, g_acc, gg_acc = _refs(ctx, var, g_acc, gg_acc)
    idx, g = _rows(ctx, var, indices, grad)
    a, aa = g_acc[idx], gg_acc[idx]
    var[idx] = _da_rows(var.dtype, a, aa, g, lr, l1, l2, global_step)
    g_acc[idx], gg_acc[idx] = a, aa
    return var


sparse_apply_adagrad_da_op = _da_op(
    "SparseApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator",
                             "grad", "indices", "lr", "l1", "l2", "global_step"),
    _sparse_apply_adagrad_da_kernel, indices="indices")


def sparse_apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad,
                            indices, lr, l1, l2, global_step, use_locking=False, name=None):
    """Adagrad dual averaging on the rows ``indices`` only."""
    return _bind(sparse_apply_adagrad_da_op, var, gradient_accumulator,
                 gradient_squared_accumulator, grad, indices, lr, l1, l2, global_step,
                 use_locking=use_locking, name=name)
