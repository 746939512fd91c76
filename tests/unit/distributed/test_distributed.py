"""scopeflow.distributed in one process: the world, errors, tensor fusion's packing and
the deadline (with a stand-in communicator), DistributedOptimizer, the broadcast hook and
the MNIST DataSet split. Multi-process runs: tests/integration/test_distributed.py."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.distributed as sfd
from scopeflow.datasets.mnist import DataSet
from scopeflow.distributed import _world


@pytest.fixture(autouse=True)
def _one_world():
    sfd.init()
    yield


def test_one_process_world():
    assert sfd.init() == 1 and sfd.is_initialized()
    assert (sfd.rank(), sfd.size(), sfd.local_rank(), sfd.local_size()) == (0, 1, 0, 1)
    assert sfd.is_root() and sfd.on_root("dir") == "dir"
    sfd.barrier()


def test_before_init_everything_says_so(monkeypatch):
    x = sfd.allreduce(tf.constant([1.0, 2.0]))  # building needs no world, running does
    monkeypatch.setattr(_world, "_WORLD", None)
    assert not sfd.is_initialized()
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match=r"rank\(\): scopeflow.distributed.init\(\) has not been called"):
        sfd.rank()
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="MpiAllreduce 'MpiAllreduce': scopeflow.distributed.init"):
        tf.Session().run(x)


def test_without_mpi4py_alone_is_one_worker_but_under_mpiexec_fails(monkeypatch):
    monkeypatch.setattr(_world, "_WORLD", None)
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py raises ImportError
    for var in _world._LAUNCHER_SIZE_VARS:
        monkeypatch.delenv(var, raising=False)
    assert sfd.init() == 1 and not sfd.mpi_enabled()
    assert tf.Session().run(sfd.allreduce(tf.constant([3.0]))).tolist() == [3.0]
    monkeypatch.setattr(_world, "_WORLD", None)
    monkeypatch.setenv("PMI_SIZE", "4")
    with pytest.raises(ImportError, match=r"one of 4 started by mpiexec, but mpi4py is not "
                                          r"installed: pip install 'scopeflow\[mpi\]'"):
        sfd.init()


def test_timeout_must_be_positive():
    with pytest.raises(ValueError, match="timeout must be positive, got 0"):
        sfd.init(timeout=0)


def test_dtype_and_shape_errors_name_the_op():
    with pytest.raises(TypeError, match="MpiAllreduce: a int32 tensor cannot be averaged"):
        sfd.allreduce(tf.constant([1, 2]))
    assert sfd.allreduce(tf.constant([1, 2]), average=False).dtype == tf.int32
    with pytest.raises(ValueError, match="MpiAllgather needs a tensor of rank >= 1"):
        sfd.allgather(tf.constant(1.0))
    with pytest.raises(TypeError, match="MpiBroadcast: string tensors cannot be broadcast"):
        sfd.broadcast(tf.constant("a"), 0)
    with pytest.raises(ValueError, match=r"root_rank must be in \[0, 1\), got 1"):
        sfd.broadcast(tf.constant(1.0), 1)
    with pytest.raises(ValueError, match="fusion_threshold must be >= 0"):
        sfd.grouped_allreduce([tf.constant(1.0)], fusion_threshold=-1)


def test_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3])
    assert sfd.allreduce(x).shape.as_list() == [None, 3]
    assert sfd.allgather(tf.zeros([2, 3])).shape.as_list() == [None, 3]
    assert sfd.broadcast(tf.zeros([2, 3]), 0).shape.as_list() == [2, 3]
    a, b = sfd.grouped_allreduce([tf.zeros([2]), tf.zeros([4, 1], tf.float64)])
    assert (a.shape.as_list(), b.shape.as_list(), b.dtype) == ([2], [4, 1], tf.float64)


def test_indexed_slices_are_gathered_not_densified():
    params = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    (g,) = tf.gradients(tf.reduce_sum(tf.gather(params, [1, 3, 1])), [params])
    reduced = sfd.allreduce(g)
    assert isinstance(reduced, tf.IndexedSlices)
    assert {op.type for op in tf.get_default_graph().get_operations()} >= {"MpiAllgather"}
    with tf.Session() as s:
        s.run(params.initializer)
        v = s.run(reduced)
    assert v.indices.tolist() == [1, 3, 1] and v.values.shape == (3, 3)


# ── tensor fusion and the deadline, with a stand-in communicator ────────────────────────
class _Request:
    def __init__(self, done):
        self.done = done

    def Test(self):  # noqa: N802 - mpi4py's name
        return self.done


class _FakeComm:
    """Two workers holding the same values: a sum doubles each buffer."""

    def __init__(self, done=True):
        self.sizes, self.done = [], done

    def Iallreduce(self, send, buf, op):  # noqa: N802 - mpi4py's name
        self.sizes.append((buf.dtype.name, buf.size))
        buf *= 2
        return _Request(self.done)


def _two_workers(comm):
    pytest.importorskip("mpi4py")
    world = _world.World(None, timeout=0.05)
    world.comm, world.size = comm, 2
    return world


def test_fusion_packs_dense_arrays_by_dtype_up_to_the_threshold():
    comm = _FakeComm()
    world = _two_workers(comm)
    arrays = [np.ones(2, np.float32), np.full((2, 1), 2, np.float32), np.arange(3.0),
              np.full(3, 3, np.float32), np.array([4, 5], np.int64), np.ones(1, np.float16)]
    out = world.allreduce(arrays, True, 16, "test")
    # float32: 8 + 8 bytes fit 16, then 12 alone; float64, int64 and float16 (in float32)
    assert comm.sizes == [("float32", 4), ("float32", 3), ("float64", 3), ("int64", 2),
                          ("float32", 1)]
    for a, b in zip(arrays, out):
        assert b.dtype == a.dtype and b.shape == a.shape and not np.shares_memory(a, b)
    np.testing.assert_array_equal(out[1], arrays[1])          # average of two equal
    assert out[4].tolist() == [4, 5]  # integers: floor division of the sum
    summed = world.allreduce(arrays, False, 0, "test")
    assert summed[4].tolist() == [8, 10] and len(comm.sizes) == 5 + 6  # threshold 0: one each


def test_a_collective_that_never_completes_raises_deadline_exceeded():
    world = _two_workers(_FakeComm(done=False))
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match=r"op 'x': rank 0 of 2 waited 0.05 s for the other workers"):
        world.allreduce([np.ones(2, np.float32)], True, 1 << 20, "op 'x'")
    assert world.failed  # the job is aborted at exit (MPI_Abort)


# ── DistributedOptimizer and the broadcast hook ────────────────────────────────────────
def test_distributed_optimizer_wraps_and_delegates():
    with pytest.raises(TypeError, match="wraps a tf.train.Optimizer, got int"):
        sfd.DistributedOptimizer(3)
    adam = tf.train.AdamOptimizer(0.1)
    opt = sfd.DistributedOptimizer(adam)
    assert opt.get_name() == "DistributedAdam"
    v = tf.Variable([1.0, 2.0], name="v")
    step = opt.minimize(tf.reduce_sum(v * v))
    assert opt.get_slot(v, "m") is adam.get_slot(v, "m") is not None
    assert opt.get_slot_names() == ["m", "v"] and opt.variables() == adam.variables()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step)
        np.testing.assert_allclose(s.run(v), [0.9, 1.9], rtol=1e-5)


def test_broadcast_hook_in_a_monitored_session(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    tf.train.get_or_create_global_step()
    hook = sfd.BroadcastGlobalVariablesHook(0)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=sfd.on_root(str(tmp_path)),
                                           hooks=[hook]) as sess:
        assert sess.run(v).tolist() == [1.0, 2.0]
    assert hook.bcast_op.type == "NoOp" and hook.bcast_op.name == "broadcast_global_variables"
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert "MpiBroadcast" in types


# ── the MNIST DataSet split ─────────────────────────────────────────────────────────────
def test_shard_data_set_splits_as_dataset_shard():
    images = np.arange(10 * 4, dtype=np.uint8).reshape(10, 2, 2, 1)
    full = DataSet(images, np.arange(10), seed=1)  # float32 in [0, 1], flattened
    parts = [sfd.shard_data_set(full, 3, i, seed=1) for i in range(3)]
    assert [p.labels.tolist() for p in parts] == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    np.testing.assert_array_equal(parts[1].images, full.images[1::3])  # not rescaled again
    assert parts[1].images.dtype == np.float32
    xs, ys = parts[0].next_batch(4)
    assert sorted(ys.tolist()) == [0, 3, 6, 9]
    mine = sfd.shard_data_set(full, seed=1)  # size() == 1: everything
    assert mine.num_examples == 10
    with pytest.raises(ValueError, match="num_shards must be greater than zero, got 0"):
        sfd.shard_data_set(full, 0, 0)
    with pytest.raises(ValueError, match=r"index must be in \[0, 3\), got 3"):
        sfd.shard_data_set(full, 3, 3)
    with pytest.raises(ValueError, match="cannot split 10 examples into 11"):
        sfd.shard_data_set(full, 11, 0)


def test_launcher_detection_split_batch_and_agreement(monkeypatch):
    for var in _world._LAUNCHER_SIZE_VARS:
        monkeypatch.delenv(var, raising=False)
    assert not sfd.launched_by_mpi()
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    assert sfd.launched_by_mpi()
    images, labels = np.arange(10).reshape(5, 2), np.arange(5)
    got_images, got_labels = sfd.split_batch(images, labels)  # one worker: everything
    assert got_images.tolist() == images.tolist() and got_labels.tolist() == [0, 1, 2, 3, 4]
    assert sfd.any_worker(True) and not sfd.any_worker(False)


def test_split_batch_and_agreement_with_two_workers(monkeypatch):
    world = _two_workers(_FakeComm())
    world.rank = 1
    monkeypatch.setattr(_world, "_WORLD", world)
    assert sfd.split_batch(np.arange(5)).tolist() == [3, 4]  # array_split: [0 1 2], [3 4]
    assert sfd.any_worker(True)  # the stand-in doubles the flag: 2 > 0
    assert not sfd.any_worker(False)
