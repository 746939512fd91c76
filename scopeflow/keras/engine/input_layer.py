"""``InputLayer`` and ``Input``: where a functional model's graph starts (a placeholder
named after the layer: ``input_1:0``)."""

from __future__ import annotations

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import Layer, Node
from scopeflow.keras.engine.keras_tensor import set_history

__all__ = ["InputLayer", "Input"]


class InputLayer(Layer):
    """A layer holding an input placeholder (or a given ``input_tensor``)."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, **kwargs):
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
        if input_shape is not None and batch_input_shape is not None:
            raise ValueError("Only provide the input_shape OR batch_input_shape argument to "
                             "InputLayer, not both at the same time.")
        if sparse:
            raise NotImplementedError("tf.keras.layers.InputLayer(sparse=True) is not "
                                      "implemented in scopeflow")
        if not name:
            name = f"input_{K.get_uid('input')}"
        if not dtype:
            dtype = K.floatx() if input_tensor is None else input_tensor.dtype.base_dtype.name
        super().__init__(dtype=dtype, name=name)
        self.built = True
        self.sparse = sparse
        self.batch_size = batch_size
        self.supports_masking = True
        if input_tensor is None:
            if input_shape is not None:
                batch_input_shape = (batch_size,) + tuple(input_shape)
            elif batch_input_shape is not None:
                batch_input_shape = tuple(batch_input_shape)
            input_tensor = K.placeholder(shape=batch_input_shape, dtype=dtype, name=self.name)
            self.is_placeholder = True
        else:
            self.is_placeholder = False
            batch_input_shape = tuple(TensorShape(input_tensor.shape).as_list()) \
                if input_tensor.shape.ndims is not None else None
        self._batch_input_shape = batch_input_shape
        Node(self, inbound_layers=[], node_indices=[], tensor_indices=[],
             input_tensors=[input_tensor], output_tensors=[input_tensor])
        set_history(input_tensor, (self, 0, 0))

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": self.sparse, "ragged": False, "name": self.name,
                "optional": False}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for flag in ("ragged", "optional"):
            if config.pop(flag, False):
                raise NotImplementedError(f"tf.keras.layers.InputLayer({flag}=True) is not "
                                          "implemented in scopeflow")
        return cls(**config)


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,  # noqa: N802
          **kwargs):
    """A Keras tensor: the output of a new ``InputLayer``.

    >>> tf.keras.Input(shape=(3,)).name
    'input_1:0'
    """
    batch_shape = kwargs.pop("batch_shape", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    if shape is None and tensor is None and batch_shape is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    if batch_shape is not None:
        layer = InputLayer(batch_input_shape=batch_shape, name=name, dtype=dtype,
                           sparse=sparse, input_tensor=tensor)
    else:
        layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                           sparse=sparse, input_tensor=tensor)
    outputs = layer._inbound_nodes[0].output_tensors
    return outputs[0] if len(outputs) == 1 else outputs
