"""Reading checkpoints: ``tf.train.load_checkpoint``, ``list_variables``, ``load_variable``,
``NewCheckpointReader`` and ``init_from_checkpoint``, as TensorFlow 1.

Every function takes a checkpoint prefix (``ckpt/model-1000``) or a directory; a directory
means its newest checkpoint, found through its ``checkpoint`` state file
(:func:`scopeflow.train.latest_checkpoint`). Reads go through the bundle layer
(:mod:`scopeflow.io.tensor_bundle`), so every tensor's checksum is verified.

>>> import os, tempfile
>>> from scopeflow.io.tensor_bundle import write_bundle
>>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> write_bundle(prefix, ["dense/kernel", "global_step"], [np.eye(2, dtype=np.float32),
...                                                        np.array(100)])
>>> tf.train.list_variables(prefix)
[('dense/kernel', [2, 2]), ('global_step', [])]
>>> int(tf.train.load_variable(prefix, "global_step"))
100
"""

from __future__ import annotations

import difflib
import logging
import os
import time

from scopeflow.framework import errors
from scopeflow.framework.properties import read_only
from scopeflow.io.protos import DATA_TYPE
from scopeflow.io.tensor_bundle import BundleReader
from scopeflow.ops.io import io_ops
from scopeflow.ops.state import state_ops
from scopeflow.state.partitioning import PartitionedVariable
from scopeflow.state.variable_scope import _store
from scopeflow.state.variables import Variable
from scopeflow.train.checkpoint_management import latest_checkpoint

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint", "list_variables",
           "load_variable", "init_from_checkpoint", "wait_for_new_checkpoint",
           "checkpoints_iterator"]

_log = logging.getLogger("scopeflow.train")


def _close_matches(name, candidates):
    matches = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    if name.endswith(":0") and name[:-2] in candidates:
        matches = [name[:-2]]
    return f". Did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""


class CheckpointReader:
    """The object ``tf.train.load_checkpoint`` returns: names, shapes, dtypes and values.

    As TF's ``CheckpointReader``: ``get_variable_to_shape_map()`` (name -> list of ints),
    ``get_variable_to_dtype_map()`` (name -> ``tf.DType``), ``get_tensor(name)`` (a NumPy
    array; scalars as NumPy scalars, strings as ``bytes``), ``has_tensor(name)`` and
    ``debug_string()``.
    """

    def __init__(self, filepattern):
        self._reader = BundleReader(filepattern)

    prefix = read_only("_reader.prefix")

    def get_variable_to_shape_map(self) -> dict:
        reader = self._reader
        return {name: list(reader.shape(name)) for name in reader.keys()}

    def get_variable_to_dtype_map(self) -> dict:
        reader = self._reader
        return {name: reader.dtype(name) for name in reader.keys()}

    def has_tensor(self, tensor_str) -> bool:
        return tensor_str in self._reader

    def get_tensor(self, tensor_str):
        """The value of ``tensor_str``; NotFoundError (with close names) when absent."""
        if tensor_str not in self._reader:
            raise errors.NotFoundError(
                None, None, f"Key {tensor_str} not found in checkpoint"
                + _close_matches(tensor_str, self._reader.keys()))
        value = self._reader.read(tensor_str)
        return value[()] if value.ndim == 0 else value

    def debug_string(self) -> bytes:
        """One line per tensor, ``name (DT_FLOAT) [2,3]``, as TF's (bytes)."""
        reader = self._reader
        lines = []
        for name in reader.keys():
            enum = reader.entry(name).dtype
            known = DATA_TYPE.values_by_number.get(enum)   # a damaged index may hold any
            dtype = known.name if known is not None else f"DataType({enum})"
            shape = ",".join(str(d) for d in reader.shape(name))
            lines.append(f"{name} ({dtype}) [{shape}]\n")
        # Key names are bytes in the index; one that is not UTF-8 comes back as it was.
        return "".join(lines).encode("utf-8", "surrogateescape")

    def close(self) -> None:
        self._reader.close()

    def __repr__(self):
        return f"<CheckpointReader {self.prefix!r}>"


def NewCheckpointReader(filepattern) -> CheckpointReader:  # noqa: N802 - TF's name
    """A :class:`CheckpointReader` for the checkpoint prefix ``filepattern``.

    Raises NotFoundError ("Unsuccessful TensorSliceReader constructor: Failed to find any
    matching files for ...") when there is no such checkpoint.
    """
    return CheckpointReader(os.fspath(filepattern))


def _get_checkpoint_filename(ckpt_dir_or_file) -> str:
    """The prefix itself, or a directory's newest checkpoint (None when it has none)."""

    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """Returns a ``CheckpointReader`` for a checkpoint prefix or a directory's newest one.

    Raises:
      ValueError: ``ckpt_dir_or_file`` is a directory without a ``checkpoint`` state file
        (or whose state file names no existing checkpoint).
      NotFoundError: no checkpoint with that prefix.
    """
    filename = _get_checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        message = ("Couldn't find 'checkpoint' file or checkpoints in given directory "
                   f"{os.fspath(ckpt_dir_or_file)}")
        try:
            found = sorted(n[:-6] for n in os.listdir(ckpt_dir_or_file) if n.endswith(".index"))
        except OSError:
            found = []
        if found:
            example = os.path.join(os.fspath(ckpt_dir_or_file), found[-1])
            message += (f" (it holds the checkpoints {', '.join(found[:5])}, but no state "
                        f"file names them: pass a prefix such as {example!r})")
        raise ValueError(message)
    return NewCheckpointReader(filename)


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape), ...]`` of every tensor in the checkpoint, sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    variable_map = reader.get_variable_to_shape_map()
    return [(name, variable_map[name]) for name in sorted(variable_map)]


def load_variable(ckpt_dir_or_file, name):
    """The value of tensor ``name`` (a trailing ``:0`` is ignored, as TF) as a NumPy array."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


# ── init_from_checkpoint ─────────────────────────────────────────────────────────────
def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _collect_partitioned_variable(name, all_vars):
    """The parts ``name/part_0``, ``name/part_1``... of a partitioned variable, or None."""
    if name + "/part_0" not in all_vars:
        return None
    parts, i = [], 0
    while f"{name}/part_{i}" in all_vars:
        parts.append(all_vars[f"{name}/part_{i}"])
        i += 1
    return parts


def _store_variable(name, store_vars):
    """The variable ``get_variable`` made as ``name``, or its parts (a list), or None."""
    var = store_vars.get(name)
    return _collect_partitioned_variable(name, store_vars) if var is None else var


def _as_parts(current):
    """A partitioned variable (or a list of its parts) as the list of parts, else None."""
    if isinstance(current, PartitionedVariable):
        return list(current)
    if isinstance(current, (list, tuple)) and current and all(_is_variable(v)
                                                              for v in current):
        return list(current)
    return None


def _set_variable_or_list_initializer(variable_or_list, ckpt_file, tensor_name):
    """Each part of a list reads its slice (``_save_slice_info.spec``) of the tensor."""
    if not isinstance(variable_or_list, list):
        _set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name)
        return
    slice_name = None
    for v in variable_or_list:
        slice_info = v._save_slice_info
        if slice_name is None:
            slice_name = slice_info.full_name
        elif slice_name != slice_info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                             f"{slice_info.full_name}")
        _set_checkpoint_initializer(v, ckpt_file, tensor_name, slice_info.spec)


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec=""):
    """Makes ``variable``'s initializer assign ``tensor_name`` read from ``ckpt_file``."""

    base_type = variable.dtype.base_dtype
    restore = io_ops.restore_v2(ckpt_file, [tensor_name], [slice_spec], [base_type],
                                name="checkpoint_initializer")
    shape = variable.get_shape()
    init = state_ops.assign(variable._ref(), restore, validate_shape=shape.is_fully_defined())
    restore.set_shape(shape)
    variable._initializer_op = init.op
    variable._initial_value = restore


def _check_variable(var, tensor_name, reader, ckpt_dir_or_file):
    """TF's shape check, plus a dtype check TF leaves to the first session run; the parts
    of a partitioned variable (a list) are checked by their full shape."""
    shape = reader.shape(tensor_name)
    if isinstance(var, list):
        if any(v._save_slice_info is None for v in var):
            raise ValueError(f"Slices must all be slices: {var}")
        full_shape = var[0]._save_slice_info.full_shape
        if list(full_shape) != list(shape):
            raise ValueError(f"Shape of partitioned variable "
                             f"{var[0]._save_slice_info.full_name} ({full_shape}) doesn't match "
                             f"with shape of tensor {tensor_name} ({list(shape)}) from "
                             "checkpoint reader.")
        var = var[0]
    elif not var.get_shape().is_compatible_with(list(shape)):
        raise ValueError(f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                         f"shape of tensor {tensor_name} ({list(shape)}) from checkpoint reader.")
    saved = reader.dtype(tensor_name)
    if saved.base_dtype != var.dtype.base_dtype:
        raise ValueError(f"Dtype of variable {var.name} ({var.dtype.base_dtype.name}) doesn't "
                         f"match with dtype of tensor {tensor_name} ({saved.name}) in checkpoint "
                         f"{os.fspath(ckpt_dir_or_file)}.")


def _missing_tensor(tensor_name, ckpt_dir_or_file, reader, detail=""):
    return ValueError(f"Tensor {tensor_name} {detail}is not found in "
                      f"{os.fspath(ckpt_dir_or_file)} checkpoint"
                      + (_close_matches(tensor_name, reader.keys()) or "."))


def _scope_assignments(tensor_name_in_ckpt, current_scope, store_vars, ckpt_dir_or_file,
                       reader):
    """(variable, checkpoint name) for every variable under a ``'scope/'`` mapping."""
    scopes = ""
    if "/" in current_scope:
        scopes = current_scope[:current_scope.rindex("/")]
    if not tensor_name_in_ckpt.endswith("/"):
        raise ValueError(f"Assignment map with scope only name {scopes} should map to scope "
                         f"only {tensor_name_in_ckpt}. Should be 'scope/': 'other_scope/'.")
    pairs = []
    scope_variables = {n[:n.index("/part_")] if "/part_" in n else n for n in store_vars
                       if not scopes or n.startswith(scopes + "/")}
    for var_name in sorted(scope_variables):
        full_tensor_name = var_name[len(scopes):]
        if current_scope != "/":
            full_tensor_name = full_tensor_name[1:]
        if tensor_name_in_ckpt != "/":
            full_tensor_name = tensor_name_in_ckpt + full_tensor_name
        if full_tensor_name.endswith("/"):
            full_tensor_name = full_tensor_name[:-1]
        if full_tensor_name not in reader:
            raise _missing_tensor(full_tensor_name, ckpt_dir_or_file, reader,
                                  f"({var_name[len(scopes) + 1:]} in {tensor_name_in_ckpt}) ")
        pairs.append((_store_variable(var_name, store_vars), full_tensor_name))
    if not pairs:
        raise ValueError(f"Assignment map {tensor_name_in_ckpt!r}: {current_scope!r} matched no "
                         f"variable: no variable created with tf.get_variable is under "
                         f"{current_scope!r}")
    return pairs


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Makes variables' initializers load their values from a checkpoint (TF1 semantics).

    ``assignment_map`` maps checkpoint names to current variables (a dict or a list of
    pairs). Keys and values may be:

    * ``'old/scope/w': 'new/scope/w'`` or ``'old/scope/w': variable``: one variable (a
      name means a variable created with ``tf.get_variable``);
    * ``'old_scope/': 'new_scope/'``: every ``get_variable`` variable under ``new_scope``
      from the tensor with the same name under ``old_scope``;
    * ``'/': 'scope/'`` (checkpoint root) or ``'old_scope/': '/'`` (every variable).

    A partitioned variable (its name, the ``PartitionedVariable`` or the list of its parts)
    initializes each part from its slice of the checkpoint tensor, whether that tensor was
    saved partitioned or whole.

    Nothing is read now: each chosen variable's ``initializer`` becomes an ``Assign`` from a
    ``RestoreV2`` op named ``checkpoint_initializer`` (and its ``initial_value`` that
    op's output), so ``tf.global_variables_initializer()`` loads the checkpoint. Every
    mapping is checked first (names, shapes and, unlike TF, dtypes), so a bad map raises
    ``ValueError`` here, before any initializer is changed.
    """

    ckpt_file = _get_checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)._reader
    if hasattr(assignment_map, "items"):
        assignment_map = assignment_map.items()
    store_vars = _store().vars
    plan = []
    for tensor_name_in_ckpt, current in sorted(assignment_map, key=lambda pair: pair[0]):
        var = _as_parts(current)
        if var is None:
            var = current if _is_variable(current) else _store_variable(current, store_vars)
        if var is None:
            plan += _scope_assignments(tensor_name_in_ckpt, current, store_vars,
                                       ckpt_dir_or_file, reader)
            continue
        if tensor_name_in_ckpt not in reader:
            raise _missing_tensor(tensor_name_in_ckpt, ckpt_dir_or_file, reader)
        plan.append((var, tensor_name_in_ckpt))
    for var, tensor_name in plan:
        _check_variable(var, tensor_name, reader, ckpt_dir_or_file)
    reader.close()
    for var, tensor_name in plan:
        _set_variable_or_list_initializer(var, ckpt_file, tensor_name)
        _log.debug("Initialize variable %s from checkpoint %s with %s",
                   ",".join(v.name for v in var) if isinstance(var, list) else var.name,
                   ckpt_dir_or_file, tensor_name)



# ── checkpoints_iterator ─────────────────────────────────────────────────────────────

def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None):
    """Polls ``checkpoint_dir`` until its newest checkpoint differs from
    ``last_checkpoint``; returns that prefix, or None once ``timeout`` seconds would pass
    before the next poll (TF's rule, so a short timeout may return without sleeping)."""
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            _log.info("Found new checkpoint at %s", path)
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint prefix of ``checkpoint_dir`` as it appears (for an
    evaluation loop beside a training job).

    At least ``min_interval_secs`` pass between two yields (measured from the previous
    yield, so slow consumers are not delayed further). When no new checkpoint comes within
    ``timeout`` seconds the iterator ends, unless ``timeout_fn`` is given: then it is
    called and the iterator ends only if it returns True, else waiting resumes.
    """
    checkpoint_path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path is None:
            if not timeout_fn:
                _log.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_path
        yield checkpoint_path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)
