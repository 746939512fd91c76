"""How an op's device is decided when device functions or colocation are in play.

``with tf.device(...)`` blocks push strings (already merged with the enclosing ones),
``None`` (clear) or device functions (``tf.train.replica_device_setter``);
``tf.colocate_with(op)`` pushes a :class:`Colocation` marker. TF's order, reproduced here:

1. from the innermost entry outwards, each string fills the fields the op's device does
   not set yet and each function returns the op's new device (called with the op, its
   device so far already set), until a ``None`` or a colocation marker ends the walk
   (TF's ``colocate_with`` hides the device functions outside it);
2. then colocation wins: the device of the innermost colocated op that has one (an
   explicit ``colocate_with`` or, as TF's op builder does, an input taking a variable
   reference) replaces the result. An op taking a variable reference is built inside
   such a colocation block, so the device scopes around it never apply to it:
   ``tf.assign(v, x)`` under ``tf.device("/cpu:0")`` gets ``v``'s device, even ``""``.

Devices are only recorded (scopeflow runs everything on the local CPU); they matter for
the GraphDef, for saving sharded checkpoints and for code that inspects ``op.device``.
"""

from __future__ import annotations

from scopeflow.framework.device_spec import merge_devices

__all__ = ["Colocation", "initial_device", "needs_resolution", "resolve_device"]


class Colocation:
    """A ``colocate_with(op)`` block on the device stack (``op`` None: colocate with
    nothing, which with ``ignore_existing`` hides the outer colocations)."""

    __slots__ = ("op", "ignore_existing")

    def __init__(self, op, ignore_existing):
        self.op = op
        self.ignore_existing = ignore_existing


def _is_plain(entry) -> bool:
    return entry is None or isinstance(entry, str)


def initial_device(stack) -> str:
    """The device an op gets from plain strings alone (the innermost merged string)."""
    top = stack[-1] if stack else ""
    return top if isinstance(top, str) else ""


def needs_resolution(stack, ref_inputs) -> bool:
    """Whether the op's device needs :func:`resolve_device` (a function or colocation)."""
    return bool(ref_inputs) or not all(_is_plain(e) for e in stack)


def _as_device_string(device) -> str:
    if device is None:
        return ""
    if hasattr(device, "to_string"):
        return device.to_string()
    return merge_devices("", device) if device else ""


def _walk(op, stack) -> str:
    device = ""
    for entry in reversed(stack):
        if entry is None or isinstance(entry, Colocation):
            break
        if isinstance(entry, str):
            device = merge_devices(entry, device) if entry else device
        else:
            op._device = device
            device = _as_device_string(entry(op))
    return device


def _colocated_device(stack, ref_ops) -> str:
    for ref_op in reversed(ref_ops):       # the op builder's colocation is innermost
        if ref_op.device:
            return ref_op.device
    for entry in reversed(stack):
        if isinstance(entry, Colocation):
            if entry.op is not None and entry.op.device:
                return entry.op.device
            if entry.ignore_existing:
                break
    return ""


def resolve_device(op, stack, ref_ops) -> str:
    """The device of ``op`` (already created) under ``stack``; ``ref_ops`` are the ops
    whose variable references it takes (colocated with them, the device scopes around are
    hidden, so such an op gets their device or none)."""
    colocated = _colocated_device(stack, ref_ops)
    if colocated or ref_ops:
        return colocated
    return _walk(op, stack)
