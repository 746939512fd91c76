"""``tf.distributions.Uniform``: samples are ``low + (high - low) * random_uniform`` on TF's
shape ``concat([[n], batch_shape])``."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    assert_same_float_dtype,
    batch_shape_concat,
    check_ops,
    constant_op,
    control_dependencies,
    dtypes,
    math_ops,
    name_scope,
    np,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_static_shape

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            with control_dependencies([check_ops.assert_less(
                    low, high, message="uniform not defined when low >= high.")]
                    if validate_args else []):
                self._low = array_ops.identity(low, name="low")
                self._high = array_ops.identity(high, name="high")
                assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype, reparameterization_type=FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._low, self._high],
                         name=name)

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def range(self, name="range"):
        """``high - low``."""
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.low),
                                                 array_ops.shape(self.high))

    def _batch_shape(self):
        return broadcast_static_shape(self.low.shape, self.high.shape)

    def _event_shape_tensor(self):
        return constant_op.constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = batch_shape_concat(n, self)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x):
        broadcasted_x = x * reduction_ops.ones(self.batch_shape_tensor(), dtype=x.dtype)
        return reduction_ops.where_v2(
            math_ops.is_nan(broadcasted_x), broadcasted_x,
            reduction_ops.where_v2(
                math_ops.logical_or(math_ops.less(broadcasted_x, self.low),
                                    math_ops.greater_equal(broadcasted_x, self.high)),
                reduction_ops.zeros_like(broadcasted_x),
                reduction_ops.ones_like(broadcasted_x) / self.range()))

    def _cdf(self, x):
        broadcast_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(x),
                                                            self.batch_shape_tensor())
        zeros = reduction_ops.zeros(broadcast_shape, dtype=self.dtype)
        ones = reduction_ops.ones(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones
        result_if_not_big = reduction_ops.where_v2(
            math_ops.less(x, self.low), zeros, (broadcasted_x - self.low) / self.range())
        return reduction_ops.where_v2(math_ops.greater_equal(x, self.high), ones,
                                   result_if_not_big)

    def _entropy(self):
        return math_ops.log(self.range())

    def _mean(self):
        return (self.low + self.high) / 2.0

    def _variance(self):
        return math_ops.square(self.range()) / 12.0

    def _stddev(self):
        return self.range() / np.sqrt(12.0)
