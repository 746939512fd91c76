"""Constant-specialised kernels: an op whose some inputs are known when the plan is
compiled may run a kernel made for those values (a rule of ``RULES``, by op type).

``Select`` with a constant zeros branch becomes a bitwise AND with the condition's mask;
``Slice`` and ``Pad`` with constant bounds check and lay out once per input shape. The
specialised kernel computes the same bits and raises the same errors as the general one.
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.array.slicing_ops import _pad_into, _pad_layout, _slice_index
from scopeflow.ops.math.reduction_ops import _select_kernel
from scopeflow.runtime.passes.rules import first_match, own_kernel_rules, touches_its_table

NAME = "const_kernels"

SIGNED_INT_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}   # for views of float bits


def condition_mask(c, itemsize: int, holds: bool = True) -> np.ndarray:
    """Bits of ``itemsize``-byte signed ints: all ones where bool ``c`` holds (``holds=False``:
    where it does not), zeros elsewhere. ANDed with a float array's bits, it keeps those
    values bit for bit (NaN payloads, -0.0) and makes the others +0.0."""
    mask = c.astype(SIGNED_INT_OF_SIZE[itemsize])
    if holds:
        np.negative(mask, out=mask)
    else:
        mask -= 1
    return mask


# ── Select with a constant zeros branch ──────────────────────────────────────────────
def _select_with_zeros(c, t, e, zeros_at):
    """Select where input ``zeros_at`` (1 for ``t``, 2 for ``e``) is all +0.0 (or 0): the
    other input's bits ANDed with the condition's mask, two cheap passes where np.where
    copies element by element (2x slower). Exact: NaN payloads and -0.0 pass through."""
    x = e if zeros_at == 1 else t
    if not (type(c) is np.ndarray and c.dtype == np.bool_ and type(x) is np.ndarray
            and c.shape == np.shape(t) == np.shape(e) and x.dtype.itemsize in (4, 8)):
        return _select_kernel(c, t, e)
    mask = condition_mask(c, x.dtype.itemsize, holds=zeros_at == 2)
    np.bitwise_and(x.view(mask.dtype), mask, out=mask)
    return mask.view(x.dtype)


def _select_then_zeros(c, t, e):
    return _select_with_zeros(c, t, e, 1)


def _select_else_zeros(c, t, e):
    return _select_with_zeros(c, t, e, 2)


_SELECT_ZEROS = {1: _select_then_zeros, 2: _select_else_zeros}


def select_with_constant_zeros(consts):
    """``Select`` whose ``t`` or ``e`` is constant zeros: a masking kernel."""
    # The zeros of where-based formulas (sigmoid cross-entropy) and of Select's own
    # gradient are folded constants, so they are recognised once, when a plan is compiled.
    for at in (2, 1):
        z = consts[at]
        if (isinstance(z, np.ndarray) and z.dtype.kind in "fiu" and z.dtype.itemsize in (4, 8)
                and not z.view(f"u{z.dtype.itemsize}").any()):
            return _SELECT_ZEROS[at]
    return None


# ── Slice and Pad with constant bounds ───────────────────────────────────────────────
def _per_shape(make):
    """``make(x, *constants)`` (checks included) worked out once per shape of ``x`` and
    then reused: for kernels whose other inputs are plan constants."""
    memo = {}

    def lookup(x, *constants):
        found = memo.get(x.shape)
        if found is None:
            if len(memo) >= 8:  # a few shapes at most (a varying batch size)
                memo.clear()
            found = memo[x.shape] = make(x, *constants)
        return found

    return lookup


def slice_with_constant_bounds(consts):
    """``Slice`` with constant ``begin`` and ``size``: the index built once per shape."""
    # With constant begin and size (the nce_loss's true/sampled split), the index is
    # checked and built once per input shape instead of on every run.
    if consts[1] is None or consts[2] is None:
        return None
    index_for = _per_shape(_slice_index)

    def _slice_constant_bounds(x, begin, size):
        return x[index_for(x, begin, size)]

    return _slice_constant_bounds


def pad_with_constant_paddings(consts):
    """``Pad`` with constant paddings: the layout worked out once per shape."""
    # With constant paddings (the Slice gradients'), the layout is checked and worked out
    # once per input shape instead of on every run.
    if consts[1] is None:
        return None
    layout_for = _per_shape(_pad_layout)

    def _pad_constant_paddings(x, paddings):
        return _pad_into(x, layout_for(x, paddings))

    return _pad_constant_paddings


# Rules: ``rule(consts) -> kernel | None``, with each input's constant value (None where it
# is computed at run time).
RULES = {
    "Select": (select_with_constant_zeros,),
    "Slice": (slice_with_constant_bounds,),
    "Pad": (pad_with_constant_paddings,),
}


touches = touches_its_table(RULES)


def applies(op, ir):
    """The specialised kernel for this op's constant inputs, or None."""
    rules = own_kernel_rules(RULES, op, ir)
    if rules is None:
        return None
    consts = [ir.folded.get(t) for t in op._inputs]
    if all(c is None for c in consts):
        return None
    return first_match(rules, consts)


def rewrite(op, ir, kernel) -> None:
    ir.steps[op].kernel = kernel
