"""TF1 programs unmodified: ``import tensorflow`` (and every ``tensorflow.X``) is scopeflow.

``scopeflow run prog.py`` and :func:`install_as_tensorflow` put an :class:`AliasFinder`
first on ``sys.meta_path``. It maps module names, nothing else: ``tensorflow`` is the module
``scopeflow``, ``tensorflow.X.Y`` is ``scopeflow.X.Y`` (the same module objects, so
``tensorflow.nn is scopeflow.nn`` and ``tensorflow.compat.v1 is scopeflow``), and
``tensorflow.examples.tutorials.mnist`` is ``scopeflow.examples.tutorials.mnist``. A name
scopeflow has no module for fails as ``No module named 'tensorflow.X'``, saying which
scopeflow module was looked for (and why, for what scopeflow does not plan to have).

``horovod.tensorflow`` is :mod:`scopeflow.distributed.horovod` (Horovod's TF1 API on
``scopeflow.distributed``), under a ``horovod`` package of its own that holds nothing else.

This module imports scopeflow's modules only by name, when an aliased import asks for them:
importing it is cheap, and it sits below the modules it aliases.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

from scopeflow.framework.api_fallback import not_planned_reason

__all__ = ["ALIASES", "AliasFinder", "install", "uninstall", "installed", "target_name",
           "real_module_installed", "install_as_tensorflow"]

# alias prefix -> the scopeflow module it names (a longer prefix wins).
ALIASES = {
    "tensorflow": "scopeflow",
    "horovod.tensorflow": "scopeflow.distributed.horovod",
}
# Parents of aliased packages that scopeflow has no module for: made empty.
_SYNTHETIC = {
    "horovod": "Horovod's package as scopeflow provides it: only horovod.tensorflow "
               "(scopeflow.distributed.horovod) is there.",
}


def target_name(fullname: str, aliases=None) -> str | None:
    """The scopeflow module ``fullname`` stands for (``tensorflow.nn`` -> ``scopeflow.nn``),
    or ``None`` when it is not aliased."""
    best = None
    for alias in (ALIASES if aliases is None else aliases):
        if (fullname == alias or fullname.startswith(alias + ".")) and (
                best is None or len(alias) > len(best)):
            best = alias
    return None if best is None else ALIASES[best] + fullname[len(best):]


def module_not_planned_reason(fullname: str) -> str | None:
    """Why scopeflow will not have the TF module ``fullname`` (``tensorflow.X``, also under
    ``compat.v1``), or None when it is not one scopeflow rules out."""
    if not fullname.startswith("tensorflow."):
        return None
    path = fullname[len("tensorflow."):]
    if path.startswith("compat.v1."):
        path = path[len("compat.v1."):]
    return not_planned_reason(path)


def _missing_module(fullname: str, target: str) -> ModuleNotFoundError:
    message = f"No module named {fullname!r} (scopeflow stands in for it, and has no {target})"
    reason = module_not_planned_reason(fullname)
    if reason is not None:
        message += f"; scopeflow does not plan to have it: {reason}"
    elif fullname.startswith("horovod."):
        message += "; under scopeflow only horovod.tensorflow is available"
    return ModuleNotFoundError(message, name=fullname)


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``tensorflow[.X]`` (and ``horovod``, ``horovod.tensorflow[.X]`` when
    ``horovod`` is true) as scopeflow's modules."""

    def __init__(self, horovod: bool = True):
        self.aliases = {a: t for a, t in ALIASES.items()
                        if horovod or not a.startswith("horovod")}
        self.synthetic = {n: d for n, d in _SYNTHETIC.items()
                          if horovod or n != "horovod"}

    def covers(self, fullname: str) -> bool:
        return fullname in self.synthetic or any(
            fullname == p or fullname.startswith(p + ".")
            for p in (*self.aliases, *self.synthetic))

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.synthetic:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        if not self.covers(fullname):
            return None
        real = target_name(fullname, self.aliases)
        if real is None:  # under a synthetic package, not aliased (horovod.torch)
            raise _missing_module(fullname, "such module")
        try:
            importlib.import_module(real)
        except ModuleNotFoundError as e:
            # scopeflow lacks the module itself (or a package above it); anything else is
            # a genuine failure inside an existing module, and goes up as it is.
            if e.name is not None and (real == e.name or real.startswith(e.name + ".")):
                raise _missing_module(fullname, real) from None
            raise
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.loader_state = real
        return spec

    def create_module(self, spec):
        if spec.loader_state is None:  # a synthetic package
            return None
        module = sys.modules[spec.loader_state]
        # The import system sets __spec__ on the module it gets: keep scopeflow's own.
        spec.loader_state = (spec.loader_state, getattr(module, "__spec__", None))
        return module

    def exec_module(self, module):
        spec = module.__spec__
        if spec.loader_state is None:
            module.__doc__ = self.synthetic[spec.name]
            module.__path__ = []
            return
        _, own_spec = spec.loader_state
        module.__spec__ = own_spec


def installed() -> AliasFinder | None:
    """The finder on ``sys.meta_path``, if one is."""
    for finder in sys.meta_path:
        if isinstance(finder, AliasFinder):
            return finder
    return None


def install(horovod: bool = True) -> AliasFinder:
    """Puts an :class:`AliasFinder` first on ``sys.meta_path`` (once): from now on
    ``import tensorflow...`` gives scopeflow's modules, shadowing a real TensorFlow.
    ``horovod``: alias ``horovod`` and ``horovod.tensorflow`` too."""
    finder = installed()
    if finder is not None:
        if horovod and "horovod.tensorflow" not in finder.aliases:
            uninstall()
        else:
            return finder
    finder = AliasFinder(horovod=horovod)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall() -> None:
    """Removes the finder and forgets the aliased modules (``sys.modules['tensorflow']``
    and the others that are scopeflow's); scopeflow's own entries stay."""
    finder = installed()
    while finder is not None:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if finder.covers(n)]:
            module = sys.modules[name]
            spec = getattr(module, "__spec__", None)
            ours = name in finder.synthetic or (spec is not None and spec.name != name)
            if ours:
                del sys.modules[name]
        finder = installed()


def real_module_installed(name: str) -> str | None:
    """Where a real (not aliased) module ``name`` would be imported from, or ``None``: what
    ``importlib.util.find_spec`` finds with the alias finder left out."""
    module = sys.modules.get(name)
    if module is not None:
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.name == name and not isinstance(spec.loader, AliasFinder):
            return spec.origin or name
        return None
    for finder in sys.meta_path:
        if isinstance(finder, AliasFinder):
            continue
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            spec = find_spec(name, None)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            origin = spec.origin
            if origin in (None, "namespace"):
                locations = spec.submodule_search_locations
                origin = next(iter(locations), name) if locations else name
            return origin
    return None


def install_as_tensorflow(force: bool = False, horovod: bool | None = None) -> None:
    """Makes ``import tensorflow`` (and ``tensorflow.compat.v1``, ``tensorflow.X``...) give
    scopeflow in this interpreter, as ``scopeflow run`` does for a program: for a notebook,
    or a library written for TF1.

    Refuses (``RuntimeError``) when a real TensorFlow is installed, since it would hide it,
    unless ``force=True``; with ``force``, real TensorFlow modules already imported are
    dropped from ``sys.modules`` (objects made from them keep using them).

    ``horovod``: alias ``horovod.tensorflow`` to :mod:`scopeflow.distributed.horovod`
    too; by default only when no real Horovod is installed (``True`` always).

    >>> import scopeflow
    >>> scopeflow.compat.tensorflow_alias.install_as_tensorflow()  # doctest: +SKIP
    >>> import tensorflow.compat.v1 as tf  # doctest: +SKIP
    >>> tf is scopeflow  # doctest: +SKIP
    True
    """
    real = real_module_installed("tensorflow")
    if real is not None and not force:
        raise RuntimeError(
            f"a real TensorFlow is installed ({real}): install_as_tensorflow() would hide "
            "it from `import tensorflow` in this interpreter. Use `import scopeflow as tf` "
            "(or `scopeflow run prog.py`, which runs a program on scopeflow), or call "
            "install_as_tensorflow(force=True) to alias it anyway.")
    if horovod is None:
        horovod = force or real_module_installed("horovod") is None
    if real is not None:
        for name in [n for n in sys.modules if n == "tensorflow" or n.startswith("tensorflow.")]:
            del sys.modules[name]
    if horovod:
        for name in [n for n in sys.modules if n == "horovod" or n.startswith("horovod.")]:
            module = sys.modules[name]
            if not isinstance(getattr(module, "__loader__", None), AliasFinder):
                del sys.modules[name]
    install(horovod=bool(horovod))
    importlib.import_module("tensorflow")
