"""``model.summary()``'s table (tf_keras's ``print_summary``, TF 2.21's format: the
parameter counts with their memory size) and ``count_params``."""

from __future__ import annotations

import numpy as np

__all__ = ["print_summary", "count_params"]


def count_params(weights):
    unique = {id(w): w for w in weights}.values()
    return int(sum(np.prod(w.shape.as_list()) for w in unique))


def _weight_memory_size(weights):
    total = 0
    for w in {id(w): w for w in weights}.values():
        dims = w.shape.as_list()
        if None in dims:
            continue
        total += np.prod(dims) * w.dtype.base_dtype.size
    return total


def _readable_memory_size(size):
    for unit in ["Byte", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _is_sequential_like(model):
    if type(model).__name__ == "Sequential" or not getattr(model, "_is_graph_network", False):
        return True
    nodes = []
    for group in model._nodes_by_depth.values():
        if len(group) > 1 or (len(group) == 1 and len(
                [x for x in group[0].iterate_inbound()]) > 1):
            return False
        nodes += group
    for layer in model.layers:
        seen = False
        for node in layer._inbound_nodes:
            if any(node is n for n in nodes):
                if seen:
                    return False
                seen = True
    return True


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  show_trainable=False):
    """Prints ``model``'s summary, line by line through ``print_fn`` (``print``)."""
    print_fn = print_fn or print
    sequential_like = _is_sequential_like(model)
    line_length, positions, to_display, relevant_nodes = _summary_layout(
        model, sequential_like, line_length, positions, show_trainable)
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    _print_row(to_display, positions, print_fn)
    print_fn("=" * line_length)
    layers = model.layers
    for layer in layers:
        fields = _layer_fields(layer, sequential_like, relevant_nodes)
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        _print_row(fields, positions, print_fn)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    _print_param_counts(model, print_fn)
    print_fn("_" * line_length)


def _summary_layout(model, sequential_like, line_length, positions, show_trainable):
    """The summary's width, column ends, header and (for a functional model) the nodes
    whose connections it lists."""
    relevant_nodes = []
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        for group in model._nodes_by_depth.values():
            relevant_nodes += group
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        to_display.append("Trainable")
    return line_length, positions, to_display, relevant_nodes


def _print_row(fields, positions, print_fn):
    """One table row, wrapped over as many lines as its longest field needs."""
    left = [str(x) for x in fields]
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col > 0 else 0
            end = positions[col]
            space = 2 if col != len(positions) - 1 else 0
            cutoff = end - start - space
            if col != len(positions) - 1:
                cutoff -= 1
            fit = left[col][:cutoff]
            candidates = [fit.find(x) + len(x) for x in ("),", "},", "],", "',")
                          if fit.find(x) >= 0]
            if candidates:
                cutoff = min(candidates)
                fit = fit[:cutoff]
            if col == 0:
                line += " "
            line += fit
            line += " " * space if space else ""
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


def _layer_fields(layer, sequential_like, relevant_nodes):
    """A layer's row: name (type), output shape, parameter count and, for a functional
    model, the layers it is connected to."""
    try:
        output_shape = layer.output_shape
    except AttributeError:
        output_shape = "multiple"
    name = f"{layer.name} ({type(layer).__name__})"
    if sequential_like:
        if not layer.built and not getattr(layer, "_is_graph_network", False):
            params = "0 (unused)"
        else:
            params = layer.count_params()
        return [name, output_shape, params]
    connections = []
    for node in layer._inbound_nodes:
        if relevant_nodes and not any(node is n for n in relevant_nodes):
            continue
        for inbound_layer, node_index, tensor_index, _ in node.iterate_inbound():
            connections.append(f"{inbound_layer.name}[{node_index}][{tensor_index}]")
    return [name, output_shape, layer.count_params(), connections]


def _print_param_counts(model, print_fn):
    """The total, trainable and non-trainable parameter counts with their memory sizes."""
    trainable = getattr(model, "_collected_trainable_weights", None)
    if trainable is None:
        trainable = model.trainable_weights
    trainable_count = count_params(trainable)
    non_trainable_count = count_params(model.non_trainable_weights)
    trainable_size = _weight_memory_size(trainable)
    non_trainable_size = _weight_memory_size(model.non_trainable_weights)
    print_fn(f"Total params: {trainable_count + non_trainable_count} "
             f"({_readable_memory_size(trainable_size + non_trainable_size)})")
    print_fn(f"Trainable params: {trainable_count} ({_readable_memory_size(trainable_size)})")
    print_fn(f"Non-trainable params: {non_trainable_count} "
             f"({_readable_memory_size(non_trainable_size)})")
