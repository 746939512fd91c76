"""``tf.saved_model.signature_constants``: the keys and method names TensorFlow Serving's
Predict, Classify and Regress APIs look for in a ``SignatureDef``."""

from scopeflow.framework.api_fallback import missing_attribute

CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"

__all__ = ["CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "PREDICT_INPUTS",
           "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME",
           "REGRESS_OUTPUTS"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
