"""tfprof's displayed nodes: their statistics, filters, ordering and text (TF's TFShow).

A ``ShowNode`` wraps one graph node (or a name-scope parent) and fills a ``GraphNodeProto``;
a ``ShowMultiNode`` wraps all graph nodes of one op type and fills a ``MultiGraphNodeProto``.
The filters, orderings and the text of each line are TF's (``tfprof_show.cc``,
``tfprof_show_multi.cc``, ``tfprof_op.cc``), so the printed report matches TF's byte for byte.
"""

from __future__ import annotations

from scopeflow.io import protos
from scopeflow.profiler._tfprof_nodes import (
    ROOT,
    format_memory,
    format_number,
    format_time,
    full_match,
    shape_proto_to_vec,
    vec_to_shape_proto,
)

# The statistics a node sums over its subtree: (own field, total field).
_SUMMED = (("exec_micros", "total_exec_micros"),
           ("accelerator_exec_micros", "total_accelerator_exec_micros"),
           ("cpu_exec_micros", "total_cpu_exec_micros"),
           ("requested_bytes", "total_requested_bytes"), ("peak_bytes", "total_peak_bytes"),
           ("residual_bytes", "total_residual_bytes"), ("output_bytes", "total_output_bytes"),
           ("parameters", "total_parameters"), ("float_ops", "total_float_ops"))
_ORDER_FIELDS = {"bytes": "total_requested_bytes", "peak_bytes": "total_peak_bytes",
                 "residual_bytes": "total_residual_bytes",
                 "output_bytes": "total_output_bytes", "micros": "total_exec_micros",
                 "accelerator_micros": "total_accelerator_exec_micros",
                 "cpu_micros": "total_cpu_exec_micros", "params": "total_parameters",
                 "float_ops": "total_float_ops"}
_MIN_TOTALS = (("total_requested_bytes", "min_bytes"), ("total_peak_bytes", "min_peak_bytes"),
               ("total_residual_bytes", "min_residual_bytes"),
               ("total_output_bytes", "min_output_bytes"), ("total_exec_micros", "min_micros"),
               ("total_accelerator_exec_micros", "min_accelerator_micros"),
               ("total_cpu_exec_micros", "min_cpu_micros"))
_TIME_SELECTS = (("micros", "exec_micros"), ("accelerator_micros", "accelerator_exec_micros"),
                 ("cpu_micros", "cpu_exec_micros"))
_MEMORY_SELECTS = (("bytes", "requested_bytes"), ("peak_bytes", "peak_bytes"),
                   ("residual_bytes", "residual_bytes"), ("output_bytes", "output_bytes"))


class ShowNode:
    """One node of the scope view: a graph node and its GraphNodeProto."""

    def __init__(self, node):
        self.node = node
        self.account = False
        self.children = []
        self.show_children = []
        self.formatted_str = ""
        self.proto = protos.GraphNodeProto()
        self.reinit()

    @property
    def name(self):
        return self.node.name

    def reinit(self):
        """Own statistics from the graph node (TF's ReInit; no run metadata: zero times)."""
        pb = self.proto
        pb.name = self.node.name
        del pb.devices[:]
        pb.float_ops = self.node.float_ops
        pb.input_shapes.clear()
        for i, shape in self.node.input_shapes().items():
            pb.input_shapes[i].CopyFrom(vec_to_shape_proto(shape))
        pb.parameters = self.node.parameters

    def reset_total_stats(self):
        self.formatted_str = ""
        pb = self.proto
        pb.total_definition_count = 0
        pb.total_run_count = 0
        for _, total in _SUMMED:
            setattr(pb, total, 0)
        del pb.children[:]

    def add_self_to_total_stats(self):
        pb = self.proto
        pb.total_definition_count += 1
        pb.total_run_count += pb.run_count
        for own, total in _SUMMED:
            setattr(pb, total, getattr(pb, total) + getattr(pb, own))

    def aggregate_total_stats(self, other):
        pb, opb = self.proto, other.proto
        pb.total_definition_count += opb.total_definition_count
        pb.total_run_count += opb.total_run_count
        for _, total in _SUMMED:
            setattr(pb, total, getattr(pb, total) + getattr(opb, total))


class ShowMultiNode:
    """One op type of the op view: its graph nodes and their MultiGraphNodeProto."""

    def __init__(self, name, graph_nodes):
        self.name = name
        self.nodes = dict(sorted(graph_nodes.items()))
        self.snapshot = {}
        self.op_types = set()
        self.account = False
        self.formatted_str = ""
        self.proto = protos.MultiGraphNodeProto(name=name)

    def reinit(self, type_regexes):
        """Snapshots the graph nodes whose types match; True if any (TF's SnapshotNodes)."""
        picked = _pick_nodes(self.nodes, type_regexes)
        self.snapshot = {node.name: node for node in picked}
        self.op_types = set().union(*(node.op_types for node in picked))
        pb = self.proto
        del pb.graph_nodes[:]
        for node in self.snapshot.values():
            show = ShowNode(node)
            show.add_self_to_total_stats()
            pb.graph_nodes.add().CopyFrom(show.proto)
        pb.name = self.name
        pb.float_ops = sum(node.float_ops for node in picked)
        pb.parameters = sum(node.parameters for node in picked)
        if not picked:
            return type_regexes == [".*"]
        return True

    def reset_total_stats(self):
        self.formatted_str = ""
        for _, total in _SUMMED:
            setattr(self.proto, total, 0)
        del self.proto.children[:]

    def add_self_to_total_stats(self):
        for own, total in _SUMMED:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(self.proto, own))

    def aggregate_total_stats(self, other):
        for _, total in _SUMMED:
            setattr(self.proto, total, getattr(self.proto, total) + getattr(other.proto, total))


def _pick_nodes(nodes, type_regexes):
    if not type_regexes:
        return []
    if type_regexes == [".*"]:
        return list(nodes.values())
    picked = []
    for regex in type_regexes:
        for node in nodes.values():
            if any(full_match(regex, t) for t in sorted(node.op_types)):
                picked.append(node)
    return picked


def re_account(node, opts):
    """Re-reads a node's statistics; whether one of its types matches account_type_regexes."""
    node.reinit()
    if opts.account_type_regexes == [".*"]:
        return True
    return any(full_match(regex, t) for regex in opts.account_type_regexes
               for t in sorted(node.node.op_types))


def name_shown(name, opts):
    """The show/hide name regexes of TF's ShouldShow."""
    if opts.show_name_regexes != [".*"] and not any(
            full_match(r, name) for r in opts.show_name_regexes):
        return False
    return not any(full_match(r, name) for r in opts.hide_name_regexes)


def should_show(node, opts, depth):
    """TF's TFShow::ShouldShow (scope and graph views: own params and flops)."""
    if node.name == ROOT:
        return True
    pb = node.proto
    if any(getattr(pb, total) < getattr(opts, minimum) for total, minimum in _MIN_TOTALS):
        return False
    if (pb.parameters < opts.min_params or pb.float_ops < opts.min_float_ops
            or pb.run_count < opts.min_occurrence or depth > opts.max_depth):
        return False
    return name_shown(node.name, opts)


def should_show_multi(node, opts, depth):
    """TF's TFMultiShow::ShouldShow (op view: total params and flops, occurrence)."""
    if node.name == ROOT:
        return True
    pb = node.proto
    if any(getattr(pb, total) < getattr(opts, minimum) for total, minimum in _MIN_TOTALS):
        return False
    if (pb.total_parameters < opts.min_params or pb.total_float_ops < opts.min_float_ops
            or depth > opts.max_depth or opts.min_occurrence > len(node.snapshot)):
        return False
    return name_shown(node.name, opts)


def should_trim(node, regexes):
    return any(full_match(r, node.name) for r in regexes)


def sort_nodes(nodes, opts):
    """TF's SortNodes: the root first, then by name or descending by the order_by total."""
    if not opts.order_by or not nodes:
        return list(nodes)
    total = _ORDER_FIELDS.get(opts.order_by)
    if total is None:
        return sorted(nodes, key=lambda n: (n.name != ROOT, n.name))
    return sorted(nodes, key=lambda n: (n.name != ROOT, -getattr(n.proto, total)))


def _own_total(node, value, total, fmt):
    if node.account:
        return fmt(value) + "/" + fmt(total)
    return "--/" + fmt(total)


def _time_columns(node, opts, fmt_pair):
    columns = []
    if "micros" in opts.select:
        columns += [fmt_pair(node, own) for _, own in _TIME_SELECTS]
    else:
        columns += [fmt_pair(node, own) for sel, own in _TIME_SELECTS[1:] if sel in opts.select]
    return columns


def _scope_time(node, own):
    pb = node.proto
    return _own_total(node, getattr(pb, own), getattr(pb, "total_" + own), format_time)


def format_node(node, opts):
    """One line of the scope/graph view, TF's TFShow::FormatNode (without indentation)."""
    pb, info = node.proto, []
    if "params" in opts.select:
        shape = "x".join(str(d) for d in node.node.shape)
        if shape:
            info.append(shape)
        info.append(_own_total(node, pb.parameters, pb.total_parameters, format_number)
                    + " params")
    if "float_ops" in opts.select:
        info.append(_own_total(node, pb.float_ops, pb.total_float_ops, format_number)
                    + " flops")
    for sel, own in _MEMORY_SELECTS:
        if sel in opts.select:
            info.append(_own_total(node, getattr(pb, own), getattr(pb, "total_" + own),
                                   format_memory))
    info += _time_columns(node, opts, _scope_time)
    if "device" in opts.select and pb.devices:
        info.append("|".join(pb.devices))
    if "op_types" in opts.select:
        info.append("|".join(sorted(node.node.op_types)))
    if "occurrence" in opts.select:
        run = _own_total(node, pb.run_count, pb.total_run_count, format_number)
        definition = ("1/" if node.account else "--/") + format_number(
            pb.total_definition_count)
        info.append(run + "|" + definition)
    if "input_shapes" in opts.select:
        info.append("|".join(f"{i}:{_dims(shape)}"
                             for i, shape in node.node.input_shapes().items()))
    return "{} ({})".format(node.name, ", ".join(info))


_LEGENDS = (("bytes", "requested bytes"), ("peak_bytes", "peak bytes"),
            ("residual_bytes", "residual bytes"), ("output_bytes", "output bytes"))


def _time_legends(opts):
    if "micros" in opts.select:
        return ["total execution time", "accelerator execution time", "cpu execution time"]
    return [text for sel, text in (("accelerator_micros", "accelerator execution time"),
                                   ("cpu_micros", "cpu execution time")) if sel in opts.select]


def _tail_legends(opts, occurrence):
    return [text for sel, text in (("device", "assigned devices"), ("op_types", "op types"),
                                   ("occurrence", occurrence),
                                   ("input_shapes", "input shapes")) if sel in opts.select]


def format_legend(opts):
    """The "node name | ..." header of the scope/graph view."""
    legends = [text for sel, text in (("params", "# parameters"), ("float_ops", "# float_ops"))
               if sel in opts.select]
    legends += [text for sel, text in _LEGENDS if sel in opts.select]
    legends += _time_legends(opts) + _tail_legends(opts, "op count (run|defined)")
    return "node name | {}\n".format(" | ".join(legends))


def format_multi_legend(opts):
    """The "node name | ..." header of the op view."""
    legends = [text for sel, text in _LEGENDS if sel in opts.select] + _time_legends(opts)
    legends += [text for sel, text in (("params", "# parameters"), ("float_ops", "# float_ops"))
                if sel in opts.select]
    return "node name | {}\n".format(" | ".join(
        legends + _tail_legends(opts, "op occurrence (run|defined)")))


def _pct_column(value_str, total, own, root_total):
    accu = pct = 0.0
    if total > 0:
        accu, pct = 100.0 * total / root_total, 100.0 * own / root_total
    return f"{f'{value_str} ({accu:.2f}%, {pct:.2f}%)':>30}"


def _op_time(node, root, own):
    pb, rpb = node.proto, root.proto
    total = getattr(pb, "total_" + own)
    return _pct_column(format_time(getattr(pb, own)), total, getattr(pb, own),
                       getattr(rpb, "total_" + own))


def _op_memory(node, root, own):
    pb, rpb = node.proto, root.proto
    value = getattr(pb, own)
    accu = pct = 0.0
    if value > 0:
        root_total = getattr(rpb, "total_" + own)
        accu, pct = 100.0 * getattr(pb, "total_" + own) / root_total, 100.0 * value / root_total
    return f"{f'{format_memory(value)} ({accu:.2f}%, {pct:.2f}%)':>30}"


def format_multi_node(node, root, opts):
    """One line of the op view, TF's TFOp::FormatNode."""
    pb, rpb = node.proto, root.proto
    attrs = [_op_memory(node, root, own) for sel, own in _MEMORY_SELECTS if sel in opts.select]
    attrs += _time_columns(node, opts, lambda n, own: _op_time(n, root, own))
    if "params" in opts.select:
        attrs.append(_pct_column(format_number(pb.parameters) + " params",
                                 pb.total_parameters, pb.parameters, rpb.total_parameters))
    if "float_ops" in opts.select:
        attrs.append(_pct_column(format_number(pb.float_ops) + " float_ops",
                                 pb.total_float_ops, pb.float_ops, rpb.total_float_ops))
    if "device" in opts.select:
        attrs.append("|".join(sorted({""} if node.snapshot else set())))
    if "op_types" in opts.select:
        attrs.append("|".join(sorted(node.op_types)))
    if "occurrence" in opts.select:
        runs = sum(g.run_count for g in pb.graph_nodes)
        attrs.append(f"{f'{runs}|{len(pb.graph_nodes)}':>10}")
    text = f"{node.name:<25}{', '.join(attrs)}\n"
    if "input_shapes" in opts.select:
        shapes = _format_input_shapes(pb)
        if shapes:
            text = f"{text}\n{shapes}\n\n"
    return text


def _format_input_shapes(pb):
    """The op view's input-shape summary (TF's TFMultiShow::FormatInputShapes)."""
    counts = {}
    for gnode in pb.graph_nodes:
        parts = []
        for i in sorted(gnode.input_shapes):
            vec = shape_proto_to_vec(gnode.input_shapes[i])
            parts.append(f"{i}:{_dims(vec)}")
        key = "input_type: {}".format(",\t".join(parts))
        defined, runs, micros = counts.get(key, (0, 0, 0))
        counts[key] = (defined + 1, runs + gnode.run_count, micros + gnode.exec_micros)
    # std::sort by run count, descending: with no run metadata every count ties; TF's
    # introsort keeps small inputs in map (name) order, as this stable sort does.
    ordered = sorted(sorted(counts.items()), key=lambda kv: -kv[1][1])
    return "\n".join(f"{key}\t(run*{runs}|defined*{defined})\texec_time: {format_time(micros)}"
                     for key, (defined, runs, micros) in ordered)


def _dims(shape):
    """'4x3' for a shape vector, 'unknown' for an empty one."""
    return "x".join(str(d) for d in shape) if shape else "unknown"
