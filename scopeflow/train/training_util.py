"""``global_step``: one int64 counter per graph, always at the root scope, never trainable.

TF1's ``create_global_step`` builds the variable in the *current* variable scope (so it
inherits a custom getter or lands in ``foo/global_step``); here it is always the root
``global_step`` (USER_NEEDS §22), created outside the user's reuse flag and control
dependencies.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import GraphKeys, Tensor, get_default_graph
from scopeflow.ops.state.init_ops import zeros_initializer
from scopeflow.state.variable_scope import VariableScope, framework_variable_scope, get_variable

__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step",
           "assert_global_step", "global_step"]


def assert_global_step(global_step_tensor):
    """Raises unless ``global_step_tensor`` is a scalar integer Variable or Tensor."""
    dtype = getattr(global_step_tensor, "dtype", None)
    if dtype is None:
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: "
                        f"{global_step_tensor}.")
    if not dtype.base_dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: "
                        f"{global_step_tensor.dtype}")
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")


def get_global_step(graph=None):
    """The ``GLOBAL_STEP`` collection's variable, else the tensor ``global_step:0``, else None.

    >>> get_global_step() is None
    True
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise ValueError(f"Multiple tensors in global_step collection: "
                         f"{[getattr(t, 'name', t) for t in found]}")
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """Creates the int64 ``global_step`` (GLOBAL_VARIABLES and GLOBAL_STEP, not trainable).

    Raises ``ValueError('"global_step" already exists.')`` when there is one.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None), \
            framework_variable_scope(VariableScope(None, name="")):
        return get_variable(GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
                            initializer=zeros_initializer(), trainable=False,
                            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The graph's global step, created (int64, 0) when missing."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def global_step(sess, global_step_tensor):
    """The step's current value as a Python int."""
    if isinstance(global_step_tensor, Tensor) or hasattr(global_step_tensor, "_variable"):
        return int(sess.run(global_step_tensor))
    return int(sess.run(get_default_graph().get_tensor_by_name(global_step_tensor)))
