"""``tf.bitwise``: bitwise operations on integer tensors."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.math.bitwise_ops import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__: list[str] = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
                      "right_shift"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
