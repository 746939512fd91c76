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
* A damaged state file never raises: an empty file, binary garbage, a file that is not
  UTF-8 or not a ``CheckpointState`` make ``get_checkpoint_state`` log a warning and return
  None (TF 2.21 raises ``ValueError`` for an empty file and ``UnicodeDecodeError`` for
  binary garbage). :func:`find_complete_checkpoints` then finds the intact checkpoints on
  disk without the state file, and :func:`remove_stale_temporaries` clears what a killed
  save left behind.
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
import time

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from scopeflow.framework import errors
from scopeflow.io import protos, sstable
from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.io.protos import CheckpointState
from scopeflow.io.tensor_bundle import data_filename, index_filename

__all__ = [
    "CheckpointState", "generate_checkpoint_state_proto", "update_checkpoint_state",
    "update_checkpoint_state_internal", "get_checkpoint_state", "latest_checkpoint",
    "checkpoint_exists", "checkpoint_exists_internal", "get_checkpoint_mtimes",
    "remove_checkpoint", "meta_graph_filename", "find_complete_checkpoints",
    "remove_stale_temporaries",
]

_log = logging.getLogger("scopeflow.train")

LATEST_FILENAME = "checkpoint"
# A state file lists checkpoint paths, a few hundred bytes each: anything this large is
# damage (or not a state file), and is refused before it is read into memory.
_MAX_STATE_FILE_BYTES = 64 << 20
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
    A file that cannot be read or parsed is ignored with a warning (None), as in TF; so
    is a damaged one that TF would raise on (empty, binary garbage, not UTF-8, over 64
    MiB). A file that parses but lacks ``model_checkpoint_path`` raises ``ValueError`` as
    in TF (a crash cannot leave one: the path is the first line written).
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    state_file = _state_filename(checkpoint_dir, latest_filename)
    try:
        if not os.path.isfile(state_file):
            return None
        with open(state_file, "rb") as f:
            raw = f.read(_MAX_STATE_FILE_BYTES + 1)
        if len(raw) > _MAX_STATE_FILE_BYTES:
            raise ValueError(f"the file is larger than {_MAX_STATE_FILE_BYTES} bytes, far "
                             "more than any checkpoint state")
        content = raw.decode("utf-8")
        if not content.strip():
            # What a crash leaves from a writer that truncates before writing (not ours:
            # ours renames a complete file into place). TF raises ValueError here.
            raise ValueError("the file is empty")
        ckpt = CheckpointState()
        text_format.Merge(content, ckpt)
    except (OSError, UnicodeDecodeError, ValueError, text_format.ParseError) as e:
        # ValueError: the two cases above, and what protobuf raises for some malformed
        # text besides its ParseError.
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


# ── recovery: intact checkpoints without the state file, leftovers of killed saves ──────
_STEP_SUFFIX = re.compile(r"-(\d+)$")


def _complete_checkpoint(prefix: str) -> bool:
    """Whether ``prefix`` is a V2 checkpoint whose index parses and whose data shards all
    exist and hold every byte the index points at."""
    try:
        with open(index_filename(prefix), "rb") as f:
            entries = sstable.parse_table(f.read(), index_filename(prefix))
        if not entries or entries[0][0] != b"":
            return False
        header = protos.BundleHeaderProto.FromString(entries[0][1])
        shards = header.num_shards
        if not 1 <= shards <= 99999:    # the file names have five digits
            return False
        sizes = [os.path.getsize(data_filename(prefix, i, shards)) for i in range(shards)]
        for _, value in entries[1:]:
            entry = protos.BundleEntryProto.FromString(value)
            if entry.slices:             # a partitioned variable's entry: no data of its own
                continue
            if not 0 <= entry.shard_id < shards or \
                    entry.offset + entry.size > sizes[entry.shard_id]:
                return False
    except (OSError, ValueError, errors.OpError, DecodeError):
        return False
    return True


def find_complete_checkpoints(checkpoint_dir) -> list:
    """Prefixes of the complete V2 checkpoints in ``checkpoint_dir``, newest first.

    A checkpoint is complete when its ``.index`` parses (every block's checksum, the
    bundle header, each entry) and every ``.data`` shard it names exists and is long
    enough for the tensors the index places in it; the tensors' own checksums are not
    read (that is a full restore's job). Newest first: by the global step in the prefix
    (``model.ckpt-1200``), then by the index's modification time; prefixes without a
    step come after those with one. Use it when the ``checkpoint`` state file is missing
    or damaged (``latest_checkpoint`` returns None) to restore from the newest intact
    checkpoint on disk.

    >>> import tempfile
    >>> from scopeflow.io.tensor_bundle import write_bundle
    >>> d = tempfile.mkdtemp()
    >>> for step in (5, 10):
    ...     write_bundle(os.path.join(d, f"model-{step}"), ["w"], [np.zeros(2)])
    >>> open(os.path.join(d, "model-10.data-00000-of-00001"), "wb").close()  # truncated
    >>> [os.path.basename(p) for p in find_complete_checkpoints(d)]
    ['model-5']
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    try:
        names = os.listdir(checkpoint_dir)
    except OSError:
        return []
    found = []
    for name in names:
        if not name.endswith(".index"):
            continue
        prefix = os.path.join(checkpoint_dir, name[:-len(".index")])
        if not _complete_checkpoint(prefix):
            continue
        match = _STEP_SUFFIX.search(prefix)
        try:
            mtime = os.stat(prefix + ".index").st_mtime_ns
        except OSError:
            continue
        found.append((match is not None, int(match.group(1)) if match else 0, mtime, prefix))
    found.sort(reverse=True)
    return [prefix for *_, prefix in found]


# The temporary names our own writers use, and nothing else:
# scopeflow.io.atomic.atomic_file: "<name>.tmp<uuid4 hex>" (the state file, merged indexes);
# scopeflow.io.tensor_bundle._temp_name: "<file>.tempstate<decimal>" (bundle files, and the
# hard-link backup of a data file being replaced); a sharded save's parts
# "<prefix>_temp/part-NNNNN-of-NNNNN.{index,data-...}" before the merge.
_ATOMIC_TEMP = re.compile(r"\.tmp[0-9a-f]{32}$")
_BUNDLE_TEMP = re.compile(r"\.(index|data-\d{5}-of-\d{5})\.tempstate\d+$")
_SHARD_PART = re.compile(r"^part-\d{5}-of-\d{5}\.(index|data-\d{5}-of-\d{5})"
                         r"(\.tempstate\d+|\.tmp[0-9a-f]{32})?$")


def remove_stale_temporaries(checkpoint_dir, min_age_s: float = 0.0) -> list:
    """Deletes the temporary files that killed saves left in ``checkpoint_dir``.

    Only the names scopeflow's own writers give their temporaries are touched:
    ``<name>.tmp<32 hex digits>`` (atomically replaced files such as the ``checkpoint``
    state file), ``<prefix>.index.tempstate<N>`` and ``<prefix>.data-*.tempstate<N>``
    (checkpoint bundle files), and the ``part-*`` files of a sharded save in a
    ``<prefix>_temp`` subdirectory (removed when it is left empty). Finished checkpoints,
    the state file, event files and anything else are never deleted.

    A save in progress has the same temporaries: call this when no other process is saving
    to the directory (at start-up, before the first save), or pass ``min_age_s`` to keep
    files modified less than that many seconds ago. Returns the deleted paths.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name in ("checkpoint.tmp" + "0" * 32, "model-5.index.tempstate123", "model-5.index"):
    ...     open(os.path.join(d, name), "w").close()
    >>> [os.path.basename(p) for p in remove_stale_temporaries(d)]
    ['checkpoint.tmp00000000000000000000000000000000', 'model-5.index.tempstate123']
    >>> sorted(os.listdir(d))
    ['model-5.index']
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    deadline = time.time() - min_age_s
    deleted = []

    def remove(path):
        try:
            if min_age_s and os.lstat(path).st_mtime > deadline:
                return
            os.remove(path)
        except OSError:
            return  # gone already (a concurrent cleaner), or not ours to remove
        deleted.append(path)
        _log.info("Removed %s, left by an interrupted save", path)

    try:
        names = sorted(os.listdir(checkpoint_dir))
    except OSError:
        return deleted
    for name in names:
        path = os.path.join(checkpoint_dir, name)
        if name.endswith("_temp") and os.path.isdir(path) and not os.path.islink(path):
            _remove_shard_parts(path, remove)
        elif (_ATOMIC_TEMP.search(name) or _BUNDLE_TEMP.search(name)) and \
                os.path.isfile(path) and not os.path.islink(path):
            remove(path)
    return deleted


def _remove_shard_parts(temp_dir, remove):
    """``remove`` each ``part-*`` file of a sharded save's ``<prefix>_temp`` directory,
    then the directory if that left it empty."""
    for part in sorted(os.listdir(temp_dir)):
        if _SHARD_PART.match(part) and os.path.isfile(os.path.join(temp_dir, part)):
            remove(os.path.join(temp_dir, part))
    try:
        os.rmdir(temp_dir)    # only when empty: a stranger's files keep it
    except OSError:
        pass
