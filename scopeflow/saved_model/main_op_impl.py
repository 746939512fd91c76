"""``tf.saved_model.main_op``: the usual init op of a SavedModel (run by the loader after
it restores the variables)."""

from __future__ import annotations

from scopeflow.framework.graph import control_dependencies
from scopeflow.ops.control_flow.control_flow_ops import group
from scopeflow.ops.lookup.lookup_ops import tables_initializer
from scopeflow.state.variables import global_variables_initializer, local_variables_initializer

__all__ = ["main_op", "main_op_with_restore"]


def main_op():
    """One op that initializes the global and local variables and the lookup tables."""
    return group(global_variables_initializer(), local_variables_initializer(),
                 tables_initializer())


def main_op_with_restore(restore_op_name):
    """``main_op()`` then the op named ``restore_op_name`` (a Saver's restore op)."""
    with control_dependencies([main_op()]):
        return group(restore_op_name)
