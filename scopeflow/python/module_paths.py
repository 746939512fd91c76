"""The one table of TensorFlow's internal module paths that TF1 programs import, and the
scopeflow modules that hold their names (read by ``scopeflow/python/__init__.py``'s import
hook and by ``docs/gen_api.py``, which lists it in docs/API.md).

Each key is a TF module path; ``scopeflow.<path after "tensorflow.">`` is the module that
stands for it. Each value lists where its names come from, first match first:

- ``"scopeflow.a.b"``: every public name of that module (its ``__all__``, else every public
  name but foreign modules);
- ``"scopeflow.a.b: x y"``: those names only.

A path with no sources still imports (its names raise ``NotImplementedError`` naming the
TF path). A key's parent paths are packages without names of their own. Sources are
modules of the ``api`` layer or below (tests/unit/compat/test_tf_module_paths.py checks).
No implementation lives here: a name TF has and scopeflow lacks is added to scopeflow's own
module first, and then appears here by itself.
"""

from __future__ import annotations

_PROTOS = "scopeflow.io.protos: "
# Names TF's op modules share, where scopeflow keeps them in other modules.
_REVERSE = "scopeflow.ops.array.reverse_ops: reverse reverse_sequence reverse_v2"
_WHERE = "scopeflow.ops.math.reduction_ops: where where_v2"
_SEGMENTS = ("scopeflow.ops.math.segment_ops: segment_sum sparse_segment_mean "
             "sparse_segment_sqrt_n sparse_segment_sum")
_CONV_POOL = ("scopeflow.api.nn: avg_pool bias_add conv2d conv2d_backprop_filter "
              "conv2d_backprop_input depthwise_conv2d_native "
              "depthwise_conv2d_native_backprop_filter depthwise_conv2d_native_backprop_input "
              "max_pool")
_PARTITION = "scopeflow.ops.array.stitch_ops: dynamic_partition dynamic_stitch"

MODULE_PATHS: dict[str, tuple[str, ...]] = {
    # ── tensorflow.python.framework ─────────────────────────────────────────────────────
    "tensorflow.python.framework.ops": (
        "scopeflow.framework.graph",
        "scopeflow.autodiff.gradients: RegisterGradient NotDifferentiable no_gradient "
        "IndexedSlices IndexedSlicesValue",
        "scopeflow.runtime.session: get_default_session",
        "scopeflow.framework.modes: enable_eager_execution disable_eager_execution"),
    "tensorflow.python.framework.dtypes": ("scopeflow.framework.dtypes",),
    "tensorflow.python.framework.tensor_shape": ("scopeflow.framework.tensor_shape",),
    "tensorflow.python.framework.constant_op": ("scopeflow.ops.constant_op",),
    "tensorflow.python.framework.tensor_util": ("scopeflow.framework.tensor_util",),
    "tensorflow.python.framework.graph_util": ("scopeflow.framework.graph_util",),
    "tensorflow.python.framework.graph_io": (
        "scopeflow.train.basic_session_run_hooks: write_graph",),
    "tensorflow.python.framework.importer": ("scopeflow.framework.graph_import",),
    "tensorflow.python.framework.meta_graph": ("scopeflow.framework.meta_graph",),
    "tensorflow.python.framework.random_seed": ("scopeflow.framework.random_seed",),
    "tensorflow.python.framework.errors": ("scopeflow.framework.errors",),
    "tensorflow.python.framework.errors_impl": ("scopeflow.framework.errors",),
    "tensorflow.python.framework.sparse_tensor": ("scopeflow.framework.sparse_tensor",),
    "tensorflow.python.framework.tensor_spec": ("scopeflow.framework.type_spec: TensorSpec",),
    "tensorflow.python.framework.type_spec": (
        "scopeflow.framework.type_spec: TypeSpec BatchableTypeSpec type_spec_from_value "
        "register_type_spec_from_value_converter",),
    "tensorflow.python.framework.indexed_slices": (
        "scopeflow.autodiff.gradients: IndexedSlices IndexedSlicesValue",),
    # ── tensorflow.python.ops ───────────────────────────────────────────────────────────
    "tensorflow.python.ops.array_ops": (
        "scopeflow.ops.array_ops", _REVERSE, _WHERE, "scopeflow.ops.math.segment_ops: unique",
        "scopeflow.ops.sparse.sparse_ops: sparse_placeholder",
        "scopeflow.ops.logging.check_ops: check_numerics"),
    "tensorflow.python.ops.gen_array_ops": (
        "scopeflow.ops.array_ops", _REVERSE, "scopeflow.ops.math.segment_ops: unique",
        "scopeflow.ops.math.reduction_ops: where",
        "scopeflow.ops.logging.check_ops: check_numerics"),
    "tensorflow.python.ops.math_ops": (
        "scopeflow.ops.math_ops", _SEGMENTS, "scopeflow.ops.nn.nn_activation_ops: softplus"),
    "tensorflow.python.ops.gen_math_ops": ("scopeflow.ops.math_ops", _SEGMENTS),
    "tensorflow.python.ops.nn_ops": (
        "scopeflow.ops.nn_ops", _CONV_POOL + " avg_pool2d max_pool2d conv2d_transpose "
        "conv3d_transpose"),
    "tensorflow.python.ops.gen_nn_ops": ("scopeflow.ops.nn_ops", _CONV_POOL),
    "tensorflow.python.ops.nn": ("scopeflow.api.nn",),
    "tensorflow.python.ops.nn_impl": (
        "scopeflow.ops.nn.nn_composites",
        "scopeflow.api.nn: depthwise_conv2d fused_batch_norm nce_loss sampled_softmax_loss "
        "separable_conv2d"),
    "tensorflow.python.ops.init_ops": ("scopeflow.ops.state.init_ops",),
    "tensorflow.python.ops.variable_scope": ("scopeflow.state.variable_scope",),
    "tensorflow.python.ops.variables": (
        "scopeflow.state.variables", "scopeflow.state.partitioning: PartitionedVariable"),
    "tensorflow.python.ops.partitioned_variables": (
        "scopeflow.state.partitioned_variables", "scopeflow.state.partitioning"),
    "tensorflow.python.ops.state_ops": (
        "scopeflow.ops.state.state_ops",
        "scopeflow.ops.state.training_ops: scatter_add scatter_sub scatter_update",
        "scopeflow.ops.data_flow.queue_ops: count_up_to"),
    "tensorflow.python.ops.gen_state_ops": (
        "scopeflow.ops.state.state_ops",
        "scopeflow.ops.state.training_ops: scatter_add scatter_sub scatter_update",
        "scopeflow.ops.data_flow.queue_ops: count_up_to"),
    "tensorflow.python.ops.random_ops": ("scopeflow.ops.random.random_ops",),
    "tensorflow.python.ops.gen_random_ops": ("scopeflow.ops.random.random_ops",),
    "tensorflow.python.ops.control_flow_ops": (
        "scopeflow.ops.control_flow.control_flow_ops",
        "scopeflow.ops.control_flow.cond_ops: cond case",
        "scopeflow.ops.control_flow.while_ops: while_loop",
        "scopeflow.ops.logging.logging_ops: Assert"),
    "tensorflow.python.ops.gen_control_flow_ops": (
        "scopeflow.ops.control_flow.control_flow_ops: no_op",),
    "tensorflow.python.ops.tensor_array_ops": ("scopeflow.ops.control_flow.tensor_array_ops",),
    "tensorflow.python.ops.functional_ops": ("scopeflow.ops.control_flow.functional_ops",),
    "tensorflow.python.ops.data_flow_ops": ("scopeflow.ops.data_flow.queue_ops", _PARTITION),
    "tensorflow.python.ops.gen_data_flow_ops": (
        "scopeflow.ops.data_flow.queue_ops", _PARTITION),
    "tensorflow.python.ops.clip_ops": (
        "scopeflow.ops.math.clip_ops", "scopeflow.ops.math.elementwise_ops: clip_by_value"),
    "tensorflow.python.ops.embedding_ops": (
        "scopeflow.ops.nn.embedding_ops: embedding_lookup",
        "scopeflow.ops.sparse.sparse_ops: embedding_lookup_sparse"),
    "tensorflow.python.ops.logging_ops": ("scopeflow.ops.logging.logging_ops",),
    "tensorflow.python.ops.gen_logging_ops": ("scopeflow.ops.logging.logging_ops",),
    "tensorflow.python.ops.check_ops": ("scopeflow.ops.logging.check_ops",),
    "tensorflow.python.ops.sparse_ops": (
        "scopeflow.ops.sparse.sparse_ops", "scopeflow.ops.nn.embedding_ops: sparse_to_dense"),
    "tensorflow.python.ops.image_ops": ("scopeflow.api.image",),
    "tensorflow.python.ops.io_ops": (
        "scopeflow.ops.io.io_ops", "scopeflow.ops.io.reader_ops"),
    "tensorflow.python.ops.gen_io_ops": ("scopeflow.ops.io.io_ops", "scopeflow.ops.io.reader_ops"),
    "tensorflow.python.ops.parsing_ops": ("scopeflow.ops.io.parsing_ops",),
    "tensorflow.python.ops.gradients": ("scopeflow.autodiff.gradients",),
    "tensorflow.python.ops.gradients_impl": ("scopeflow.autodiff.gradients",),
    "tensorflow.python.ops.rnn": ("scopeflow.rnn.rnn",),
    "tensorflow.python.ops.rnn_cell": ("scopeflow.rnn.rnn_cell",),
    "tensorflow.python.ops.rnn_cell_impl": ("scopeflow.rnn.rnn_cell",),
    "tensorflow.python.ops.losses.losses": ("scopeflow.losses",),
    "tensorflow.python.ops.metrics": ("scopeflow.metrics",),
    "tensorflow.python.ops.metrics_impl": ("scopeflow.metrics",),
    # ── tensorflow.python.layers ────────────────────────────────────────────────────────
    "tensorflow.python.layers.layers": ("scopeflow.layers",),
    "tensorflow.python.layers.base": ("scopeflow.layers.base",),
    "tensorflow.python.layers.core": ("scopeflow.layers.core",),
    "tensorflow.python.layers.convolutional": ("scopeflow.layers.convolutional",),
    "tensorflow.python.layers.pooling": ("scopeflow.layers.pooling",),
    "tensorflow.python.layers.normalization": ("scopeflow.layers.normalization",),
    # ── tensorflow.python.training ──────────────────────────────────────────────────────
    "tensorflow.python.training.training": ("scopeflow.train",),
    "tensorflow.python.training.saver": (
        "scopeflow.train.saver", "scopeflow.train.meta_graph_import: import_meta_graph",
        "scopeflow.train.checkpoint_management: checkpoint_exists "
        "generate_checkpoint_state_proto get_checkpoint_mtimes get_checkpoint_state "
        "latest_checkpoint remove_checkpoint update_checkpoint_state"),
    "tensorflow.python.training.optimizer": ("scopeflow.train.optimizer",),
    "tensorflow.python.training.gradient_descent": (
        "scopeflow.train.optimizers: GradientDescentOptimizer",),
    "tensorflow.python.training.momentum": ("scopeflow.train.optimizers: MomentumOptimizer",),
    "tensorflow.python.training.adam": ("scopeflow.train.optimizers: AdamOptimizer",),
    "tensorflow.python.training.adagrad": ("scopeflow.train.optimizers: AdagradOptimizer",),
    "tensorflow.python.training.adadelta": ("scopeflow.train.optimizers: AdadeltaOptimizer",),
    "tensorflow.python.training.rmsprop": ("scopeflow.train.optimizers: RMSPropOptimizer",),
    "tensorflow.python.training.ftrl": ("scopeflow.train.optimizers: FtrlOptimizer",),
    "tensorflow.python.training.training_util": (
        "scopeflow.train.training_util", "scopeflow.train.basic_session_run_hooks: write_graph"),
    "tensorflow.python.training.moving_averages": ("scopeflow.train.moving_averages",),
    "tensorflow.python.training.learning_rate_decay": ("scopeflow.train.learning_rate_decay",),
    "tensorflow.python.training.session_run_hook": ("scopeflow.train.session_run_hook",),
    "tensorflow.python.training.basic_session_run_hooks": (
        "scopeflow.train.basic_session_run_hooks", "scopeflow.train.session_run_hook: "
        "SessionRunArgs", _PROTOS + "SessionLog Summary"),
    "tensorflow.python.training.monitored_session": ("scopeflow.train.monitored_session",),
    "tensorflow.python.training.session_manager": ("scopeflow.train.session_manager",),
    "tensorflow.python.training.queue_runner": ("scopeflow.train.queue_runner",),
    "tensorflow.python.training.queue_runner_impl": ("scopeflow.train.queue_runner",),
    "tensorflow.python.training.coordinator": ("scopeflow.train.coordinator",),
    "tensorflow.python.training.input": ("scopeflow.train.input",),
    "tensorflow.python.training.checkpoint_utils": ("scopeflow.train.checkpoint_utils",),
    "tensorflow.python.training.checkpoint_management": (
        "scopeflow.train.checkpoint_management",),
    "tensorflow.python.training.checkpoint_state_pb2": (_PROTOS + "CheckpointState",),
    # ── tensorflow.python.summary, client, platform, util, tools, lib ───────────────────
    "tensorflow.python.summary.summary": ("scopeflow.summary",),
    "tensorflow.python.summary.writer.writer": ("scopeflow.summary.writer",),
    "tensorflow.python.summary.summary_iterator": (
        "scopeflow.summary.reader: summary_iterator",),
    "tensorflow.python.client.session": ("scopeflow.runtime.session",),
    "tensorflow.python.client.timeline": ("scopeflow.client.timeline",),
    "tensorflow.python.client.device_lib": ("scopeflow.client.device_lib",),
    "tensorflow.python.platform.gfile": ("scopeflow.platform.gfile",),
    "tensorflow.python.platform.tf_logging": ("scopeflow.platform.tf_logging",),
    "tensorflow.python.platform.app": ("scopeflow.platform.app",),
    "tensorflow.python.platform.flags": ("scopeflow.platform.flags",),
    "tensorflow.python.platform.test": ("scopeflow.api.test",),
    "tensorflow.python.util.nest": ("scopeflow.framework.nest",),
    "tensorflow.python.util.compat": ("scopeflow.compat",),
    # Programs set deprecation._PRINT_DEPRECATION_WARNINGS = False: it only has to import.
    "tensorflow.python.util.deprecation": (),
    # TF 1.x's checkpoint reader (`pywrap_tensorflow.NewCheckpointReader(path)`).
    "tensorflow.python.pywrap_tensorflow": (
        "scopeflow.train.checkpoint_utils: NewCheckpointReader CheckpointReader",),
    "tensorflow.python.lib.io.tf_record": ("scopeflow.platform.python_io",),
    "tensorflow.python.tools.inspect_checkpoint": ("scopeflow.tools.inspect_checkpoint",),
    "tensorflow.python.tools.freeze_graph": ("scopeflow.tools.freeze_graph",),
    "tensorflow.python.tools.optimize_for_inference_lib": (
        "scopeflow.tools.optimize_for_inference_lib",),
    "tensorflow.python.tools.strip_unused_lib": (
        "scopeflow.tools.optimize_for_inference_lib: strip_unused",),
    # ── tensorflow.core: TF's protocol buffers (scopeflow/io/protos.py) ─────────────────
    "tensorflow.core.framework.graph_pb2": (_PROTOS + "GraphDef",),
    "tensorflow.core.framework.node_def_pb2": (_PROTOS + "NodeDef",),
    "tensorflow.core.framework.attr_value_pb2": (_PROTOS + "AttrValue NameAttrList",),
    "tensorflow.core.framework.tensor_pb2": (_PROTOS + "TensorProto",),
    "tensorflow.core.framework.tensor_shape_pb2": (_PROTOS + "TensorShapeProto",),
    "tensorflow.core.framework.tensor_slice_pb2": (_PROTOS + "TensorSliceProto",),
    "tensorflow.core.framework.versions_pb2": (_PROTOS + "VersionDef",),
    "tensorflow.core.framework.variable_pb2": (_PROTOS + "VariableDef SaveSliceInfoDef",),
    "tensorflow.core.framework.summary_pb2": (
        _PROTOS + "Summary SummaryMetadata HistogramProto",),
    "tensorflow.core.framework.step_stats_pb2": (_PROTOS + "StepStats",),
    "tensorflow.core.framework.device_attributes_pb2": (
        _PROTOS + "DeviceAttributes DeviceLocality LocalLinks InterconnectLink",),
    "tensorflow.core.framework.cost_graph_pb2": (_PROTOS + "CostGraphDef",),
    "tensorflow.core.protobuf.config_pb2": (
        _PROTOS + "ConfigProto GPUOptions GraphOptions OptimizerOptions ThreadPoolOptionProto "
        "RPCOptions SessionMetadata RunOptions RunMetadata TensorConnection CallableOptions",),
    "tensorflow.core.protobuf.saver_pb2": (_PROTOS + "SaverDef",),
    "tensorflow.core.protobuf.meta_graph_pb2": (_PROTOS + "MetaGraphDef CollectionDef",),
    "tensorflow.core.protobuf.rewriter_config_pb2": (
        _PROTOS + "RewriterConfig AutoParallelOptions ScopedAllocatorOptions",),
    "tensorflow.core.protobuf.cluster_pb2": (_PROTOS + "ClusterDef JobDef",),
    "tensorflow.core.protobuf.debug_pb2": (_PROTOS + "DebugOptions DebugTensorWatch",),
    "tensorflow.core.protobuf.tensor_bundle_pb2": (
        _PROTOS + "BundleHeaderProto BundleEntryProto",),
    "tensorflow.core.util.event_pb2": (
        _PROTOS + "Event LogMessage SessionLog TaggedRunMetadata SourceMetadata",),
    "tensorflow.core.example.example_pb2": (_PROTOS + "Example SequenceExample",),
    "tensorflow.core.example.feature_pb2": (
        _PROTOS + "Feature Features FeatureList FeatureLists BytesList FloatList Int64List",),
    # ── tensorflow.contrib: TF 1.x's paths onto scopeflow/contrib and the core API ──────
    "tensorflow.contrib.slim": (
        "scopeflow.contrib.layers", "scopeflow.contrib.arg_scope", "scopeflow.contrib: losses",
        "scopeflow.train.training_util: get_global_step "
        "get_or_create_global_step create_global_step assert_global_step",
        "scopeflow.state.variables: model_variables"),
    "tensorflow.contrib.framework": (
        "scopeflow.contrib.layers: model_variable", "scopeflow.contrib.arg_scope",
        "scopeflow.train.training_util: get_global_step get_or_create_global_step "
        "create_global_step assert_global_step",
        "scopeflow.train.checkpoint_utils: init_from_checkpoint list_variables "
        "load_checkpoint load_variable",
        "scopeflow.state.variables: model_variables"),
    "tensorflow.contrib.framework.nest": ("scopeflow.framework.nest",),
    "tensorflow.contrib.framework.python.ops.arg_scope": ("scopeflow.contrib.arg_scope",),
    "tensorflow.contrib.layers.python.layers": ("scopeflow.contrib.layers",),
    "tensorflow.contrib.layers.python.layers.layers": ("scopeflow.contrib.layers",),
    "tensorflow.contrib.layers.python.layers.initializers": (
        "scopeflow.contrib.layers: xavier_initializer xavier_initializer_conv2d "
        "variance_scaling_initializer",),
    "tensorflow.contrib.layers.python.layers.regularizers": (
        "scopeflow.contrib.layers: l1_regularizer l2_regularizer sum_regularizer "
        "apply_regularization",),
    "tensorflow.contrib.rnn.python.ops.core_rnn_cell": ("scopeflow.contrib.rnn",),
    "tensorflow.contrib.rnn.python.ops.rnn_cell": ("scopeflow.contrib.rnn",),
    "tensorflow.contrib.seq2seq.python.ops.attention_wrapper": (
        "scopeflow.contrib.seq2seq.attention_wrapper",),
    "tensorflow.contrib.seq2seq.python.ops.basic_decoder": (
        "scopeflow.contrib.seq2seq.basic_decoder",),
    "tensorflow.contrib.seq2seq.python.ops.beam_search_decoder": (
        "scopeflow.contrib.seq2seq.beam_search_decoder",),
    "tensorflow.contrib.seq2seq.python.ops.beam_search_ops": (
        "scopeflow.contrib.seq2seq.beam_search_ops",),
    "tensorflow.contrib.seq2seq.python.ops.decoder": (
        "scopeflow.contrib.seq2seq.decoder",),
    "tensorflow.contrib.seq2seq.python.ops.helper": (
        "scopeflow.contrib.seq2seq.helper",),
    "tensorflow.contrib.seq2seq.python.ops.loss": (
        "scopeflow.contrib.seq2seq.loss",),
    "tensorflow.contrib.learn": (),
    "tensorflow.contrib.learn.datasets": (),
    "tensorflow.contrib.learn.datasets.mnist": ("scopeflow.datasets.mnist",),
    "tensorflow.contrib.learn.datasets.base": (
        "scopeflow.datasets.mnist: Datasets maybe_download",),
    "tensorflow.contrib.learn.python.learn.datasets.mnist": ("scopeflow.datasets.mnist",),
    "tensorflow.contrib.learn.python.learn.datasets.base": (
        "scopeflow.datasets.mnist: Datasets maybe_download",),
    # ── tensorflow.python.keras (tf.keras's modules in TF 1.x) ─────────────────────────
    "tensorflow.python.keras": ("scopeflow.keras",),
    "tensorflow.python.keras.backend": ("scopeflow.keras.backend",),
    "tensorflow.python.keras.layers": ("scopeflow.keras.layers",),
    "tensorflow.python.keras.models": ("scopeflow.keras.models",),
    "tensorflow.python.keras.optimizers": ("scopeflow.keras.optimizers",),
    "tensorflow.python.keras.callbacks": ("scopeflow.keras.callbacks",),
    "tensorflow.python.keras.losses": ("scopeflow.keras.losses",),
    "tensorflow.python.keras.metrics": ("scopeflow.keras.metrics",),
    "tensorflow.python.keras.initializers": ("scopeflow.keras.initializers",),
    "tensorflow.python.keras.regularizers": ("scopeflow.keras.regularizers",),
    "tensorflow.python.keras.constraints": ("scopeflow.keras.constraints",),
    "tensorflow.python.keras.activations": ("scopeflow.keras.activations",),
    "tensorflow.python.keras.utils": ("scopeflow.keras.utils",),
    "tensorflow.python.keras.engine": (),
    "tensorflow.python.keras.engine.base_layer": ("scopeflow.keras.engine.base_layer",),
    "tensorflow.python.keras.engine.input_layer": ("scopeflow.keras.engine.input_layer",),
    "tensorflow.python.keras.engine.training": ("scopeflow.keras.engine.training",),
    "tensorflow.python.keras.engine.sequential": ("scopeflow.keras.engine.sequential",),
    # ── tensorflow.python.estimator (TF 1.x; tensorflow_estimator's modules since 1.14) ──
    "tensorflow.python.estimator": (),
    "tensorflow.python.estimator.estimator": ("scopeflow.estimator.estimator",),
    "tensorflow.python.estimator.model_fn": (
        "scopeflow.estimator.model_fn: EstimatorSpec ModeKeys",),
    "tensorflow.python.estimator.run_config": ("scopeflow.estimator.run_config: RunConfig",),
    "tensorflow.python.estimator.training": (
        "scopeflow.estimator.training: EvalSpec TrainSpec train_and_evaluate",),
    "tensorflow.python.estimator.exporter": (
        "scopeflow.estimator.training: BestExporter Exporter FinalExporter LatestExporter",),
    "tensorflow.python.estimator.export": (),
    "tensorflow.python.estimator.export.export": ("scopeflow.estimator.export",),
    "tensorflow.python.estimator.export.export_output": (
        "scopeflow.estimator.export_output: ClassificationOutput ExportOutput PredictOutput "
        "RegressionOutput",),
    "tensorflow.python.estimator.inputs": ("scopeflow.estimator.inputs",),
    "tensorflow.python.estimator.inputs.numpy_io": (
        "scopeflow.estimator.inputs: numpy_input_fn",),
    "tensorflow.python.estimator.inputs.pandas_io": (
        "scopeflow.estimator.inputs: pandas_input_fn",),
    "tensorflow.python.estimator.canned": (),
    "tensorflow.python.estimator.canned.dnn": (
        "scopeflow.estimator.canned.dnn: DNNClassifier DNNRegressor",),
    "tensorflow.python.estimator.canned.linear": (
        "scopeflow.estimator.canned.linear: LinearClassifier LinearRegressor",),
    "tensorflow.python.estimator.canned.dnn_linear_combined": (
        "scopeflow.estimator.canned.dnn_linear_combined: DNNLinearCombinedClassifier "
        "DNNLinearCombinedRegressor",),
}

# Why a mapped path's names are missing, where the reason is known (the error says it).
NOTES = {
}
