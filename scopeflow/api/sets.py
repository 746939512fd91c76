"""``tf.sets``: set operations over the last dimension of dense or sparse tensors."""

from scopeflow.framework.api_fallback import missing_attribute

__all__: list[str] = []


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
