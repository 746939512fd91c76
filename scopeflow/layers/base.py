"""tf.layers' base: ``Layer`` (TF1's legacy layer: scope capture, weights, updates)
and the argument helpers every layer shares.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from scopeflow.framework import dtypes, tensor_util
from scopeflow.framework.graph import GraphKeys, convert_to_tensor, get_default_graph, name_scope
from scopeflow.framework.properties import read_only
from scopeflow.ops.control_flow import cond_ops
from scopeflow.state.variable_scope import get_variable, variable_scope


def _snake_case(name):
    """TF's ``to_snake_case``: ``Conv2D`` -> ``conv2d``, ``MaxPooling2D`` -> ``max_pooling2d``."""
    return re.sub(r"([a-z])([A-Z])", r"\1_\2",
                  re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)).lower()


def _unique_layer_name(base):
    """A layer object's ``name`` when none is given: ``dense_1``, ``dense_2``... per graph
    (TF's legacy layers number their objects from 1, apart from their variable scopes)."""
    counts = get_default_graph()._layer_name_counts
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"


# ── Layer: the base class (TF1's legacy ``tf.layers.Layer``) ─────────────────────────
class Layer:
    """A callable that creates its variables on its first call, under its variable scope.

    ``_scope``/``_reuse`` are what the functional forms pass (TF's private arguments):
    the scope name to open, and the reuse flag to open it with.
    """

    _in_call = False  # inside __call__'s scope (where build() usually runs)

    def __init__(self, trainable=True, name=None, dtype=None, _scope=None, _reuse=None,
                 **kwargs):
        if kwargs:
            raise TypeError("Keyword argument not understood:", sorted(kwargs)[0])
        self.trainable = trainable
        self.built = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._reuse = _reuse
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        base = _snake_case(type(self).__name__)
        self._name = name or _unique_layer_name(base)
        self._base_name = name or base
        self._scope = None
        if _scope:
            with variable_scope(_scope) as captured:
                self._scope = captured

    name = read_only("_name")
    dtype = read_only("_dtype")
    scope_name = property(lambda self: self._scope.name if self._scope else None)
    trainable_weights = property(
        lambda self: list(self._trainable_weights) if self.trainable else [])
    non_trainable_weights = property(
        lambda self: self._non_trainable_weights + ([] if self.trainable
                                                    else self._trainable_weights))
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    variables = weights
    updates = property(lambda self: list(self._updates))
    losses = property(lambda self: list(self._losses))

    def _set_scope(self):
        if self._scope is None:
            if self._reuse:
                with variable_scope(self._base_name) as captured:
                    self._scope = captured
            else:
                with variable_scope(None, default_name=self._base_name) as captured:
                    self._scope = captured

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None):
        """``get_variable(name)`` in the layer's scope, tracked as (non-)trainable weight."""
        trainable = trainable and self.trainable
        if not self._in_call:
            # build() called directly, outside a call: TF's layers still name the weights
            # in their own scope (lstm_cell/kernel, then lstm_cell_1/kernel), and a later
            # call does not build them again
            self._set_scope()
            self.built = True
            with variable_scope(self._scope, auxiliary_name_scope=False):
                self._in_call = True
                try:
                    return self.add_weight(name, shape, dtype, initializer, regularizer,
                                           trainable, constraint)
                finally:
                    self._in_call = False
        reg_losses = get_default_graph().get_collection_ref(GraphKeys.REGULARIZATION_LOSSES)
        n_losses = len(reg_losses)
        variable = get_variable(name, shape, dtype=dtype or self._dtype,
                                initializer=initializer, regularizer=regularizer,
                                trainable=trainable, constraint=constraint)
        self._losses.extend(reg_losses[n_losses:])  # the weight's penalty: layer.losses too
        (self._trainable_weights if trainable else self._non_trainable_weights).append(
            variable)
        return variable

    def add_update(self, update):
        """Records an update (its op, as TF's) here and in ``tf.GraphKeys.UPDATE_OPS``."""
        update = getattr(update, "op", update)
        self._updates.append(update)
        get_default_graph().add_to_collection(GraphKeys.UPDATE_OPS, update)

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on the first call (in its captured scope), then applies it.

        Later calls re-enter the same scope with ``reuse=True``, and their ops go to the
        same name scope, numbered by op (``dense/BiasAdd_1``), as TF's.
        """
        self._set_scope()
        inputs = convert_to_tensor(inputs)
        with self._call_scope(inputs):
            outputs = self.call(inputs, *args, **kwargs)
            regularizer = getattr(self, "activity_regularizer", None)
            if regularizer is not None:
                with name_scope("ActivityRegularizer"):
                    loss = regularizer(outputs)
                if loss is not None:
                    self._losses.append(loss)
                    get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES,
                                                          loss)
        return outputs

    @contextlib.contextmanager
    def _call_scope(self, inputs):
        """The scope a call runs in (after ``_set_scope``): the captured variable scope,
        reused once the layer is built (building it first on the first call), and its
        original name scope, as TF's legacy layers."""
        if self._dtype is None:
            self._dtype = inputs.dtype.base_dtype
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False), \
                name_scope(self._scope.original_name_scope):
            self._in_call = True
            try:
                if not self.built:
                    self.build(inputs.shape)
                    self.built = True
                yield
            finally:
                self._in_call = False

    def apply(self, inputs, *args, **kwargs):
        return self(inputs, *args, **kwargs)


def _apply_layer(cls, arguments):
    """TF1's functional form of a layer class (``tf.layers.conv2d`` of ``Conv2D``): the class
    built from the function's own ``arguments`` (its ``locals()``, so the two signatures
    cannot drift apart), ``name`` also its variable scope, ``reuse`` that scope's reuse, and
    called on ``inputs`` (and ``training``, for the layers whose call takes it)."""
    kwargs = dict(arguments)
    inputs = kwargs.pop("inputs")
    reuse = kwargs.pop("reuse", None)
    call_kwargs = {"training": kwargs.pop("training")} if "training" in kwargs else {}
    return cls(**kwargs, _scope=kwargs["name"], _reuse=reuse)(inputs, **call_kwargs)


def _forwarded(arguments):
    """A constructor's own arguments (its ``locals()``) as keywords for ``super().__init__``:
    for a subclass that restates TF's signature (order, defaults) and changes nothing."""
    kwargs = {k: v for k, v in arguments.items() if k not in ("self", "__class__", "kwargs")}
    return {**kwargs, **arguments.get("kwargs", {})}


def _tuple(value, n, what):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: "
                         f"{value}")
    return value


def _padding(padding):
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                         f'"same" (or "causal", only for `Conv1D). Received: {padding}')
    return padding.upper()


def _channels_last(data_format):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                         f"'channels_last'. Received: {data_format}")
    if data_format == "channels_first":
        raise NotImplementedError("tf.layers with data_format='channels_first' (NCHW) is not "
                                  "supported on the CPU kernels; use channels_last")
    return data_format


# ── training: a bool or a tensor ──────────────────────────────────────────────────────
def _select(training, when_true, when_false):
    """TF's ``smart_cond``: a Python bool (or a constant tensor) picks a branch while
    building; any other tensor selects at run time.

    The tensor case builds ``tf.cond`` (``<layer>/cond/...``, as TF's names; scopeflow's
    cond is one ``Cond`` op, not TF's Switch/Merge).
    """
    value = training
    if not isinstance(training, (bool, np.bool_)):
        value = tensor_util.constant_value(convert_to_tensor(training))
    if value is not None:
        return when_true() if bool(value) else when_false()
    return cond_ops.cond(convert_to_tensor(training), when_true, when_false)


def _select_each(training, when_true, when_false):
    """``_select`` over a tuple of tensors."""
    value = training
    if not isinstance(training, (bool, np.bool_)):
        value = tensor_util.constant_value(convert_to_tensor(training))
    if value is not None:
        return when_true() if bool(value) else when_false()
    return tuple(cond_ops.cond(convert_to_tensor(training), lambda: tuple(when_true()),
                               lambda: tuple(when_false())))
