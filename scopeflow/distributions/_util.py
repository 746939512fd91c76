"""The machinery several distributions share, as TF's subclasses share ``Distribution``'s:
parameter properties, shape methods named by class attributes, the constructor of the
distributions whose parameters broadcast elementwise, and the ``log_prob`` / ``prob`` /
NaN-fill pieces they all build the same way."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    assert_same_float_dtype,
    check_ops,
    constant_op,
    control_dependencies,
    dtypes,
    get_logits_and_probs,
    math_ops,
    name_scope,
    np,
    reduction_ops,
)
from scopeflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
)
from scopeflow.distributions.distribution import _attr_property as param_property
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_static_shape

__all__ = ["param_property", "ScalarEvent", "ParamShapeBatch", "SimplexEvent",
           "LogProbFromParts", "ProbFromLogProb", "BroadcastParams", "LocationScale",
           "LogitsProbs", "nan_fill", "mode_where_defined"]


def nan_fill(dist, shape):
    """``fill(shape, nan)`` named "nan", of the distribution's dtype (undefined statistics
    under ``allow_nan_stats``)."""
    return reduction_ops.fill(shape, np.array(np.nan, dtype=dist.dtype.as_numpy_dtype),
                              name="nan")


class ScalarEvent:
    """Events are scalars: the event shape is ``[]``, as a constant and statically."""

    def _event_shape_tensor(self):
        return constant_op.constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])


class ParamShapeBatch:
    """The batch shape is the shape of the one tensor named by ``_batch_param``."""

    _batch_param = None

    def _batch_shape_tensor(self):
        return array_ops.shape(getattr(self, self._batch_param))

    def _batch_shape(self):
        return getattr(self, self._batch_param).shape


class SimplexEvent:
    """Events are the last axis of ``concentration``; the batch is ``total_concentration``'s
    shape (Dirichlet, DirichletMultinomial)."""

    concentration = param_property("concentration")
    total_concentration = param_property("total_concentration")

    def _batch_shape_tensor(self):
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.shape

    def _event_shape_tensor(self):
        return array_ops.shape(self.concentration)[-1:]

    def _event_shape(self):
        return self.concentration.shape.with_rank_at_least(1)[-1:]


class LogProbFromParts:
    """``log_prob = log_unnormalized_prob - log_normalization``."""

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()


class ProbFromLogProb:
    """``prob = exp(log_prob)``, built by the subclass's own ``_prob``."""

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))


class BroadcastParams(ScalarEvent, Distribution):
    """A scalar-event distribution whose parameters (``_params``, in order) broadcast
    against each other elementwise: each is an ``identity`` named after itself, under the
    checks ``_param_checks`` gives when ``validate_args``, and all share one float dtype."""

    _params = ()

    def _param_checks(self, *params):
        return []

    def _init_params(self, parameters, reparameterization_type=FULLY_REPARAMETERIZED):
        """The constructor's body, given its ``dict(locals())``."""
        values = [parameters[p] for p in self._params]
        validate_args = parameters["validate_args"]
        with name_scope(parameters["name"], values=values) as name:
            with control_dependencies(self._param_checks(*values) if validate_args else []):
                tensors = [array_ops.identity(v, name=p) for p, v in zip(self._params, values)]
                assert_same_float_dtype(tensors)
        for p, t in zip(self._params, tensors):
            setattr(self, "_" + p, t)
        Distribution.__init__(self, dtype=tensors[0].dtype,
                              reparameterization_type=reparameterization_type,
                              validate_args=validate_args,
                              allow_nan_stats=parameters["allow_nan_stats"],
                              parameters=parameters, graph_parents=tensors, name=name)

    def _batch_shape_tensor(self):
        shapes = [array_ops.shape(getattr(self, p)) for p in self._params]
        result = shapes[-1]
        for shape in reversed(shapes[:-1]):
            result = array_ops.broadcast_dynamic_shape(shape, result)
        return result

    def _batch_shape(self):
        result = getattr(self, self._params[0]).shape
        for p in self._params[1:]:
            result = broadcast_static_shape(result, getattr(self, p).shape)
        return result


class LogitsProbs(Distribution):
    """A discrete distribution parameterised by ``logits`` and ``probs`` (one derived from
    the other by ``get_logits_and_probs``)."""

    logits = param_property("logits")
    probs = param_property("probs")

    def _set_logits_probs(self, logits, probs, validate_args, name, multidimensional=False):
        """``_logits`` and ``_probs``, the one not given derived from the other."""
        self._logits, self._probs = get_logits_and_probs(
            logits=logits, probs=probs, multidimensional=multidimensional,
            validate_args=validate_args, name=name)

    def _init_discrete(self, dtype, parameters, name, graph_parents=None):
        Distribution.__init__(self, dtype=dtype, reparameterization_type=NOT_REPARAMETERIZED,
                              validate_args=parameters["validate_args"],
                              allow_nan_stats=parameters["allow_nan_stats"],
                              parameters=parameters,
                              graph_parents=graph_parents or [self._logits, self._probs],
                              name=name)


class LocationScale(LogProbFromParts, BroadcastParams):
    """A distribution of ``loc`` and a positive ``scale`` (Normal, Laplace)."""

    _params = ("loc", "scale")
    loc = param_property("loc")
    scale = param_property("scale")

    def _param_checks(self, loc, scale):
        return [check_ops.assert_positive(scale)]


def mode_where_defined(dist, mode, concentrations):
    """``mode`` where every concentration exceeds 1: NaN elsewhere under ``allow_nan_stats``,
    else behind one ``1 < concentration`` assertion each (``concentrations`` is a list of
    ``(tensor, message)`` pairs; Gamma, Beta)."""
    if dist.allow_nan_stats:
        nan = nan_fill(dist, dist.batch_shape_tensor())
        defined = [math_ops.greater(c, 1.0) for c, _ in concentrations]
        is_defined = defined[0] if len(defined) == 1 else math_ops.logical_and(*defined)
        return reduction_ops.where_v2(is_defined, mode, nan)
    with control_dependencies([
            check_ops.assert_less(reduction_ops.ones([], dtype=dist.dtype), c, message=message)
            for c, message in concentrations]):
        return array_ops.identity(mode)
