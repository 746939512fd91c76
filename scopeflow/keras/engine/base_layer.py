"""Keras's ``Layer`` in TF1 graph mode (TF 1.15's ``base_layer``), and its ``Node``.

A layer is named at construction (``dense``, ``dense_1``... per graph,
``backend.unique_object_name``); each call opens ``name_scope(layer.name)``, builds the
layer once from the input's ``TensorShape`` (so its variables are ``dense/kernel:0``,
``dense/bias:0``), calls ``call`` and, when every input is a Keras tensor, records a
``Node``: the layer, its inputs and outputs, from which the functional API rebuilds the
graph of layers (``_keras_history`` on each output: ``(layer, node_index, tensor_index)``).
"""

from __future__ import annotations

import inspect

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    Graph,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import backend, constraints, initializers, regularizers
from scopeflow.keras.engine.keras_tensor import get_history, get_mask, set_history, set_mask
from scopeflow.keras.utils.generic_utils import to_snake_case
from scopeflow.layers.input_spec import InputSpec
from scopeflow.ops import array_ops, math_ops
from scopeflow.state.variables import Variable

__all__ = ["Layer", "Node", "InputSpec"]

_ALLOWED_KWARGS = {"input_shape", "batch_input_shape", "batch_size", "weights",
                   "activity_regularizer", "input_dim"}


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        out = []
        for item in structure:
            out.extend(_flatten(item))
        return out
    if isinstance(structure, dict):
        out = []
        for key in sorted(structure):
            out.extend(_flatten(structure[key]))
        return out
    return [structure]


def _map(fn, structure):
    if isinstance(structure, list):
        return [_map(fn, s) for s in structure]
    if isinstance(structure, tuple):
        return tuple(_map(fn, s) for s in structure)
    if isinstance(structure, dict):
        return {k: _map(fn, v) for k, v in structure.items()}
    return fn(structure)


def _is_tensor(x):
    return isinstance(x, (Tensor, Variable))


class Node:
    """One call of a layer on Keras tensors: where its inputs came from
    (``inbound_layers``, ``node_indices``, ``tensor_indices``) and what it made."""

    def __init__(self, outbound_layer, inbound_layers, node_indices, tensor_indices,
                 input_tensors, output_tensors, arguments=None):
        self.outbound_layer = outbound_layer
        self.inbound_layers = inbound_layers
        self.node_indices = node_indices
        self.tensor_indices = tensor_indices
        self.input_tensors = input_tensors
        self.output_tensors = output_tensors
        self.arguments = arguments or {}
        self.input_shapes = _map(lambda t: t.shape, input_tensors)
        self.output_shapes = _map(lambda t: t.shape, output_tensors)
        for layer in _flatten(inbound_layers):
            if layer is not None:
                layer._outbound_nodes.append(self)
        outbound_layer._inbound_nodes.append(self)

    def iterate_inbound(self):
        """``(layer, node_index, tensor_index, tensor)`` for each input."""
        return zip(_flatten(self.inbound_layers), _flatten(self.node_indices),
                   _flatten(self.tensor_indices), _flatten(self.input_tensors))


class Layer:
    """The base of Keras layers: named, built on first call, holding weights, losses and
    updates.

    >>> layer = tf.keras.layers.Dense(4)
    >>> y = layer(tf.zeros([2, 3]))
    >>> [w.name for w in layer.weights]
    ['dense/kernel:0', 'dense/bias:0']
    """

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        for kwarg in kwargs:
            if kwarg not in _ALLOWED_KWARGS:
                raise TypeError("Keyword argument not understood:", kwarg)
        self._trainable = trainable
        self.built = False
        self.stateful = False
        self.supports_masking = False
        self.input_spec = None
        self._dynamic = dynamic
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype.name
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._callable_losses = []
        self._evaluated_losses = {}
        self._updates = []
        self._metrics = []
        self._layers = []
        self._inbound_nodes = []
        self._outbound_nodes = []
        self._init_set_name(name)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        if "input_shape" in kwargs or "batch_input_shape" in kwargs:
            if "batch_input_shape" in kwargs:
                batch_input_shape = tuple(kwargs["batch_input_shape"])
            else:
                batch_input_shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
            self._batch_input_shape = batch_input_shape
        self._initial_weights = kwargs.get("weights")
        self._expects_training_arg = self._call_accepts("training")
        self._expects_mask_arg = self._call_accepts("mask")

    def _call_accepts(self, arg):
        try:
            parameters = inspect.signature(self.call).parameters
        except (TypeError, ValueError):
            return False
        return arg in parameters

    def _init_set_name(self, name, zero_based=True):
        if not name:
            self._name = backend.unique_object_name(to_snake_case(type(self).__name__),
                                                    zero_based=zero_based)
        else:
            self._name = name

    # ── tracking of sub-layers (attributes holding layers) ───────────────────────────
    def __setattr__(self, name, value):
        if not name.startswith("_") or name == "_layers_attr":
            layers = self.__dict__.get("_layers")
            if layers is not None:
                for item in (value if isinstance(value, (list, tuple)) else [value]):
                    if isinstance(item, Layer) and item is not self and \
                            not any(item is known for known in layers):
                        layers.append(item)
        object.__setattr__(self, name, value)

    # ── properties ───────────────────────────────────────────────────────────────────
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic(self):
        return self._dynamic

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer):
        self._activity_regularizer = regularizer

    def _gather(self, attr):
        out = list(getattr(self, attr))
        for layer in self._layers:
            out.extend(layer._gather(attr) if attr.startswith("_") else getattr(layer, attr))
        return out

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        weights = list(self._trainable_weights)
        for layer in self._layers:
            weights.extend(w for w in layer.trainable_weights if w not in weights)
        return weights

    @property
    def non_trainable_weights(self):
        if self.trainable:
            weights = list(self._non_trainable_weights)
            for layer in self._layers:
                weights.extend(w for w in layer.non_trainable_weights if w not in weights)
            return weights
        weights = list(self._trainable_weights) + list(self._non_trainable_weights)
        for layer in self._layers:
            weights.extend(w for w in layer.weights if w not in weights)
        return weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        if not self.trainable and not self.stateful:
            return []
        updates = list(self._updates)
        for layer in self._layers:
            updates.extend(u for u in layer.updates if u not in updates)
        return updates

    @property
    def losses(self):
        """The layer's losses: added tensors, then the weight regularizers' penalties
        (built once, in ``<weight>/Regularizer`` under the layer's scope)."""
        losses = list(self._losses)
        for fn in self._callable_losses:
            if id(fn) not in self._evaluated_losses:
                self._evaluated_losses[id(fn)] = fn()
            value = self._evaluated_losses[id(fn)]
            if value is not None:
                losses.append(value)
        for layer in self._layers:
            losses.extend(loss for loss in layer.losses if loss not in losses)
        return losses

    @property
    def metrics(self):
        return list(self._metrics)

    # ── weights ───────────────────────────────────────────────────────────────────────
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None,
                   regularizer=None, trainable=None, constraint=None, partitioner=None,
                   use_resource=None, synchronization=None, aggregation=None, **kwargs):
        """A variable ``<layer scope>/<name>``, tracked as a (non-)trainable weight; its
        regularizer's penalty joins ``losses``."""
        for kwarg in kwargs:
            if kwarg not in ("getter", "collections", "experimental_autocast", "caching_device"):
                raise TypeError("Unknown keyword argument:", kwarg)
        if shape is None:
            shape = ()
        dtype = dtypes.as_dtype(dtype or self.dtype or backend.floatx())
        if trainable is None:
            trainable = True
        initializer = initializers.get(initializer)
        if initializer is None:
            if dtype.is_floating:
                initializer = initializers.glorot_uniform()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
                initializer = initializers.zeros()
            else:
                raise ValueError(f"An initializer for variable {name} of type {dtype.name} "
                                 f"is required for layer {self.name}")
        regularizer = regularizers.get(regularizer)
        constraint = constraints.get(constraint)
        shape = tuple(TensorShape(shape).as_list())

        def initial_value():
            return initializer(shape, dtype=dtype)

        variable = Variable(initial_value, name=name, dtype=dtype.base_dtype,
                            trainable=trainable, constraint=constraint)
        backend.track_variable(variable)
        if regularizer is not None:
            self._handle_weight_regularization(name, variable, regularizer)
        if trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    def _handle_weight_regularization(self, name, variable, regularizer):
        scope = get_default_graph().get_name_scope()

        def loss_for_variable():
            with name_scope(None):
                with name_scope(f"{scope}/{name}/Regularizer/" if scope
                                else f"{name}/Regularizer/"):
                    return regularizer(variable)

        self._callable_losses.append(loss_for_variable)

    def get_weights(self):
        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f'You called `set_weights(weights)` on layer "{self.name}" with a weight list '
                f"of length {len(weights)}, but the layer was expecting {len(params)} "
                f"weights. Provided weights: {str(weights)[:50]}...")
        if not params:
            return
        tuples = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            ref_shape = tuple(p.shape.as_list())
            if ref_shape != w.shape:
                raise ValueError(f"Layer weight shape {ref_shape} not compatible with provided "
                                 f"weight shape {w.shape}")
            tuples.append((p, w))
        backend.batch_set_value(tuples)

    def count_params(self):
        if not self.built:
            if type(self).build is Layer.build:
                self.build(None)
            else:
                raise ValueError(f"You tried to call `count_params` on {self.name}, but the "
                                 "layer isn't built. You can build it manually via: "
                                 f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(w.shape.as_list()) for w in self.weights))

    # ── losses, updates ───────────────────────────────────────────────────────────────
    def add_loss(self, losses, inputs=None):
        for loss in (losses if isinstance(losses, (list, tuple)) else [losses]):
            if loss is None:
                continue
            if callable(loss) and not _is_tensor(loss):
                self._callable_losses.append(loss)
            else:
                self._losses.append(convert_to_tensor(loss, dtype=backend.floatx())
                                    if not _is_tensor(loss) else loss)

    def add_update(self, updates, inputs=None):
        for update in (updates if isinstance(updates, (list, tuple)) else [updates]):
            if callable(update) and not _is_tensor(update):
                update = update()
            self._updates.append(update)

    def get_updates_for(self, inputs):
        return self.updates

    def get_losses_for(self, inputs):
        return self.losses

    def add_metric(self, value, aggregation=None, name=None):
        raise NotImplementedError("tf.keras.layers.Layer.add_metric is not implemented in "
                                  "scopeflow yet")

    # ── build, call ───────────────────────────────────────────────────────────────────
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_mask(self, inputs, mask=None):
        if not self.supports_masking:
            if any(m is not None for m in _flatten(mask)):
                raise TypeError(f"Layer {self.name} does not support masking, but was passed "
                                "an input_mask: " + str(mask))
            return None
        return mask

    def compute_output_shape(self, input_shape):
        """The output shape, found by calling the layer on placeholders in a scratch
        graph (TF's fallback)."""
        def placeholder_of(shape):
            return array_ops.placeholder(self.dtype or backend.floatx(),
                                         shape=TensorShape(shape))

        shapes = input_shape
        if isinstance(shapes, TensorShape) or (isinstance(shapes, (tuple, list)) and shapes
                                              and not isinstance(shapes[0], (tuple, list,
                                                                             TensorShape))):
            shapes = TensorShape(shapes)
        with Graph().as_default():
            inputs = _map(placeholder_of, shapes) if not isinstance(shapes, TensorShape) \
                else placeholder_of(shapes)
            saved = (self._inbound_nodes, self._outbound_nodes)
            self._inbound_nodes, self._outbound_nodes = [], []
            try:
                if not self.built:
                    raise NotImplementedError(
                        f"{type(self).__name__}.compute_output_shape: the layer is not built; "
                        "build it or override compute_output_shape")
                outputs = self.call(inputs)
            finally:
                self._inbound_nodes, self._outbound_nodes = saved
        return _map(lambda t: t.shape, outputs)

    def _maybe_build(self, inputs):
        if self.built:
            return
        input_list = _flatten(inputs)
        if self._dtype is None and input_list:
            try:
                self._dtype = input_list[0].dtype.base_dtype.name
            except AttributeError:
                pass
        input_shapes = _map(lambda x: x.shape, inputs)
        self.build(input_shapes)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def _assert_input_compatibility(self, inputs):
        if not self.input_spec:
            return
        specs = self.input_spec if isinstance(self.input_spec, (list, tuple)) \
            else [self.input_spec]
        inputs = _flatten(inputs)
        if len(inputs) != len(specs):
            raise ValueError(f"Layer {self.name} expects {len(specs)} inputs, but it received "
                             f"{len(inputs)} input tensors. Inputs received: {inputs}")
        for index, (x, spec) in enumerate(zip(inputs, specs)):
            if spec is None:
                continue
            shape = x.shape
            where = f"Input {index} of layer {self.name} is incompatible with the layer: "
            if spec.ndim is not None and shape.ndims is not None and shape.ndims != spec.ndim:
                raise ValueError(where + f"expected ndim={spec.ndim}, found ndim={shape.ndims}."
                                 f" Full shape received: {shape.as_list()}")
            if spec.max_ndim is not None and shape.ndims is not None and \
                    shape.ndims > spec.max_ndim:
                raise ValueError(where + f"expected max_ndim={spec.max_ndim}, found "
                                 f"ndim={shape.ndims}")
            if spec.min_ndim is not None and shape.ndims is not None and \
                    shape.ndims < spec.min_ndim:
                raise ValueError(where + f": expected min_ndim={spec.min_ndim}, found "
                                 f"ndim={shape.ndims}. Full shape received: "
                                 f"{shape.as_list()}")
            if spec.axes and shape.ndims is not None:
                for axis, value in spec.axes.items():
                    got = shape[int(axis)].value
                    if value is not None and got not in (value, None):
                        raise ValueError(where + f"expected axis {axis} of input shape to "
                                         f"have value {value} but received input with shape "
                                         f"{shape.as_list()}")

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on its first call, calls it in ``name_scope(self.name)`` and
        records the call for the functional API when the inputs are Keras tensors."""
        input_list = _flatten(inputs)
        if not all(_is_tensor(x) for x in input_list):
            inputs = _map(lambda x: x if _is_tensor(x) else convert_to_tensor(x), inputs)
            input_list = _flatten(inputs)
        keras_inputs = bool(input_list) and all(get_history(x) is not None for x in input_list)
        previous_mask = None
        input_masks = [get_mask(x) for x in input_list]
        if any(m is not None for m in input_masks):
            previous_mask = input_masks[0] if len(input_masks) == 1 and not isinstance(
                inputs, (list, tuple)) else input_masks
            if self._expects_mask_arg and "mask" not in kwargs:
                kwargs["mask"] = previous_mask
        graph = input_list[0].graph if input_list else get_default_graph()
        with graph.as_default(), name_scope(self.name):
            if not self.built:
                self._assert_input_compatibility(inputs)
                self._maybe_build(inputs)
            else:
                self._assert_input_compatibility(inputs)
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError(f"A layer's `call` method should return a Tensor or a list "
                                 f"of Tensors, not None (layer: {self.name}).")
            if self._activity_regularizer is not None:
                self._handle_activity_regularization(outputs)
            output_list = _flatten(outputs)
            if keras_inputs and any(any(o is i for i in input_list) for o in output_list):
                # tf_keras wraps them in the layer's scope once more (dense/dense/Identity).
                with name_scope(self.name):
                    outputs = _map(lambda o: array_ops.identity(o) if any(
                        o is i for i in input_list) else o, outputs)
            # A layer that neither supports masking nor computes a mask drops the mask,
            # as tf_keras's _set_mask_metadata.
            if self.supports_masking or type(self).compute_mask is not Layer.compute_mask:
                output_masks = self.compute_mask(inputs, previous_mask)
                if output_masks is not None:
                    masks = output_masks if isinstance(output_masks, (list, tuple)) \
                        else [output_masks] * len(_flatten(outputs))
                    for o, m in zip(_flatten(outputs), masks):
                        set_mask(o, m)
        if keras_inputs:
            self._add_inbound_node(inputs, outputs, kwargs)
        return outputs

    def _handle_activity_regularization(self, outputs):
        for output in _flatten(outputs):
            with name_scope("ActivityRegularizer"):
                activity_loss = self._activity_regularizer(output)
                batch_size = math_ops.cast(array_ops.shape(output)[0],
                                           activity_loss.dtype.base_dtype)
                self._losses.append(activity_loss / batch_size)

    def _add_inbound_node(self, input_tensors, output_tensors, arguments=None):
        histories = [get_history(x) for x in _flatten(input_tensors)]
        Node(self, inbound_layers=[h[0] for h in histories],
             node_indices=[h[1] for h in histories], tensor_indices=[h[2] for h in histories],
             input_tensors=input_tensors, output_tensors=output_tensors, arguments=arguments)
        node_index = len(self._inbound_nodes) - 1
        for i, tensor in enumerate(_flatten(output_tensors)):
            set_history(tensor, (self, node_index, i))

    # ── inputs and outputs of the recorded calls ─────────────────────────────────────
    def _node_attr(self, attr, what, node_index=0):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return."
                                 if what == "input" else
                                 f"Layer {self.name} has no inbound nodes.")
        values = getattr(self._inbound_nodes[node_index], attr)
        return values[0] if isinstance(values, list) and len(values) == 1 else values

    @property
    def input(self):
        return self._node_attr("input_tensors", "input")

    @property
    def output(self):
        return self._node_attr("output_tensors", "output")

    @property
    def input_shape(self):
        if not self._inbound_nodes:
            raise AttributeError(f'The layer "{self.name}" has never been called and thus has '
                                 "no defined input shape.")
        shapes = self._inbound_nodes[0].input_shapes
        if isinstance(shapes, TensorShape):
            return tuple(shapes.as_list())
        return _map(lambda s: tuple(s.as_list()) if s.ndims is not None else None, shapes)

    @property
    def output_shape(self):
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has "
                                 "no defined output shape.")
        shapes = self._inbound_nodes[0].output_shapes
        if isinstance(shapes, TensorShape):
            return tuple(shapes.as_list())
        return _map(lambda s: tuple(s.as_list()) if s.ndims is not None else None, shapes)

    def get_input_at(self, node_index):
        return self._node_attr("input_tensors", "input", node_index)

    def get_output_at(self, node_index):
        return self._node_attr("output_tensors", "output", node_index)

    # ── config ────────────────────────────────────────────────────────────────────────
    def get_config(self):
        if type(self).get_config is Layer.get_config and type(self).__init__ is not \
                Layer.__init__:
            extra = set(inspect.signature(type(self).__init__).parameters) - {
                "self", "trainable", "name", "dtype", "dynamic", "kwargs", "args"}
            if extra:
                raise NotImplementedError("Layers with arguments in `__init__` must override "
                                          "`get_config`.")
        config = {"name": self.name, "trainable": self.trainable}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        config["dtype"] = self.dtype
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object '{self.name}'>"

