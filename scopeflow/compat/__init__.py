"""``scopeflow.compat.v1``: the same TF1 namespace as ``scopeflow`` itself."""

from scopeflow.compat import v1  # noqa: F401


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    from scopeflow._api import missing_attribute

    raise missing_attribute(__name__, name)
