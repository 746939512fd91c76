"""Session tensor handles: keep a value in the session between runs, and use it in a later
run by feeding its handle (TF1's ``tf.get_session_handle``, ``tf.get_session_tensor``,
``tf.delete_session_tensor``).

``GetSessionHandle`` stores its input in the session's store and outputs a handle string,
``"<op name>;<id>;<device>"`` (the id counts the handles this session has made, as TF's
does); ``Session.run`` returns a fetched handle as a ``TensorHandle``
(``runtime/session_handles.py``). ``GetSessionTensor`` reads the stored value of the handle
fed to its placeholder, ``DeleteSessionTensor`` removes it. The store belongs to the
session: another session does not know the handle.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InternalError, InvalidArgumentError
from scopeflow.framework.graph import Tensor, colocate_with, device
from scopeflow.framework.opdef import OpDef, scalar_shape, unknown_shape_rule
from scopeflow.ops.array.shape_ops import placeholder

__all__ = ["get_session_handle", "get_session_tensor", "delete_session_tensor",
           "handle_device", "session_store"]

_STORE_KEY = "_session_tensor_store"


class _Store:
    """One session's stored tensors, by handle, and its handle counter."""

    def __init__(self):
        self.tensors: dict[str, np.ndarray] = {}
        self.count = 0


def session_store(state) -> _Store:
    """The session's store (made on first use), from its ``SessionState``."""
    store = state.resources.get(_STORE_KEY)
    if store is None:
        store = state.resources.setdefault(_STORE_KEY, _Store())
    return store


def handle_device(handle) -> str:
    """The device named in a handle string (its last ``;`` field)."""
    return str(handle).split(";")[-1]


def _handle_string(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


def _not_stored(handle):
    return InvalidArgumentError(None, None, f"The tensor with handle '{handle}' is not in the "
                                            "session store.")


# ── GetSessionHandle ──────────────────────────────────────────────────────────────────
def _string_dtype(*args, **attrs):
    return dtypes.string


def _get_session_handle_kernel(ctx, value, *, T):  # noqa: N803 - TF's attr name
    store = session_store(ctx.state)
    device_name = ctx.op.device or "/job:localhost/replica:0/task:0/device:CPU:0"
    handle = f"{ctx.op.name};{store.count};{device_name}"
    store.count += 1
    store.tensors[handle] = np.array(value, copy=True)
    return np.array(handle.encode(), dtype=object)


get_session_handle_op = OpDef("GetSessionHandle", shape=scalar_shape, dtype=_string_dtype,
                              kernel=_get_session_handle_kernel, attrs={"T": None},
                              stateful=True, grad=None, input_names=("value",))


def get_session_handle(data, name=None) -> Tensor:
    """A handle (a scalar string) of ``data``'s value, which stays in the session after the
    run that fetches it; ``Session.run`` gives it as a ``TensorHandle``.

    >>> h = tf.get_session_handle(tf.constant(3.0))
    >>> h.op.type
    'GetSessionHandle'
    """
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        return get_session_handle_op.bind(data, T=data.dtype.base_dtype, name=name)


# ── GetSessionTensor ──────────────────────────────────────────────────────────────────
def _session_tensor_dtype(handle, *, dtype):
    return dtype


def _get_session_tensor_kernel(ctx, handle, *, dtype):
    handle = _handle_string(handle)
    value = session_store(ctx.state).tensors.get(handle)
    if value is None:
        raise _not_stored(handle)
    if dtypes.as_dtype(value.dtype) is not dtype:
        raise InternalError(None, None, f"Output 0 of type {dtypes.as_dtype(value.dtype).name} "
                            f"does not match declared output type {dtype.name} for node "
                            f"{{{{node {ctx.op.name}}}}}")
    return value


get_session_tensor_op = OpDef("GetSessionTensor", shape=unknown_shape_rule,
                              dtype=_session_tensor_dtype, kernel=_get_session_tensor_kernel,
                              attrs={"dtype": None}, stateful=True, grad=None,
                              input_names=("handle",))


def get_session_tensor(handle, dtype, name=None):
    """``(holder, tensor)``: feed a handle string to ``holder`` and ``tensor`` is the value
    stored under it (of ``dtype``), in this session."""
    with device(handle_device(handle)):
        holder = placeholder(dtypes.string)
        tensor = get_session_tensor_op.bind(holder, dtype=dtypes.as_dtype(dtype), name=name)
    return holder, tensor


# ── DeleteSessionTensor ───────────────────────────────────────────────────────────────
def _no_outputs(*args, **attrs):
    return []


def _no_dtypes(*args, **attrs):
    return []


def _delete_session_tensor_kernel(ctx, handle):
    handle = _handle_string(handle)
    if session_store(ctx.state).tensors.pop(handle, None) is None:
        raise InvalidArgumentError(None, None, f"Failed to delete a tensor with handle "
                                               f"'{handle}' in the session store.")


delete_session_tensor_op = OpDef("DeleteSessionTensor", shape=_no_outputs, dtype=_no_dtypes,
                                 kernel=_delete_session_tensor_kernel, num_outputs=0,
                                 stateful=True, grad=None, input_names=("handle",))


def delete_session_tensor(handle, name=None):
    """``(holder, op)``: running ``op`` with a handle string fed to ``holder`` deletes the
    value stored under it."""
    with device(handle_device(handle)):
        holder = placeholder(dtypes.string)
        deleter = delete_session_tensor_op.bind(holder, name=name)
    return holder, deleter
