"""``tf.distributions.Gamma``: samples are one ``random_gamma`` op (``RandomGamma`` scaled by
``1 / rate``) of shape ``[n]`` prepended to the batch, as TF draws them."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    assert_same_float_dtype,
    check_ops,
    control_dependencies,
    math_ops,
    name_scope,
    random_gamma_ops,
)
from scopeflow.distributions._util import (
    BroadcastParams,
    LogProbFromParts,
    mode_where_defined,
    param_property,
)
from scopeflow.ops.math import gamma_ops

__all__ = ["Gamma"]


class Gamma(LogProbFromParts, BroadcastParams):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    _params = ("concentration", "rate")
    concentration = param_property("concentration")
    rate = param_property("rate")

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        self._init_params(dict(locals()))

    def _param_checks(self, concentration, rate):
        return [check_ops.assert_positive(concentration), check_ops.assert_positive(rate)]

    def _sample_n(self, n, seed=None):
        return random_gamma_ops.random_gamma(shape=[n], alpha=self.concentration,
                                             beta=self.rate, dtype=self.dtype, seed=seed)

    def _maybe_assert_valid_sample(self, x):
        assert_same_float_dtype([x], self.dtype)
        if not self.validate_args:
            return x
        with control_dependencies([check_ops.assert_positive(x)]):
            return array_ops.identity(x)

    def _cdf(self, x):
        x = self._maybe_assert_valid_sample(x)
        return gamma_ops.igamma(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_ops.xlogy(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self):
        return (math_ops.lgamma(self.concentration)
                - self.concentration * math_ops.log(self.rate))

    def _entropy(self):
        return (self.concentration - math_ops.log(self.rate)
                + math_ops.lgamma(self.concentration)
                + ((1.0 - self.concentration) * math_ops.digamma(self.concentration)))

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / math_ops.square(self.rate)

    def _stddev(self):
        return math_ops.sqrt(self.concentration) / self.rate

    def _mode(self):
        mode = (self.concentration - 1.0) / self.rate
        return mode_where_defined(
            self, mode, [(self.concentration, "mode not defined when any concentration <= 1")])


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    """The closed form TF uses (Exponential inherits it through the MRO)."""
    with name_scope(name, "kl_gamma_gamma", values=[g0.concentration, g0.rate,
                                                    g1.concentration, g1.rate]):
        return (((g0.concentration - g1.concentration) * math_ops.digamma(g0.concentration))
                + math_ops.lgamma(g1.concentration)
                - math_ops.lgamma(g0.concentration)
                + g1.concentration * math_ops.log(g0.rate)
                - g1.concentration * math_ops.log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.0))
