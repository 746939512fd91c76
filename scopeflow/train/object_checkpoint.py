"""``tf.train.Checkpoint`` (TF1's ``CheckpointV1``): object-based checkpoints in graph mode.

A Checkpoint saves the objects it is given (``tf.train.Checkpoint(model=m, optimizer=opt)``)
and everything they track (see :mod:`scopeflow.train.trackable_graph`), keyed by attribute
paths (``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``), plus the object graph itself
under ``_CHECKPOINTABLE_OBJECT_GRAPH`` and the ``save_counter`` variable: TF's format, so
TensorFlow restores what scopeflow saves and the other way round.

In graph mode, as in TF1, saving and restoring run in a session:
``checkpoint.save(prefix, session=sess)`` numbers the checkpoint with ``save_counter``
and points the directory's ``checkpoint`` state file at it; ``checkpoint.restore(path)``
adds the restore ops and returns a status whose ``run_restore_ops(sess)`` /
``initialize_or_restore(sess)`` run them and whose ``assert_consumed()`` checks the match.

Differences from TF: restoring is not deferred. Objects (and optimizer slots) created after
``restore()`` are not restored when they are created; call ``restore`` again once the
model is built (the usual order in graph mode). A checkpoint without an object graph (one
written by ``tf.train.Saver``) is restored by variable names, as TF does.
"""

from __future__ import annotations

import inspect
import os

from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import get_default_graph
from scopeflow.io.protos import TrackableObjectGraph
from scopeflow.ops import array_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.io import io_ops
from scopeflow.ops.state import state_ops
from scopeflow.state.variables import Variable
from scopeflow.train import checkpoint_management as cm
from scopeflow.train.checkpoint_utils import NewCheckpointReader
from scopeflow.train.saver import Saver
from scopeflow.train.trackable_graph import (
    OBJECT_GRAPH_KEY,
    VARIABLE_VALUE,
    ObjectGraph,
    is_trackable,
    match_objects,
)

__all__ = ["Checkpoint", "CheckpointOptions"]


class CheckpointOptions:
    """Options for ``Checkpoint.save/write/restore`` (``tf.train.CheckpointOptions``).

    scopeflow writes on the CPU of one machine and synchronously, so
    ``experimental_io_device``, ``enable_async`` and ``experimental_sharding_callback`` are
    kept for TF's API but change nothing; ``experimental_write_callbacks`` (each called
    with the path written) and ``experimental_skip_slot_variables`` are honoured.
    """

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint",
                 "experimental_write_callbacks", "enable_async",
                 "experimental_sharding_callback", "experimental_skip_slot_variables")

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.enable_async = experimental_enable_async_checkpoint or enable_async
        self.experimental_enable_async_checkpoint = self.enable_async
        for callback in experimental_write_callbacks or ():
            assert len(inspect.signature(callback).parameters) <= 1
        self.experimental_write_callbacks = experimental_write_callbacks
        if experimental_sharding_callback is not None:
            raise ValueError("The experimental_sharding_callback checkpoint optionmust be of "
                             "type ShardingCallback. The option providedwas of type "
                             f"{type(experimental_sharding_callback)}.")
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables

    def __copy__(self):
        result = CheckpointOptions.__new__(CheckpointOptions)
        for name in self.__slots__:
            setattr(result, name, getattr(self, name))
        if result.experimental_write_callbacks is not None:
            result.experimental_write_callbacks = list(result.experimental_write_callbacks)
        return result


def _session(session):
    session = session or get_default_session()
    if session is None:
        raise RuntimeError("Unable to save checkpoint in graph mode without a default "
                           "session. Please use `with tf.Session():` to create a session.")
    return session


def _node_names(graph: TrackableObjectGraph) -> dict:
    """Readable names of checkpoint nodes (``(root).model.kernel``), as TF prints them."""
    names = {0: "(root)"}
    queue = [0]
    while queue:
        nid = queue.pop(0)
        for ref in graph.nodes[nid].children:
            if ref.node_id not in names:
                names[ref.node_id] = f"{names[nid]}.{ref.local_name}"
                queue.append(ref.node_id)
    for nid, node in enumerate(graph.nodes):
        for ref in node.slot_variables:
            names[ref.slot_variable_node_id] = (
                f"{names.get(nid)}'s state '{ref.slot_name}' for "
                f"{names.get(ref.original_variable_node_id)}")
    return names


class Checkpoint:
    """Groups trackable objects into one checkpoint (``tf.train.Checkpoint``, TF1's V1).

    Keyword arguments become attributes (sorted by name, as TF adds them) and are saved
    with everything they track. ``save_counter`` is created on the first save or restore.

    >>> v = tf.Variable(1.0, name="v")
    >>> ckpt = tf.train.Checkpoint(v=v)
    >>> [name for name, _ in ckpt._checkpoint_children()]
    ['v']
    """

    def __init__(self, **kwargs):
        for key, value in sorted(kwargs.items(), key=lambda item: item[0]):
            if not is_trackable(value):
                raise ValueError(
                    "`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`Trackable`), got {value}. If you believe this object should be "
                    "trackable (i.e. it is part of the TensorFlow Python API and manages "
                    "state), please open an issue.")
            setattr(self, key, value)
        self._sf_save_assign = None
        self._sf_save_ops = {}

    def _checkpoint_children(self):
        """Attributes in assignment order; ``save_counter`` once it exists."""
        out = []
        for key, value in vars(self).items():
            if key == "_sf_save_counter":
                out.append(("save_counter", value))
            elif not key.startswith("_sf_") and is_trackable(value):
                out.append((key, value))
        return out

    @property
    def save_counter(self) -> Variable:
        """An int64 variable, 0 at first, incremented by each ``save``; numbers them."""
        counter = vars(self).get("_sf_save_counter")
        if counter is None:
            graph = get_default_graph()
            with graph.control_dependencies(None), graph.device("/cpu:0"):
                counter = Variable(0, dtype="int64", name="save_counter", trainable=False)
            self._sf_save_counter = counter
        return counter

    # -- saving ---------------------------------------------------------------------------
    def _save_op(self, keys_and_vars):
        """The cached op saving these variables; fed the prefix and the object graph."""
        cache_key = tuple((k, id(v)) for k, v in keys_and_vars)
        cached = self._sf_save_ops.get(cache_key)
        if cached is None:
            graph = get_default_graph()
            with graph.device("/cpu:0"):
                prefix = array_ops.placeholder_with_default("", shape=())
                object_graph = array_ops.placeholder_with_default("", shape=())
                save = io_ops.save_v2(prefix, [k for k, _ in keys_and_vars] + [OBJECT_GRAPH_KEY],
                                      [""] * (len(keys_and_vars) + 1),
                                      [v for _, v in keys_and_vars] + [object_graph])
                with graph.control_dependencies([save]):
                    saved = array_ops.identity(prefix)
            cached = self._sf_save_ops[cache_key] = (prefix, object_graph, saved)
        return cached

    def write(self, file_prefix, session=None, options=None) -> str:
        """Writes a checkpoint at ``file_prefix`` (no numbering, no state file); returns it."""
        return self._write(file_prefix, session=session, options=options)

    def _write(self, file_prefix, session=None, options=None) -> str:
        session = _session(session)
        file_prefix = os.fspath(file_prefix)
        objects = ObjectGraph(self)
        prefix_t, graph_t, saved = self._save_op(objects.variables())
        if os.path.dirname(file_prefix):
            os.makedirs(os.path.dirname(file_prefix), exist_ok=True)
        out = session.run(saved, feed_dict={
            prefix_t: file_prefix, graph_t: objects.to_proto().SerializeToString()})
        path = out.decode() if isinstance(out, bytes) else str(out)
        callbacks = options.experimental_write_callbacks if options is not None else None
        for callback in callbacks or ():
            if inspect.signature(callback).parameters:
                callback(path)
            else:
                callback()
        return path

    def _increment_save_counter(self, session) -> int:
        if vars(self).get("_sf_save_counter") is None:
            session.run(self.save_counter.initializer)
        if self._sf_save_assign is None:
            with get_default_graph().colocate_with(self.save_counter._ref()):
                self._sf_save_assign = state_ops.assign_add(self.save_counter._ref(), 1)
        return int(session.run(self._sf_save_assign))

    def save(self, file_prefix, session=None, options=None) -> str:
        """Saves ``<file_prefix>-<save_counter>`` and makes it the directory's latest
        checkpoint (the ``checkpoint`` state file lists only it, as TF1's V1 does)."""
        session = _session(session)
        number = self._increment_save_counter(session)
        path = self.write(f"{os.fspath(file_prefix)}-{number}", session=session,
                          options=options)
        cm.update_checkpoint_state_internal(
            save_dir=os.path.dirname(os.fspath(file_prefix)), model_checkpoint_path=path,
            all_model_checkpoint_paths=[path], save_relative_paths=True)
        return path

    # -- restoring ------------------------------------------------------------------------
    def restore(self, save_path):
        """Adds ops restoring ``save_path`` into the objects that exist now; returns a
        status (``run_restore_ops``, ``initialize_or_restore``, ``assert_consumed``...).

        ``save_path=None`` returns a status that only initializes.
        """
        self.save_counter  # noqa: B018 (created now so that it is restored too)
        if save_path is None:
            return InitializationOnlyStatus(self)
        save_path = os.fspath(save_path)
        reader = NewCheckpointReader(save_path)
        if not reader.has_tensor(OBJECT_GRAPH_KEY):
            return NameBasedSaverStatus(self, save_path, reader)
        raw = reader.get_tensor(OBJECT_GRAPH_KEY)
        graph = TrackableObjectGraph.FromString(raw.item() if hasattr(raw, "item") else raw)
        return CheckpointLoadStatus(self, save_path, graph)

    def read(self, save_path, options=None):
        """``restore`` without the save counter's bookkeeping (TF2's name, kept for V1)."""
        return self.restore(save_path)


def _objects_with_values(root) -> list:
    return [obj for obj in ObjectGraph(root).nodes if isinstance(obj, Variable)]


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` matched; runs and checks the restore."""

    def __init__(self, root, save_path, graph: TrackableObjectGraph):
        self._root = root
        self._graph = graph
        self._matched = match_objects(root, graph)
        self._unused_attributes = {}
        pairs = []
        for nid, obj in self._matched.items():
            for attribute in graph.nodes[nid].attributes:
                if isinstance(obj, Variable) and attribute.name == VARIABLE_VALUE:
                    pairs.append((attribute.checkpoint_key, obj))
                else:
                    self._unused_attributes.setdefault(nid, []).append(attribute.name)
        self.restore_ops = _restore_op(save_path, pairs)
        self._expect_partial = False

    def _unmatched_python_objects(self) -> list:
        matched = {id(o) for o in self._matched.values()}
        return [obj for obj in _objects_with_values(self._root) if id(obj) not in matched]

    def assert_existing_objects_matched(self):
        """Every variable the root tracks now has a value in the checkpoint."""
        unused = self._unmatched_python_objects()
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed "
                "values, likely due to changes in the Python program. Showing "
                f"{shown} of {len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_consumed(self):
        """Also every value of the checkpoint went to an object."""
        self.assert_existing_objects_matched()
        names = None
        for nid, node in enumerate(self._graph.nodes):
            if node.attributes and nid not in self._matched:
                names = names or _node_names(self._graph)
                raise AssertionError(f"Unresolved object in checkpoint {names.get(nid)}: "
                                     f"{node}")
        if self._unused_attributes:
            names = names or _node_names(self._graph)
            lines = "\n".join(f"{names.get(nid)} ({self._matched[nid]}): {attrs}"
                              for nid, attrs in self._unused_attributes.items())
            raise AssertionError("Unused attributes in these objects (the attributes exist "
                                 f"in the checkpoint but were not restored):\n{lines}")
        return self

    def assert_nontrivial_match(self):
        """Something beyond the root object was matched."""
        if len(self._matched) <= 1:
            unused = self._unmatched_python_objects()
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unused}")
            raise AssertionError(
                f"Nothing to load. No dependencies have been added to {self._root} yet.")
        return self

    def run_restore_ops(self, session=None):
        """Runs the restore ops (in the default session unless one is given)."""
        _session(session).run(self.restore_ops)

    def initialize_or_restore(self, session=None):
        """Restores what the checkpoint has and initializes the other variables."""
        session = _session(session)
        matched = {id(o) for o in self._matched.values()}
        init = [v.initializer for v in _objects_with_values(self._root) if id(v) not in matched]
        self.run_restore_ops(session)
        session.run(init)

    def expect_partial(self):
        """Silences warnings about a partial restore (scopeflow prints none); returns self."""
        self._expect_partial = True
        return self


def _restore_op(save_path, pairs):
    """One ``RestoreV2`` reading ``pairs``' keys and the assigns into their variables."""
    graph = get_default_graph()
    if not pairs:
        return control_flow_ops.no_op()
    with graph.device("/cpu:0"):
        restored = io_ops.restore_v2(save_path, [k for k, _ in pairs], [""] * len(pairs),
                                     [v.dtype.base_dtype for _, v in pairs])
    if not isinstance(restored, list):
        restored = [restored]
    assigns = [state_ops.assign(v._ref(), t) for (_, v), t in zip(pairs, restored)]
    return control_flow_ops.group(*assigns)


class InitializationOnlyStatus:
    """``restore(None)``: nothing to restore; ``initialize_or_restore`` initializes."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def __init__(self, root):
        self._root = root

    def assert_consumed(self):
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self):
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self):
        raise AssertionError(self._MESSAGE)

    def run_restore_ops(self, session=None):
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session=None):
        _session(session).run([v.initializer for v in _objects_with_values(self._root)])

    def expect_partial(self):
        return self


class NameBasedSaverStatus:
    """A ``tf.train.Saver`` checkpoint (no object graph): variables restored by their
    names (``v.op.name``), TF's fallback; ``save_counter`` may be absent."""

    def __init__(self, root, save_path, reader):
        self._root = root
        self._save_path = save_path
        self._names = set(reader.get_variable_to_shape_map())

    def _variables(self) -> list:
        return _objects_with_values(self._root)

    def assert_consumed(self):
        optional = vars(self._root).get("_sf_save_counter")
        missing = [v for v in self._variables()
                   if v.op.name not in self._names and v is not optional]
        if missing:
            text = "".join(f"\n    {v}: ['{VARIABLE_VALUE}']" for v in missing)
            raise AssertionError(
                f"Some objects had attributes which were not restored: {text}")
        return self

    def assert_existing_objects_matched(self):
        return self.assert_consumed()

    def assert_nontrivial_match(self):
        return self.assert_consumed()

    def run_restore_ops(self, session=None):
        present = {v.op.name: v for v in self._variables() if v.op.name in self._names}
        if present:
            Saver(present).restore(_session(session), self._save_path)

    def initialize_or_restore(self, session=None):
        self.run_restore_ops(session)

    def expect_partial(self):
        return self
