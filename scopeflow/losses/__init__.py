"""``tf.losses``: the namespace; the losses themselves are in ``losses_impl.py``."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.losses import losses_impl
from scopeflow.losses.losses_impl import *  # noqa: F403

__all__ = list(losses_impl.__all__)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
