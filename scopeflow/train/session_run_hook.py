"""``tf.train.SessionRunHook`` and the values passed to hooks around each ``run``.

A hook sees a monitored session's life: ``begin`` (the graph may still change),
``after_create_session``, then ``before_run``/``after_run`` around every ``run`` call,
and ``end``. ``before_run`` may return :class:`SessionRunArgs`: fetches and feeds merged
into that same ``run`` call, whose results come back in ``after_run``'s
:class:`SessionRunValues`.

>>> args = tf.train.SessionRunArgs(fetches=["a:0"], feed_dict=None)
>>> args.fetches, args.options
(['a:0'], None)
"""

from __future__ import annotations

import collections

from scopeflow.framework.properties import read_only

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]


class SessionRunHook:
    """Base class of hooks that extend ``MonitoredSession.run`` calls (every method a
    no-op)."""

    def begin(self):
        """Called once before the session is created; the graph can still grow."""

    def after_create_session(self, session, coord):
        """Called once the session is created (variables initialized or restored)."""

    def before_run(self, run_context):
        """Called before each ``run``; may return :class:`SessionRunArgs` to add to it."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each ``run`` with the results of what ``before_run`` asked for."""

    def end(self, session):
        """Called at the end of the session (not when it ends with an error)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``run`` call: fetches, feeds and ``RunOptions``."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The ``run`` call a hook is looking at: its original arguments, the session, and a
    way to ask the monitored session to stop."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    original_args = read_only("_original_args",
                              "The :class:`SessionRunArgs` the caller passed to ``run``.")
    session = read_only("_session", "The raw ``tf.Session`` (running it does not call hooks).")
    stop_requested = read_only("_stop_requested")

    def request_stop(self):
        """After this ``run``, the monitored session's ``should_stop()`` is True."""
        self._stop_requested = True


SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])
SessionRunValues.__doc__ = """The results of a hook's ``SessionRunArgs.fetches``, with the
``RunOptions`` and ``RunMetadata`` of the ``run`` call."""
