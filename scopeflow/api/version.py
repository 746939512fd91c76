"""``tf.version``: which scopeflow this is, and the GraphDef versions it writes and reads.

``VERSION`` is scopeflow's own (``tf.__version__``); ``GRAPH_DEF_VERSION`` is the producer
version scopeflow writes into every GraphDef (TF 2.21's, so TF reads them as its own).
"""

import platform as _platform

from scopeflow._version import __version__ as VERSION
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.graph_def import GRAPH_DEF_VERSION

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
           "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]

GIT_VERSION = f"v{VERSION}"
# scopeflow is Python: the compiler that matters is the interpreter's.
COMPILER_VERSION = _platform.python_compiler()
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
