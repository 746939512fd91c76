"""``TensorHandle``: what ``Session.run`` returns for a fetched ``GetSessionHandle`` output
(TF's ``session_ops.TensorHandle``): the handle string of a value kept in the session, with
``eval()`` (its value, read by a ``GetSessionTensor`` this module adds to the graph once per
handle name and device) and ``delete()``. Feed ``handle.handle`` (the string) to a
``tf.get_session_tensor`` placeholder to use the value in a later run. When the object is
garbage collected its value leaves the session's store, as TF deletes dead handles.
"""

from __future__ import annotations

import weakref

from scopeflow.framework.graph import Tensor
from scopeflow.ops.data_flow.session_handle_ops import (
    delete_session_tensor,
    get_session_tensor,
    session_store,
)

__all__ = ["TensorHandle", "wrap_handles"]

_HANDLE_OP_TYPES = frozenset({"GetSessionHandle"})
_READERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> key -> pair
_DELETERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> pair


class TensorHandle:
    """A handle of a tensor kept in a session; ``str(handle)`` is the handle string."""

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtype
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if getattr(self, "_auto_gc_enabled", False):
            state = getattr(self._session, "_state", None)
            if state is not None:
                session_store(state).tensors.pop(self._handle, None)

    def __str__(self):
        return self._handle

    @property
    def handle(self) -> str:
        """The handle string (what a ``get_session_tensor`` placeholder is fed)."""
        return self._handle

    def eval(self):
        """The value kept under this handle."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self.handle} may have already been deleted.")
        graph = self._session.graph
        key = self._handle.split(";")[0] + ";" + self._handle.split(";")[-1]
        readers = _READERS.setdefault(graph, {})
        if key not in readers:
            with graph.as_default():
                readers[key] = get_session_tensor(self._handle, self._dtype)
        holder, reader = readers[key]
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self):
        """Removes the value from the session now."""
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self.handle} may have already been deleted.")
        self._auto_gc_enabled = False
        graph = self._session.graph
        if graph not in _DELETERS:
            with graph.as_default():
                _DELETERS[graph] = delete_session_tensor(self._handle)
        holder, deleter = _DELETERS[graph]
        self._session.run(deleter, feed_dict={holder: self._handle})

    def get_raw_handle(self) -> str:
        """The handle string; the value is then no longer deleted with this object."""
        self._auto_gc_enabled = False
        return self._handle


def wrap_handles(elements, values, session):
    """``values`` with each fetched ``GetSessionHandle`` output as a ``TensorHandle`` (one
    object per fetched tensor, as TF returns the same object for a repeated fetch)."""
    made = {}
    for i, element in enumerate(elements):
        if type(element) is Tensor and element._op._op_def.type in _HANDLE_OP_TYPES:
            if not made:
                values = list(values)
            if element not in made:
                dtype = element._op._inputs[0].dtype.base_dtype
                made[element] = TensorHandle(values[i].item() if hasattr(values[i], "item")
                                             else values[i], dtype, session)
            values[i] = made[element]
    return values
