"""``tf.distributions.Bernoulli``: samples are ``random_uniform < probs`` on TF's shape
``concat([[n], batch_shape])``, cast to the distribution's integer dtype."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    batch_shape_concat,
    dtypes,
    math_ops,
    name_scope,
    nn_ops,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import LogitsProbs, ParamShapeBatch, ScalarEvent

__all__ = ["Bernoulli"]


class Bernoulli(ScalarEvent, ParamShapeBatch, LogitsProbs):
    """The Bernoulli distribution over {0, 1}, given ``logits`` or ``probs`` (not both)."""

    _batch_param = "logits"

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._set_logits_probs(logits, probs, validate_args, name)
        self._init_discrete(dtypes.as_dtype(dtype), parameters, name)

    def _sample_n(self, n, seed=None):
        new_shape = batch_shape_concat(n, self)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        sample = math_ops.less(uniform, self.probs)
        return math_ops.cast(sample, self.dtype)

    def _log_prob(self, event):
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        if not (event.shape.is_fully_defined() and logits.shape.is_fully_defined()
                and event.shape == logits.shape):
            logits, event = (reduction_ops.ones_like(event) * logits,
                             reduction_ops.ones_like(logits) * event)
        return -nn_ops.sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self):
        return (-self.logits * (math_ops.sigmoid(self.logits) - 1)
                + nn_ops.softplus(-self.logits))

    def _mean(self):
        return array_ops.identity(self.probs)

    def _variance(self):
        return self._mean() * (1.0 - self.probs)

    def _mode(self):
        return math_ops.cast(math_ops.greater(self.probs, 0.5), self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    """KL in terms of logits only, through softplus, so saturated probabilities stay finite."""
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = nn_ops.softplus(-b.logits) - nn_ops.softplus(-a.logits)
        delta_probs1 = nn_ops.softplus(b.logits) - nn_ops.softplus(a.logits)
        return (math_ops.sigmoid(a.logits) * delta_probs0
                + math_ops.sigmoid(-a.logits) * delta_probs1)
