"""``tf.profiler`` (TF1): model analysis of a graph's parameters and float operations.

``profile`` prints TF's tfprof report by name scope or op type and returns its proto;
``ProfileOptionBuilder`` builds the option dicts; ``write_op_log`` saves the op log that
TF's command-line profiler reads; ``advise`` runs TF's checkers.
"""

from scopeflow.io.protos import AdviceProto, GraphNodeProto, MultiGraphNodeProto, OpLogProto
from scopeflow.profiler.model_analyzer import Profiler, advise, profile
from scopeflow.profiler.option_builder import ProfileOptionBuilder
from scopeflow.profiler.tfprof_logger import write_op_log

__all__ = ["AdviceProto", "GraphNodeProto", "MultiGraphNodeProto", "OpLogProto",
           "ProfileOptionBuilder", "Profiler", "advise", "profile", "write_op_log"]
