"""``tf.distributions.Categorical``: samples are one ``multinomial`` op over the logits
flattened to 2-D, transposed and reshaped to ``[n] + batch_shape``, as TF draws them."""

from __future__ import annotations

from scopeflow.distributions import kullback_leibler
from scopeflow.distributions._common import (
    array_ops,
    constant_op,
    convert_to_tensor,
    dtypes,
    math_ops,
    name_scope,
    nn_ops,
    random_ops,
    reduction_ops,
)
from scopeflow.distributions._util import LogitsProbs, ScalarEvent
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["Categorical"]


def _broadcast_cat_event_and_params(event, params, base_dtype):
    """Class indices and per-class parameters broadcast against each other (float indices
    are cast to int32), unless their static shapes already agree."""
    if event.dtype.is_integer:
        pass
    elif event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    else:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    shape_known_statically = (params.shape.ndims is not None
                              and params.shape[:-1].is_fully_defined()
                              and event.shape.is_fully_defined())
    if not shape_known_statically or params.shape[:-1] != event.shape:
        params = params * reduction_ops.ones_like(event[..., None], dtype=params.dtype)
        params_shape = array_ops.shape(params)[:-1]
        event = event * reduction_ops.ones(params_shape, dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(TensorShape(params.shape[:-1]))
    return event, params


class Categorical(ScalarEvent, LogitsProbs):
    """A distribution over ``{0, ..., K-1}`` given ``logits`` or ``probs`` of last dim K."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._set_logits_probs(logits, probs, validate_args, name, multidimensional=True)
            logits_shape_static = self._logits.shape.with_rank_at_least(1)
            if logits_shape_static.ndims is not None:
                self._batch_rank = convert_to_tensor(
                    logits_shape_static.ndims - 1, dtype=dtypes.int32, name="batch_rank")
            else:
                with name_scope(name="batch_rank"):
                    self._batch_rank = array_ops.rank(self._logits) - 1
            logits_shape = array_ops.shape(self._logits, name="logits_shape")
            if logits_shape_static[-1] is not None and \
                    TensorShape(logits_shape_static[-1:]).is_fully_defined():
                self._event_size = convert_to_tensor(
                    TensorShape(logits_shape_static[-1:]).as_list()[0], dtype=dtypes.int32,
                    name="event_size")
            else:
                with name_scope(name="event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if logits_shape_static[:-1].is_fully_defined():
                self._batch_shape_val = constant_op.constant(
                    logits_shape_static[:-1].as_list(), dtype=dtypes.int32,
                    name="batch_shape")
            else:
                with name_scope(name="batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        self._init_discrete(dtypes.as_dtype(dtype), parameters, name)

    @property
    def event_size(self):
        """The number of classes K, a scalar int32 tensor."""
        return self._event_size

    def _batch_shape_tensor(self):
        return array_ops.identity(self._batch_shape_val)

    def _batch_shape(self):
        return self.logits.shape[:-1]

    def _sample_n(self, n, seed=None):
        if self.logits.shape.ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = array_ops.reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = array_ops.reshape(array_ops.transpose(draws),
                                  array_ops.concat([[n], self.batch_shape_tensor()], 0))
        return math_ops.cast(draws, self.dtype)

    def _cdf(self, k):
        k = convert_to_tensor(k, name="k")
        k, probs = _broadcast_cat_event_and_params(k, self.probs, self.dtype.base_dtype)
        # Flattened to a batch of rows so that sequence_mask picks the classes below k.
        batch_flattened_probs = array_ops.reshape(probs, (-1, self._event_size))
        batch_flattened_k = array_ops.reshape(k, [-1])
        to_sum_over = reduction_ops.where(
            array_ops.sequence_mask(batch_flattened_k, self._event_size),
            batch_flattened_probs, reduction_ops.zeros_like(batch_flattened_probs))
        batch_flattened_cdf = math_ops.reduce_sum(to_sum_over, axis=-1)
        return array_ops.reshape(batch_flattened_cdf, array_ops.shape(k))

    def _log_prob(self, k):
        k = convert_to_tensor(k, name="k")
        k, logits = _broadcast_cat_event_and_params(k, self.logits, self.dtype.base_dtype)
        return -nn_ops.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self):
        return -math_ops.reduce_sum(nn_ops.log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self):
        ret = math_ops.argmax(self.logits, axis=self._batch_rank)
        ret = math_ops.cast(ret, self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    """sum softmax(a) * (log_softmax(a) - log_softmax(b)) over the classes."""
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta_log_probs1 = nn_ops.log_softmax(a.logits) - nn_ops.log_softmax(b.logits)
        return math_ops.reduce_sum(nn_ops.softmax(a.logits) * delta_log_probs1, axis=-1)
