"""``tf.contrib``: the parts of TF 1.x's contributed modules that TF1 tutorials used.

``tf.contrib.layers`` (``fully_connected``, ``conv2d``, ``batch_norm``, the Xavier and
variance-scaling initializers, the l1/l2 regularizers...) and ``tf.contrib.rnn`` (the RNN
cells and the static drivers). Any other ``tf.contrib.X`` raises ``NotImplementedError``
naming it (scopeflow/framework/api_fallback.py).
"""

from scopeflow.contrib import layers, rnn
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["layers", "rnn"]


def __getattr__(name):
    """Another ``tf.contrib`` module raises NotImplementedError naming it
    (scopeflow/framework/api_fallback.py)."""
    raise missing_attribute(__name__, name)
