"""``tf.data.experimental.snapshot``: the first complete pass over a dataset is written to a
directory; later passes (a repeat, another initialization, another program building the
same pipeline) read it back instead of computing the input again.

The iteration results are TF's: the writing pass yields the input's elements in order; a
reading pass yields each shard's elements (the shards sorted by id) in TF's default reader
order, an interleave of ``os.cpu_count()`` shards, one element at a time. Without
``shard_func`` element ``i`` goes to shard ``i % os.cpu_count()``, which reads back in the
input's order. A pass that stops early finalizes nothing, and the next pass writes again.

On-disk format (scopeflow's own, not TF's: TF names its run directory by the fingerprint
of the pipeline's GraphDef and compresses with Snappy, neither of which scopeflow has):
``<path>/<fingerprint>/`` holds ``snapshot.metadata`` (JSON: dtypes, shards, compression)
and one TFRecord file per shard, ``<shard id>.shard``, each element its components as
consecutive ``TensorProto`` records; ``compression="GZIP"`` gzips the shard files, and
``"AUTO"``/``"SNAPPY"``/``None`` store them uncompressed. The fingerprint hashes the element
structure, the pipeline's transformations (their op types) and the values it captured. A
run is written under a temporary name and renamed when complete. A custom ``reader_func``
(a function of a dataset of datasets, which scopeflow's datasets cannot be) is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_ops import Dataset, _Unary, _unique
from scopeflow.data.functions import TracedFunction
from scopeflow.data.pipeline import End, PyIterator
from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.io import protos, tfrecord
from scopeflow.io.tensor_proto import make_ndarray, make_tensor_proto

__all__ = ["snapshot"]

_METADATA = "snapshot.metadata"
_COMPRESSIONS = {"AUTO": "", "SNAPPY": "", "GZIP": "GZIP", "": "", None: ""}


def _fingerprint(dataset, env) -> str:
    """A hash of what makes the pipeline's elements: its nodes (types, traced functions'
    op types), its element structure and the values it captured."""
    h = hashlib.sha256(repr(dataset._structure).encode())
    stack, seen = [dataset], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        h.update(type(node).__name__.encode())
        for value in vars(node).values():
            if isinstance(value, Dataset):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in value if isinstance(v, Dataset))
            elif isinstance(value, TracedFunction):
                h.update(",".join(op.type for op in value.context.ops).encode())
    for t in dataset._captures():
        h.update(np.asarray(env[t]).tobytes() if np.asarray(env[t]).dtype != object
                 else repr(np.asarray(env[t]).tolist()).encode())
    return h.hexdigest()[:20]


class _Snapshot(_Unary):
    def __init__(self, input_dataset, path, compression, reader_func, shard_func):
        super().__init__(input_dataset)
        if reader_func is not None:
            raise NotImplementedError("snapshot: a custom `reader_func` takes a dataset of "
                                      "datasets, which scopeflow's datasets cannot hold")
        self._path = convert_to_tensor(path, dtype=dtypes.string, name="path")
        if compression not in _COMPRESSIONS:
            raise errors.InvalidArgumentError(None, None, f"Compression type {compression} "
                                              "is not supported.")
        self._compression = _COMPRESSIONS[compression]
        self._fn = None
        if shard_func is not None:
            self._fn = TracedFunction(shard_func, input_dataset._structure, "SnapshotDataset")
            out = self._fn.output_structure
            if not isinstance(out, st.Spec) or out.dtype not in (dtypes.int32, dtypes.int64) \
                    or out.shape.ndims not in (None, 0):
                raise TypeError("Invalid `shard_func`. `shard_func` must return `tf.int64` "
                                f"scalar tensor but its return type is {out}.")

    def _captures(self):
        extra = self._fn.captures if self._fn is not None else []
        return _unique(self._input._captures() + [self._path] + list(extra))

    def _iterator(self, state, env):
        path = np.asarray(env[self._path]).item()
        path = path.decode() if isinstance(path, bytes) else str(path)
        run_dir = os.path.join(path, _fingerprint(self._input, env))
        if os.path.exists(os.path.join(run_dir, _METADATA)):
            return _ReadIterator(run_dir, [s.dtype for s in st.flatten(self._structure)])
        shard = self._fn.caller(state, env) if self._fn is not None else None
        return _WriteIterator(self._input._make_iterator(state, env), run_dir, shard,
                              self._compression)


def _cycle() -> int:
    return os.cpu_count() or 1


class _WriteIterator(PyIterator):
    """Passes the input's elements through, writing each to its shard; on the input's end,
    writes the metadata and renames the run into place (finalized)."""

    def __init__(self, inner, run_dir, shard, compression):
        self.inner, self.run_dir, self.shard = inner, run_dir, shard
        self.compression = compression
        self.tmp = f"{run_dir}.tmp-{uuid.uuid4().hex}"
        self.writers: dict = {}
        self.index = 0
        self.done = False

    def _shard_of(self, element):
        if self.shard is None:
            return self.index % _cycle()
        (sid,) = self.shard(element)
        return int(sid)

    def next(self):
        if self.done:
            raise End
        try:
            element = self.inner.next()
        except End:
            self._finalize()
            raise
        sid = self._shard_of(element)
        writer = self.writers.get(sid)
        if writer is None:
            os.makedirs(self.tmp, exist_ok=True)
            writer = self.writers[sid] = tfrecord.TFRecordWriter(
                os.path.join(self.tmp, f"{sid:08d}.shard"), "wb", self.compression)
        for value in element:
            writer.write(make_tensor_proto(np.asarray(value)).SerializeToString())
        self.index += 1
        return element

    def _finalize(self):
        self.done = True
        for w in self.writers.values():
            w.close()
        os.makedirs(self.tmp, exist_ok=True)
        meta = {"shards": sorted(self.writers), "compression": self.compression,
                "elements": self.index}
        with open(os.path.join(self.tmp, _METADATA), "w") as f:
            json.dump(meta, f)
        os.makedirs(os.path.dirname(self.run_dir) or ".", exist_ok=True)
        try:
            os.rename(self.tmp, self.run_dir)
        except OSError:       # another pass finalized the same run first: keep that one
            shutil.rmtree(self.tmp, ignore_errors=True)

    def close(self):
        for w in self.writers.values():
            w.close()


class _ReadIterator(PyIterator):
    """A finalized run's elements: TF's default reader, an interleave of ``cycle`` shards
    (sorted by id) taking one element of each in turn; an ended shard's slot takes the next
    shard."""

    def __init__(self, run_dir, types):
        with open(os.path.join(run_dir, _METADATA)) as f:
            meta = json.load(f)
        self.n = len(types)
        paths = [os.path.join(run_dir, f"{sid:08d}.shard") for sid in meta["shards"]]
        self.pending = [self._records(p, meta["compression"]) for p in paths]
        self.slots = [None] * _cycle()
        self.k = 0

    def _records(self, path, compression):
        raw = open(path, "rb")  # noqa: SIM115 (open_tf_records closes it)
        for _, data in tfrecord.open_tf_records(raw, compression):
            yield make_ndarray(protos.TensorProto.FromString(data))

    def next(self):
        while any(s is not None for s in self.slots) or self.pending:
            k = self.k
            if self.slots[k] is None and self.pending:
                self.slots[k] = self.pending.pop(0)
            if self.slots[k] is not None:
                element = [next(self.slots[k], None) for _ in range(self.n)]
                if element[0] is not None:
                    self.k = (k + 1) % len(self.slots)
                    return element
                self.slots[k] = None
                continue   # this slot takes the next shard, if any, at once
            self.k = (k + 1) % len(self.slots)
        raise End


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation persisting the dataset's first complete pass under ``path`` and
    reading later passes from there, for ``Dataset.apply``.

    >>> ds = tf.data.Dataset.range(3).apply(tf.data.experimental.snapshot("/tmp/snap"))
    """
    return lambda dataset: _Snapshot(dataset, path, compression, reader_func, shard_func)
