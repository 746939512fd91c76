"""``tf.distributions.kl_divergence`` and ``RegisterKL``: the KL rule for a pair of
distribution classes is the registered one whose classes are nearest up both MROs."""

from __future__ import annotations

from scopeflow.distributions._common import (
    array_ops,
    control_dependencies,
    math_ops,
    name_scope,
)
from scopeflow.ops.logging import logging_ops

__all__ = ["kl_divergence", "cross_entropy", "RegisterKL"]

_DIVERGENCES: dict = {}


def _registered_kl(type_a, type_b):
    """The rule registered for the (type_a, type_b) ancestor pair of least total distance."""
    hierarchy_a = type_a.__mro__
    hierarchy_b = type_b.__mro__
    dist_to_children = None
    kl_fn = None
    for mro_to_a, parent_a in enumerate(hierarchy_a):
        for mro_to_b, parent_b in enumerate(hierarchy_b):
            candidate = _DIVERGENCES.get((parent_a, parent_b))
            if not kl_fn or (candidate and mro_to_a + mro_to_b < dist_to_children):
                dist_to_children = mro_to_a + mro_to_b
                kl_fn = candidate
    return kl_fn


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(a || b) under "KullbackLeibler/"; with ``allow_nan_stats=False`` a NaN result fails
    at run time, as TF's Assert does."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = array_ops.identity(kl_t, name="kl")
        with control_dependencies([logging_ops.Assert(
                math_ops.logical_not(math_ops.reduce_any(math_ops.is_nan(kl_t))),
                [f"KL calculation between {distribution_a.name} and {distribution_b.name}"
                 " returned NaN values (and was called with allow_nan_stats=False). "
                 "Values:", kl_t])]):
            return array_ops.identity(kl_t, name="checked_kl")


def cross_entropy(ref, other, allow_nan_stats=True, name=None):
    """``entropy(ref) + KL(ref || other)``."""
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator registering ``kl_fn(a, b, name=None)`` for a pair of distribution classes."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has "
                             f"already been registered to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
