"""``tf.distributions.DirichletMultinomial``: counts of ``total_count`` draws whose class
probabilities are themselves Dirichlet. Samples are TF's two ops: ``random_gamma`` for the
Dirichlet's unnormalised log-probabilities, then ``multinomial`` on them (salted seed)."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    check_ops,
    convert_to_tensor,
    dtypes,
    gen_new_seed,
    math_ops,
    name_scope,
    random_gamma_ops,
    random_ops,
)
from scopeflow.distributions._util import ProbFromLogProb, SimplexEvent, param_property
from scopeflow.distributions.distribution import NOT_REPARAMETERIZED, Distribution
from scopeflow.distributions.multinomial import log_combinations
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies

__all__ = ["DirichletMultinomial"]


class DirichletMultinomial(ProbFromLogProb, SimplexEvent, Distribution):
    """The Dirichlet-multinomial compound over counts of ``total_count`` trials."""

    total_count = param_property("total_count")

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            self._concentration = convert_to_tensor(concentration, name="concentration")
            if validate_args:
                self._concentration = with_dependencies([check_ops.assert_positive(
                    self._concentration,
                    message="Concentration parameter must be positive.")],
                    self._concentration)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=NOT_REPARAMETERIZED, parameters=parameters,
                         graph_parents=[self._total_count, self._concentration], name=name)

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        gamma = random_gamma_ops.random_gamma(shape=[n], alpha=self.concentration,
                                              dtype=self.dtype, seed=seed)
        unnormalized_logits = array_ops.reshape(math_ops.log(gamma), shape=[-1, k])
        draws = random_ops.multinomial(logits=unnormalized_logits, num_samples=n_draws,
                                       seed=gen_new_seed(seed, "dirichlet_multinomial"))
        x = math_ops.reduce_sum(array_ops.one_hot(draws, depth=k), -2)
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return math_ops.cast(array_ops.reshape(x, final_shape), self.dtype)

    def _log_prob(self, counts):
        ordered_prob = (math_ops.lbeta(self.concentration + counts)
                        - math_ops.lbeta(self.concentration))
        return ordered_prob + log_combinations(self.total_count, counts)

    def _mean(self):
        return self.total_count * (self.concentration / self.total_concentration[..., None])

    def _variance_scale_term(self):
        c0 = self.total_concentration[..., None]
        return math_ops.sqrt((1.0 + c0 / self.total_count) / (1.0 + c0))

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)
