"""Session configs (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RewriterConfig,
RunOptions, RunMetadata) are real protobuf messages with TensorFlow's schema and bytes.

The expected bytes, exceptions, enum constants and schema in ``config_proto.json`` were made
by real TF 2.21 (``tests/fixtures/tf_config_proto/make_fixtures.py``); the ``tf``-marked
tests repeat the comparison live.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import pickle
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.io import protos
from scopeflow.io.protos import RewriterConfig

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_config_proto"
EXPECTED = json.loads((FIXTURES / "config_proto.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_config_proto_cases", FIXTURES / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load_cases()


@pytest.fixture(scope="module")
def ours():
    return cases.record(tf, RewriterConfig)


# ── against the bytes real TF wrote ─────────────────────────────────────────────────
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_serialized_bytes_equal_tensorflows(ours, name):
    assert ours["bytes"][name] == EXPECTED["bytes"][name]


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_tensorflows_bytes_parse_back_to_the_same_message(name):
    env = {"tf": tf, "RewriterConfig": RewriterConfig}
    exec(cases.CASES[name], env)  # noqa: S102 - our own snippets
    msg = env["msg"]
    parsed = type(msg).FromString(bytes.fromhex(EXPECTED["bytes"][name]))
    assert parsed == msg


def test_bad_arguments_raise_as_protobuf_does(ours):
    assert ours["errors"] == EXPECTED["errors"]
    assert ours["errors"]["unknown_field"] == "ValueError"


def test_enum_constants(ours):
    assert ours["constants"] == EXPECTED["constants"]


def test_schema_is_tensorflows(ours):
    # Every field's name, number, type, cardinality, message/enum type and deprecation, and
    # every enum's values, for all 45 message types reachable from the session configs.
    assert ours["schema"] == EXPECTED["schema"]


def test_traced_run_metadata_from_tensorflow_has_no_unknown_fields():
    # A FULL_TRACE run's RunMetadata (step_stats, cost_graph) from TF: dropping unknown
    # fields changes nothing, so StepStats/CostGraphDef know every field TF filled in.
    data = bytes.fromhex(EXPECTED["traced_run_metadata"])
    meta = tf.RunMetadata.FromString(data)
    meta.DiscardUnknownFields()
    assert meta.SerializeToString(deterministic=True) == data
    assert meta.step_stats.dev_stats[0].node_stats
    assert meta.HasField("cost_graph")


# ── TF1 idioms ──────────────────────────────────────────────────────────────────────
def test_exported_names_match_tf1():
    # tf.compat.v1 has these six at its root (TF 2.21); RewriterConfig is not at tf.X.
    for name in ("ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions",
                 "RunOptions", "RunMetadata"):
        assert getattr(tf, name) is getattr(protos, name)
        assert getattr(tf.compat.v1, name) is getattr(protos, name)
        assert getattr(tf, name).DESCRIPTOR.full_name == "tensorflow." + name
    assert not hasattr(tf, "RewriterConfig")


def test_common_idioms():
    config = tf.ConfigProto()
    assert not config.HasField("gpu_options")
    config.gpu_options.allow_growth = True
    assert config.HasField("gpu_options") and config.gpu_options.allow_growth

    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    assert config.allow_soft_placement and not config.log_device_placement

    config = tf.ConfigProto(gpu_options=tf.GPUOptions(per_process_gpu_memory_fraction=0.4))
    assert config.gpu_options.per_process_gpu_memory_fraction == pytest.approx(0.4)

    config = tf.ConfigProto(device_count={"GPU": 0})
    assert dict(config.device_count) == {"GPU": 0}

    config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    assert (config.intra_op_parallelism_threads, config.inter_op_parallelism_threads) == (1, 1)

    config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    config.graph_options.rewrite_options.constant_folding = RewriterConfig.OFF
    assert config.graph_options.optimizer_options.opt_level == -1
    assert config.graph_options.rewrite_options.constant_folding == 2

    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    assert options.trace_level == 3
    assert tf.RunOptions.TraceLevel.Name(options.trace_level) == "FULL_TRACE"

    meta = tf.RunMetadata()
    assert len(meta.partition_graphs) == 0
    meta.partition_graphs.add().CopyFrom(tf.GraphDef())
    assert len(meta.partition_graphs) == 1

    with pytest.raises(ValueError):
        tf.ConfigProto(no_such_field=1)


def test_copy_pickle_text_and_merge():
    from google.protobuf import text_format

    config = tf.ConfigProto(allow_soft_placement=True, device_count={"CPU": 2})
    config.gpu_options.allow_growth = True
    assert copy.deepcopy(config) == config
    assert pickle.loads(pickle.dumps(config)) == config
    assert text_format.Parse(text_format.MessageToString(config), tf.ConfigProto()) == config
    other = tf.ConfigProto(log_device_placement=True)
    other.MergeFrom(config)
    assert other.log_device_placement and other.allow_soft_placement


def test_session_takes_config_options_and_run_metadata():
    x = tf.constant(2.0) * 3.0
    config = tf.ConfigProto(allow_soft_placement=True)
    config.gpu_options.allow_growth = True
    with tf.Session(config=config) as sess:
        meta = tf.RunMetadata()
        out = sess.run(x, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                       run_metadata=meta)
    assert out == 6.0


# ── live against real TensorFlow ────────────────────────────────────────────────────
@pytest.mark.tf
def test_live_record_matches_tensorflow(tf1, ours):
    theirs = tf1(f"""
        import sys
        sys.path.insert(0, {str(FIXTURES)!r})
        from tensorflow.core.protobuf import rewriter_config_pb2
        from cases import record
        print(json.dumps(record(tf, rewriter_config_pb2.RewriterConfig)))
    """)
    assert ours["bytes"] == theirs["bytes"]
    assert ours["errors"] == theirs["errors"]
    assert ours["constants"] == theirs["constants"]
    assert ours["schema"] == theirs["schema"]
