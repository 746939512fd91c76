"""``tf.saved_model.tag_constants``: the standard tags a SavedModel's meta graphs carry
(a loader picks the meta graph whose tag set equals the one it asks for)."""

from scopeflow.framework.api_fallback import missing_attribute

GPU = "gpu"
SERVING = "serve"
TPU = "tpu"
TRAINING = "train"

__all__ = ["GPU", "SERVING", "TPU", "TRAINING"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
