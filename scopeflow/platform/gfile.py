"""``tf.gfile`` and ``tf.io.gfile``: TF's file API on the local file system.

``GFile`` (also ``Open`` and ``FastGFile``) opens its file on first use, as TF's ``FileIO``
does, reads ``str`` in text modes and ``bytes`` in binary ones, and writes either. Every
failure is TF's error class with TF's message: a missing file is
``tf.errors.NotFoundError("<path>; No such file or directory")``, an existing target of a
non-overwriting copy ``AlreadyExistsError``, and so on.
"""

from __future__ import annotations

import contextlib
import errno
import glob as _glob
import os
import shutil

from scopeflow.compat import as_bytes
from scopeflow.framework import errors
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["get_registered_schemes", "GFile", "Open", "FastGFile", "Exists", "MakeDirs",
           "MkDir", "Glob",
           "ListDirectory", "Remove", "Copy", "Rename", "IsDirectory", "DeleteRecursively",
           "Stat", "Walk", "FileStatistics",
           # tf.io.gfile's names
           "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir", "remove",
           "rename", "rmtree", "stat", "walk"]

_MESSAGES = {errno.ENOENT: "No such file or directory", errno.EEXIST: "File exists",
             errno.ENOTDIR: "Not a directory", errno.EISDIR: "Is a directory",
             errno.EACCES: "Permission denied", errno.ENOTEMPTY: "Directory not empty"}
_CLASSES = {errno.ENOENT: errors.NotFoundError, errno.ENOTDIR: errors.FailedPreconditionError,
            errno.EEXIST: errors.AlreadyExistsError, errno.EISDIR: errors.FailedPreconditionError,
            errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
            errno.ENOTEMPTY: errors.FailedPreconditionError}


def _path(name) -> str:
    name = os.fspath(name)
    return name.decode("utf-8") if isinstance(name, bytes) else name


def _error(e: OSError, path) -> errors.OpError:
    """``e`` as TF's POSIX file system reports it: ``<path>; <strerror>``."""
    cls = _CLASSES.get(e.errno, errors.UnknownError)
    return cls(None, None, f"{path}; {_MESSAGES.get(e.errno, e.strerror or str(e))}")


class GFile:
    """A file of the local file system with TF's ``FileIO`` behaviour: ``mode`` is ``r``,
    ``w``, ``a``, ``r+``, ``w+`` or ``a+`` (``b`` for bytes), and the file is opened when
    first read or written."""

    def __init__(self, name, mode="r"):
        self.__name = _path(name)
        self.__mode = mode
        self._binary = "b" in mode
        base = mode.replace("b", "")
        if base not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._read_check_passed = base in ("r", "r+", "a+", "w+")
        self._write_check_passed = base in ("a", "w", "r+", "a+", "w+")
        self._file = None

    @property
    def name(self):
        return self.__name

    @property
    def mode(self):
        return self.__mode

    def _open(self):
        if self._file is None:
            mode = self.__mode.replace("b", "") + "b"
            try:
                self._file = open(self.__name, mode)  # noqa: SIM115 - closed by close()
            except OSError as e:
                raise _error(e, self.__name) from None
        return self._file

    def _prereadline_check(self):
        if not self._read_check_passed:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._open()

    def _prewrite_check(self):
        if not self._write_check_passed:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        return self._open()

    def _decode(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's length in bytes."""
        return stat(self.__name).length

    def write(self, file_content):
        """Writes ``file_content`` (``str``, written UTF-8, or ``bytes``)."""
        self._prewrite_check().write(as_bytes(file_content))

    def read(self, n=-1):
        """``n`` bytes (or characters' bytes) from the position; all that is left for -1."""
        data = self._prereadline_check().read(-1 if n is None else n)
        return self._decode(data)

    def seek(self, offset=None, whence=0, position=None):
        """Moves to ``offset`` (``position`` is its old name) relative to ``whence``."""
        f = self._prereadline_check()
        if position is not None:
            if offset is not None:
                raise ValueError("Cannot specify both offset and position")
            offset = position
        f.seek(offset or 0, whence)

    def readline(self):
        return self._decode(self._prereadline_check().readline())

    def readlines(self):
        return [self._decode(line) for line in self._prereadline_check().readlines()]

    def tell(self) -> int:
        if self._file is None:
            self._prereadline_check() if self._read_check_passed else self._open()
        return self._file.tell()

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__

    def flush(self):
        if self._file is not None and self._write_check_passed:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def seekable(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


Open = GFile
FastGFile = GFile


class FileStatistics:
    """What ``Stat`` returns: ``length`` (bytes), ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


@contextlib.contextmanager
def _reported(path):
    """An ``OSError`` inside is raised as TF's ``OpError`` for ``path`` (see ``_error``)."""
    try:
        yield
    except OSError as e:
        raise _error(e, path) from None


def _source_and_target(old, new, overwrite):
    """Copy's and Rename's paths; an existing target is ``AlreadyExistsError`` unless
    ``overwrite``."""
    src, dst = _path(old), _path(new)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    return src, dst


def Exists(filename) -> bool:  # noqa: N802 - TF's name
    """Whether the file or directory exists."""
    return os.path.exists(_path(filename))


def IsDirectory(dirname) -> bool:  # noqa: N802
    return os.path.isdir(_path(dirname))


def MakeDirs(dirname):  # noqa: N802
    """Creates the directory and its missing parents; an existing directory is fine."""
    path = _path(dirname)
    with _reported(path):
        os.makedirs(path, exist_ok=True)


def MkDir(dirname):  # noqa: N802
    """Creates one directory (its parent must exist); an existing directory is fine."""
    path = _path(dirname)
    if os.path.isdir(path):
        return
    with _reported(path):
        os.mkdir(path)


def ListDirectory(dirname):  # noqa: N802
    """The names in the directory (not ``.`` or ``..``), in no set order."""
    path = _path(dirname)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    with _reported(path):
        return os.listdir(path)


def Glob(filename):  # noqa: N802
    """The paths matching a pattern (or any of a list of patterns)."""
    patterns = [filename] if isinstance(filename, (str, bytes, os.PathLike)) else filename
    out = []
    for pattern in patterns:
        out.extend(_glob.glob(_path(pattern)))
    return out


def Remove(filename):  # noqa: N802
    """Deletes a file."""
    path = _path(filename)
    with _reported(path):
        if os.path.isdir(path):
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        os.remove(path)


def DeleteRecursively(dirname):  # noqa: N802
    """Deletes a directory and all it holds (or a single file)."""
    path = _path(dirname)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError as e:
        raise _error(e, getattr(e, "filename", None) or path) from None


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    """Copies a file; an existing ``newpath`` is ``AlreadyExistsError`` unless
    ``overwrite``."""
    src, dst = _source_and_target(oldpath, newpath, overwrite)
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise _error(e, e.filename if e.filename == dst else src) from None


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    """Renames a file or directory; an existing ``newname`` is ``AlreadyExistsError``
    unless ``overwrite``."""
    src, dst = _source_and_target(oldname, newname, overwrite)
    with _reported(src):
        os.replace(src, dst)


def Stat(filename) -> FileStatistics:  # noqa: N802
    """The file's ``FileStatistics``."""
    path = _path(filename)
    with _reported(path):
        st = os.stat(path)
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def Walk(top, in_order=True):  # noqa: N802
    """Yields ``(dirname, subdirectory names, file names)`` for ``top`` and each directory
    below it: parents first when ``in_order``, else children first."""
    top = _path(top)
    try:
        names = os.listdir(top)
    except OSError:
        return
    dirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in set(dirs)]
    here = (top, dirs, files)
    if in_order:
        yield here
    for d in dirs:
        yield from Walk(os.path.join(top, d), in_order)
    if not in_order:
        yield here


# tf.io.gfile: the same operations under TF2's names.
copy = Copy
exists = Exists
glob = Glob
isdir = IsDirectory
listdir = ListDirectory
makedirs = MakeDirs
mkdir = MkDir
remove = Remove
rename = Rename
rmtree = DeleteRecursively
stat = Stat
walk = Walk


def join(path, *paths):
    """The paths joined with ``/`` (TF's ``tf.io.gfile.join``)."""
    return os.path.join(_path(path), *(_path(p) for p in paths))


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)


def get_registered_schemes() -> list:
    """The URI schemes gfile opens: plain paths and ``file://`` (scopeflow reads the local
    file system only; TF adds ``ram`` and ``gs``)."""
    return ["file", ""]
