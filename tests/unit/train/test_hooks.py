"""The session-run hooks (scopeflow/train/basic_session_run_hooks.py), step stats and the
Chrome-trace timeline. How they behave inside a monitored session, against TF, is in
test_monitored_session.py."""

from __future__ import annotations

import json
import logging
import os

import pytest

import scopeflow as tf
from scopeflow.client import timeline
from scopeflow.io import protos
from scopeflow.train import basic_session_run_hooks as hooks_lib


@pytest.fixture(autouse=True)
def _fresh_writers():
    yield
    tf.summary.FileWriterCache.clear()


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def tf_log():
    """The messages logged to TF's logger ("tensorflow") at INFO and above."""
    logger = logging.getLogger("tensorflow")
    handler, old = _Lines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler.lines
    logger.removeHandler(handler)
    logger.setLevel(old)


def _model():
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    loss = tf.square(w - 3.0, name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return step, w, loss, train


class _Clock:
    """A stand-in for ``time.time`` in the hooks module, moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now

    def sleep(self, secs):
        self.now += secs


@pytest.fixture
def clock(monkeypatch):
    c = _Clock()
    monkeypatch.setattr(hooks_lib, "time", c)
    return c


# ── timers and hook arguments ───────────────────────────────────────────────────────
def test_timer_every_secs(clock):
    timer = tf.train.SecondOrStepTimer(every_secs=10)
    assert timer.should_trigger_for_step(0)
    timer.update_last_triggered_step(0)
    clock.now += 9
    assert not timer.should_trigger_for_step(5)
    clock.now += 1
    assert timer.should_trigger_for_step(5)
    assert not timer.should_trigger_for_step(0)  # never twice for the same step
    assert timer.update_last_triggered_step(5) == (10.0, 5)
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        tf.train.SecondOrStepTimer()


@pytest.mark.parametrize("make, message", [
    (lambda: tf.train.LoggingTensorHook(["x"], every_n_iter=0), "invalid every_n_iter=0."),
    (lambda: tf.train.StopAtStepHook(num_steps=1, last_step=2), "Only one of num_steps"),
    (lambda: tf.train.StepCounterHook(every_n_steps=None), "exactly one of every_n_steps"),
    (lambda: tf.train.SummarySaverHook(save_steps=1), "Exactly one of scaffold or summary_op"),
    (lambda: tf.train.CheckpointSaverHook("d", save_steps=1, saver=object(),
                                          scaffold=object()), "both saver and scaffold"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_session_run_args_and_context():
    args = tf.train.SessionRunArgs("a")
    assert (args.fetches, args.feed_dict, args.options) == ("a", None, None)
    context = tf.train.SessionRunContext(original_args=args, session="s")
    assert not context.stop_requested
    context.request_stop()
    assert context.stop_requested and context.session == "s"
    assert tf.train.SessionRunHook().before_run(context) is None


# ── LoggingTensorHook ───────────────────────────────────────────────────────────────
def test_logging_by_name_every_n_secs_and_at_end(tf_log, clock):
    with tf.Graph().as_default():
        step, w, loss, train = _model()
        hook = tf.train.LoggingTensorHook(["loss", "w:0"], every_n_secs=5, at_end=True)
        with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(3)]) as sess:
            sess.run(train)
            clock.now += 1
            sess.run(train)  # not yet due
            clock.now += 5
            sess.run(train)
    logged = [ln for ln in tf_log if ln.startswith("loss")]
    # The first run, the third (6 s later) and the end (loss is computed before the
    # update, w read after it, as in TF).
    assert logged == ["loss = 4.0, w:0 = 1.4", "loss = 1.6384, w:0 = 1.9760001 (6.000 sec)",
                      "loss = 1.0485759, w:0 = 1.9760001 (0.000 sec)"]


def test_logging_rejects_ambiguous_name_and_other_graph():
    with tf.Graph().as_default():
        tf.split([1.0, 2.0], 2, name="halves")
        hook = tf.train.LoggingTensorHook(["halves"], every_n_iter=1)
        with pytest.raises(ValueError, match="Name halves is ambiguous"):
            hook.begin()
        other = tf.Graph()
        with other.as_default():
            t = tf.constant(1.0)
        with pytest.raises(ValueError, match="should have graph attribute"):
            tf.train.LoggingTensorHook([t], every_n_iter=1).begin()


# ── StepCounterHook, SummarySaverHook, CheckpointSaverHook ──────────────────────────
def test_step_counter_writes_steps_per_second(tmp_path, tf_log, clock):
    with tf.Graph().as_default():
        step, w, loss, train = _model()
        hook = tf.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path))
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
                clock.now += 0.5
    tf.summary.FileWriterCache.clear()
    values = [(e.step, v.tag, v.simple_value)
              for name in os.listdir(tmp_path)
              for e in tf.train.summary_iterator(str(tmp_path / name)) if e.HasField("summary")
              for v in e.summary.value]
    assert values == [(3, "global_step/sec", 2.0), (5, "global_step/sec", 2.0)]
    assert "global_step/sec: 2" in tf_log


def test_step_counter_warns_when_the_step_does_not_move(tf_log):
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        noop = tf.no_op()
        with tf.train.MonitoredSession(hooks=[tf.train.StepCounterHook(every_n_steps=1)]) as s:
            for _ in range(3):
                s.run(noop)
    assert sum("global step (tf.train.get_global_step) has not been increased" in ln
               for ln in tf_log) == 2


def test_checkpoint_hook_needs_a_saver(tmp_path):
    with tf.Graph().as_default():
        _model()
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=1)
        hook.begin()
        with pytest.raises(RuntimeError, match="No items in collection savers"):
            hook._get_saver()


def test_checkpoint_hook_save_secs_and_graph_pbtxt(tmp_path, clock):
    from google.protobuf import text_format

    with tf.Graph().as_default():
        step, w, loss, train = _model()
        saver = tf.train.Saver()
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_secs=60, saver=saver)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train)
            clock.now += 60
            sess.run(train)
            sess.run(train)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == \
        ["model.ckpt-0", "model.ckpt-4", "model.ckpt-5"]
    graph_def = text_format.Parse((tmp_path / "graph.pbtxt").read_text(), protos.GraphDef())
    assert "w" in {n.name for n in graph_def.node}


def test_summary_saver_with_its_own_writer(tmp_path):
    with tf.Graph().as_default():
        step, w, loss, train = _model()
        op = tf.summary.scalar("w_value", w)
        writer = tf.summary.FileWriter(str(tmp_path))
        hook = tf.train.SummarySaverHook(save_steps=2, summary_writer=writer, summary_op=op)
        with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(5)]) as sess:
            while not sess.should_stop():
                sess.run(train)
        writer.close()
    steps = [e.step for name in os.listdir(tmp_path)
             for e in tf.train.summary_iterator(str(tmp_path / name)) if e.HasField("summary")]
    assert steps == [1, 3, 5]


# ── NanTensorHook, FinalOpsHook, GlobalStepWaiterHook ───────────────────────────────
def test_nan_hook_error_and_log(tf_log):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        with pytest.raises(tf.train.NanLossDuringTrainingError, match="NaN loss during"):
            with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(x)]) as sess:
                sess.run(x, {x: 1.0})
                sess.run(x, {x: float("nan")})
    assert "Model diverged with loss = NaN." in tf_log


def test_final_ops_hook_reraises_out_of_range(tf_log):
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(tf.data.Dataset.range(1)).get_next()
        hook = tf.train.FinalOpsHook(nxt)
        sess = tf.train.MonitoredSession(hooks=[hook])
        sess.run(nxt)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.close()
    assert any("FinalOpsHook" in ln for ln in tf_log)


def test_global_step_waiter_waits_until_the_step(monkeypatch):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(step, 1)
        slept = []
        hook = tf.train.GlobalStepWaiterHook(wait_until_step=3)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            raw = sess._tf_sess()

            class Sleeper:  # another worker moves the step while this one waits
                @staticmethod
                def sleep(secs):
                    slept.append(secs)
                    raw.run(inc)
            monkeypatch.setattr(hooks_lib, "time", Sleeper)
            sess.run(step)
            sess.run(step)  # started: no more waiting
    assert slept == [0.5, 0.5, 0.5]


# ── ProfilerHook, step stats and the timeline ───────────────────────────────────────
def test_profiler_hook_writes_chrome_traces(tmp_path):
    with tf.Graph().as_default():
        step, w, loss, train = _model()
        hooks = [tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path)),
                 tf.train.StopAtStepHook(last_step=3)]
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            while not sess.should_stop():
                sess.run(train)
    trace = json.loads((tmp_path / "timeline-2.json").read_text())
    ops = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    names = {e["args"]["name"] for e in ops}
    assert {"sub", "GradientDescent/update_w/ApplyGradientDescent"} <= names
    assert all(e["dur"] >= 1 and e["ts"] > 0 for e in ops)
    assert any(e["ph"] == "M" and "CPU:0" in e["args"]["name"] for e in trace["traceEvents"])
    assert {e["ph"] for e in trace["traceEvents"]} >= {"s", "t"}  # dataflow arrows


def test_step_stats_only_when_tracing():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.reduce_sum(tf.exp(x, name="e"), name="y")
    sess = tf.Session()
    meta = tf.RunMetadata()
    sess.run(y, {x: [1.0, 2.0, 3.0]}, run_metadata=meta)
    assert not meta.HasField("step_stats")
    sess.run(y, {x: [1.0, 2.0, 3.0]}, options=tf.RunOptions(), run_metadata=meta)
    assert not meta.HasField("step_stats")
    value = sess.run({"y": y}, {x: [0.0, 0.0, 0.0]},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    assert value == {"y": 3.0}
    (dev,) = meta.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    nodes = list(dev.node_stats)
    assert [n.node_name for n in nodes] == ["e", "y"]
    assert nodes[0].timeline_label == "e = Exp(x)"
    assert nodes[0].all_start_micros <= nodes[1].all_start_micros
    assert all(n.op_end_rel_nanos >= 0 for n in nodes)


def test_timeline_of_hand_made_step_stats():
    stats = protos.StepStats()
    dev = stats.dev_stats.add(device="/cpu:0")
    dev.node_stats.add(node_name="a", all_start_micros=10, op_end_rel_micros=5,
                       timeline_label="a = Const()")
    dev.node_stats.add(node_name="b", all_start_micros=20, op_end_rel_micros=0,
                       timeline_label="b = Neg(a)")
    trace = json.loads(timeline.Timeline(stats).generate_chrome_trace_format(
        show_dataflow=False))
    ops = [(e["name"], e["ts"], e["dur"], e["args"]) for e in trace["traceEvents"]
           if e["ph"] == "X"]
    assert ops == [("Const", 10, 5, {"name": "a", "op": "Const"}),
                   ("Neg", 20, 1, {"name": "b", "op": "Neg", "input0": "a"})]
    with_flow = json.loads(timeline.Timeline(stats).generate_chrome_trace_format())
    flows = [(e["ph"], e["ts"]) for e in with_flow["traceEvents"] if e.get("cat") == "DataFlow"]
    assert flows == [("s", 14), ("t", 20)]


def test_write_graph(tmp_path):
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="c")
        text = tf.train.write_graph(g, str(tmp_path / "sub"), "g.pbtxt")
        binary = tf.train.write_graph(g.as_graph_def(), str(tmp_path), "g.pb", as_text=False)
    assert 'name: "c"' in open(text).read()
    assert [n.name for n in protos.GraphDef.FromString(open(binary, "rb").read()).node] == ["c"]
