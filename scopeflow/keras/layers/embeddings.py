"""Keras's ``Embedding``: integer ids -> rows of an ``embeddings`` matrix."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import constraints, initializers, regularizers
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import math_ops
from scopeflow.ops.nn.embedding_ops import embedding_lookup

__all__ = ["Embedding"]


class Embedding(Layer):
    """``embedding/embeddings:0`` of shape ``[input_dim, output_dim]``, looked up by id;
    ``mask_zero=True`` masks id 0 for the layers after it.

    >>> e = tf.keras.layers.Embedding(10, 4)
    >>> e(tf.zeros([2, 5], tf.int32)).shape.as_list()
    [2, 5, 4]
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "float32"
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.input_length is None:
            return TensorShape(dims + [self.output_dim])
        lengths = self.input_length if isinstance(self.input_length, (list, tuple)) \
            else [self.input_length]
        if len(lengths) != len(dims) - 1:
            raise ValueError(f'"input_length" is {self.input_length}, but received input has '
                             f"shape {dims}")
        for i, (s1, s2) in enumerate(zip(lengths, dims[1:])):
            if s1 is not None and s2 is not None and s1 != s2:
                raise ValueError(f'"input_length" is {self.input_length}, but received input '
                                 f"has shape {dims}")
            if s1 is None:
                lengths[i] = s2
        return TensorShape([dims[0]] + list(lengths) + [self.output_dim])

    def call(self, inputs):
        if inputs.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            inputs = math_ops.cast(inputs, "int32")
        return embedding_lookup(self.embeddings, inputs)

    def get_config(self):
        config = {
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero, "input_length": self.input_length,
        }
        return {**super().get_config(), **config}
