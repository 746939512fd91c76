"""TF1's behaviour switches. scopeflow is TF1's graph mode and nothing else, so the switches
that ask for it (``tf.disable_v2_behavior()``, the first line of most TF1 code run under
TF2) do nothing, and the ones that ask for TF2's behaviour say it is not available."""

from __future__ import annotations

__all__ = ["disable_v2_behavior", "disable_eager_execution", "disable_resource_variables",
           "disable_v2_tensorshape", "disable_control_flow_v2", "disable_tensor_equality",
           "enable_v2_behavior", "enable_eager_execution", "executing_eagerly",
           "executing_eagerly_outside_functions", "resource_variables_enabled",
           "control_flow_v2_enabled", "enable_resource_variables", "enable_control_flow_v2",
           "enable_tensor_equality", "enable_v2_tensorshape"]


def _already(*args, **kwargs) -> None:
    """scopeflow always behaves this way: nothing to do."""


disable_v2_behavior = disable_eager_execution = _already
disable_v2_tensorshape = disable_control_flow_v2 = disable_tensor_equality = _already


def executing_eagerly() -> bool:
    """Always False: scopeflow builds graphs and runs them in sessions."""
    return False


def executing_eagerly_outside_functions() -> bool:
    """Always False, as in TF1's graph mode."""
    return False


# Whether ``tf.Variable`` and ``get_variable`` make resource variables when not told
# (``use_resource=None``): TF1's default is ref variables.
_RESOURCE_VARIABLES = [False]


def resource_variables_enabled() -> bool:
    """Whether variables are resource variables by default (``enable_resource_variables``);
    False unless switched on: TF1's ref variables."""
    return _RESOURCE_VARIABLES[0]


def enable_resource_variables() -> None:
    """``tf.Variable``/``get_variable`` make ``ResourceVariable``s unless told otherwise."""
    _RESOURCE_VARIABLES[0] = True


def disable_resource_variables() -> None:
    """Back to TF1's default: ref variables unless ``use_resource=True``."""
    _RESOURCE_VARIABLES[0] = False


def control_flow_v2_enabled() -> bool:
    """False: ``tf.cond`` and ``tf.while_loop`` build TF1's control flow."""
    return False


def _not_available(name):
    def switch(*args, **kwargs):
        raise NotImplementedError(
            f"tf.{name}: scopeflow runs TensorFlow 1's graph mode only (graphs and sessions); "
            "TF2's eager execution and behaviour are not available")
    switch.__name__ = name
    return switch


enable_v2_behavior = _not_available("enable_v2_behavior")
enable_eager_execution = _not_available("enable_eager_execution")
enable_control_flow_v2 = _not_available("enable_control_flow_v2")
enable_tensor_equality = _not_available("enable_tensor_equality")
enable_v2_tensorshape = _not_available("enable_v2_tensorshape")
