"""``tf.saved_model.signature_def_utils``: SignatureDef builders and checks
(signature_def_utils_impl.py, method_name_updater.py)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model.method_name_updater import MethodNameUpdater
from scopeflow.saved_model.signature_def_utils_impl import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)

__all__ = ["MethodNameUpdater", "build_signature_def", "classification_signature_def",
           "is_valid_signature", "predict_signature_def", "regression_signature_def"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
