"""``tf.distributions.Multinomial``: counts over K classes of ``total_count`` draws. Samples
are drawn as TF draws them: one ``multinomial`` op per batch member inside ``map_fn``, whose
class indices are one-hot summed into counts."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    convert_to_tensor,
    dtypes,
    math_ops,
    name_scope,
    nn_ops,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import LogitsProbs, param_property
from scopeflow.ops.control_flow.functional_ops import map_fn

__all__ = ["Multinomial", "log_combinations"]


def log_combinations(n, counts, name="log_combinations"):
    """log of the multinomial coefficient n! / prod(counts!), through lgamma."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = math_ops.lgamma(n + 1)
        counts_factorial = math_ops.lgamma(counts + 1)
        redundant_permutations = math_ops.reduce_sum(counts_factorial, axis=[-1])
        return total_permutations - redundant_permutations


class Multinomial(LogitsProbs):
    """Counts of ``total_count`` categorical draws with ``logits`` or ``probs``."""

    total_count = param_property("total_count")

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            self._set_logits_probs(logits, probs, validate_args, name, multidimensional=True)
            self._mean_val = self._total_count[..., None] * self._probs
        self._init_discrete(self._probs.dtype, parameters, name,
                            graph_parents=[self._total_count, self._logits, self._probs])

    def _batch_shape_tensor(self):
        return array_ops.shape(self._mean_val)[:-1]

    def _batch_shape(self):
        return self._mean_val.shape.with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self):
        return array_ops.shape(self._mean_val)[-1:]

    def _event_shape(self):
        return self._mean_val.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = reduction_ops.ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = reduction_ops.ones_like(n_draws[..., None], dtype=self.logits.dtype) \
            * self.logits
        flat_logits = array_ops.reshape(logits, [-1, k])
        flat_ndraws = n * array_ops.reshape(n_draws, [-1])

        def _sample_single(args):
            # All n samples of one batch member in one draw of n * total_count classes.
            member_logits, n_draw = args[0], args[1]
            x = random_ops.multinomial(member_logits[None, ...], n_draw, seed)
            x = array_ops.reshape(x, shape=[n, -1])
            return math_ops.reduce_sum(array_ops.one_hot(x, depth=k), axis=-2)

        x = map_fn(_sample_single, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = array_ops.transpose(x, perm=[1, 0, 2])
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return array_ops.reshape(x, final_shape)

    def _log_prob(self, counts):
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts):
        return math_ops.reduce_sum(counts * nn_ops.log_softmax(self.logits), -1)

    def _log_normalization(self, counts):
        return -log_combinations(self.total_count, counts)

    def _mean(self):
        return array_ops.identity(self._mean_val)

    def _variance(self):
        p = self.probs * reduction_ops.ones_like(self.total_count)[..., None]
        return self._mean_val - self._mean_val * p
