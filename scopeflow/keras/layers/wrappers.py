"""Keras's layer wrappers: ``TimeDistributed`` (a layer applied to every time step) and
``Bidirectional`` (an RNN run forwards and backwards, merged).

As in Keras, ``TimeDistributed`` builds its layer in its own build (weights
``time_distributed/kernel:0``), and ``Bidirectional`` remakes the RNN from its config as
``forward_<name>`` and ``backward_<name>`` (``go_backwards`` flipped), built under those
scopes (``bidirectional/forward_lstm/lstm_cell/kernel:0``)."""

from __future__ import annotations

import copy
import inspect

from scopeflow.framework.graph import name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import array_ops
from scopeflow.ops.array import reverse_ops

__all__ = ["Wrapper", "TimeDistributed", "Bidirectional"]


def _dims(shape):
    return TensorShape(shape).as_list()


def _accepts(layer, arg):
    try:
        return arg in inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False


class Wrapper(Layer):
    """A layer around another layer (``self.layer``)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Wrapper` layer with a `tf.keras.layers."
                             f"Layer` instance. Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            if self.layer._dtype is None:
                self.layer._dtype = self._dtype
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    @property
    def activity_regularizer(self):
        return getattr(self.layer, "activity_regularizer", None)

    @activity_regularizer.setter
    def activity_regularizer(self, value):
        self._activity_regularizer = value

    def get_config(self):
        config = Layer.get_config(self)
        config["layer"] = {"class_name": type(self.layer).__name__,
                           "config": self.layer.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = copy.deepcopy(config)
        layer = _deserialize_layer(config.pop("layer"), custom_objects)
        return cls(layer, **config)


def _layer_class(name):
    """The Layer subclass called ``name`` (Keras's own layers, and any defined since)."""
    pending = [Layer]
    while pending:
        cls = pending.pop()
        if cls.__name__ == name:
            return cls
        pending.extend(cls.__subclasses__())
    return None


def _deserialize_layer(config, custom_objects=None):
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _layer_class(name)
    if cls is None:
        raise ValueError(f"Unknown layer: {name}. Please ensure this object is passed to "
                         "the `custom_objects` argument.")
    return cls.from_config(config["config"])


# ── TimeDistributed ──────────────────────────────────────────────────────────────────
class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step of ``[batch, time, ...]`` inputs (as one call
    on ``[batch * time, ...]``)."""

    def __init__(self, layer, **kwargs):
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        dims = _dims(input_shape)
        if len(dims) < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape ` "
                             f"with at least 3 dimensions, received: {tuple(dims)}")
        super().build(TensorShape([dims[0]] + dims[2:]))
        self.built = True

    def compute_output_shape(self, input_shape):
        dims = _dims(input_shape)
        child = _dims(self.layer.compute_output_shape(TensorShape([dims[0]] + dims[2:])))
        return TensorShape([child[0], dims[1]] + child[1:])

    def call(self, inputs, training=None, mask=None):
        kwargs = {}
        if _accepts(self.layer, "training") and training is not None:
            kwargs["training"] = training
        dims = inputs.shape.as_list()
        shape = array_ops.shape(inputs)
        inner_shape = [-1] + [d if d is not None else shape[i + 2]
                              for i, d in enumerate(dims[2:])]
        if any(not isinstance(d, int) for d in inner_shape):
            inner_shape = array_ops.stack(inner_shape)
        inner_inputs = array_ops.reshape(inputs, inner_shape)
        if mask is not None and _accepts(self.layer, "mask"):
            kwargs["mask"] = array_ops.reshape(mask, [-1] + [
                d if d is not None else -1 for d in mask.shape.as_list()[2:]])
        y = self.layer(inner_inputs, **kwargs)
        out_dims = y.shape.as_list()
        steps = dims[1] if dims[1] is not None else shape[1]
        batch = dims[0] if dims[0] is not None else -1
        out_shape = [batch, steps] + [d if d is not None else array_ops.shape(y)[i + 1]
                                      for i, d in enumerate(out_dims[1:])]
        if any(not isinstance(d, int) for d in out_shape):
            out_shape = array_ops.stack(out_shape)
        out = array_ops.reshape(y, out_shape)
        out.set_shape([dims[0], dims[1]] + out_dims[1:])
        return out

    def compute_mask(self, inputs, mask=None):
        return mask


# ── Bidirectional ────────────────────────────────────────────────────────────────────
class Bidirectional(Wrapper):
    """Runs an RNN layer forwards and a copy of it backwards over the inputs and merges
    their outputs (``merge_mode``: ``"concat"``, ``"sum"``, ``"ave"``, ``"mul"`` or
    ``None`` for a list); the backward sequence output is reversed back into time order."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a `tf.keras."
                             f"layers.Layer` instance. Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError("`backward_layer` need to be a `tf.keras.layers.Layer` "
                             f"instance. Received: {backward_layer}")
        if merge_mode not in ["sum", "mul", "ave", "concat", None]:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode "
                             "should be one of {'sum', 'mul', 'ave', 'concat', None}")
        super().__init__(layer, **kwargs)
        self.forward_layer = _recreate(layer)
        if backward_layer is None:
            self.backward_layer = _recreate(layer, go_backwards=True)
        else:
            self.backward_layer = backward_layer
        self.forward_layer._name = "forward_" + self.forward_layer.name
        self.backward_layer._name = "backward_" + self.backward_layer.name
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError("Forward layer and backward layer should have different "
                             "`go_backwards` value. forward_layer.go_backwards = "
                             f"{self.forward_layer.go_backwards},backward_layer.go_backwards"
                             f" = {self.backward_layer.go_backwards}")
        for layer_ in (self.forward_layer, self.backward_layer):
            if getattr(layer_, "zero_output_for_mask", None) is not None:
                layer_.zero_output_for_mask = layer_.return_sequences
        self.merge_mode = merge_mode
        if weights:
            nw = len(weights)
            self.forward_layer._initial_weights = weights[:nw // 2]
            self.backward_layer._initial_weights = weights[nw // 2:]
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True

    def build(self, input_shape):
        with name_scope(self.forward_layer.name):
            self.forward_layer.build(input_shape)
            self.forward_layer.built = True
        with name_scope(self.backward_layer.name):
            self.backward_layer.build(input_shape)
            self.backward_layer.built = True
        self.built = True

    def compute_output_shape(self, input_shape):
        output_shape = self.forward_layer.compute_output_shape(input_shape)
        if self.return_state:
            state_shape = output_shape[1:]
            output_shape = output_shape[0]
        dims = _dims(output_shape)
        if self.merge_mode == "concat":
            dims[-1] = None if dims[-1] is None else dims[-1] * 2
            output_shape = TensorShape(dims)
        elif self.merge_mode is None:
            output_shape = [TensorShape(dims), TensorShape(dims)]
        else:
            output_shape = TensorShape(dims)
        if self.return_state:
            outputs = output_shape if self.merge_mode is None else [output_shape]
            return outputs + list(state_shape) + copy.copy(list(state_shape))
        return output_shape

    def call(self, inputs, training=None, mask=None, initial_state=None):
        kwargs = {}
        if _accepts(self.layer, "training"):
            kwargs["training"] = training
        if _accepts(self.layer, "mask"):
            kwargs["mask"] = mask
        if isinstance(inputs, (list, tuple)) and len(inputs) > 1:
            forward_inputs, backward_inputs = [inputs[0]], [inputs[0]]
            pivot = (len(inputs) - 1) // 2 + 1
            forward_inputs += list(inputs[1:pivot])
            backward_inputs += list(inputs[pivot:])
            y = self.forward_layer(forward_inputs, **kwargs)
            y_rev = self.backward_layer(backward_inputs, **kwargs)
        elif initial_state is not None:
            half = len(initial_state) // 2
            y = self.forward_layer(inputs, initial_state=initial_state[:half], **kwargs)
            y_rev = self.backward_layer(inputs, initial_state=initial_state[half:], **kwargs)
        else:
            y = self.forward_layer(inputs, **kwargs)
            y_rev = self.backward_layer(inputs, **kwargs)
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return [output] + states
        return output

    def compute_mask(self, inputs, mask):
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            state_mask = [None] * (len(self.forward_layer._state_sizes) * 2)
            if self.merge_mode is None:
                return [output_mask, output_mask] + state_mask
            return [output_mask] + state_mask
        if self.merge_mode is None:
            return [output_mask, output_mask]
        return output_mask

    def reset_states(self, states=None):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if states is None:
            self.forward_layer.reset_states()
            self.backward_layer.reset_states()
            return
        half = len(states) // 2
        self.forward_layer.reset_states(states[:half])
        self.backward_layer.reset_states(states[half:])

    def get_config(self):
        config = Wrapper.get_config(self)
        config["merge_mode"] = self.merge_mode
        return config


def _recreate(layer, go_backwards=None):
    """A new layer from ``layer``'s config (``go_backwards`` flipped when asked)."""
    config = layer.get_config()
    if go_backwards:
        config["go_backwards"] = not config["go_backwards"]
    return type(layer).from_config(config)
