"""``tf.user_ops``: the example user op TF1 ships (``my_fact``)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.strings.fact_ops import my_fact

__all__ = ["my_fact"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
