"""``tf.manip``: TF1's older home of a few array ops (the same functions as ``tf.*``)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.array.grid_ops import roll
from scopeflow.ops.array.reverse_ops import reverse
from scopeflow.ops.array.scatter_nd_ops import gather_nd, scatter_nd
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.array.space_ops import batch_to_space_nd, space_to_batch_nd
from scopeflow.ops.math.reduction_ops import tile

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
