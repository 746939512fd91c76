"""``scopeflow.compat``: ``compat.v1`` is the same TF1 namespace as ``scopeflow`` itself.

``import scopeflow.compat.v1 as tf`` gives exactly the module ``import scopeflow as tf`` gives:
``scopeflow/__init__.py`` registers itself as ``scopeflow.compat.v1`` (so this package,
below the root, never imports it).
"""

from scopeflow._api import missing_attribute


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    raise missing_attribute(__name__, name)
