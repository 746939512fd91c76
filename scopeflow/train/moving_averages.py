"""``tf.train.ExponentialMovingAverage`` and ``assign_moving_average`` (TF's
``training/moving_averages.py``), with TF1's names, which are the checkpoint format.

- ``apply([w])`` makes the shadow variable ``<variable scope>/w/ExponentialMovingAverage``
  (the EMA's ``name``), not trainable, initialized to ``w``'s value (``cond`` on
  ``IsVariableInitialized(w)``: ``w`` itself, or ``w.initial_value``), and adds ``w`` to
  ``MOVING_AVERAGE_VARIABLES``; a tensor gets a zeros shadow named after its op
  (``moments/Squeeze/ExponentialMovingAverage``), debiased with ``zero_debias=True``.
- Its update ops are ``<name scope>/ExponentialMovingAverage/AssignMovingAvg[_N]``
  (``shadow -= (shadow - value) * (1 - decay)``), grouped under
  ``<name scope>/ExponentialMovingAverage``; with ``num_updates`` the decay is
  ``min(decay, (1 + n) / (10 + n))``.
- ``variables_to_restore()`` maps the shadows' checkpoint names onto the model's variables,
  so a Saver restores the averages into them.

As in scopeflow's optimizers, colocation is not modelled (scopeflow places nothing).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    get_name_scope,
    name_scope,
)
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow import control_flow_ops
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.state import state_ops
from scopeflow.ops.state.init_ops import zeros_initializer
from scopeflow.state.partitioning import SaveSliceInfo
from scopeflow.state.variable_scope import (
    _unique_variable_scope,
    framework_variable_scope,
    get_variable,
    get_variable_scope,
    variable_scope,
)
from scopeflow.state.variables import Variable, global_variables, trainable_variables

__all__ = ["ExponentialMovingAverage", "assign_moving_average", "weighted_moving_average"]

_FLOAT_TYPES = tuple(getattr(dtypes, n) for n in ("bfloat16", "float16", "float32", "float64")
                     if hasattr(dtypes, n))
_VARIABLE_OP_TYPES = ("Variable", "VariableV2", "VarHandleOp")


# ── assign_moving_average ────────────────────────────────────────────────────────────
def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (variable - value) * (1 - decay)``, the op named ``AssignMovingAvg``
    (TF's ``moving_averages.assign_moving_average``); with ``zero_debias`` the update is
    divided by ``1 - decay ** n`` through the variables ``<variable>/biased`` and
    ``<variable>/local_step``."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _maybe_get_unique(name):
    """``name``, or ``name_N`` when the current variable scope already holds it."""
    scope = get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in global_variables()}
    full_name = scope.name + "/" + name
    if full_name not in taken:
        return name
    idx = 1
    while f"{full_name}_{idx}" in taken:
        idx += 1
    return f"{name}_{idx}"


def _zero_debias(unbiased_var, value, decay):
    """TF's ``_zero_debias``: the biased average and a step count, then
    ``unbiased = biased / (1 - (1 - decay) ** step)``."""
    graph = get_default_graph()
    with graph.control_dependencies(None), \
            variable_scope(unbiased_var.name[:-len(":0")], values=[unbiased_var, value, decay]):
        biased_var = get_variable(
            _maybe_get_unique("biased"), initializer=zeros_initializer(),
            shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
            trainable=False)
        local_step = get_variable(
            _maybe_get_unique("local_step"), shape=[], dtype=unbiased_var.dtype.base_dtype,
            initializer=zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=get_name_scope() + "/")


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """``moving_average(value * weight) / moving_average(weight)``, kept in the variables
    ``WeightedMovingAvg/value_x_weight`` and ``WeightedMovingAvg/weight``."""
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    with variable_scope(name, "WeightedMovingAvg", [value, weight, decay]) as scope:
        value_x_weight_var = get_variable(
            "value_x_weight", shape=value.get_shape(), dtype=value.dtype,
            initializer=zeros_initializer(), trainable=False, collections=collections)
        weight_var = get_variable(
            "weight", shape=weight.get_shape(), dtype=weight.dtype,
            initializer=zeros_initializer(), trainable=False, collections=collections)
        numerator = assign_moving_average(value_x_weight_var, value * weight, decay,
                                          zero_debias=False)
        denominator = assign_moving_average(weight_var, weight, decay, zero_debias=False)
        if truediv:
            return math_ops.truediv(numerator, denominator, name=scope.name)
        return math_ops.divide(numerator, denominator, name=scope.name)


# ── slots: the shadow variables ──────────────────────────────────────────────────────
def _slot_prefix(primary):
    return primary.op.name


def _create_slot(primary, val, name, shape=None, dtype=None):
    """TF's ``slot_creator``: ``<variable scope>/<primary>/<name>`` (uniquified as
    ``variable_scope(None, default_name)`` does), initialized from the tensor ``val`` or
    (with ``shape``) the initializer ``val``; not trainable, no partitioner. As the
    optimizers' slots, it ignores the user's reuse flag (``framework_variable_scope``)."""
    validate_shape = (shape if shape is not None else val.get_shape()).is_fully_defined()
    unique = _unique_variable_scope(_slot_prefix(primary) + "/" + name)
    with framework_variable_scope(unique, reuse=None) as scope:
        partitioner = scope.partitioner
        scope.set_partitioner(None)
        try:
            slot = get_variable("", initializer=val, trainable=False, shape=shape,
                                dtype=dtype, validate_shape=validate_shape)
        finally:
            scope.set_partitioner(partitioner)
    info = getattr(primary, "_save_slice_info", None)
    if isinstance(primary, Variable) and info is not None:
        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._save_slice_info = SaveSliceInfo(
                info.full_name + "/" + real_slot_name, info.full_shape[:n],
                info.var_offset[:n], info.var_shape[:n])
    return slot


def _create_zeros_slot(primary, name):
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return _create_slot(primary, zeros_initializer(), name, shape=shape,
                            dtype=primary.dtype.base_dtype)
    val = array_ops.zeros(array_ops.shape(primary), dtype=primary.dtype.base_dtype)
    return _create_slot(primary, val, name)


def _initialized_value(var):
    """``var``'s value if it is initialized, else its initial value (TF's ``apply``)."""
    return cond(state_ops.is_variable_initialized(var), var.read_value,
                lambda: var.initial_value)


def _key(var):
    return (var.op.graph, var.name) if isinstance(var, Variable) else var


# ── ExponentialMovingAverage ─────────────────────────────────────────────────────────
class ExponentialMovingAverage:
    """Shadow copies of variables (or tensors) that ``apply()`` moves towards their values:
    ``shadow -= (1 - decay) * (shadow - value)``.

    >>> w = tf.Variable(1.0, name="w")
    >>> ema = tf.train.ExponentialMovingAverage(0.9)
    >>> update = ema.apply([w])
    >>> ema.average(w).name, ema.average_name(w), update.name
    ('w/ExponentialMovingAverage:0', 'w/ExponentialMovingAverage', 'ExponentialMovingAverage')
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list`` not seen before (default: the trainable
        variables) and returns the op that updates all of them once."""
        if var_list is None:
            var_list = trainable_variables()
        var_list = list(var_list)
        zero_debias_true = set()
        graph = get_default_graph()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if _key(var) in self._averages:
                continue
            with graph.control_dependencies(None):
                if isinstance(var, Variable):
                    avg = _create_slot(var, _initialized_value(var), self.name)
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = _create_zeros_slot(var, self.name)
                    if self._zero_debias:
                        zero_debias_true.add(_key(avg))
            self._averages[_key(var)] = avg
        with name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[_key(var)]
                updates.append(assign_moving_average(
                    avg, var, decay, zero_debias=_key(avg) in zero_debias_true))
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var``, or None."""
        return self._averages.get(_key(var))

    def average_name(self, var) -> str:
        """The name ``var``'s shadow has (or would have): its checkpoint key."""
        avg = self._averages.get(_key(var))
        if avg is not None:
            return avg.name[:-len(":0")]
        return get_default_graph().unique_name(
            var.name[:-len(":0")] + "/" + self.name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{checkpoint name: variable}`` restoring the averages into the variables they
        average (by default the trainable variables and ``MOVING_AVERAGE_VARIABLES``), and
        every other global variable under its own name."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables()
            moving_avg_variables += get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES)
        unique = {_key(v): v for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in unique.values()}
        averaged_names = {v.name for v in unique.values()}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
