"""TF1's dataflow control flow: ``Switch``, ``RefSwitch``, ``Merge``, ``RefMerge``.

TensorFlow 1 builds ``tf.cond`` (with control flow v1) as dataflow: a ``Switch`` sends its
``data`` to ``output_true`` when ``pred`` is true and to ``output_false`` otherwise; the
other output is *dead*. An op with a dead input is dead too and does not run, and a
``Merge`` forwards its first live input (``output``) with that input's index
(``value_index``). scopeflow's own ``tf.cond`` is a functional op (``cond_ops.Cond``); these
ops are here for the GraphDefs, MetaGraphs and SavedModels that TF1 wrote
(``tf.import_graph_def`` and the loaders import them).

The kernels below pass ``DEAD`` along; which ops of a plan may see it, and how they skip
running, is the plan's (``runtime.dead_tensors``): a plan with no ``Switch`` is unchanged.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.math_ops import equal

__all__ = ["DEAD", "switch", "merge", "ref_switch", "ref_merge"]


class _Dead:
    """The value of a dead tensor (TF's ``Entry`` with no value, ``is_dead``)."""

    __slots__ = ()

    def __repr__(self):
        return "<dead tensor>"

    def __reduce__(self):
        return "DEAD"


DEAD = _Dead()


def _switch(data, pred):
    if data is DEAD or pred is DEAD:
        return DEAD, DEAD
    return (DEAD, data) if bool(pred) else (data, DEAD)


def _switch_shape(data, pred, **attrs):
    if pred.ndims is not None and pred.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {pred.ndims} for the predicate "
                         "of Switch (its input 'pred')")
    return [data, data]


def _check_pred(pred):
    if pred.base_dtype is not dtypes.bool:
        raise TypeError(f"Input 'pred' of 'Switch' Op has type {pred.base_dtype.name} that "
                        "does not match expected type of bool.")


def _merge(inputs):
    for i, x in enumerate(inputs):
        if x is not DEAD:
            return x, np.array(i, np.int32)
    return DEAD, DEAD


def _merge_shape(*shapes, **attrs):
    out = shapes[0]
    for s in shapes[1:]:
        out = out.most_specific_compatible_shape(s)
    return [out, TensorShape([])]


def _check_same_dtypes(kinds, op_type):
    first = kinds[0].base_dtype
    for k in kinds[1:]:
        if k.base_dtype is not first:
            raise TypeError(f"Inputs of '{op_type}' must all have one dtype (attr 'T'), got "
                            f"{first.name} and {k.base_dtype.name}")
    return first


# ── Switch ───────────────────────────────────────────────────────────────────────────
def _switch_dtype(data, pred, **attrs):
    _check_pred(pred)
    return [data.base_dtype, data.base_dtype]


def _switch_kernel(data, pred, **attrs):
    return _switch(data, pred)


switch_op = OpDef("Switch", shape=_switch_shape, dtype=_switch_dtype, kernel=_switch_kernel,
                  attrs={"T": None}, num_outputs=2, aliases=(0,), input_names=("data", "pred"))


@switch_op.def_grad
def _switch_grad(op, d_false, d_true):
    # TF's _SwitchGrad for a switch in no cond context (as an imported one is): each
    # output's gradient flows back on its own side, merged into one.
    pred = op.inputs[1]
    false_grad = switch_op.bind(d_false, pred)[0]
    true_grad = switch_op.bind(d_true, pred)[1]
    return [merge_op.bind(false_grad, true_grad, N=2)[0], None]


def switch(data, pred, name=None):
    """``(output_false, output_true)``: ``data`` on the side ``pred`` picks, the other
    dead (TF's ``gen_control_flow_ops.switch``)."""
    return switch_op.bind(data, pred, name=name)


# ── RefSwitch ────────────────────────────────────────────────────────────────────────
def _ref_switch_dtype(data, pred, **attrs):
    _check_pred(pred)
    return [data._as_ref, data._as_ref]  # references to the same variable


def _ref_switch_kernel(data, pred, **attrs):
    return _switch(data, pred)


ref_switch_op = OpDef("RefSwitch", shape=_switch_shape, dtype=_ref_switch_dtype,
                      kernel=_ref_switch_kernel, attrs={"T": None}, num_outputs=2,
                      aliases=(0,), input_names=("data", "pred"))


@ref_switch_op.def_grad
def _ref_switch_grad(op, d_false, d_true):
    return _switch_grad(op, d_false, d_true)


def ref_switch(data, pred, name=None):
    """``Switch`` of a variable reference: both outputs refer to the variable."""
    return ref_switch_op.bind(data, pred, name=name)


# ── Merge ────────────────────────────────────────────────────────────────────────────
def _merge_dtype(*kinds, **attrs):
    return [_check_same_dtypes(kinds, "Merge"), dtypes.int32]


def _merge_kernel(*inputs, **attrs):
    return _merge(inputs)


merge_op = OpDef("Merge", shape=_merge_shape, dtype=_merge_dtype, kernel=_merge_kernel,
                 attrs={"T": None, "N": None}, num_outputs=2, aliases=True,
                 input_names=("inputs",))


@merge_op.def_grad
def _merge_grad(op, grad, _):
    # TF's _MergeGrad outside a cond context: the gradient goes back to the input that
    # was forwarded (``value_index``), dead on the others.
    return [switch_op.bind(grad, equal(op.outputs[1], i))[1] for i in range(len(op.inputs))]


def merge(inputs, name=None):
    """``(output, value_index)``: the first live input and its index."""
    return merge_op.bind(*inputs, N=len(inputs), name=name)


# ── RefMerge ─────────────────────────────────────────────────────────────────────────
def _ref_merge_dtype(*kinds, **attrs):
    return [_check_same_dtypes(kinds, "RefMerge")._as_ref, dtypes.int32]


def _ref_merge_kernel(*inputs, **attrs):
    return _merge(inputs)


ref_merge_op = OpDef("RefMerge", shape=_merge_shape, dtype=_ref_merge_dtype,
                     kernel=_ref_merge_kernel, attrs={"T": None, "N": None}, num_outputs=2,
                     aliases=True, input_names=("inputs",))


@ref_merge_op.def_grad
def _ref_merge_grad(op, grad, _):
    return _merge_grad(op, grad, _)


def ref_merge(inputs, name=None):
    """``Merge`` of variable references."""
    return ref_merge_op.bind(*inputs, N=len(inputs), name=name)
