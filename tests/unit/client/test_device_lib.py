"""device_lib.list_local_devices: TF's answer on a machine without GPUs, byte for byte but
the per-process incarnation."""

from __future__ import annotations

import importlib

import pytest

import scopeflow as tf
from scopeflow.client import device_lib

# What TF 2.21 serialized on a CPU-only machine, with its incarnation zeroed (so left out;
# the tail is xla_global_id = -1).
TF_CPU_ZERO_INCARNATION = ("0a0d2f6465766963653a4350553a3012034350552080808080012a00"
                           "40ffffffffffffffffff01")


def _zero_incarnation(d):
    d = type(d).FromString(d.SerializeToString())
    d.incarnation = 0
    return d


def test_one_cpu_with_tfs_fields():
    (cpu,) = device_lib.list_local_devices()
    assert (cpu.name, cpu.device_type, cpu.memory_limit, cpu.xla_global_id) == (
        "/device:CPU:0", "CPU", 268435456, -1)
    assert cpu.HasField("locality") and cpu.incarnation != 0
    zeroed = _zero_incarnation(cpu)
    assert zeroed.SerializeToString(deterministic=True).hex() == TF_CPU_ZERO_INCARNATION
    # One incarnation per process, as a device keeps its own while the process lives.
    assert device_lib.list_local_devices()[0].incarnation == cpu.incarnation


def test_the_gpu_counting_idiom_and_the_tf_paths():
    module = importlib.import_module("scopeflow.python.client.device_lib")
    devices = module.list_local_devices(tf.ConfigProto(device_count={"CPU": 1}))
    assert [d.name for d in devices if d.device_type == "GPU"] == []
    pb2 = importlib.import_module("scopeflow.core.framework.device_attributes_pb2")
    assert isinstance(devices[0], pb2.DeviceAttributes)
    with pytest.raises(TypeError, match="ConfigProto"):
        device_lib.list_local_devices({"CPU": 1})


def test_live_against_tf(tf1):
    got = tf1("""
        from tensorflow.python.client import device_lib
        d = device_lib.list_local_devices()
        d[0].incarnation = 0
        print(json.dumps([x.SerializeToString(deterministic=True).hex() for x in d]))
    """)
    assert got == [_zero_incarnation(d).SerializeToString(deterministic=True).hex()
                   for d in device_lib.list_local_devices()]
