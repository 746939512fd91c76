"""Tracebacks that end at the user's line: scopeflow's own frames are left out of an
uncaught exception's traceback, as TF 2's traceback filtering leaves out TF's.

A dtype error in ``c = a + b`` otherwise shows five frames inside scopeflow (operators,
the op family, op helpers, the OpDef) under the user's line; the message already names
the op and what is wrong. ``tf.debugging.disable_traceback_filtering()`` (or
``SCOPEFLOW_TRACEBACK_FILTERING=0`` in the environment) shows every frame again.

Only what ``sys.excepthook`` prints is filtered: exceptions a program catches keep their
whole traceback, and a traceback with no frame outside scopeflow is printed whole.
"""

from __future__ import annotations

import os
import sys
import types

__all__ = ["enable_traceback_filtering", "disable_traceback_filtering",
           "is_traceback_filtering_enabled", "install"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_enabled = os.environ.get("SCOPEFLOW_TRACEBACK_FILTERING", "1").strip() != "0"


def enable_traceback_filtering() -> None:
    """Leave scopeflow's frames out of uncaught exceptions' tracebacks (the default)."""
    global _enabled
    _enabled = True


def disable_traceback_filtering() -> None:
    """Print uncaught exceptions' tracebacks whole, scopeflow's frames included."""
    global _enabled
    _enabled = False


def is_traceback_filtering_enabled() -> bool:
    return _enabled


def _inside(tb) -> bool:
    return tb.tb_frame.f_code.co_filename.startswith(_PACKAGE)


def filtered(tb):
    """``tb`` without scopeflow's frames, and how many it left out; ``tb`` itself when all
    its frames are scopeflow's (then they are where to look)."""
    kept = []
    while tb is not None:
        kept.append(tb)
        tb = tb.tb_next
    outside = [t for t in kept if not _inside(t)]
    if not outside or len(outside) == len(kept):
        return (kept[0] if kept else None), 0
    new = None
    for t in reversed(outside):
        new = types.TracebackType(new, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return new, len(kept) - len(outside)


def _excepthook(kind, value, tb, *, previous):
    hidden = 0
    if _enabled:
        seen = set()
        exc = value
        while exc is not None and id(exc) not in seen:  # the cause/context chain too
            seen.add(id(exc))
            exc.__traceback__, n = filtered(exc.__traceback__)
            hidden += n
            exc = exc.__cause__ or exc.__context__
        tb = value.__traceback__
    previous(kind, value, tb)
    if hidden:
        print(f"({hidden} frame{'s' if hidden != 1 else ''} inside scopeflow not shown; "
              "tf.debugging.disable_traceback_filtering() or "
              "SCOPEFLOW_TRACEBACK_FILTERING=0 shows them)", file=sys.stderr)


def install() -> None:
    """Wraps the current ``sys.excepthook`` (once), keeping whatever it does."""
    previous = sys.excepthook
    if getattr(previous, "_scopeflow_filtering", False):
        return

    def excepthook(kind, value, tb):
        _excepthook(kind, value, tb, previous=previous)

    excepthook._scopeflow_filtering = True
    sys.excepthook = excepthook
