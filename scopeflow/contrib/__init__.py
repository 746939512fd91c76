"""``tf.contrib``: the parts of TF 1.x's contributed modules that TF1 tutorials used.

``tf.contrib.layers`` (``fully_connected``, ``conv2d``, ``batch_norm``, the Xavier and
variance-scaling initializers, the l1/l2 regularizers...), ``tf.contrib.losses`` (slim's
losses, TF 1.15's argument order and weighting), ``tf.contrib.rnn`` (the RNN cells and the
static drivers), ``tf.contrib.seq2seq`` (decoders, helpers, ``dynamic_decode``,
``sequence_loss``) and ``arg_scope`` (slim's ``arg_scope``, also in ``tf.contrib.framework``)
are modules here. ``tf.contrib.slim``, ``tf.contrib.framework``,
``tf.contrib.learn.datasets`` (MNIST) and TF 1.x's deeper paths
(``tensorflow.contrib.learn.python.learn.datasets.mnist``...) map onto these and the core API
through the table of ``scopeflow/python/module_paths.py``. Any other ``tf.contrib.X`` raises
``NotImplementedError`` naming it (scopeflow/framework/api_fallback.py).
"""

import importlib

from scopeflow.contrib import layers, losses, rnn, seq2seq
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.python import install, is_module_path

__all__ = ["layers", "losses", "rnn", "seq2seq"]

install()


def __getattr__(name):
    """A mapped TF 1.x path (``tf.contrib.slim``) is imported; another ``tf.contrib`` module
    raises NotImplementedError naming it (scopeflow/framework/api_fallback.py)."""
    if is_module_path(f"{__name__}.{name}"):
        return importlib.import_module(f"{__name__}.{name}")
    raise missing_attribute(__name__, name)
