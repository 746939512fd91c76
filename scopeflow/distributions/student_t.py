"""``tf.distributions.StudentT``: samples are ``normal * rsqrt(gamma / df)`` of one
``random_normal`` and one ``random_gamma`` draw (seeded with TF's "student_t" salt)."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    batch_shape_concat,
    check_ops,
    gen_new_seed,
    math_ops,
    np,
    random_gamma_ops,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import (
    BroadcastParams,
    LogProbFromParts,
    nan_fill,
    param_property,
)
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.math import gamma_ops

__all__ = ["StudentT"]


class StudentT(LogProbFromParts, BroadcastParams):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    _params = ("df", "loc", "scale")
    df = param_property("df")
    loc = param_property("loc")
    scale = param_property("scale")

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentT"):
        self._init_params(dict(locals()))

    def _param_checks(self, df, loc, scale):
        return [check_ops.assert_positive(df)]

    def _ones(self):
        return reduction_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _sample_n(self, n, seed=None):
        shape = batch_shape_concat(n, self)
        normal_sample = random_ops.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self.df * self._ones()
        gamma_sample = random_gamma_ops.random_gamma(
            [n], 0.5 * df, beta=0.5, dtype=self.dtype, seed=gen_new_seed(seed, "student_t"))
        samples = normal_sample * math_ops.rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_unnormalized_prob(self, x):
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * math_ops.log1p(y ** 2.0 / self.df)

    def _log_normalization(self):
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + 0.5 * np.log(np.pi) + math_ops.lgamma(0.5 * self.df)
                - math_ops.lgamma(0.5 * (self.df + 1.0)))

    def _cdf(self, x):
        # P(T <= t) through the regularised incomplete beta of df / (y^2 + df), mirrored
        # for positive y.
        y = (x - self.loc) / math_ops.abs(self.scale)
        x_t = self.df / (y ** 2.0 + self.df)
        neg_cdf = 0.5 * gamma_ops.betainc(0.5 * self.df, 0.5, x_t)
        return reduction_ops.where_v2(math_ops.less(y, 0.0), neg_cdf, 1.0 - neg_cdf)

    def _entropy(self):
        v = self._ones()[..., None]
        u = v * self.df[..., None]
        beta_arg = array_ops.concat([u, v], -1) / 2.0
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + math_ops.lbeta(beta_arg)
                + 0.5 * (self.df + 1.0) * (math_ops.digamma(0.5 * (self.df + 1.0))
                                           - math_ops.digamma(0.5 * self.df)))

    def _nan(self):
        return nan_fill(self, self.batch_shape_tensor())

    def _mean(self):
        mean = self.loc * self._ones()
        if self.allow_nan_stats:
            return reduction_ops.where_v2(math_ops.greater(self.df, self._ones()), mean,
                                          self._nan())
        return with_dependencies([check_ops.assert_less(
            reduction_ops.ones([], dtype=self.dtype), self.df,
            message="mean not defined for components of df <= 1")], mean)

    def _variance(self):
        # df / (df - 2) * scale^2 for df > 2, infinite for 1 < df <= 2, NaN below.
        denom = reduction_ops.where_v2(math_ops.greater(self.df, 2.0), self.df - 2.0,
                                       reduction_ops.ones_like(self.df))
        var = self._ones() * math_ops.square(self.scale) * self.df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        result_where_defined = reduction_ops.where_v2(
            math_ops.greater(self.df, reduction_ops.fill(self.batch_shape_tensor(), 2.0)),
            var, reduction_ops.fill(self.batch_shape_tensor(), inf, name="inf"))
        if self.allow_nan_stats:
            return reduction_ops.where_v2(math_ops.greater(self.df, self._ones()),
                                          result_where_defined, self._nan())
        return with_dependencies([check_ops.assert_less(
            reduction_ops.ones([], dtype=self.dtype), self.df,
            message="variance not defined for components of df <= 1")],
            result_where_defined)

    def _mode(self):
        return array_ops.identity(self.loc)
