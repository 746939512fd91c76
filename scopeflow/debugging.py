"""``tf.debugging``: assertions and printing (``tf.debugging.assert_equal``, ``Assert``...)."""

from scopeflow._api import missing_attribute
from scopeflow.ops.check_ops import *  # noqa: F403
from scopeflow.ops.check_ops import __all__ as _check_all
from scopeflow.ops.logging_ops import Assert

__all__ = [*_check_all, "Assert"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    raise missing_attribute(__name__, name)
