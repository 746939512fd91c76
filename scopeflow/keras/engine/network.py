"""Keras's ``Network``: a graph of layers from Keras input tensors to outputs (the
functional API), or a subclassed model whose ``call`` the user writes.

``_map_graph_network`` is tf_keras's: the nodes reached from the outputs, their depths, and
the layers ordered inputs first (by depth, then by discovery order), which is the order of
``model.layers`` and ``summary()``.
"""

from __future__ import annotations

from collections import defaultdict

from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer, Node, _flatten, _map
from scopeflow.keras.engine.input_layer import InputLayer
from scopeflow.keras.engine.keras_tensor import get_history, get_mask
from scopeflow.keras.utils import layer_utils
from scopeflow.keras.utils.generic_utils import to_snake_case

__all__ = ["Network"]


def _build_map(outputs):
    finished, in_progress = set(), set()
    nodes_in_decreasing_depth, layer_indices = [], {}

    def visit(tensor):
        history = get_history(tensor)
        if history is None:
            raise ValueError("Output tensors to a Model must be the output of a TensorFlow "
                             f"`Layer` (thus holding past layer metadata). Found: {tensor}")
        layer, node_index, _ = history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(f"The tensor {tensor} at layer \"{layer.name}\" is part of a "
                             "cycle.")
        if layer not in layer_indices:
            layer_indices[layer] = len(layer_indices)
        in_progress.add(id(node))
        if not isinstance(layer, InputLayer) or node.inbound_layers:
            for x in _flatten(node.input_tensors):
                visit(x)
        finished.add(id(node))
        in_progress.discard(id(node))
        nodes_in_decreasing_depth.append(node)

    for output in _flatten(outputs):
        visit(output)
    return nodes_in_decreasing_depth, layer_indices


def _parent_nodes(node):
    parents = []
    for layer, node_index, _, _ in node.iterate_inbound():
        parents.append(layer._inbound_nodes[node_index])
    return parents


def map_graph_network(inputs, outputs):
    """``(network_nodes, nodes_by_depth, layers, layers_by_depth)`` of the graph from
    ``inputs`` to ``outputs``."""
    nodes_in_decreasing_depth, layer_indices = _build_map(outputs)
    node_objects, nodes_depths, layers_depths = _depths(nodes_in_decreasing_depth, inputs,
                                                        layer_indices)
    nodes_by_depth = defaultdict(list)
    for node_id, depth in nodes_depths.items():
        nodes_by_depth[depth].append(node_objects[node_id])
    layers_by_depth = defaultdict(list)
    for layer, depth in layers_depths.items():
        layers_by_depth[depth].append(layer)
    layers = []
    for depth in sorted(layers_by_depth, reverse=True):
        group = sorted(layers_by_depth[depth], key=lambda layer: layer_indices[layer])
        layers_by_depth[depth] = group
        layers.extend(group)
    _check_connected(inputs, nodes_by_depth, layers, layers_depths)
    return set(map(id, node_objects.values())), dict(nodes_by_depth), layers, \
        dict(layers_by_depth)


def _depths(nodes_in_decreasing_depth, inputs, layer_indices):
    """The nodes by id, each node's depth (longest path to an output) and each layer's;
    unused inputs at depth 0 (``layer_indices`` -1 for them)."""
    nodes_depths, layers_depths = {}, {}
    node_objects = {}
    for node in reversed(nodes_in_decreasing_depth):
        node_objects[id(node)] = node
        depth = nodes_depths.setdefault(id(node), 0)
        depth = max(depth, layers_depths.get(node.outbound_layer, 0))
        layers_depths[node.outbound_layer] = depth
        nodes_depths[id(node)] = depth
        for parent in _parent_nodes(node):
            node_objects[id(parent)] = parent
            nodes_depths[id(parent)] = max(depth + 1, nodes_depths.get(id(parent), 0))
    for x in inputs:
        layer = get_history(x)[0]
        if layer not in layers_depths:
            layers_depths[layer] = 0
            layer_indices[layer] = -1
            node = layer._inbound_nodes[0]
            node_objects[id(node)] = node
            nodes_depths[id(node)] = 0
    return node_objects, nodes_depths, layers_depths


def _check_connected(inputs, nodes_by_depth, layers, layers_depths):
    """Every node's inputs must be computable from the model's inputs."""
    computable = {id(x) for x in inputs}
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if isinstance(node.outbound_layer, InputLayer) and not node.inbound_layers:
                if not any(id(t) in computable for t in _flatten(node.output_tensors)):
                    raise ValueError(
                        "Graph disconnected: cannot obtain value for tensor "
                        f"{_flatten(node.output_tensors)[0]} at layer "
                        f"\"{node.outbound_layer.name}\". The following previous layers were "
                        "accessed without issue: "
                        f"{[layer.name for layer in layers if layer in layers_depths]}")
                continue
            for x in _flatten(node.input_tensors):
                if id(x) not in computable:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {x} at layer "
                        f"\"{node.outbound_layer.name}\".")
            computable.update(id(x) for x in _flatten(node.output_tensors))


def _refill(structure, flat):
    """``structure`` (nested lists/tuples/dicts) with its leaves replaced, in order."""
    values = iter(flat)
    return _map(lambda _: next(values), structure)


class Network(Layer):
    """A model as a layer: ``Network(inputs, outputs)`` (functional), or a subclass
    defining ``call``."""

    def __init__(self, *args, **kwargs):
        if len(args) == 2 or ("inputs" in kwargs and "outputs" in kwargs) or \
                (len(args) == 1 and "outputs" in kwargs):
            inputs = args[0] if args else kwargs.pop("inputs")
            outputs = args[1] if len(args) > 1 else kwargs.pop("outputs")
            kwargs.pop("inputs", None)
            self._init_graph_network(inputs, outputs, **kwargs)
        else:
            self._init_subclassed_network(**kwargs)

    def _base_init(self, name, **kwargs):
        self._is_graph_network = False
        self.inputs, self.outputs = [], []
        self._compiled = False
        Layer.__init__(self, name=name, **kwargs)
        if not name:
            self._name = K.unique_object_name(to_snake_case(type(self).__name__),
                                              zero_based=True) \
                if type(self).__name__ not in ("Model", "Network", "Functional") else \
                K.unique_object_name("model", zero_based=True)

    def _init_set_name(self, name, zero_based=True):
        self._name = name  # named in _base_init, where the class is known

    def _init_subclassed_network(self, name=None, **kwargs):
        trainable = kwargs.pop("trainable", True)
        dtype = kwargs.pop("dtype", None)
        self._base_init(name, trainable=trainable, dtype=dtype, **kwargs)

    def _init_graph_network(self, inputs, outputs, name=None, **kwargs):
        trainable = kwargs.pop("trainable", True)
        self._base_init(name, trainable=trainable)
        self._set_graph(inputs, outputs)
        # A node linking the network's inputs to its outputs, for output_shape.
        Node(self, inbound_layers=[], node_indices=[], tensor_indices=[],
             input_tensors=self._nested_inputs, output_tensors=self._nested_outputs)

    def _set_graph(self, inputs, outputs):
        """The graph of layers from ``inputs`` to ``outputs`` (checked, ordered)."""
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self.inputs = list(_flatten(inputs))
        self.outputs = list(_flatten(outputs))
        for x in self.inputs:
            history = get_history(x)
            if history is None:
                raise ValueError("Input tensors to a Model must come from `tf.keras.Input`. "
                                 f"Received: {x} (missing previous layer metadata).")
            layer = history[0]
            if not isinstance(layer, InputLayer) or layer._inbound_nodes[0].inbound_layers:
                raise ValueError(f"Input tensors to a Model must come from `tf.keras.Input`. "
                                 f"Received: {x} (missing previous layer metadata).")
        self._is_graph_network = True
        (self._network_nodes, self._nodes_by_depth, layers,
         self._layers_by_depth) = map_graph_network(self.inputs, self.outputs)
        self._layers = list(layers)
        self._input_layers = [get_history(x)[0] for x in self.inputs]
        self._output_layers = [get_history(x)[0] for x in self.outputs]
        self.input_names = [layer.name for layer in self._input_layers]
        self.output_names = []
        for layer in self._output_layers:
            self.output_names.append(layer.name)
        self._output_mask_cache = {}
        self.built = True
        self._dtype = self.inputs[0].dtype.base_dtype.name if self.inputs else None
        self.supports_masking = True

    # ── layers ────────────────────────────────────────────────────────────────────────
    @property
    def weights(self):
        """Each layer's weights in turn (a model's own first), as tf_keras's ``Model``;
        ``trainable_weights`` gathers the trainable ones across layers instead."""
        weights = list(self._trainable_weights) + list(self._non_trainable_weights)
        for layer in self._layers:
            weights.extend(w for w in layer.weights if not any(w is k for k in weights))
        return weights

    variables = weights

    @property
    def layers(self):
        return list(self._layers)

    def get_layer(self, name=None, index=None):
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only "
                                 f"has {len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}.")

    @property
    def state_updates(self):
        return [u for layer in self.layers if getattr(layer, "stateful", False)
                for u in layer.updates]

    @property
    def stateful(self):
        return any(getattr(layer, "stateful", False) for layer in self._layers)

    @stateful.setter
    def stateful(self, value):
        pass

    def reset_states(self):
        """Resets the states of the stateful layers (stateful RNNs) to zeros."""
        for layer in self.layers:
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    @property
    def input_shape(self):
        shapes = [tuple(x.shape.as_list()) for x in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        if not self.outputs:
            return Layer.output_shape.fget(self)
        shapes = [tuple(x.shape.as_list()) for x in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def input(self):
        return self.inputs[0] if len(self.inputs) == 1 else self.inputs

    @property
    def output(self):
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs

    # ── calling ───────────────────────────────────────────────────────────────────────
    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should "
                                      "implement a `call` method.")
        return self._run_internal_graph(inputs, training=training, mask=mask)

    def _run_internal_graph(self, inputs, training=None, mask=None):
        inputs = _flatten(inputs)
        masks = [None] * len(inputs) if mask is None else _flatten(mask)
        tensor_map = {}
        for x, y, m in zip(self.inputs, inputs, masks):
            tensor_map[id(x)] = (y, m if m is not None else get_mask(y))
        for depth in sorted(self._nodes_by_depth, reverse=True):
            for node in self._nodes_by_depth[depth]:
                layer = node.outbound_layer
                if isinstance(layer, InputLayer) and not node.inbound_layers:
                    continue
                reference_inputs = _flatten(node.input_tensors)
                if not all(id(x) in tensor_map for x in reference_inputs):
                    continue
                computed = [tensor_map[id(x)] for x in reference_inputs]
                kwargs = dict(node.arguments or {})
                kwargs.pop("mask", None)
                if layer._expects_training_arg and training is not None and \
                        "training" not in kwargs:
                    kwargs["training"] = training
                if isinstance(node.input_tensors, (list, tuple)):
                    layer_inputs = _refill(node.input_tensors, [c[0] for c in computed])
                else:
                    layer_inputs = computed[0][0]
                outputs = layer(layer_inputs, **kwargs)
                for x, y in zip(_flatten(node.output_tensors), _flatten(outputs)):
                    tensor_map[id(x)] = (y, get_mask(y))
        outputs = [tensor_map[id(x)][0] for x in self.outputs]
        if isinstance(self._nested_outputs, (list, tuple)):
            return _refill(self._nested_outputs, outputs)
        return outputs[0]

    def compute_output_shape(self, input_shape):
        if not self._is_graph_network:
            return super().compute_output_shape(input_shape)
        shapes = [x.shape for x in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def compute_mask(self, inputs, mask=None):
        if not self._is_graph_network:
            return None
        masks = [get_mask(x) for x in self.outputs]
        return masks[0] if len(masks) == 1 else masks

    # ── summary, config ───────────────────────────────────────────────────────────────
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False):
        """Prints the table of layers, output shapes and parameter counts (Keras's format)."""
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        layer_utils.print_summary(self, line_length=line_length, positions=positions,
                                  print_fn=print_fn, show_trainable=show_trainable)

    def get_config(self):
        if not self._is_graph_network:
            raise NotImplementedError("Subclassed models' get_config is not implemented")
        node_keys = set()
        layer_configs = []
        for layer in self.layers:
            inbound = []
            for node_index, node in enumerate(layer._inbound_nodes):
                if id(node) not in self._network_nodes:
                    continue
                node_keys.add((layer.name, node_index))
                if isinstance(layer, InputLayer) and not node.inbound_layers:
                    continue
                data = [[inbound_layer.name, self._node_index_in_network(inbound_layer, ni),
                         ti, {}] for inbound_layer, ni, ti, _ in node.iterate_inbound()]
                inbound.append(data)
            layer_configs.append({"class_name": type(layer).__name__,
                                  "config": layer.get_config(), "name": layer.name,
                                  "inbound_nodes": inbound})

        def refs(tensors):
            out = []
            for x in tensors:
                layer, node_index, tensor_index = get_history(x)
                out.append([layer.name, self._node_index_in_network(layer, node_index),
                            tensor_index])
            return out

        return {"name": self.name, "trainable": self.trainable, "layers": layer_configs,
                "input_layers": refs(self.inputs), "output_layers": refs(self.outputs)}

    def _node_index_in_network(self, layer, node_index):
        kept = [i for i, n in enumerate(layer._inbound_nodes) if id(n) in self._network_nodes]
        return kept.index(node_index) if node_index in kept else node_index
