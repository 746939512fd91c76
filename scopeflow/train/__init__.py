"""``tf.train``: optimizers, ``global_step``, learning-rate schedules."""

from __future__ import annotations

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.io.protos import (
    BytesList,
    ClusterDef,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    JobDef,
    SaverDef,
    SequenceExample,
    ServerDef,
)
from scopeflow.ops.state.sdca_ops import sdca_shrink_l1
from scopeflow.ops.strings.sdca_fprint_ops import sdca_fprint
from scopeflow.summary.reader import summary_iterator
from scopeflow.train import queue_runner
from scopeflow.train.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
    write_graph,
)
from scopeflow.train.checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from scopeflow.train.checkpoint_manager import CheckpointManager
from scopeflow.train.checkpoint_utils import (
    NewCheckpointReader,
    checkpoints_iterator,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from scopeflow.train.cluster_spec import ClusterSpec
from scopeflow.train.coordinator import Coordinator, LooperThread
from scopeflow.train.device_setter import replica_device_setter
from scopeflow.train.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    match_filenames_once,
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from scopeflow.train.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from scopeflow.train.meta_graph_import import import_meta_graph
from scopeflow.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from scopeflow.train.moving_averages import ExponentialMovingAverage
from scopeflow.train.object_checkpoint import Checkpoint, CheckpointOptions
from scopeflow.train.optimizer import Optimizer
from scopeflow.train.optimizers import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    RMSPropOptimizer,
)
from scopeflow.train.proximal import (
    AdagradDAOptimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
)
from scopeflow.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from scopeflow.train.saver import (
    BaseSaverBuilder,
    BulkSaverBuilder,
    RestoreReport,
    Saver,
    export_meta_graph,
)
from scopeflow.train.session_manager import SessionManager
from scopeflow.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from scopeflow.train.supervisor import Supervisor, basic_train_loop
from scopeflow.train.sync_replicas_optimizer import SyncReplicasOptimizer
from scopeflow.train.training_state import add_training_state
from scopeflow.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from scopeflow.train.vocab_remap import VocabInfo
from scopeflow.train.warm_start import warm_start

__all__ = [
    "summary_iterator",
    "Example", "SequenceExample", "Features", "Feature", "FeatureList", "FeatureLists",
    "BytesList", "FloatList", "Int64List",
    "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
    "AdagradOptimizer", "RMSPropOptimizer", "AdadeltaOptimizer", "FtrlOptimizer",
    "get_global_step", "create_global_step", "get_or_create_global_step",
    "assert_global_step", "global_step", "exponential_decay", "piecewise_constant",
    "polynomial_decay", "cosine_decay", "inverse_time_decay", "natural_exp_decay",
    "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists", "update_checkpoint_state",
    "generate_checkpoint_state_proto", "get_checkpoint_mtimes", "remove_checkpoint",
    "load_checkpoint", "NewCheckpointReader", "list_variables", "load_variable",
    "init_from_checkpoint",
    "Saver", "BaseSaverBuilder", "BulkSaverBuilder", "RestoreReport", "export_meta_graph",
    "import_meta_graph", "add_training_state",
    "queue_runner", "Coordinator", "LooperThread", "QueueRunner", "add_queue_runner",
    "start_queue_runners", "batch", "batch_join", "input_producer", "limit_epochs",
    "match_filenames_once", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
    "maybe_shuffle_batch_join", "range_input_producer", "shuffle_batch", "shuffle_batch_join",
    "slice_input_producer", "string_input_producer",
    "MonitoredTrainingSession", "MonitoredSession", "SingularMonitoredSession", "Scaffold",
    "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator", "SessionManager",
    "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
    "StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener", "SummarySaverHook",
    "StepCounterHook", "LoggingTensorHook", "NanTensorHook", "NanLossDuringTrainingError",
    "FinalOpsHook", "FeedFnHook", "GlobalStepWaiterHook", "SecondOrStepTimer",
    "ProfilerHook", "write_graph", "ExponentialMovingAverage",
    "ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer", "AdagradDAOptimizer",
    "cosine_decay_restarts", "linear_cosine_decay", "noisy_linear_cosine_decay",
    "piecewise_constant_decay", "checkpoints_iterator", "SaverDef", "Supervisor",
    "basic_train_loop", "warm_start",
    "Checkpoint", "CheckpointManager", "CheckpointOptions",
    "ClusterSpec", "ClusterDef", "JobDef", "ServerDef", "replica_device_setter",
    "sdca_fprint", "sdca_shrink_l1", "VocabInfo", "SyncReplicasOptimizer",
]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
