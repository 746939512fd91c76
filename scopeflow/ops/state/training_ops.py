"""Optimizer update ops: TF's ``Apply*`` / ``SparseApply*`` / ``Scatter*`` on variable refs.

Each kernel updates the session's arrays **in place** (``ctx.state.vars[ref]`` is owned by
the session) with NumPy ufuncs and ``out=``; the dense kernels borrow one preallocated
scratch array per (session, op), so an Adam step on a large variable allocates nothing.
The formulas are TF's CPU kernels (``core/kernels/training_ops.cc``), evaluated in the
variable's dtype, so float32 trajectories match TensorFlow to rounding.

Sparse kernels touch only the rows named by ``indices``; duplicate indices are summed
first (as ``Optimizer._apply_sparse_duplicate_indices`` does with ``UnsortedSegmentSum``).
The outputs are the updated variable refs (TF's ``out``), so they can be read or used as
control dependencies.
"""

from __future__ import annotations

import weakref

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.dtype_groups import FLOAT_OR_COMPLEX, INDEX
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, ref
from scopeflow.ops.math.blas import PARALLEL_ELEMENTWISE_FLOPS, split_rows
from scopeflow.ops.state.state_ops import _ref_output, _uninitialized

__all__ = [
    "apply_gradient_descent", "apply_momentum", "apply_adam", "apply_adagrad",
    "apply_rms_prop", "apply_centered_rms_prop", "apply_adadelta", "apply_ftrl",
    "apply_ftrl_v2", "sparse_apply_momentum", "sparse_apply_adagrad", "sparse_apply_rms_prop",
    "sparse_apply_centered_rms_prop", "sparse_apply_adadelta", "sparse_apply_ftrl",
    "sparse_apply_ftrl_v2", "sparse_apply_adam", "scatter_add", "scatter_sub", "scatter_update",
]

# Per-session scratch buffers: {SessionState: {(op name, slot): ndarray}}.
_SCRATCH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _scratch(ctx, like, slot=0):
    per_session = _SCRATCH.get(ctx.state)
    if per_session is None:
        per_session = _SCRATCH[ctx.state] = {}
    key = (ctx.key, slot)
    buf = per_session.get(key)
    if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
        buf = per_session[key] = np.empty_like(like)
    return buf


def _refs(ctx, *keys):
    state = ctx.state.vars
    out = []
    for key in keys:
        try:
            out.append(state[key])
        except KeyError:
            raise _uninitialized(ctx, key) from None
    return out


def _check_same_shape(ctx, var, what, other):
    if var.shape != other.shape:
        raise errors.InvalidArgumentError(
            None, ctx.op, f"{ctx.op.type}: var and {what} do not have the same shape"
            f"{list(var.shape)} {list(other.shape)}")


def _rows(ctx, var, indices, values):
    """Deduplicated (indices, values): duplicate rows summed, bounds checked."""
    indices = np.asarray(indices).reshape(-1)
    values = np.asarray(values)
    if values.shape[:1] != indices.shape or values.shape[1:] != var.shape[1:]:
        raise errors.InvalidArgumentError(
            None, ctx.op, f"{ctx.op.type}: grad must be [len(indices)] + var.shape[1:]: grad "
            f"shape {list(values.shape)}, indices {list(indices.shape)}, var "
            f"{list(var.shape)}")
    n = var.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = int(np.flatnonzero((indices < 0) | (indices >= n))[0])
        raise errors.InvalidArgumentError(
            None, ctx.op, f"indices[{bad}] = {indices[bad]} is not in [0, {n})")
    uniq, inverse = np.unique(indices, return_inverse=True)
    if len(uniq) == len(indices):
        return indices, values
    summed = np.zeros((len(uniq),) + values.shape[1:], values.dtype)
    np.add.at(summed, inverse.reshape(-1), values)
    return uniq, summed


# ── Shared static rules ──────────────────────────────────────────────────────────────
def _make_rules(n_refs, scalars, grad_at, indices_at=None):
    """Shape/dtype rules: refs and grad match var; scalars rank 0; indices a vector."""
    def shape(*shapes, **attrs):
        var = shapes[0]
        for s in shapes[1:n_refs]:
            var = var.merge_with(s)
        grad = shapes[grad_at]
        if indices_at is None:
            var = var.merge_with(grad)
        else:
            shapes[indices_at].with_rank(1)
            if var.ndims is not None and grad.ndims is not None:
                grad[1:].assert_is_compatible_with(var[1:])
        for i in scalars:
            shapes[i].with_rank(0)
        return var

    def dtype(*dts, **attrs):
        var = check_dtype(dts[0], FLOAT_OR_COMPLEX, "var")
        for i, d in enumerate(dts):
            if i == indices_at:
                check_dtype(d, INDEX, "indices")
            elif d is not var:
                raise TypeError(f"Input {i} has type {d.name} that does not match type "
                                f"{var.name} of the variable")
        return var._as_ref

    return shape, dtype


def _training_op(op_type, input_names, kernel, attrs, *, n_refs, grad="grad",
                 indices=None):
    grad_at = input_names.index(grad)
    indices_at = input_names.index(indices) if indices else None
    skip = {grad_at, indices_at} | set(range(n_refs))
    scalars = [i for i in range(len(input_names)) if i not in skip]
    shape, dtype = _make_rules(n_refs, scalars, grad_at, indices_at)
    return OpDef(op_type, shape=shape, dtype=dtype, kernel=kernel,
                 attrs={"use_locking": False, **attrs}, stateful=True, aliases=True,
                 grad=NO_GRADIENT,
                 input_names=tuple(map(ref, input_names[:n_refs])) + input_names[n_refs:])


def _bind(op_def, *inputs, name, **attrs):
    """Binds the op with Variables' refs for the ref inputs; the output refers to input 0.
    On a resource variable, its ``Resource*`` op instead (TF's ``state_ops``)."""
    if getattr(inputs[0], "_is_resource", False):
        return inputs[0]._resource_update(op_def.type, *inputs[1:], name=name, **attrs)
    n = len(op_def.ref_inputs)
    refs = [getattr(x, "_variable", x) for x in inputs[:n]]
    return _ref_output(op_def.bind(*refs, *inputs[n:], name=name or op_def.type, **attrs),
                       refs[0])


# ── ApplyGradientDescent ─────────────────────────────────────────────────────────────
def _apply_gradient_descent_kernel(ctx, var, alpha, delta, *, use_locking):
    (var,) = _refs(ctx, var)
    _check_same_shape(ctx, var, "delta", np.asarray(delta))
    delta = np.asarray(delta)
    if not (var.flags.c_contiguous and delta.flags.c_contiguous):
        var -= delta * alpha
        return var
    flat_var, flat_delta = var.reshape(-1), delta.reshape(-1)
    tmp = _scratch(ctx, flat_var)

    def rows(lo, hi):  # in halves over two threads for large variables
        np.multiply(flat_delta[lo:hi], alpha, out=tmp[lo:hi])
        flat_var[lo:hi] -= tmp[lo:hi]

    split_rows(rows, flat_var.size, flops=2.0 * flat_var.size,
               min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return var


apply_gradient_descent_op = _training_op(
    "ApplyGradientDescent", ("var", "alpha", "delta"), _apply_gradient_descent_kernel, {},
    n_refs=1, grad="delta")


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """``var -= alpha * delta`` in place."""
    return _bind(apply_gradient_descent_op, var, alpha, delta, use_locking=use_locking,
                 name=name)


# ── ApplyMomentum ────────────────────────────────────────────────────────────────────
def _apply_momentum_kernel(ctx, var, accum, lr, grad, momentum, *, use_locking, use_nesterov):
    var, accum = _refs(ctx, var, accum)
    _check_same_shape(ctx, var, "accum", accum)
    accum *= momentum
    accum += grad
    tmp = _scratch(ctx, var)
    if use_nesterov:   # var -= grad * lr + accum * momentum * lr
        np.multiply(grad, lr, out=tmp)
        var -= tmp
        np.multiply(accum, momentum, out=tmp)
        tmp *= lr
    else:              # var -= accum * lr
        np.multiply(accum, lr, out=tmp)
    var -= tmp
    return var


apply_momentum_op = _training_op(
    "ApplyMomentum", ("var", "accum", "lr", "grad", "momentum"), _apply_momentum_kernel,
    {"use_nesterov": False}, n_refs=2)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False,
                   name=None):
    """``accum = accum * momentum + grad; var -= lr * accum`` (or the Nesterov form)."""
    return _bind(apply_momentum_op, var, accum, lr, grad, momentum, use_locking=use_locking,
                 use_nesterov=use_nesterov, name=name)


# ── SparseApplyMomentum ──────────────────────────────────────────────────────────────
def _sparse_apply_momentum_kernel(ctx, var, accum, lr, grad, indices, momentum, *,
                                  use_locking, use_nesterov):
    var, accum = _refs(ctx, var, accum)
    idx, g = _rows(ctx, var, indices, grad)
    a = accum[idx] * momentum + g
    accum[idx] = a
    if use_nesterov:
        var[idx] -= g * lr + a * momentum * lr
    else:
        var[idx] -= a * lr
    return var


sparse_apply_momentum_op = _training_op(
    "SparseApplyMomentum", ("var", "accum", "lr", "grad", "indices", "momentum"),
    _sparse_apply_momentum_kernel, {"use_nesterov": False}, n_refs=2, indices="indices")


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False,
                          use_nesterov=False, name=None):
    """Momentum on the rows ``indices`` only."""
    return _bind(sparse_apply_momentum_op, var, accum, lr, grad, indices, momentum,
                 use_locking=use_locking, use_nesterov=use_nesterov, name=name)


# ── ApplyAdam ────────────────────────────────────────────────────────────────────────
_CHUNK = 1 << 17  # elements per cache-sized block of the fused dense kernels


def _apply_adam_kernel(ctx, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                       grad, *, use_locking, use_nesterov):
    var, m, v = _refs(ctx, var, m, v)
    _check_same_shape(ctx, var, "m", m)
    _check_same_shape(ctx, var, "v", v)
    grad = np.asarray(grad)
    _check_same_shape(ctx, var, "grad", grad)
    one = np.ones((), var.dtype)
    alpha = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    c1, c2 = one - beta1, one - beta2
    if not all(a.flags.c_contiguous for a in (var, m, v)):  # not from a session: no blocks
        _adam_block(var, m, v, grad, np.empty_like(var), np.empty_like(var) if use_nesterov
                    else None, c1, c2, alpha, beta1, epsilon)
        return var
    # NOTE: block by block, so each block stays in cache across the ~10 passes; large
    # variables are split over two threads (NumPy releases the GIL), each with its scratch.
    flat = [a.reshape(-1) for a in (var, m, v, grad)]
    n = flat[0].size
    n_blocks = -(-n // _CHUNK)
    first = flat[0][:min(n, _CHUNK)]
    scratches = [(_scratch(ctx, first, 2 * t), _scratch(ctx, first, 2 * t + 1)
                  if use_nesterov else None) for t in range(2 if n_blocks > 1 else 1)]

    def blocks(lo, hi):
        tmp, tmp2 = scratches[0 if lo == 0 else -1]
        for b in range(lo, hi):
            x, mm, vv, g = (a[b * _CHUNK:(b + 1) * _CHUNK] for a in flat)
            _adam_block(x, mm, vv, g, tmp[:x.size], None if tmp2 is None else tmp2[:x.size],
                        c1, c2, alpha, beta1, epsilon)

    split_rows(blocks, n_blocks, flops=10.0 * n, min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return var


def _adam_block(x, mm, vv, g, tmp, t2, c1, c2, alpha, beta1, epsilon):
    np.subtract(g, mm, out=tmp)             # m += (g - m) * (1 - beta1)
    tmp *= c1
    mm += tmp
    np.multiply(g, g, out=tmp)              # v += (g^2 - v) * (1 - beta2)
    tmp -= vv
    tmp *= c2
    vv += tmp
    np.sqrt(vv, out=tmp)                    # var -= m * alpha / (sqrt(v) + eps)
    tmp += epsilon
    if t2 is not None:                      # Nesterov: (g * (1 - beta1) + beta1 * m)
        np.multiply(g, c1, out=t2)
        t2 += beta1 * mm
        np.divide(t2, tmp, out=tmp)
    else:
        np.divide(mm, tmp, out=tmp)
    tmp *= alpha
    x -= tmp


apply_adam_op = _training_op(
    "ApplyAdam", ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                  "epsilon", "grad"), _apply_adam_kernel, {"use_nesterov": False}, n_refs=3)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, name=None):
    """TF's Adam step (``alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``), in place."""
    return _bind(apply_adam_op, var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                 epsilon, grad, use_locking=use_locking, use_nesterov=use_nesterov, name=name)


# ── SparseApplyAdam ──────────────────────────────────────────────────────────────────
def _sparse_apply_adam_kernel(ctx, var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                              epsilon, grad, indices, *, use_locking):
    # NOTE: TF's AdamOptimizer._apply_sparse decays m and v everywhere (m = m * beta1, then
    # scatter_add of the rows) and updates every row of var. Matching its values means the
    # work is dense, but it is done in place with scratch: no per-step allocation.
    var, m, v = _refs(ctx, var, m, v)
    idx, g = _rows(ctx, var, indices, grad)
    one = np.ones((), var.dtype)
    lr_t = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    m *= beta1
    m[idx] += g * (one - beta1)
    v *= beta2
    v[idx] += (g * g) * (one - beta2)
    tmp = _scratch(ctx, var)
    np.sqrt(v, out=tmp)
    tmp += epsilon
    np.divide(m, tmp, out=tmp)
    tmp *= lr_t
    var -= tmp
    return var


sparse_apply_adam_op = _training_op(
    "SparseApplyAdam", ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                        "epsilon", "grad", "indices"), _sparse_apply_adam_kernel, {},
    n_refs=3, indices="indices")


def sparse_apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                      indices, use_locking=False, name=None):
    """TF's sparse Adam (AdamOptimizer._apply_sparse) as one in-place kernel.

    A scopeflow op type: TF builds the same arithmetic from Assign/ScatterAdd/AssignSub.
    """
    return _bind(sparse_apply_adam_op, var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                 epsilon, grad, indices, use_locking=use_locking, name=name)


# ── ApplyAdagrad ─────────────────────────────────────────────────────────────────────
def _apply_adagrad_kernel(ctx, var, accum, lr, grad, *, use_locking, update_slots):
    var, accum = _refs(ctx, var, accum)
    _check_same_shape(ctx, var, "accum", accum)
    tmp = _scratch(ctx, var)
    if update_slots:
        np.multiply(grad, grad, out=tmp)
        accum += tmp
    np.sqrt(accum, out=tmp)                 # var -= grad * lr * rsqrt(accum)
    np.divide(grad * lr, tmp, out=tmp)
    var -= tmp
    return var


apply_adagrad_op = _training_op(
    "ApplyAdagrad", ("var", "accum", "lr", "grad"), _apply_adagrad_kernel,
    {"update_slots": True}, n_refs=2)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """``accum += grad^2; var -= lr * grad / sqrt(accum)``."""
    return _bind(apply_adagrad_op, var, accum, lr, grad, use_locking=use_locking,
                 update_slots=update_slots, name=name)


# ── SparseApplyAdagrad ───────────────────────────────────────────────────────────────
def _sparse_apply_adagrad_kernel(ctx, var, accum, lr, grad, indices, *, use_locking,
                                 update_slots):
    var, accum = _refs(ctx, var, accum)
    idx, g = _rows(ctx, var, indices, grad)
    a = accum[idx]
    if update_slots:
        a += g * g
        accum[idx] = a
    var[idx] -= g * lr / np.sqrt(a)
    return var


sparse_apply_adagrad_op = _training_op(
    "SparseApplyAdagrad", ("var", "accum", "lr", "grad", "indices"),
    _sparse_apply_adagrad_kernel, {"update_slots": True}, n_refs=2, indices="indices")


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking=False, update_slots=True,
                         name=None):
    """Adagrad on the rows ``indices`` only."""
    return _bind(sparse_apply_adagrad_op, var, accum, lr, grad, indices,
                 use_locking=use_locking, update_slots=update_slots, name=name)


# ── ApplyRMSProp / ApplyCenteredRMSProp (+ sparse): shared rules ─────────────────────
def _rms_rows(ms, mom, mg, lr, rho, momentum, epsilon, g):
    """One RMSProp step on arrays (rows); returns the amount to subtract from var."""
    one = np.ones((), ms.dtype)
    ms += (g * g - ms) * (one - rho)
    if mg is None:
        denom = ms + epsilon
    else:
        mg += (g - mg) * (one - rho)
        denom = ms - mg * mg + epsilon
    mom *= momentum
    mom += g * lr / np.sqrt(denom)
    return mom


def _sparse_rms(ctx, var, slots, lr, rho, momentum, epsilon, grad, indices):
    """The sparse RMSProp kernels: ``slots`` are the refs of ``(mg,) ms, mom``."""
    var, *arrays = _refs(ctx, var, *slots)
    idx, g = _rows(ctx, var, indices, grad)
    rows = [a[idx] for a in arrays]
    mg, ms, mom = rows if len(rows) == 3 else (None, *rows)
    var[idx] -= _rms_rows(ms, mom, mg, lr, rho, momentum, epsilon, g)
    for a, r in zip(arrays, rows):
        a[idx] = r
    return var


# ── ApplyRMSProp ─────────────────────────────────────────────────────────────────────
def _apply_rms_prop_kernel(ctx, var, ms, mom, lr, rho, momentum, epsilon, grad, *,
                           use_locking):
    var, ms, mom = _refs(ctx, var, ms, mom)
    _check_same_shape(ctx, var, "ms", ms)
    one = np.ones((), var.dtype)
    tmp = _scratch(ctx, var)
    np.multiply(grad, grad, out=tmp)        # ms += (g^2 - ms) * (1 - rho)
    tmp -= ms
    tmp *= one - rho
    ms += tmp
    np.add(ms, epsilon, out=tmp)            # mom = mom * momentum + g * lr / sqrt(ms + eps)
    np.sqrt(tmp, out=tmp)
    np.divide(grad * lr, tmp, out=tmp)
    mom *= momentum
    mom += tmp
    var -= mom
    return var


apply_rms_prop_op = _training_op(
    "ApplyRMSProp", ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
    _apply_rms_prop_kernel, {}, n_refs=3)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False,
                   name=None):
    """RMSProp with momentum, TF's formula."""
    return _bind(apply_rms_prop_op, var, ms, mom, lr, rho, momentum, epsilon, grad,
                 use_locking=use_locking, name=name)


# ── ApplyCenteredRMSProp ─────────────────────────────────────────────────────────────
def _apply_centered_rms_prop_kernel(ctx, var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                                    *, use_locking):
    var, mg, ms, mom = _refs(ctx, var, mg, ms, mom)
    _check_same_shape(ctx, var, "ms", ms)
    var -= _rms_rows(ms, mom, mg, lr, rho, momentum, epsilon, grad)
    return var


apply_centered_rms_prop_op = _training_op(
    "ApplyCenteredRMSProp", ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon",
                             "grad"), _apply_centered_rms_prop_kernel, {}, n_refs=4)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                            use_locking=False, name=None):
    """Centered RMSProp (normalised by the estimated variance), TF's formula."""
    return _bind(apply_centered_rms_prop_op, var, mg, ms, mom, lr, rho, momentum, epsilon,
                 grad, use_locking=use_locking, name=name)


# ── SparseApplyRMSProp ───────────────────────────────────────────────────────────────
def _sparse_apply_rms_prop_kernel(ctx, var, ms, mom, lr, rho, momentum, epsilon, grad,
                                  indices, *, use_locking):
    return _sparse_rms(ctx, var, (ms, mom), lr, rho, momentum, epsilon, grad, indices)


sparse_apply_rms_prop_op = _training_op(
    "SparseApplyRMSProp", ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad",
                           "indices"), _sparse_apply_rms_prop_kernel, {}, n_refs=3,
    indices="indices")


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices,
                          use_locking=False, name=None):
    """RMSProp on the rows ``indices`` only."""
    return _bind(sparse_apply_rms_prop_op, var, ms, mom, lr, rho, momentum, epsilon, grad,
                 indices, use_locking=use_locking, name=name)


# ── SparseApplyCenteredRMSProp ───────────────────────────────────────────────────────
def _sparse_apply_centered_rms_prop_kernel(ctx, var, mg, ms, mom, lr, rho, momentum, epsilon,
                                           grad, indices, *, use_locking):
    return _sparse_rms(ctx, var, (mg, ms, mom), lr, rho, momentum, epsilon, grad, indices)


sparse_apply_centered_rms_prop_op = _training_op(
    "SparseApplyCenteredRMSProp", ("var", "mg", "ms", "mom", "lr", "rho", "momentum",
                                   "epsilon", "grad", "indices"),
    _sparse_apply_centered_rms_prop_kernel, {}, n_refs=4, indices="indices")


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                                   indices, use_locking=False, name=None):
    """Centered RMSProp on the rows ``indices`` only."""
    return _bind(sparse_apply_centered_rms_prop_op, var, mg, ms, mom, lr, rho, momentum,
                 epsilon, grad, indices, use_locking=use_locking, name=name)


# ── ApplyAdadelta / SparseApplyAdadelta: shared rules ────────────────────────────────
def _adadelta_rows(accum, accum_update, lr, rho, epsilon, g):
    one = np.ones((), accum.dtype)
    accum *= rho
    accum += g * g * (one - rho)
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * g
    accum_update *= rho
    accum_update += update * update * (one - rho)
    update *= lr
    return update


# ── ApplyAdadelta ────────────────────────────────────────────────────────────────────
def _apply_adadelta_kernel(ctx, var, accum, accum_update, lr, rho, epsilon, grad, *,
                           use_locking):
    var, accum, accum_update = _refs(ctx, var, accum, accum_update)
    _check_same_shape(ctx, var, "accum", accum)
    var -= _adadelta_rows(accum, accum_update, lr, rho, epsilon, grad)
    return var


apply_adadelta_op = _training_op(
    "ApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
    _apply_adadelta_kernel, {}, n_refs=3)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False,
                   name=None):
    """Adadelta, TF's formula."""
    return _bind(apply_adadelta_op, var, accum, accum_update, lr, rho, epsilon, grad,
                 use_locking=use_locking, name=name)


# ── SparseApplyAdadelta ──────────────────────────────────────────────────────────────
def _sparse_apply_adadelta_kernel(ctx, var, accum, accum_update, lr, rho, epsilon, grad,
                                  indices, *, use_locking):
    var, accum, accum_update = _refs(ctx, var, accum, accum_update)
    idx, g = _rows(ctx, var, indices, grad)
    a, au = accum[idx], accum_update[idx]
    var[idx] -= _adadelta_rows(a, au, lr, rho, epsilon, g)
    accum[idx], accum_update[idx] = a, au
    return var


sparse_apply_adadelta_op = _training_op(
    "SparseApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad",
                            "indices"), _sparse_apply_adadelta_kernel, {}, n_refs=3,
    indices="indices")


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices,
                          use_locking=False, name=None):
    """Adadelta on the rows ``indices`` only."""
    return _bind(sparse_apply_adadelta_op, var, accum, accum_update, lr, rho, epsilon, grad,
                 indices, use_locking=use_locking, name=name)


# ── ApplyFtrl / ApplyFtrlV2 / SparseApplyFtrl / SparseApplyFtrlV2: shared rules ──────
def _ftrl_rows(var, accum, linear, g, lr, l1, l2, l2_shrinkage, lr_power):
    """TF's FTRL-proximal step on arrays (rows); updates all three in place."""
    two = np.asarray(2, var.dtype)
    g_shrunk = g if l2_shrinkage is None else g + two * l2_shrinkage * var
    new_accum = accum + g * g
    if lr_power == -0.5:
        sigma = (np.sqrt(new_accum) - np.sqrt(accum)) / lr
        y = np.sqrt(new_accum) / lr + two * l2
    else:
        sigma = (new_accum ** -lr_power - accum ** -lr_power) / lr
        y = new_accum ** -lr_power / lr + two * l2
    linear += g_shrunk - sigma * var
    x = l1 * np.sign(linear) - linear
    var[...] = np.where(np.abs(linear) > l1, x / y, np.zeros((), var.dtype))
    accum[...] = new_accum


def _ftrl_refs(ctx, var, accum, linear, multiply_linear_by_lr):
    if multiply_linear_by_lr:
        raise errors.UnimplementedError(None, ctx.op, "multiply_linear_by_lr=True")
    return _refs(ctx, var, accum, linear)


def _sparse_ftrl(ctx, var, accum, linear, grad, indices, lr, l1, l2, shrink, lr_power):
    """The sparse FTRL kernels, on the variables' arrays."""
    idx, g = _rows(ctx, var, indices, grad)
    rows = [var[idx], accum[idx], linear[idx]]
    _ftrl_rows(*rows, g, lr, l1, l2, shrink, lr_power)
    var[idx], accum[idx], linear[idx] = rows
    return var


_FTRL_ATTRS = {"multiply_linear_by_lr": False}


# ── ApplyFtrl ────────────────────────────────────────────────────────────────────────
def _apply_ftrl_kernel(ctx, var, accum, linear, grad, lr, l1, l2, lr_power, *, use_locking,
                       multiply_linear_by_lr):
    var, accum, linear = _ftrl_refs(ctx, var, accum, linear, multiply_linear_by_lr)
    _ftrl_rows(var, accum, linear, grad, lr, l1, l2, None, lr_power)
    return var


apply_ftrl_op = _training_op(
    "ApplyFtrl", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"),
    _apply_ftrl_kernel, _FTRL_ATTRS, n_refs=3)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False, name=None):
    """FTRL-proximal, TF's formula."""
    return _bind(apply_ftrl_op, var, accum, linear, grad, lr, l1, l2, lr_power,
                 use_locking=use_locking, name=name)


# ── ApplyFtrlV2 ──────────────────────────────────────────────────────────────────────
def _apply_ftrl_v2_kernel(ctx, var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
                          *, use_locking, multiply_linear_by_lr):
    var, accum, linear = _ftrl_refs(ctx, var, accum, linear, multiply_linear_by_lr)
    _ftrl_rows(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power)
    return var


apply_ftrl_v2_op = _training_op(
    "ApplyFtrlV2", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage",
                    "lr_power"), _apply_ftrl_v2_kernel, _FTRL_ATTRS, n_refs=3)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
                  use_locking=False, name=None):
    """FTRL-proximal with L2 shrinkage, TF's formula."""
    return _bind(apply_ftrl_v2_op, var, accum, linear, grad, lr, l1, l2, l2_shrinkage,
                 lr_power, use_locking=use_locking, name=name)


# ── SparseApplyFtrl ──────────────────────────────────────────────────────────────────
def _sparse_apply_ftrl_kernel(ctx, var, accum, linear, grad, indices, lr, l1, l2, lr_power,
                              *, use_locking, multiply_linear_by_lr):
    var, accum, linear = _ftrl_refs(ctx, var, accum, linear, multiply_linear_by_lr)
    return _sparse_ftrl(ctx, var, accum, linear, grad, indices, lr, l1, l2, None, lr_power)


sparse_apply_ftrl_op = _training_op(
    "SparseApplyFtrl", ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2",
                        "lr_power"), _sparse_apply_ftrl_kernel, _FTRL_ATTRS, n_refs=3,
    indices="indices")


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power,
                      use_locking=False, name=None):
    """FTRL on the rows ``indices`` only."""
    return _bind(sparse_apply_ftrl_op, var, accum, linear, grad, indices, lr, l1, l2,
                 lr_power, use_locking=use_locking, name=name)


# ── SparseApplyFtrlV2 ────────────────────────────────────────────────────────────────
def _sparse_apply_ftrl_v2_kernel(ctx, var, accum, linear, grad, indices, lr, l1, l2,
                                 l2_shrinkage, lr_power, *, use_locking,
                                 multiply_linear_by_lr):
    var, accum, linear = _ftrl_refs(ctx, var, accum, linear, multiply_linear_by_lr)
    return _sparse_ftrl(ctx, var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage,
                        lr_power)


sparse_apply_ftrl_v2_op = _training_op(
    "SparseApplyFtrlV2", ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2",
                          "l2_shrinkage", "lr_power"), _sparse_apply_ftrl_v2_kernel,
    _FTRL_ATTRS, n_refs=3, indices="indices")


def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage,
                         lr_power, use_locking=False, name=None):
    """FTRL with L2 shrinkage on the rows ``indices`` only."""
    return _bind(sparse_apply_ftrl_v2_op, var, accum, linear, grad, indices, lr, l1, l2,
                 l2_shrinkage, lr_power, use_locking=use_locking, name=name)


# ── ScatterAdd / ScatterSub / ScatterUpdate: shared rules ────────────────────────────
def _scatter_shape(ref, indices, updates, *, use_locking):
    # As TF's ScatterUpdateShape: a scalar update is broadcast to every indexed row.
    if ref.ndims is not None and updates.ndims and indices.ndims is not None:
        expected = indices.concatenate(ref[1:])
        if not updates.is_compatible_with(expected):
            raise ValueError(f"Shapes must be equal rank: updates {updates} vs indices.shape "
                             f"+ ref.shape[1:] = {expected}")
    return ref


def _scatter_dtype(ref, indices, updates, *, use_locking):
    check_dtype(indices, INDEX, "indices")
    if updates is not ref:
        raise TypeError(f"Input 'updates' has type {updates.name} that does not match type "
                        f"{ref.name} of argument 'ref'.")
    return ref._as_ref


def _scatter_rows(ctx, ref, indices, updates):
    """The scatter kernels' operands: ``(var, flat indices, updates as rows, sorted
    indices)``, the indices bounds-checked."""
    try:
        var = ctx.state.vars[ref]
    except KeyError:
        raise _uninitialized(ctx, ref) from None
    flat = np.asarray(indices).reshape(-1)
    ordered = np.sort(flat)          # serves the bounds check and the repeats check
    n = var.shape[0]
    if flat.size and (ordered[0] < 0 or ordered[-1] >= n):
        bad = int(np.flatnonzero((flat < 0) | (flat >= n))[0])
        raise errors.InvalidArgumentError(
            None, ctx.op, f"indices[{bad}] = {flat[bad]} is not in [0, {n})")
    rows_shape = (flat.size,) + var.shape[1:]
    if np.shape(updates) == rows_shape:
        rows = updates
    else:
        rows = np.broadcast_to(updates, np.shape(indices) + var.shape[1:])
        rows = rows.reshape(rows_shape)
    return var, flat, rows, ordered


def _scatter_accumulate(var, indices, rows, ordered, ufunc):
    """``var[indices] = ufunc(var[indices], rows)``, repeated indices in turn.

    As TF's CPU ScatterFunctor: updates apply one after another in index order, so a
    repeated row gets ``(v - u1) - u2``. A vector takes ``ufunc.at``, which does exactly
    that (and is 2.5x cheaper than the path below). For rows, ``ufunc.at`` is ~10x slower:
    every position is updated from the variable in one fancy-indexed pass; then each
    repeated row's later updates are chained onto its earlier result, row by row. Repeats
    are few (a batch's ids rarely collide in a large vocabulary), and this short loop costs
    less than vectorising them (argsort, then ufunc.at: a word2vec step was 3% slower).
    """
    if var.ndim == 1:
        ufunc.at(var, indices, rows)
        return
    cur = var.take(indices, axis=0)  # cheaper than var[indices] (and np.take's wrapper)
    ufunc(cur, rows, out=cur)
    repeated = ordered[1:] == ordered[:-1]
    if np.count_nonzero(repeated):   # (ndarray.any() costs 4x as much on short arrays)
        for value in dict.fromkeys(ordered[1:][repeated].tolist()):
            at = np.flatnonzero(indices == value).tolist()
            for p, q in zip(at, at[1:]):
                ufunc(cur[p:p + 1], rows[q:q + 1], out=cur[q:q + 1])
            cur[at[:-1]] = cur[at[-1]]  # every copy holds the final value, so the
    var[indices] = cur                  # write does not depend on NumPy's order


def _scatter_op(op_type, kernel, *, use_locking, grad):
    """A ``Scatter*`` op on a variable ref: the shared rules, inputs and properties."""
    return OpDef(op_type, shape=_scatter_shape, dtype=_scatter_dtype, kernel=kernel,
                 attrs={"use_locking": use_locking}, stateful=True, aliases=True,
                 input_names=(ref("ref"), "indices", "updates"), grad=grad)


# ── ScatterAdd ───────────────────────────────────────────────────────────────────────
def _scatter_add_kernel(ctx, ref, indices, updates, *, use_locking):
    var, flat, rows, ordered = _scatter_rows(ctx, ref, indices, updates)
    _scatter_accumulate(var, flat, rows, ordered, np.add)
    return var


scatter_add_op = _scatter_op("ScatterAdd", _scatter_add_kernel, use_locking=False,
                             grad=None)  # TF: NotDifferentiable


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices] += updates`` (duplicates add up); returns the ref."""
    return _bind(scatter_add_op, ref, indices, updates, use_locking=use_locking, name=name)


# ── ScatterSub ───────────────────────────────────────────────────────────────────────
def _scatter_sub_kernel(ctx, ref, indices, updates, *, use_locking):
    var, flat, rows, ordered = _scatter_rows(ctx, ref, indices, updates)
    _scatter_accumulate(var, flat, rows, ordered, np.subtract)
    return var


scatter_sub_op = _scatter_op("ScatterSub", _scatter_sub_kernel, use_locking=False,
                             grad=None)  # TF: NotDifferentiable


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices] -= updates`` (duplicates add up); returns the ref."""
    return _bind(scatter_sub_op, ref, indices, updates, use_locking=use_locking, name=name)


# ── ScatterUpdate ────────────────────────────────────────────────────────────────────
def _scatter_update_kernel(ctx, ref, indices, updates, *, use_locking):
    var, flat, rows, _ = _scatter_rows(ctx, ref, indices, updates)
    var[flat] = rows
    return var


# TF registers no gradient for ScatterUpdate: a gradient through it raises LookupError.
scatter_update_op = _scatter_op("ScatterUpdate", _scatter_update_kernel, use_locking=True,
                                grad=NO_GRADIENT)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices] = updates``; returns the ref."""
    return _bind(scatter_update_op, ref, indices, updates, use_locking=use_locking, name=name)
