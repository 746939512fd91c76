"""TensorFlow's internal module paths (``tensorflow.python.*``, ``tensorflow.core.*``, and
TF 1.x's ``tensorflow.contrib.*``), mapped onto scopeflow's modules by one table.

TF1 programs import TF's own module tree (``from tensorflow.python.platform import gfile``,
``from tensorflow.core.framework import graph_pb2``); with ``tensorflow`` read as
``scopeflow``, those are ``scopeflow.python.platform.gfile`` and so on. None of these
modules is a file: :data:`~scopeflow.python.module_paths.MODULE_PATHS` lists each TF path
with the scopeflow modules holding its names, and the import hook installed here makes a
module for a path when it is first imported (``import scopeflow`` imports none of them).
Such a module holds the very objects of scopeflow's modules
(``scopeflow.python.framework.ops.Graph is scopeflow.Graph``); a public name it lacks raises
:class:`~scopeflow.framework.api_fallback.APINotImplementedError` (a ``NotImplementedError``
that ``hasattr`` reads as absent) naming the TF path, and a path the table lacks raises
``ModuleNotFoundError`` naming it. docs/API.md lists the paths (``docs/gen_api.py``).
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.machinery import ModuleSpec

from scopeflow.framework.api_fallback import APINotImplementedError, not_planned_reason
from scopeflow.python.module_paths import MODULE_PATHS, NOTES

__all__ = ["MODULE_PATHS", "TFModule", "tf_path", "module_name", "is_module_path",
           "child_or_missing", "install"]

# The scopeflow packages the hook serves; ``scopeflow.contrib`` also has real modules
# (layers.py, rnn.py), which Python's own finders find first.
PREFIXES = ("scopeflow.python", "scopeflow.core", "scopeflow.contrib")


def module_name(tf_path: str) -> str:
    """``tensorflow.python.x`` -> ``scopeflow.python.x``."""
    return "scopeflow" + tf_path[len("tensorflow"):]


def tf_path(name: str) -> str:
    """``scopeflow.python.x`` -> ``tensorflow.python.x``."""
    return "tensorflow" + name[len("scopeflow"):]


_SOURCES = {module_name(path): sources for path, sources in MODULE_PATHS.items()}
_PACKAGES = {name.rsplit(".", i)[0] for name in _SOURCES for i in range(1, name.count("."))}


def _names_of(spec: str) -> dict:
    """The names one source of the table gives: ``"module"`` or ``"module: a b"``."""
    module_part, _, listed = spec.partition(":")
    module = importlib.import_module(module_part.strip())
    if listed.strip():
        return {n: getattr(module, n) for n in listed.split()}
    public = getattr(module, "__all__", None)
    if public is None:
        public = [n for n, v in vars(module).items() if not n.startswith("_") and not (
            isinstance(v, types.ModuleType) and not v.__name__.startswith("scopeflow"))]
    return {n: getattr(module, n) for n in public}


def is_module_path(name: str) -> bool:
    """Whether ``name`` (``scopeflow.contrib.slim``) is a module the table makes."""
    return name in _SOURCES or name in _PACKAGES


def child_or_missing(module_name: str, name: str, sources=()):
    """``getattr(<module_name>, name)`` for a module of the table (or a package holding
    some): the submodule the table has, else the error naming the TF path."""
    child = f"{module_name}.{name}"
    if is_module_path(child):
        return importlib.import_module(child)
    if name.startswith("_"):
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
    tf_module = tf_path(module_name)
    note = NOTES.get(tf_module)
    where = (note if note else f"scopeflow's {tf_module} holds the names of "
             + ", ".join(sources) if sources else
             f"scopeflow's {tf_module} holds none of TF's names yet")
    raise APINotImplementedError(
        f"{tf_path(child)} is not implemented by scopeflow ({where}; see docs/API.md)")


class TFModule(types.ModuleType):
    """A TF module path's stand-in: the names of its sources (the table's), and for any
    other public name ``APINotImplementedError`` naming the TF path."""

    def __getattr__(self, name):
        return child_or_missing(self.__name__, name, self.__dict__.get("__sources__", ()))


class _Loader:
    @staticmethod
    def create_module(spec):
        return TFModule(spec.name)

    @staticmethod
    def exec_module(module):
        sources = _SOURCES.get(module.__name__, ())
        names: dict = {}
        for source in reversed(sources):  # the first source wins
            names.update(_names_of(source))
        vars(module).update(names)
        module.__all__ = sorted(names)
        module.__sources__ = tuple(s.partition(":")[0].strip() for s in sources)
        module.__doc__ = f"TensorFlow's {tf_path(module.__name__)} in scopeflow (docs/API.md)."


class _Finder:
    """Finds the table's paths (appended to ``sys.meta_path``: real modules come first)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if not fullname.startswith(tuple(p + "." for p in PREFIXES)):
            return None
        if is_module_path(fullname):
            return ModuleSpec(fullname, _Loader, is_package=fullname in _PACKAGES)
        tf_name = tf_path(fullname)
        reason = not_planned_reason(tf_name.split(".", 1)[1].removeprefix("python."))
        why = f": {reason}" if reason else ""
        raise ModuleNotFoundError(
            f"No module named {tf_name!r} in scopeflow{why} (docs/API.md lists TF's module "
            "paths that scopeflow maps)", name=fullname)

    @staticmethod
    def invalidate_caches():
        pass


_FINDER = _Finder()


def install() -> None:
    """Adds the import hook once (``scopeflow.python``, ``scopeflow.core`` and
    ``scopeflow.contrib`` call it when imported)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


install()


def __getattr__(name):
    return child_or_missing(__name__, name)
