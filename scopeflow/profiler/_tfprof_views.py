"""tfprof's views: 'scope' (name-scope tree), 'graph' (input tree), 'op' (op types); the report.

``TFStats`` is TF's profiler state: the graph's nodes with their op log; ``show`` prints TF's
report (the "Options" block, "Doc", "Profile", "End of Report") and returns the proto.
"""

from __future__ import annotations

import json
import sys

from scopeflow.io import protos
from scopeflow.profiler import _tfprof_show as show
from scopeflow.profiler._tfprof_nodes import (
    GRAPH_PARENT,
    ROOT,
    Options,
    add_op_log,
    build_graph_nodes,
    full_match,
    scope_parent,
)

_HELP = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "micros": "total execution time: Sum of accelerator execution time and cpu execution "
              "time.\ncpu execution time: The time from the start to the end of the "
              "operation. It's the sum of actual cpu run time plus the time that it spends "
              "waiting if part of computation is launched asynchronously.\naccelerator "
              "execution time: Time spent executing on the accelerator. This is normally "
              "measured by the actual hardware library.",
    "params": "param: Number of parameters (in the Variable).",
    "float_ops": "flops: Number of float operations. Note: Please read the implementation "
                 "for the math behind it.",
    "tensor_value": "tensor_value: Not supported now.",
    "device": "device: which device is placed on.",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device "
                "placed on and user-defined strings.",
    "occurrence": "occurrence: The number of times it occurs",
    "input_shapes": "input shape: The shape of input tensors",
    "accelerator_micros": "accelerator execution time: Time spent executing on the "
                          "accelerator. This is normally measured by the actual hardware "
                          "library.",
    "cpu_micros": "cpu execution time: The time from the start to the end of the operation. "
                  "It's the sum of actual cpu run time plus the time that it spends waiting "
                  "if part of computation is launched asynchronously.",
    "peak_bytes": "peak bytes: The peak amount of memory that the operation is holding at "
                  "some point.",
    "residual_bytes": "residual bytes: The memory not de-allocated after the operation "
                      "finishes.",
    "output_bytes": "output bytes: The memory that is output from the operation (not "
                    "necessarilty allocated by the operation)",
}
_SCOPE_DOC = ("scope: The nodes in the model graph are organized by their names, which is "
              "hierarchical like filesystem.")
_CMD_DOC = {
    "scope": _SCOPE_DOC, "graph": _SCOPE_DOC,  # TF documents 'graph' with the scope line.
    "code": "code: When python trace is available, the nodes are python lines and their are "
            "organized by the python call stack.",
    "op": "op: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
          "belonging to the same type are aggregated together.",
}


def query_doc(cmd, opts):
    """TF's QueryDoc: the "Doc:" block for the command and each selected attribute."""
    helps = [_HELP.get(s, "Unknown select: " + s) for s in opts.select]
    return "\nDoc:\n{}\n{}\n\n".format(_CMD_DOC.get(cmd, "Unknown command: " + cmd),
                                   "\n".join(helps))


class ScopeView:
    """TF's TFScope: nodes as a tree of their '/'-separated names."""

    def __init__(self, nodes):
        self.nodes_map = {name: show.ShowNode(node) for name, node in nodes.items()}
        for name in list(nodes):
            while "/" in name:
                name = name.rsplit("/", 1)[0]
                if name not in self.nodes_map:
                    self.nodes_map[name] = show.ShowNode(scope_parent(name, nodes))
        roots = []
        for name in sorted(self.nodes_map):
            node = self.nodes_map[name]
            if "/" in name:
                self.nodes_map[name.rsplit("/", 1)[0]].children.append(node)
            else:
                roots.append(node)
        self.root = show.ShowNode(scope_parent(ROOT, nodes))
        self.root.children = roots

    def show(self, opts):
        root = self.root
        root.reset_total_stats()
        roots = self._account(root.children, opts)
        root.show_children = []
        for node in roots:
            root.aggregate_total_stats(node)
        if opts.start_name_regexes != [".*"]:
            roots = _search_root(roots, opts.start_name_regexes)
        root.show_children = list(roots)
        root = self._print_scope([root], opts, 1, 0)[0]
        text = [show.format_legend(opts) + root.formatted_str]
        _format(root.show_children, text, root.proto)
        return "".join(text), root.proto

    def _account(self, roots, opts):
        accounted = []
        for node in roots:
            node.reset_total_stats()
            children = self._account(node.children, opts)
            node.account = show.re_account(node, opts)
            if node.account or children:
                node.show_children = []
                node.reset_total_stats()
                node.add_self_to_total_stats()
                for child in children:
                    node.aggregate_total_stats(child)
                    node.show_children.append(child)
                accounted.append(node)
        return accounted

    def _print_scope(self, roots, opts, depth, last_ident):
        shown = []
        for node in roots:
            visible = show.should_show(node, opts, depth)
            ident = last_ident + 2 if visible else last_ident
            children = []
            if not show.should_trim(node, opts.trim_name_regexes) and depth <= opts.max_depth:
                children = self._print_scope(node.show_children, opts, depth + 1, ident)
            if not visible:
                shown.extend(children)
                continue
            _attach_shown(node, children, opts)
            node.formatted_str = f"{' ' * last_ident}{show.format_node(node, opts)}\n"
            shown.append(node)
        return shown


def _search_root(roots, regexes):
    found = []
    for node in roots:
        if any(full_match(r, node.name) for r in regexes):
            found.append(node)
        else:
            found.extend(_search_root(node.show_children, regexes))
    return found


def _format(nodes, text, proto):
    for node in nodes:
        text.append(node.formatted_str)
        child = proto.children.add()
        child.MergeFrom(node.proto)
        _format(node.show_children, text, child)


class GraphView:
    """TF's TFGraph: each node's children are its inputs; roots feed no other node."""

    def __init__(self, nodes):
        self.nodes_map = {name: show.ShowNode(node) for name, node in sorted(nodes.items())}
        fed = set()
        for node in self.nodes_map.values():
            for _, src in sorted(node.node.inputs.items()):
                fed.add(src)
                if src in self.nodes_map:
                    node.children.append(self.nodes_map[src])
        self.root = show.ShowNode(scope_parent(ROOT, nodes, GRAPH_PARENT))
        self.root.children = [n for name, n in self.nodes_map.items() if name not in fed]

    def show(self, opts):
        root = self.root
        root.reset_total_stats()
        root.show_children = []
        roots = self._account(root.children, opts, set())
        for node in roots:
            root.aggregate_total_stats(node)
        if opts.start_name_regexes != [".*"]:
            roots = _search_graph_root(roots, opts.start_name_regexes, set())
        root.show_children = list(roots)
        root = self._print_graph([root], opts, 1, 0, set())[0]
        text = [show.format_legend(opts) + root.formatted_str]
        _format(root.show_children, text, root.proto)
        return "".join(text), root.proto

    def _account(self, roots, opts, visits):
        accounted = []
        for node in roots:
            if node.name in visits:
                continue
            visits.add(node.name)
            children = self._account(node.children, opts, visits)
            node.account = show.re_account(node, opts)
            if not node.account:
                accounted.extend(children)
                continue
            node.show_children = []
            node.reset_total_stats()
            node.add_self_to_total_stats()
            for child in children:
                node.aggregate_total_stats(child)
                node.show_children.append(child)
            accounted.append(node)
        return accounted

    def _print_graph(self, roots, opts, depth, last_ident, visits):
        shown = []
        for node in roots:
            if node.name in visits:
                continue
            visits.add(node.name)
            visible = show.should_show(node, opts, depth)
            indent = last_ident + 2 if visible else last_ident
            children = []
            if not show.should_trim(node, opts.trim_name_regexes) and depth <= opts.max_depth:
                children = self._print_graph(node.show_children, opts, depth + 1, indent,
                                             visits)
            if not visible:
                shown.extend(children)
                continue
            _attach_shown(node, children, opts)
            node.formatted_str = f"{' ' * last_ident}{show.format_node(node, opts)}\n"
            shown.append(node)
        return shown


def _attach_shown(node, children, opts):
    """A shown node's displayed children, sorted; totals redone if only they count."""
    node.show_children = []
    if opts.account_displayed_op_only:
        node.reset_total_stats()
        node.add_self_to_total_stats()
    for child in show.sort_nodes(children, opts):
        node.show_children.append(child)
        if opts.account_displayed_op_only:
            node.aggregate_total_stats(child)


def _search_graph_root(roots, regexes, visited):
    found = []
    for node in roots:
        if node.name in visited:
            continue
        visited.add(node.name)
        if any(full_match(r, node.name) for r in regexes):
            found.append(node)
        else:
            found.extend(_search_graph_root(node.show_children, regexes, visited))
    return found


class OpView:
    """TF's TFOp: one node per op type, shown as a list (a chain of children in the proto)."""

    def __init__(self, nodes):
        by_type = {}
        for node in nodes.values():
            by_type.setdefault(node.op, {})[node.name] = node
        self.cnodes = [show.ShowMultiNode(op, members) for op, members in sorted(by_type.items())]
        self.root = show.ShowMultiNode(ROOT, {})

    def show(self, opts):
        root = self.root
        root.reset_total_stats()
        text = show.format_multi_node(root, root, opts)
        if not self.cnodes:
            return text, root.proto
        for node in self.cnodes:
            node.account = node.reinit(opts.account_type_regexes)
            node.reset_total_stats()
            node.add_self_to_total_stats()
        account_nodes = _chain([n for n in show.sort_nodes(self.cnodes, opts) if n.account])
        if account_nodes:
            root.aggregate_total_stats(account_nodes[0])
        shown = []
        start = _search_start(account_nodes, opts.start_name_regexes)
        for depth, node in enumerate(account_nodes[start:]):
            if show.should_trim(node, opts.trim_name_regexes) or depth > opts.max_depth:
                break
            if show.should_show_multi(node, opts, depth):
                shown.append(node)
        if opts.account_displayed_op_only:
            for node in shown:
                node.reset_total_stats()
                node.add_self_to_total_stats()
            shown = _chain(shown)
            root.reset_total_stats()
            if shown:
                root.aggregate_total_stats(shown[0])
        text = show.format_multi_legend(opts) + "".join(
            show.format_multi_node(node, root, opts) for node in shown)
        parent = root.proto
        for node in shown:
            del parent.children[:]
            parent.children.add().CopyFrom(node.proto)
            parent = parent.children[0]
        return text, root.proto


def _chain(nodes):
    """Each node's totals include every later node's (TF's op view accumulates backwards)."""
    for later, node in zip(reversed(nodes), list(reversed(nodes))[1:]):
        node.aggregate_total_stats(later)
    return nodes


def _search_start(nodes, regexes):
    if not regexes or regexes == [".*"]:
        return 0
    for i, node in enumerate(nodes):
        if any(full_match(r, node.name) for r in regexes):
            return i
    return len(nodes)


class TFStats:
    """The profiler's state for one graph and op log (TF's TFStats), with its views."""

    def __init__(self, graph_def, op_log):
        self.nodes = build_graph_nodes(graph_def, op_log)
        self._views = {}

    def add_op_log(self, op_log):
        """Merges a later op log (a profiled step's) into the nodes, keeping earlier types."""
        add_op_log(self.nodes, op_log)

    def _view(self, cmd):
        if cmd not in self._views:
            view = {"scope": ScopeView, "graph": GraphView, "op": OpView}[cmd]
            self._views[cmd] = view(self.nodes)
        return self._views[cmd]

    def show(self, cmd, options):
        """Prints TF's report for ``cmd`` per the option dict; returns the (Multi)GraphNodeProto."""
        empty = protos.MultiGraphNodeProto() if cmd in ("op", "code") else protos.GraphNodeProto()
        try:
            opts = Options.from_dict(options)
        except ValueError as e:
            sys.stderr.write(f"INVALID_ARGUMENT: {e}\n")
            return empty
        stdout = opts.output_type == "stdout"
        if stdout:
            sys.stdout.write("\n=========================Options=============================\n"
                             + opts.to_string()
                             + "\n==================Model Analysis Report======================\n")
        result = empty
        if opts.output_type == "pprof":
            # TF's views return their bare root for pprof (only the code view writes one).
            sys.stderr.write("Only 'code' view supports pprof output now.\n")
            result.name = ROOT
        elif opts.output_type == "timeline":
            result = self._timeline(cmd, opts, empty)
        elif cmd in ("scope", "graph", "op"):
            text, result = self._view(cmd).show(opts)
            self._emit(query_doc(cmd, opts) + "Profile:\n" + text, opts)
        if stdout:
            sys.stdout.write("\n======================End of Report==========================\n")
            sys.stdout.flush()
        return result

    def _timeline(self, cmd, opts, empty):
        """TF's timeline output without run metadata: only the scope view writes one (its
        root's event, as no node ran); the graph view needs a step, the op view has none."""
        if cmd == "op":
            sys.stderr.write("op view doesn't support timeline yet. "
                             "Consider graph/scope/code view.\n")
            empty.name = ROOT
            return empty
        if cmd != "scope":
            return empty
        _, result = self._view(cmd).show(opts)
        path = f"{opts.output_options['outfile']}_{opts.step}"
        event = {"args": {"name": ROOT, "op": ROOT}, "cat": "Op", "dur": 0, "name": ROOT,
                 "ph": "X", "pid": 0, "tid": 0, "ts": 0}
        process = {"args": {"name": "Scope:0"}, "name": "process_name", "ph": "M", "pid": 0}
        with open(path, "w") as out:
            out.write(json.dumps({"traceEvents": [process, event]}, separators=(",", ":")) + "\n")
        stars = "*" * 54
        sys.stdout.write(f"\n{stars}\nTimeline file is written to {path}.\nOpen a Chrome "
                         "browser, enter URL chrome://tracing and load the timeline file.\n"
                         f"{stars}\n")
        sys.stdout.flush()
        return result

    @staticmethod
    def _emit(text, opts):
        if opts.output_type == "stdout":
            sys.stdout.write(text)
        elif opts.output_type == "file":
            try:
                with open(opts.output_options["outfile"], "w") as out:
                    out.write(text)
            except OSError as e:
                sys.stderr.write(f"{e}\n")
