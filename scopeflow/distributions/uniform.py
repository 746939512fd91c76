"""``tf.distributions.Uniform``: samples are ``low + (high - low) * random_uniform`` on TF's
shape ``concat([[n], batch_shape])``."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    batch_shape_concat,
    check_ops,
    math_ops,
    np,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import BroadcastParams, param_property

__all__ = ["Uniform"]


class Uniform(BroadcastParams):
    """The uniform distribution on ``[low, high)``."""

    _params = ("low", "high")
    low = param_property("low")
    high = param_property("high")

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        self._init_params(dict(locals()))

    def _param_checks(self, low, high):
        return [check_ops.assert_less(low, high,
                                      message="uniform not defined when low >= high.")]

    def range(self, name="range"):
        """``high - low``."""
        with self._name_scope(name):
            return self.high - self.low

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
