"""``tf.saved_model.builder``: TF1's SavedModel writer (builder_impl.py)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model.builder_impl import SavedModelBuilder

__all__ = ["SavedModelBuilder"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
