"""The ``checkpoint`` state file and checkpoint paths (``tf.train.latest_checkpoint`` ...).

A checkpoint directory holds one text file, ``checkpoint`` by default, in TensorFlow's
text format of the ``CheckpointState`` message::

    model_checkpoint_path: "model-5"
    all_model_checkpoint_paths: "model-3"
    all_model_checkpoint_paths: "model-4"
    all_model_checkpoint_paths: "model-5"

Differences from TensorFlow 1, both on the safe side:

* The file is replaced atomically (a temporary file in the same directory, flushed and
  fsynced, then renamed over the old one, then the directory fsynced), so a reader or a
  crash never sees half a file.
* Paths of checkpoints inside the directory are written **relative** to it, even when the
  directory was given as an absolute path (TF1 then writes absolute paths unless
  ``save_relative_paths=True``). A moved or copied directory therefore still works. Readers
  resolve relative entries against the directory, exactly as TF does, so both kinds of
  file read the same way in both libraries.
"""

from __future__ import annotations

import glob
import logging
import os
import re

from google.protobuf import text_format

from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.io.protos import CheckpointState

__all__ = [
    "CheckpointState", "generate_checkpoint_state_proto", "update_checkpoint_state",
    "update_checkpoint_state_internal", "get_checkpoint_state", "latest_checkpoint",
    "checkpoint_exists", "checkpoint_exists_internal", "get_checkpoint_mtimes",
    "remove_checkpoint", "meta_graph_filename",
]

_log = logging.getLogger("scopeflow.train")

LATEST_FILENAME = "checkpoint"
V1, V2 = 1, 2  # SaverDef.CheckpointFormatVersion values


def _state_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or LATEST_FILENAME)


def _is_glob_match(path: str) -> bool:
    """TF's ``get_matching_files(path)`` is non-empty (a literal path also matches)."""
    return os.path.exists(path) or bool(glob.glob(path))


# ── the state proto ──────────────────────────────────────────────────────────────────
def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """Builds a ``CheckpointState`` as TF: the newest path is appended if not last.

    When ``save_dir`` is relative, relative paths are rewritten relative to it (as TF), so
    ``generate_checkpoint_state_proto('ckpt', 'ckpt/model-5')`` stores ``model-5``.

    >>> print(generate_checkpoint_state_proto('ckpt', 'ckpt/model-5'), end='')
    model_checkpoint_path: "model-5"
    all_model_checkpoint_paths: "model-5"
    """
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        _log.info("%s is not in all_model_checkpoint_paths. Manually adding it.",
                  model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and \
            len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got "
            f"paths {paths} and timestamps {all_model_checkpoint_timestamps})")
    save_dir = os.fspath(save_dir)
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(model_checkpoint_path=model_checkpoint_path,
                           all_model_checkpoint_paths=paths,
                           all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
                           last_preserved_timestamp=last_preserved_timestamp)


def _relative_to(path: str, save_dir: str, always: bool) -> str:
    """``path`` relative to ``save_dir`` when it lies inside it (or always, as TF's flag)."""
    if not os.path.isabs(path):
        return path
    rel = os.path.relpath(path, os.path.abspath(save_dir or "."))
    if always or not (rel == os.pardir or rel.startswith(os.pardir + os.sep)):
        return rel
    return path


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    """Writes the state file ``save_dir/latest_filename`` atomically.

    Checkpoints inside ``save_dir`` are written relative to it whatever
    ``save_relative_paths`` says (scopeflow's default; TF1 writes absolute paths when
    ``save_dir`` is absolute); ``save_relative_paths=True`` also relativizes paths outside
    it, as TF does.
    """
    save_dir = os.fspath(save_dir)
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    model_checkpoint_path = _relative_to(model_checkpoint_path, save_dir, save_relative_paths)
    paths = [_relative_to(p, save_dir, save_relative_paths) for p in paths]
    ckpt = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    state_file = _state_filename(save_dir, latest_filename)
    if state_file == ckpt.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           "checkpoint state.  Please use a different save path.")
    atomic_write_bytes(state_file, text_format.MessageToString(ckpt).encode("utf-8"))


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Updates the content of the ``checkpoint`` state file (atomically).

    Args:
      save_dir: directory where the state file lives.
      model_checkpoint_path: the newest checkpoint prefix.
      all_model_checkpoint_paths: all live checkpoints, oldest first (the newest is
        appended when it is not last).
      latest_filename: name of the state file (default ``checkpoint``).
      all_model_checkpoint_timestamps, last_preserved_timestamp: optional seconds, as
        ``tf.train.CheckpointManager`` writes them.
    """
    update_checkpoint_state_internal(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths, latest_filename,
        save_relative_paths=False,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """Reads the ``checkpoint`` state file of a directory; None when there is none.

    Relative paths in the file are joined onto ``checkpoint_dir``; absolute ones are kept.
    A file that cannot be read or parsed is ignored with a warning (None), as in TF; a
    file without ``model_checkpoint_path`` raises ``ValueError``.
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state_file = _state_filename(checkpoint_dir, latest_filename)
    try:
        if not os.path.isfile(state_file):
            return None
        with open(state_file, encoding="utf-8") as f:
            content = f.read()
        ckpt = CheckpointState()
        text_format.Merge(content, ckpt)
    except (OSError, UnicodeDecodeError, text_format.ParseError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", state_file)
        return None
    if not ckpt.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(ckpt.model_checkpoint_path):
        ckpt.model_checkpoint_path = os.path.join(checkpoint_dir, ckpt.model_checkpoint_path)
    for i, p in enumerate(ckpt.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            ckpt.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return ckpt


def _prefix_to_checkpoint_path(prefix, format_version=V2):
    return prefix + ".index" if format_version == V2 else prefix


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in ``checkpoint_dir``, or None.

    None also when the state file names a checkpoint whose ``.index`` is missing (as TF;
    scopeflow's Saver never leaves that state behind: the state file is written last).
    """
    ckpt = get_checkpoint_state(checkpoint_dir, latest_filename)
    if ckpt and ckpt.model_checkpoint_path:
        path = ckpt.model_checkpoint_path
        if _is_glob_match(_prefix_to_checkpoint_path(path, V2)) or \
                _is_glob_match(_prefix_to_checkpoint_path(path, V1)):
            return path
        _log.error("Couldn't match files for checkpoint %s", path)
    return None


def checkpoint_exists_internal(checkpoint_prefix) -> bool:
    """Whether a V2 (``<prefix>.index``) or V1 (the prefix itself) checkpoint exists."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    return _is_glob_match(_prefix_to_checkpoint_path(checkpoint_prefix, V2)) or \
        _is_glob_match(checkpoint_prefix)


def checkpoint_exists(checkpoint_prefix) -> bool:
    """Whether a checkpoint with this prefix exists (TF: deprecated but still used)."""
    return checkpoint_exists_internal(checkpoint_prefix)


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """Modification times (seconds) of the checkpoints' ``.index`` files, skipping missing."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        prefix = os.fspath(prefix)
        for pattern in (_prefix_to_checkpoint_path(prefix, V2), prefix):
            names = sorted(glob.glob(pattern)) or ([pattern] if os.path.exists(pattern) else [])
            if names:
                mtimes.append(os.stat(names[0]).st_mtime_ns / 1e9)
                break
    return mtimes


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta") -> str:
    """``model-5`` -> ``model-5.meta`` (a sharded V1 ``-?????-of-N`` tail is dropped)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", os.fspath(checkpoint_filename))
    return ".".join([basename, meta_graph_suffix])


def _delete_matching(pattern, deleted):
    for name in glob.glob(pattern) or ([pattern] if os.path.exists(pattern) else []):
        try:
            os.remove(name)
            deleted.append(name)
        except FileNotFoundError:
            pass  # a concurrent cleaner got there first


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=V2, meta_graph_suffix="meta"):
    """Deletes a checkpoint's files: ``.meta``, ``.index`` and ``.data-?????-of-?????``.

    The ``.index`` goes first after the meta graph, so a reader that races the deletion
    sees "no checkpoint" rather than an index pointing at missing data. Returns the list
    of deleted files (TF returns None).
    """
    prefix = os.fspath(checkpoint_prefix)
    deleted: list[str] = []
    _delete_matching(meta_graph_filename(prefix, meta_graph_suffix), deleted)
    if checkpoint_format_version == V2:
        _delete_matching(prefix + ".index", deleted)
        _delete_matching(prefix + ".data-?????-of-?????", deleted)
    else:
        _delete_matching(prefix, deleted)
    if deleted:
        _log.info("Deleted checkpoint %s (%d files)", prefix, len(deleted))
    return deleted
