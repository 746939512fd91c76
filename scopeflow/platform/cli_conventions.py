"""What every ``scopeflow`` subcommand shares: exit statuses, the help's exit-status
epilog, "Did you mean", strict ``--json`` output, and running a parsed command line.

The conventions themselves are documented in ``scopeflow/cli.py``'s docstring. This module
sits low (it imports only the standard library and ``framework.suggest``), so that the
subcommands beside the code they drive (``train/checkpoint_cli.py``,
``summary/runs_cli.py``, ``examples/mnist_cnn.py``) need not import the ``scopeflow``
program above them.
"""

from __future__ import annotations

import json
import math
import os
import sys

from scopeflow.framework import suggest
from scopeflow.framework.suggest import close_names

__all__ = ["EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE", "EXIT_SIGPIPE", "epilog", "did_you_mean",
           "print_json", "fail", "guarded", "run"]

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


def did_you_mean(name: str, candidates) -> str:
    """``". Did you mean 'x' or 'y'?"`` for the close matches of ``name``, or ``""``."""
    matches = close_names(name, sorted(set(candidates)))
    return "." + suggest.did_you_mean(matches) if matches else ""


def _strict(obj):
    """``obj`` with what strict JSON cannot hold made representable (see cli.py's
    docstring)."""
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


def fail(program: str, message) -> int:
    """``scopeflow <program>: error: <message>``, one line on stderr; the exit status 1."""
    print(f"scopeflow {program}: error: {message}", file=sys.stderr)
    return EXIT_FAILURE


def guarded(program: str, user_errors: tuple, command):
    """``command(args)``, with the user's errors (``user_errors``: a missing path, a corrupt
    file...) reported by ``fail`` instead of as a traceback.

    A closed stdout (``BrokenPipeError``, itself an ``OSError``) still goes up to ``run``.
    """
    def guarded_command(args):
        try:
            return command(args)
        except BrokenPipeError:
            raise
        except user_errors as e:
            return fail(program, e)
    guarded_command.__doc__ = command.__doc__
    return guarded_command


def _silence_stdout() -> None:
    """Points stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is no file (captured in-process)
        pass


def run(args) -> int:
    """Runs a parsed command line (``args.func(args)``); returns the exit status: the
    command's, 141 when the reader of stdout went away, 130 on Ctrl-C."""
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
