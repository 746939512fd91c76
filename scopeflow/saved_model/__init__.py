"""``tf.saved_model``: TF1's SavedModel format, byte-compatible with TensorFlow's.

A SavedModel is a directory TensorFlow Serving and TF's loaders read: ``saved_model.pb``
(meta graphs by tag set, each with its signatures), ``variables/`` (a V2 checkpoint) and
``assets/``. Write one with ``Builder`` (or ``simple_save``) and read it with
``load`` (TF1's ``tf.saved_model.loader.load``). TF2's object-based ``save`` and
``load_v2`` need TF2's traced functions and trackable object graphs, which scopeflow does
not have (``Asset`` and ``SaveOptions``, plain objects, are here). See
docs/saved_model.md.
"""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.saved_model import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from scopeflow.saved_model.asset import Asset
from scopeflow.saved_model.builder_impl import SavedModelBuilder as Builder
from scopeflow.saved_model.constants import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    DEBUG_DIRECTORY,
    DEBUG_INFO_FILENAME_PB,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
)
from scopeflow.saved_model.loader_impl import (
    contains_saved_model,
    load,
    maybe_saved_model_directory,
)
from scopeflow.saved_model.main_op_impl import main_op_with_restore
from scopeflow.saved_model.save_options import SaveOptions
from scopeflow.saved_model.signature_constants import (
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
)
from scopeflow.saved_model.signature_def_utils_impl import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)
from scopeflow.saved_model.simple_save import simple_save
from scopeflow.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
from scopeflow.saved_model.utils_impl import build_tensor_info, get_tensor_from_tensor_info

__all__ = [
    "ASSETS_DIRECTORY", "ASSETS_KEY", "Asset", "Builder", "CLASSIFY_INPUTS",
    "CLASSIFY_METHOD_NAME",
    "CLASSIFY_OUTPUT_CLASSES", "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "GPU",
    "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "PREDICT_INPUTS", "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
    "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
    "SERVING", "SaveOptions", "TPU", "TRAINING", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME",
    "build_signature_def", "build_tensor_info", "builder", "classification_signature_def",
    "constants", "contains_saved_model", "get_tensor_from_tensor_info", "is_valid_signature",
    "load", "loader", "main_op", "main_op_with_restore", "maybe_saved_model_directory",
    "predict_signature_def", "regression_signature_def", "signature_constants",
    "signature_def_utils", "simple_save", "tag_constants", "utils"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
