"""Per-op timings of one ``Session.run`` for ``RunOptions(trace_level=FULL_TRACE)``.

A plan is one generated Python function with one line per kernel call
(``runtime.codegen``), so a line tracer on that function's frame sees each op start and
end without the plan knowing: the untraced path is unchanged and pays nothing. Ops that
the plan passes folded into another op's line (a variable read absorbed by its reader,
constants) have no line of their own and are timed as part of that line's op.

The result fills ``RunMetadata.step_stats`` as TF does: one ``DeviceStepStats`` for the
CPU, with a ``NodeExecStats`` per op run (absolute start, relative end, a
``timeline_label`` of the form ``name = Type(inputs)``).
"""

from __future__ import annotations

import sys
import threading
import time

from scopeflow.runtime.codegen import PLAN_FILENAME

__all__ = ["DEVICE", "traced", "fill_step_stats"]

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class _LineTimer:
    """Records ``(line, start_ns, end_ns)`` for each line of the outermost plan frame."""

    def __init__(self):
        self.spans: list = []
        self.plan_globals = None
        self._line = None
        self._start = 0

    def global_trace(self, frame, event, arg):
        code = frame.f_code
        # The plan's function, not the module code that defines it when it is compiled.
        if self.plan_globals is None and code.co_filename == PLAN_FILENAME and \
                code.co_name == "_plan":
            self.plan_globals = frame.f_globals
            return self.local_trace
        return None  # kernels and sub-plans run untraced (their time is their line's)

    def local_trace(self, frame, event, arg):
        now = time.perf_counter_ns()
        if self._line is not None:
            self.spans.append((self._line, self._start, now))
        self._line = frame.f_lineno if event == "line" else None
        self._start = time.perf_counter_ns()
        return self.local_trace


def traced(run):
    """Calls ``run()`` with the plan's lines timed; returns ``(result, spans, globals,
    start_ns)`` (``perf_counter`` spans and the matching wall-clock offset)."""
    timer = _LineTimer()
    wall_offset = time.time_ns() - time.perf_counter_ns()
    old = sys.gettrace()
    sys.settrace(timer.global_trace)
    try:
        result = run()
    finally:
        sys.settrace(old)
    return result, timer.spans, timer.plan_globals, wall_offset


def _label(op) -> str:
    inputs = ", ".join(t.name.split(":")[0] if t.value_index == 0 else t.name
                       for t in op.inputs)
    return f"{op.name} = {op.type}({inputs})"


def fill_step_stats(run_metadata, plan, spans, wall_offset):
    """Adds one ``NodeExecStats`` per traced op of ``plan`` to ``run_metadata``."""
    by_op: dict = {}
    order = []
    for line, start, end in spans:
        op = plan.op_at_line(line)
        if op is None:
            continue  # `del` lines and the return statement
        if op not in by_op:
            by_op[op] = [start, end]
            order.append(op)
        else:
            by_op[op][1] = end
    dev = run_metadata.step_stats.dev_stats.add()
    dev.device = DEVICE
    thread = threading.get_ident() & 0xFFFFFFFF
    for op in order:
        start, end = by_op[op]
        start_ns = start + wall_offset
        node = dev.node_stats.add()
        node.node_name = op.name
        node.all_start_micros = start_ns // 1000
        node.all_start_nanos = start_ns
        node.op_end_rel_micros = node.all_end_rel_micros = (end - start) // 1000
        node.op_end_rel_nanos = node.all_end_rel_nanos = end - start
        node.timeline_label = _label(op)
        node.thread_id = thread
