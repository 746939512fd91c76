"""``tf.saved_model.utils``: TensorInfo protos for tensors and back (utils_impl.py)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model.utils_impl import build_tensor_info, get_tensor_from_tensor_info

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
