"""``tf.config.optimizer``: Grappler's options and XLA's JIT switch.

scopeflow's plan passes always run (docs/plans.md) and there is no XLA; the options are
accepted, kept and read back as TF reports them, so programs that set them run unchanged.
"""

from scopeflow.api.config import _state
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["get_experimental_options", "get_jit", "set_experimental_options", "set_jit"]

_DEFAULTS = {"disable_model_pruning": False, "disable_meta_optimizer": False}


def get_jit() -> str:
    """``""`` (off), ``"autoclustering"`` (``set_jit(True)``) or ``"on"``."""
    return _state.SETTINGS["jit"]


def set_jit(enabled):
    if enabled is True:
        enabled = "autoclustering"
    elif enabled is False or enabled is None:
        enabled = ""
    if enabled not in ("", "autoclustering", "on"):
        raise ValueError(f"Invalid value for jit: {enabled!r}; expected a bool, "
                         "'autoclustering' or 'on'")
    _state.SETTINGS["jit"] = enabled


def get_experimental_options() -> dict:
    return {**_state.SETTINGS["optimizer_options"], **_DEFAULTS}


def set_experimental_options(options):
    _state.SETTINGS["optimizer_options"] = {
        **_state.SETTINGS["optimizer_options"],
        **{k: v for k, v in dict(options).items() if k not in _DEFAULTS}}


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
