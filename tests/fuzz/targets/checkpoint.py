"""Checkpoint readers: the ``.index`` table, the ``.data`` shards, the ``checkpoint`` state
file, and the training-state entry (``_scopeflow/training_state``).

Seeds: checkpoints scopeflow's Saver writes (every numeric dtype, bools, strings short and
long, a float16, a partitioned variable) and the small checkpoints TensorFlow wrote in
``tests/fixtures`` (all dtypes, a Saver's, a two-shard save, a CNN with Adam slots).
Probes: ``NewCheckpointReader`` (shape map, debug string, every ``get_tensor``), its dtype
map, ``list_variables``, ``load_variable`` (first and last tensor) and ``Saver.restore``
into a graph with a variable for every tensor.

Accepted errors (each is what TensorFlow raises for the same damage):

* ``DataLossError``: a damaged table, entry or tensor (TF: "block checksum mismatch",
  "Checksum does not match", "truncated record", "Corrupted ..."), a non-UTF-8 or
  malformed training state.
* ``NotFoundError``: a key the damaged index lost (TF: "Key ... not found in
  checkpoint"), a data shard a damaged entry names that does not exist.
* ``InvalidArgumentError``: a restore whose stored shape or dtype no longer matches the
  variable (TF: "tensor_name = ...; shape in shape_and_slice spec ... does not match", "...
  expected dtype float does not equal original dtype"), a bundle version it cannot read.
* ``UnimplementedError``: a damaged header asking for a big-endian bundle, a compressed
  block, or a dtype scopeflow cannot hold (bfloat16 in ``get_variable_to_dtype_map``);
  TF raises Unimplemented for the first two.
* ``ResourceExhaustedError``: TF's class for an allocation that fails (a declared size
  that passes every check but exceeds the memory at hand).
* ``ValueError`` from ``get_checkpoint_state``/``latest_checkpoint``/``load_checkpoint``,
  raised by scopeflow only: TF raises ``ValueError("Invalid checkpoint state loaded
  from ...")`` for a state file without ``model_checkpoint_path``, and
  ``load_checkpoint`` ``ValueError("Couldn't find 'checkpoint' file ...")``.
"""

from __future__ import annotations

import base64
import json
import shutil
import struct
from pathlib import Path

import numpy as np

from .base import FIXTURES, Accept, Hostile, Seed, Target

FOOTER = 48
MAGIC = struct.pack("<Q", 0xDB4775248B80FB57)


def _op_errors(*names):
    from scopeflow.framework import errors

    reasons = {
        "DataLossError": "a damaged or truncated file (TF: checksum mismatch, truncated "
                         "record, corrupted entry)",
        "NotFoundError": "a key or data shard the damaged index names but the checkpoint "
                         "lacks (TF: 'Key ... not found in checkpoint')",
        "InvalidArgumentError": "a stored shape or dtype that no longer matches the "
                                "variable (TF's restore op), an unreadable bundle version",
        "UnimplementedError": "a header asking for a big-endian bundle, compressed blocks, "
                              "or a dtype scopeflow cannot hold (TF: Unimplemented)",
        "ResourceExhaustedError": "TF's class for an allocation that fails",
        "OutOfRangeError": "TF's class for reading past the end of a data file",
    }
    return tuple(Accept(getattr(errors, n), reasons[n]) for n in names)


# ── lenient table walking (for boundaries and checksum fix-ups) ─────────────────────
def _varint(buf, pos, end):
    result = shift = 0
    while pos < end and shift <= 63:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    return None, pos


def _block_handles(table: bytes):
    """``[(offset, size)]`` of the blocks a table's footer and index point at (what parses
    of a damaged table), and the entry offsets inside them."""
    n = len(table)
    if n < FOOTER:
        return [], []
    pos, handles = n - FOOTER, []
    for _ in range(2):
        offset, pos = _varint(table, pos, n)
        size, pos = _varint(table, pos, n)
        if offset is None or size is None:
            return handles, []
        handles.append((offset, size))
    entries = []
    blocks = list(handles)
    index_offset, index_size = handles[1]
    for key_pos, value in _block_entries(table, index_offset, index_size):
        entries.append(key_pos)
        offset, p = _varint(value, 0, len(value))
        size, _ = _varint(value, p, len(value))
        if offset is not None and size is not None:
            blocks.append((offset, size))
    for offset, size in blocks[2:]:
        entries.extend(p for p, _ in _block_entries(table, offset, size))
    return blocks, entries


def _block_entries(table, offset, size):
    """``(absolute offset, value)`` of each entry of the block at ``offset`` (lenient)."""
    end = offset + size
    if size < 4 or end > len(table):
        return
    restarts = struct.unpack_from("<I", table, end - 4)[0]
    limit = end - 4 * (restarts + 1)
    pos = offset
    while offset <= pos < limit:
        start = pos
        shared, pos = _varint(table, pos, limit)
        unshared, pos = _varint(table, pos, limit)
        length, pos = _varint(table, pos, limit)
        if None in (shared, unshared, length) or pos + unshared + length > limit:
            return
        pos += unshared
        yield start, table[pos:pos + length]
        pos += length


def fix_table_crcs(table: bytes) -> bytes:
    """The table with the trailer checksum of every block it points at recomputed."""
    from scopeflow.io import crc32c

    out = bytearray(table)
    blocks, _ = _block_handles(table)
    for offset, size in blocks:
        end = offset + size
        if end + 5 <= len(out) - FOOTER:
            crc = crc32c.mask(crc32c.extend(crc32c.value(bytes(out[offset:end])),
                                            bytes(out[end:end + 1])))
            out[end + 1:end + 5] = struct.pack("<I", crc)
    return bytes(out)


def table_boundaries(table: bytes) -> list[int]:
    blocks, entries = _block_handles(table)
    marks = {0, len(table) - FOOTER, len(table) - 8}
    for offset, size in blocks:
        marks.update((offset, offset + size, offset + size + 1, offset + size - 4))
    marks.update(entries)
    return sorted(m for m in marks if 0 <= m <= len(table))


# ── the seed checkpoints ─────────────────────────────────────────────────────────────
TF_CHECKPOINTS = [  # (label, directory in tests/fixtures, prefix's file name)
    ("tf all dtypes", "tf_checkpoints/all_dtypes", "bundle"),
    ("tf saver", "tf_checkpoints/saver", "model-5"),
    ("tf two shards", "tf_checkpoints/sharded", "model.ckpt"),
    ("tf cnn adam", "tf_saver/cnn", "model-3"),
]


class _Checkpoint:
    """One seed checkpoint in its own directory, with a graph to restore it into."""

    def __init__(self, label, prefix: Path):
        import scopeflow as tf
        from scopeflow.io import tensor_bundle

        self.label, self.prefix = label, str(prefix)
        self.index = Path(self.prefix + ".index").read_bytes()
        reader = tensor_bundle.BundleReader(self.prefix)
        self.num_shards = reader._num_shards
        self.keys = reader.keys()
        self.entries = {k: reader.entry(k) for k in reader._raw}
        self.data = [Path(tensor_bundle.data_filename(self.prefix, i, self.num_shards))
                     .read_bytes() for i in range(self.num_shards)]
        self.graph = tf.Graph()
        with self.graph.as_default():
            variables = {}
            for key in self.keys:
                try:
                    value = reader.read(key)
                    variables[key] = tf.Variable(np.zeros_like(value) if value.dtype != object
                                                 else np.full(value.shape, b"", object),
                                                 name=key.replace("/", "_") or "v")
                except Exception:  # noqa: BLE001 - a dtype scopeflow cannot hold (bfloat16)
                    continue
            self.saver = tf.train.Saver(var_list=variables)
            self.sess = tf.Session(graph=self.graph)
        reader.close()

    def restore(self, prefix):
        with self.graph.as_default():
            self.saver.restore(self.sess, prefix)


def _scopeflow_checkpoint(directory: Path) -> Path:
    """A checkpoint scopeflow's Saver writes: many dtypes, strings, a partitioned var."""
    import scopeflow as tf

    graph = tf.Graph()
    with graph.as_default():
        tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 7, name="dense/kernel")
        tf.Variable(np.array([1, -2, 3, -4, 5], dtype=np.int64), name="dense/bias")
        tf.Variable(np.array([[True, False], [False, True]]), name="mask")
        tf.Variable(np.array(0.25, dtype=np.float64), name="rate")
        tf.Variable(np.array([b"alpha", b"", "\u00e9t\u00e9".encode(), b"x" * 300],
                             dtype=object), name="words")
        tf.Variable(np.array([1.5, -2.25], dtype=np.float16), name="half")
        tf.Variable(np.array([1 + 2j], dtype=np.complex64), name="c64")
        tf.Variable(np.array([7, 8], dtype=np.uint16), name="u16")
        tf.get_variable("emb", shape=[6, 4], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
        step = tf.train.get_or_create_global_step()
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step.assign(1234567))
            return Path(saver.save(sess, str(directory / "model"), global_step=3,
                                   write_meta_graph=False))


def _seed_checkpoints(workdir: Path) -> list[_Checkpoint]:
    out = [_Checkpoint("scopeflow saver", _scopeflow_checkpoint(workdir / "sf"))]
    for label, folder, name in TF_CHECKPOINTS:
        target = workdir / folder.replace("/", "_")
        shutil.copytree(FIXTURES / folder, target, dirs_exist_ok=True)
        out.append(_Checkpoint(label, target / name))
    return out


def _known(ckpt) -> dict:
    """A scopeflow gap on a valid checkpoint: no ``tf.bfloat16`` DType, so the dtype map
    of a checkpoint holding one raises UnimplementedError (TF returns DT_BFLOAT16)."""
    if any(e.dtype == 14 for e in ckpt.entries.values()):
        return {"dtype_map": "UnimplementedError"}
    return {}


def _reader_probe(prefix):
    import scopeflow as tf

    reader = tf.train.NewCheckpointReader(prefix)
    names = sorted(reader.get_variable_to_shape_map())
    reader.debug_string()
    for name in names:
        reader.get_tensor(name)


def _dtype_map_probe(prefix):
    import scopeflow as tf

    tf.train.NewCheckpointReader(prefix).get_variable_to_dtype_map()


def _list_probe(prefix):
    import scopeflow as tf

    tf.train.list_variables(prefix)


def _load_probe(ckpt, prefix):
    """``tf.train.load_variable`` of the seed checkpoint's first and last tensors."""
    import scopeflow as tf

    for name in {ckpt.keys[0], ckpt.keys[-1]} if ckpt.keys else ():
        tf.train.load_variable(prefix, name)


class CheckpointIndex(Target):
    """The ``.index`` SSTable (mutated; the data files stay intact)."""

    name = "checkpoint_index"
    owner = "scopeflow/io/sstable.py, io/tensor_bundle.py, train/checkpoint_utils.py, saver.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _op_errors("DataLossError", "NotFoundError", "InvalidArgumentError",
                                  "UnimplementedError", "ResourceExhaustedError")

    def prepare(self):
        self.ckpts = _seed_checkpoints(self.workdir)
        self.seeds = [Seed(c.label, c.index, table_boundaries(c.index), known=_known(c))
                      for c in self.ckpts]

    def fixup(self, seed, data):
        return fix_table_crcs(data)

    def install(self, seed, data, fix):
        prefix = self.ckpts[seed].prefix
        Path(prefix + ".index").write_bytes(data)
        return prefix

    def probes(self):
        return [("reader", lambda seed, prefix: _reader_probe(prefix)),
                ("dtype_map", lambda seed, prefix: _dtype_map_probe(prefix)),
                ("list_variables", lambda seed, prefix: _list_probe(prefix)),
                ("load_variable", lambda seed, prefix: _load_probe(self.ckpts[seed], prefix)),
                ("restore", lambda seed, prefix: self.ckpts[seed].restore(prefix))]

    def hostile(self, long):
        return index_hostile(self.ckpts[0], long)


def index_hostile(ckpt: _Checkpoint, long: bool) -> list[Hostile]:
    """Valid tables whose entries lie: huge offsets, sizes, shapes, shards, slice lists."""
    from scopeflow.io import protos, sstable

    table = sstable.parse_table(ckpt.index)
    header = table[0][1]
    entries = {key: protos.BundleEntryProto.FromString(value) for key, value in table[1:]}
    out = []

    def rebuilt(label, key=None, edit=None, header_bytes=None, extra=()):
        rows = [(b"", header_bytes or header)]
        for k, e in sorted(entries.items()):
            if k == key and edit is not None:
                e = protos.BundleEntryProto.FromString(e.SerializeToString())
                edit(e)
            rows.append((k, e.SerializeToString()))
        rows = sorted(rows + list(extra))
        out.append(Hostile(label, sstable.build_table(rows)))

    def shape(dims):
        def edit(e):
            del e.shape.dim[:]
            for d in dims:
                e.shape.dim.add(size=d)
        return edit

    def fields(**values):
        def edit(e):
            for k, v in values.items():
                setattr(e, k, v)
        return edit

    lies = [("offset 2**62", fields(offset=1 << 62)), ("offset 2**63-1", fields(offset=2**63 - 1)),
            ("size 2**62", fields(size=1 << 62)), ("shard 7", fields(shard_id=7)),
            ("shard 2**31-1", fields(shard_id=2**31 - 1)),
            ("shape [2**40, 2**40]", shape([1 << 40, 1 << 40])), ("shape [-1, 4]", shape([-1, 4])),
            ("shape [2**62]", shape([1 << 62])), ("shape [0, 2**62, 2**62]", shape([0, 1 << 62, 1 << 62])),
            ("shape of 100 ones", shape([1] * 100)), ("shape of 100000 ones", shape([1] * 100000)),
            ("dtype 99", fields(dtype=99)), ("dtype string", fields(dtype=7)),
            ("dtype variant", fields(dtype=21)), ("dtype resource", fields(dtype=20)),
            ("dtype ref", fields(dtype=101)), ("crc", fields(crc32c=12345))]
    for key in (b"dense/kernel", b"words", b"global_step"):
        for what, edit in lies:
            rebuilt(f"entry {key.decode()}: {what}", key, edit)
        size = 1 << 38
        rebuilt(f"entry {key.decode()}: huge but self-consistent", key,
                lambda e, size=size: (shape([size])(e), fields(size=size * 8)(e)))
    # A partitioned variable whose slice list lies: overlapping, outside, huge, many.
    def slices(extents):
        def edit(e):
            del e.slices[:]
            for start, length in extents:
                extent = e.slices.add().extent
                extent.add(start=start, length=length)
                extent.add()
        return edit
    for what, extents in [("overlapping", [(0, 3), (1, 3)]), ("outside", [(0, 3), (3, 9)]),
                          ("repeated", [(0, 3), (0, 3), (3, 3)]), ("huge", [(0, 1 << 60)]),
                          ("negative", [(-3, 4)]),
                          ("2000 disjoint empty", [(i % 6, 0) for i in range(2000)]),
                          ("3000 one-row", [(i % 6, 1) for i in range(3000)])]:
        rebuilt(f"emb slices {what}", b"emb", slices(extents))
    for shards in (0, 2, 99999, 2**31 - 1, -5):
        head = protos.BundleHeaderProto.FromString(header)
        head.num_shards = shards
        rebuilt(f"header num_shards={shards}", header_bytes=head.SerializeToString())
    head = protos.BundleHeaderProto.FromString(header)
    head.endianness = 1
    rebuilt("header big-endian", header_bytes=head.SerializeToString())
    head = protos.BundleHeaderProto.FromString(header)
    head.version.min_consumer = 99
    rebuilt("header min_consumer 99", header_bytes=head.SerializeToString())
    rebuilt("header not a proto", header_bytes=b"\xff" * 20)
    rebuilt("an entry that is not a proto", extra=[(b"zz", b"\x0a\xff\xff\xff\xff\x0f")])
    many = 50000 if long else 5000
    rebuilt(f"{many} extra entries", extra=[(b"zz/%06d" % i, b"") for i in range(many)])
    rebuilt("a 1 MiB key", extra=[(b"k" * (1 << 20), b"")])
    # Table-level lies with valid checksums: huge block handles, a huge restart count.
    good = ckpt.index
    footer = len(good) - FOOTER
    for handle in ((1 << 62, 10), (0, 1 << 62), (2**64 - 1, 2**64 - 1), (0, 0)):
        from scopeflow.io.sstable import encode_varint

        raw = b"".join(encode_varint(n) for n in (0, 0) + handle)
        out.append(Hostile(f"footer index handle {handle}",
                           good[:footer] + raw + bytes(40 - len(raw)) + MAGIC))
    for offset, size in _block_handles(good)[0]:
        bad = bytearray(good)
        if size >= 4:
            bad[offset + size - 4:offset + size] = struct.pack("<I", 0xFFFFFFF0)
            out.append(Hostile(f"block at {offset}: restart count 2**32-16",
                               fix_table_crcs(bytes(bad))))
    out.append(Hostile("only the magic number", bytes(40) + MAGIC))
    out.append(Hostile("empty file", b""))
    return out


class CheckpointData(Target):
    """A ``.data-*`` shard (mutated; the index stays, or has its tensor CRCs recomputed)."""

    name = "checkpoint_data"
    owner = "scopeflow/io/tensor_bundle.py, train/saver.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _op_errors("DataLossError", "NotFoundError", "InvalidArgumentError",
                                  "UnimplementedError", "ResourceExhaustedError",
                                  "OutOfRangeError")

    def prepare(self):
        self.ckpts = _seed_checkpoints(self.workdir)
        self.seeds = []
        for c in self.ckpts:
            marks = set()
            for e in c.entries.values():
                if e.shard_id == 0:
                    marks.update((e.offset, e.offset + e.size))
            self.seeds.append(Seed(c.label, c.data[0], sorted(marks),
                                   mutate=len(c.data[0]) < 100_000))

    def _shard0(self, seed):
        from scopeflow.io import tensor_bundle

        c = self.ckpts[seed]
        return tensor_bundle.data_filename(c.prefix, 0, c.num_shards)

    def fixup(self, seed, data):
        """Recomputes each string tensor's length checksum inside the data."""
        from scopeflow.io import crc32c
        from scopeflow.io.tensor_bundle import _length_crc

        out = bytearray(data)
        for e in self.ckpts[seed].entries.values():
            if e.shard_id != 0 or e.dtype != 7 or e.offset + e.size > len(out):
                continue
            count = int(np.prod([d.size for d in e.shape.dim])) if e.shape.dim else 1
            lengths, pos = [], e.offset
            for _ in range(count):
                value, pos = _varint(out, pos, e.offset + e.size)
                if value is None or value >> 64:   # not a varint64: nothing to fix
                    break
                lengths.append(value)
            else:
                if pos + 4 <= e.offset + e.size:
                    out[pos:pos + 4] = struct.pack("<I", crc32c.mask(_length_crc(lengths)))
        return bytes(out)

    def install(self, seed, data, fix):
        from scopeflow.io import crc32c, sstable

        c = self.ckpts[seed]
        Path(self._shard0(seed)).write_bytes(data)
        index = c.index
        if fix:  # every entry's CRC made to match the damaged bytes
            rows = []
            for key, value in sstable.parse_table(c.index):
                e = c.entries.get(key.decode("utf-8", "surrogateescape"))
                if e is not None and e.shard_id == 0 and e.offset + e.size <= len(data):
                    e = type(e).FromString(e.SerializeToString())
                    e.crc32c = crc32c.mask(crc32c.value(data[e.offset:e.offset + e.size]))
                    value = e.SerializeToString()
                rows.append((key, value))
            index = sstable.build_table(rows)
        Path(c.prefix + ".index").write_bytes(index)
        return c.prefix

    def probes(self):
        return [("reader", lambda seed, prefix: _reader_probe(prefix)),
                ("load_variable", lambda seed, prefix: _load_probe(self.ckpts[seed], prefix)),
                ("restore", lambda seed, prefix: self.ckpts[seed].restore(prefix))]

    def hostile(self, long):
        """String tensors whose varint lengths are huge but whose checksums hold."""
        from scopeflow.io import crc32c
        from scopeflow.io.sstable import encode_varint

        c = self.ckpts[0]
        words = c.entries["words"]
        good = c.data[0]
        out = []
        for lengths in ([1 << 40, 1, 1, 1], [2**63, 0, 0, 0], [0, 0, 0, 1 << 20],
                        [2**64 - 1, 0, 0, 0], [3, 0, 0, 0]):
            encoded = b"".join(encode_varint(n) for n in lengths)
            crc = 0
            for n in lengths:
                crc = crc32c.extend(crc, struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n))
            body = encoded + struct.pack("<I", crc32c.mask(crc)) + b"abc"
            data = good[:words.offset] + body + good[words.offset + words.size:]
            out.append(Hostile(f"string lengths {lengths} (fix to reach them)", data))
        # A first length past 64 bits (a 10-byte varint's tenth byte above 1).
        for varint in (b"\x80" * 9 + b"\x02", b"\xff" * 9 + b"\x7f"):
            out.append(Hostile(f"string length varint {varint.hex()}",
                               good[:words.offset] + varint + good[words.offset + 1:]))
        # Truncations inside every tensor (the index still promises the whole tensor).
        for key, e in sorted(c.entries.items()):
            if e.size and e.shard_id == 0:
                out.append(Hostile(f"cut inside {key!r}", good[:e.offset + e.size // 2]))
        out.append(Hostile("empty", b""))
        out.append(Hostile("2 MiB of 0xff", b"\xff" * (2 << 20)))
        return out


# ── the checkpoint state file ────────────────────────────────────────────────────────
class CheckpointState(Target):
    """The text-format ``checkpoint`` file: get_checkpoint_state, latest_checkpoint,
    load_checkpoint (which follows it to the newest checkpoint's index)."""

    name = "checkpoint_state"
    owner = "scopeflow/train/checkpoint_management.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        from scopeflow.framework import errors

        self.accepts = (
            Accept(ValueError, "TF: 'Invalid checkpoint state loaded from <dir>' for a state "
                   "without model_checkpoint_path", message="Invalid checkpoint state"),
            Accept(ValueError, "TF's load_checkpoint: 'Couldn't find 'checkpoint' file or "
                   "checkpoints in given directory'", message="Couldn't find 'checkpoint'"),
            Accept(errors.NotFoundError, "load_checkpoint of a path the state names that "
                   "has no index (TF: Unsuccessful TensorSliceReader constructor)"),
            Accept(errors.InvalidArgumentError, "load_checkpoint of a path that names a "
                   "checkpoint's own file (TF: Unsuccessful TensorSliceReader constructor)"),
            Accept(errors.DataLossError, "the state names a file that is not a checkpoint "
                   "index (TF: DataLoss reading the table)"),
        )

    def prepare(self):
        from scopeflow.io.tensor_bundle import write_bundle
        from scopeflow.train import checkpoint_management as cm

        self.dir = self.workdir / "state"
        self.dir.mkdir()
        for name in ("model-2", "model-3", "model-5", "model-7", "model-9", "model.ckpt"):
            # The checkpoints the seed state files name, so load_checkpoint reads one.
            write_bundle(str(self.dir / name), ["v"], [np.zeros(2, np.float32)], sync=False)
        cm.update_checkpoint_state(str(self.dir), str(self.dir / "model-9"),
                                   [str(self.dir / f"model-{i}") for i in (5, 7, 9)],
                                   all_model_checkpoint_timestamps=[1.5e9, 1.6e9, 1.7e9],
                                   last_preserved_timestamp=1.4e9)
        ours = (self.dir / "checkpoint").read_bytes()
        relative = b'model_checkpoint_path: "model-9"\nall_model_checkpoint_paths: "model-9"\n'
        self.seeds = [Seed("scopeflow state", ours, _line_starts(ours)),
                      Seed("relative paths", relative, _line_starts(relative))]
        for folder in ("tf_checkpoints/saver", "tf_checkpoints/sharded", "tf_saver/cnn"):
            data = (FIXTURES / folder / "checkpoint").read_bytes()
            self.seeds.append(Seed(f"tf {folder}", data, _line_starts(data)))

    def install(self, seed, data, fix):
        (self.dir / "checkpoint").write_bytes(data)
        return self.dir

    def probes(self):
        import scopeflow as tf

        return [("get_checkpoint_state", lambda s, d: _state_kind(tf.train.get_checkpoint_state(str(d)))),
                ("latest_checkpoint", lambda s, d: _state_kind(tf.train.latest_checkpoint(str(d)))),
                ("load_checkpoint", lambda s, d: tf.train.load_checkpoint(str(d)) and None)]

    def hostile(self, long):
        size, many = (10 << 20, 100000) if long else (1 << 20, 5000)
        out = [Hostile(what, data) for what, data in [
            ("empty", b""), ("spaces", b"  \n\t "), ("nul bytes", b"\0" * 100),
            ("binary", bytes(range(256)) * 4),
            ("latin-1", 'model_checkpoint_path: "mod\xe8le"'.encode("latin-1")),
            ("unterminated string", b'model_checkpoint_path: "model-9'),
            ("bad escape", b'model_checkpoint_path: "\\777\\x\\u12"'),
            ("octal escapes", b'model_checkpoint_path: "\\000\\001model-9"'),
            ("huge float", b'model_checkpoint_path: "m"\nlast_preserved_timestamp: 1e999999'),
            ("nan timestamp", b'model_checkpoint_path: "m"\nall_model_checkpoint_timestamps: nan'),
            ("unknown field", b'model_checkpoint_path: "m"\nno_such_field: 3'),
            ("nested braces", b"model_checkpoint_path {" * 100000),
            ("deep nesting, closed", b"a {" * 5000 + b"}" * 5000),
            ("path to /", b'model_checkpoint_path: "/"'),
            ("path with ..", b'model_checkpoint_path: "../../../../../../etc/passwd"'),
            ("glob path", b'model_checkpoint_path: "*"'),
            (f"{size >> 20} MiB path", b'model_checkpoint_path: "' + b"a" * size + b'"'),
            (f"{many} paths", b"".join(b'all_model_checkpoint_paths: "m%d"\n' % i
                                       for i in range(many)) + b'model_checkpoint_path: "m"'),
            ("utf-8 bom", b'\xef\xbb\xbfmodel_checkpoint_path: "model-9"'),
            ("crlf", b'model_checkpoint_path: "model-9"\r\n'),
        ]]
        if long:
            out.append(Hostile("65 MiB file", b"#" * (65 << 20), long_only=True))
        return out


def _line_starts(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A] + \
        [i for i, b in enumerate(data) if b in b':"']


def _state_kind(value):
    return "none" if value is None else None


# ── the training-state entry ─────────────────────────────────────────────────────────
class TrainingState(Target):
    """The ``_scopeflow/training_state`` entry: a JSON string scalar of a checkpoint that
    ``Saver(training_state=True).restore`` applies to the session (random streams, a
    shuffled ``tf.data`` iterator) and to registered objects (an MNIST ``DataSet``)."""

    name = "training_state"
    owner = "scopeflow/train/training_state.py, data/iterator_state.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        from scopeflow.framework import errors

        self.accepts = (
            Accept(errors.DataLossError, "a damaged entry (scopeflow's documented class for "
                   "it; TF raises DataLoss for a damaged iterator checkpoint)"),
            Accept(errors.InvalidArgumentError, "an iterator state that does not fit its "
                   "dataset (TF's iterator restore: InvalidArgument)"),
            Accept(errors.OutOfRangeError, "the restored iterator is at its end (TF: "
                   "OutOfRange from get_next)"),
        )

    def prepare(self):
        import scopeflow as tf
        from scopeflow.datasets import mnist
        from scopeflow.train import training_state

        self.graph = tf.Graph()
        with self.graph.as_default():
            tf.set_random_seed(1)
            self.noise = tf.random_uniform([3])
            dataset = tf.data.Dataset.range(100).shuffle(10, seed=2).batch(3).repeat()
            self.next = dataset.make_one_shot_iterator().get_next()
            w = tf.Variable([1.0, 2.0], name="w")
            rng = np.random.RandomState(0)
            self.digits = mnist.DataSet(rng.randint(0, 255, (20, 28, 28, 1)).astype(np.uint8),
                                        np.arange(20) % 10, seed=3)
            training_state.add_training_state(self.digits, "mnist/train")
            self.saver = tf.train.Saver([w], training_state=True)
            self.sess = tf.Session(graph=self.graph)
            self.sess.run(tf.global_variables_initializer())
            prefixes = []
            for step in range(2):
                self.sess.run([self.noise, self.next])
                self.digits.next_batch(7)
                prefixes.append(self.saver.save(self.sess, str(self.workdir / "ts" / "model"),
                                                global_step=step, write_meta_graph=False))
        self.seeds = []
        for step, prefix in enumerate(prefixes):
            reader = tf.train.NewCheckpointReader(prefix)
            data = bytes(reader.get_tensor(training_state.KEY))
            self.seeds.append(Seed(f"after {step + 1} steps", data, _json_boundaries(data)))
        self.prefix = str(self.workdir / "fuzzed" / "model")
        self.w = reader.get_tensor("w")

    def install(self, seed, data, fix):
        from scopeflow.io.tensor_bundle import write_bundle
        from scopeflow.train import training_state

        write_bundle(self.prefix, ["w", training_state.KEY],
                     [self.w, np.array(data, dtype=object)], sync=False)
        return self.prefix

    def probes(self):
        def restore(seed, prefix):
            with self.graph.as_default():
                self.saver.restore(self.sess, prefix)

        def resume(seed, prefix):
            self.sess.run([self.noise, self.next])
            self.digits.next_batch(7)
        return [("restore", restore), ("resume", resume)]

    def hostile(self, long):
        seed = json.loads(self.seeds[0].data)
        out = []

        def entry(label, doc):
            out.append(Hostile(label, json.dumps(doc).encode() if not isinstance(doc, bytes)
                               else doc))

        entry("empty", b"")
        entry("not json", b"\xff\xfe{")
        entry("json null", None)
        entry("json list", [])
        entry("format only", {"format": seed["format"]})
        entry("state null", {"format": seed["format"], "state": None})
        entry("state a number", {"format": seed["format"], "state": 1e308})
        entry("nested arrays 100000 deep", b"[" * 100000 + b"]" * 100000)
        entry("nested objects 100000 deep", b'{"a":' * 100000 + b"1" + b"}" * 100000)
        deep = 1
        for _ in range(900):
            deep = {"d": deep}
        entry("state nested 900 deep", {"format": seed["format"], "state": deep})
        digits = 10 << 20 if long else 1 << 20
        entry(f"a {digits >> 20} MiB number", b'{"format": "' + seed["format"].encode() +
              b'", "state": ' + b"9" * digits + b"}")
        text = json.dumps(seed)
        for old, new in [('"0x', '"0xffffffffffffffffffffffffffffffffffff'),
                         ('"0x', '"-0x'), ('"0x', '"zz'), ('"0x', '"0x1e9999')]:
            entry(f"random stream {new!r}", text.replace(old, new, 1).encode())
        # An array whose .npy header is cut inside its dict (found by the fuzzers: NumPy's
        # header parser raises tokenize.TokenError).
        header = b"{'descr': '<i8', 'fortran_order': False, 'shape': (3,"
        header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
        npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(24)
        start = text.find('"__array__": "')
        if start >= 0:
            start += len('"__array__": "')
            end = text.index('"', start)
            entry("an array's .npy header cut inside its dict", (
                text[:start] + base64.b64encode(npy).decode() + text[end:]).encode())
        # Every string that looks like base64 (arrays, iterator blobs) damaged in turn.
        for i, (old, new) in enumerate(_base64_damage(text)):
            entry(f"base64 field {i}: {new[:20]!r}", text.replace(old, new, 1).encode())
        return out


def _json_boundaries(data: bytes) -> list[int]:
    return [i for i, b in enumerate(data) if b in b'{}[]:,"'][:400]


def _base64_damage(text: str):
    """``(old, new)`` replacements of long quoted strings: cut, padded wrong, huge, not
    base64."""
    import re

    out = []
    for m in re.finditer(r'"([A-Za-z0-9+/=]{16,})"', text):
        s = m.group(1)
        out.append((s, s[: len(s) // 2]))
        out.append((s, s + "="))
        out.append((s, "!" + s[1:]))
        out.append((s, "A" * (len(s) * 100)))
        if len(out) > 40:
            break
    return out


TARGETS = {t.name: t for t in (CheckpointIndex, CheckpointData, CheckpointState,
                               TrainingState)}
