"""The ``scopeflow`` command: inspect checkpoints and runs, train the seed's MNIST CNN.

    scopeflow ckpt ls|show|diff|to-npz ...   look inside TensorFlow checkpoints
    scopeflow runs ls|scalars|plot ...       read TensorBoard event files
    scopeflow train-mnist [flags]            train the seed's MNIST CNN
    scopeflow --version                      the installed version

Each subcommand lives beside the code it drives and registers itself through
``add_parser(subparsers)``, which sets ``func`` on its parser; this module only
dispatches, and holds what every subcommand shares.

Conventions, the same for every subcommand:

* Exit status: 0 success; 1 the operation failed (a missing or corrupt checkpoint or
  event file, an unknown tensor name or tag) or, for ``ckpt diff``, the inputs differ (as
  ``diff`` does); 2 a usage mistake (unknown option, missing or malformed argument),
  reported by argparse; 128+N stopped by signal N: 130 Ctrl-C, 143 SIGTERM, and 141 when
  the reader of stdout went away (``scopeflow ckpt ls x | head -1``), which ends the
  command quietly, as ``git`` and coreutils do.
* Results go to stdout; errors (one line, ``scopeflow SUBCOMMAND: error: ...``, with a
  "Did you mean" suggestion for a mistyped name) and warnings go to stderr.
* ``--json`` (``ckpt ls/show/diff``, ``runs ls/scalars``) prints one strict JSON document:
  numbers as numbers, tensor values as nested lists, non-finite floats as the strings
  ``"NaN"``, ``"Infinity"``, ``"-Infinity"``, byte strings decoded as UTF-8 (undecodable
  bytes as ``\\xNN`` escapes).
"""

import argparse
import importlib
import json
import math
import os
import sys
from importlib import metadata

from scopeflow._version import __version__
from scopeflow.framework import suggest
from scopeflow.framework.suggest import close_names

# subcommand -> module providing add_parser(subparsers)
_COMMANDS = {
    "ckpt": "scopeflow.train.checkpoint_cli",
    "runs": "scopeflow.summary.runs_cli",
    "train-mnist": "scopeflow.examples.mnist_cnn",
}

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
EXIT_SIGPIPE = 128 + 13



def epilog(failure: str = "", signals: str = "130 interrupted") -> str:
    """The exit-status paragraph of a subcommand's help.

    ``failure`` adds to the cases of status 1 (``"the checkpoints differ"``); ``signals``
    lists the 128+N statuses besides 141.
    """
    return ("exit status: 0 success; 1 failure (missing or unreadable input, unknown name"
            + (f") or {failure}" if failure else ")")
            + f"; 2 usage error; 141 output pipe closed; {signals}.")


def version() -> str:
    """The installed distribution's version, else the source tree's."""
    try:
        return metadata.version("scopeflow")
    except metadata.PackageNotFoundError:
        return __version__


def did_you_mean(name: str, candidates) -> str:
    """``". Did you mean 'x' or 'y'?"`` for the close matches of ``name``, or ``""``."""
    matches = close_names(name, sorted(set(candidates)))
    return "." + suggest.did_you_mean(matches) if matches else ""


def _strict(obj):
    """``obj`` with what strict JSON cannot hold made representable (see the docstring)."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return "NaN" if math.isnan(obj) else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {str(k): _strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict(v) for v in obj]
    if isinstance(obj, bytes):
        return obj.decode("utf-8", errors="backslashreplace")
    if hasattr(obj, "tolist"):  # NumPy scalars and arrays
        return _strict(obj.tolist())
    return obj


def print_json(obj) -> None:
    """Writes ``obj`` to stdout as one strict JSON document on one line (pipe to ``jq .``
    to read it)."""
    json.dump(_strict(obj), sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


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


def _silence_stdout() -> None:
    """Points stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is no file (captured in-process)
        pass


def main(argv=None) -> int:
    """Runs ``scopeflow ARGV``; returns the exit status (see the module docstring)."""
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args) or EXIT_OK
        sys.stdout.flush()   # inside the try: a closed pipe may only show up here
        return code
    except BrokenPipeError:
        # https://docs.python.org/3/library/signal.html#note-on-sigpipe
        _silence_stdout()
        return EXIT_SIGPIPE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
