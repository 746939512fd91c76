"""``RunOptions(output_partition_graphs=True)``: the graph a run executed, as TF reports it in
``RunMetadata.partition_graphs`` — one partition (everything runs on this process's CPU),
holding the ops the fetches need with the feeds cut off. As TF's executor graphs, each fed
tensor enters through an ``_Arg`` node (``_arg_<op>_<output>_<index>``) and each fetched
tensor leaves through a ``_Retval`` (``_retval_<op>_<output>_<index>``)."""

from __future__ import annotations

from scopeflow.framework.graph import Tensor
from scopeflow.io import protos

__all__ = ["fill_partition_graphs"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _needed_ops(fetch_ops, fed):
    needed, stack = set(), list(fetch_ops)
    while stack:
        op = stack.pop()
        if op.name in needed:
            continue
        needed.add(op.name)
        stack.extend(t.op for t in op.inputs if t.name not in fed)
        stack.extend(op.control_inputs)
    return needed


def _boundary_node(graph_def, name, op_type, dtype, index, input_name=None):
    node = graph_def.node.add(name=name, op=op_type, device=CPU_DEVICE)
    if input_name is not None:
        node.input.append(input_name)
    node.attr["T"].type = dtype.base_dtype.as_datatype_enum
    node.attr["index"].i = index


def fill_partition_graphs(run_metadata, graph, fetch_elements, feed_tensors):
    """Appends the run's partition graph to ``run_metadata.partition_graphs``."""
    fed = {t.name: t for t in feed_tensors}
    fetch_ops = [e.op if isinstance(e, Tensor) else e for e in fetch_elements]
    needed = _needed_ops(fetch_ops, fed)
    arg_names = {}
    partition = protos.GraphDef()
    # TF's executor numbers its arguments and results in the order of the tensor names.
    for index, t in enumerate(sorted(feed_tensors, key=lambda t: t.name)):
        arg_names[t.name] = f"_arg_{t.op.name}_{t.value_index}_{index}"
        _boundary_node(partition, arg_names[t.name], "_Arg", t.dtype, index)
    full = graph.as_graph_def()
    for node in full.node:
        if node.name not in needed:
            continue
        copy = partition.node.add()
        copy.CopyFrom(node)
        copy.device = CPU_DEVICE
        for i, name in enumerate(copy.input):
            tensor_name = name if ":" in name or name.startswith("^") else name + ":0"
            if tensor_name in arg_names:
                copy.input[i] = arg_names[tensor_name]
    fetched = sorted({e.name: e for e in fetch_elements if isinstance(e, Tensor)}.values(),
                     key=lambda t: t.name)
    for index, t in enumerate(fetched):
        source = arg_names.get(t.name, t.name if t.value_index else t.op.name)
        _boundary_node(partition, f"_retval_{t.op.name}_{t.value_index}_{index}", "_Retval",
                       t.dtype, index, source)
    partition.versions.CopyFrom(full.versions)
    run_metadata.partition_graphs.add().CopyFrom(partition)
