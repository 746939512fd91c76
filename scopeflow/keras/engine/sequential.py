"""Keras's ``Sequential``: a linear stack of layers, a functional graph from its first
layer's input (``dense_input:0``, made from ``input_shape``) as soon as that is known."""

from __future__ import annotations

import numpy as np

from scopeflow.keras import layers as layers_module
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.keras.engine.input_layer import Input, InputLayer
from scopeflow.keras.engine.keras_tensor import get_history
from scopeflow.keras.engine.training import Model

__all__ = ["Sequential"]


class Sequential(Model):
    """``Sequential([layers...])`` or ``add(layer)`` one by one.

    >>> model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    >>> model.inputs[0].name, model.outputs[0].name
    ('dense_input:0', 'dense/BiasAdd:0')
    """

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return [layer for layer in self._stack if not isinstance(layer, InputLayer)]

    def add(self, layer):
        """Appends ``layer``, calling it on the stack's output when that exists."""
        history = get_history(layer) if not isinstance(layer, Layer) else None
        if history is not None and isinstance(history[0], InputLayer):
            layer = history[0]
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Found: "
                            f"{layer}")
        if any(layer.name == known.name for known in self._stack):
            raise ValueError(f'All layers added to a Sequential model should have unique '
                             f'names. Name "{layer.name}" is already the name of a layer in '
                             "this model. Update the `name` argument to pass a unique name.")
        if not self._stack:
            if isinstance(layer, InputLayer):
                self._stack.append(layer)
                self._set_graph(layer._inbound_nodes[0].output_tensors,
                                layer._inbound_nodes[0].output_tensors)
                self._after_graph()
                return
            batch_shape = getattr(layer, "_batch_input_shape", None)
            if batch_shape is not None:
                x = Input(batch_shape=batch_shape, dtype=layer.dtype,
                          name=f"{layer.name}_input")
                self._stack.append(get_history(x)[0])
                self._stack.append(layer)
                self._finish(x, layer(x))
                return
            self._stack.append(layer)
            return
        self._stack.append(layer)
        if self.outputs:
            output = layer(self.outputs[0])
            if isinstance(output, (list, tuple)):
                raise TypeError("All layers in a Sequential model should have a single output "
                                "tensor. For multi-output layers, use the functional API.")
            self._finish(self.inputs[0], output)

    def _finish(self, x, output):
        self._set_graph(x, output)
        self._after_graph()

    def _after_graph(self):
        self._layers = list(self._stack)
        self.built = True
        if self._compiled and self.optimizer is not None:
            self._compile_graph()

    def pop(self):
        raise NotImplementedError("tf.keras.Sequential.pop is not implemented in scopeflow")

    def build(self, input_shape=None):
        if self.outputs:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        self._build_from_shape(tuple(input_shape), None)

    def _build_from_shape(self, batch_shape, dtype):
        layers = [layer for layer in self._stack if not isinstance(layer, InputLayer)]
        if not layers:
            raise ValueError("A Sequential model has no layers to build.")
        x = Input(batch_shape=batch_shape, dtype=dtype, name=f"{layers[0].name}_input")
        output = x
        for layer in layers:
            output = layer(output)
        self._stack = [get_history(x)[0]] + layers
        self._finish(x, output)

    def _ensure_built(self, x):
        if not self.outputs:
            array = np.asarray(x[0] if isinstance(x, (list, tuple)) else x)
            dtype = "float32" if array.dtype.kind == "f" else array.dtype.name
            self._build_from_shape((None,) + array.shape[1:], dtype)
        super()._ensure_built(x)

    def call(self, inputs, training=None, mask=None):
        if self._is_graph_network:
            return self._run_internal_graph(inputs, training=training, mask=mask)
        outputs = inputs
        for layer in self.layers:
            kwargs = {"training": training} if layer._expects_training_arg and \
                training is not None else {}
            outputs = layer(outputs, **kwargs)
        return outputs

    def summary(self, *args, **kwargs):
        if not self.outputs:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        super().summary(*args, **kwargs)

    def get_config(self):
        layers = [{"class_name": type(layer).__name__, "config": layer.get_config()}
                  for layer in self._stack]
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if isinstance(config, list):
            config = {"layers": config}
        model = cls(name=config.get("name"))
        for layer_config in config["layers"]:
            model.add(layers_module.deserialize(layer_config, custom_objects=custom_objects))
        return model
