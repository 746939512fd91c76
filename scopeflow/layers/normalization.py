"""``BatchNormalization`` and ``batch_normalization``."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, tensor_util
from scopeflow.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from scopeflow.layers.base import Layer, _apply_layer, _select, _select_each
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.nn import nn_composites, nn_norm_ops
from scopeflow.ops.state import init_ops, state_ops


# ── BatchNormalization ───────────────────────────────────────────────────────────────
def _assign_moving_average(variable, value, momentum):
    """``variable -= (variable - value) * (1 - momentum)`` as op ``<layer>/AssignMovingAvg``
    with TF's nodes: a Python ``momentum`` gives the constant ``AssignMovingAvg/decay``, a
    tensor one (the fused path's) the float32 ``sub`` of ``1.0 - momentum`` (so the decay
    is ``0.00999999`` there, as TF's, not ``0.01``)."""
    with name_scope("AssignMovingAvg") as scope, colocate_with(variable):
        base = variable.dtype.base_dtype
        if isinstance(momentum, Tensor):
            decay = 1.0 - momentum
        else:
            decay = convert_to_tensor(1.0 - momentum, name="decay")
        if decay.dtype.base_dtype != base:
            decay = math_ops.cast(decay, base)
        delta = (variable - math_ops.cast(value, base)) * decay
        return state_ops.assign_sub(variable, delta, name=scope)


class BatchNormalization(Layer):
    """Batch normalization over ``axis`` with ``gamma``, ``beta`` (trainable) and
    ``moving_mean``, ``moving_variance`` (not trainable), TF1's legacy layer.

    ``training`` (a bool or a bool tensor) picks the batch statistics and adds the
    moving-average updates (``<layer>/AssignMovingAvg``, ``AssignMovingAvg_1``) to
    ``tf.GraphKeys.UPDATE_OPS``; run them with the train step. Rank-4 inputs normalized
    over channels use ``FusedBatchNormV3`` (the moving variance then follows the op's
    Bessel-corrected batch variance, as TF's); other ranks the ``nn.moments`` /
    ``nn.batch_normalization`` ops (``<layer>/batchnorm/add_1``, the population variance).

    NOTE: with a tensor ``training`` scopeflow builds one ``cond`` for the statistics and
    the updates outside it; TF one per statistic and for the momentum or the updates
    (``cond_1``.., with Switch/Merge ops scopeflow's cond has not).
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None,
                 moving_mean_initializer=None, moving_variance_initializer=None,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        for arg, value in (("renorm", renorm), ("virtual_batch_size", virtual_batch_size),
                           ("adjustment", adjustment)):
            if value:
                raise NotImplementedError(f"tf.layers.BatchNormalization({arg}=...) is not "
                                          "supported by scopeflow yet")
        self.axis = [axis] if isinstance(axis, int) else list(axis)
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale, self.fused = center, scale, fused
        self.beta_initializer = beta_initializer or init_ops.zeros_initializer()
        self.gamma_initializer = gamma_initializer or init_ops.ones_initializer()
        self.moving_mean_initializer = moving_mean_initializer or init_ops.zeros_initializer()
        self.moving_variance_initializer = (moving_variance_initializer
                                            or init_ops.ones_initializer())
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.gamma = self.beta = self.moving_mean = self.moving_variance = None

    def build(self, input_shape):
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        axis = sorted(a + ndims if a < 0 else a for a in self.axis)
        for a in axis:
            if not 0 <= a < ndims:
                raise ValueError(f"Invalid axis: {a}")
        self.axis = axis
        # TF's V1 layer falls back to the plain ops where the fused op cannot serve
        # (float64 included, even with fused=True: the op takes half and float32).
        self.fused = (self.fused is not False and ndims == 4 and axis in ([1], [3])
                      and self._dtype in (dtypes.float16, dtypes.float32))
        dims = input_shape.as_tuple()
        if any(dims[a] is None for a in axis):
            raise ValueError(f"Input has undefined `axis` dimension. Received input with "
                             f"shape {input_shape} and axis={self.axis}")
        # One axis: [C]; several: the input's shape with 1 in the reduced dims (as TF).
        shape = [dims[axis[0]]] if len(axis) == 1 else \
            [dims[i] if i in axis else 1 for i in range(ndims)]
        dtype = dtypes.float32 if self._dtype == dtypes.float16 else self._dtype
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, dtype, self.gamma_initializer,
                                         self.gamma_regularizer, True, self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight("beta", shape, dtype, self.beta_initializer,
                                        self.beta_regularizer, True, self.beta_constraint)
        self.moving_mean = self.add_weight("moving_mean", shape, dtype,
                                           self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape, dtype,
                                               self.moving_variance_initializer,
                                               trainable=False)

    def call(self, inputs, training=False):
        if self.fused:
            output, mean, variance = self._fused(inputs, training)
            if training is not False:
                # TF's fused path takes the momentum as a tensor (``<layer>/Const``); with
                # a tensor ``training`` a cond of it and 1 (no update when not training).
                if isinstance(training, (bool, np.bool_)) or tensor_util.constant_value(
                        convert_to_tensor(training)) is not None:
                    momentum = convert_to_tensor(self.momentum)
                else:
                    momentum = _select(training, lambda: convert_to_tensor(self.momentum),
                                       lambda: convert_to_tensor(1.0))
                self._add_updates(mean, variance, momentum)
            return output
        return self._plain(inputs, training)

    def _add_updates(self, mean, variance, momentum):
        self.add_update(_assign_moving_average(self.moving_mean, mean, momentum))
        self.add_update(_assign_moving_average(self.moving_variance, variance, momentum))

    def _param(self, variable, fill):
        if variable is not None:
            return variable
        return constant(fill, dtype=self.moving_mean.dtype.base_dtype,
                        shape=self.moving_mean.shape.as_list())

    def _fused(self, inputs, training):
        beta, gamma = self._param(self.beta, 0.0), self._param(self.gamma, 1.0)
        data_format = "NHWC" if self.axis == [3] else "NCHW"

        def train():
            # TF feeds the moving statistics in training too; with the default
            # ``exponential_avg_factor`` of 1 the op ignores them.
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, self.moving_mean,
                                                self.moving_variance, epsilon=self.epsilon,
                                                data_format=data_format)

        def infer():
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, self.moving_mean,
                                                self.moving_variance, epsilon=self.epsilon,
                                                data_format=data_format, is_training=False)
        return _select_each(training, train, infer)

    def _plain(self, inputs, training):
        ndims = inputs.shape.ndims
        reduction = [i for i in range(ndims) if i not in self.axis]
        dims = inputs.shape.as_tuple()
        broadcast = [dims[i] if i in self.axis else 1 for i in range(ndims)]
        needs_broadcast = len(self.axis) == 1 and reduction != list(range(ndims - 1))

        def bcast(v):
            return array_ops.reshape(v, broadcast) if needs_broadcast and v is not None else v

        # TF's order: gamma's and beta's reshapes, the moments, the updates, then the
        # statistics' reshapes.
        scale, offset = bcast(self.gamma), bcast(self.beta)
        if training is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = nn_composites.moments(
                inputs, reduction, keep_dims=len(self.axis) > 1)
            # TF's nodes: one cond per statistic, then the updates (Python momentum),
            # each in a cond of its own for a tensor ``training``, before the output's ops.
            mean = _select(training, lambda: batch_mean, lambda: self.moving_mean.value())
            variance = _select(training, lambda: batch_variance,
                               lambda: self.moving_variance.value())
            for var, value in ((self.moving_mean, mean), (self.moving_variance, variance)):
                self.add_update(_select(
                    training, lambda var=var, value=value: _assign_moving_average(
                        var, value, self.momentum), var.value))
        return nn_composites.batch_normalization(
            inputs, bcast(mean), bcast(variance), offset, scale, self.epsilon)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization; see ``BatchNormalization``.

    >>> y = tf.layers.batch_normalization(tf.ones([2, 3]), training=True)
    >>> [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
    ['batch_normalization/AssignMovingAvg', 'batch_normalization/AssignMovingAvg_1']
    """
    return _apply_layer(BatchNormalization, locals())
