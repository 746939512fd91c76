"""Producer absorption: an op computes its output from its inputs' producers' inputs (a
rule of ``RULES``, by op type), and those producers are not run.

A sum of zero-padded pieces that do not overlap (the gradient of slices that split one
tensor, as in ``nce_loss``) fills its output piece by piece instead of padding each piece
and adding the padded copies up. It applies only when the producers it drops are the run's
own values read by this op alone (``Memory.removable``), and never when a piece may be a
variable's buffer: reading it at the absorbing op instead of at its producer would move
the read past writes to the variable in between.
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.math.arithmetic_ops import _add_n_kernel
from scopeflow.ops.math.reduction_ops import _select_kernel
from scopeflow.runtime.passes.const_kernels import SIGNED_INT_OF_SIZE, condition_mask
from scopeflow.runtime.passes.rules import first_match, touches_its_table
from scopeflow.runtime.plan_ir import How

NAME = "producer_absorption"


# Rules: ``rule(op, consts, owned, shape) -> (kernel, inputs) | None``, asked once when a
# plan is compiled: a kernel that computes the op's output from other tensors (its inputs'
# producers' inputs). ``owned(t)`` says whether input ``t`` is the run's own value read by
# this op alone; the producers of the owned inputs it no longer reads are left out of the
# plan. ``shape(t)`` is a tensor's static shape in the plan.

# ── AddN of zero-padded pieces ───────────────────────────────────────────────────────
def _pieces_of_padded_inputs(op, consts, owned, shape_of):
    """Where each input of an AddN sits in the output, when every input is a zero ``Pad``
    (with constant paddings; owned by the run, or constant) of a fully known shape (in the
    plan: ``shape_of``) and no two overlap: ``(pieces, boxes)``; else None."""
    dims = shape_of(op._outputs[0]).as_tuple()
    if len(op._inputs) < 2 or dims is None or None in dims:
        return None
    pieces, boxes = [], []
    for t in op._inputs:
        pad = t._op
        if (pad._op_def.type != "Pad" or not (owned(t) or t in consts)
                or pad._inputs[1] not in consts):
            return None
        piece = pad._inputs[0]
        shape = shape_of(piece).as_tuple()
        if shape is None or None in shape:
            return None
        before = np.asarray(consts[pad._inputs[1]]).reshape(-1, 2)[:, 0].tolist()
        pieces.append(piece)
        boxes.append(tuple(slice(a, a + d) for a, d in zip(before, shape)))
    for i, box in enumerate(boxes):
        for other in boxes[:i]:
            if all(a.start < b.stop and b.start < a.stop for a, b in zip(box, other)):
                return None
    return pieces, boxes


def add_n_of_padded_pieces(op, consts, owned, shape_of):
    """``AddN`` of zero-padded pieces that do not overlap: each written into its place."""
    # The gradient of slices that split one tensor (nce_loss's true and sampled rows) is
    # an AddN of zero-padded pieces. Each output element is then one piece's element plus
    # zeros, so ``piece + 0`` written into its place is the same sum, bit for bit (-0.0
    # becomes +0.0 as in the sum); uncovered places are the zeros' sum, +0. This skips
    # the padded copies and the adds over them.
    found = _pieces_of_padded_inputs(op, consts, owned, shape_of)
    if found is None:
        return None
    pieces, boxes = found
    shape = shape_of(op._outputs[0]).as_tuple()
    dtype = op._outputs[0].dtype.base_dtype.as_numpy_dtype
    zero = dtype(0)
    covered = sum(int(np.prod([b.stop - b.start for b in box])) for box in boxes)
    allocate = np.empty if covered == int(np.prod(shape)) else np.zeros

    def _add_n_of_padded_pieces(*xs):
        out = allocate(shape, dtype)
        for box, x in zip(boxes, xs):
            np.add(x, zero, out=out[box])
        return out

    return _add_n_of_padded_pieces, pieces


# ── AddN of masked Selects on one condition ──────────────────────────────────────────
def _float_zeros(z) -> bool:
    """Whether a constant is float +0s of 4 or 8 bytes each (maskable bits)."""
    return (isinstance(z, np.ndarray) and z.dtype.kind == "f" and z.dtype.itemsize in (4, 8)
            and not z.view(f"u{z.dtype.itemsize}").any())


def _masked_terms(op, consts, owned, shape_of):
    """The AddN's inputs as terms: ``(terms, inputs, cond)`` where each term is None (the
    input as it is) or ``(where_c, negated, zeros)`` for a ``Select`` (or its ``Neg``) of
    one shared condition with a zeros branch, its other branch the input; else None."""
    dims = shape_of(op._outputs[0]).as_tuple()
    if dims is None or None in dims:
        return None
    terms, inputs, cond = [], [], None
    for t in op._inputs:
        s, negated = t, False
        if t._op._op_def.type == "Neg" and owned(t):
            s, negated = t._op._inputs[0], True
        select = s._op
        kept = None
        if (select._op_def.type == "Select" and owned(s)
                and (cond is None or select._inputs[0] is cond)
                and all(shape_of(x).as_tuple() == dims for x in select._inputs)):
            kept = next((3 - at for at in (2, 1) if _float_zeros(consts.get(
                select._inputs[at]))), None)
        if kept is None:
            terms.append(None)
            inputs.append(t)
            continue
        cond = select._inputs[0]
        terms.append((kept == 1, negated, consts[select._inputs[3 - kept]]))
        inputs.append(select._inputs[kept])
    if sum(term is not None for term in terms) < 2:
        return None
    return terms, inputs, cond


def add_n_of_masked_selects(op, consts, owned, shape_of):
    """``AddN`` of zero-branch Selects (some negated) on one condition: one mask."""
    # The gradient of TF1's where-built sigmoid cross-entropy is an AddN of Select(c, x, 0),
    # Select(c, 0, x) and Neg(Select(c, x, 0)) on one condition. Each Select makes a mask
    # from c; here one mask serves every term, and the four ops are not called. A term is
    # x's bits ANDed with the mask (Select's const kernel does the same), negated as Neg
    # does, and the terms are summed as AddN sums them: the same bits.
    found = _masked_terms(op, consts, owned, shape_of)
    if found is None:
        return None
    terms, inputs, cond = found

    def _add_n_of_masked_terms(c, *xs):
        fast = type(c) is np.ndarray and c.dtype == np.bool_ and all(
            type(x) is np.ndarray and x.dtype == term[2].dtype
            for x, term in zip(xs, terms) if term is not None)
        mask = None
        values = []
        for x, term in zip(xs, terms):
            if term is None:
                values.append(x)
                continue
            where_c, negated, zeros = term
            if not fast:
                v = np.where(c, x, zeros) if where_c else np.where(c, zeros, x)
            else:
                if mask is None:
                    mask = condition_mask(c, x.dtype.itemsize)
                    inverse = np.invert(mask)
                v = np.bitwise_and(x.view(mask.dtype), mask if where_c else inverse)
                v = v.view(x.dtype)
            values.append(np.negative(v, out=v) if negated else v)
        return _add_n_kernel(*values)

    return _add_n_of_masked_terms, (cond, *inputs)


# ── Select of a negation ─────────────────────────────────────────────────────────────
def _select_negated(c, x):
    """``Select(c, -x, x)`` from ``c`` and ``x``: ``x``'s bits with the sign bit flipped where
    ``c`` holds, as ``Neg`` flips it (NaN and -0.0 included), in three cheap integer passes
    where ``Neg`` then ``np.where`` (slow at element-wise picking) took two and a copy."""
    if not (type(c) is np.ndarray and c.dtype == np.bool_ and type(x) is np.ndarray
            and x.dtype.kind == "f" and x.dtype.itemsize in SIGNED_INT_OF_SIZE
            and c.shape == x.shape):
        return _select_kernel(c, np.negative(x), x)
    itype = SIGNED_INT_OF_SIZE[x.dtype.itemsize]
    sign = c.astype(itype)
    np.left_shift(sign, 8 * x.dtype.itemsize - 1, out=sign)
    np.bitwise_xor(sign, x.view(itype), out=sign)
    return sign.view(x.dtype)


def select_of_negation(op, consts, owned, shape):
    """``Select(c, Neg(x), x)``, sigmoid cross-entropy's ``-|logits|`` (TF1 builds it with
    ``where``), computed from ``c`` and ``x`` when the ``Neg`` is read by this op alone."""
    c, t, e = op._inputs
    negation = t._op
    if negation._op_def.type != "Neg" or negation._inputs[0] is not e or not owned(t):
        return None
    return _select_negated, (c, e)


RULES = {
    "AddN": (add_n_of_padded_pieces, add_n_of_masked_selects),
    "Select": (select_of_negation,),
}


touches = touches_its_table(RULES)


def applies(op, ir):
    """``(kernel, inputs)`` computing the op from other tensors, or None."""
    od = op._op_def
    rules = RULES.get(od.type)
    if (not ir.steps[op].calls or rules is None or od.stateful or od.ref_inputs
            or any(t in ir.fed or t in ir.folded for t in op._outputs)):
        return None
    memory = ir.memory
    found = first_match(rules, op, ir.folded, memory.removable, ir.shape)
    if found is None or any(memory.aliases_state(t) for t in found[1]):
        return None
    return found


def rewrite(op, ir, found) -> None:
    kernel, inputs = found
    memory = ir.memory
    dropped = [t._op for t in op._inputs if t not in inputs and memory.removable(t)]
    step = ir.steps[op]
    step.kernel, step.inputs, step.with_attrs = kernel, list(inputs), False
    while dropped:  # and then the producers of what only the dropped ops read
        for producer in dropped:
            ir.steps[producer].how = How.ABSORBED
        ir.changed()
        memory = ir.memory
        dropped = list(dict.fromkeys(t._op for producer in dropped for t in producer._inputs
                                     if memory.unread(t)))
