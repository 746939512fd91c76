"""TF1's proximal optimizers and Adagrad dual averaging.

``ProximalGradientDescentOptimizer`` (no slots), ``ProximalAdagradOptimizer`` (slot
``accumulator``, ``w/ProximalAdagrad``) and ``AdagradDAOptimizer`` (slots
``gradient_accumulator`` and ``gradient_squared_accumulator``: ``w/AdagradDA`` and
``w/AdagradDA_1``). Slot names, order and hyper-parameter tensors are TF's, so their state
round-trips through TF checkpoints; the updates are the ``Apply*``/``SparseApply*`` ops of
``scopeflow.ops.state.proximal_training_ops``.
"""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor
from scopeflow.ops import array_ops
from scopeflow.ops.state import proximal_training_ops as ops
from scopeflow.ops.state.init_ops import constant_initializer
from scopeflow.train.optimizer import Optimizer
from scopeflow.train.optimizers import (
    apply_update,
    checked_accumulator_value,
    make_accumulator_slots,
)

__all__ = ["ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer",
           "AdagradDAOptimizer"]


class _ProximalBase(Optimizer):
    """Learning rate plus the L1/L2 strengths as tensors named as TF names them."""

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                       name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        self._l2_t = convert_to_tensor(self._l2, name="l2_regularization_strength")


class ProximalGradientDescentOptimizer(_ProximalBase):
    """FOBOS with a fixed rate: a gradient step, then L1 soft-thresholding and L2 shrink."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _apply_dense(self, grad, var):
        return apply_update(ops.apply_proximal_gradient_descent,
            var, self._lr_t, self._l1_t, self._l2_t, grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return apply_update(ops.sparse_apply_proximal_gradient_descent,
            var, self._lr_t, self._l1_t, self._l2_t, grad.values, grad.indices,
            use_locking=self._use_locking)


class ProximalAdagradOptimizer(_ProximalBase):
    """Adagrad's per-element rate with the proximal (L1/L2) step."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = checked_accumulator_value(initial_accumulator_value)
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _create_slots(self, var_list):
        make_accumulator_slots(self, var_list, self._initial_accumulator_value)

    def _apply_dense(self, grad, var):
        return apply_update(ops.apply_proximal_adagrad,
            var, self.get_slot(var, "accumulator"), self._lr_t, self._l1_t, self._l2_t, grad,
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return apply_update(ops.sparse_apply_proximal_adagrad,
            var, self.get_slot(var, "accumulator"), self._lr_t, self._l1_t, self._l2_t,
            grad.values, grad.indices, use_locking=self._use_locking)


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging: the variable is a closed form of the gradient sums, so
    features unseen in a mini-batch are regularised as if updated every step. The step
    count is ``global_step + 1`` (read before this update, as in TF)."""

    def __init__(self, learning_rate, global_step,
                 initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gg = initial_gradient_squared_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._get_or_make_slot_with_initializer(
                v, constant_initializer(self._initial_gg, dtype=dtype), v.shape, dtype,
                "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                       name="learning_rate")
        self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _args(self, var):
        return [self._cast(self._lr_t, var), self._cast(self._l1, var),
                self._cast(self._l2, var), array_ops.identity(self._global_step_on_worker)]

    def _apply_dense(self, grad, var):
        return apply_update(ops.apply_adagrad_da,
            var, self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"), grad, *self._args(var),
            use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return apply_update(ops.sparse_apply_adagrad_da,
            var, self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"), grad.values, grad.indices,
            *self._args(var), use_locking=self._use_locking)
