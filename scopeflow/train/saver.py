"""``tf.train.Saver``: TF1's name-based checkpoints in TensorFlow's V2 format.

The graph a Saver adds is TF1's, op for op (``save/Const``, ``save/SaveV2``,
``save/control_dependency``, ``save/RestoreV2``, ``save/Assign_N``, ``save/restore_all``),
and ``saver.saver_def`` names them as TF does, so checkpoints and ``.meta`` files travel
both ways between scopeflow and TensorFlow.

Beyond TF1:

* **Crash-safe saves.** The bundle is written atomically (temp files, fsync, rename, the
  ``.index`` last), then the ``.meta``, then the ``checkpoint`` state file (atomically),
  and only then are checkpoints beyond ``max_to_keep`` deleted. Killing the process at any
  moment leaves ``tf.train.latest_checkpoint`` pointing at a complete checkpoint.
* **Restore checks everything first.** Every variable's key, dtype and shape is compared
  with the checkpoint before anything is assigned; all problems are reported in one error
  (TF's class and key phrase, e.g. ``Key w not found in checkpoint``, then the complete
  list), with likely fixes (a ``model/`` prefix, optimizer slots absent, ``_1`` suffixes).
* **Restore reports.** ``saver.restore(sess, path, report=True)`` returns a
  :class:`RestoreReport` (what was restored, which checkpoint keys went unused);
  ``saver.preview(path)`` returns the same report without assigning anything.
* Paths of checkpoints are written relative to the directory in the ``checkpoint`` file.

Partitioned variables are saved as TF saves them: each part is a slice (its
``_save_slice_info.spec``) of one checkpoint tensor named after the whole variable, with
the full shape. Restoring reads each part's slice, so a checkpoint restores into the same
partitioning, another one or an unpartitioned variable (and back), as in TF.
"""

from __future__ import annotations

import glob
import logging
import os
import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from scopeflow.framework.meta_graph import export_meta_graph
from scopeflow.framework.registry import is_variable_op
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io.protos import SaverDef
from scopeflow.io.tensor_bundle import BundleReader, parse_shape_and_slice
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.io import io_ops
from scopeflow.ops.state import state_ops
from scopeflow.ops.state.resource_variable_ops import assign_variable_op
from scopeflow.runtime.session import Session
from scopeflow.state.partitioning import PartitionedVariable
from scopeflow.train import checkpoint_management as cm
from scopeflow.train import training_state as ts
from scopeflow.train.checkpoint_cleanup import (
    checkpoint_files,
    remove_own_checkpoint,
    save_location,
)
from scopeflow.train.restore_report import (
    WRAP_MESSAGE,
    RestoreReport,
    check_against,
    invalid_path_error,
    restore_error,
)
from scopeflow.train.training_util import global_step as _step_value

if TYPE_CHECKING:
    from scopeflow.framework.graph import Tensor
    from scopeflow.runtime.session import Session
    from scopeflow.state.variables import Variable

__all__ = ["Saver", "BaseSaverBuilder", "BulkSaverBuilder", "RestoreReport",
           "export_meta_graph"]


_log = logging.getLogger("scopeflow.train")



# ── what gets saved ──────────────────────────────────────────────────────────────────
class _VariableSaveable:
    """One checkpoint key bound to one variable (TF's ``ReferenceVariableSaveable``).

    A part of a partitioned variable is the slice ``slice_spec`` (TF's
    ``shape_and_slices`` string, ``"10 4 0,4:0,4"``) of the checkpoint tensor ``name``;
    ``shape`` is then the full tensor's, as the checkpoint holds it.
    """

    __slots__ = ("name", "tensor", "variable", "slice_spec")
    restore_in_graph = True   # by its Assign, in the Saver's restore op

    def __init__(self, name, tensor, variable=None, slice_spec=""):
        self.name = name          # the checkpoint key
        self.tensor = tensor      # the VariableV2 output (a ref tensor)
        self.variable = variable  # the Variable object when one was given
        self.slice_spec = slice_spec

    @property
    def op(self):
        return self.tensor.op

    @property
    def dtype(self):
        return self.tensor.dtype.base_dtype

    @property
    def shape(self):
        if self.slice_spec:
            return TensorShape(parse_shape_and_slice(self.slice_spec)[0])
        return self.tensor.shape

    @property
    def device(self):
        return self.tensor.device

    def restore(self, restored, shape=None):
        if shape is not None:
            restored = array_ops.reshape(restored, shape)
        validate = shape is None and self.tensor.shape.is_fully_defined()
        return state_ops.assign(self.tensor, restored, validate_shape=validate)


class _ObjectSaveable:
    """One checkpoint key bound to a saveable object that is not a variable (an iterator's
    position, the training state): the object names the tensor to save and restores it.

    Wrapping it gives every entry of a Saver the same attributes, so saving and restoring
    never ask what an entry is.
    """

    __slots__ = ("obj", "restore_in_graph")

    def __init__(self, name, obj):
        obj.name = name  # as TF, the object takes the key it is saved under
        self.obj = obj
        # False: Saver.restore restores it in Python (the training state).
        self.restore_in_graph = getattr(obj, "restore_in_graph", True)

    name = property(lambda self: self.obj.name)
    tensor = property(lambda self: self.obj.tensor)
    op = property(lambda self: self.obj.op)
    dtype = property(lambda self: self.obj.dtype)
    shape = property(lambda self: self.obj.shape)
    device = property(lambda self: self.obj.device)
    slice_spec = property(lambda self: self.obj.slice_spec)
    variable = property(lambda self: getattr(self.obj, "variable", None))

    def restore(self, restored, shape=None):
        return self.obj.restore(restored, shape)


def _as_variable_tensor(var):
    """A variable's ref tensor (TF's ``convert_to_tensor(var, as_ref=True)``), or None."""
    if hasattr(var, "_ref") and callable(var._ref):
        return var._ref()
    if isinstance(var, Tensor):
        return var
    return None


def _comes_from_variable(t) -> bool:
    return isinstance(t, Tensor) and (is_variable_op(t.op) or t.op.type == "VarHandleOp")


class _ResourceVariableSaveable:
    """One checkpoint key bound to a resource variable: saves its read
    (``v/Read/ReadVariableOp``), restores with ``AssignVariableOp`` (TF's
    ``ResourceVariableSaveable``: ``save/Identity``, ``save/AssignVariableOp``)."""

    __slots__ = ("name", "variable", "slice_spec")
    restore_in_graph = True

    def __init__(self, name, variable, slice_spec=""):
        self.name = name
        self.variable = variable
        self.slice_spec = slice_spec

    tensor = property(lambda self: self.variable._as_graph_element())
    op = property(lambda self: self.variable.handle.op)
    dtype = property(lambda self: self.variable.dtype.base_dtype)
    device = property(lambda self: self.variable.device)

    @property
    def shape(self):
        if self.slice_spec:
            return TensorShape(parse_shape_and_slice(self.slice_spec)[0])
        return self.variable.shape

    def restore(self, restored, shape=None):
        restored = array_ops.identity(restored)
        if shape is not None:
            restored = array_ops.reshape(restored, shape)
        return assign_variable_op(self.variable.handle, restored)


def _normalised_var_list(var_list):
    """A Saver's ``var_list`` in the form it keeps: None (the graph's saveables, read at
    build), a dict ``{checkpoint key: variable}`` or a list (a tuple or set becomes one:
    its entries are keyed by name, so their order never mattered). Anything else is kept
    as given, for ``_op_list_to_dict``'s TypeError."""
    if isinstance(var_list, (tuple, set)):
        return list(var_list)
    return var_list


def _op_list_to_dict(op_list) -> dict:
    """TF's ``op_list_to_dict``: a list of variables keyed by their op names."""
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list. Got {op_list}")
    flat = []
    for x in op_list:
        flat.extend(x if isinstance(x, (list, tuple)) else [x])
    names_to_saveables = {}
    for var in sorted(flat, key=lambda x: x.name):
        if isinstance(var, PartitionedVariable) or _is_saveable_object(var):
            if var.name in names_to_saveables:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            names_to_saveables[var.name] = var
            continue
        info = getattr(var, "_save_slice_info", None)
        if info is not None:  # a part: grouped with its siblings under the full name
            slices = names_to_saveables.setdefault(info.full_name, [])
            if not isinstance(slices, list):
                raise ValueError(f"Mixing slices and non-slices with the same name: "
                                 f"{info.full_name}")
            slices.append(var)
            continue
        t = _as_variable_tensor(var)
        if not _comes_from_variable(t):
            raise TypeError(f"Variable to save is not a Variable: {var}")
        name = t.op.inputs[0].op.name if t.op.type == "ReadVariableOp" else t.op.name
        if name in names_to_saveables:
            raise ValueError(f"At least two variables have the same name: {name}")
        names_to_saveables[name] = var
    return names_to_saveables


def _is_saveable_object(x) -> bool:
    """A saveable that is not a variable (``make_saveable_from_iterator``'s)."""
    return hasattr(x, "restore") and hasattr(x, "slice_spec") and hasattr(x, "tensor")


def _validate_and_slice_inputs(names_to_saveables) -> list:
    """TF's ``validate_and_slice_inputs``: saveables sorted by checkpoint key."""
    if not isinstance(names_to_saveables, dict):
        names_to_saveables = _op_list_to_dict(names_to_saveables)
    saveables, seen = [], set()
    for name, var in sorted(names_to_saveables.items(), key=lambda x: x[0]):
        if not isinstance(name, str):
            raise TypeError("names_to_saveables must be a dict mapping string names to "
                            f"trackable operations. Name is not a string: {name}")
        if isinstance(var, (list, tuple, PartitionedVariable)):
            saveables.extend(_slice_saveables(name, var, seen))
            continue
        if _is_saveable_object(var):
            # A saveable object (an iterator's position): one string entry, as it is.
            if var.op in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(var.op)
            saveables.append(_ObjectSaveable(name, var))
            continue
        t = _as_variable_tensor(var)
        if not _comes_from_variable(t):
            raise TypeError("names_to_saveables must be a dict mapping string names to "
                            f"Tensors/Variables. Not a variable: {var}")
        if t.op in seen:
            raise ValueError(f"The same saveable will be restored with two names: {name}")
        seen.add(t.op)
        if t.op.type == "VarHandleOp":
            if t is var:
                raise TypeError(f"Save a resource variable, not its handle: {var}")
            saveables.append(_ResourceVariableSaveable(name, var))
            continue
        saveables.append(_VariableSaveable(name, t, var if t is not var else None))
    return saveables


def _slice_saveables(name, parts, seen) -> list:
    """The parts of a partitioned variable as slices of checkpoint tensor ``name``."""
    out, slice_name = [], None
    for v in parts:
        t = _as_variable_tensor(v)
        if not _comes_from_variable(t) or t is v:
            raise ValueError(f"Slices must all be Variables: {v}")
        info = getattr(v, "_save_slice_info", None)
        if not info:
            raise ValueError(f"Slices must all be slices: {v}")
        if slice_name is None:
            slice_name = info.full_name
        elif slice_name != info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                             f"{info.full_name}")
        if t.op in seen:
            raise ValueError(f"The same saveable will be restored with two names: {name}")
        seen.add(t.op)
        if t.op.type == "VarHandleOp":
            out.append(_ResourceVariableSaveable(name, v, info.spec))
            continue
        out.append(_VariableSaveable(name, t, v, info.spec))
    return out


def _one_per_key(saveables) -> list:
    """One saveable per checkpoint key (the parts of a variable share theirs)."""
    first = {}
    for s in saveables:
        first.setdefault(s.name, s)
    return list(first.values())


# ── the graph a Saver adds ───────────────────────────────────────────────────────────
class BaseSaverBuilder:
    """Builds the save and restore ops of a Saver (one ``RestoreV2`` per variable)."""

    _bulk = False

    def __init__(self, write_version=SaverDef.V2):
        self._write_version = write_version

    def save_op(self, filename_tensor, saveables):
        names = [s.name for s in saveables]
        return io_ops.save_v2(filename_tensor, names, [s.slice_spec for s in saveables],
                              [s.tensor for s in saveables])

    def bulk_restore(self, filename_tensor, saveables):
        if self._bulk:
            graph = get_default_graph()
            with graph.device("/device:CPU:0"):  # TF: "cpu:0", for compatibility
                out = io_ops.restore_v2(filename_tensor, [s.name for s in saveables],
                                        [s.slice_spec for s in saveables],
                                        [s.dtype for s in saveables])
            return out if isinstance(out, list) else [out]
        return [io_ops.restore_v2(filename_tensor, [s.name], [s.slice_spec], [s.dtype])
                for s in saveables]

    def _add_save_ops(self, filename_tensor, saveables):
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    @staticmethod
    def _group_by_devices(saveables):
        per_device: dict[str, list] = {}
        for s in saveables:
            per_device.setdefault(s.device, []).append(s)
        return sorted(per_device.items(), key=lambda t: t[0])

    def _add_sharded_save_ops(self, checkpoint_prefix, per_device):
        """Each device's variables go to ``<prefix>_temp/part-i-of-n``, then one merge.

        The merge renames the parts' data files into place and writes the merged index
        last (atomically), so ``<prefix>`` appears complete or not at all.
        """
        graph = get_default_graph()
        with graph.device("/device:CPU:*"):
            suffix = math_ops.where(io_ops.regex_full_match(checkpoint_prefix, "^s3://.*"),
                                     constant_op.constant(".part"),
                                     constant_op.constant(os.path.normpath("_temp/part")))
            tmp_prefix = io_ops.string_join([checkpoint_prefix, suffix])
        num_shards = constant_op.constant(len(per_device), name="num_shards")
        saves, prefixes, last_device = [], [], ""
        for shard, (device, saveables) in enumerate(per_device):
            last_device = device
            with graph.device(_cpu0(device)):
                filename = io_ops.sharded_filename(tmp_prefix, shard, num_shards)
                prefixes.append(filename)
                saves.append(self._add_save_ops(filename, saveables))
        with graph.control_dependencies([x.op for x in saves]), \
                graph.device(_cpu0(last_device)):
            merge = io_ops.merge_v2_checkpoints(prefixes, checkpoint_prefix)
            with graph.control_dependencies([merge]):
                return array_ops.identity(checkpoint_prefix)

    def _add_sharded_restore_ops(self, filename_tensor, per_device, reshape):
        graph = get_default_graph()
        restores = []
        for device, saveables in per_device:
            with graph.device(device):
                restores.append(self._add_restore_ops(filename_tensor, saveables, reshape,
                                                      name="restore_shard"))
        return control_flow_ops.group(*restores, name="restore_all")

    def _add_restore_ops(self, filename_tensor, saveables, reshape, name="restore_all"):
        restored = self.bulk_restore(filename_tensor, saveables)
        assigns = []
        for saveable, tensor in zip(saveables, restored):
            shape = None
            if reshape:
                var_shape = saveable.tensor.shape
                shape = var_shape.as_list() if var_shape.is_fully_defined() \
                    else array_ops.shape(saveable.tensor)
            assigns.append(saveable.restore(tensor, shape))
        return control_flow_ops.group(*assigns, name=name)

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None,
                        restore_sequentially=False, filename="model"):
        """Adds the ops; returns ``(SaverDef, saveables)``."""
        saveables = _validate_and_slice_inputs(names_to_saveables)
        # The training state is saved with the variables but restored in Python.
        restorable = [s for s in saveables if s.restore_in_graph]
        if max_to_keep is None:
            max_to_keep = 0
        with name_scope(name, "save", [s.op for s in saveables]):
            filename_tensor = array_ops.placeholder_with_default(
                filename or "model", shape=(), name="filename")
            # TF keeps the name "Const" for backwards compatibility.
            filename_tensor = array_ops.placeholder_with_default(
                filename_tensor, shape=(), name="Const")
            if sharded:
                save_tensor = self._add_sharded_save_ops(filename_tensor,
                                                         self._group_by_devices(saveables))
                restore_op = self._add_sharded_restore_ops(
                    filename_tensor, self._group_by_devices(restorable), reshape)
            else:
                save_tensor = self._add_save_ops(filename_tensor, saveables)
                restore_op = self._add_restore_ops(filename_tensor, restorable, reshape)
        saver_def = SaverDef(
            filename_tensor_name=filename_tensor.name, save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name, max_to_keep=max_to_keep, sharded=sharded,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            version=self._write_version)
        return saver_def, saveables


def _cpu0(device: str) -> str:
    """TF's ``set_cpu0``: the same job/replica/task, device CPU:0."""
    kept = [p for p in device.split("/") if p and not p.startswith(("device:", "cpu:", "gpu:",
                                                                     "CPU:", "GPU:"))]
    return "".join("/" + p for p in kept) + "/device:CPU:0"


class BulkSaverBuilder(BaseSaverBuilder):
    """The default builder: one ``RestoreV2`` op reads every variable."""

    _bulk = True


# ── meta graphs ──────────────────────────────────────────────────────────────────────
# ── Saver ────────────────────────────────────────────────────────────────────────────
class Saver:
    """Saves and restores variables (``tf.train.Saver``), in TF's checkpoint V2 format.

    ``var_list``: None (all saveable variables), a list of variables (keyed by their op
    names, ``v.op.name``) or a dict ``{checkpoint key: variable}``.

    >>> v = tf.Variable(3.0, name="v")
    >>> saver = tf.train.Saver()
    >>> saver.saver_def.restore_op_name, saver.saver_def.filename_tensor_name
    ('save/restore_all', 'save/Const:0')
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=SaverDef.V2, pad_step_number=False, save_relative_paths=False,
                 filename=None, training_state=False):
        var_list = _normalised_var_list(var_list)
        if defer_build and var_list is not None and (
                not isinstance(var_list, (list, dict)) or var_list):
            raise ValueError("If `var_list` is provided then build cannot be deferred. "
                             "Either set defer_build=False or var_list=None.")
        if write_version != SaverDef.V2:
            raise ValueError(f"scopeflow writes only checkpoint format V2 (TF's default); "
                             f"write_version={write_version} is not supported")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._training_state = None  # its saveable, once built
        self._want_training_state = bool(training_state)
        self._last_checkpoints: list = []
        self._checkpoints_to_be_deleted: list = []
        # (resolved directory, base name) of each save: max_to_keep deletes nothing else.
        self._save_locations: set = set()
        # One save at a time: two threads saving through one Saver would otherwise remove
        # each other's temporaries and interleave the max_to_keep bookkeeping.
        self._lock = threading.RLock()
        self._save_relative_paths = save_relative_paths
        self._saveables = None
        self._graph = get_default_graph()
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version

    def _check_saver_def(self):
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def build(self):
        """Adds the save/restore ops (called by the constructor unless ``defer_build``)."""
        if self._is_built:
            return
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                graph = get_default_graph()
                self._var_list = graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + \
                    graph.get_collection(GraphKeys.SAVEABLE_OBJECTS)
            if isinstance(self._var_list, (list, dict)) and not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            if self._want_training_state:  # beside variables (an empty Saver stays empty)
                self._add_training_state_entry()
            self.saver_def, self._saveables = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded,
                max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                name=self._name, restore_sequentially=self._restore_sequentially,
                filename=self._filename)
            self._graph = self._saveables[0].op.graph  # where the save ops went
        else:
            self._is_empty = False
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600)

    def _add_training_state_entry(self):
        entry = self._training_state = ts.TrainingStateSaveable()
        if isinstance(self._var_list, dict):
            if ts.KEY in self._var_list:
                raise ValueError(f"{ts.KEY!r} is the training state's checkpoint key")
            self._var_list = {**self._var_list, ts.KEY: entry}
        else:
            self._var_list = list(self._var_list) + [entry]

    def as_saver_def(self) -> SaverDef:
        """The ``SaverDef`` naming this Saver's filename tensor, save tensor and restore op."""
        return self.saver_def

    # -- bookkeeping (max_to_keep) -------------------------------------------------------
    @property
    def last_checkpoints(self) -> list:
        """Checkpoints this Saver still keeps, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Replaces the list of kept checkpoints (their times count as "never delete")."""
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list")
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the list of kept checkpoints with ``(path, timestamp)`` pairs."""
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list")
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths):
        """Adopts existing checkpoints (e.g. after a restart), timed by their mtimes.

        Typical use: ``saver.recover_last_checkpoints(
        tf.train.get_checkpoint_state(d).all_model_checkpoint_paths)``, so that
        ``max_to_keep`` also deletes checkpoints written by an earlier process.
        """
        with_times = []
        for path in checkpoint_paths:
            mtime = cm.get_checkpoint_mtimes([path])
            if mtime:
                with_times.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(with_times)

    def _record_last_checkpoint(self, latest_save_path):
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix="meta"):
        if not self._checkpoints_to_be_deleted:
            return
        path, saved_at = self._checkpoints_to_be_deleted.pop(0)
        # keep_checkpoint_every_n_hours: keep one checkpoint per N hours of training.
        if saved_at > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            remove_own_checkpoint(path, self._save_locations, meta_graph_suffix)
        except OSError as e:
            _log.warning("Ignoring: %s", e)

    # -- saving --------------------------------------------------------------------------
    def save(self, sess: Session, save_path: str | os.PathLike,
             global_step: int | Tensor | Variable | None = None,
             latest_filename: str | None = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Saves the variables to ``save_path[-global_step]``; returns that prefix.

        Writes ``<prefix>.index`` and ``<prefix>.data-00000-of-00001`` (atomically), then
        ``<prefix>.meta``, then the ``checkpoint`` state file in the prefix's directory, and
        only then deletes checkpoints beyond ``max_to_keep``. The directory must exist.
        Returns None for an empty Saver (``allow_empty=True`` and no variables).

        ``max_to_keep`` deletes only this Saver's own checkpoints: files named after a
        ``save_path`` it was given (``-<step>`` added), in the directory it saved them to;
        anything else the list names (a state file listing ``../`` or absolute paths) is
        kept, with a warning. Threads may share a Saver: their saves take turns.
        """
        with self._lock:
            return self._save(sess, save_path, global_step, latest_filename, meta_graph_suffix,
                              write_meta_graph, write_state, strip_default_attrs)

    def _save(self, sess, save_path, global_step, latest_filename, meta_graph_suffix,
              write_meta_graph, write_state, strip_default_attrs):
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        latest_filename = latest_filename or cm.LATEST_FILENAME
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _path_str(save_path)
        checkpoint_file = self._checkpoint_file(sess, save_path, global_step, latest_filename)
        if not isinstance(sess, Session):
            raise TypeError(f"'sess' must be a Session; {sess}")
        model_checkpoint_path = None
        if not self._is_empty:
            model_checkpoint_path = self._write_bundle(sess, save_path, checkpoint_file)
        # Commit order: bundle (above), meta graph, state file; then delete old ones.
        kept = list(self._last_checkpoints)
        try:
            if write_meta_graph:
                meta_file = cm.meta_graph_filename(checkpoint_file, meta_graph_suffix)
                with sess.graph.as_default():
                    self.export_meta_graph(meta_file, strip_default_attrs=strip_default_attrs)
            if model_checkpoint_path is not None and write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                cm.update_checkpoint_state_internal(
                    save_dir=os.path.dirname(save_path),
                    model_checkpoint_path=model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths)
        except OSError as e:
            # Not committed (no state file names it): remove it rather than leave an
            # unlisted checkpoint, and keep the list as it was (no older one is deleted).
            self._last_checkpoints = kept
            self._checkpoints_to_be_deleted = [
                c for c in self._checkpoints_to_be_deleted if c[0] != model_checkpoint_path]
            if model_checkpoint_path is not None:
                _remove_uncommitted(checkpoint_file, meta_graph_suffix)
            raise _save_error(e, checkpoint_file) from None
        if model_checkpoint_path is not None and write_state:
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        return model_checkpoint_path

    def _checkpoint_file(self, sess, save_path, global_step, latest_filename):
        """The prefix this save writes: ``save_path``, with ``-<global_step>`` when given."""
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = _step_value(sess, global_step)
            fmt = "{}-{:08d}" if self._pad_step_number else "{}-{:d}"
            return fmt.format(save_path, int(global_step))
        if os.path.basename(save_path) == latest_filename and not self._sharded:
            raise ValueError(f"'latest_filename' collides with 'save_path': "
                             f"'{latest_filename}' and '{save_path}'")
        return save_path

    def _write_bundle(self, sess, save_path, checkpoint_file):
        """Runs the save op to write ``checkpoint_file``'s bundle; returns the prefix it
        wrote."""
        _make_parent_directory(save_path)
        _remove_stale_temporaries(checkpoint_file)
        feed = {self.saver_def.filename_tensor_name: checkpoint_file}
        if self._training_state is not None:
            feed[self._training_state.tensor] = np.asarray(
                ts.capture(sess, self._graph), dtype=object)
        out = sess.run(self.saver_def.save_tensor_name, feed)
        self._save_locations.add(save_location(save_path))
        return out.decode("utf-8") if isinstance(out, bytes) else str(out)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes this graph and this Saver's ``SaverDef`` as a ``MetaGraphDef``."""
        return export_meta_graph(
            filename=filename, saver_def=self.saver_def, collection_list=collection_list,
            as_text=as_text, export_scope=export_scope, clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs, graph=get_default_graph())

    # -- restoring -----------------------------------------------------------------------
    def _saveables_for_checks(self):
        if self._saveables is None and self.saver_def is not None:
            self._saveables = _saveables_from_graph(self._graph, self.saver_def)
        if self._saveables is None:
            return None
        return [s for s in self._saveables if s.restore_in_graph]

    def preview(self, save_path) -> RestoreReport:
        """What ``restore(sess, save_path)`` would restore, without assigning anything.

        Returns a :class:`RestoreReport`; problems are listed in it instead of raised.

        >>> import os, tempfile
        >>> v = tf.Variable([1.0, 2.0], name="v")
        >>> with tf.Session() as sess:
        ...     sess.run(v.initializer)
        ...     path = tf.train.Saver().save(sess, os.path.join(tempfile.mkdtemp(), "m"))
        >>> w = tf.Variable(0.0, name="w")
        >>> print(tf.train.Saver().preview(path))  # doctest: +ELLIPSIS
        Restore from '.../m': 1 of 2 variables restored; the checkpoint has 1 key, 0 unused...
          restored (1):
            v
          missing from the checkpoint (1):
            w: float32 [], created at ...
        """
        save_path = self._checked_path(save_path)
        with BundleReader(save_path) as reader:
            return check_against(_one_per_key(self._saveables_for_checks() or []), reader,
                                  save_path, self._reshape)

    def _checked_path(self, save_path) -> str:
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if hasattr(save_path, "model_checkpoint_path"):
            raise TypeError(f"save_path must be a checkpoint prefix string, got a "
                            f"CheckpointState; pass its .model_checkpoint_path "
                            f"({save_path.model_checkpoint_path!r})")
        save_path = _path_str(save_path)
        if not os.path.isfile(save_path + ".index"):
            raise invalid_path_error(save_path)
        return save_path

    def restore(self, sess: Session, save_path: str | os.PathLike | None,
                report: bool = False) -> RestoreReport | None:
        """Restores the variables from the checkpoint prefix ``save_path``.

        Checks every variable against the checkpoint first (keys, dtypes, shapes) and
        raises one error listing all problems, before assigning anything:
        ``NotFoundError`` when keys are missing, ``InvalidArgumentError`` for dtype or
        shape mismatches (TF's classes and key phrases). ``save_path`` must be a prefix
        (``ckpt/model-5``); a directory or a ``.index``/``.data`` file gets a
        ``ValueError`` that says so.

        With ``report=True`` returns a :class:`RestoreReport` (restored variables and
        the checkpoint keys this Saver did not use); otherwise None, as TF.
        """
        if self._is_empty:
            return None
        save_path = self._checked_path(save_path)
        _log.info("Restoring parameters from %s", save_path)
        saveables = self._saveables_for_checks()
        result = None
        if saveables is not None:
            with BundleReader(save_path) as reader:
                result = check_against(_one_per_key(saveables), reader, save_path,
                                       self._reshape)
            if not result.ok:
                raise restore_error(result, self._restore_ops())
        try:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: save_path})
        except errors.NotFoundError as e:
            raise type(e)(e.node_def, e.op, WRAP_MESSAGE.format(
                "a Variable name or other graph key that is missing") + e.message) from None
        except errors.InvalidArgumentError as e:
            raise type(e)(e.node_def, e.op, WRAP_MESSAGE.format(
                "a mismatch between the current graph and the graph") + e.message) from None
        if self._training_state is not None:
            self._restore_training_state(sess, save_path)
        if result is not None:
            _log.info("%s", result)
        return result if report else None

    def _restore_training_state(self, sess, save_path):
        with BundleReader(save_path) as reader:
            data = reader.read(ts.KEY) if ts.KEY in reader else None
        value = None if data is None else np.asarray(data, dtype=object).reshape(-1)[0]
        if not value:
            _log.info("%s has no training state: the variables are restored; random streams "
                      "and input positions continue from where they are", save_path)
            return
        try:
            ts.apply(sess, value, self._graph)
        except errors.DataLossError as e:  # a damaged checkpoint: say which
            raise errors.DataLossError(
                e.node_def, e.op, f"Checkpoint {save_path} is damaged: {e.message}") from None

    def _restore_ops(self):
        """(the RestoreV2 op, {checkpoint key: its Assign op}) for error messages."""
        graph = self._graph
        try:
            restore_all = graph.get_operation_by_name(self.saver_def.restore_op_name)
        except (KeyError, ValueError):
            return None, {}
        restore_v2, assign_of = None, {}
        for assign in restore_all.control_inputs:
            if assign.type not in ("Assign", "AssignVariableOp"):
                continue
            src = assign.inputs[1]
            while src.op.type in ("Reshape", "Identity"):
                src = src.op.inputs[0]
            if src.op.type == "RestoreV2":
                restore_v2 = src.op
                names = _const_strings(src.op.inputs[1])
                if names is not None:
                    assign_of[names[src.value_index]] = assign
        return restore_v2, assign_of


def _path_str(path) -> str:
    """A path-like (``str``, ``bytes``, ``os.PathLike``) as ``str``."""
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path


def _make_parent_directory(save_path):
    """As TF: one missing directory level is made; a deeper missing path is an error (a
    typo there would otherwise scatter directories)."""
    parent = os.path.dirname(save_path)
    if parent and not os.path.isdir(parent):
        grandparent = os.path.dirname(parent)
        if grandparent and not os.path.isdir(grandparent):
            raise ValueError(
                f"Parent directory of {save_path} doesn't exist, can't save. (Create "
                f"it first: os.makedirs({parent!r}, exist_ok=True))")
        os.makedirs(parent, exist_ok=True)


def _remove_uncommitted(checkpoint_file, meta_graph_suffix):
    """Deletes a checkpoint whose save failed after its bundle was written."""
    try:
        for path in checkpoint_files(checkpoint_file, meta_graph_suffix):
            os.remove(path)
    except OSError as e:  # the save's own error is what the user needs to see
        _log.warning("Could not remove the incomplete checkpoint %s: %s", checkpoint_file, e)


def _save_error(e: OSError, checkpoint_file: str) -> errors.OpError:
    """A failed save as TF's error class for the OS error (a full disk is
    ``ResourceExhaustedError``), naming the checkpoint and the file."""
    what = f" ({e.filename})" if getattr(e, "filename", None) else ""
    return errors.error_for_os_error(e)(
        None, None, f"Failed to save checkpoint {checkpoint_file}: {e.strerror or e}{what}. "
        f"The checkpoint was not written; the previous checkpoints are intact.")


def _remove_stale_temporaries(checkpoint_file):
    """Deletes temporary files a crashed earlier write of this same checkpoint left behind.

    Only this prefix's own ``.index``/``.data`` temporaries: a writer of another prefix in
    the same directory (another process, an evaluator) is never touched.
    """
    for pattern in (".index.tempstate*", ".data-?????-of-?????.tempstate*",
                    "_temp/part-?????-of-?????.*"):
        for name in glob.glob(glob.escape(checkpoint_file) + pattern):
            try:
                os.remove(name)
                _log.info("Removed %s, left by an interrupted save", name)
            except OSError:
                pass


def _const_strings(t):
    if t.op.type != "Const":
        return None
    value = t.op.get_attr("value")
    return [x.decode("utf-8") if isinstance(x, bytes) else str(x)
            for x in np.asarray(value).reshape(-1)]


def _saveables_from_graph(graph, saver_def):
    """Recovers (key, variable) pairs from a Saver's restore ops (for ``saver_def=``)."""
    try:
        restore_all = graph.get_operation_by_name(saver_def.restore_op_name)
    except (KeyError, ValueError):
        return None
    out = []
    for assign in restore_all.control_inputs:
        if assign.type != "Assign":
            return None
        src = assign.inputs[1]
        while src.op.type == "Reshape":
            src = src.op.inputs[0]
        names = _const_strings(src.op.inputs[1]) if src.op.type == "RestoreV2" else None
        specs = _const_strings(src.op.inputs[2]) if src.op.type == "RestoreV2" else None
        if names is None or specs is None:
            return None
        out.append(_VariableSaveable(names[src.value_index], assign.inputs[0],
                                     slice_spec=specs[src.value_index]))
    return sorted(out, key=lambda s: s.name)

