"""The ``scopeflow`` command: inspect checkpoints and runs, train the seed's MNIST CNN.

    scopeflow ckpt ls|show|diff|to-npz ...   look inside TensorFlow checkpoints
    scopeflow runs ls|scalars|plot ...       read TensorBoard event files
    scopeflow train-mnist [flags]            train the seed's MNIST CNN
    scopeflow info [--json]                  kernel backends (NumPy, oneDNN) and threads
    scopeflow examples [DIR]                 copy the tour's example programs into DIR
    scopeflow run [--check] PROG.py [ARGS]   run an unmodified TF1 program on scopeflow
                                             (--check: list the TF APIs it uses that
                                             scopeflow lacks, without running it)
    scopeflow graphdiff A B                  compare two graphs (.meta, .pb, .pbtxt) node
                                             by node, in creation order
    scopeflow compare PROG.py [ARGS]         run a program under scopeflow and real
                                             TensorFlow; the first op whose value differs
    scopeflow savedmodel show|run ...        inspect and run a SavedModel (TF's
                                             saved_model_cli, its output format)
    scopeflow serve DIR [--port P] ...       answer TF Serving's REST API for a
                                             SavedModel (the `serve` extra)
    scopeflow --version                      the installed version

Each subcommand lives beside the code it drives and registers itself through
``add_parser(subparsers)``, which sets ``func`` on its parser; this module only
dispatches. What every subcommand shares (exit statuses, help epilogs, "Did you mean",
``--json`` output) is in ``scopeflow/platform/cli_conventions.py``.

Conventions, the same for every subcommand:

* Exit status: 0 success; 1 the operation failed (a missing or corrupt checkpoint or
  event file, an unknown tensor name or tag) or, for ``ckpt diff``, the inputs differ (as
  ``diff`` does); 2 a usage mistake (unknown option, missing or malformed argument),
  reported by argparse; 128+N stopped by signal N: 130 Ctrl-C, 143 SIGTERM, and 141 when
  the reader of stdout went away (``scopeflow ckpt ls x | head -1``), which ends the
  command quietly, as ``git`` and coreutils do. ``run`` exits with its program's own
  status (``--check``: 1 when the program uses TF APIs scopeflow lacks).
* Results go to stdout; errors (one line, ``scopeflow SUBCOMMAND: error: ...``, with a
  "Did you mean" suggestion for a mistyped name) and warnings go to stderr.
* ``--json`` (``ckpt ls/show/diff``, ``runs ls/scalars``) prints one strict JSON document:
  numbers as numbers, tensor values as nested lists, non-finite floats as the strings
  ``"NaN"``, ``"Infinity"``, ``"-Infinity"``, byte strings decoded as UTF-8 (undecodable
  bytes as ``\\xNN`` escapes).
"""

import argparse
import importlib
from importlib import metadata

from scopeflow._version import __version__
from scopeflow.platform.cli_conventions import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_SIGPIPE,
    EXIT_USAGE,
    did_you_mean,
    epilog,
    print_json,
    run,
)

# The shared conventions (scopeflow/platform/cli_conventions.py), also reachable from here.
__all__ = ["main", "build_parser", "version", "EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE",
           "EXIT_SIGPIPE", "epilog", "did_you_mean", "print_json"]

# subcommand -> module providing add_parser(subparsers)
_COMMANDS = {
    "ckpt": "scopeflow.train.checkpoint_cli",
    "runs": "scopeflow.summary.runs_cli",
    "train-mnist": "scopeflow.examples.mnist_cnn",
    "info": "scopeflow.cli.info",
    "examples": "scopeflow.examples.tour",
    "run": "scopeflow.cli.runner",
    "graphdiff": "scopeflow.cli.graphdiff",
    "compare": "scopeflow.cli.compare",
    "savedmodel": "scopeflow.saved_model.cli",
    "serve": "scopeflow.saved_model.serving.cli",
}


def version() -> str:
    """The installed distribution's version, else the source tree's."""
    try:
        return metadata.version("scopeflow")
    except metadata.PackageNotFoundError:
        return __version__


def build_parser():
    parser = argparse.ArgumentParser(
        prog="scopeflow",
        description="TensorFlow 1's graph-and-session API on NumPy: tools.",
        epilog=epilog("differences found by `ckpt diff`") + " Run `scopeflow COMMAND -h` for "
        "a command's help.")
    parser.add_argument("--version", action="version", version=f"scopeflow {version()}",
                        help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       help="what to do (each has its own --help)")
    subparsers.required = True
    for module in _COMMANDS.values():
        importlib.import_module(module).add_parser(subparsers)
    return parser


def main(argv=None) -> int:
    """Runs ``scopeflow ARGV``; returns the exit status (see the module docstring)."""
    return run(build_parser().parse_args(argv))

