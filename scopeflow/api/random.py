"""``tf.random``: the TF 1.x/2.x spellings of the random ops."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.random_seed import get_seed, set_random_seed
from scopeflow.ops.random.random_ops import categorical, multinomial, truncated_normal
from scopeflow.ops.random.random_ops import random_normal as normal
from scopeflow.ops.random.random_ops import random_shuffle as shuffle
from scopeflow.ops.random.random_ops import random_uniform as uniform

__all__ = ["normal", "uniform", "truncated_normal", "shuffle", "set_random_seed", "get_seed",
           "categorical", "multinomial"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
