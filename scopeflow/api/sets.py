"""``tf.sets``: set operations over the last dimension of dense or sparse tensors."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.sparse.set_ops import set_difference, set_intersection, set_size, set_union
from scopeflow.ops.sparse.set_ops import set_difference as difference
from scopeflow.ops.sparse.set_ops import set_intersection as intersection
from scopeflow.ops.sparse.set_ops import set_size as size
from scopeflow.ops.sparse.set_ops import set_union as union

__all__: list[str] = ["difference", "intersection", "set_difference", "set_intersection",
                      "set_size", "set_union", "size", "union"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
