"""The TF1 optimizers: GradientDescent, Momentum, Adam, Adagrad, RMSProp, Adadelta, Ftrl.

Hyper-parameters, slot names, slot order (hence ``w/Adam`` vs ``w/Adam_1``) and the
update formulas are TF's, so optimizer state in a TF checkpoint restores here and back.
"""

from __future__ import annotations

import sys

from scopeflow.framework.graph import convert_to_tensor, get_default_graph
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.math import segment_ops
from scopeflow.ops.state import training_ops
from scopeflow.ops.state.init_ops import constant_initializer, ones_initializer
from scopeflow.ops.state.resource_variable_ops import (
    is_resource,
    resource_apply,
    resource_scatter_add,
)
from scopeflow.train.optimizer import Optimizer

__all__ = ["GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "AdagradOptimizer", "RMSPropOptimizer", "AdadeltaOptimizer", "FtrlOptimizer"]


def apply_update(fn, var, *args, **attrs):
    """The update op of ``fn`` (a ``training_ops`` or ``proximal_training_ops`` builder,
    e.g. ``apply_adam``) on ``var``:
    its ref op (``ApplyAdam``) on a ref variable, its ``Resource*`` op (``ResourceApplyAdam``,
    ``ResourceScatterSub``) on a resource variable, as TF's ``_resource_apply_*``."""
    if is_resource(var):
        op_def = getattr(sys.modules[fn.__module__], fn.__name__ + "_op")
        return resource_apply(op_def.type, var, *args, **attrs)
    return fn(var, *args, **attrs).op


def _scatter_add_read(var, indices, values):
    """``ResourceScatterAdd``, then a read of the variable that follows it (TF's
    ``_resource_scatter_add``)."""
    with get_default_graph().control_dependencies(
            [resource_scatter_add(var, indices, values)]):
        return var.value()


def _tensor(value, name):
    return convert_to_tensor(Optimizer._call_if_callable(value), name=name)


# ── GradientDescent ──────────────────────────────────────────────────────────────────
class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``; sparse gradients become a ``ScatterSub``."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self):
        self._lr_t = _tensor(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return apply_update(training_ops.apply_gradient_descent,
            var, self._cast(self._lr_t, var), grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        delta = grad.values * self._cast(self._lr_t, var)
        return apply_update(training_ops.scatter_sub, var, grad.indices, delta,
                                        use_locking=self._use_locking)


# ── Momentum ─────────────────────────────────────────────────────────────────────────
class MomentumOptimizer(Optimizer):
    """``accum = accum * momentum + grad; var -= lr * accum`` (slot ``w/Momentum``)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        self._zeros_slots(var_list, "momentum")

    def _prepare(self):
        self._lr_t = _tensor(self._learning_rate, "learning_rate")
        self._momentum_t = _tensor(self._momentum, "momentum")

    def _apply_dense(self, grad, var):
        return apply_update(training_ops.apply_momentum,
            var, self.get_slot(var, "momentum"), self._cast(self._lr_t, var), grad,
            self._cast(self._momentum_t, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        return apply_update(training_ops.sparse_apply_momentum,
            var, self.get_slot(var, "momentum"), self._cast(self._lr_t, var), grad.values,
            grad.indices, self._cast(self._momentum_t, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov)


# ── Adam ─────────────────────────────────────────────────────────────────────────────
class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba), TF's form: slots ``w/Adam`` (m), ``w/Adam_1`` (v), and the
    non-slot ``beta1_power`` / ``beta2_power`` updated once per step in ``_finish``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self):
        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph),
                self._get_non_slot_variable("beta2_power", graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        self._zeros_slots(var_list, "m", "v")

    def _prepare(self):
        self._lr_t = _tensor(self._lr, "learning_rate")
        self._beta1_t = _tensor(self._beta1, "beta1")
        self._beta2_t = _tensor(self._beta2, "beta2")
        self._epsilon_t = _tensor(self._epsilon, "epsilon")

    def _hyper(self, var):
        b1p, b2p = self._get_beta_accumulators()
        return [self._cast(t, var) for t in (b1p, b2p, self._lr_t, self._beta1_t,
                                             self._beta2_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        return apply_update(training_ops.apply_adam,
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), *self._hyper(var), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        if is_resource(var):
            return self._resource_apply_sparse(grad, var)
        return apply_update(training_ops.sparse_apply_adam,
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), *self._hyper(var),
            grad.values, grad.indices, use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var):
        """TF's graph for a resource variable (it has no fused sparse Adam op): duplicate
        rows summed, ``m = m * beta1`` then ``ResourceScatterAdd`` of ``g * (1 - beta1)``,
        the same for ``v``, then ``var -= lr * m / (sqrt(v) + epsilon)``."""
        indices, positions = segment_ops.unique(grad.indices)
        values = math_ops.unsorted_segment_sum(grad.values, positions,
                                               array_ops.shape(indices)[0])
        b1p, b2p, lr_t, beta1_t, beta2_t, epsilon_t = self._hyper(var)
        lr = lr_t * math_ops.sqrt(1 - b2p) / (1 - b1p)
        graph = get_default_graph()
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = m.assign(m * beta1_t, use_locking=self._use_locking)
        with graph.control_dependencies([m_t]):
            m_t = _scatter_add_read(m, indices, values * (1 - beta1_t))
        v_t = v.assign(v * beta2_t, use_locking=self._use_locking)
        with graph.control_dependencies([v_t]):
            v_t = _scatter_add_read(v, indices, (values * values) * (1 - beta2_t))
        var_update = var.assign_sub(lr * m_t / (math_ops.sqrt(v_t) + epsilon_t),
                                    use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)

    def _finish(self, update_ops, name_scope):
        graph = get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                              use_locking=self._use_locking)
            update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                              use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, update_beta1, update_beta2, name=name_scope)


# ── Adagrad ──────────────────────────────────────────────────────────────────────────
def checked_accumulator_value(value):
    """Adagrad's ``initial_accumulator_value``, which TF requires positive."""
    if value <= 0.0:
        raise ValueError(f"initial_accumulator_value must be positive: {value}")
    return value


def make_accumulator_slots(optimizer, var_list, value):
    """Adagrad's (and ProximalAdagrad's) ``accumulator`` slot of each variable, at
    ``value``."""
    for v in var_list:
        dtype = v.dtype.base_dtype
        optimizer._get_or_make_slot_with_initializer(
            v, constant_initializer(value, dtype=dtype), v.shape, dtype, "accumulator",
            optimizer._name)


class AdagradOptimizer(Optimizer):
    """``accum += grad^2; var -= lr * grad / sqrt(accum)`` (slot ``w/Adagrad``)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = checked_accumulator_value(initial_accumulator_value)

    def _create_slots(self, var_list):
        make_accumulator_slots(self, var_list, self._initial_accumulator_value)

    def _prepare(self):
        self._lr_t = _tensor(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad, var):
        return apply_update(training_ops.apply_adagrad,
            var, self.get_slot(var, "accumulator"), self._cast(self._lr_t, var), grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return apply_update(training_ops.sparse_apply_adagrad,
            var, self.get_slot(var, "accumulator"), self._cast(self._lr_t, var), grad.values,
            grad.indices, use_locking=self._use_locking)


# ── RMSProp ──────────────────────────────────────────────────────────────────────────
class RMSPropOptimizer(Optimizer):
    """RMSProp with momentum; ``centered=True`` also tracks the mean gradient.

    Slots in TF's order: ``rms`` (``w/RMSProp``, ones), ``mg`` when centered, ``momentum``.
    """

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay = learning_rate, decay
        self._momentum, self._epsilon, self._centered = momentum, epsilon, centered

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(v, ones_initializer(dtype=dtype), v.shape,
                                                    dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._lr_t = _tensor(self._learning_rate, "learning_rate")
        self._decay_t = _tensor(self._decay, "decay")
        self._momentum_t = _tensor(self._momentum, "momentum")
        self._epsilon_t = _tensor(self._epsilon, "epsilon")

    def _args(self, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        hyper = [self._cast(t, var) for t in (self._lr_t, self._decay_t, self._momentum_t,
                                              self._epsilon_t)]
        slots = [self.get_slot(var, "mg"), rms, mom] if self._centered else [rms, mom]
        return slots, hyper

    def _apply_dense(self, grad, var):
        slots, hyper = self._args(var)
        fn = training_ops.apply_centered_rms_prop if self._centered else \
            training_ops.apply_rms_prop
        return apply_update(fn, var, *slots, *hyper, grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        slots, hyper = self._args(var)
        fn = training_ops.sparse_apply_centered_rms_prop if self._centered else \
            training_ops.sparse_apply_rms_prop
        return apply_update(fn, var, *slots, *hyper, grad.values, grad.indices,
                  use_locking=self._use_locking)


# ── Adadelta ─────────────────────────────────────────────────────────────────────────
class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler): slots ``accum`` (``w/Adadelta``) and ``accum_update``."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        self._zeros_slots(var_list, "accum", "accum_update")

    def _prepare(self):
        self._lr_t = _tensor(self._lr, "lr")
        self._rho_t = _tensor(self._rho, "rho")
        self._epsilon_t = _tensor(self._epsilon, "epsilon")

    def _args(self, var):
        return ([self.get_slot(var, "accum"), self.get_slot(var, "accum_update")]
                + [self._cast(t, var) for t in (self._lr_t, self._rho_t, self._epsilon_t)])

    def _apply_dense(self, grad, var):
        return apply_update(training_ops.apply_adadelta, var, *self._args(var), grad,
                                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return apply_update(training_ops.sparse_apply_adadelta, var, *self._args(var), grad.values,
                                                  grad.indices,
                                                  use_locking=self._use_locking)


# ── Ftrl ─────────────────────────────────────────────────────────────────────────────
class FtrlOptimizer(Optimizer):
    """FTRL-proximal (McMahan et al.): slots ``accum`` (``w/Ftrl``) and ``linear``.

    Uses ``ApplyFtrl``, or ``ApplyFtrlV2`` when ``l2_shrinkage_regularization_strength``
    is positive, as TF does.
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None):
        super().__init__(use_locking, name)
        checks = [(initial_accumulator_value < 0.0, "initial_accumulator_value",
                   initial_accumulator_value, "positive"),
                  (learning_rate_power > 0.0, "learning_rate_power", learning_rate_power,
                   "less than or equal to 0.0"),
                  (l1_regularization_strength < 0.0, "l1_regularization_strength",
                   l1_regularization_strength, "greater than or equal to 0.0"),
                  (l2_regularization_strength < 0.0, "l2_regularization_strength",
                   l2_regularization_strength, "greater than or equal to 0.0"),
                  (l2_shrinkage_regularization_strength < 0.0,
                   "l2_shrinkage_regularization_strength",
                   l2_shrinkage_regularization_strength, "greater than or equal to 0.0")]
        for bad, what, value, rule in checks:
            if bad:
                raise ValueError(f"{what} {value} needs to be {rule}")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            init = constant_initializer(self._initial_accumulator_value, dtype=dtype)
            self._get_or_make_slot_with_initializer(v, init, v.shape, dtype, "accum",
                                                    self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._lr_t = _tensor(self._learning_rate, "learning_rate")
        self._l1_t = _tensor(self._l1, "l1_regularization_strength")
        # TF: l2 + beta / (2 * max(lr, 1e-36)); exactly l2 when beta is 0.
        self._l2_t = _tensor(self._l2, "l2_regularization_strength")
        if self._beta:
            self._l2_t = self._l2_t + self._beta / (2.0 * math_ops.maximum(self._lr_t, 1e-36))
        self._l2_shrinkage_t = _tensor(self._l2_shrinkage,
                                       "l2_shrinkage_regularization_strength")
        self._lr_power_t = _tensor(self._learning_rate_power, "learning_rate_power")

    def _args(self, var):
        return [self._cast(t, var) for t in (self._lr_t, self._l1_t, self._l2_t)]

    def apply_update(self, var, grad, indices):
        accum = self.get_slot(var, "accum")
        linear = self.get_slot(var, "linear")
        lr, l1, l2 = self._args(var)
        power = self._cast(self._lr_power_t, var)
        head = [var, accum, linear, grad] + ([] if indices is None else [indices])
        if self._l2_shrinkage <= 0.0:
            fn = training_ops.apply_ftrl if indices is None else training_ops.sparse_apply_ftrl
            return apply_update(fn, *head, lr, l1, l2, power, use_locking=self._use_locking)
        fn = training_ops.apply_ftrl_v2 if indices is None else \
            training_ops.sparse_apply_ftrl_v2
        shrink = self._cast(self._l2_shrinkage_t, var)
        return apply_update(fn, *head, lr, l1, l2, shrink, power, use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return self.apply_update(var, grad, None)

    def _apply_sparse(self, grad: IndexedSlices, var):
        return self.apply_update(var, grad.values, grad.indices)

