"""``tf.saved_model.loader``: TF1's SavedModel reader (loader_impl.py)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model.loader_impl import load, maybe_saved_model_directory

__all__ = ["load", "maybe_saved_model_directory"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
