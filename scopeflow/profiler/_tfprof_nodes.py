"""tfprof's model of a graph: one node per GraphDef node, options, and number formatting.

This follows TF's C++ profiler (``tensorflow/core/profiler/internal``): a node's parameters
are the product of its ``shape`` attr (variables, placeholders; a scalar counts 1, an unknown
dimension 0), its input shapes come from its inputs' ``_output_shapes``, its types are its op
type plus the op log's types, and its float ops come from the op log. Execution times and
memory come only from run metadata, which this static profiler does not read: they stay 0, as
TF's do for a graph that never ran with tracing.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

from scopeflow.io import protos

ROOT = "_TFProfRoot"
SCOPE_PARENT = "_kTFScopeParent"
GRAPH_PARENT = "_TFGraphParent"

SHOWN = ("bytes", "micros", "params", "float_ops", "tensor_value", "device", "op_types",
         "occurrence", "input_shapes", "accelerator_micros", "cpu_micros", "peak_bytes",
         "residual_bytes", "output_bytes")
_INT_OPTIONS = ("max_depth", "min_bytes", "min_peak_bytes", "min_residual_bytes",
                "min_output_bytes", "min_micros", "min_accelerator_micros", "min_cpu_micros",
                "min_params", "min_float_ops", "min_occurrence", "step")
_LIST_OPTIONS = ("account_type_regexes", "start_name_regexes", "trim_name_regexes",
                 "show_name_regexes", "hide_name_regexes")
_OUTPUT_TYPES = ("timeline", "stdout", "file", "pprof", "none")


def shape_proto_to_vec(shape_pb):
    """TF's ShapeProtoToVec: a known-rank scalar is [1]; an unknown rank is []."""
    if not shape_pb.dim and not shape_pb.unknown_rank:
        return [1]
    return [d.size for d in shape_pb.dim]


def vec_to_shape_proto(vec):
    """TF's VecToShapeProto: an empty vector is an unknown rank."""
    shape = protos.TensorShapeProto()
    if not vec:
        shape.unknown_rank = True
    for size in vec:
        shape.dim.add().size = size
    return shape


def format_number(n):
    """TF's FormatNumber: 999, 1.00k, 1.00m, 1.00b."""
    if n < 1000:
        return f"{n}"
    if n < 1000000:
        return f"{n / 1000.0:.2f}k"
    if n < 1000000000:
        return f"{n / 1000000.0:.2f}m"
    return f"{n / 1000000000.0:.2f}b"


def format_time(micros):
    """TF's FormatTime: 12us, 1.20ms, 1.20sec."""
    if micros < 1000:
        return f"{micros}us"
    if micros < 1000000:
        return f"{micros / 1000.0:.2f}ms"
    return f"{micros / 1000000.0:.2f}sec"


def format_memory(nbytes):
    """TF's FormatMemory: 12B, 1.20KB, 1.20MB."""
    if nbytes < 1000:
        return f"{nbytes}B"
    if nbytes < 1000000:
        return f"{nbytes / 1000.0:.2f}KB"
    return f"{nbytes / 1000000.0:.2f}MB"


def full_match(regex, text):
    """RE2::FullMatch."""
    return re.fullmatch(regex, text) is not None


@dataclass
class Options:
    """TF's tfprof ``Options`` built from an option dict (``model_analyzer._build_options``)."""

    values: dict
    select: list
    output_type: str
    output_options: dict = field(default_factory=dict)

    def __getattr__(self, name):
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def from_dict(cls, options):
        """Reads the dict as TF's ``_build_options`` does (its defaults), then ParseOutput."""
        values = {name: int(options.get(name, 10 if name == "max_depth" else
                                        -1 if name == "step" else 0))
                  for name in _INT_OPTIONS}
        values["order_by"] = options.get("order_by", "name")
        for name in _LIST_OPTIONS:
            values[name] = list(options.get(name, []))
        values["account_displayed_op_only"] = bool(options.get("account_displayed_op_only",
                                                               False))
        select = sorted(set(options.get("select", [])))
        output_type, output_options = parse_output(options.get("output", "stdout"))
        dump_to_file = options.get("dump_to_file", "")
        if dump_to_file:
            sys.stderr.write("-dump_to_file option is deprecated. Please use -output "
                             "file:outfile=<filename>\n-output "
                             f"{options.get('output', 'stdout')} is overwritten with -output "
                             f"file:outfile={dump_to_file}\n")
            output_type, output_options = "file", {"outfile": dump_to_file}
        return cls(values, select, output_type, output_options)

    def to_string(self):
        """TF's Options::ToString, the block printed under "Options"."""
        rows = [("-" + name, self.values[name]) for name in _INT_OPTIONS]
        rows.append(("-order_by", self.order_by))
        rows += [("-" + name, ",".join(self.values[name])) for name in _LIST_OPTIONS]
        rows.append(("-account_displayed_op_only",
                     "true" if self.account_displayed_op_only else "false"))
        rows.append(("-select", ",".join(self.select)))
        kv = ",".join(f"{k}={v}" for k, v in sorted(self.output_options.items()))
        rows.append(("-output", f"{self.output_type}:{kv}"))
        return "".join(f"{key:<28}{value}\n" for key, value in rows)


def parse_output(output_opt):
    """TF's ParseOutput: 'type' or 'type:key=value,...' -> (type, options); ValueError if bad."""
    if not output_opt:
        return "stdout", {}
    output_type, _, rest = output_opt.partition(":")
    if output_type not in _OUTPUT_TYPES:
        valid = ",".join(sorted(_OUTPUT_TYPES))
        raise ValueError(f"E.g. Unknown output type: {output_type}, Valid types: {valid}\n")
    output_options = {}
    for kv_str in filter(None, rest.split(",")):
        kv = [p for p in kv_str.split("=") if p]
        if len(kv) < 2:
            raise ValueError("Visualize format: -output timeline:key=value,key=value,...")
        if output_type in ("stdout", "none") or kv[0] != "outfile":
            raise ValueError(f"Unrecognized options {kv[0]} for output_type: {output_type}\n")
        output_options[kv[0]] = "=".join(kv[1:])
    if output_type in ("timeline", "file", "pprof") and "outfile" not in output_options:
        raise ValueError(f"Missing required output_options for {output_type}\n"
                         f"E.g. -output {output_type}:outfile=...\n")
    return output_type, output_options


class GraphNode:
    """TF's TFGraphNode: one NodeDef with its shape, input shapes, types and float ops."""

    def __init__(self, node_def, nodes_map):
        self.name = node_def.name
        self.op = node_def.op
        self.attrs = node_def.attr
        self.nodes_map = nodes_map
        self.shape = []
        self.output_shapes = {}
        if "shape" in node_def.attr and node_def.attr["shape"].HasField("shape"):
            self.shape = shape_proto_to_vec(node_def.attr["shape"].shape)
        if "_output_shapes" in node_def.attr:
            for i, shape in enumerate(node_def.attr["_output_shapes"].list.shape):
                self.output_shapes[i] = shape_proto_to_vec(shape)
        self.inputs = {}
        self.src_output_idx = {}
        for i, node_input in enumerate(node_def.input):
            src, _, idx = node_input.partition(":")
            src = src[1:] if src.startswith("^") else src
            self.inputs[i] = src
            self.src_output_idx[src] = int(idx) if idx else 0
        self.op_types = {node_def.op}
        self.float_ops = 0

    @property
    def parameters(self):
        """The product of the ``shape`` attr; 0 without one or with an unknown dimension."""
        if not self.shape or any(d < 0 for d in self.shape):
            return 0
        params = 1
        for d in self.shape:
            params *= d
        return params

    def input_shapes(self):
        """Input index -> its source's output shape ([] where unknown)."""
        shapes = {}
        for i, src in sorted(self.inputs.items()):
            shapes[i] = []
            node = self.nodes_map.get(src)
            if node is not None:
                shapes[i] = list(node.output_shapes.get(self.src_output_idx[src], []))
        return shapes


def scope_parent(name, nodes_map, op=SCOPE_PARENT):
    """A node for a name scope with no op of its own (TF's CreateParentNode)."""
    node_def = protos.NodeDef(name=name, op=op)
    return GraphNode(node_def, nodes_map)


def build_graph_nodes(graph_def, op_log):
    """Name -> GraphNode for a GraphDef (with _output_shapes) and an OpLogProto."""
    nodes = {}
    for node_def in graph_def.node:
        nodes[node_def.name] = GraphNode(node_def, nodes)
    add_op_log(nodes, op_log)
    return nodes


def add_op_log(nodes, op_log):
    """Adds an OpLogProto's types to its nodes and sets their float ops (TF's AddOpLogProto)."""
    for entry in op_log.log_entries if op_log is not None else ():
        node = nodes.get(entry.name)
        if node is None:
            continue
        node.op_types.update(entry.types)
        if entry.float_ops:
            node.float_ops = entry.float_ops
