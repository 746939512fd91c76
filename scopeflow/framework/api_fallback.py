"""TensorFlow 1's public API against scopeflow's: coverage, and the fallback for missing names.

``scopeflow.framework.tf1_names`` holds every public name of ``tf.compat.v1`` and of the submodules
TF1 programs use, with its kind, as recorded from real TensorFlow
(``tests/fixtures/tf1_api/``; ``docs/gen_api.py`` copies it into the package and writes
``docs/API.md`` from :func:`coverage`). That list is imported only when a lookup misses.

Each public namespace module ends with a module ``__getattr__`` that raises
:func:`missing_attribute`'s error, so a missing name gives:

- for a TF1 name scopeflow lacks, :class:`APINotImplementedError`, naming it
  (``tf.nn.ctc_loss is part of TensorFlow 1's API but scopeflow does not implement it
  yet (see docs/API.md)``), or saying why it is not planned;
- for any other name, an ``AttributeError`` (:class:`MissingAttributeError`) with Python's
  message and a "Did you mean" when a name is close, computed only when the message is
  shown.

:class:`APINotImplementedError` is both a ``NotImplementedError`` and an
``AttributeError``: ``except NotImplementedError`` catches it, while ``hasattr(tf, name)``
is ``False`` and ``getattr(tf, name, default)`` returns the default, as feature checks in
TF1 code and libraries (and pytest's and doctest's attribute probes) expect. The one cost:
``from scopeflow.api.nn import ctc_loss`` raises Python's plain ``ImportError`` ("cannot
import name"), which drops the message; ``tf.nn.ctc_loss`` keeps it.
"""

from __future__ import annotations

import sys

from scopeflow.framework.suggest import close_names, did_you_mean, or_list

__all__ = ["APINotImplementedError", "MissingAttributeError", "NOT_PLANNED", "NOT_YET",
           "NAMESPACES",
           "missing_attribute", "install_fallback", "install_fallbacks", "tf1_names",
           "not_planned_reason", "coverage", "close_names", "did_you_mean"]

# scopeflow module -> the TF1 namespace it stands for ("" is the root, tf.compat.v1).
NAMESPACES = {
    "scopeflow": "",
    "scopeflow.api.nn": "nn",
    "scopeflow.rnn.rnn_cell": "nn.rnn_cell",
    "scopeflow.api.math": "math",
    "scopeflow.api.linalg": "linalg",
    "scopeflow.api.debugging": "debugging",
    "scopeflow.api.random": "random",
    "scopeflow.api.image": "image",
    "scopeflow.api.manip": "manip",
    "scopeflow.api.sparse": "sparse",
    "scopeflow.api.strings": "strings",
    "scopeflow.ragged": "ragged",
    "scopeflow.api.signal": "signal",
    "scopeflow.api.spectral": "spectral",
    "scopeflow.api.sets": "sets",
    "scopeflow.distributions": "distributions",
    "scopeflow.feature_column": "feature_column",
    "scopeflow.api.lookup": "lookup",
    "scopeflow.api.bitwise": "bitwise",
    "scopeflow.api.audio": "audio",
    "scopeflow.api.special": "math.special",
    "scopeflow.api.nest": "nest",
    "scopeflow.api.graph_util": "graph_util",
    "scopeflow.api.config": "config",
    "scopeflow.api.config.optimizer": "config.optimizer",
    "scopeflow.api.config.threading": "config.threading",
    "scopeflow.api.version": "version",
    "scopeflow.api.sysconfig": "sysconfig",
    "scopeflow.api.resource_loader": "resource_loader",
    "scopeflow.layers": "layers",
    "scopeflow.losses": "losses",
    "scopeflow.metrics": "metrics",
    "scopeflow.train": "train",
    "scopeflow.summary": "summary",
    "scopeflow.api.queue": "queue",
    "scopeflow.saved_model": "saved_model",
    "scopeflow.saved_model.builder": "saved_model.builder",
    "scopeflow.saved_model.constants": "saved_model.constants",
    "scopeflow.saved_model.loader": "saved_model.loader",
    "scopeflow.saved_model.main_op": "saved_model.main_op",
    "scopeflow.saved_model.signature_constants": "saved_model.signature_constants",
    "scopeflow.saved_model.signature_def_utils": "saved_model.signature_def_utils",
    "scopeflow.saved_model.tag_constants": "saved_model.tag_constants",
    "scopeflow.saved_model.utils": "saved_model.utils",
    "scopeflow.compat": "compat",
    "scopeflow.platform.gfile": "gfile",
    "scopeflow.platform.python_io": "python_io",
    "scopeflow.platform.flags": "flags",
    "scopeflow.platform.app": "app",
    # Reached as tf.errors, tf.dtypes, tf.io and tf.test; their fallback is installed from
    # scopeflow/__init__.py (install_fallback).
    "scopeflow.framework.errors": "errors",
    "scopeflow.framework.dtypes": "dtypes",
    "scopeflow.io": "io",
    "scopeflow.api.test": "test",
    "scopeflow.data": "data",
    "scopeflow.data.experimental": "data.experimental",
    "scopeflow.profiler": "profiler",
    "scopeflow.api.user_ops": "user_ops",
    # TF 1.x only (not in TF 2.21's tf.compat.v1): the parts TF1 tutorials used.
    "scopeflow.contrib": "contrib",
    "scopeflow.contrib.layers": "contrib.layers",
    "scopeflow.contrib.rnn": "contrib.rnn",
    "scopeflow.estimator": "estimator",
    "scopeflow.estimator.export": "estimator.export",
    "scopeflow.estimator.inputs": "estimator.inputs",
}

_GPU = "scopeflow runs NumPy kernels on the CPU: there are no GPUs or other devices to manage"
_DISTRIBUTED = ("TF's parameter-server distribution (servers, workers, cluster specs); "
                "scopeflow's data-parallel training across processes is to use MPI instead")
_EAGER = "scopeflow is TF1's graph-and-session API; eager execution is TF2's default mode"
_KERNELS = "loads compiled TensorFlow C++ kernels; scopeflow's kernels are Python and NumPy"

# What scopeflow deliberately does not implement, by TF path (a module covers its names).
# "contrib" is not in TF 2.21's tf.compat.v1 but was in TF 1.x.
NOT_PLANNED = {
    # scopeflow has the basics of tf.contrib.layers, rnn, slim, framework and
    # learn.datasets (scopeflow/contrib/); every other name under tf.contrib is this.
    "contrib": "tf.contrib was removed in TensorFlow 2.0 (its parts moved into core TF or "
               "into separate packages); scopeflow has only the basics of tf.contrib.layers, "
               "rnn, slim, framework and learn.datasets, for the rest use the core API",
    "distribute": "distribution strategies spread training over several devices or machines; "
                  "scopeflow runs a graph in one process, on the CPU",
    "train.Server": _DISTRIBUTED,
    "test.create_local_cluster": _DISTRIBUTED,
    "tpu": "TPU hardware",
    "xla": "XLA compiles graphs for accelerators; " + _GPU,
    "mlir": "MLIR is TensorFlow's compiler infrastructure; scopeflow's plans are generated "
            "Python (docs/plans.md)",
    "lite": "TensorFlow Lite converts models for mobile runtimes",
    "config.experimental_connect_to_cluster": _DISTRIBUTED,
    "config.experimental_connect_to_host": _DISTRIBUTED,
    "raw_ops": "TensorFlow's 1,462 generated per-op wrappers; TF1 code calls the public "
               "functions (docs/API.md lists the op types scopeflow has)",
    "compat.v2": "TF2's eager API; " + _EAGER,
    "enable_eager_execution": _EAGER,
    "enable_v2_behavior": _EAGER,
    **{f"data.experimental.{name}": "the tf.data service runs input pipelines on dispatcher "
                                    "and worker servers (a cluster); scopeflow's pipelines run in "
                                    "the training process"
       for name in ("service", "ServiceOptions", "distributed_save")},
    "autograph": "AutoGraph converts Python control flow for tf.function; " + _EAGER,
    "load_op_library": _KERNELS,
    "load_library": _KERNELS,
    "load_file_system_library": _KERNELS,
    **{f"sysconfig.{name}": "compiler and linker flags for building TensorFlow C++ "
                            "extensions; " + _KERNELS
       for name in ("get_include", "get_lib", "get_compile_flags", "get_link_flags")},
}


# TF1 names scopeflow has not built yet, with what they need; the error and docs/API.md
# give the reason.
NOT_YET = {
    "LMDBReader": "reads LMDB databases, which needs an LMDB binding scopeflow does not depend on",
    "data.experimental.dense_to_sparse_batch": "scopeflow's datasets carry dense tensors only "
                                               "(no SparseTensor elements yet)",
    "data.experimental.dense_to_ragged_batch": "scopeflow's datasets carry dense tensors only "
                                               "(no RaggedTensor elements yet)",
    "data.experimental.to_variant": "scopeflow's datasets are Python pipelines, not variant "
                                    "tensors of dataset ops",
    "data.experimental.from_variant": "scopeflow's datasets are Python pipelines, not variant "
                                      "tensors of dataset ops",
    "image.decode_jxl": "JPEG XL decoding needs libjxl, which Pillow (scopeflow's image codec "
                        "library) does not include",
    "io.decode_jxl": "JPEG XL decoding needs libjxl, which Pillow (scopeflow's image codec "
                     "library) does not include",
    "io.RaggedFeature": "parsing into RaggedTensors with TF's int32 row splits; scopeflow's "
                        "RaggedTensor keeps int64 splits only",
    "saved_model.save": "TF2's object-based SavedModel (traced functions and a trackable object "
                        "graph); scopeflow writes TF1 SavedModels (saved_model.builder)",
    "saved_model.load_v2": "TF2's object-based SavedModel (traced functions and a trackable "
                           "object graph); scopeflow reads TF1 SavedModels (saved_model.loader)",
    "strings.unicode_script": "needs ICU's Unicode script tables, which no dependency of "
                              "scopeflow provides",
    "summary.initialize": "TF2 summary writers (tf.contrib.summary) are not built yet",
    "train.do_quantize_training_on_graphdef": "TF's GraphDef rewrite for quantized training is "
                                              "not built yet",
    "train.sdca_optimizer": "the SDCA linear solver op (TF's SdcaOptimizerV2) is not built yet",
}


class APINotImplementedError(NotImplementedError, AttributeError):
    """A TensorFlow 1 name scopeflow does not implement (yet, or at all).

    Also an ``AttributeError``, so ``hasattr()`` and ``getattr(obj, name, default)`` treat
    the name as absent.
    """


def _data():
    from scopeflow.framework import tf1_names as _tf1_api  # the list, only on a miss
    return _tf1_api


_names_cache: dict[str, dict[str, str]] = {}


def tf1_names(path: str) -> dict[str, str]:
    """TF1's public names in namespace ``path`` ("" is the root), name -> kind; ``{}`` for a
    namespace that was not walked."""
    names = _names_cache.get(path)
    if names is None:
        by_kind = _data().MODULES.get(path, {})
        names = {n: kind for kind, text in by_kind.items() for n in text.split()}
        _names_cache[path] = names
    return names


def not_planned_reason(qualpath: str) -> str | None:
    """Why ``qualpath`` (``"train.Server"``, ``"keras.layers"``) is not planned, or ``None``."""
    parts = qualpath.split(".")
    for i in range(len(parts), 0, -1):
        reason = NOT_PLANNED.get(".".join(parts[:i]))
        if reason is not None:
            return reason
    return None


# Names TF1 users reach for in a namespace where TF keeps them elsewhere: where they are.
ELSEWHERE = {
    "train.inspect_checkpoint": (
        "TF1's inspect_checkpoint is the module tensorflow.python.tools.inspect_checkpoint "
        "(scopeflow.tools.inspect_checkpoint: print_tensors_in_checkpoint_file); from the "
        "shell, `scopeflow ckpt ls PATH` or `scopeflow ckpt show PATH NAME`"),
}


def _tf_name(path: str, name: str) -> str:
    return "tf." + (f"{path}.{name}" if path else name)


def missing_attribute(module_name: str, name: str) -> AttributeError:
    """The error for ``getattr(<module_name>, name)`` when the module lacks ``name``."""
    plain = f"module {module_name!r} has no attribute {name!r}"
    if name.startswith("_"):  # dunder probes (__wrapped__, __path__...) stay cheap
        return AttributeError(plain)
    path = NAMESPACES.get(module_name)
    if path is None:
        return AttributeError(plain)
    qualpath = f"{path}.{name}" if path else name
    reason = not_planned_reason(qualpath)
    tf_name = _tf_name(path, name)
    if reason is not None:
        return APINotImplementedError(
            f"{tf_name} is part of TensorFlow 1's API but scopeflow does not plan to implement "
            f"it: {reason} (see docs/API.md)")
    if name in tf1_names(path):
        why = NOT_YET.get(qualpath)
        return APINotImplementedError(
            f"{tf_name} is part of TensorFlow 1's API but scopeflow does not implement it yet"
            + (f": {why}" if why else "") + " (see docs/API.md)")
    elsewhere = ELSEWHERE.get(qualpath)
    if elsewhere is not None:
        return AttributeError(f"{plain}; {elsewhere}")
    return MissingAttributeError(plain, module_name, name, path)


class MissingAttributeError(AttributeError):
    """Python's ``AttributeError`` for a name neither scopeflow nor TF1 has, whose message
    adds "Did you mean" with the closest names. They are found when the message is first
    shown, so ``hasattr()`` probes stay cheap."""

    def __init__(self, message, module_name, name, path):
        super().__init__(message)
        self._where = (module_name, name, path)
        self._message = None

    def __str__(self):
        if self._message is None:
            module_name, name, path = self._where
            close = _suggestions(name, sys.modules.get(module_name), path)
            self._message = self.args[0] + (
                ". Did you mean: " + or_list(close) + "?" if close else "")
        return self._message


def _suggestions(name: str, module, path: str) -> list[str]:
    import difflib

    have = {n for n in (dir(module) if module is not None else ()) if n[:1] != "_"}
    lowered: dict[str, list[str]] = {}
    for c in sorted(have | set(tf1_names(path)), key=lambda c: (c not in have, c)):
        lowered.setdefault(c.lower(), []).append(c)  # what scopeflow has first
    close = difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.7)
    # Of two spellings that differ in case only (``Dense``, ``dense``), the one closer to
    # the typed case first (``dens`` -> ``dense``).
    return [c for low in close for c in sorted(
        lowered[low], key=lambda c: sum(a != b for a, b in zip(c, name)))][:3]


def install_fallback(module) -> None:
    """Gives ``module`` (one of :data:`NAMESPACES`) the fallback ``__getattr__``, unless it
    has its own."""
    if "__getattr__" in vars(module):
        return
    module_name = module.__name__

    def __getattr__(name):
        raise missing_attribute(module_name, name)

    module.__getattr__ = __getattr__


def install_fallbacks() -> None:
    """The fallback for the namespaces whose modules are not scopeflow's namespace modules
    (``tf.errors``, ``tf.dtypes``, ``tf.io``, ``tf.test``, ``tf.data``, ``tf.profiler``);
    ``import scopeflow`` calls it."""
    for module_name in ("scopeflow.framework.errors", "scopeflow.framework.dtypes",
                        "scopeflow.io", "scopeflow.api.test", "scopeflow.data",
                        "scopeflow.data.experimental", "scopeflow.profiler"):
        module = sys.modules.get(module_name)
        if module is not None:
            install_fallback(module)


# ── coverage, for docs/API.md ─────────────────────────────────────────────────────────────
def member(obj, name: str):
    """``obj.<name>`` as the namespace ``obj`` defines it, or ``None``, without the missing-name
    fallback; a namespace's lazily loaded submodule (``tf.keras``) is loaded."""
    if not hasattr(obj, "__dict__"):
        return None
    found = vars(obj).get(name)
    if found is None and name in vars(obj).get("_LAZY_SUBMODULES", ()):
        found = getattr(obj, name)
    return found


def _resolve(path: str):
    """The scopeflow object reached as ``tf.<path>``, or ``None``."""
    obj = sys.modules["scopeflow"]
    for part in filter(None, path.split(".")):
        obj = member(obj, part)
        if obj is None:
            return None
    return obj


def coverage() -> dict[str, dict]:
    """Per walked TF1 namespace: its scopeflow object (or ``None``) and its names, each as
    ``(name, kind, status, reason)`` with status ``supported``, ``not yet`` or ``not
    planned``. A name is supported when scopeflow's namespace has it (which says nothing
    about every argument)."""
    result = {}
    for path in _data().MODULES:
        obj = _resolve(path)
        have = vars(obj) if obj is not None and hasattr(obj, "__dict__") else {}
        for lazy in tuple(have.get("_LAZY_SUBMODULES", ())):
            member(obj, lazy)  # loaded, as tf.<lazy> loads it
        rows = []
        for name, kind in sorted(tf1_names(path).items(), key=lambda x: x[0].lower()):
            qualpath = f"{path}.{name}" if path else name
            reason = not_planned_reason(qualpath)
            if name in have:
                status, reason = "supported", None
            elif reason is not None:
                status = "not planned"
            else:
                status, reason = "not yet", NOT_YET.get(qualpath)
            rows.append((name, kind, status, reason))
        result[path] = {"object": obj, "names": rows}
    return result
