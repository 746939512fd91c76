"""``tf.logging``: TF1's logging functions, on Python's ``logging`` (logger ``tensorflow``).

>>> tf.logging.set_verbosity(tf.logging.INFO); tf.logging.get_verbosity() == tf.logging.INFO
True
"""

from __future__ import annotations

import logging as _logging
import sys as _sys

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "set_verbosity", "get_verbosity", "log",
           "debug", "info", "warn", "warning", "error", "fatal", "vlog", "log_if",
           "log_every_n", "log_first_n", "flush", "get_logger", "TaskLevelStatusMessage"]

DEBUG, INFO, WARN, ERROR, FATAL = (_logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR,
                                   _logging.FATAL)
_logger = _logging.getLogger("tensorflow")
if not _logger.handlers:  # TF's own: messages to stderr, WARN and above by default
    _handler = _logging.StreamHandler(_sys.stderr)
    _handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    _logger.addHandler(_handler)
    _logger.setLevel(WARN)
    _logger.propagate = False
_counts: dict = {}


def set_verbosity(v) -> None:
    _logger.setLevel(v)


def get_verbosity() -> int:
    return _logger.getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    _logger.fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    _logger.log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    if condition:
        _logger.log(level, msg, *args)


def _caller_key():
    frame = _sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level, msg, n, *args):
    """Logs on the 1st, (n+1)th, (2n+1)th... call from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % max(n, 1) == 0:
        _logger.log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    """Logs on the first ``n`` calls from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        _logger.log(level, msg, *args)


def flush():
    for handler in _logger.handlers:
        handler.flush()


def get_logger() -> _logging.Logger:
    """The ``tensorflow`` logger that ``tf.logging`` writes to (``tf.get_logger()``)."""
    return _logger


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    """Logs ``msg`` at ERROR level, as TF1's ``tf.logging.TaskLevelStatusMessage``."""
    error(msg)
