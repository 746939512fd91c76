"""``tf.graph_util``: freezing and pruning GraphDefs (framework/graph_util.py) and
``import_graph_def``."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.framework.graph_import import import_graph_def
from scopeflow.framework.graph_util import (
    convert_variables_to_constants,
    extract_sub_graph,
    must_run_on_cpu,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def",
           "must_run_on_cpu", "remove_training_nodes", "tensor_shape_from_node_def_name"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
