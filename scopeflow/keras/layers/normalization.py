"""Keras's ``BatchNormalization`` (TF1's V1 layer) and ``LayerNormalization``.

``BatchNormalization`` in graph mode: ``training`` (default: ``backend.learning_phase()``,
a bool placeholder defaulting to ``False``) picks between the batch's moments and the
moving ones, with a ``cond`` when it is a tensor; the moving mean and variance updates
(``moving -= (moving - batch) * (1 - momentum)``, ops ``AssignMovingAvg``) are the layer's
``updates`` (``add_update``), which ``fit`` runs. In inference the updates assign the
variables their own values. Outputs use the batch's biased variance; the moving variance is
updated with the biased one, or, where Keras fuses (4-D/5-D inputs normalised over the
first or last axis), with fused batch norm's Bessel-corrected one, as Keras."""

from __future__ import annotations

from scopeflow.framework import dtypes, tensor_util
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import backend as K
from scopeflow.keras import constraints, initializers, regularizers
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow import cond_ops
from scopeflow.ops.nn.nn_composites import batch_normalization, moments
from scopeflow.ops.state import state_ops
from scopeflow.state.variables import Variable

__all__ = ["BatchNormalization", "LayerNormalization"]


def smart_cond(pred, true_fn, false_fn):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known while building (a Python
    bool or int, or a constant tensor); a ``cond`` otherwise."""
    if isinstance(pred, Variable):
        pred = pred.value()
    if isinstance(pred, Tensor):
        value = tensor_util.constant_value(pred)
        if value is None:
            if pred.dtype.base_dtype != dtypes.bool:
                pred = math_ops.cast(pred, dtypes.bool)
            return cond_ops.cond(pred, true_fn, false_fn)
        pred = value
    return true_fn() if bool(pred) else false_fn()


def _constant_training(training):
    """``training``'s value if known while building (True/False), else ``None``."""
    if isinstance(training, Tensor):
        value = tensor_util.constant_value(training)
        return None if value is None else bool(value)
    return bool(training)


def _axis_list(axis):
    if isinstance(axis, (list, tuple)):
        return list(axis)
    if isinstance(axis, int):
        return [axis]
    raise TypeError("Expected an int or a list/tuple of ints for the argument 'axis', but "
                    f"received: {axis}")


# ── BatchNormalization ───────────────────────────────────────────────────────────────
class BatchNormalization(Layer):
    """Normalises each feature along ``axis`` by the batch's mean and variance (training)
    or the moving ones (inference), then scales by ``gamma`` and shifts by ``beta``.

    Weights ``gamma``, ``beta`` (trainable) and ``moving_mean``, ``moving_variance`` (not
    trainable), in that order."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        _axis_list(axis)  # checked; kept as given until build, as Keras's config shows it
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        if renorm:
            raise NotImplementedError("BatchNormalization: renorm=True (batch "
                                      "renormalization) is not supported")
        if virtual_batch_size is not None:
            raise NotImplementedError("BatchNormalization: virtual_batch_size (ghost batch "
                                      "normalization) is not supported")
        if adjustment is not None:
            raise NotImplementedError("BatchNormalization: adjustment is not supported")
        self.renorm = renorm
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        self.fused = True if fused is None else fused
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        ndims = input_shape.ndims
        self.axis = [x + ndims if x < 0 else x for x in _axis_list(self.axis)]
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid axis. Expected 0 <= axis < inputs.rank (with "
                                 f"inputs.rank={ndims}). Received: layer.axis={self.axis}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        dims = input_shape.as_list()
        axis_to_dim = {x: dims[x] for x in self.axis}
        for d in axis_to_dim.values():
            if d is None:
                raise ValueError("Input has undefined `axis` dimension. Received input with "
                                 f"shape {tuple(dims)} and axis={tuple(self.axis)}")
        self.fused = bool(self.fused) and ndims in (4, 5) and len(self.axis) == 1 and \
            self.axis[0] in (1, ndims - 1)
        if len(axis_to_dim) == 1:
            param_shape = (list(axis_to_dim.values())[0],)
        else:
            param_shape = tuple(axis_to_dim[i] if i in axis_to_dim else 1
                                for i in range(ndims))
        self._param_shape = param_shape
        param_dtype = dtypes.float32 if self.dtype in ("float16", "bfloat16") else \
            (self.dtype or K.floatx())
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=param_shape, dtype=param_dtype,
                initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint, trainable=True)
        else:
            self.gamma = None
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=param_shape, dtype=param_dtype,
                initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                constraint=self.beta_constraint, trainable=True)
        else:
            self.beta = None
        self.moving_mean = self.add_weight(
            name="moving_mean", shape=param_shape, dtype=param_dtype,
            initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(
            name="moving_variance", shape=param_shape, dtype=param_dtype,
            initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _assign_moving_average(self, variable, value, momentum):
        with name_scope("AssignMovingAvg") as scope:
            decay = convert_to_tensor(1.0 - momentum, name="decay") \
                if not isinstance(momentum, Tensor) else 1.0 - momentum
            if decay.dtype.base_dtype != variable.dtype.base_dtype:
                decay = math_ops.cast(decay, variable.dtype.base_dtype)
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def _variance_update(self, inputs, training, batch_variance, variance):
        """The variance the moving variance moves towards: Keras's fused path uses fused
        batch norm's Bessel-corrected variance (it normalises with the biased one)."""
        if not self.fused:
            return variance
        moving_variance = self.moving_variance
        sample_size = math_ops.cast(array_ops.size(inputs) // array_ops.size(
            batch_variance), batch_variance.dtype)
        unbiased = batch_variance * sample_size / (sample_size - 1.0)
        return smart_cond(training, lambda: unbiased,
                          lambda: convert_to_tensor(moving_variance))

    def call(self, inputs, training=None, mask=None):
        if training is None:
            training = K.learning_phase()
        training_value = _constant_training(training)
        ndims = inputs.shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        dims = inputs.shape.as_list()
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = dims[self.axis[0]]

        def _broadcast(v):
            if v is not None and v.shape.ndims != ndims and \
                    reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            if mask is not None:
                raise NotImplementedError("BatchNormalization: a mask is not supported")
            batch_mean, batch_variance = moments(inputs, reduction_axes, keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: batch_mean,
                              lambda: convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: batch_variance,
                                  lambda: convert_to_tensor(moving_variance))
            variance_update = self._variance_update(inputs, training, batch_variance,
                                                    variance)
            if training_value is None:
                momentum = smart_cond(training, lambda: convert_to_tensor(self.momentum),
                                      lambda: convert_to_tensor(1.0))
            else:
                momentum = self.momentum
            self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(self._assign_moving_average(self.moving_variance,
                                                        variance_update, momentum))
        outputs = batch_normalization(inputs, _broadcast(mean), _broadcast(variance), offset,
                                      scale, self.epsilon)
        outputs.set_shape(inputs.shape)
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = Layer.get_config(self)
        config.update({
            "axis": self.axis,
            "momentum": self.momentum, "epsilon": self.epsilon, "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer":
                initializers.serialize(self.moving_variance_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint)})
        return config


# ── LayerNormalization ───────────────────────────────────────────────────────────────
class LayerNormalization(Layer):
    """Normalises each example over ``axis`` (default: the last), then scales by ``gamma``
    and shifts by ``beta`` (both of the normalised axes' shape)."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        _axis_list(axis)  # checked; kept as given until build, as Keras's config shows it
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError(f"Input shape {input_shape} has undefined rank.")
        self.axis = [x + ndims if x < 0 else x for x in _axis_list(self.axis)]
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < "
                                 f"inputs.rank (with inputs.rank={ndims}). Received: "
                                 f"axis={tuple(self.axis)}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        dims = input_shape.as_list()
        param_shape = [dims[d] for d in self.axis]
        self.gamma = self.add_weight(
            name="gamma", shape=param_shape, initializer=self.gamma_initializer,
            regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
            trainable=True) if self.scale else None
        self.beta = self.add_weight(
            name="beta", shape=param_shape, initializer=self.beta_initializer,
            regularizer=self.beta_regularizer, constraint=self.beta_constraint,
            trainable=True) if self.center else None
        self.built = True

    def call(self, inputs):
        ndims = inputs.shape.ndims
        dims = inputs.shape.as_list()
        broadcast_shape = [1] * ndims
        for d in self.axis:
            broadcast_shape[d] = dims[d]

        def _broadcast(v):
            if v is not None and v.shape.ndims != ndims and self.axis != [ndims - 1]:
                return array_ops.reshape(v, broadcast_shape)
            return v

        mean, variance = moments(inputs, self.axis, keep_dims=True)
        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        outputs = batch_normalization(inputs, mean, variance, offset=offset, scale=scale,
                                      variance_epsilon=self.epsilon)
        outputs.set_shape(inputs.shape)
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = Layer.get_config(self)
        config.update({
            "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint)})
        return config
