"""``tf.ragged``: RaggedTensors (rows of different lengths) and the ops that build them."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ragged import ragged_dispatch
from scopeflow.ragged.ragged_cross_ops import cross, cross_hashed
from scopeflow.ragged.ragged_factory_ops import constant, constant_value, placeholder
from scopeflow.ragged.ragged_ops import (  # noqa: A004
    boolean_mask,
    map_flat_values,
    range,
    stack,
    stack_dynamic_partitions,
)
from scopeflow.ragged.ragged_tensor import (
    RaggedTensor,
    RaggedTensorValue,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__: list[str] = [
    "RaggedTensor", "RaggedTensorValue", "boolean_mask", "constant", "constant_value",
    "map_flat_values", "placeholder", "range", "stack", "stack_dynamic_partitions",
    "row_splits_to_segment_ids", "segment_ids_to_row_splits", "cross", "cross_hashed"]

ragged_dispatch.install()


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
