"""What checkpoint housekeeping may delete: a Saver's own files, in its own directory.

TF1's ``Saver`` deletes whatever the ``checkpoint`` state file lists once ``max_to_keep``
rotates it out, wherever it points: a state file copied with its run directory (absolute
paths of the original run), hand-edited, or hostile (``../`` or ``/home/...``) makes a
resumed job delete files outside its directory. scopeflow deletes a checkpoint only when

* it lies in a directory this Saver has written a checkpoint to, compared with symbolic
  links resolved (``os.path.realpath``) on both sides;
* its name is one of this Saver's checkpoint names there: the ``save_path`` it was given,
  alone or with ``-<global step>``;
* every file it has is a regular file (not a symbolic link) in that directory, named
  ``<prefix>.index``, ``<prefix>.data-NNNNN-of-NNNNN`` or ``<prefix>.<meta suffix>``
  (exact names: a prefix holding ``*`` or ``?`` matches nothing else, where TF globs).

Anything else is kept, with one warning naming it. :func:`tidy_checkpoint_dir` is the
tidy-up of a restart (the main job's and ``MonitoredTrainingSession``'s): the temporaries
a killed save left, and the checkpoints of one base name that the state file no longer
(or not yet) lists.
"""

from __future__ import annotations

import logging
import os
import re
import stat

from scopeflow.train import checkpoint_management as cm

__all__ = ["save_location", "owner_of", "checkpoint_files", "remove_own_checkpoint",
           "tidy_checkpoint_dir"]

_log = logging.getLogger("scopeflow.train")

_DATA = r"\.data-\d{5}-of-\d{5}"


def save_location(save_path) -> tuple[str, str]:
    """``(resolved directory, base name)`` of a ``Saver.save`` path: what it owns."""
    save_path = os.fspath(save_path)
    return (os.path.realpath(os.path.dirname(save_path) or os.curdir),
            os.path.basename(save_path))


def owner_of(prefix, locations) -> tuple[str, str] | None:
    """The location in ``locations`` (from :func:`save_location`) whose checkpoints
    include ``prefix``, or None."""
    prefix = os.fspath(prefix)
    directory = os.path.realpath(os.path.dirname(prefix) or os.curdir)
    name = os.path.basename(prefix)
    for where, stem in locations:
        if where == directory and re.fullmatch(re.escape(stem) + r"(-\d+)?", name):
            return where, stem
    return None


def checkpoint_files(prefix, meta_graph_suffix="meta") -> list[str]:
    """The files of checkpoint ``prefix`` that exist, meta graph and ``.index`` first (a
    reader racing a deletion then sees "no checkpoint", not an index without its data)."""
    prefix = os.fspath(prefix)
    directory = os.path.dirname(prefix) or os.curdir
    base = os.path.basename(prefix)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    first = [n for n in (f"{base}.{meta_graph_suffix}", f"{base}.index") if n in names]
    data = sorted(n for n in names if re.fullmatch(re.escape(base) + _DATA, n))
    return [os.path.join(os.path.dirname(prefix), n) for n in first + data]


def _not_regular(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False  # gone already: nothing to refuse


def remove_own_checkpoint(prefix, locations, meta_graph_suffix="meta") -> list[str]:
    """Deletes checkpoint ``prefix`` if it is one of ``locations``' own (see the module's
    rules); otherwise keeps it and logs one warning saying why. Returns what was deleted."""
    prefix = os.fspath(prefix)
    owner = owner_of(prefix, locations)
    if owner is None:
        dirs = sorted({where for where, _ in locations})
        stems = sorted({stem for _, stem in locations})
        _log.warning(
            "Not deleting checkpoint %s (max_to_keep): it is not one of this Saver's "
            "checkpoints (%s, alone or with -<step>, in %s), so it is kept. scopeflow "
            "deletes only its own checkpoint files inside the directory it saves to.",
            prefix, " or ".join(stems), " or ".join(dirs))
        return []
    files = checkpoint_files(prefix, meta_graph_suffix)
    odd = [f for f in files if _not_regular(f)]
    if odd:
        _log.warning("Not deleting checkpoint %s (max_to_keep): %s is not a regular file "
                     "(a symbolic link?), so the checkpoint is kept.", prefix, odd[0])
        return []
    deleted = []
    for path in files:
        try:
            os.remove(path)
            deleted.append(path)
        except FileNotFoundError:
            pass  # a concurrent cleaner got there first
    if deleted:
        _log.info("Deleted checkpoint %s (%d files)", prefix, len(deleted))
    return deleted


def tidy_checkpoint_dir(directory, basename="model.ckpt", listed=None,
                        meta_graph_suffix="meta") -> tuple[list[str], list[str]]:
    """A restart's tidy-up of ``directory``, before anything saves there again.

    Deletes the temporaries killed saves left (:func:`remove_stale_temporaries`), and,
    when ``listed`` (the checkpoint prefixes the state file names) is not empty, every
    checkpoint ``<basename>-<step>`` in ``directory`` it does not name: a save killed
    before its commit, or an old checkpoint whose deletion was cut short (pieces
    included). Without a state file nothing but temporaries is deleted: its checkpoints
    may be all the run has. Only regular files with those exact names are touched.
    Returns ``(temporaries deleted, checkpoint prefixes deleted)``.
    """
    directory = os.fspath(directory)
    temporaries = cm.remove_stale_temporaries(directory)
    if not listed:
        return temporaries, []
    real = os.path.realpath(directory)
    keep = {os.path.join(os.path.realpath(os.path.dirname(p) or os.curdir), os.path.basename(p))
            for p in map(os.fspath, listed)}
    pattern = re.compile(re.escape(basename) + r"-\d+(?=(\.index|" + _DATA + r"|\."
                         + re.escape(meta_graph_suffix) + r")$)")
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return temporaries, []
    stale = []
    for name in names:
        match = pattern.match(name)
        if match and os.path.join(real, match.group(0)) not in keep and \
                match.group(0) not in stale:
            stale.append(match.group(0))
    removed = []
    for name in sorted(stale, key=lambda n: int(n.rsplit("-", 1)[1])):
        prefix = os.path.join(directory, name)
        if remove_own_checkpoint(prefix, [(real, basename)], meta_graph_suffix):
            removed.append(prefix)
    return temporaries, removed
