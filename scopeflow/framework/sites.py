"""Where the user created something: the first stack frame outside the scopeflow package.

Recorded for every op (cheaply: a frame walk, no traceback objects) so that errors can
point at the user's line instead of deep inside the framework.
"""

from __future__ import annotations

import contextlib
import os
import sys

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_EXAMPLES_DIR = _PKG_DIR + "examples" + os.sep  # the package's examples are user code


class Site(tuple):
    """``(filename, lineno, function)`` of a user frame; ``str()`` gives ``file:line``."""

    __slots__ = ()

    def __new__(cls, filename, lineno, function):
        return tuple.__new__(cls, (filename, lineno, function))

    @property
    def filename(self):
        return self[0]

    @property
    def lineno(self):
        return self[1]

    @property
    def function(self):
        return self[2]

    def __str__(self):
        return f"{self[0]}:{self[1]}"


UNKNOWN_SITE = Site("<unknown>", 0, "<unknown>")


# Frames of the standard library's context managers: an op made on a ``with`` block's exit
# (a name scope's, a control-dependency block's) is the ``with`` line's, not contextlib's.
_PASS_THROUGH_FILES = frozenset({contextlib.__file__})


def _is_user_file(filename: str) -> bool:
    return ((not filename.startswith(_PKG_DIR) or filename.startswith(_EXAMPLES_DIR))
            and filename not in _PASS_THROUGH_FILES)


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by this function's caller that
    points at the innermost frame outside scopeflow (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and not _is_user_file(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def user_site(depth: int = 1) -> Site:
    """The innermost frame, starting ``depth`` frames up, whose file is not scopeflow's."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return UNKNOWN_SITE
    while frame is not None:
        if _is_user_file(frame.f_code.co_filename):
            return Site(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return UNKNOWN_SITE
