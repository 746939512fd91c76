"""``tf.keras.backend``: Keras's session, learning phase, name counters and tensor helpers,
in TF1 graph mode on scopeflow's graph.

One session per graph (``get_session``) holds every Keras variable, so ``tf.train.Saver``
and summaries see them; it initializes the variables Keras has not initialized yet, as
TF 1.15's ``_initialize_variables``. Layer names come from per-graph counters
(``unique_object_name``: ``dense``, ``dense_1``...; ``get_uid``: 1, 2...) that share one map
per graph, as TF's ``PER_GRAPH_OBJECT_NAME_UIDS``.
"""

from __future__ import annotations

import weakref
from collections import defaultdict

import numpy as np

from scopeflow.autodiff.gradients import gradients as _tf_gradients
from scopeflow.framework import dtypes as dtypes_module
from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import (
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
    reset_default_graph,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras.engine.keras_tensor import get_history
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.constant_op import constant as _constant
from scopeflow.ops.control_flow import cond_ops
from scopeflow.ops.control_flow.control_flow_ops import group
from scopeflow.ops.nn.conv_ops import bias_add as _bias_add
from scopeflow.ops.random import random_ops
from scopeflow.ops.state import state_ops
from scopeflow.runtime.session import Session
from scopeflow.state import variables as variables_module

__all__ = [
    "get_session", "set_session", "clear_session", "get_graph", "learning_phase",
    "set_learning_phase", "learning_phase_scope", "floatx", "set_floatx", "epsilon",
    "set_epsilon", "image_data_format", "set_image_data_format", "get_uid", "reset_uids",
    "unique_object_name", "int_shape", "ndim", "dtype", "shape", "placeholder", "variable",
    "constant", "zeros", "ones", "zeros_like", "ones_like", "eye", "eval", "get_value",
    "set_value", "batch_get_value", "batch_set_value", "count_params", "function", "gradients",
    "stop_gradient", "is_placeholder", "is_keras_tensor", "is_tensor", "cast", "cast_to_floatx",
    "dot", "batch_dot", "transpose", "sum", "mean", "max", "min", "prod", "std", "var",
    "argmax", "argmin", "square", "sqrt", "abs", "exp", "log", "pow", "clip", "equal",
    "not_equal", "greater", "greater_equal", "less", "less_equal", "maximum", "minimum",
    "relu", "elu", "softmax", "softplus", "softsign", "sigmoid", "hard_sigmoid", "tanh",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
    "concatenate", "reshape", "permute_dimensions", "repeat", "flatten", "batch_flatten",
    "expand_dims", "squeeze", "stack", "one_hot", "in_train_phase", "in_test_phase",
    "switch", "dropout", "l2_normalize", "random_uniform", "random_normal", "update",
    "update_add", "update_sub", "name_scope", "manual_variable_initialization",
    "track_variable", "all", "any", "round", "sign", "gather", "tile", "bias_add",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_SESSION = None
_MANUAL_VAR_INIT = False
# Per graph: the name counters, the learning-phase placeholder, a fixed learning phase.
_PER_GRAPH_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LEARNING_PHASE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_FIXED_PHASE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TRACKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# ── configuration ────────────────────────────────────────────────────────────────────
def floatx():
    """The default float type, ``'float32'``."""
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _FLOATX = str(value)


def epsilon():
    """The fuzz factor of numeric expressions, ``1e-07``."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = str(data_format)


def cast_to_floatx(x):
    return np.asarray(x, dtype=_FLOATX)


# ── names ───────────────────────────────────────────────────────────────────────────
def get_graph():
    return get_default_graph()


def _uids():
    graph = get_default_graph()
    if graph not in _PER_GRAPH_UIDS:
        _PER_GRAPH_UIDS[graph] = defaultdict(int)
    return _PER_GRAPH_UIDS[graph]


def get_uid(prefix=""):
    """The next number for ``prefix`` in the default graph: 1, 2, ..."""
    uids = _uids()
    uids[prefix] += 1
    return uids[prefix]


def reset_uids():
    _PER_GRAPH_UIDS.pop(get_default_graph(), None)


def unique_object_name(name, name_uid_map=None, avoid_names=None, namespace="",
                       zero_based=False):
    """``name`` made unique in the graph: ``dense``, ``dense_1``... (``zero_based``) or
    ``dense_1``, ``dense_2``..., as TF's ``backend.unique_object_name``."""
    uids = _uids() if name_uid_map is None else name_uid_map
    avoid = set(avoid_names or ())
    proposed = None
    while proposed is None or proposed in avoid:
        key = (namespace, name)
        number = uids[key]
        uids[key] += 1
        proposed = name if zero_based and number == 0 else \
            f"{name}_{number if zero_based else number + 1}"
    return proposed


# ── session ─────────────────────────────────────────────────────────────────────────
def get_session():
    """The session Keras runs its graphs in (made for the default graph on first use); the
    variables of the graph that Keras has not initialized yet are initialized in it."""
    global _SESSION
    default = get_default_session()
    if default is not None and default.graph is get_default_graph():
        session = default
    else:
        if _SESSION is None or _SESSION.graph is not get_default_graph() or \
                getattr(_SESSION, "_closed", False):
            _SESSION = Session(graph=get_default_graph())
        session = _SESSION
    if not _MANUAL_VAR_INIT:
        _initialize_variables(session)
    return session


def _initialize_variables(session):
    graph = session.graph
    with graph.as_default():
        candidates = [v for v in variables_module.global_variables()
                      if not getattr(v, "_keras_initialized", False)]
        if not candidates:
            return
        flags = session.run([state_ops.is_variable_initialized(v) for v in candidates])
        for v in candidates:
            v._keras_initialized = True
        pending = [v for v, ok in zip(candidates, flags) if not ok]
        if pending:
            session.run(variables_module.variables_initializer(pending))


def set_session(session):
    global _SESSION
    _SESSION = session


def clear_session():
    """A new default graph, fresh name counters and learning phase, no session."""
    global _SESSION
    _SESSION = None
    reset_default_graph()
    reset_uids()


def manual_variable_initialization(value):
    global _MANUAL_VAR_INIT
    _MANUAL_VAR_INIT = bool(value)


def track_variable(v):
    _TRACKED.setdefault(v.graph if hasattr(v, "graph") else get_default_graph(), []).append(v)


# ── learning phase ───────────────────────────────────────────────────────────────────
def learning_phase():
    """The learning phase: the value ``set_learning_phase`` fixed, else the graph's
    ``keras_learning_phase`` placeholder (a bool defaulting to ``False``: feed 1 to train)."""
    graph = get_default_graph()
    if graph in _FIXED_PHASE:
        return _FIXED_PHASE[graph]
    if graph not in _LEARNING_PHASE:
        with name_scope(""):
            _LEARNING_PHASE[graph] = array_ops.placeholder_with_default(
                False, shape=(), name="keras_learning_phase")
    return _LEARNING_PHASE[graph]


def _learning_phase_placeholder():
    """The graph's placeholder (made if need be), even when a phase is fixed."""
    graph = get_default_graph()
    fixed = _FIXED_PHASE.pop(graph, None)
    try:
        return learning_phase()
    finally:
        if fixed is not None:
            _FIXED_PHASE[graph] = fixed


def set_learning_phase(value):
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _FIXED_PHASE[get_default_graph()] = int(value)


class learning_phase_scope:  # noqa: N801 - TF's name
    """Within it, the learning phase is ``value``."""

    def __init__(self, value):
        if value not in (0, 1):
            raise ValueError("Expected learning phase to be 0 or 1.")
        self.value = value

    def __enter__(self):
        graph = get_default_graph()
        self._graph, self._previous = graph, _FIXED_PHASE.get(graph)
        _FIXED_PHASE[graph] = self.value

    def __exit__(self, *exc):
        if self._previous is None:
            _FIXED_PHASE.pop(self._graph, None)
        else:
            _FIXED_PHASE[self._graph] = self._previous


# ── tensors and variables ────────────────────────────────────────────────────────────
def is_tensor(x):
    return isinstance(x, (Tensor, variables_module.Variable))


def is_keras_tensor(x):
    if not is_tensor(x):
        raise ValueError("Unexpectedly found an instance of type `" + str(type(x)) + "`. "
                         "Expected a symbolic tensor instance.")
    return get_history(x) is not None


def is_placeholder(x):
    return isinstance(x, Tensor) and x.op.type in ("Placeholder", "PlaceholderWithDefault")


def int_shape(x):
    """The static shape as a tuple of ints and ``None``s (``None`` for an unknown rank)."""
    if isinstance(x, np.ndarray):
        return x.shape
    shape = x.shape if isinstance(x.shape, TensorShape) else x.get_shape()
    if shape.ndims is None:
        return None
    return tuple(shape.as_list())


def ndim(x):
    return x.shape.ndims


def dtype(x):
    return x.dtype.base_dtype.name


def shape(x):
    return array_ops.shape(x)


def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None):
    if sparse:
        raise NotImplementedError("tf.keras.backend.placeholder(sparse=True) is not "
                                  "implemented in scopeflow")
    if shape is None and ndim:
        shape = (None,) * ndim
    return array_ops.placeholder(dtype or floatx(), shape=shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    value = np.asarray(value, dtype=dtype or floatx())
    v = variables_module.Variable(value, dtype=value.dtype, name=name, constraint=constraint)
    track_variable(v)
    return v


def constant(value, dtype=None, shape=None, name=None):
    return _constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def zeros(shape, dtype=None, name=None):
    return variable(np.zeros(shape), dtype, name)


def ones(shape, dtype=None, name=None):
    return variable(np.ones(shape), dtype, name)


def eye(size, dtype=None, name=None):
    return variable(np.eye(size), dtype, name)


def zeros_like(x, dtype=None, name=None):
    return array_ops.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    return array_ops.ones_like(x, dtype=dtype, name=name)


def eval(x):  # noqa: A001 - Keras's name
    return get_value(convert_to_tensor(x))


def get_value(x):
    return get_session().run(x)


def batch_get_value(tensors):
    return get_session().run(list(tensors)) if tensors else []


def set_value(x, value):
    batch_set_value([(x, value)])


def batch_set_value(tuples):
    """Assigns NumPy values to variables, through one cached placeholder per variable."""
    if not tuples:
        return
    ops_, feed = [], {}
    for x, value in tuples:
        value = np.asarray(value, dtype=x.dtype.base_dtype.as_numpy_dtype)
        cached = getattr(x, "_keras_assign", None)
        if cached is None:
            with x.graph.as_default():
                ph = array_ops.placeholder(x.dtype.base_dtype, shape=value.shape)
                cached = (ph, state_ops.assign(x, ph))
            x._keras_assign = cached
        ops_.append(cached[1])
        feed[cached[0]] = value
    get_session().run(ops_, feed_dict=feed)


def count_params(x):
    return int(np.prod(int_shape(x)))


def update(x, new_x):
    return state_ops.assign(x, new_x)


def update_add(x, increment):
    return state_ops.assign_add(x, increment)


def update_sub(x, decrement):
    return state_ops.assign_sub(x, decrement)


def gradients(loss, variables):
    return _tf_gradients(loss, variables, colocate_gradients_with_ops=True)


def stop_gradient(variables):
    if isinstance(variables, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables]
    return array_ops.stop_gradient(variables)


class Function:
    """``K.function(inputs, outputs, updates)``: a callable running the graph in Keras's
    session, feeding the inputs (a list of arrays) and running the updates."""

    def __init__(self, inputs, outputs, updates=None, name=None, **session_kwargs):
        self.inputs = list(inputs)
        self._outputs_structure = outputs
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        updates = updates or []
        ops_ = []
        for u in updates:
            if isinstance(u, tuple):
                u = state_ops.assign(u[0], u[1])
            ops_.append(u)
        with get_default_graph().control_dependencies(self.outputs):
            self.updates_op = group(*ops_) if ops_ else None
        self.name = name
        self.feed_dict = session_kwargs.pop("feed_dict", None) or {}
        self.fetches = session_kwargs.pop("fetches", None) or []
        # tf_keras's hook: {fetch: callback(value)}, each called with its fetch's value.
        self.fetch_callbacks = session_kwargs.pop("fetch_callbacks", None) or {}
        self.session_kwargs = session_kwargs

    def __call__(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        feed = dict(self.feed_dict)
        for tensor, value in zip(self.inputs, inputs):
            if value is None:
                continue
            feed[tensor] = value
        fetches = self.outputs + ([self.updates_op] if self.updates_op is not None else [])
        extra = list(self.fetches)
        results = get_session().run(fetches + extra, feed_dict=feed, **self.session_kwargs)
        for fetch, value in zip(extra, results[len(fetches):]):
            if fetch in self.fetch_callbacks:
                self.fetch_callbacks[fetch](value)
        return results[:len(self.outputs)]


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates=updates, name=name, **kwargs)


# ── ops ──────────────────────────────────────────────────────────────────────────────
def cast(x, dtype):
    return math_ops.cast(x, dtype)


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def dot(x, y):
    if x.shape.ndims is not None and (x.shape.ndims > 2 or y.shape.ndims > 2):
        return math_ops.tensordot(x, y, [[x.shape.ndims - 1], [y.shape.ndims - 2]])
    return math_ops.matmul(x, y)


def batch_dot(x, y, axes=None):
    if axes is None:
        axes = [x.shape.ndims - 1, y.shape.ndims - 2]
    if isinstance(axes, int):
        axes = (axes, axes)
    if x.shape.ndims == 2 and y.shape.ndims == 2:
        return math_ops.reduce_sum(x * y, axis=axes[0], keepdims=True) if axes[0] == axes[1] \
            else math_ops.reduce_sum(array_ops.transpose(x) * y, axis=axes[1], keepdims=True)
    return math_ops.matmul(x, y, adjoint_a=axes[0] == x.shape.ndims - 2,
                           adjoint_b=axes[1] == y.shape.ndims - 1)


def transpose(x):
    return array_ops.transpose(x)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_sum(x, _axis(axis), keepdims)


def mean(x, axis=None, keepdims=False):
    if x.dtype.base_dtype == dtypes_module.bool:
        x = math_ops.cast(x, floatx())
    return math_ops.reduce_mean(x, _axis(axis), keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_max(x, _axis(axis), keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_min(x, _axis(axis), keepdims)


def prod(x, axis=None, keepdims=False):
    return math_ops.reduce_prod(x, _axis(axis), keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_all(math_ops.cast(x, "bool"), _axis(axis), keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_any(math_ops.cast(x, "bool"), _axis(axis), keepdims)


def var(x, axis=None, keepdims=False):
    m = math_ops.reduce_mean(x, _axis(axis), True)
    return math_ops.reduce_mean(math_ops.square(x - m), _axis(axis), keepdims)


def std(x, axis=None, keepdims=False):
    return math_ops.sqrt(var(x, axis, keepdims))


def argmax(x, axis=-1):
    return math_ops.argmax(x, axis)


def argmin(x, axis=-1):
    return math_ops.argmin(x, axis)


def square(x):
    return math_ops.square(x)


def sqrt(x):
    zero = convert_to_tensor(0.0, dtype=x.dtype.base_dtype)
    inf = convert_to_tensor(np.inf, dtype=x.dtype.base_dtype)
    return math_ops.sqrt(math_ops.clip_by_value(x, zero, inf))


def abs(x):  # noqa: A001
    return math_ops.abs(x)


def exp(x):
    return math_ops.exp(x)


def log(x):
    return math_ops.log(x)


def pow(x, a):  # noqa: A001
    return math_ops.pow(x, a)


def round(x):  # noqa: A001
    return math_ops.round(x)


def sign(x):
    return math_ops.sign(x)


def clip(x, min_value, max_value):
    if max_value is not None and min_value is not None and max_value < min_value:
        max_value = min_value
    if max_value is None:
        max_value = np.inf
    if min_value is None:
        min_value = -np.inf
    return math_ops.clip_by_value(x, min_value, max_value)


def equal(x, y):
    return math_ops.equal(x, y)


def not_equal(x, y):
    return math_ops.not_equal(x, y)


def greater(x, y):
    return math_ops.greater(x, y)


def greater_equal(x, y):
    return math_ops.greater_equal(x, y)


def less(x, y):
    return math_ops.less(x, y)


def less_equal(x, y):
    return math_ops.less_equal(x, y)


def maximum(x, y):
    return math_ops.maximum(x, y)


def minimum(x, y):
    return math_ops.minimum(x, y)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    """Keras's relu: ``Relu`` for the plain case, a leaky/clipped/thresholded form else."""
    if alpha == 0 and max_value is None and threshold == 0:
        return nn_ops.relu(x)
    if alpha == 0 and max_value == 6 and threshold == 0:
        return nn_ops.relu6(x)
    negative_part = None
    if alpha != 0:
        negative_part = nn_ops.relu(-x + threshold) if threshold != 0 else nn_ops.relu(-x)
    if threshold != 0:
        x = x * math_ops.cast(math_ops.greater(x, threshold), x.dtype.base_dtype)
    else:
        x = nn_ops.relu(x)
    if max_value is not None:
        x = clip(x, 0.0, max_value)
    if negative_part is not None:
        x -= alpha * negative_part
    return x


def elu(x, alpha=1.0):
    res = nn_ops.elu(x)
    return res if alpha == 1 else math_ops.where(x > 0, res, alpha * res)


def softmax(x, axis=-1):
    return nn_ops.softmax(x, axis=axis)


def softplus(x):
    return nn_ops.softplus(x)


def softsign(x):
    return nn_ops.softsign(x)


def sigmoid(x):
    return math_ops.sigmoid(x)


def hard_sigmoid(x):
    return math_ops.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def tanh(x):
    return math_ops.tanh(x)


def _eps(x):
    return convert_to_tensor(epsilon(), dtype=x.dtype.base_dtype)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=target, logits=output,
                                                           axis=axis)
    if output.op.type == "Softmax":  # Keras's: use the logits the softmax was given
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=target,
                                                           logits=output.op.inputs[0],
                                                           axis=axis)
    output = output / math_ops.reduce_sum(output, axis, True)
    eps = _eps(output)
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    return -math_ops.reduce_sum(target * math_ops.log(output), axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    if not from_logits:
        if output.op.type == "Softmax":
            output = output.op.inputs[0]
        else:
            eps = _eps(output)
            output = math_ops.log(math_ops.clip_by_value(output, eps, 1 - eps))
    rank = output.shape.ndims
    if axis not in (-1, rank - 1):
        raise NotImplementedError("sparse_categorical_crossentropy over an axis other than "
                                  "the last is not implemented in scopeflow")
    target = math_ops.cast(target, "int64")
    n_classes = output.shape[-1].value
    flat_target = array_ops.reshape(target, [-1])
    logits = array_ops.reshape(output, [-1, n_classes])
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=flat_target, logits=logits)
    if rank is not None and rank >= 3:
        return array_ops.reshape(res, array_ops.shape(output)[:-1])
    return res


def binary_crossentropy(target, output, from_logits=False):
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    if output.op.type == "Sigmoid":
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target,
                                                        logits=output.op.inputs[0])
    eps = _eps(output)
    output = math_ops.clip_by_value(output, eps, 1.0 - eps)
    bce = target * math_ops.log(output + eps)
    bce += (1 - target) * math_ops.log(1 - output + eps)
    return -bce


def concatenate(tensors, axis=-1):
    if axis < 0:
        rank = tensors[0].shape.ndims
        axis = axis % rank if rank else 0
    return array_ops.concat(list(tensors), axis)


def reshape(x, shape):
    return array_ops.reshape(x, shape)


def permute_dimensions(x, pattern):
    return array_ops.transpose(x, perm=list(pattern))


def repeat(x, n):
    x = array_ops.expand_dims(x, 1)
    return array_ops.tile(x, [1, n, 1])


def flatten(x):
    return array_ops.reshape(x, [-1])


def batch_flatten(x):
    return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(shape(x)[1:])]))


def expand_dims(x, axis=-1):
    return array_ops.expand_dims(x, axis)


def squeeze(x, axis):
    return array_ops.squeeze(x, [axis])


def stack(x, axis=0):
    return array_ops.stack(x, axis=axis)


def one_hot(indices, num_classes):
    return array_ops.one_hot(indices, depth=num_classes, axis=-1)


def gather(reference, indices):
    return array_ops.gather(reference, indices)


def tile(x, n):
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


def bias_add(x, bias, data_format=None):
    return _bias_add(x, bias)


def switch(condition, then_expression, else_expression):
    """``cond`` on a scalar bool tensor (a Python bool picks at build time)."""
    if isinstance(condition, (bool, int, np.bool_)):
        chosen = then_expression if condition else else_expression
        return chosen() if callable(chosen) else chosen
    if condition.dtype.base_dtype != dtypes_module.bool:
        condition = math_ops.cast(condition, "bool")
    then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
    else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
    return cond_ops.cond(condition, then_fn, else_fn)


def in_train_phase(x, alt, training=None):
    if training is None:
        training = learning_phase()
    if isinstance(training, (int, bool, np.bool_)) and training in (0, 1):
        chosen = x if training else alt
        return chosen() if callable(chosen) else chosen
    return switch(training, x, alt)


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training=training)


def dropout(x, level, noise_shape=None, seed=None):
    return nn_ops.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


def l2_normalize(x, axis=None):
    return nn_ops.l2_normalize(x, axis)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return random_ops.random_uniform(shape, minval, maxval, dtype=dtype or floatx(), seed=seed)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return random_ops.random_normal(shape, mean, stddev, dtype=dtype or floatx(), seed=seed)
