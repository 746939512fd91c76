"""``tf.config.threading``: the sizes of TF's thread pools (0: the runtime chooses).

scopeflow runs a graph's ops in one thread and its kernels use NumPy's (BLAS's) threads;
the values are kept, read back and frozen at initialization exactly as TF does them.
"""

from scopeflow.api.config import _state
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads"]


def get_inter_op_parallelism_threads() -> int:
    return _state.SETTINGS["inter_op_parallelism_threads"]


def set_inter_op_parallelism_threads(num_threads):
    _state.check_not_initialized("Inter op parallelism")
    _state.SETTINGS["inter_op_parallelism_threads"] = int(num_threads)


def get_intra_op_parallelism_threads() -> int:
    return _state.SETTINGS["intra_op_parallelism_threads"]


def set_intra_op_parallelism_threads(num_threads):
    _state.check_not_initialized("Intra op parallelism")
    _state.SETTINGS["intra_op_parallelism_threads"] = int(num_threads)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
