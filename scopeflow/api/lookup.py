"""``tf.lookup``: static lookup tables and their initializers (scopeflow/ops/lookup/)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.lookup.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__all__: list[str] = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
                      "TextFileIndex", "TextFileInitializer"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
