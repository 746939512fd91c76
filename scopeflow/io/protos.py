"""TensorFlow's protobuf messages (the subset in ``tensorflow.proto``) as Python classes.

The descriptors live in a private pool, so these classes never clash with real
TensorFlow's when both are imported in one process; the bytes are identical because the
field numbers are TensorFlow's.

>>> from scopeflow.io import protos
>>> header = protos.BundleHeaderProto(num_shards=1, version=protos.VersionDef(producer=1))
>>> header.SerializeToString().hex()
'08011a020801'
>>> config = protos.ConfigProto(allow_soft_placement=True)
>>> config.gpu_options.allow_growth = True
>>> config.SerializeToString().hex()
'320220013801'
"""

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory, wrappers_pb2

from scopeflow.io._descriptor import SERIALIZED

_POOL = descriptor_pool.DescriptorPool()
# tensorflow.proto imports google/protobuf/any.proto (CollectionDef.AnyList).
_any_file = descriptor_pb2.FileDescriptorProto()
any_pb2.DESCRIPTOR.CopyToProto(_any_file)
_POOL.Add(_any_file)
# ... and google/protobuf/wrappers.proto (TrackableObjectGraph's has_checkpoint_values).
_wrappers_file = descriptor_pb2.FileDescriptorProto()
wrappers_pb2.DESCRIPTOR.CopyToProto(_wrappers_file)
_POOL.Add(_wrappers_file)
_POOL.Add(descriptor_pb2.FileDescriptorProto.FromString(SERIALIZED))

if hasattr(message_factory, "GetMessageClass"):
    _message_class = message_factory.GetMessageClass
else:  # protobuf < 4.22
    _factory = message_factory.MessageFactory(_POOL)
    _message_class = _factory.GetPrototype


def _get(name):
    return _message_class(_POOL.FindMessageTypeByName("tensorflow." + name))


TensorShapeProto = _get("TensorShapeProto")
TensorProto = _get("TensorProto")
AttrValue = _get("AttrValue")
NameAttrList = _get("NameAttrList")
NodeDef = _get("NodeDef")
VersionDef = _get("VersionDef")
GraphDef = _get("GraphDef")
TensorSliceProto = _get("TensorSliceProto")
BundleHeaderProto = _get("BundleHeaderProto")
BundleEntryProto = _get("BundleEntryProto")
CheckpointState = _get("CheckpointState")
SaverDef = _get("SaverDef")
SaveSliceInfoDef = _get("SaveSliceInfoDef")
VariableDef = _get("VariableDef")
CollectionDef = _get("CollectionDef")
MetaGraphDef = _get("MetaGraphDef")
TensorInfo = _get("TensorInfo")
SignatureDef = _get("SignatureDef")
AssetFileDef = _get("AssetFileDef")
SavedModel = _get("SavedModel")
Any = _message_class(_POOL.FindMessageTypeByName("google.protobuf.Any"))
POOL = _POOL  # for text_format's expanded Any ([type.googleapis.com/tensorflow.X] {...})
HistogramProto = _get("HistogramProto")
SummaryMetadata = _get("SummaryMetadata")
SummaryDescription = _get("SummaryDescription")
Summary = _get("Summary")
LogMessage = _get("LogMessage")
SessionLog = _get("SessionLog")
TaggedRunMetadata = _get("TaggedRunMetadata")
SourceMetadata = _get("SourceMetadata")
Event = _get("Event")

# Session configuration (config.proto, rewriter_config.proto and what they reference).
# TF1 exports ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunOptions and
# RunMetadata as ``tf.X``; the rest TF1 code imports from ``tensorflow.core.*_pb2`` modules.
StepStats = _get("StepStats")
CostGraphDef = _get("CostGraphDef")
ClusterDef = _get("ClusterDef")
JobDef = _get("JobDef")
DebugOptions = _get("DebugOptions")
DebugTensorWatch = _get("DebugTensorWatch")
RPCOptions = _get("RPCOptions")
CoordinationServiceConfig = _get("CoordinationServiceConfig")
VerifierConfig = _get("VerifierConfig")
AutoParallelOptions = _get("AutoParallelOptions")
ScopedAllocatorOptions = _get("ScopedAllocatorOptions")
RewriterConfig = _get("RewriterConfig")
GPUOptions = _get("GPUOptions")
OptimizerOptions = _get("OptimizerOptions")
GraphOptions = _get("GraphOptions")
ThreadPoolOptionProto = _get("ThreadPoolOptionProto")
SessionMetadata = _get("SessionMetadata")
ConfigProto = _get("ConfigProto")
RunOptions = _get("RunOptions")
RunMetadata = _get("RunMetadata")
TensorConnection = _get("TensorConnection")
CallableOptions = _get("CallableOptions")

# tf.train.Example and friends (example.proto, feature.proto).
BytesList = _get("BytesList")
FloatList = _get("FloatList")
Int64List = _get("Int64List")
Feature = _get("Feature")
Features = _get("Features")
FeatureList = _get("FeatureList")
FeatureLists = _get("FeatureLists")
Example = _get("Example")
SequenceExample = _get("SequenceExample")

# The devices device_lib.list_local_devices describes (device_attributes.proto).
InterconnectLink = _get("InterconnectLink")
LocalLinks = _get("LocalLinks")
DeviceLocality = _get("DeviceLocality")
DeviceAttributes = _get("DeviceAttributes")

# The cluster a distributed TF1 program describes (cluster.proto, tensorflow_server.proto).
TaskDeviceFilters = _get("TaskDeviceFilters")
JobDeviceFilters = _get("JobDeviceFilters")
ClusterDeviceFilters = _get("ClusterDeviceFilters")
ServerDef = _get("ServerDef")

# Object-based checkpoints' dependency graph (trackable_object_graph.proto).
TrackableObjectGraph = _get("TrackableObjectGraph")
RegisteredSaver = _get("RegisteredSaver")
TFProfTensorProto = _get("TFProfTensorProto")
GraphNodeProto = _get("GraphNodeProto")
MultiGraphNodeProto = _get("MultiGraphNodeProto")
AdviceProto = _get("AdviceProto")
CodeDef = _get("CodeDef")
OpLogEntry = _get("OpLogEntry")
OpLogProto = _get("OpLogProto")

# DataType enum values by name ("DT_FLOAT" -> 1) and back.
DATA_TYPE = _POOL.FindEnumTypeByName("tensorflow.DataType")
