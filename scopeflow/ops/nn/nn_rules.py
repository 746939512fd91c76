"""The shape and dtype rules the nn op families share.

``same_dtype_in`` is the dtype rule of the activations, softmax, the losses and LRN: all
inputs one dtype from a group, with TF's messages; ``merge_same_shape`` merges the inputs'
static shapes (the ``<Op>Grad`` ops and LRN).
"""

from __future__ import annotations

from scopeflow.framework.opdef import check_dtype, merge_shapes

__all__ = ["same_dtype_in", "merge_same_shape"]


def same_dtype_in(allowed, names=("features",)):
    """A dtype rule: every input has the first one's dtype, which is one of ``allowed``
    (``names``: the inputs' names in the messages)."""
    def rule(first, *rest, **attrs):
        for i, d in enumerate(rest, 1):
            if d is not first:
                raise TypeError(f"Input '{names[i] if i < len(names) else i}' has type "
                                f"{d.name} that does not match type {first.name} of argument "
                                f"'{names[0]}'.")
        return check_dtype(first, allowed, "T")
    return rule


def merge_same_shape(*shapes, **attrs):
    """A shape rule: the inputs' shapes merged (equal ranks, dims equal where known)."""
    out = shapes[0]
    for s in shapes[1:]:
        out = merge_shapes(out, s)
    return out
