"""``tf.profiler.profile``, ``tf.profiler.advise`` and ``tf.profiler.Profiler`` (TF1).

The static part of TF's profiler: parameters (the ``shape`` attrs of variables), float
operations (TF's registered flops statistics on static shapes) and definition counts, shown
by name scope ('scope') or op type ('op'), with TF's options, report text and protos.
Execution times and memory come from traced run metadata in TF; this profiler does not read
step timings, so they are 0 (what TF reports for a graph profiled without tracing).
"""

from __future__ import annotations

import sys

from scopeflow.framework import errors
from scopeflow.framework import graph as graph_mod
from scopeflow.io import protos
from scopeflow.profiler import tfprof_logger
from scopeflow.profiler._tfprof_views import TFStats
from scopeflow.profiler.option_builder import ProfileOptionBuilder

_DEFAULT_PROFILE_OPTIONS = 0
_DEFAULT_ADVISE_OPTIONS = 0

ALL_ADVICE = {
    "ExpensiveOperationChecker": {},
    "AcceleratorUtilizationChecker": {},
    "JobChecker": {},  # Only available internally (TF skips it too).
    "OperationChecker": {},
}


def _graph_def(graph):
    return graph.as_graph_def(add_shapes=True) if graph else protos.GraphDef()


def _operation_checker(stats):
    """TF's OperationChecker without device placement: the BatchNorm advice."""
    use_batch_norm = any("BatchNorm" in name for name in stats.nodes)
    use_fused = any("FusedBatchNorm" in node.op_types for node in stats.nodes.values())
    if use_batch_norm and not use_fused:
        return ["Maybe use faster FusedBatchNorm instead of BatchNorm"]
    return []


def _run_advisor(stats, options, has_run_meta):
    """Runs the checkers named in ``options``; prints and returns TF's AdviceProto."""
    advice = protos.AdviceProto()
    if options is None:
        return advice
    if "AcceleratorUtilizationChecker" in options:
        # Without traced steps there are no accelerator kernels to judge.
        advice.checkers["AcceleratorUtilizationChecker"].SetInParent()
    if "OperationChecker" in options:
        advice.checkers["OperationChecker"].reports.extend(_operation_checker(stats))
    if "ExpensiveOperationChecker" in options:
        if not has_run_meta:
            sys.stderr.write("Missing RunMetadata info. Skip ExpensiveOperationChecker\n"
                             "Missing run_meta for ExpensiveOperationChecker\n")
        advice.checkers["ExpensiveOperationChecker"].SetInParent()
    for name in sorted(advice.checkers):
        sys.stdout.write(f"\n{name}:\n")
        for report in advice.checkers[name].reports:
            sys.stdout.write(f"{report}\n")
    sys.stdout.flush()
    return advice


def _check_cmd(cmd):
    if cmd not in ("scope", "graph", "op"):
        if cmd == "code":
            raise NotImplementedError(
                "tf.profiler.profile(cmd='code') (the Python call-stack view) is not "
                "implemented in scopeflow; use 'scope', 'graph' or 'op'")
        raise errors.InvalidArgumentError(None, None, f"unknown cmd: {cmd}\n")


def profile(graph=None, run_meta=None, op_log=None, cmd="scope",
            options=_DEFAULT_PROFILE_OPTIONS):
    """Profiles the graph; prints TF's report and returns a GraphNodeProto ('scope', 'graph')
    or MultiGraphNodeProto ('op').

    ``run_meta`` completes unknown static shapes from its step stats' output shapes (as in
    TF) before the flops are counted.
    """
    if not graph:
        graph = graph_mod.get_default_graph()
    if options == _DEFAULT_PROFILE_OPTIONS:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    _check_cmd(cmd)
    op_log = tfprof_logger.merge_default_with_oplog(graph, op_log, run_meta,
                                                    add_trace=cmd == "code")
    return TFStats(_graph_def(graph), op_log).show(cmd, options)


def advise(graph=None, run_meta=None, options=_DEFAULT_ADVISE_OPTIONS):
    """Runs TF's advisor checkers and returns an AdviceProto (reports need run metadata,
    except OperationChecker's graph checks)."""
    if not graph:
        graph = graph_mod.get_default_graph()
    if options == _DEFAULT_ADVISE_OPTIONS:
        options = ALL_ADVICE.copy()
    op_log = tfprof_logger.merge_default_with_oplog(graph, None, run_meta, add_trace=True)
    return _run_advisor(TFStats(_graph_def(graph), op_log), options, bool(run_meta))


class Profiler:
    """TF1's multi-step profiler over one graph (``tf.profiler.Profiler``).

    ``add_step`` records a step's run metadata and merges the op log computed with it (flops
    of shapes completed from its step stats); the profile methods show the static
    statistics, as ``tf.profiler.profile`` does. scopeflow's RunMetadata carries no per-node
    timings, so execution times and memory stay 0.
    """

    def __init__(self, graph=None, op_log=None):
        if not graph:
            graph = graph_mod.get_default_graph()
        self._graph = graph
        self._coverage = 0.0
        self._steps = {}
        op_log = tfprof_logger.merge_default_with_oplog(graph, op_log=op_log)
        self._stats = TFStats(_graph_def(graph), op_log)

    def add_step(self, step, run_meta):
        """Adds the statistics of one ``session.run`` (its RunMetadata) as step ``step``."""
        op_log = tfprof_logger.merge_default_with_oplog(self._graph, run_meta=run_meta)
        self._steps[step] = run_meta
        self._stats.add_op_log(op_log)

    def profile_operations(self, options):
        """Statistics by op type (MatMul, Conv2D): a MultiGraphNodeProto."""
        return self._stats.show("op", options)

    def profile_name_scope(self, options):
        """Statistics by name scope: a GraphNodeProto."""
        return self._stats.show("scope", options)

    def profile_graph(self, options):
        """Statistics along the dataflow graph (each node under the nodes it feeds)."""
        return self._stats.show("graph", options)

    def advise(self, options):
        """Runs the named checkers (see ``ALL_ADVICE``); returns an AdviceProto."""
        return _run_advisor(self._stats, options, bool(self._steps))
