"""``tf.distributions.Normal``: samples are ``loc + scale * random_normal`` on TF's shape
``concat([[n], batch_shape])``, so a seeded graph draws TF's values."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    batch_shape_concat,
    constant_op,
    log_ndtr,
    math_ops,
    name_scope,
    ndtr,
    np,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import LocationScale

__all__ = ["Normal"]


class Normal(LocationScale):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        self._init_params(dict(locals()))

    def _sample_n(self, n, seed=None):
        shape = batch_shape_concat(n, self)
        sampled = random_ops.random_normal(shape=shape, mean=0.0, stddev=1.0,
                                           dtype=self.loc.dtype, seed=seed)
        return sampled * self.scale + self.loc

    def _z(self, x):
        with name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z):
        with name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc

    def _log_unnormalized_prob(self, x):
        return -0.5 * math_ops.square(self._z(x))

    def _log_normalization(self):
        return 0.5 * np.log(2.0 * np.pi) + math_ops.log(self.scale)

    def _log_cdf(self, x):
        return log_ndtr(self._z(x))

    def _cdf(self, x):
        return ndtr(self._z(x))

    def _log_survival_function(self, x):
        return log_ndtr(-self._z(x))

    def _survival_function(self, x):
        return ndtr(-self._z(x))

    def _quantile(self, p):
        return self._inv_z(math_ops.ndtri(p))

    def _entropy(self):
        scale = self.scale * reduction_ops.ones_like(self.loc)
        return 0.5 * np.log(2.0 * np.pi * np.e) + math_ops.log(scale)

    def _mean(self):
        return self.loc * reduction_ops.ones_like(self.scale)

    def _stddev(self):
        return self.scale * reduction_ops.ones_like(self.loc)

    def _mode(self):
        return self._mean()


@kullback_leibler.RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a, n_b, name=None):
    """Closed form: (mu_a - mu_b)^2 / (2 s_b^2) + (r - 1 - log r) / 2, r = s_a^2 / s_b^2."""
    with name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = constant_op.constant(1, dtype=n_a.dtype)
        two = constant_op.constant(2, dtype=n_a.dtype)
        half = constant_op.constant(0.5, dtype=n_a.dtype)
        s_a_squared = math_ops.square(n_a.scale)
        s_b_squared = math_ops.square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return (math_ops.squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared)
                + half * (ratio - one - math_ops.log(ratio)))
