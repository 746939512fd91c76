"""``tf.keras.optimizers``: Keras's optimizers as tf_keras builds them in graph mode
(``OptimizerV2``): made in ``compile``'s ``training`` name scope, an ``iter`` counter, the
hyperparameters as variables (sorted by name), then the slots
(``training/Adam/iter:0``, ``training/Adam/beta_1:0``..., ``training/Adam/dense/kernel/m:0``),
and ``TFOptimizer`` around a ``tf.train`` optimizer."""

from __future__ import annotations

import contextlib

from scopeflow.autodiff.gradients import gradients as _gradients
from scopeflow.framework import dtypes
from scopeflow.framework.graph import get_default_graph, name_scope
from scopeflow.keras import backend as K
from scopeflow.keras.utils.generic_utils import deserialize_keras_object
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.math.clip_ops import clip_by_global_norm, clip_by_norm
from scopeflow.ops.state import state_ops, training_ops
from scopeflow.state.variables import Variable
from scopeflow.train.optimizer import Optimizer as _TFOptimizerBase

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "TFOptimizer",
           "get", "serialize", "deserialize"]


class Optimizer:
    """The base of Keras's optimizers: ``get_updates(loss, params)`` builds the update
    ops (gradients, slots, the ``iter`` increment)."""

    _HYPER_DEFAULTS: dict = {}

    def __init__(self, name, clipnorm=None, clipvalue=None, global_clipnorm=None, **kwargs):
        lr = kwargs.pop("lr", None)
        decay = kwargs.pop("decay", 0.0)
        if kwargs:
            raise TypeError(f"Unexpected keyword argument passed to optimizer: "
                            f"{sorted(kwargs)[0]}")
        self._name = name
        self._hyper = {}
        self._initial_decay = float(decay)
        self._hyper["decay"] = float(decay)
        if lr is not None:
            self._lr_override = lr
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self._weights = []
        self._slots = {}
        self._slot_var_names = {}
        self._iterations = None
        self._hypers_created = False

    def _set_hyper(self, name, value):
        self._hyper[name] = value

    # ── variables ─────────────────────────────────────────────────────────────────────
    @contextlib.contextmanager
    def _scope(self):
        """The optimizer's name scope: opened once (``training/Adam/``), re-entered after;
        none while ``_create_all_weights`` makes the variables at the caller's scope."""
        if getattr(self, "_unscoped", False):
            yield ""
            return
        scope = getattr(self, "_scope_name", None)
        with name_scope(scope if scope else self._name) as opened:
            self._scope_name = opened
            yield opened

    @property
    def iterations(self):
        if self._iterations is None:
            with self._scope():
                self._iterations = Variable(0, name="iter", dtype=dtypes.int64,
                                            trainable=False)
            self._weights.append(self._iterations)
        return self._iterations

    def _create_hypers(self):
        if self._hypers_created:
            return
        self.iterations  # noqa: B018 - made first, as tf_keras
        with self._scope():
            for name, value in sorted(self._hyper.items()):
                if isinstance(value, Variable) or callable(value):
                    continue
                variable = Variable(float(value), name=name, dtype=dtypes.float32,
                                    trainable=False)
                self._hyper[name] = variable
        self._hypers_created = True

    def _create_all_weights(self, var_list):
        """The iterations, hyperparameters and slots for ``var_list`` made now, where the
        caller is (``load_model`` makes them at the graph's root, ``iter:0``,
        ``dense/kernel/m:0``, as tf_keras does) so that ``set_weights`` can fill them."""
        self._unscoped = True
        try:
            self._create_hypers()
            self._create_slots(var_list)
        finally:
            self._unscoped = False

    def _get_hyper(self, name):
        self._create_hypers()
        value = self._hyper[name]
        return value() if callable(value) and not isinstance(value, Variable) else value

    @property
    def lr(self):
        return self._get_hyper("learning_rate")

    learning_rate = lr

    def add_slot(self, var, slot_name, initializer="zeros"):
        key = (id(var), slot_name)
        if key not in self._slots:
            shape = var.shape.as_list()
            value = array_ops.zeros(shape, dtype=var.dtype.base_dtype) \
                if initializer == "zeros" else array_ops.fill(shape, float(initializer))
            with self._scope():
                base = var.op.name
                slot = Variable(value, name=f"{base}/{slot_name}", trainable=False,
                                dtype=var.dtype.base_dtype)
            self._slots[key] = slot
            self._slot_var_names[key] = var.op.name
            self._weights.append(slot)
        return self._slots[key]

    def _named_slots(self):
        """``{(variable name, slot name): slot}``: ``('dense/kernel', 'm')``."""
        return {(self._slot_var_names[key], key[1]): slot for key, slot in self._slots.items()}

    def get_slot(self, var, slot_name):
        return self._slots[(id(var), slot_name)]

    def _create_slots(self, var_list):
        pass

    @property
    def weights(self):
        """``iterations`` then the slots, as tf_keras lists them (the hyperparameter
        variables are not among them): the order of HDF5's ``optimizer_weights``."""
        return list(self._weights)

    def variables(self):
        return list(self._weights)

    def get_weights(self):
        return K.batch_get_value(self._weights)

    def set_weights(self, weights):
        if len(weights) != len(self._weights):
            raise ValueError(f"You called `set_weights(weights)` on optimizer {self._name} "
                             f"with a weight list of length {len(weights)}, but the optimizer "
                             f"was expecting {len(self._weights)} weights.")
        K.batch_set_value(list(zip(self._weights, weights)))

    # ── updates ───────────────────────────────────────────────────────────────────────
    def _decayed_lr(self, dtype):
        lr_t = math_ops.cast(self._get_hyper("learning_rate"), dtype)
        if self._initial_decay > 0.0:
            local_step = math_ops.cast(self.iterations, dtype)
            decay_t = math_ops.cast(self._get_hyper("decay"), dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    def get_gradients(self, loss, params):
        grads = _gradients(loss, params)
        if any(g is None for g in grads):
            missing = [p.name for p, g in zip(params, grads) if g is None]
            raise ValueError(f"Variables {missing} have no gradient for the loss of "
                             f"{self._name}: check that they are used in the model's outputs.")
        if self.clipvalue is not None:
            grads = [math_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            grads = [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None:
            grads, _ = clip_by_global_norm(grads, self.global_clipnorm)
        return grads

    def get_updates(self, loss, params):
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def apply_gradients(self, grads_and_vars, name=None):
        grads_and_vars = [(g, v) for g, v in grads_and_vars if g is not None]
        var_list = [v for _, v in grads_and_vars]
        with self._scope():
            self._create_hypers()
            self._create_slots(var_list)
            updates = [self._apply_dense(g, v) for g, v in grads_and_vars]
            with get_default_graph().control_dependencies(updates):
                return state_ops.assign_add(self.iterations, 1).op

    def minimize(self, loss, var_list):
        return self.apply_gradients(list(zip(self.get_gradients(loss, var_list), var_list)))

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def get_config(self):
        config = {"name": self._name}
        for key, value in self._hyper.items():
            if key in ("decay",):
                continue
            config[key] = float(K.get_value(value)) if isinstance(value, Variable) else value
        config["decay"] = self._initial_decay
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        return cls(**config)


class SGD(Optimizer):
    """Gradient descent, with Keras's momentum (``accum = momentum * accum - lr * grad;
    var += accum``) and Nesterov's variant."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD",
                 **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", getattr(self, "_lr_override", learning_rate))
        self._momentum = momentum > 0 or callable(momentum)
        if not callable(momentum) and (momentum < 0 or momentum > 1):
            raise ValueError("`momentum` must be between [0, 1].")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        if not self._momentum:
            return training_ops.apply_gradient_descent(var, lr, grad)
        momentum = math_ops.cast(self._get_hyper("momentum"), dtype)
        accum = self.get_slot(var, "momentum")
        accum_t = state_ops.assign(accum, accum * momentum - lr * grad)
        if self.nesterov:
            return state_ops.assign_add(var, accum_t * momentum - lr * grad)
        return state_ops.assign_add(var, accum_t)

    def get_config(self):
        return {**super().get_config(), "nesterov": self.nesterov}


class Adam(Optimizer):
    """Adam (``ApplyAdam`` with ``beta^(iter + 1)``; ``epsilon=1e-7``, Keras's); ``amsgrad``
    not implemented."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super().__init__(name, **kwargs)
        if amsgrad:
            raise NotImplementedError("tf.keras.optimizers.Adam(amsgrad=True) is not "
                                      "implemented in scopeflow")
        self._set_hyper("learning_rate", getattr(self, "_lr_override", learning_rate))
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or K.epsilon()
        self.amsgrad = amsgrad

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        beta_1 = math_ops.cast(self._get_hyper("beta_1"), dtype)
        beta_2 = math_ops.cast(self._get_hyper("beta_2"), dtype)
        local_step = math_ops.cast(self.iterations + 1, dtype)
        return training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"),
            math_ops.pow(beta_1, local_step), math_ops.pow(beta_2, local_step), lr, beta_1,
            beta_2, math_ops.cast(self.epsilon, dtype), grad)

    def get_config(self):
        return {**super().get_config(), "epsilon": self.epsilon, "amsgrad": self.amsgrad}


class RMSprop(Optimizer):
    """RMSprop: ``rms = rho * rms + (1 - rho) * grad^2; var -= lr * grad / (sqrt(rms) +
    epsilon)`` (TF's ``ApplyRMSProp`` when ``momentum > 0``)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        super().__init__(name, **kwargs)
        if centered:
            raise NotImplementedError("tf.keras.optimizers.RMSprop(centered=True) is not "
                                      "implemented in scopeflow")
        self._set_hyper("learning_rate", getattr(self, "_lr_override", learning_rate))
        self._set_hyper("rho", rho)
        self._momentum = momentum > 0
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or K.epsilon()
        self.centered = centered

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        rho = math_ops.cast(self._get_hyper("rho"), dtype)
        epsilon = math_ops.cast(self.epsilon, dtype)
        rms = self.get_slot(var, "rms")
        if self._momentum:
            return training_ops.apply_rms_prop(
                var, rms, self.get_slot(var, "momentum"), lr, rho,
                math_ops.cast(self._get_hyper("momentum"), dtype), epsilon, grad)
        rms_t = state_ops.assign(rms, rho * rms + (1.0 - rho) * math_ops.square(grad))
        return state_ops.assign(var, var - lr * grad / (math_ops.sqrt(rms_t) + epsilon))

    def get_config(self):
        return {**super().get_config(), "epsilon": self.epsilon, "centered": self.centered}


class Adagrad(Optimizer):
    """Adagrad (``accum += grad^2; var -= lr * grad / (sqrt(accum) + epsilon)``, starting
    from ``initial_accumulator_value``)."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        self._set_hyper("learning_rate", getattr(self, "_lr_override", learning_rate))
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or K.epsilon()

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        accum_t = state_ops.assign_add(self.get_slot(var, "accumulator"),
                                       math_ops.square(grad))
        return state_ops.assign_sub(
            var, lr * grad / (math_ops.sqrt(accum_t) + math_ops.cast(self.epsilon, dtype)))

    def get_config(self):
        return {**super().get_config(), "epsilon": self.epsilon,
                "initial_accumulator_value": self._initial_accumulator_value}


class Adadelta(Optimizer):
    """Adadelta (TF's ``ApplyAdadelta``)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta",
                 **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", getattr(self, "_lr_override", learning_rate))
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or K.epsilon()

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return training_ops.apply_adadelta(
            var, self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var"),
            self._decayed_lr(dtype), math_ops.cast(self._get_hyper("rho"), dtype),
            math_ops.cast(self.epsilon, dtype), grad)


class TFOptimizer(Optimizer):
    """A ``tf.train`` optimizer in a Keras model: its own slots and names
    (``dense/kernel/Adam:0``), and ``TFOptimizer/iterations:0`` as its global step."""

    def __init__(self, optimizer, iterations=None):
        self.optimizer = optimizer
        self._name = "TFOptimizer"
        self._weights = []
        self.clipnorm = self.clipvalue = self.global_clipnorm = None
        if iterations is None:
            with name_scope("TFOptimizer"):
                iterations = Variable(0, name="iterations", dtype=dtypes.int64,
                                      trainable=False)
        self._iterations = iterations
        self._weights.append(iterations)

    def apply_gradients(self, grads_and_vars, name=None):
        return self.optimizer.apply_gradients(grads_and_vars, global_step=self._iterations)

    def get_updates(self, loss, params):
        grads = self.optimizer.compute_gradients(loss, params)
        return [self.optimizer.apply_gradients(grads, global_step=self._iterations)]

    @property
    def weights(self):
        raise NotImplementedError("TFOptimizer.weights: a tf.train optimizer's variables are "
                                  "its own (optimizer.variables())")

    def get_config(self):
        raise NotImplementedError("TFOptimizer.get_config: a tf.train optimizer cannot be "
                                  "serialized by Keras")


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "SGD": SGD, "Adam": Adam, "RMSprop": RMSprop,
            "Adagrad": Adagrad, "Adadelta": Adadelta}


def serialize(optimizer):
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    if isinstance(config, dict):
        config = {"class_name": config["class_name"], "config": config["config"]}
    return deserialize_keras_object(config, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="optimizer")


def get(identifier):
    """A Keras optimizer from a name (``'adam'``), a config, an instance, or a ``tf.train``
    optimizer (wrapped in ``TFOptimizer``)."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, _TFOptimizerBase):
        return TFOptimizer(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: {identifier}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")

