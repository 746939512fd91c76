"""``scopeflow.compat.v1``: the same TF1 namespace as ``scopeflow`` itself."""

from scopeflow.compat import v1  # noqa: F401
