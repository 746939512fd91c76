"""``tf.distributions.Distribution``: TF1's base class. Every public method opens the
distribution's own absolute name scope (``Normal/``) and a scope for the method
(``Normal/sample/``), converts its argument, and calls the subclass's ``_method``; the
fallbacks (prob from log_prob, variance from stddev, ...) are TF's."""

from __future__ import annotations

import contextlib
from operator import attrgetter

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    constant_value,
    convert_to_tensor,
    dtypes,
    math_ops,
    name_scope,
    np,
)
from scopeflow.framework.graph import Tensor
from scopeflow.framework.tensor_shape import TensorShape, as_shape

__all__ = ["Distribution", "ReparameterizationType", "FULLY_REPARAMETERIZED",
           "NOT_REPARAMETERIZED"]


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters. The two instances are
    compared by identity, as TF does."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _convert_value(value, name, preferred_dtype):
    """A method's ``value`` argument: converted with the distribution's dtype preferred, so a
    Python float meets a float64 distribution as float64."""
    if isinstance(value, Tensor):
        return value
    if preferred_dtype is not None:
        try:
            return convert_to_tensor(value, name=name, preferred_dtype=preferred_dtype)
        except TypeError:
            pass
    return convert_to_tensor(value, name=name)


def _attr_property(name, doc=None):
    """A read-only property returning ``self._<name>``."""
    return property(attrgetter("_" + name), doc=doc)


def _not_implemented(method):
    """A ``_method`` stub of the base class, raising TF's "<method> is not implemented"."""
    def stub(self, *args, **kwargs):
        raise NotImplementedError(f"{method} is not implemented: {type(self).__name__}")
    stub.__name__ = stub.__qualname__ = "_" + method
    return stub


def _with_fallback(primary, fallback, *args):
    """``primary(*args)``, or TF's fallback to a sibling method where it is not implemented;
    the primary's error is raised where neither is."""
    try:
        return primary(*args)
    except NotImplementedError as original:
        try:
            return fallback(*args)
        except NotImplementedError:
            raise original from None


class Distribution:
    """A batch of probability distributions over events of one shape, built in the graph."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats,
                 parameters=None, graph_parents=None, name=None):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":
            with name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = dict(parameters or {})
        self._graph_parents = list(graph_parents)
        self._name = name

    name = _attr_property(
        "name", "The absolute name scope (ending in ``/``) every op of this distribution opens.")
    dtype = _attr_property("dtype")
    reparameterization_type = _attr_property("reparameterization_type")
    allow_nan_stats = _attr_property("allow_nan_stats")
    validate_args = _attr_property("validate_args")

    @property
    def parameters(self):
        """The constructor's arguments, without ``self`` and dunder entries."""
        return {k: v for k, v in self._parameters.items()
                if not k.startswith("__") and k != "self"}

    def copy(self, **override_parameters_kwargs):
        """A new distribution of this type from the original arguments, some overridden."""
        parameters = dict(self.parameters, **override_parameters_kwargs)
        return type(self)(**parameters)

    @contextlib.contextmanager
    def _name_scope(self, name=None, values=None):
        with name_scope(self.name):
            with name_scope(name, values=(list(values or []) + self._graph_parents)) as scope:
                yield scope

    # Shapes.
    def _batch_shape(self):
        return TensorShape(None)

    def _event_shape(self):
        return TensorShape(None)

    _batch_shape_tensor = _not_implemented("batch_shape_tensor")
    _event_shape_tensor = _not_implemented("event_shape_tensor")

    @property
    def batch_shape(self):
        return as_shape(self._batch_shape())

    @property
    def event_shape(self):
        return as_shape(self._event_shape())

    def _shape_tensor(self, name, kind):
        """The ``kind`` ("batch" or "event") shape as an int32 vector: a constant named
        ``<kind>_shape`` when it is known statically, else ``_<kind>_shape_tensor()``."""
        with self._name_scope(name):
            static = getattr(self, kind + "_shape")
            if static.is_fully_defined():
                return convert_to_tensor(static.as_list(), dtype=dtypes.int32,
                                         name=kind + "_shape")
            return getattr(self, f"_{kind}_shape_tensor")()

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape as an int32 vector: a constant when it is known statically."""
        return self._shape_tensor(name, "batch")

    def event_shape_tensor(self, name="event_shape_tensor"):
        """The event shape as an int32 vector: a constant when it is known statically."""
        return self._shape_tensor(name, "event")

    # Sampling.
    def _expand_sample_shape_to_vector(self, x, name):
        """``sample_shape`` as a vector and the number of draws ``n`` (a NumPy scalar when it
        is static, as TF's, so it folds into the sampler's shape constant)."""
        x_static_val = constant_value(x)
        if x_static_val is None:
            prod = math_ops.reduce_prod(x)
        else:
            prod = np.prod(x_static_val, dtype=x.dtype.as_numpy_dtype)
        ndims = x.shape.ndims
        if ndims is None:
            ndims = array_ops.rank(x)
            fixed_shape = array_ops.pad(array_ops.shape(x), paddings=[[0, 1 - ndims]],
                                        constant_values=1)
            x = array_ops.reshape(x, fixed_shape)
        elif ndims == 0:
            if x_static_val is not None:
                x = convert_to_tensor(np.array([x_static_val], dtype=x.dtype.as_numpy_dtype),
                                      name=name)
            else:
                x = array_ops.reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x, sample_shape):
        """The static shape ``sample_shape + batch_shape + event_shape`` as far as known."""
        sample_shape = TensorShape(constant_value(sample_shape))
        ndims = x.shape.ndims
        sample_ndims = sample_shape.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if ndims is None and sample_ndims is not None and batch_ndims is not None \
                and event_ndims is not None:
            x.set_shape([None] * (sample_ndims + batch_ndims + event_ndims))
            ndims = x.shape.ndims
        if ndims is not None and sample_ndims is not None:
            x.set_shape(sample_shape.concatenate([None] * (ndims - sample_ndims)))
        if ndims is not None and event_ndims is not None:
            x.set_shape(TensorShape([None] * (ndims - event_ndims)).concatenate(
                self.event_shape))
        if ndims is not None and event_ndims is not None and batch_ndims is not None:
            x.set_shape(TensorShape([None] * (ndims - event_ndims - batch_ndims))
                        .concatenate(self.batch_shape).concatenate([None] * event_ndims))
        return x

    _sample_n = _not_implemented("sample_n")

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """``sample_shape`` draws: ``_sample_n`` draws ``n = prod(sample_shape)`` along a
        leading axis, which is then reshaped to ``sample_shape + batch + event``."""
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32,
                                             name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape, "sample_shape")
            samples = self._sample_n(n, seed)
            batch_event_shape = array_ops.shape(samples)[1:]
            final_shape = array_ops.concat([sample_shape, batch_event_shape], 0)
            samples = array_ops.reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    # Functions of a value, each with TF's fallback to its sibling.
    def _call_value(self, method, fallback, value, name):
        with self._name_scope(name, values=[value]):
            value = _convert_value(value, "value", self.dtype)
            return _with_fallback(getattr(self, method), fallback, value)

    def log_prob(self, value, name="log_prob"):
        """Log density/mass of ``value``; ``log(prob)`` where only prob is defined."""
        return self._call_value("_log_prob", lambda v: math_ops.log(self._prob(v)), value,
                                name)

    def prob(self, value, name="prob"):
        """Density/mass of ``value``; ``exp(log_prob)`` where only log_prob is defined."""
        return self._call_value("_prob", lambda v: math_ops.exp(self._log_prob(v)), value,
                                name)

    def log_cdf(self, value, name="log_cdf"):
        return self._call_value("_log_cdf", lambda v: math_ops.log(self._cdf(v)), value, name)

    def cdf(self, value, name="cdf"):
        return self._call_value("_cdf", lambda v: math_ops.exp(self._log_cdf(v)), value, name)

    def log_survival_function(self, value, name="log_survival_function"):
        return self._call_value("_log_survival_function",
                                lambda v: math_ops.log1p(-self.cdf(v)), value, name)

    def survival_function(self, value, name="survival_function"):
        return self._call_value("_survival_function", lambda v: 1.0 - self.cdf(v), value,
                                name)

    def quantile(self, value, name="quantile"):
        with self._name_scope(name, values=[value]):
            value = _convert_value(value, "value", self.dtype)
            return self._quantile(value)

    _log_prob = _not_implemented("log_prob")
    _prob = _not_implemented("prob")
    _log_cdf = _not_implemented("log_cdf")
    _cdf = _not_implemented("cdf")
    _log_survival_function = _not_implemented("log_survival_function")
    _survival_function = _not_implemented("survival_function")
    _quantile = _not_implemented("quantile")

    # Statistics.
    _entropy = _not_implemented("entropy")
    _mean = _not_implemented("mean")
    _variance = _not_implemented("variance")
    _stddev = _not_implemented("stddev")
    _covariance = _not_implemented("covariance")
    _mode = _not_implemented("mode")

    def _call_stat(self, name, method, fallback=None):
        """A statistic under its method's name scope, with TF's fallback to a sibling where
        one is given."""
        with self._name_scope(name):
            if fallback is None:
                return method()
            return _with_fallback(method, fallback)

    def entropy(self, name="entropy"):
        """Shannon entropy in nats."""
        return self._call_stat(name, self._entropy)

    def mean(self, name="mean"):
        return self._call_stat(name, self._mean)

    def mode(self, name="mode"):
        return self._call_stat(name, self._mode)

    def covariance(self, name="covariance"):
        return self._call_stat(name, self._covariance)

    def variance(self, name="variance"):
        """Variance; ``square(stddev)`` where only the standard deviation is defined."""
        return self._call_stat(name, self._variance,
                               lambda: math_ops.square(self._stddev()))

    def stddev(self, name="stddev"):
        """Standard deviation; ``sqrt(variance)`` where only the variance is defined."""
        return self._call_stat(name, self._stddev, lambda: math_ops.sqrt(self._variance()))

    def cross_entropy(self, other, name="cross_entropy"):
        """``entropy(self) + KL(self || other)``."""
        with self._name_scope(name):
            return kullback_leibler.cross_entropy(self, other,
                                                  allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other, name="kl_divergence"):
        """KL(self || other) by the registered rule (:func:`kl_divergence`)."""
        with self._name_scope(name):
            return kullback_leibler.kl_divergence(self, other,
                                                  allow_nan_stats=self.allow_nan_stats)

    def is_scalar_event(self, name="is_scalar_event"):
        with self._name_scope(name):
            return convert_to_tensor(self.event_shape.ndims == 0, name="is_scalar_event")

    def is_scalar_batch(self, name="is_scalar_batch"):
        with self._name_scope(name):
            return convert_to_tensor(self.batch_shape.ndims == 0, name="is_scalar_batch")

    def __str__(self):
        # TF 2.21 prints the tfp spelling and the scope name with its slash.
        return (f"tfp.distributions.{type(self).__name__}(\"{self.name}\""
                f", batch_shape={self.batch_shape}, event_shape={self.event_shape}"
                f", dtype={self.dtype.name})")

    def __repr__(self):
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}'"
                f" batch_shape={self.batch_shape} event_shape={self.event_shape}"
                f" dtype={self.dtype.name}>")
