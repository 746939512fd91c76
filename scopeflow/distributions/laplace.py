"""``tf.distributions.Laplace``: samples invert the CDF of one ``random_uniform`` draw on
``(-1, 1)`` (the open lower end keeps ``log1p(-|u|)`` finite), as TF does."""

from __future__ import annotations

from scopeflow.distributions._common import (
    batch_shape_concat,
    log_cdf_laplace,
    math_ops,
    np,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import LocationScale, ProbFromLogProb

__all__ = ["Laplace"]


class Laplace(ProbFromLogProb, LocationScale):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        self._init_params(dict(locals()))

    def _sample_n(self, n, seed=None):
        shape = batch_shape_concat(n, self)
        np_dtype = self.dtype.as_numpy_dtype
        minval = np.nextafter(np_dtype(-1.0), np_dtype(0.0))
        uniform_samples = random_ops.random_uniform(shape=shape, minval=minval, maxval=1.0,
                                                    dtype=self.dtype, seed=seed)
        return (self.loc - self.scale * math_ops.sign(uniform_samples)
                * math_ops.log1p(-math_ops.abs(uniform_samples)))

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _log_cdf(self, x):
        return log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x):
        return log_cdf_laplace(-self._z(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 + 0.5 * math_ops.sign(z) * (1.0 - math_ops.exp(-math_ops.abs(z)))

    def _log_unnormalized_prob(self, x):
        return -math_ops.abs(self._z(x))

    def _log_normalization(self):
        return np.log(2.0) + math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale + reduction_ops.zeros_like(self.loc)
        return np.log(2.0) + 1.0 + math_ops.log(scale)

    def _mean(self):
        return self.loc + reduction_ops.zeros_like(self.scale)

    def _stddev(self):
        return np.sqrt(2.0) * self.scale + reduction_ops.zeros_like(self.loc)

    def _median(self):
        return self._mean()

    def _mode(self):
        return self._mean()
