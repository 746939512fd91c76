"""``tf.distributions.Dirichlet``: samples are one ``random_gamma`` draw per concentration,
normalised over the event axis."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    check_ops,
    convert_to_tensor,
    math_ops,
    name_scope,
    np,
    random_gamma_ops,
    reduction_ops,
)
from scopeflow.distributions._util import (
    LogProbFromParts,
    ProbFromLogProb,
    SimplexEvent,
    nan_fill,
)
from scopeflow.distributions.distribution import FULLY_REPARAMETERIZED, Distribution
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies

__all__ = ["Dirichlet"]


class Dirichlet(LogProbFromParts, ProbFromLogProb, SimplexEvent, Distribution):
    """The Dirichlet distribution over the simplex, given the last axis of
    ``concentration``."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration, self._total_concentration],
                         name=name)

    def _sample_n(self, n, seed=None):
        gamma_sample = random_gamma_ops.random_gamma(shape=[n], alpha=self.concentration,
                                                     dtype=self.dtype, seed=seed)
        return gamma_sample / math_ops.reduce_sum(gamma_sample, -1, keepdims=True)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_ops.reduce_sum(math_ops.xlogy(self.concentration - 1.0, x), -1)

    def _log_normalization(self):
        return math_ops.lbeta(self.concentration)

    def _entropy(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        return (self._log_normalization()
                + ((self.total_concentration - k)
                   * math_ops.digamma(self.total_concentration))
                - math_ops.reduce_sum((self.concentration - 1.0)
                                      * math_ops.digamma(self.concentration), axis=-1))

    def _mean(self):
        return self.concentration / self.total_concentration[..., None]

    def _variance_scale_term(self):
        return math_ops.rsqrt(1.0 + self.total_concentration[..., None])

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _mode(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self.concentration - 1.0) / (self.total_concentration[..., None] - k)
        if self.allow_nan_stats:
            nan = nan_fill(self, array_ops.shape(mode))
            return reduction_ops.where_v2(
                math_ops.reduce_all(math_ops.greater(self.concentration, 1.0), axis=-1),
                mode, nan)
        return with_dependencies([check_ops.assert_less(
            reduction_ops.ones([], self.dtype), self.concentration,
            message="Mode undefined when any concentration <= 1")], mode)

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        return with_dependencies([
            check_ops.assert_positive(concentration,
                                      message="Concentration parameter must be positive."),
            check_ops.assert_rank_at_least(
                concentration, 1,
                message="Concentration parameter must have >=1 dimensions."),
            check_ops.assert_less(
                1, array_ops.shape(concentration)[-1],
                message="Concentration parameter must have event_size >= 2.")],
            concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        one = reduction_ops.ones([], dtype=self.dtype)
        tol = np.array(10 * np.finfo(self.dtype.as_numpy_dtype).eps,
                       dtype=self.dtype.as_numpy_dtype)
        return with_dependencies([
            check_ops.assert_positive(x, message="samples must be positive"),
            check_ops.assert_less_equal(
                math_ops.abs(one - math_ops.reduce_sum(x, -1)), tol,
                message="sample last-dimension must sum to `1`")], x)


@kullback_leibler.RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    """lbeta(c2) - lbeta(c1) + sum((c1 - c2) * (digamma(c1) - digamma(sum c1)))."""
    with name_scope(name, "kl_dirichlet_dirichlet",
                    values=[d1.concentration, d2.concentration]):
        digamma_sum_d1 = math_ops.digamma(
            math_ops.reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = math_ops.digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (math_ops.reduce_sum(concentration_diff * digamma_diff, axis=-1)
                - math_ops.lbeta(d1.concentration) + math_ops.lbeta(d2.concentration))
