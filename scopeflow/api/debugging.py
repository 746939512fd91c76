"""``tf.debugging``: assertions, checks for NaN and Inf, and printing
(``tf.debugging.assert_equal``, ``check_numerics``, ``assert_all_finite``, ``Assert``...),
and the switch for traceback filtering."""

from scopeflow.api.config import _state as _config_state
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.logging.check_numerics_callback import (
    disable_check_numerics,
    enable_check_numerics,
)
from scopeflow.ops.logging.check_ops import *  # noqa: F403
from scopeflow.ops.logging.check_ops import __all__ as _check_all
from scopeflow.ops.logging.check_ops import assert_all_finite
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.logging.shape_assert_ops import assert_shapes
from scopeflow.ops.math.elementwise_ops import is_finite, is_inf, is_nan
from scopeflow.ops.math.sequence_ops import is_non_decreasing, is_strictly_increasing
from scopeflow.platform.traceback_filtering import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)

__all__ = [*_check_all, "Assert", "assert_all_finite", "assert_shapes", "is_finite", "is_inf",
           "is_nan", "enable_check_numerics", "disable_check_numerics", "is_non_decreasing",
           "is_strictly_increasing",
           "disable_traceback_filtering", "enable_traceback_filtering",
           "is_traceback_filtering_enabled", "get_log_device_placement",
           "set_log_device_placement"]


def get_log_device_placement() -> bool:
    return _config_state.SETTINGS["log_device_placement"]


def set_log_device_placement(enabled):
    """Kept and read back as in TF; every op is placed on the one CPU
    (``ConfigProto(log_device_placement=True)`` makes a session say so)."""
    _config_state.SETTINGS["log_device_placement"] = bool(enabled)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
