"""Atomic file replacement: a reader sees the old file or the whole new one, never a mix.

The new content goes to a temporary name in the same directory, is flushed and fsynced,
then renamed over the target, and the directory is fsynced so the rename itself survives
a crash. A crash leaves at worst a stray ``<name>.tmp<hex>`` file, never a torn target.
"""

from __future__ import annotations

import contextlib
import os
import uuid


def fsync_dir(directory: str):
    """Makes renames in ``directory`` durable (a no-op where a directory can't be opened)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_file(path: str, mode: str = "wb", *, sync: bool = True):
    """``with atomic_file(path) as f: f.write(...)`` replaces ``path`` only on success.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "state")
    >>> with atomic_file(path, "w") as f:
    ...     _ = f.write("new")
    >>> open(path).read()
    'new'
    """
    tmp = f"{path}.tmp{uuid.uuid4().hex}"
    try:
        with open(tmp, mode) as f:
            yield f
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    if sync:
        fsync_dir(os.path.dirname(path))


def atomic_write_bytes(path: str, data: bytes, *, sync: bool = True):
    """Replaces ``path`` with ``data`` atomically (see :func:`atomic_file`)."""
    with atomic_file(path, "wb", sync=sync) as f:
        f.write(data)
