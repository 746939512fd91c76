"""``tf.contrib.layers`` as TF 1.15 had it: the layer functions TF1 tutorials used.

The functions build on ``tf.layers``' classes, as TF 1.15's did, in a variable scope of
their own (``fully_connected``, ``Conv``, ``BatchNorm``... numbered ``Conv_1`` when reopened)
whose custom getter renames the layers' ``kernel``/``bias`` to ``weights``/``biases`` and
adds every variable to ``tf.GraphKeys.MODEL_VARIABLES`` (TF's ``_build_variable_getter``).
A weights regularizer's loss goes to ``tf.GraphKeys.REGULARIZATION_LOSSES`` once, when the
variable is created, as ``<scope>/kernel/Regularizer/l2_regularizer`` (TF 1.15's name).
``normalizer_fn`` runs inside the layer's scope (``Conv/BatchNorm/beta``) and replaces the
bias; ``activation_fn`` (``relu`` by default) comes last (``Conv/Relu``).

``batch_norm`` follows TF 1.15's three paths: ``tf.layers.BatchNormalization`` when the
updates go to ``tf.GraphKeys.UPDATE_OPS`` (the fused op for rank-4 inputs), the fused op
itself for rank-2 inputs or other ``updates_collections`` (``None``: the updates run
before the output is read), and plain moments otherwise (``fused=False``). The fused op's
batch variance, which updates ``moving_variance``, is Bessel-corrected, as TF's.
"""

from __future__ import annotations

import contextlib
import math
import numbers

from scopeflow import layers as core_layers
from scopeflow.contrib.arg_scope import add_arg_scope
from scopeflow.framework import dtypes, tensor_util
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collections,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.layers.base import _select_each
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math import segment_ops
from scopeflow.ops.nn import embedding_ops, nn_composites, nn_loss_ops, nn_norm_ops, pool_ops
from scopeflow.ops.random import random_ops
from scopeflow.ops.state import init_ops, state_ops
from scopeflow.state.variable_scope import get_variable, get_variable_scope, variable_scope

__all__ = ["fully_connected", "linear", "relu", "conv2d", "convolution2d", "convolution",
           "flatten", "max_pool2d", "avg_pool2d", "dropout", "one_hot_encoding",
           "embed_sequence", "batch_norm", "xavier_initializer", "xavier_initializer_conv2d",
           "variance_scaling_initializer", "l1_regularizer", "l2_regularizer",
           "sum_regularizer", "apply_regularization", "model_variable"]


# ── Initializers (TF 1.15's contrib/layers/python/layers/initializers.py) ─────────────
def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    """An initializer with standard deviation ``sqrt(factor / n)``, ``n`` the fan-in, the
    fan-out or their mean (``mode``): uniform in ``[-sqrt(3 factor / n), +...]``, else a
    truncated normal of standard deviation ``sqrt(1.3 factor / n)``. Fans multiply the
    last two dimensions (in, out) by the others (a convolution's window).

    >>> init = tf.contrib.layers.variance_scaling_initializer(uniform=True)
    >>> tf.get_variable("w", [6, 2], initializer=init).shape.as_list()
    [6, 2]
    """
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
    default_dtype = dtype

    def _initializer(shape, dtype=default_dtype, partition_info=None):
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = [int(d) for d in shape]
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for dim in shape[:-2]:
            fan_in *= float(dim)
            fan_out *= float(dim)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)
    return _initializer


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot and Bengio's initializer: ``variance_scaling_initializer(1.0, "FAN_AVG")``,
    uniform in ``[-sqrt(6 / (fan_in + fan_out)), +...]`` (or a truncated normal).

    >>> init = tf.contrib.layers.xavier_initializer()
    >>> tf.get_variable("w", [3, 2], initializer=init).shape.as_list()
    [3, 2]
    """
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform,
                                        seed=seed, dtype=dtype)


xavier_initializer_conv2d = xavier_initializer


# ── Regularizers (TF 1.15's contrib/layers/python/layers/regularizers.py) ────────────
def _check_scale(scale):
    """None when ``scale`` disables the regularizer (0), after TF's checks."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}.")
        if scale == 0.0:
            return None
    return scale


def l1_regularizer(scale, scope=None):
    """``scale * sum(|w|)``, op ``l1_regularizer``; ``scale=0.0`` gives no loss.

    >>> reg = tf.contrib.layers.l1_regularizer(0.5)
    >>> float(tf.Session().run(reg(tf.constant([1.0, -2.0]))))
    1.5
    """
    if _check_scale(scale) is None:
        return lambda _: None

    def l1(weights, name=None):
        with name_scope(scope, "l1_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, math_ops.reduce_sum(math_ops.abs(weights)),
                                     name=name)
    return l1


def l2_regularizer(scale, scope=None):
    """``scale * sum(w ** 2) / 2`` (an ``L2Loss``), op ``l2_regularizer``; ``scale=0.0``
    gives no loss.

    >>> reg = tf.contrib.layers.l2_regularizer(0.5)
    >>> float(tf.Session().run(reg(tf.constant([1.0, -2.0]))))
    1.25
    """
    if _check_scale(scale) is None:
        return lambda _: None

    def l2(weights):
        with name_scope(scope, "l2_regularizer", [weights]) as name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, nn_loss_ops.l2_loss(weights), name=name)
    return l2


def sum_regularizer(regularizer_list, scope=None):
    """The sum (``AddN``, op ``sum_regularizer``) of several regularizers' losses; None
    when the list holds none."""
    regularizer_list = [reg for reg in regularizer_list if reg is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            tensors = [t for t in (reg(weights) for reg in regularizer_list) if t is not None]
            return math_ops.add_n(tensors, name=name) if tensors else None
    return sum_reg


def apply_regularization(regularizer, weights_list=None):
    """The sum of ``regularizer`` over ``weights_list`` (default: the
    ``tf.GraphKeys.WEIGHTS`` collection), added to ``tf.GraphKeys.REGULARIZATION_LOSSES``
    as op ``get_regularization_penalty``."""
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else constant(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims != 0:
                raise ValueError("regularizer must return a scalar Tensor instead of a Tensor "
                                 f"with rank {p.shape.ndims}.")
        summed = math_ops.add_n(penalties, name=scope)
        get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed


# ── Model variables and the layers' scope ────────────────────────────────────────────
def _model_collections(collections):
    """``collections`` plus GLOBAL_VARIABLES and MODEL_VARIABLES, each once."""
    out = []
    for c in list(collections or []) + [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]:
        if c not in out:
            out.append(c)
    return out


@add_arg_scope
def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None,
                   regularizer=None, trainable=True, collections=None):
    """``get_variable`` that also adds the variable to ``tf.GraphKeys.MODEL_VARIABLES``."""
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=trainable,
                        collections=_model_collections(collections))


class _ModelVariableGetter:
    """TF 1.15's ``_build_variable_getter``: a custom getter that renames the layers'
    variables (``kernel`` -> ``weights``), makes them model variables and applies the
    layer's regularizer once, on creation, in the layer's name scope
    (``<scope>/kernel/Regularizer/l2_regularizer``: TF's layers regularize outside
    ``get_variable``). ``name_scope`` is set once the layer's scope is open."""

    def __init__(self, rename=None):
        self.rename = rename or {}
        self.name_scope = ""

    def __call__(self, getter, name, shape=None, dtype=None, initializer=None,
                 regularizer=None, trainable=True, collections=None, **kwargs):
        short = name.rsplit("/", 1)[-1]
        full = name[:len(name) - len(short)] + self.rename.get(short, short)
        before = {id(v) for v in get_collection(GraphKeys.GLOBAL_VARIABLES)}
        v = getter(full, shape=shape, dtype=dtype, initializer=initializer, regularizer=None,
                   trainable=trainable, collections=_model_collections(collections), **kwargs)
        if regularizer is not None and id(v) not in before:
            with name_scope(f"{self.name_scope}{short}/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


@contextlib.contextmanager
def _layer_scope(scope, default_name, inputs, reuse, rename=None):
    """``variable_scope(scope, default_name)`` with the model-variable getter."""
    getter = _ModelVariableGetter(rename)
    with variable_scope(scope, default_name, [inputs], reuse=reuse,
                        custom_getter=getter) as sc:
        getter.name_scope = sc.original_name_scope
        yield sc


_WEIGHTS_BIASES = {"bias": "biases", "kernel": "weights"}


def _add_variable_to_collections(variable, collections_set, collections_name):
    """TF's: ``variables_collections`` is a list (every variable) or a dict (by role)."""
    if collections_set is None:
        return
    collections = collections_set.get(collections_name) if isinstance(collections_set, dict) \
        else collections_set
    if not collections:
        return
    if isinstance(collections, str):
        collections = [collections]
    add_to_collections([c for c in collections
                        if variable not in get_collection(c)], variable)


def _collect(outputs_collections, outputs):
    """TF's ``collect_named_outputs``: ``outputs`` appended to each collection."""
    if outputs_collections:
        add_to_collections(outputs_collections, outputs)
    return outputs


def _finish(outputs, normalizer_fn, normalizer_params, activation_fn):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return outputs


def _weights_settings(sc, inputs, args):
    """The tf.layers keywords for contrib's ``weights_*``/``biases_*`` arguments (``args``:
    the calling layer function's), a layer built in scope ``sc`` for ``inputs``' dtype."""
    return dict(activation=None,
                use_bias=not args["normalizer_fn"] and args["biases_initializer"] is not None,
                kernel_initializer=args["weights_initializer"],
                bias_initializer=args["biases_initializer"],
                kernel_regularizer=args["weights_regularizer"],
                bias_regularizer=args["biases_regularizer"], trainable=args["trainable"],
                name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc, _reuse=args["reuse"])


def _weights_layer(layer, inputs, args):
    """``layer`` applied to ``inputs``, its variables added to ``variables_collections`` as
    ``weights`` and ``biases``, then the normalizer and activation of ``args``."""
    outputs = layer(inputs)
    _add_variable_to_collections(layer.kernel, args["variables_collections"], "weights")
    if layer.use_bias:
        _add_variable_to_collections(layer.bias, args["variables_collections"], "biases")
    return _finish(outputs, args["normalizer_fn"], args["normalizer_params"],
                   args["activation_fn"])


# ── fully_connected ──────────────────────────────────────────────────────────────────
@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=None,
                    weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(),
                    biases_regularizer=None, reuse=None, variables_collections=None,
                    outputs_collections=None, trainable=True, scope=None):
    """A fully connected layer: ``activation_fn(normalizer_fn(x @ weights) or x @ weights +
    biases)``, variables ``fully_connected/weights`` ``[in, num_outputs]`` (Xavier-uniform by
    default) and ``fully_connected/biases``; ops ``fully_connected/MatMul``, ``BiasAdd``,
    ``Relu``.

    >>> y = tf.contrib.layers.fully_connected(tf.ones([2, 3]), 4)
    >>> y.name, [v.name for v in tf.trainable_variables()]
    ('fully_connected/Relu:0', ['fully_connected/weights:0', 'fully_connected/biases:0'])
    """
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, numbers.Integral):
        raise ValueError(f"num_outputs type should be one of [<class 'int'>], got "
                         f"{type(num_outputs)}.")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with _layer_scope(scope, "fully_connected", inputs, reuse, _WEIGHTS_BIASES) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dense(num_outputs, **_weights_settings(sc, inputs, locals()))
        outputs = _weights_layer(layer, inputs, locals())
        return _collect(outputs_collections, outputs)


def linear(inputs, num_outputs, **kwargs):
    """``fully_connected`` without an activation."""
    return fully_connected(inputs, num_outputs, activation_fn=None, **kwargs)


def relu(inputs, num_outputs, **kwargs):
    """``fully_connected`` with ``relu``."""
    return fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, **kwargs)


# ── convolution ──────────────────────────────────────────────────────────────────────
def _ints(value):
    """An int, or a list of ints from ints or a TensorShape's dimensions."""
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, numbers.Integral):
        return int(value)
    return [int(getattr(v, "value", v)) for v in value]


@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                rate=1, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                weights_initializer=None, weights_regularizer=None,
                biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                reuse=None, variables_collections=None, outputs_collections=None,
                trainable=True, scope=None, conv_dims=None):
    """An N-D convolution layer (rank-3, -4 or -5 inputs, channels last): variables
    ``Conv/weights`` ``[*kernel_size, in, num_outputs]`` and ``Conv/biases``; ops
    ``Conv/Conv2D``, ``Conv/BiasAdd``, ``Conv/Relu``. ``padding`` defaults to ``SAME``.

    >>> y = tf.contrib.layers.conv2d(tf.ones([1, 5, 5, 3]), 8, 3)
    >>> y.name, y.shape.as_list()
    ('Conv/Relu:0', [1, 5, 5, 8])
    """
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with _layer_scope(scope, "Conv", inputs, reuse, _WEIGHTS_BIASES) as sc:
        inputs = convert_to_tensor(inputs)
        input_rank = inputs.shape.ndims
        if conv_dims is not None and conv_dims + 2 != input_rank:
            raise ValueError(f"Convolution expects input with rank {conv_dims + 2}, got "
                             f"{input_rank}")
        layer_class = {3: core_layers.Conv1D, 4: core_layers.Conv2D,
                       5: core_layers.Conv3D}.get(input_rank)
        if layer_class is None:
            raise ValueError("Convolution not supported for input with rank", input_rank)
        df = "channels_first" if data_format and data_format.startswith("NC") \
            else "channels_last"
        layer = layer_class(num_outputs, _ints(kernel_size), strides=_ints(stride),
                            padding=padding, data_format=df, dilation_rate=_ints(rate),
                            **_weights_settings(sc, inputs, locals()))
        outputs = _weights_layer(layer, inputs, locals())
        return _collect(outputs_collections, outputs)


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                  data_format=None, rate=1, activation_fn=nn_ops.relu, normalizer_fn=None,
                  normalizer_params=None, weights_initializer=None, weights_regularizer=None,
                  biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                  reuse=None, variables_collections=None, outputs_collections=None,
                  trainable=True, scope=None):
    """A 2-D convolution layer (NHWC); see ``convolution``. It passes every argument on
    positionally, so it calls the undecorated ``convolution``: an ``arg_scope`` set for
    ``convolution`` must not add keywords to them (TF's call raised a TypeError there)."""
    return convolution.__wrapped__(
        inputs, num_outputs, kernel_size, stride, padding, data_format, rate, activation_fn,
        normalizer_fn, normalizer_params, weights_initializer, weights_regularizer,
        biases_initializer, biases_regularizer, reuse, variables_collections,
        outputs_collections, trainable, scope, conv_dims=2)


conv2d = convolution2d


# ── pooling, flatten, dropout, one-hot, embeddings ───────────────────────────────────
def _pool2d(op, default_name, inputs, kernel_size, stride, padding, data_format,
            outputs_collections, scope):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError('The `padding` argument must be one of "valid", "same". Received: '
                         f"{padding}")
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride)
    with name_scope(scope, default_name, [inputs]):
        inputs = convert_to_tensor(inputs)
        if data_format == "NCHW":
            ksize, strides = [1, 1, kh, kw], [1, 1, sh, sw]
        else:
            ksize, strides = [1, kh, kw, 1], [1, sh, sw, 1]
        outputs = op(inputs, ksize, strides, padding.upper(), data_format=data_format)
        return _collect(outputs_collections, outputs)


def _pair(value):
    value = _ints(value)
    if isinstance(value, int):
        return value, value
    if len(value) != 2:
        raise ValueError(f"The `pool_size` argument must be a tuple of 2 integers. Received: "
                         f"{value}")
    return tuple(value)


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """2-D max pooling, op ``MaxPool2D/MaxPool``; ``stride`` 2 and ``VALID`` by default.

    >>> tf.contrib.layers.max_pool2d(tf.ones([1, 4, 4, 1]), 2).shape.as_list()
    [1, 2, 2, 1]
    """
    return _pool2d(pool_ops.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """2-D average pooling, op ``AvgPool2D/AvgPool``; ``stride`` 2 and ``VALID`` by default."""
    return _pool2d(pool_ops.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """``[batch, k]`` from ``[batch, ...]``, in name scope ``Flatten`` (op
    ``Flatten/flatten/Reshape``).

    >>> tf.contrib.layers.flatten(tf.ones([2, 3, 4])).shape.as_list()
    [2, 12]
    """
    with name_scope(scope, "Flatten", [inputs]):
        inputs = convert_to_tensor(inputs)
        if inputs.shape.ndims is not None and inputs.shape.ndims < 2:
            raise ValueError(f"Inputs must have a least 2 dimensions, got {inputs.shape}.")
        return _collect(outputs_collections, core_layers.flatten(inputs))


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """Dropout keeping ``keep_prob`` of the values (scaled by ``1 / keep_prob``) when
    ``is_training`` (a bool or a bool tensor), else the inputs; scope ``Dropout``."""
    with _layer_scope(scope, "Dropout", inputs, None) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed,
                                    name=sc.name, _scope=sc)
        return _collect(outputs_collections, layer(inputs, training=is_training))


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0,
                     outputs_collections=None, scope=None):
    """One-hot float rows of ``labels`` (int32 labels are cast to int64 first, as TF's),
    in name scope ``OneHotEncoding``.

    >>> tf.Session().run(tf.contrib.layers.one_hot_encoding([0, 2], 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    with name_scope(scope, "OneHotEncoding", [labels, num_classes]):
        labels = convert_to_tensor(labels)
        if labels.dtype == dtypes.int32:
            labels = math_ops.to_int64(labels)
        outputs = array_ops.one_hot(labels, num_classes, on_value=on_value,
                                    off_value=off_value)
        return _collect(outputs_collections, outputs)


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):
    """Embeds ``ids`` (``[batch, steps]``) as ``[batch, steps, embed_dim]`` through the
    model variable ``EmbedSequence/embeddings`` ``[vocab_size, embed_dim]``."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. "
                         f"Got vocab_size={vocab_size} and embed_dim={embed_dim}")
    with variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if (reuse and vocab_size is None) or embed_dim is None:
            shape = None
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable)
        if unique:
            ids = convert_to_tensor(ids)
            flat, index = segment_ops.unique(array_ops.reshape(ids, [-1]))
            looked_up = embedding_ops.embedding_lookup(embeddings, flat)
            out = array_ops.gather(looked_up, index)
            return array_ops.reshape(out, array_ops.concat(
                [array_ops.shape(ids), array_ops.shape(looked_up)[1:]], 0))
        return embedding_ops.embedding_lookup(embeddings, ids)


# ── batch_norm ───────────────────────────────────────────────────────────────────────
def _assign_moving_average(variable, value, decay):
    """TF's ``assign_moving_average`` (no zero debias): ``variable -= (variable - value) *
    (1 - decay)``, op ``AssignMovingAvg``."""
    with name_scope(None, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _is_training_value(is_training):
    if isinstance(is_training, bool):
        return is_training
    return tensor_util.constant_value(convert_to_tensor(is_training))


class _BatchNormVariables:
    """beta, gamma (or the constants standing for them) and the moving statistics."""

    def __init__(self, params_shape, center, scale, param_initializers, param_regularizers,
                 variables_collections, trainable):
        inits, regs = param_initializers or {}, param_regularizers or {}

        def var(name, default_init, regularizer=None, var_trainable=trainable):
            collections = variables_collections.get(name) if isinstance(
                variables_collections, dict) else variables_collections
            return model_variable(name, shape=params_shape, dtype=dtypes.float32,
                                  initializer=inits.get(name, default_init),
                                  regularizer=regularizer, trainable=var_trainable,
                                  collections=collections)
        self.beta = var("beta", init_ops.zeros_initializer(), regs.get("beta")) \
            if center else None
        self.gamma = var("gamma", init_ops.ones_initializer(), regs.get("gamma")) \
            if scale else None
        with variable_scope(get_variable_scope()) as local_scope:
            local_scope.set_partitioner(None)
            self.moving_mean = var("moving_mean", init_ops.zeros_initializer(),
                                   var_trainable=False)
            self.moving_variance = var("moving_variance", init_ops.ones_initializer(),
                                       var_trainable=False)


def _add_updates(v, mean, variance, decay, updates_collections):
    """The moving-average updates from ``mean``/``variance`` (the batch statistics when
    training, the moving ones otherwise, so that the updates then change nothing): added to
    ``updates_collections``, or returned (``None``) for the output to wait on."""
    updates = (_assign_moving_average(v.moving_mean, mean, decay),
               _assign_moving_average(v.moving_variance, variance, decay))
    if updates_collections is None:
        return updates
    for update in updates:
        add_to_collections(updates_collections, update)
    return ()


def _fused_batch_norm(inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
                      param_regularizers, updates_collections, is_training, reuse,
                      variables_collections, outputs_collections, trainable, data_format,
                      scope):
    """TF 1.15's ``_fused_batch_norm``: a ``FusedBatchNormV3`` (rank-2 inputs reshaped to
    ``[-1, 1, 1, C]``)."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse):
        inputs = convert_to_tensor(inputs)
        original_shape, original_inputs = inputs.shape, inputs
        if original_shape.ndims == 2:
            channels = original_shape.as_list()[-1]
            if channels is None:
                raise ValueError("`C` dimension must be known but is None")
            inputs = array_ops.reshape(
                inputs, [-1, channels, 1, 1] if data_format == "NCHW" else [-1, 1, 1, channels])
        dims = inputs.shape.as_list()
        c = dims[-1] if data_format == "NHWC" else dims[1]
        if c is None:
            raise ValueError(f"Inputs {inputs.name} has undefined `C` dimension "
                             f"{TensorShape([c])}.")
        v = _BatchNormVariables([c], center, scale, param_initializers, param_regularizers,
                                variables_collections, trainable)
        gamma = v.gamma if v.gamma is not None else constant(1.0, shape=[c])
        beta = v.beta if v.beta is not None else constant(0.0, shape=[c])

        def train():
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, epsilon=epsilon,
                                                data_format=data_format)

        def infer():
            return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, mean=v.moving_mean,
                                                variance=v.moving_variance, epsilon=epsilon,
                                                is_training=False, data_format=data_format)
        outputs, mean, variance = _select_each(is_training, train, infer)
        if _is_training_value(is_training) is not False:
            forced = _add_updates(v, mean, variance, decay, updates_collections)
            if forced:
                with control_dependencies(forced):
                    outputs = array_ops.identity(outputs)
        outputs.set_shape(inputs.shape)
        if original_shape.ndims == 2:
            outputs = array_ops.reshape(outputs, array_ops.shape(original_inputs))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect(outputs_collections, outputs)


def _moments_batch_norm(inputs, decay, center, scale, epsilon, activation_fn,
                        param_initializers, param_regularizers, updates_collections,
                        is_training, reuse, variables_collections, outputs_collections,
                        trainable, data_format, scope):
    """TF 1.15's batch_norm without the layer class: ``nn.moments`` (the population
    variance) and ``nn.batch_normalization``."""
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse):
        inputs = convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        axis = 1 if data_format == "NCHW" else rank - 1
        c = inputs.shape.as_list()[axis]
        if c is None:
            raise ValueError(f"Inputs {inputs.name} has undefined last dimension "
                             f"{TensorShape([c])}.")
        moments_axes = [i for i in range(rank) if i != axis]
        v = _BatchNormVariables([c], center, scale, param_initializers, param_regularizers,
                                variables_collections, trainable)
        if _is_training_value(is_training) is False:
            mean, variance = v.moving_mean, v.moving_variance
        else:
            batch_mean, batch_variance = nn_composites.moments(inputs, moments_axes)
            mean, variance = _select_each(
                is_training, lambda: (batch_mean, batch_variance),
                lambda: (v.moving_mean.value(), v.moving_variance.value()))
            forced = _add_updates(v, mean, variance, decay, updates_collections)
            if forced:
                with control_dependencies(forced):
                    mean, variance = array_ops.identity(mean), array_ops.identity(variance)
        if data_format == "NCHW":
            shape = [1, c] + [1] * (rank - 2)
            mean, variance = array_ops.reshape(mean, shape), array_ops.reshape(variance, shape)
            beta = array_ops.reshape(v.beta, shape) if v.beta is not None else None
            gamma = array_ops.reshape(v.gamma, shape) if v.gamma is not None else None
        else:
            beta, gamma = v.beta, v.gamma
        outputs = nn_composites.batch_normalization(inputs, mean, variance, beta, gamma,
                                                    epsilon)
        outputs.set_shape(inputs.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect(outputs_collections, outputs)


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
               activation_fn=None, param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None):
    """Batch normalization (Ioffe and Szegedy), TF 1.15's ``tf.contrib.layers.batch_norm``:
    ``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` over all but the channel
    dimension, variables ``BatchNorm/beta`` (``center``), ``BatchNorm/gamma`` (``scale``,
    off by default), ``BatchNorm/moving_mean`` and ``BatchNorm/moving_variance``.

    When ``is_training`` (a bool or a bool tensor) the batch statistics normalize and the
    moving averages ``moving -= (moving - batch) * (1 - decay)`` are added to
    ``updates_collections`` (run them with the train step), or with
    ``updates_collections=None`` run before the output; else the moving statistics
    normalize.

    >>> y = tf.contrib.layers.batch_norm(tf.ones([2, 1, 1, 3]), is_training=True)
    >>> [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
    ['BatchNorm/AssignMovingAvg', 'BatchNorm/AssignMovingAvg_1']
    """
    _check_batch_norm_support(batch_weights=batch_weights, renorm=renorm,
                              adjustment=adjustment,
                              zero_debias_moving_mean=zero_debias_moving_mean)
    if fused is None:
        fused = True
    inputs = convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    args = (decay, center, scale, epsilon, activation_fn, param_initializers,
            param_regularizers, updates_collections, is_training, reuse,
            variables_collections, outputs_collections, trainable, data_format, scope)
    if fused and rank in (2, 4) and (rank == 2 or updates_collections != GraphKeys.UPDATE_OPS):
        return _fused_batch_norm(inputs, *args)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    if updates_collections != GraphKeys.UPDATE_OPS:
        return _moments_batch_norm(inputs, *args)
    return _layer_batch_norm(inputs, *args, fused=fused)


def _check_batch_norm_support(**options):
    for arg, value in options.items():
        if value:
            raise NotImplementedError(f"tf.contrib.layers.batch_norm({arg}=...) is not "
                                      "supported by scopeflow")


def _layer_batch_norm(inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
                      param_regularizers, updates_collections, is_training, reuse,
                      variables_collections, outputs_collections, trainable, data_format,
                      scope, *, fused):
    """batch_norm through ``tf.layers.BatchNormalization``, its updates in UPDATE_OPS."""
    with _layer_scope(scope, "BatchNorm", inputs, reuse) as sc:
        inits, regs = param_initializers or {}, param_regularizers or {}
        layer = core_layers.BatchNormalization(
            axis=1 if data_format == "NCHW" else -1, momentum=decay, epsilon=epsilon,
            center=center, scale=scale, beta_initializer=inits.get("beta"),
            gamma_initializer=inits.get("gamma"),
            moving_mean_initializer=inits.get("moving_mean"),
            moving_variance_initializer=inits.get("moving_variance"),
            beta_regularizer=regs.get("beta"), gamma_regularizer=regs.get("gamma"),
            trainable=trainable, name=sc.name, _scope=sc, _reuse=reuse, fused=fused)
        outputs = layer(inputs, training=is_training)
        for variable, role in ((layer.moving_mean, "moving_mean"),
                               (layer.moving_variance, "moving_variance"),
                               (layer.beta, "beta"), (layer.gamma, "gamma")):
            if variable is not None:
                _add_variable_to_collections(variable, variables_collections, role)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect(outputs_collections, outputs)


def __getattr__(name):
    """A TF 1.x name scopeflow lacks raises NotImplementedError naming it
    (scopeflow/framework/api_fallback.py)."""
    raise missing_attribute(__name__, name)
