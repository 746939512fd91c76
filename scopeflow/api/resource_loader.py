"""``tf.resource_loader``: paths of data files next to the calling script, as TF finds
them outside a Bazel build (relative to the caller's directory)."""

import inspect as _inspect
import os as _os
import sys as _sys

from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]


def _caller_dir(depth: int) -> str:
    return _os.path.dirname(_inspect.getfile(_sys._getframe(depth + 1)))


def get_data_files_path() -> str:
    """The directory of the calling script."""
    return _caller_dir(1)


def get_root_dir_with_all_resources() -> str:
    """The directory above the nearest ``*.runfiles`` directory (Bazel), else the caller's
    directory."""
    directories = [_caller_dir(1)]
    while True:
        current = directories[-1]
        if ".runfiles" in _os.path.basename(current):
            return directories[-2] if len(directories) > 1 else directories[0]
        parent = _os.path.dirname(current)
        if parent == current:
            return directories[0]
        directories.append(parent)


def get_path_to_datafile(path) -> str:
    """``path`` joined to the calling script's directory."""
    return _os.path.join(_caller_dir(1), path)


def load_resource(path) -> bytes:
    """The bytes of ``path`` (relative to this module's directory, as TF's is relative to
    its own)."""
    with open(_os.path.join(_os.path.dirname(__file__), path), "rb") as f:
        return f.read()


def readahead_file_path(path, readahead="128M"):
    """``path`` unchanged (TF implements no readahead either)."""
    return path


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
