"""``tf.train.CheckpointManager``: numbered object-based checkpoints, the old ones deleted.

The manager writes ``<directory>/<checkpoint_name>-<n>`` through ``Checkpoint.write``,
keeps the newest ``max_to_keep`` (plus one every ``keep_checkpoint_every_n_hours``) and
records them, with their timestamps, in the directory's ``checkpoint`` state file exactly
as TF does, so a manager created later (by scopeflow or TF) picks up where it stopped.
In graph mode it runs in the default session, as TF1's does.
"""

from __future__ import annotations

import collections
import copy
import glob
import logging
import os
import time

from scopeflow.framework.context import get_default_session
from scopeflow.train.checkpoint_management import (
    get_checkpoint_state,
    update_checkpoint_state_internal,
)
from scopeflow.train.object_checkpoint import CheckpointOptions
from scopeflow.train.training_util import global_step

__all__ = ["CheckpointManager"]

_log = logging.getLogger("scopeflow.train")


def _delete_file_if_exists(pattern):
    for path in glob.glob(pattern):
        if os.path.exists(path):
            os.remove(path)


def _evaluate(value):
    """A step counter's value: a Python int as is, a variable or tensor in the session."""
    if isinstance(value, int):
        return value
    return global_step(get_default_session(), value)


class CheckpointManager:
    """Saves numbered checkpoints of ``checkpoint`` in ``directory``, keeping a few.

    ``max_to_keep=None`` keeps them all; ``checkpoint_interval`` (with ``step_counter``)
    skips saves until that many steps passed since the last one.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, "
                             f"got {max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("`step_counter` should be passed if `checkpoint_interval` "
                                 "is not None.")
            self._last_checkpoint_step = last_checkpoint_step
            self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._maybe_delete = collections.OrderedDict()
        self._recover_state(get_checkpoint_state(self._directory))

    def _recover_state(self, state):
        """Adopts the checkpoints a state file lists (those newer than the last kept one
        may be deleted later, as TF decides)."""
        now = time.time()
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = state.model_checkpoint_path
        self._last_preserved_timestamp = state.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            _log.warning("time.time() returned a value %f seconds behind the last preserved "
                         "checkpoint timestamp.", self._last_preserved_timestamp - now)
            self._last_preserved_timestamp = now
        paths = list(state.all_model_checkpoint_paths)
        stamps = list(state.all_model_checkpoint_timestamps) or \
            [self._last_preserved_timestamp] * len(paths)
        for path, stamp in zip(paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    directory = property(lambda self: self._directory, doc="Where checkpoints are written.")
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    latest_checkpoint = property(lambda self: self._latest_checkpoint,
                                 doc="The newest checkpoint's prefix, or None.")
    checkpoint = property(lambda self: self._checkpoint, doc="The managed Checkpoint.")
    _prefix = property(lambda self: self._checkpoint_prefix)

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints' prefixes, oldest first."""
        return list(self._maybe_delete)

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            filename, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete_file_if_exists(filename + ".index")
            _delete_file_if_exists(filename + ".data-?????-of-?????")

    def _record_state(self):
        filenames, stamps = zip(*self._maybe_delete.items())
        update_checkpoint_state_internal(
            self._directory, model_checkpoint_path=self.latest_checkpoint,
            all_model_checkpoint_paths=filenames, all_model_checkpoint_timestamps=stamps,
            last_preserved_timestamp=self._last_preserved_timestamp, save_relative_paths=True)

    def _record_and_sweep(self, save_path):
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = time.time()
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()

    def _due(self, check_interval) -> bool:
        if self._checkpoint_interval is None:
            return True
        step = _evaluate(self._step_counter)
        if self._last_checkpoint_step is not None:
            if step == self._last_checkpoint_step:
                return False
            if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                return False
        self._last_checkpoint_step = step
        return True

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a checkpoint numbered ``checkpoint_number`` (an int or a variable/tensor,
        e.g. the global step) or else by the incremented ``save_counter``; returns its
        prefix, or None when ``checkpoint_interval`` says it is not due."""
        if not self._due(check_interval):
            return None
        session = get_default_session()
        created = vars(self._checkpoint).get("_sf_save_counter") is None
        counter = self._checkpoint.save_counter
        if created:  # TF's initializing variable creator: a new counter starts at 0
            session.run(counter.initializer)
        if self._save_counter_assign is None:
            self._save_counter_assign = counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = counter
        if not isinstance(checkpoint_number, int):
            checkpoint_number = global_step(session, checkpoint_number)
        prefix = f"{self._prefix}-{int(checkpoint_number)}"
        if options is None:
            options = CheckpointOptions(experimental_write_callbacks=[self._record_and_sweep])
        else:
            options = copy.copy(options)
            options.experimental_write_callbacks = \
                list(options.experimental_write_callbacks or []) + [self._record_and_sweep]
        return self._checkpoint._write(prefix, session=session, options=options)

    def restore_or_initialize(self):
        """Restores the latest checkpoint (returns its path) or runs ``init_fn``."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _evaluate(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
            _log.info("Customized initialization is done through the passed `init_fn`.")
        return None

    def sync(self):
        """Waits for asynchronous writes: scopeflow writes synchronously, so none."""
