"""Keras's core layers in graph mode: ``Dense``, ``Activation``, ``Dropout``, ``Flatten``,
``Reshape``, ``Permute``, ``RepeatVector``, ``Lambda``, ``Masking``,
``ActivityRegularization`` (tf_keras's ``layers/core``), built from the ops TF's build."""

from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import activations, constraints, initializers, regularizers
from scopeflow.keras import backend as K
from scopeflow.keras.engine.base_layer import InputSpec, Layer
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.nn.conv_ops import bias_add

__all__ = ["Dense", "Activation", "Dropout", "SpatialDropout1D", "Flatten", "Reshape",
           "Permute", "RepeatVector", "Lambda", "Masking", "ActivityRegularization"]


def _input_dim_kwargs(kwargs):
    if "input_shape" not in kwargs and "input_dim" in kwargs:
        kwargs["input_shape"] = (kwargs.pop("input_dim"),)
    kwargs.pop("input_dim", None)
    return kwargs


class Dense(Layer):
    """``activation(dot(inputs, kernel) + bias)``: ``kernel`` is ``[input_dim, units]``.

    >>> y = tf.keras.layers.Dense(4, activation="relu")(tf.zeros([2, 3]))
    >>> y.name
    'dense/Relu:0'
    """

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        kwargs = _input_dim_kwargs(kwargs)
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        last_dim = input_shape[-1].value if input_shape.ndims else None
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight("kernel", shape=[last_dim, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, dtype=self.dtype,
                                      trainable=True)
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype,
                                        trainable=True)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            outputs = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            shape = inputs.shape.as_list()
            outputs.set_shape(shape[:-1] + [self.units])
        else:
            outputs = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape).with_rank_at_least(2)
        if input_shape[-1].value is None:
            raise ValueError("The innermost dimension of input_shape must be defined, but saw: "
                             f"{input_shape}")
        return input_shape[:-1].concatenate(self.units)

    def get_config(self):
        config = {
            "units": self.units, "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        return {**super().get_config(), **config}


class Activation(Layer):
    """An activation function (``'relu'``, a callable) as a layer."""

    def __init__(self, activation, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class Dropout(Layer):
    """Drops ``rate`` of the inputs while training (the learning phase, a bool tensor in
    graph mode: a ``cond`` picks the dropped or the identical inputs)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        concrete = array_ops.shape(inputs)
        return [concrete[i] if value is None else value
                for i, value in enumerate(self.noise_shape)]

    def call(self, inputs, training=None):
        if training is None:
            training = K.learning_phase()

        def dropped_inputs():
            return nn_ops.dropout(inputs, noise_shape=self._get_noise_shape(inputs),
                                  seed=self.seed, rate=self.rate)

        return K.in_train_phase(dropped_inputs, lambda: array_ops.identity(inputs),
                                training=training)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape,
                "seed": self.seed}


class SpatialDropout1D(Dropout):
    """Drops whole feature maps of ``(batch, steps, channels)`` inputs."""

    def __init__(self, rate, **kwargs):
        super().__init__(rate, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def _get_noise_shape(self, inputs):
        shape = array_ops.shape(inputs)
        return [shape[0], 1, shape[2]]


class Flatten(Layer):
    """Flattens every axis but the batch axis: ``(batch, 4, 5)`` -> ``(batch, 20)``."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.data_format = data_format or K.image_data_format()
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.shape.ndims and \
                inputs.shape.ndims > 1:
            perm = [0] + list(range(2, inputs.shape.ndims)) + [1]
            inputs = array_ops.transpose(inputs, perm=perm)
        shape = inputs.shape
        if shape.ndims == 1:
            return array_ops.expand_dims(inputs, 1)
        non_batch = shape[1:]
        if non_batch.is_fully_defined():
            last_dim = int(functools.reduce(operator.mul, non_batch.as_list(), 1))
            target = constant([-1, last_dim])
        elif shape[0].value is not None:
            target = constant([int(shape[0].value), -1])
        else:
            target = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, target)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = dims[1:]
        flat = int(np.prod(rest)) if all(d is not None for d in rest) else None
        return TensorShape([dims[0], flat])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class Reshape(Layer):
    """Reshapes all but the batch axis to ``target_shape`` (one entry may be ``-1``)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.target_shape = tuple(target_shape)

    def _fix_unknown_dimension(self, input_shape, output_shape):
        output_shape = list(output_shape)
        msg = ("total size of new array must be unchanged, input_shape = "
               f"{list(input_shape)}, output_shape = {list(output_shape)}")
        known, unknown = 1, None
        for index, dim in enumerate(output_shape):
            if dim < 0:
                if unknown is None:
                    unknown = index
                else:
                    raise ValueError("Can only specify one unknown dimension.")
            else:
                known *= dim
        original = int(np.prod(input_shape, dtype=int))
        if unknown is not None:
            if known == 0 or original % known != 0:
                raise ValueError(msg)
            output_shape[unknown] = original // known
        elif original != known:
            raise ValueError(msg)
        return output_shape

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if None in dims[1:]:
            rest = [None if d == -1 else d for d in self.target_shape]
        else:
            rest = self._fix_unknown_dimension(dims[1:], self.target_shape)
        return TensorShape([dims[0]] + list(rest))

    def call(self, inputs):
        result = array_ops.reshape(
            inputs, array_ops.stack([array_ops.shape(inputs)[0]] + list(self.target_shape)))
        result.set_shape(self.compute_output_shape(inputs.shape))
        return result

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` counts them from 1."""

    def __init__(self, dims, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError("Invalid permutation `dims` for Permute Layer: "
                             f"{dims}. The set of indices in `dims` must be consecutive and "
                             "start from 1.")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + [dims[d] for d in self.dims])

    def call(self, inputs):
        return array_ops.transpose(inputs, perm=(0,) + self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """``(batch, features)`` -> ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], self.n, dims[1]])

    def call(self, inputs):
        return K.repeat(inputs, self.n)

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class Lambda(Layer):
    """An arbitrary function of the inputs as a layer (``arguments``: its extra keywords)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.function = function
        self.arguments = arguments or {}
        if mask is not None:
            self.supports_masking = True
        self.mask = mask
        self._output_shape = output_shape
        params = inspect.signature(function).parameters
        self._fn_expects_training_arg = "training" in params
        self._fn_expects_mask_arg = "mask" in params
        self._expects_mask_arg = self._fn_expects_mask_arg

    def call(self, inputs, mask=None, training=None):
        arguments = dict(self.arguments)
        if self._fn_expects_mask_arg:
            arguments["mask"] = mask
        if self._fn_expects_training_arg:
            arguments["training"] = training
        return self.function(inputs, **arguments)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return TensorShape(self._output_shape(input_shape))
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + list(self._output_shape))

    def get_config(self):
        if getattr(self.function, "__name__", "<lambda>") == "<lambda>":
            raise NotImplementedError("tf.keras.layers.Lambda.get_config of a lambda (Keras "
                                      "stores its bytecode) is not implemented in scopeflow; "
                                      "use a named function")
        config = {"function": self.function.__name__, "function_type": "function",
                  "output_shape": self._output_shape, "output_shape_type": "raw",
                  "arguments": self.arguments}
        return {**super().get_config(), **config}


class Masking(Layer):
    """Masks the timesteps whose features all equal ``mask_value``."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**_input_dim_kwargs(kwargs))
        self.supports_masking = True
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return K.any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        boolean_mask = K.any(math_ops.not_equal(inputs, self.mask_value), axis=-1,
                             keepdims=True)
        return inputs * math_ops.cast(boolean_mask, inputs.dtype.base_dtype)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


class ActivityRegularization(Layer):
    """Adds ``l1 * sum(|outputs|) + l2 * sum(outputs ** 2)`` (per sample) to the losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2),
                         **_input_dim_kwargs(kwargs))
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}
