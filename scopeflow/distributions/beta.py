"""``tf.distributions.Beta``: samples are ``g1 / (g1 + g0)`` of two ``random_gamma`` draws, the
second seeded by TF's MD5 salt of the first seed ("beta")."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    assert_same_float_dtype,
    check_ops,
    control_dependencies,
    convert_to_tensor,
    gen_new_seed,
    math_ops,
    name_scope,
    random_gamma_ops,
    reduction_ops,
)
from scopeflow.distributions._util import (
    LogProbFromParts,
    ParamShapeBatch,
    ScalarEvent,
    mode_where_defined,
    param_property,
)
from scopeflow.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from scopeflow.ops.math import gamma_ops

__all__ = ["Beta"]


class Beta(LogProbFromParts, ScalarEvent, ParamShapeBatch, Distribution):
    """The beta distribution on (0, 1) with ``concentration1`` (alpha) and
    ``concentration0`` (beta)."""

    _batch_param = "total_concentration"
    concentration1 = param_property("concentration1")
    concentration0 = param_property("concentration0")
    total_concentration = param_property("total_concentration")

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         reparameterization_type=FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0,
                                        self._total_concentration], name=name)

    def _sample_n(self, n, seed=None):
        expanded_concentration1 = reduction_ops.ones_like(
            self.total_concentration, dtype=self.dtype) * self.concentration1
        expanded_concentration0 = reduction_ops.ones_like(
            self.total_concentration, dtype=self.dtype) * self.concentration0
        gamma1_sample = random_gamma_ops.random_gamma(
            shape=[n], alpha=expanded_concentration1, dtype=self.dtype, seed=seed)
        gamma2_sample = random_gamma_ops.random_gamma(
            shape=[n], alpha=expanded_concentration0, dtype=self.dtype,
            seed=gen_new_seed(seed, "beta"))
        return gamma1_sample / (gamma1_sample + gamma2_sample)

    def _cdf(self, x):
        return gamma_ops.betainc(self.concentration1, self.concentration0, x)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return (math_ops.xlogy(self.concentration1 - 1.0, x)
                + (self.concentration0 - 1.0) * math_ops.log1p(-x))

    def _log_normalization(self):
        return (math_ops.lgamma(self.concentration1) + math_ops.lgamma(self.concentration0)
                - math_ops.lgamma(self.total_concentration))

    def _entropy(self):
        return (self._log_normalization()
                - (self.concentration1 - 1.0) * math_ops.digamma(self.concentration1)
                - (self.concentration0 - 1.0) * math_ops.digamma(self.concentration0)
                + ((self.total_concentration - 2.0)
                   * math_ops.digamma(self.total_concentration)))

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        return self._mean() * (1.0 - self._mean()) / (1.0 + self.total_concentration)

    def _mode(self):
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        return mode_where_defined(self, mode, [
            (self.concentration1, "Mode undefined for concentration1 <= 1."),
            (self.concentration0, "Mode undefined for concentration0 <= 1.")])

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        with control_dependencies([check_ops.assert_positive(
                concentration, message="Concentration parameter must be positive.")]):
            return array_ops.identity(concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        with control_dependencies([
                check_ops.assert_positive(x, message="sample must be positive"),
                check_ops.assert_less(x, reduction_ops.ones([], self.dtype),
                                      message="sample must be less than `1`.")]):
            return array_ops.identity(x)


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    """TF's closed form through the log-normalisers and digammas."""
    with name_scope(name, "kl_beta_beta", values=[d1.concentration1, d1.concentration0,
                                                  d2.concentration1, d2.concentration0]):
        return ((d2._log_normalization() - d1._log_normalization())
                - math_ops.digamma(d1.concentration1)
                * (d2.concentration1 - d1.concentration1)
                - math_ops.digamma(d1.concentration0)
                * (d2.concentration0 - d1.concentration0)
                + math_ops.digamma(d1.total_concentration)
                * (d2.total_concentration - d1.total_concentration))
