"""The op log tfprof reads besides the graph: flops per op, the '_trainable_variables' type.

``merge_default_with_oplog`` builds what TF's ``tfprof_logger`` builds (an ``OpLogProto``): an
entry for every op with registered flops (or, with ``add_trace``, every op, with its Python
traceback as a ``CodeDef``), and the type ``_trainable_variables`` on each trainable
variable's op. ``write_op_log`` writes it as ``<log_dir>/tfprof_log``.
"""

from __future__ import annotations

import os
import sys

from scopeflow.framework import graph as graph_mod
from scopeflow.framework import tensor_shape
from scopeflow.framework.graph import GraphKeys
from scopeflow.io import protos
from scopeflow.platform import gfile
from scopeflow.profiler import flops_registry
from scopeflow.profiler.option_builder import TRAINABLE_VARIABLES


def _fill_missing_graph_shape(graph, run_meta):
    """Merges run-time output shapes of ``run_meta``'s step stats into the graph's tensors."""
    for dev_stat in run_meta.step_stats.dev_stats:
        for node_stat in dev_stat.node_stats:
            if not node_stat.output:
                continue
            try:
                op = graph.get_operation_by_name(node_stat.node_name)
            except (KeyError, ValueError):
                continue
            if len(node_stat.output) != len(op.outputs):
                continue
            for i, out in enumerate(node_stat.output):
                tensor = op.outputs[i]
                if tensor.shape.is_fully_defined():
                    continue
                dims = [d.size for d in out.tensor_description.shape.dim]
                try:
                    tensor.set_shape(tensor.shape.merge_with(tensor_shape.TensorShape(dims)))
                except ValueError as e:
                    sys.stderr.write(f"Node {node_stat.node_name} incompatible shapes: {e}.\n")
    return graph


def _str_id(text, str_to_id):
    return str_to_id.setdefault(text, len(str_to_id))


def _add_traces(entry, op, string_to_id):
    for frame in op.traceback or ():
        filename, lineno, funcname = frame[0], frame[1], frame[2]
        line = frame[3] if len(frame) > 3 else None
        trace = entry.code_def.traces.add()
        trace.file_id = _str_id(filename, string_to_id) if filename else 0
        trace.lineno = lineno if lineno else -1
        trace.function_id = _str_id(funcname, string_to_id) if funcname else 0
        trace.line_id = _str_id(line, string_to_id) if line else 0
        trace.func_start_line = -1


def _get_logged_ops(graph, run_meta=None, add_trace=True, add_trainable_var=True):
    """Op name -> OpLogEntry (flops, traces, types) and the string table of the traces."""
    if run_meta:
        graph = _fill_missing_graph_shape(graph, run_meta)
    missing_shape = 0
    logged_ops = {}
    string_to_id = {"none": 0}
    # The rules read NodeDef protos (attr values as TF's AttrValue), as TF's do.
    node_defs = {node.name: node for node in graph.as_graph_def().node}
    for op in graph.get_operations():
        try:
            flops = flops_registry.node_flops(graph, node_defs[op.name])
        except ValueError:
            missing_shape += 1
            flops = 0
        entry = protos.OpLogEntry(name=op.name)
        add_entry = False
        if flops:
            entry.float_ops = flops
            add_entry = True
        if add_trace:
            _add_traces(entry, op, string_to_id)
            add_entry = True
        if add_entry:
            logged_ops[entry.name] = entry
    if add_trainable_var:
        for var in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
            name = var.op.name
            if name not in logged_ops:
                logged_ops[name] = protos.OpLogEntry(name=name)
            logged_ops[name].types.append(TRAINABLE_VARIABLES)
    if missing_shape > 0 and not run_meta:
        sys.stderr.write(f"{missing_shape} ops no flops stats due to incomplete shapes.\n")
    return logged_ops, string_to_id


def merge_default_with_oplog(graph, op_log=None, run_meta=None, add_trace=True,
                             add_trainable_var=True):
    """Merges the default op log (flops, trainable variables, traces) into ``op_log``."""
    if not graph:
        graph = graph_mod.get_default_graph()
    merged = protos.OpLogProto()
    logged_ops, string_to_id = _get_logged_ops(graph, run_meta, add_trace=add_trace,
                                               add_trainable_var=add_trainable_var)
    if not op_log:
        merged.log_entries.extend(logged_ops.values())
    else:
        all_ops = {entry.name: entry for entry in op_log.log_entries}
        for name, entry in logged_ops.items():
            if name in all_ops:
                mine = all_ops[name]
                mine.types.extend(entry.types)
                if entry.float_ops > 0 and mine.float_ops == 0:
                    mine.float_ops = entry.float_ops
                if entry.code_def.traces and not mine.code_def.traces:
                    mine.code_def.MergeFrom(entry.code_def)
            else:
                all_ops[name] = entry
        merged.log_entries.extend(all_ops.values())
    for text, num in string_to_id.items():
        merged.id_to_string[num] = text
    return merged


def write_op_log(graph, log_dir, op_log=None, run_meta=None, add_trace=True):
    """Writes the merged op log to ``<log_dir>/tfprof_log`` (a serialized OpLogProto).

    As in TF, ``log_dir`` must exist (TF raises NotFoundError otherwise).
    """
    if not graph:
        graph = graph_mod.get_default_graph()
    op_log = merge_default_with_oplog(graph, op_log, run_meta, add_trace)
    with gfile.GFile(os.path.join(log_dir, "tfprof_log"), "wb") as log:
        log.write(op_log.SerializeToString())
