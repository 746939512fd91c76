"""``tf.train.Coordinator`` and ``tf.train.LooperThread``: stopping a set of threads together.

As TF1's: a thread that fails calls ``request_stop(ex)``; the others see ``should_stop()``
and end; ``join`` waits for them (then ``stop_grace_period_secs`` more) and re-raises the
first exception reported. ``OutOfRangeError`` (the end of the input) is a clean stop.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from scopeflow.framework import errors
from scopeflow.framework.properties import read_only
from scopeflow.platform import tf_logging as logging

__all__ = ["Coordinator", "LooperThread"]


class Coordinator:
    """Coordinates the termination of a set of threads (``tf.train.Coordinator``)."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex):
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None  # a clean stop: not reported
        return ex

    def request_stop(self, ex=None):
        """Asks every thread to stop; ``ex`` (an exception or ``sys.exc_info()``) is
        re-raised by ``join`` unless it is a clean stop (``OutOfRangeError``)."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                ex_instance = ex[1] if isinstance(ex, tuple) else ex
                if ex_instance is not None:
                    # Already joined: nobody would see it reported, so raise it here.
                    raise ex_instance
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        logging.info("Error reported to Coordinator: %s", ex[1])
                        self._exc_info_to_raise = ex
                    else:
                        logging.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0] \
                            or not self._exc_info_to_raise[1]:
                        try:
                            raise ValueError(f"ex must be a tuple or sys.exc_info must return "
                                             f"the current exception: "
                                             f"{self._exc_info_to_raise}")
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self):
        """Clears the stop flag and any reported exception (to reuse the coordinator)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A block whose exception (any) is reported with ``request_stop``, not raised."""
        try:
            yield
        except:  # noqa: E722 - TF reports every exception, as a bare except
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits until a stop is requested (or ``timeout`` seconds); whether it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for ``threads`` (and the registered ones) to end once a stop is requested;
        re-raises the reported exception, or ``RuntimeError`` naming the threads still
        running after ``stop_grace_period_secs``."""
        with self._lock:
            threads = self._registered_threads if threads is None else \
                self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = max(min(2 * stop_wait_secs, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    logging.info("Coordinator stopped with threads still running: %s",
                                 " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: "
                                       + " ".join(stragglers))

    joined = read_only("_joined")

    def raise_requested_exception(self):
        """Raises the reported exception, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a ``LooperThread`` calling ``target`` every ``timer_interval_secs``."""
        looper = LooperThread(self, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper


class LooperThread(threading.Thread):
    """A daemon thread calling ``run_loop`` (or ``target``) repeatedly until the
    coordinator asks to stop (``tf.train.LooperThread``)."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the thread stops."""

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
