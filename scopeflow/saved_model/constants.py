"""``tf.saved_model.constants``: the names of a SavedModel's files, directories and
collections, as TensorFlow 2.21 spells them (a SavedModel written with one is read with
the other)."""

from scopeflow.framework.api_fallback import missing_attribute

# The directory a SavedModel's asset files are copied into, and the graph collection whose
# ``Any``-packed ``AssetFileDef``s name them (TF1's builder writes assets there).
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
# Where TF2's save writes the graph's debug info (scopeflow writes none).
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
# The collections holding the op the loader runs after restoring the variables.
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"

# Not under tf.saved_model.constants in TF's API, but read by its loader: the reserved
# signature keys of TF2's init and train ops, and the train-op collection.
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
TRAIN_OP_KEY = "saved_model_train_op"
# A chunked (proto-split) SavedModel's file: scopeflow cannot read one, but it counts as a
# SavedModel for maybe_saved_model_directory, as in TF.
SAVED_MODEL_FILENAME_CPB = "saved_model.cpb"

__all__ = ["ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "LEGACY_INIT_OP_KEY", "MAIN_OP_KEY", "SAVED_MODEL_FILENAME_PB",
           "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "VARIABLES_DIRECTORY",
           "VARIABLES_FILENAME"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api_fallback.py)."""
    raise missing_attribute(__name__, name)
