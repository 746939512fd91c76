"""``tf.feature_column``: TF 1.15's feature columns (scopeflow/feature_column/feature_column.py)."""

from scopeflow.feature_column.feature_column import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    embedding_column,
    indicator_column,
    input_layer,
    linear_model,
    make_parse_example_spec,
    numeric_column,
    shared_embedding_columns,
    weighted_categorical_column,
)
from scopeflow.feature_column.sequence_feature_column import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from scopeflow.framework.api_fallback import missing_attribute

__all__: list[str] = ["bucketized_column", "categorical_column_with_hash_bucket",
                      "categorical_column_with_identity",
                      "categorical_column_with_vocabulary_file",
                      "categorical_column_with_vocabulary_list", "crossed_column",
                      "embedding_column", "indicator_column", "input_layer", "linear_model",
                      "make_parse_example_spec", "numeric_column", "shared_embedding_columns",
                      "weighted_categorical_column",
                      "sequence_categorical_column_with_hash_bucket",
                      "sequence_categorical_column_with_identity",
                      "sequence_categorical_column_with_vocabulary_file",
                      "sequence_categorical_column_with_vocabulary_list",
                      "sequence_numeric_column"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
