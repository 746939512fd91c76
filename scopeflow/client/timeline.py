"""Chrome trace files from ``RunMetadata.step_stats`` (TF1's
``tensorflow.python.client.timeline``).

>>> import json
>>> import scopeflow.client.timeline as timeline
>>> x = tf.placeholder(tf.float32, [2], name="x"); y = tf.reduce_sum(x * x, name="y")
>>> meta = tf.RunMetadata()
>>> _ = tf.Session().run(y, {x: [1.0, 2.0]}, run_metadata=meta,
...                      options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
>>> trace = json.loads(timeline.Timeline(meta.step_stats).generate_chrome_trace_format())
>>> sorted({e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "X"})
['mul', 'y']
"""

from __future__ import annotations

import json
import re

__all__ = ["Timeline", "AllocationMaximum", "StepStatsAnalysis"]

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


class AllocationMaximum:
    """Peak memory of an allocator (``timeline.AllocationMaximum``)."""

    def __init__(self, timestamp, num_bytes, tensors):
        self.timestamp, self.num_bytes, self.tensors = timestamp, num_bytes, tensors


class StepStatsAnalysis:
    """The trace events and allocator peaks of a step (``Timeline.analyze_step_stats``)."""

    def __init__(self, chrome_trace, allocator_maximums):
        self.chrome_trace = chrome_trace
        self.allocator_maximums = allocator_maximums


class _ChromeTrace:
    """Chrome's trace-event JSON (the ``traceEvents`` list chrome://tracing loads)."""

    def __init__(self):
        self.events: list = []
        self.metadata: list = []

    def process(self, name, pid):
        self.metadata.append({"name": "process_name", "ph": "M", "pid": pid,
                              "args": {"name": name}})

    def complete(self, category, name, pid, tid, ts, dur, args):
        self.events.append({"ph": "X", "cat": category, "name": name, "pid": pid,
                            "tid": tid, "ts": ts, "dur": dur, "args": args})

    def flow(self, phase, name, pid, tid, ts, flow_id):
        event = {"ph": phase, "cat": "DataFlow", "name": name, "pid": pid, "tid": tid,
                 "ts": ts, "id": flow_id}
        if phase == "t":
            event["bp"] = "e"  # binds to the enclosing slice, as TF's traces
        self.events.append(event)

    def format(self, pretty=False) -> str:
        trace = {"traceEvents": self.metadata + self.events}
        return json.dumps(trace, indent=4 if pretty else None,
                          separators=(",", ":") if not pretty else None)


class Timeline:
    """One step's ``StepStats`` as a Chrome trace: a lane per device, a slice per op, and
    arrows from each tensor's producer to its consumers (``show_dataflow``)."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def _parse(self, node):
        match = _LABEL.match(node.timeline_label or "")
        if match is None:
            return node.node_name, node.node_name, []
        name, op_type, inputs = match.groups()
        return name, op_type, [i.strip() for i in inputs.split(",") if i.strip()]

    def analyze_step_stats(self, show_dataflow=True, show_memory=True, op_time="schedule"):
        trace = _ChromeTrace()
        produced: dict = {}
        nodes = []
        for pid, dev in enumerate(self._step_stats.dev_stats):
            trace.process(f"{dev.device} Compute", pid)
            for node in dev.node_stats:
                name, op_type, inputs = self._parse(node)
                start = node.all_start_micros
                dur = max(node.op_end_rel_micros, 1)
                args = {"name": name, "op": op_type}
                args.update({f"input{i}": x for i, x in enumerate(inputs)})
                trace.complete("Op", op_type, pid, 0, start, dur, args)
                produced[name] = (pid, start + dur)
                nodes.append((pid, start, inputs))
        if show_dataflow:
            flow_id = 0
            for pid, start, inputs in nodes:
                for x in inputs:
                    source = produced.get(x.lstrip("^").split(":")[0])
                    if source is None:
                        continue
                    trace.flow("s", x, source[0], 0, source[1] - 1, flow_id)
                    trace.flow("t", x, pid, 0, start, flow_id)
                    flow_id += 1
        # NOTE: show_memory needs allocation records, which scopeflow does not collect
        # (NumPy owns the buffers); the argument is accepted and adds nothing.
        return StepStatsAnalysis(trace, {})

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False,
                                     op_time="schedule") -> str:
        """The trace as a JSON string (load it in chrome://tracing or Perfetto)."""
        analysis = self.analyze_step_stats(show_dataflow, show_memory, op_time)
        return analysis.chrome_trace.format()
