"""Import time, for scopeflow or (with --tf) real TensorFlow, in fresh processes.

    python bench/bench_import.py [--runs 7]          # scopeflow
    ../shared/tools/tf1 bench/bench_import.py --tf   # import tensorflow.compat.v1
    python bench/compare.py bench/bench_import.py

Each round starts fresh interpreters (``sys.executable``: under ``--tf`` TensorFlow's
venv) and reports the median over ``--runs`` rounds (default 7), in ms:

* ``python_start_ms``: the wall time of ``python -c pass``, the interpreter alone (in
  the dev venv this includes ~15 ms for the editable install's import finder, which a
  wheel install does not have);
* ``import_ms``: ``time.perf_counter()`` around ``import scopeflow`` (TF:
  ``import tensorflow.compat.v1``), measured inside the child;
* ``import_process_ms``: the wall time of that child, start to exit, and
  ``import_process_minus_start_ms``, the same less ``python_start_ms`` (what a script that
  imports the framework pays over one that doesn't, exit included);
* scopeflow only: ``import_all_extras_ms``, ``import scopeflow`` and then every optional
  extra installed, loaded as scopeflow loads it on first use (``import scopeflow`` loads
  none of them: it imports NumPy and google-crc32c, ``python -X importtime`` shows), and
  ``extra_<name>_ms`` for each: ``fast`` (``scopeflow.native.onednn.backend()``: finds and
  loads oneDNN's libdnnl), ``mpi`` (``scopeflow.distributed.init()``: mpi4py and MPICH's
  singleton ``MPI_Init``), ``image`` (``PIL.Image``, as tf.image's codecs import it),
  ``bfloat16`` (``ml_dtypes``, as checkpoints with bfloat16 tensors import it) and
  ``digits`` (``sklearn.datasets``, the MNIST example's offline data). ``plot``
  (matplotlib) is used only by ``scopeflow runs plot`` and is left out. Each extra's time
  is what it adds after those before it (in this order). The extras found
  are printed to stderr with their versions; an extra not installed is skipped (its row
  is missing). Measured in the dev venv with onednn-cpu-gomp 2023.2.0, mpi4py 4.1.2 and
  mpich 5.0.2, Pillow 13.0.0, ml_dtypes 0.7.0 and scikit-learn 1.9.1 present (tensorboard
  2.21.0 too, which scopeflow never imports: the tests read event files with it).

Prints one JSON line. Under compare.py each round is one turn, so the two frameworks'
children never start at the same time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from importlib import metadata

import timing  # noqa: E402 - bench/ is on sys.path when a script runs

USE_TF = "--tf" in sys.argv
MODULE = "tensorflow.compat.v1" if USE_TF else "scopeflow"

# (extra, the distribution that provides it, the code that loads it as scopeflow does)
EXTRAS = [
    ("fast", "onednn-cpu-gomp",
     "from scopeflow.native import onednn\n"
     "assert onednn.backend() is not None, onednn.load_error()"),
    ("mpi", "mpi4py",
     "import scopeflow.distributed as sfd\n"
     "sfd.init()\n"
     "assert sfd.mpi_enabled()"),
    ("image", "Pillow", "import PIL.Image"),
    ("bfloat16", "ml_dtypes", "import ml_dtypes"),
    ("digits", "scikit-learn", "import sklearn.datasets"),
]

_IMPORT = f"""
import time
t0 = time.perf_counter()
import {MODULE}
print(repr(time.perf_counter() - t0))
"""


def _extras_code(extras):
    """A child that imports scopeflow, then each extra; prints the seconds as JSON."""
    lines = ["import json, time", "t0 = time.perf_counter()", "import scopeflow",
             "times = {'import': time.perf_counter() - t0}"]
    for name, _, code in extras:
        lines += ["t = time.perf_counter()", code,
                  f"times[{name!r}] = time.perf_counter() - t"]
    lines += ["times['all'] = time.perf_counter() - t0", "print(json.dumps(times))"]
    return "\n".join(lines)


def installed_extras():
    found = []
    for name, dist, code in EXTRAS:
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            print(f"extra {name}: {dist} not installed, skipped", file=sys.stderr)
            continue
        print(f"extra {name}: {dist} {version}", file=sys.stderr)
        found.append((name, dist, code))
    return found


def _child(code):
    """(wall seconds from start to exit, the child's stdout) of ``python -c code``."""
    env = dict(os.environ)
    env.pop("SCOPEFLOW_BENCH_TURNS", None)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"bench_import: the child failed:\n{code}\n{out.stderr}")
    return wall, out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def one_round(extras_code):
    start, _ = _child("pass")
    process, inner = _child(_IMPORT)
    result = {"python_start_ms": start * 1e3, "import_ms": float(inner) * 1e3,
              "import_process_ms": process * 1e3,
              "import_process_minus_start_ms": (process - start) * 1e3}
    if extras_code:
        times = json.loads(_child(extras_code)[1])
        result["import_all_extras_ms"] = times.pop("all") * 1e3
        times.pop("import")
        result.update({f"extra_{name}_ms": seconds * 1e3 for name, seconds in times.items()})
    return result


def _runs():
    if "--runs" in sys.argv:
        return int(sys.argv[sys.argv.index("--runs") + 1])
    return 7


def _tf_version():
    for dist in ("tensorflow-cpu", "tensorflow"):  # without importing it in this process
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return "unknown"


def main():
    extras_code = None if USE_TF else _extras_code(installed_extras())
    rounds = timing.each_round(lambda: one_round(extras_code), _runs())
    name = "tensorflow " + _tf_version() if USE_TF else "scopeflow"
    out = {"framework": name}
    out.update({key: statistics.median(r[key] for r in rounds) for key in rounds[0]})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
