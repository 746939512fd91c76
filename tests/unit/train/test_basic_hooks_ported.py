"""Selected tests of TensorFlow's basic_session_run_hooks_test.py, rewritten against the
public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name. TF's tests drive the hooks
through the private ``monitored_session._HookedSession``; ours use ``_HookedRun`` below,
which does what that wrapper does with public names only (before_run, one Session.run of
the caller's and the hooks' fetches and feeds, after_run, stop requests). TF tests left out
are listed in ``SKIPPED`` with the reason. ``test_real_tensorflow_passes_these_tests`` runs
this very file under the oracle with ``scopeflow`` standing for ``tensorflow.compat.v1``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
import time

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

MOCK_START_TIME = 1484695987.209386


@contextlib.contextmanager
def _mock_time(start=MOCK_START_TIME):
    """Replaces ``time.time`` (which the hooks' timers read) by a clock the test moves."""
    clock = {"now": start}
    real = time.time
    time.time = lambda: clock["now"]
    try:
        yield clock
    finally:
        time.time = real


@contextlib.contextmanager
def _model_dir():
    path = tempfile.mkdtemp(prefix="basic_hooks_")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class _HookedRun:
    """Runs fetches with hooks around them, as TF's ``_HookedSession`` does."""

    def __init__(self, sess, hooks):
        self._sess = sess
        self._hooks = hooks
        self.stop_requested = False

    def run(self, fetches):
        context = tf.train.SessionRunContext(
            original_args=tf.train.SessionRunArgs(fetches), session=self._sess)
        all_fetches, feeds = {"caller": fetches}, {}
        for i, hook in enumerate(self._hooks):
            request = hook.before_run(context)
            if request is not None:
                if request.fetches is not None:
                    all_fetches[i] = request.fetches
                feeds.update(request.feed_dict or {})
        results = self._sess.run(all_fetches, feed_dict=feeds or None)
        for i, hook in enumerate(self._hooks):
            hook.after_run(context, tf.train.SessionRunValues(
                results=results.get(i), options=tf.RunOptions(),
                run_metadata=tf.RunMetadata()))
        self.stop_requested = self.stop_requested or context.stop_requested
        return results["caller"]


class MockCheckpointSaverListener(tf.train.CheckpointSaverListener):
    def __init__(self):
        self.counts = {"begin": 0, "before_save": 0, "after_save": 0, "end": 0}
        self.ask_for_stop = False

    def begin(self):
        self.counts["begin"] += 1

    def before_save(self, session, global_step):
        self.counts["before_save"] += 1

    def after_save(self, session, global_step):
        self.counts["after_save"] += 1
        return True if self.ask_for_stop else None

    def end(self, session, global_step):
        self.counts["end"] += 1


# ── SecondOrStepTimer ────────────────────────────────────────────────────────────────
def test_timer_raise_in_both_secs_and_steps():
    with _raises(ValueError):
        tf.train.SecondOrStepTimer(every_secs=2.0, every_steps=10)


def test_timer_raise_in_none_secs_and_steps():
    with _raises(ValueError):
        tf.train.SecondOrStepTimer()


def test_timer_every_secs():
    with _mock_time() as clock:
        timer = tf.train.SecondOrStepTimer(every_secs=1.0)
        assert timer.should_trigger_for_step(1)
        timer.update_last_triggered_step(1)
        assert not timer.should_trigger_for_step(1)
        assert not timer.should_trigger_for_step(2)
        clock["now"] += 1.0
        assert not timer.should_trigger_for_step(1)
        assert timer.should_trigger_for_step(2)


def test_timer_every_steps():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(1)
    timer.update_last_triggered_step(1)
    assert not timer.should_trigger_for_step(1)
    assert not timer.should_trigger_for_step(2)
    assert not timer.should_trigger_for_step(3)
    assert timer.should_trigger_for_step(4)


def test_timer_update_last_triggered_step():
    timer = tf.train.SecondOrStepTimer(every_steps=1)
    assert timer.update_last_triggered_step(1) == (None, None)
    time.sleep(0.01)
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(5)
    assert elapsed_secs > 0
    assert elapsed_steps == 4
    time.sleep(0.01)
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(7)
    assert elapsed_secs > 0
    assert elapsed_steps == 2


# ── StopAtStepHook ───────────────────────────────────────────────────────────────────
def test_stop_at_step_raise_in_both_last_step_and_num_steps():
    with _raises(ValueError):
        tf.train.StopAtStepHook(num_steps=10, last_step=20)


def _check_stop_at_step(hook, steps_and_stops):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        no_op = tf.no_op()
        hook.begin()
        with tf.Session() as sess:
            run = _HookedRun(sess, [hook])
            sess.run(tf.assign(global_step, 5))
            hook.after_create_session(sess, None)
            run.run(no_op)
            assert not run.stop_requested
            for step, stops in steps_and_stops:
                sess.run(tf.assign(global_step, step))
                run.stop_requested = False
                run.run(no_op)
                assert run.stop_requested == stops, step


def test_stop_based_on_last_step():
    _check_stop_at_step(tf.train.StopAtStepHook(last_step=10),
                        [(9, False), (10, True), (11, True)])


def test_stop_based_on_num_step():
    _check_stop_at_step(tf.train.StopAtStepHook(num_steps=10),
                        [(13, False), (14, False), (15, True), (16, True)])


def test_stop_based_with_multiple_steps():
    _check_stop_at_step(tf.train.StopAtStepHook(num_steps=10), [(15, True)])


def test_logging_tensor_hook_illegal_args():
    with _raises(ValueError, "nvalid every_n_iter"):
        tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=0)
    with _raises(ValueError, "nvalid every_n_iter"):
        tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=-10)
    with _raises(ValueError, "xactly one of"):
        tf.train.LoggingTensorHook(tensors=["t"], every_n_iter=5, every_n_secs=5)
    with _raises(ValueError, "xactly one of"):
        tf.train.LoggingTensorHook(tensors=["t"])


# ── CheckpointSaverHook ──────────────────────────────────────────────────────────────
@contextlib.contextmanager
def _checkpoint_setup():
    """TF's CheckpointSaverHookTest.setUp: a scaffold, a global step and its increment."""
    with _model_dir() as model_dir, tf.Graph().as_default():
        scaffold = tf.train.Scaffold()
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        yield model_dir, scaffold, global_step, train_op


def _saved_step(model_dir, global_step):
    return int(tf.train.load_variable(model_dir, global_step.op.name))


def test_checkpoint_saves_when_saver_and_scaffold_both_missing():
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op):
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=1)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            _HookedRun(sess, [hook]).run(train_op)
            assert _saved_step(model_dir, global_step) == 1


def test_checkpoint_raise_when_saver_and_scaffold_both_present():
    with _checkpoint_setup() as (model_dir, scaffold, _, _):
        with _raises(ValueError):
            tf.train.CheckpointSaverHook(model_dir, saver=tf.train.Saver(), scaffold=scaffold)


def test_checkpoint_raise_in_both_secs_and_steps():
    with _raises(ValueError):
        tf.train.CheckpointSaverHook("/tmp/unused", save_secs=10, save_steps=20)


def test_checkpoint_raise_in_none_secs_and_steps():
    with _raises(ValueError):
        tf.train.CheckpointSaverHook("/tmp/unused")


def _first_step(**kwargs):
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op):
        hook = tf.train.CheckpointSaverHook(model_dir, scaffold=scaffold, **kwargs)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            _HookedRun(sess, [hook]).run(train_op)
            assert _saved_step(model_dir, global_step) == 1


def test_checkpoint_save_secs_saves_in_first_step():
    _first_step(save_secs=2)


def test_checkpoint_save_steps_saves_in_first_step():
    _first_step(save_steps=2)


def test_checkpoint_save_secs_calls_listeners_at_begin_and_end():
    with _checkpoint_setup() as (model_dir, scaffold, _, train_op):
        listener = MockCheckpointSaverListener()
        hook = tf.train.CheckpointSaverHook(model_dir, save_secs=2, scaffold=scaffold,
                                            listeners=[listener])
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            run.run(train_op)  # saves here
            run.run(train_op)  # not here, so it does at the end
            hook.end(sess)
        assert listener.counts == {"begin": 1, "before_save": 2, "after_save": 2, "end": 1}


def _listener_run(model_dir, n_listeners, with_scaffold):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        listeners = [MockCheckpointSaverListener() for _ in range(n_listeners)]
        scaffold = tf.train.Scaffold() if with_scaffold else None
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=1, scaffold=scaffold,
                                            listeners=listeners)
        with tf.train.SingularMonitoredSession(hooks=[hook], scaffold=scaffold,
                                               checkpoint_dir=model_dir) as sess:
            sess.run(train_op)
            sess.run(train_op)
            global_step_val = sess.raw_session().run(global_step)
    assert global_step_val == 2
    for listener in listeners:
        assert listener.counts == {"begin": 1, "before_save": 3, "after_save": 3, "end": 1}
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        with tf.train.SingularMonitoredSession(checkpoint_dir=model_dir) as sess2:
            assert sess2.run(global_step) == 2


def test_checkpoint_listener_with_monitored_session():
    with _model_dir() as model_dir:
        _listener_run(model_dir, 1, with_scaffold=True)


def test_checkpoint_listener_with_default_saver():
    with _model_dir() as model_dir:
        _listener_run(model_dir, 1, with_scaffold=False)


def test_checkpoint_two_listeners_with_default_saver():
    with _model_dir() as model_dir:
        _listener_run(model_dir, 2, with_scaffold=False)


def test_checkpoint_listener_stops_training_in_after_save():
    with _model_dir() as model_dir, tf.Graph().as_default():
        scaffold = tf.train.Scaffold()
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        listener = MockCheckpointSaverListener()
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=1, scaffold=scaffold,
                                            listeners=[listener])
        with tf.train.SingularMonitoredSession(hooks=[hook], scaffold=scaffold,
                                               checkpoint_dir=model_dir) as sess:
            sess.run(train_op)
            assert not sess.should_stop()
            sess.run(train_op)
            assert not sess.should_stop()
            listener.ask_for_stop = True
            sess.run(train_op)
            assert sess.should_stop()


def test_checkpoint_save_secs_saves_periodically():
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op), \
            _mock_time() as clock:
        hook = tf.train.CheckpointSaverHook(model_dir, save_secs=2, scaffold=scaffold)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            for offset, saved in ((0, 1), (0.5, 1), (2.5, 3), (2.6, 3), (2.7, 3), (10, 6)):
                clock["now"] = MOCK_START_TIME + offset
                run.run(train_op)
                assert _saved_step(model_dir, global_step) == saved, offset


def test_checkpoint_save_secs_calls_listeners_periodically():
    with _checkpoint_setup() as (model_dir, scaffold, _, train_op), _mock_time() as clock:
        listener = MockCheckpointSaverListener()
        hook = tf.train.CheckpointSaverHook(model_dir, save_secs=2, scaffold=scaffold,
                                            listeners=[listener])
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            for offset in (0.5, 0.5, 3.0, 3.5, 4.0, 6.5, 7.0):
                clock["now"] = MOCK_START_TIME + offset
                run.run(train_op)
            clock["now"] = MOCK_START_TIME + 7.5
            hook.end(sess)
        assert listener.counts == {"begin": 1, "before_save": 4, "after_save": 4, "end": 1}


def test_checkpoint_save_steps_saves_periodically():
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op):
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=2, scaffold=scaffold)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            run.run(train_op)
            for saved in (1, 3, 3, 5):
                run.run(train_op)
                assert _saved_step(model_dir, global_step) == saved


def test_checkpoint_save_saves_at_end():
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op):
        hook = tf.train.CheckpointSaverHook(model_dir, save_secs=2, scaffold=scaffold)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            run.run(train_op)
            run.run(train_op)
            hook.end(sess)
            assert _saved_step(model_dir, global_step) == 2


def test_checkpoint_save_checkpoint_before_first_train_step():
    with _checkpoint_setup() as (model_dir, scaffold, global_step, train_op):
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=2, scaffold=scaffold)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            run = _HookedRun(sess, [hook])
            sess.run(scaffold.init_op)
            hook.after_create_session(sess, None)
            assert _saved_step(model_dir, global_step) == 0  # saved at step 0
            run.run(train_op)
            assert _saved_step(model_dir, global_step) == 0
            run.run(train_op)
            assert _saved_step(model_dir, global_step) == 2


# ── SummarySaverHook (argument checks) ───────────────────────────────────────────────
def test_summary_saver_raise_when_scaffold_and_summary_op_both_missing():
    with _raises(ValueError):
        tf.train.SummarySaverHook()


def test_summary_saver_raise_when_scaffold_and_summary_op_both_present():
    with tf.Graph().as_default():
        summary_op = tf.summary.scalar("my_summary", tf.constant(1.0))
        with _raises(ValueError):
            tf.train.SummarySaverHook(scaffold=tf.train.Scaffold(), summary_op=summary_op)


def test_summary_saver_raise_in_both_secs_and_steps():
    with _model_dir() as log_dir, tf.Graph().as_default():
        summary_op = tf.summary.scalar("my_summary", tf.constant(1.0))
        with _raises(ValueError):
            tf.train.SummarySaverHook(save_secs=10, save_steps=20, output_dir=log_dir,
                                      summary_op=summary_op)


def test_summary_saver_raise_in_none_secs_and_steps():
    with _model_dir() as log_dir, tf.Graph().as_default():
        summary_op = tf.summary.scalar("my_summary", tf.constant(1.0))
        with _raises(ValueError):
            tf.train.SummarySaverHook(save_secs=None, save_steps=None, output_dir=log_dir,
                                      summary_op=summary_op)


def _summaries(log_dir):
    """``{step: {tag: simple_value}}`` of the summaries in ``log_dir``'s event files (what
    TF's FakeSummaryWriter records)."""
    tf.summary.FileWriterCache.get(log_dir).flush()  # the hooks' shared writer
    out: dict = {}
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents*"))):
        for event in tf.train.summary_iterator(path):
            if event.HasField("summary"):
                values = out.setdefault(int(event.step), {})
                for value in event.summary.value:
                    values[value.tag] = value.simple_value
    return out


@contextlib.contextmanager
def _summary_setup():
    """TF's SummarySaverHookTest.setUp: two summaries of a counter, a global step."""
    with _model_dir() as log_dir, tf.Graph().as_default():
        var = tf.Variable(0.0)
        tensor = tf.assign_add(var, 1.0)
        summary_op = tf.summary.scalar("my_summary", tensor)
        summary_op2 = tf.summary.scalar("my_summary2", tensor * 2)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        yield log_dir, summary_op, summary_op2, train_op


def _run_summary_hook(hook, train_op, steps, clock=None, tick=0.0):
    with tf.Session() as sess:
        hook.begin()
        sess.run(tf.global_variables_initializer())
        run = _HookedRun(sess, [hook])
        for _ in range(steps):
            run.run(train_op)
            if clock is not None:
                clock["now"] += tick
        hook.end(sess)


def test_summary_saver_save_steps():
    with _summary_setup() as (log_dir, summary_op, _, train_op):
        hook = tf.train.SummarySaverHook(save_steps=8, output_dir=log_dir,
                                         summary_op=summary_op)
        _run_summary_hook(hook, train_op, 30)
        assert _summaries(log_dir) == {1: {"my_summary": 1.0}, 9: {"my_summary": 2.0},
                                       17: {"my_summary": 3.0}, 25: {"my_summary": 4.0}}


def test_summary_saver_multiple_summaries():
    with _summary_setup() as (log_dir, summary_op, summary_op2, train_op):
        hook = tf.train.SummarySaverHook(save_steps=8, output_dir=log_dir,
                                         summary_op=[summary_op, summary_op2])
        _run_summary_hook(hook, train_op, 10)
        assert _summaries(log_dir) == {1: {"my_summary": 1.0, "my_summary2": 2.0},
                                       9: {"my_summary": 2.0, "my_summary2": 4.0}}


def test_summary_saver_save_secs_saving_once_every_step():
    with _summary_setup() as (log_dir, summary_op, _, train_op), _mock_time() as clock:
        hook = tf.train.SummarySaverHook(save_secs=0.5, output_dir=log_dir,
                                         summary_op=summary_op)
        _run_summary_hook(hook, train_op, 4, clock, 0.5)
        assert _summaries(log_dir) == {i: {"my_summary": float(i)} for i in (1, 2, 3, 4)}


def test_summary_saver_save_secs_saving_once_every_three_steps():
    with _summary_setup() as (log_dir, summary_op, _, train_op), _mock_time() as clock:
        hook = tf.train.SummarySaverHook(save_secs=9.0, output_dir=log_dir,
                                         summary_op=summary_op)
        _run_summary_hook(hook, train_op, 8, clock, 3.1)
        # 24.8 seconds pass (3.1 * 8): a save every 9 seconds from the first step.
        assert _summaries(log_dir) == {1: {"my_summary": 1.0}, 4: {"my_summary": 2.0},
                                       7: {"my_summary": 3.0}}


# ── StepCounterHook ──────────────────────────────────────────────────────────────────
def _step_counter(hook_kwargs, ticks, make_step=None):
    with _model_dir() as log_dir, tf.Graph().as_default(), _mock_time() as clock:
        step = make_step() if make_step else tf.train.get_or_create_global_step()
        train_op = tf.assign_add(step, 1)
        hook = tf.train.StepCounterHook(output_dir=log_dir, **hook_kwargs)
        with tf.Session() as sess:
            hook.begin()
            sess.run(tf.global_variables_initializer())
            run = _HookedRun(sess, [hook])
            for before, after in ticks:
                clock["now"] += before
                run.run(train_op)
                clock["now"] += after
            hook.end(sess)
        return _summaries(log_dir)


def test_step_counter_every_n_steps():
    got = _step_counter({"every_n_steps": 10}, [(0.01, 0)] * 30)
    assert sorted(got) == [11, 21]
    for values in got.values():
        assert list(values) == ["global_step/sec"]
        assert values["global_step/sec"] > 0


def test_step_counter_every_n_secs():
    got = _step_counter({"every_n_steps": None, "every_n_secs": 0.1},
                        [(0, 0.2), (0, 0.2), (0, 0)])
    assert sorted(got) == [2, 3]
    for values in got.values():
        assert values["global_step/sec"] > 0


def test_step_counter_global_step_name():
    def make_step():
        with tf.variable_scope("bar"):
            return tf.get_variable("foo", initializer=0, trainable=False, collections=[
                tf.GraphKeys.GLOBAL_STEP, tf.GraphKeys.GLOBAL_VARIABLES])

    got = _step_counter({"every_n_steps": 1, "every_n_secs": None}, [(0.01, 0)] * 2,
                        make_step)
    assert sorted(got) == [2]
    assert list(got[2]) == ["bar/foo/sec"]


# ── ProfilerHook ─────────────────────────────────────────────────────────────────────
def test_profiler_raise_in_both_secs_and_steps():
    with _model_dir() as output_dir, _raises(ValueError):
        tf.train.ProfilerHook(save_secs=10, save_steps=20, output_dir=output_dir)


def test_profiler_raise_in_none_secs_and_steps():
    with _model_dir() as output_dir, _raises(ValueError):
        tf.train.ProfilerHook(save_secs=None, save_steps=None, output_dir=output_dir)


def _timelines(output_dir):
    return len(glob.glob(os.path.join(output_dir, "timeline-*.json")))


def test_profiler_save_steps_saves_periodically():
    with _model_dir() as output_dir, tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=output_dir)
        with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
            assert _timelines(output_dir) == 0
            for want in (0, 1, 1, 2, 2):
                sess.run(train_op)
                assert _timelines(output_dir) == want


def test_profiler_save_secs_does_not_save_in_first_step():
    with _model_dir() as output_dir, tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        hook = tf.train.ProfilerHook(save_secs=2, output_dir=output_dir)
        with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
            sess.run(train_op)
            assert _timelines(output_dir) == 0


def test_resource_checkpoint_save_steps_saves_periodically():
    with _model_dir() as model_dir, tf.Graph().as_default():
        scaffold = tf.train.Scaffold()
        with tf.variable_scope("foo", use_resource=True):
            global_step = tf.train.get_or_create_global_step()
        train_op = tf.assign_add(global_step, 1)
        hook = tf.train.CheckpointSaverHook(model_dir, save_steps=2, scaffold=scaffold)
        hook.begin()
        scaffold.finalize()
        with tf.Session() as sess:
            sess.run(scaffold.init_op)
            run = _HookedRun(sess, [hook])
            run.run(train_op)
            for saved in (1, 3, 3, 5):
                run.run(train_op)
                assert _saved_step(model_dir, global_step) == saved


# ── GlobalStepWaiterHook ─────────────────────────────────────────────────────────────
def test_global_step_waiter_not_wait_for_step_zero():
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        hook = tf.train.GlobalStepWaiterHook(wait_until_step=0)
        hook.begin()
        with tf.Session() as sess:
            hook.before_run(tf.train.SessionRunContext(original_args=None, session=sess))


def test_global_step_waiter_wait_for_step():
    with tf.Graph().as_default():
        gstep = tf.train.get_or_create_global_step()
        hook = tf.train.GlobalStepWaiterHook(wait_until_step=1000)
        hook.begin()
        with tf.Session() as sess:
            calls = []

            def fake_sleep(seconds):
                calls.append(seconds)
                if len(calls) == 1:
                    sess.run(tf.assign(gstep, 500))
                elif len(calls) == 2:
                    sess.run(tf.assign(gstep, 1100))
                else:
                    raise AssertionError("before_run should end after the second sleep")

            sess.run(tf.global_variables_initializer())
            real_sleep = time.sleep
            time.sleep = fake_sleep
            try:
                hook.before_run(tf.train.SessionRunContext(original_args=None, session=sess))
            finally:
                time.sleep = real_sleep
            assert len(calls) == 2


# ── FinalOpsHook, FeedFnHook ─────────────────────────────────────────────────────────
def test_final_ops_is_scalar_tensor():
    with tf.Graph().as_default():
        hook = tf.train.FinalOpsHook(tf.constant(4))
        hook.begin()
        with tf.Session() as sess:
            hook.end(sess)
            assert hook.final_ops_values == 4


def test_final_ops_is_tensor():
    with tf.Graph().as_default():
        hook = tf.train.FinalOpsHook(tf.constant([1, 6, 3, 5, 2, 4]))
        hook.begin()
        with tf.Session() as sess:
            hook.end(sess)
            assert hook.final_ops_values.tolist() == [1, 6, 3, 5, 2, 4]


def test_final_ops_triggers_out_of_range_error():
    with tf.Graph().as_default():
        read_ops = tf.data.make_one_shot_iterator(tf.data.Dataset.range(1)).get_next()
        hook = tf.train.FinalOpsHook(read_ops)
        hook.begin()
        with tf.Session() as sess:
            sess.run(read_ops)
            with _raises(tf.errors.OutOfRangeError, "End of sequence"):
                hook.end(sess)


def test_final_ops_with_dictionary():
    with tf.Graph().as_default():
        final_ops = tf.placeholder(dtype=tf.float32)
        hook = tf.train.FinalOpsHook(final_ops, {final_ops: [4, -3]})
        hook.begin()
        with tf.Session() as sess:
            hook.end(sess)
            assert hook.final_ops_values.tolist() == [4, -3]


def test_feeding_placeholder():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(dtype=tf.float32)
        y = x + 1
        hook = tf.train.FeedFnHook(feed_fn=lambda: {x: 1.0})
        hook.begin()
        assert _HookedRun(sess, [hook]).run(y) == np.float32(2)


# ── skipped ──────────────────────────────────────────────────────────────────────────
SKIPPED = {
    "LoggingTensorHookTest (7 tests: all but test_illegal_args)":
        "patches tensorflow.python.platform.tf_logging.info, a module the public API "
        "does not expose",
    "StepCounterHookTest.test_log_warning_if_global_step_not_increased":
        "patches tensorflow.python.platform.tf_logging.warning (not public)",
    "CheckpointSaverHookTest.test_summary_writer_defs":
        "compares the graph and saver_def contrib's FakeSummaryWriter recorded",
    "CheckpointSaverHookMultiStepTest (2 tests), StepCounterHookTest.test_steps_per_run_* "
    "(3 tests)": "use the private _set_steps_per_run of the hooks",
    "ProfilerHookTest.test_save_secs_saves_periodically":
        "not ported this session (out of time)",
    "ResourceSummarySaverHookTest.test_save_steps":
        "not ported this session (out of time); SummarySaverHookTest.test_save_steps is",
    "ProfilerHookTest.test_run_metadata_saves":
        "reads writer_cache.FileWriterCache and FakeSummaryWriter internals",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
