"""``tf.math``: the math ops under their ``tf.math.*`` names."""

from scopeflow.ops.math_ops import *  # noqa: F403
from scopeflow.ops.math_ops import __all__  # noqa: F401
