"""``tf.distributions.Exponential``: a Gamma with concentration 1 whose samples are
``-log(u) / rate`` of one ``random_uniform`` draw on ``[tiny, 1)``, as TF draws them."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    convert_to_tensor,
    math_ops,
    name_scope,
    np,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions.gamma import Gamma

__all__ = ["Exponential"]


class Exponential(Gamma):
    """The exponential distribution with rate ``rate``."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=reduction_ops.ones([], dtype=self._rate.dtype),
                         rate=self._rate, allow_nan_stats=allow_nan_stats,
                         validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @property
    def rate(self):
        return self._rate

    def _log_survival_function(self, value):
        return self._log_prob(value) - math_ops.log(self._rate)

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], array_ops.shape(self._rate)], 0)
        sampled = random_ops.random_uniform(
            shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1.0, seed=seed,
            dtype=self.dtype)
        return -math_ops.log(sampled) / self._rate
