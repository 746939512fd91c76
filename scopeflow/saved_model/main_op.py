"""``tf.saved_model.main_op``: a SavedModel's usual init op (main_op_impl.py)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model.main_op_impl import main_op, main_op_with_restore

__all__ = ["main_op", "main_op_with_restore"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
