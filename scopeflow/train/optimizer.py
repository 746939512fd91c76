"""``tf.train.Optimizer``: gradients, slots, and the update ops of TF1's optimizers.

Names are the checkpoint format, so they follow TF exactly: a slot of variable ``w`` made
by an optimizer named ``Adam`` is ``<variable scope>/w/Adam`` (then ``w/Adam_1``, ...),
non-slot variables (``beta1_power``) live in the current name scope, and the update ops
are ``Adam/update_w/ApplyAdam`` under the ``apply_gradients`` scope.

Beyond TF1: slots are created in ``framework_variable_scope``, so ``minimize`` inside a
``variable_scope(..., reuse=True)`` works instead of failing with "Variable w/Adam does
not exist" (USER_NEEDS §6); they are created in CREATE mode, so two optimizers can never
silently share a slot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from scopeflow.autodiff.gradients import gradients as _tf_gradients
from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    convert_to_tensor,
    get_collection,
    get_collection_ref,
    get_default_graph,
    name_scope,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.ops import math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.state import state_ops
from scopeflow.ops.state.init_ops import zeros_initializer
from scopeflow.ops.state.resource_variable_ops import assign_add_variable_op, is_resource
from scopeflow.state.partitioning import SaveSliceInfo
from scopeflow.state.variable_scope import (
    _unique_variable_scope,
    framework_variable_scope,
    get_variable,
)
from scopeflow.state.variables import Variable, trainable_variables

if TYPE_CHECKING:
    from scopeflow.framework.graph import Operation, Tensor
    from scopeflow.state.variables import Variable

__all__ = ["Optimizer", "create_slot_with_initializer"]

_VALID_DTYPES = tuple(getattr(dtypes, n) for n in ("float16", "bfloat16", "float32", "float64")
                      if hasattr(dtypes, n))


def _var_key(var):
    return (var.op.graph, var.op.name)


def create_slot_with_initializer(primary, initializer, shape, dtype, op_name):
    """A slot variable ``<scope>/<primary>/<op_name>`` (TF's ``slot_creator``).

    Created outside the user's reuse flag and control dependencies, with the scope's
    partitioner switched off, not trainable.
    """
    graph = primary.op.graph
    with graph.as_default(), graph.control_dependencies(None):
        unique = _unique_variable_scope(primary.op.name + "/" + op_name)
        with framework_variable_scope(unique, reuse=None) as scope:
            partitioner = scope.partitioner
            scope.set_partitioner(None)
            try:
                slot = get_variable("", shape=shape, dtype=dtype, initializer=initializer,
                                    trainable=False, validate_shape=shape.is_fully_defined(),
                                    use_resource=is_resource(primary))
            finally:
                scope.set_partitioner(partitioner)
    # A part of a partitioned variable: the slot is saved as a slice of
    # ``<full name>/<slot name after the primary's op name>`` (TF's quirk: under an enclosing
    # variable scope that suffix keeps ``part_<i>/``).
    info = getattr(primary, "_save_slice_info", None)
    if info is not None:
        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._save_slice_info = SaveSliceInfo(
                info.full_name + "/" + real_slot_name, info.full_shape[:n],
                info.var_offset[:n], info.var_shape[:n])
    return slot


class Optimizer:
    """Base class of the TF1 optimizers.

    Subclasses implement ``_create_slots``, ``_prepare``, ``_apply_dense`` and
    ``_apply_sparse`` (and ``_finish`` when they keep non-slot state).
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict] = {}
        self._non_slot_dict: dict = {}

    def get_name(self) -> str:
        return self._name

    # -- the public steps ----------------------------------------------------------------
    def minimize(self, loss: Tensor, global_step: Variable | Tensor | None = None,
                 var_list: list[Variable] | None = None, gate_gradients: int = GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops: bool = False,
                 name: str | None = None, grad_loss: Tensor | None = None) -> Operation:
        """``compute_gradients`` then ``apply_gradients``; returns the train op.

        With ``global_step``, the step is incremented once per run of the returned op,
        after every variable update.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[str(v) for _, v in grads_and_vars]}"
                f" and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """A list of ``(gradient, variable)``; the gradient is None when unconnected.

        ``var_list`` defaults to ``GraphKeys.TRAINABLE_VARIABLES``.
        """
        if callable(loss):
            raise NotImplementedError("compute_gradients(loss=callable) is eager-only")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP,
                                  Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        loss = loss if isinstance(loss, Tensor) else convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([convert_to_tensor(grad_loss)])
        if var_list is None:
            var_list = trainable_variables() + get_collection(
                GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = list(var_list.values() if isinstance(var_list, dict) else var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError(f"Argument is not a tf.Variable: {v}")
        grads = _tf_gradients(
            loss, var_list, grad_ys=grad_loss, gate_gradients=gate_gradients == self.GATE_OP,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH and all(
                g is None or isinstance(g, Tensor) for g in grads):
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Adds the update ops; returns one op that runs them all (and bumps the step)."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None and not isinstance(g, IndexedSlices):
                try:
                    g = convert_to_tensor(g)
                except (TypeError, ValueError):
                    raise TypeError(f"Gradient must be convertible to a Tensor or "
                                    f"IndexedSlices, or None: {g}") from None
            if not isinstance(v, Variable):
                raise NotImplementedError(f"Trying to update a Tensor {v}")
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[str(v) for _, v in converted]}.")
        graph = var_list[0].op.graph
        with graph.as_default():
            with graph.control_dependencies(None):
                self._create_slots(var_list)
            return self._build_updates(graph, converted, global_step, name)

    def _build_updates(self, graph, converted, global_step, name):
        update_ops = []
        with name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name):
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    step = getattr(global_step, "_variable", global_step)
                    one = np.ones((), step.dtype.base_dtype.as_numpy_dtype)
                    if is_resource(step):  # TF's: AssignAddVariableOp, named as the scope
                        apply_updates = assign_add_variable_op(step, one, name=scope)
                    else:
                        apply_updates = state_ops.assign_add(step, one, name=scope)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_ops = get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
            return apply_updates

    def _update_op(self, grad, var):
        if isinstance(grad, Tensor):
            update = self._apply_dense(grad, var)
            if var.constraint is not None:
                with get_default_graph().control_dependencies([update]):
                    return var.assign(var.constraint(var)).op
            return update
        if var.constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        return self._apply_sparse_duplicate_indices(grad, var)

    # -- slots ---------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot ``name`` (e.g. ``"m"``) made for ``var``, or None."""
        named = self._slots.get(name)
        if not named:
            return None
        return named.get(_var_key(var))

    def get_slot_names(self) -> list:
        return sorted(self._slots)

    def variables(self) -> list:
        """This optimizer's variables in the current graph (slots and non-slots), by name."""
        graph = get_default_graph()
        out = [v for (_, g), v in self._non_slot_dict.items() if g is graph]
        for named in self._slots.values():
            out.extend(v for v in named.values() if v.op.graph is graph)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return named[key]

    def _zeros_slot(self, var, slot_name, op_name):
        return self._get_or_make_slot_with_initializer(
            var, zeros_initializer(), var.shape, var.dtype.base_dtype, slot_name, op_name)

    def _zeros_slots(self, var_list, *slot_names):
        """Zero-filled slots ``slot_names`` of each variable, made variable by variable (the
        order TF's optimizers make them in, which names their ops)."""
        for v in var_list:
            for slot_name in slot_names:
                self._zeros_slot(v, slot_name, self._name)

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        key = (name, colocate_with.op.graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            v = Variable(initial_value, name=name, trainable=False,
                         use_resource=is_resource(colocate_with))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    # -- hooks for subclasses ------------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        # NOTE: the sparse kernels sum duplicate rows themselves (TF does it in the graph
        # with Unique + UnsortedSegmentSum); the values are the same.
        return self._apply_sparse(grad, var)

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    # -- helpers -------------------------------------------------------------------------
    def _assert_valid_dtypes(self, tensors):
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in _VALID_DTYPES:
                raise ValueError(f"Invalid type {dtype.name} for {t.name}, expected: "
                                 f"{[d.name for d in _VALID_DTYPES]}.")

    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param

    @staticmethod
    def _cast(t, var):
        return math_ops.cast(t, var.dtype.base_dtype)
