"""Corruption fuzzer: damaged and hostile files give TF's errors, never a crash or a huge
allocation.

Valid files that scopeflow writes (a checkpoint with several dtypes, string tensors and a
partitioned variable; an events file with scalars, a histogram, an image and the graph; a
plain and a GZIP TFRecord file; a ``checkpoint`` state file) are damaged deterministically:
bit flips, truncations at many offsets, flips with the checksums recomputed (so the parser
gets past the CRCs), and hand-made hostile fields (an exabyte record length with a valid
length CRC, index entries with huge offsets, sizes, shapes and shards, string lengths that
do not fit). Every read must then either raise a ``tf.errors.OpError`` subclass or return
exactly the original values (a flip in padding may be harmless; a truncation at a record
boundary leaves a valid shorter file).

The cases run in a subprocess whose address space is capped (``RLIMIT_AS``) at 1.5 GiB
above what it uses after setup, so an allocation sized by a damaged field fails the test
with ``MemoryError`` instead of swapping the machine.
"""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

HEADROOM = 3 << 29     # 1.5 GiB of address space above the worker's baseline
SEED = 20261202


def test_corrupted_files_raise_tf_errors_under_a_memory_cap(tmp_path):
    # Run as a module from the repository root: as a script, its folder would come first on
    # sys.path, where the tests' package folders (io/, platform/...) shadow the standard library.
    proc = subprocess.run([sys.executable, "-m", "tests.fuzz.test_corruption_fuzz", str(tmp_path)],
                          capture_output=True, text=True, timeout=240,
                          cwd=Path(__file__).resolve().parents[2])
    lines = proc.stdout.strip().splitlines()
    assert proc.returncode == 0 and lines, proc.stdout[-5000:] + proc.stderr[-5000:]
    summary = json.loads(lines[-1])
    assert summary["failures"] == [], "\n\n".join(summary["failures"][:5])
    # The fuzzer really ran: hundreds of cases, and the damage was mostly noticed.
    assert summary["cases"] >= 300, summary
    assert summary["errors"] >= summary["cases"] // 2, summary
    assert summary["error_classes"].get("DataLossError", 0) >= summary["cases"] // 3, summary


@pytest.mark.tf
def test_tensorflow_fails_on_the_same_damage_with_the_same_words(tf1, tmp_path):
    """A few damaged files read by real TF and by scopeflow: both refuse them, with TF's
    key phrase in scopeflow's DataLossError (TF 2.21 itself raises IndexError for a
    truncated data file)."""
    import scopeflow as tf

    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32), name="w")
        tf.Variable(np.array([b"ab", b"c"], dtype=object), name="s")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "ckpt" / "model"))
    with tf.summary.FileWriter(str(tmp_path / "ev")) as writer:
        for step in range(3):
            writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]),
                               step)
    (events,) = (tmp_path / "ev").iterdir()
    index = Path(prefix + ".index").read_bytes()
    data = Path(prefix + ".data-00000-of-00001").read_bytes()
    good_events = events.read_bytes()

    def flipped(raw, pos):
        out = bytearray(raw)
        out[pos] ^= 0x10
        return bytes(out)

    cases = {  # name: (files to write, key phrase)
        "data flip": ({"data": flipped(data, len(data) - 1)}, "Checksum does not match"),
        "string lengths flip": ({"data": flipped(data, 0)}, "length checksum does not match"),
        "index flip": ({"index": flipped(index, 20)}, "block checksum mismatch"),
        "index cut": ({"index": index[:30]}, "too short to be an sstable"),
        "events cut": ({"events": good_events[:-3]}, "truncated record at"),
        "events flip": ({"events": flipped(good_events, 30)}, "corrupted record at"),
    }
    paths = {"index": prefix + ".index", "data": prefix + ".data-00000-of-00001",
             "events": str(events)}
    for name, (files, _) in cases.items():
        case = tmp_path / name.replace(" ", "_")
        case.mkdir()
        for kind, raw in files.items():
            (case / kind).write_bytes(raw)
    theirs = tf1(f"""
        import os, shutil
        paths, out = {paths!r}, {{}}
        originals = {{k: open(p, "rb").read() for k, p in paths.items()}}
        for name in {list(cases)!r}:
            case = os.path.join({str(tmp_path)!r}, name.replace(" ", "_"))
            for kind, path in paths.items():
                src = os.path.join(case, kind)
                open(path, "wb").write(open(src, "rb").read() if os.path.exists(src)
                                       else originals[kind])
            try:
                if name.startswith("events"):
                    list(tf.train.summary_iterator(paths["events"]))
                else:
                    r = tf.train.NewCheckpointReader({prefix!r})
                    [r.get_tensor(k) for k in r.get_variable_to_shape_map()]
                out[name] = None
            except Exception as e:
                out[name] = str(e)
        for kind, path in paths.items():
            open(path, "wb").write(originals[kind])
        print(json.dumps(out))
    """)
    for name, (files, phrase) in cases.items():
        assert theirs[name] is not None and phrase in theirs[name], (name, theirs[name])
        for kind, raw in files.items():
            Path(paths[kind]).write_bytes(raw)
        with pytest.raises(tf.errors.DataLossError, match=phrase):
            if name.startswith("events"):
                list(tf.train.summary_iterator(paths["events"]))
            else:
                reader = tf.train.NewCheckpointReader(prefix)
                [reader.get_tensor(k) for k in reader.get_variable_to_shape_map()]
        Path(paths["index"]).write_bytes(index)
        Path(paths["data"]).write_bytes(data)
        events.write_bytes(good_events)


# ── the worker (run as a script, in its own process) ─────────────────────────────────
def _address_space() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


class Fuzz:
    def __init__(self, root: Path):
        import scopeflow as tf

        self.tf = tf
        self.root = root
        self.rng = random.Random(SEED)
        self.cases = 0
        self.errors = 0
        self.classes: dict = {}
        self.failures: list = []

    def run(self, label, read, expected, accept=None):
        """One case: ``read()`` must raise an OpError or return ``expected`` (or a value
        ``accept`` allows)."""
        self.cases += 1
        try:
            got = read()
        except self.tf.errors.OpError as e:
            if os.environ.get("FUZZ_VERBOSE"):
                print(f"{label}: {type(e).__name__}: {e.message[:200]}", file=sys.stderr)
            self.errors += 1
            self.classes[type(e).__name__] = self.classes.get(type(e).__name__, 0) + 1
            return
        except Exception:  # noqa: BLE001 - any other class is the failure being looked for
            self.failures.append(f"{label}: {traceback.format_exc(limit=6)}")
            return
        if not (_same(got, expected) or (accept is not None and accept(got))):
            self.failures.append(f"{label}: read succeeded with wrong values: {got!r:.600}")

    # -- positions to damage -----------------------------------------------------------
    def offsets(self, size, count):
        picks = set(self.rng.randrange(size) for _ in range(count))
        return sorted(picks | {0, size - 1})

    def flips(self, data: bytes, count, end=None):
        """Copies of ``data`` with one bit flipped, at ``count`` offsets before ``end``."""
        for pos in self.offsets(len(data) if end is None else end, count):
            out = bytearray(data)
            out[pos] ^= 1 << self.rng.randrange(8)
            yield pos, bytes(out)

    def truncations(self, data: bytes, count):
        for cut in self.offsets(len(data), count):
            yield cut, data[:cut]


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.all(a == b))
    return a == b


# -- checkpoints ----------------------------------------------------------------------
def _checkpoint_cases(fz: Fuzz):
    from scopeflow.io import crc32c, protos, sstable
    from scopeflow.io.tensor_bundle import write_bundle

    tf = fz.tf
    d = fz.root / "ckpt"
    values = {
        "dense/kernel": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
        "dense/bias": np.array([1, -2, 3, -4, 5], dtype=np.int64),
        "mask": np.array([[True, False], [False, True]]),
        "step": np.array(1234567, dtype=np.int64),
        "rate": np.array(0.25, dtype=np.float64),
        "words": np.array([b"alpha", b"", "\u00e9t\u00e9".encode(), b"x" * 300], dtype=object),
        "half": np.array([1.5, -2.25], dtype=np.float16),
    }
    graph = tf.Graph()
    with graph.as_default():
        variables = {name: tf.Variable(value, name=name) for name, value in values.items()}
        saver = tf.train.Saver()
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(d / "model"), global_step=3)
    # A partitioned variable, as TF stores it: a full entry with slices, data per slice.
    sliced = d / "sliced"
    emb = np.arange(24, dtype=np.float32).reshape(6, 4)
    write_bundle(str(sliced), ["emb", "emb", "w"], [emb[:4], emb[4:], np.ones(3, np.int32)],
                 slices=["6 4 0,4:-", "6 4 4,2:-", ""])
    sliced_values = {"emb": emb, "w": np.ones(3, np.int32)}

    def reader_values(p):
        def read():
            reader = tf.train.NewCheckpointReader(p)
            names = sorted(reader.get_variable_to_shape_map())
            reader.debug_string()
            reader.get_variable_to_dtype_map()
            return {name: reader.get_tensor(name) for name in names}
        return read

    def restore():
        with graph.as_default():
            for var in variables.values():  # so a restore that did nothing cannot pass
                var.load(np.zeros_like(values[var.op.name]) if values[var.op.name].dtype != object
                         else np.array([b"?"] * values[var.op.name].size, object), sess)
            saver.restore(sess, prefix)
            return {name: sess.run(var) for name, var in variables.items()}

    index_path, data_path = prefix + ".index", prefix + ".data-00000-of-00001"
    good_index, good_data = Path(index_path).read_bytes(), Path(data_path).read_bytes()
    expected = dict(values)
    fz.run("checkpoint intact", reader_values(prefix), expected)
    fz.run("restore intact", restore, expected)
    fz.run("sliced intact", reader_values(str(sliced)), sliced_values)

    def with_files(index=good_index, data=good_data, read=None):
        Path(index_path).write_bytes(index)
        Path(data_path).write_bytes(data)
        return read or reader_values(prefix)

    for pos, bad in fz.flips(good_index, 150):
        fz.run(f"index flip at {pos}", with_files(index=bad), expected)
    for cut, bad in fz.truncations(good_index, 30):
        fz.run(f"index cut at {cut}", with_files(index=bad), expected)
    for pos, bad in fz.flips(good_data, 80):
        fz.run(f"data flip at {pos}", with_files(data=bad), expected)
    for cut, bad in fz.truncations(good_data, 25):
        fz.run(f"data cut at {cut}", with_files(data=bad), expected)
    for pos, bad in fz.flips(good_index, 12):
        fz.run(f"restore, index flip at {pos}", with_files(bad, good_data, restore), expected)
    for pos, bad in fz.flips(good_data, 12):
        fz.run(f"restore, data flip at {pos}", with_files(good_index, bad, restore), expected)

    # Flips inside the index's blocks with every block checksum recomputed: the damage
    # reaches the entry parser and the bundle reader.
    blocks = _table_blocks(good_index)
    # The values may then differ undetectably (a flipped bit of a tensor's stored CRC,
    # its offset moved within the file, a renamed key): any result is allowed, only not a
    # crash or an allocation beyond the file's size.
    for pos, bad in fz.flips(good_index, 150, end=len(good_index) - sstable.FOOTER_SIZE):
        fz.run(f"index flip at {pos}, CRCs fixed", with_files(index=_fix_crcs(bad, blocks)),
               expected, accept=lambda got: isinstance(got, dict))

    # Hand-made hostile entries: the table is valid, the entries lie.
    table = sstable.parse_table(good_index)
    header_bytes = table[0][1]
    entries = {key: protos.BundleEntryProto.FromString(value) for key, value in table[1:]}

    def rebuilt(key, edit=None, header=None):
        entry = protos.BundleEntryProto()
        entry.CopyFrom(entries[key])
        if edit is not None:
            edit(entry)
        rows = [(b"", header or header_bytes)]
        rows += [(k, (entry if k == key else e).SerializeToString())
                 for k, e in sorted(entries.items())]
        return sstable.build_table(rows)

    def set_shape(dims):
        def edit(entry):
            del entry.shape.dim[:]
            for size in dims:
                entry.shape.dim.add(size=size)
        return edit

    def set_field(**fields):
        def edit(entry):
            for field, value in fields.items():
                setattr(entry, field, value)
        return edit

    huge = [("offset", set_field(offset=1 << 62)), ("offset 2**63-1", set_field(offset=2**63 - 1)),
            ("size", set_field(size=1 << 62)), ("size+1", None),
            ("shard", set_field(shard_id=7)), ("shape 2**40", set_shape([1 << 40, 1 << 40])),
            ("shape -1", set_shape([-1, 4])), ("shape 2**62", set_shape([1 << 62])),
            ("shape [0, 2**62]", set_shape([0, 1 << 62, 1 << 62])),
            ("dtype 99", set_field(dtype=99)), ("dtype string", set_field(dtype=7)),
            ("crc", set_field(crc32c=12345))]
    for key in entries:
        for what, edit in huge:
            if edit is None:
                edit = set_field(size=entries[key].size + 1)
            fz.run(f"entry {key!r}: hostile {what}", with_files(index=rebuilt(key, edit)),
                   expected)
        itemsize = 1 if values[key.decode()].dtype == object else values[key.decode()].itemsize
        consistent_huge = set_shape([1 << 38]), set_field(size=(1 << 38) * itemsize)
        fz.run(f"entry {key!r}: huge but self-consistent",
               with_files(index=rebuilt(key, lambda e, edits=consistent_huge: [f(e) for f in edits])),
               expected)
    for shards in (0, 2, 99999, 2**31 - 1, -5):
        header = protos.BundleHeaderProto.FromString(header_bytes)
        header.num_shards = shards
        fz.run(f"header num_shards={shards}",
               with_files(index=rebuilt(b"step", header=header.SerializeToString())), expected)

    # A string tensor whose varint lengths are huge but whose checksums are all right.
    words = entries[b"words"]
    for lengths in ([1 << 40, 1, 1, 1], [2**63, 0, 0, 0], [0, 0, 0, 1 << 20]):
        encoded = b"".join(sstable.encode_varint(n) for n in lengths)
        crc = 0
        for n in lengths:
            crc = crc32c.extend(crc, struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n))
        body = encoded + struct.pack("<I", crc32c.mask(crc)) + b"abc"
        total = crc32c.mask(crc32c.extend(crc32c.extend(crc, body[len(encoded):len(encoded) + 4]),
                                          b"abc"))
        data = good_data[:words.offset] + body + good_data[words.offset + words.size:]
        shift = len(body) - words.size
        edited = {k: protos.BundleEntryProto.FromString(e.SerializeToString())
                  for k, e in entries.items()}
        for e in edited.values():
            if e.offset > words.offset:
                e.offset += shift
        edited[b"words"].size, edited[b"words"].crc32c = len(body), total
        index = sstable.build_table([(b"", header_bytes)] +
                                    [(k, e.SerializeToString()) for k, e in sorted(edited.items())])
        fz.run(f"string lengths {lengths}", with_files(index, data), expected)

    # The partitioned variable: slices that overlap, leave the shape, or are repeated.
    sliced_index = Path(str(sliced) + ".index").read_bytes()
    s_table = sstable.parse_table(sliced_index)
    for what, extents in [("overlapping", [(0, 4), (2, 4)]), ("outside", [(0, 4), (4, 9)]),
                          ("repeated", [(0, 4), (0, 4), (4, 2)]), ("huge", [(0, 1 << 60)]),
                          ("negative", [(-3, 4)])]:
        rows = []
        for key, value in s_table:
            if key == b"emb":
                entry = protos.BundleEntryProto.FromString(value)
                del entry.slices[:]
                for start, length in extents:
                    extent = entry.slices.add().extent
                    extent.add(start=start, length=length)
                    extent.add()
                value = entry.SerializeToString()
            rows.append((key, value))
        Path(str(sliced) + ".index").write_bytes(sstable.build_table(rows))
        fz.run(f"sliced: {what} slices", reader_values(str(sliced)), sliced_values)
    for dims in ([6, 1 << 40], [1 << 62, 4]):
        rows = []
        for key, value in s_table:
            if key == b"emb":
                entry = protos.BundleEntryProto.FromString(value)
                set_shape(dims)(entry)
                value = entry.SerializeToString()
            rows.append((key, value))
        Path(str(sliced) + ".index").write_bytes(sstable.build_table(rows))
        fz.run(f"sliced: full shape {dims}", reader_values(str(sliced)), sliced_values)

    # Table-level lies with valid checksums: a huge block handle, a huge restart count.
    footer = len(good_index) - sstable.FOOTER_SIZE
    for handle in ((1 << 62, 10), (0, 1 << 62), (2**64 - 1, 2**64 - 1)):
        raw = b"".join(sstable.encode_varint(n) for n in (0, 0) + handle)
        bad = good_index[:footer] + raw + bytes(40 - len(raw)) + good_index[-8:]
        fz.run(f"footer handle {handle}", with_files(index=bad), expected)
    for offset, size in blocks:
        bad = bytearray(good_index)
        bad[offset + size - 4:offset + size] = struct.pack("<I", 0xFFFFFFF0)
        fz.run(f"block at {offset}: huge restart count", with_files(
            index=_fix_crcs(bytes(bad), blocks)), expected)
    with_files()


def _table_blocks(table: bytes):
    """``[(offset, size), ...]`` of every block of an intact table (data, meta, index)."""
    from scopeflow.io import sstable

    footer = len(table) - sstable.FOOTER_SIZE
    meta_offset, pos = sstable._read_varint(table, footer, len(table), "t")
    meta_size, pos = sstable._read_varint(table, pos, len(table), "t")
    index_offset, pos = sstable._read_varint(table, pos, len(table), "t")
    index_size, _ = sstable._read_varint(table, pos, len(table), "t")
    blocks = [(meta_offset, meta_size), (index_offset, index_size)]
    index = table[index_offset:index_offset + index_size]
    for _, handle in sstable._block_entries(index, "t"):
        offset, pos = sstable._read_varint(handle, 0, len(handle), "t")
        blocks.append((offset, sstable._read_varint(handle, pos, len(handle), "t")[0]))
    return blocks


def _fix_crcs(table: bytes, blocks) -> bytes:
    """``table`` with each block's trailer checksum recomputed (its type byte kept 0)."""
    from scopeflow.io import crc32c

    out = bytearray(table)
    for offset, size in blocks:
        out[offset + size] = 0
        crc = crc32c.mask(crc32c.extend(crc32c.value(bytes(out[offset:offset + size])), b"\0"))
        out[offset + size + 1:offset + size + 5] = struct.pack("<I", crc)
    return bytes(out)


# -- event and record files -----------------------------------------------------------
def _record(data: bytes, length=None) -> bytes:
    """A framed record; ``length``: the length field to claim (its CRC kept valid)."""
    from scopeflow.io.crc32c import masked_value

    header = struct.pack("<Q", len(data) if length is None else length)
    return (header + struct.pack("<I", masked_value(header)) + data +
            struct.pack("<I", masked_value(data)))


def _event_cases(fz: Fuzz):
    from scopeflow.io import protos

    tf = fz.tf
    logdir = fz.root / "events"
    graph = tf.Graph()
    with graph.as_default():
        tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="sum")
    with tf.summary.FileWriter(str(logdir), graph=graph) as writer:
        for step in range(3):
            writer.add_summary(tf.Summary(value=[
                tf.Summary.Value(tag="loss", simple_value=1.0 / (step + 1))]), step)
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="h", histo=tf.HistogramProto(
            min=-1, max=2, num=4, sum=1, sum_squares=6, bucket_limit=[0, 1, 2],
            bucket=[1, 2, 1]))]), 3)
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="img", image=tf.Summary.Image(
            height=2, width=2, colorspace=1, encoded_image_string=b"\x89PNG" + bytes(40)))]), 4)
        tensor = protos.TensorProto(dtype=1, tensor_content=np.arange(6, dtype="<f4").tobytes())
        tensor.tensor_shape.dim.add(size=2)
        tensor.tensor_shape.dim.add(size=3)
        text = protos.TensorProto(dtype=7, string_val=[b"hello"])
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="t", tensor=tensor),
                                             tf.Summary.Value(tag="txt", tensor=text)]), 5)
    path = next(logdir.iterdir())
    good = path.read_bytes()
    events = [e.SerializeToString() for e in tf.train.summary_iterator(str(path))]
    assert len(events) >= 6, len(events)

    def events_of(data):
        path.write_bytes(data)
        return lambda: [e.SerializeToString() for e in tf.train.summary_iterator(str(path))]

    def is_prefix(got):
        return got == events[:len(got)]

    def read_events_of(data):
        path.write_bytes(data)
        return lambda: [(r.step, r.tag, r.kind) for r in
                        tf.summary.read_events(str(path))]

    records = [(r.step, r.tag, r.kind) for r in tf.summary.read_events(str(path))]
    for pos, bad in fz.flips(good, 100):
        fz.run(f"events flip at {pos}", events_of(bad), events)
        fz.run(f"read_events flip at {pos}", read_events_of(bad), records)
    for cut, bad in fz.truncations(good, 50):
        fz.run(f"events cut at {cut}", events_of(bad), events, accept=is_prefix)
        fz.run(f"read_events cut at {cut}", read_events_of(bad), records,
               accept=lambda got: got == records[:len(got)])
    # Flips inside an event with its record's CRC recomputed: the Event parser and the
    # readers of its values get the damage. Any result but a crash is right (the change
    # may be undetectable: another step, another float).
    for i in range(60):
        at = fz.rng.randrange(len(events))
        body = bytearray(events[at])
        body[fz.rng.randrange(len(body))] ^= 1 << fz.rng.randrange(8)
        data = b"".join(_record(bytes(body) if j == at else e) for j, e in enumerate(events))
        fz.run(f"events: event {at} flipped, CRC fixed ({i})", events_of(data), events,
               accept=lambda got: isinstance(got, list))
        fz.run(f"read_events: event {at} flipped, CRC fixed ({i})", read_events_of(data),
               records, accept=lambda got: isinstance(got, list))
    first = good[:len(_record(events[0]))]
    for length in (1 << 40, 2**64 - 1, len(good)):
        for where in ("first", "third"):
            body = [_record(e) for e in events]
            at = 0 if where == "first" else 2
            body[at] = _record(events[at], length)
            fz.run(f"events: {where} record claims {length} bytes", events_of(b"".join(body)),
                   events, accept=is_prefix)
    # A valid record holding something that is not an Event; one with a huge tensor shape.
    not_event = _record(b"\xff" * 20)
    fz.run("events: a record that is no Event", events_of(first + not_event), events,
           accept=is_prefix)
    huge = tf.Summary(value=[tf.Summary.Value(tag="t", tensor=protos.TensorProto(
        dtype=1, float_val=[0.0]))])
    huge.value[0].tensor.tensor_shape.dim.add(size=1 << 40)
    huge.value[0].tensor.tensor_shape.dim.add(size=1 << 40)
    event = tf.Event(step=9, summary=huge).SerializeToString()
    fz.run("read_events: a tensor of shape [2**40, 2**40]",
           read_events_of(good + _record(event)), records)
    path.write_bytes(good)


def _tfrecord_cases(fz: Fuzz):
    tf = fz.tf
    rng = np.random.default_rng(SEED)
    payloads = [rng.bytes(int(n)) for n in rng.integers(0, 300, size=20)]
    for compression in ("", "GZIP"):
        path = fz.root / f"records{compression}.tfrecord"
        options = tf.python_io.TFRecordOptions(
            tf.python_io.TFRecordCompressionType.GZIP if compression else
            tf.python_io.TFRecordCompressionType.NONE)
        with tf.python_io.TFRecordWriter(str(path), options=options) as writer:
            for p in payloads:
                writer.write(p)
        good = path.read_bytes()

        def read(data, path=path, options=options):
            path.write_bytes(data)
            return lambda: list(tf.python_io.tf_record_iterator(str(path), options=options))

        def is_prefix(got):
            return got == payloads[:len(got)]

        for pos, bad in fz.flips(good, 30):
            fz.run(f"tfrecord{compression} flip at {pos}", read(bad), payloads)
        for cut, bad in fz.truncations(good, 20):
            fz.run(f"tfrecord{compression} cut at {cut}", read(bad), payloads, accept=is_prefix)
    path = fz.root / "records.tfrecord"
    for length in (1 << 40, 2**64 - 1, 2**63):
        data = _record(payloads[0]) + _record(payloads[1], length) + _record(payloads[2])
        path.write_bytes(data)
        fz.run(f"tfrecord: record claims {length} bytes",
               lambda: list(tf.python_io.tf_record_iterator(str(path))), payloads,
               accept=is_prefix)
        from scopeflow.io import tfrecord
        fz.run(f"tfrecord (io.tfrecord): record claims {length} bytes",
               lambda: list(tfrecord.tf_record_iterator(str(path))), payloads,
               accept=is_prefix)


def _state_file_cases(fz: Fuzz):
    tf = fz.tf
    from scopeflow.train import checkpoint_management as cm

    d = fz.root / "state"
    d.mkdir()
    cm.update_checkpoint_state(str(d), str(d / "model-9"),
                               [str(d / f"model-{i}") for i in (5, 7, 9)])
    state = d / "checkpoint"
    good = state.read_bytes()

    def read(data):
        state.write_bytes(data)

        def get():
            ckpt = tf.train.get_checkpoint_state(str(d))
            tf.train.latest_checkpoint(str(d))
            return ckpt
        return get

    def parsed_or_none(got):
        return got is None or isinstance(got, cm.CheckpointState)

    for pos, bad in fz.flips(good, 30):
        fz.run(f"state flip at {pos}", read(bad), None, accept=parsed_or_none)
    for cut, bad in fz.truncations(good, 15):
        fz.run(f"state cut at {cut}", read(bad), None, accept=parsed_or_none)
    for what, bad in [("empty", b""), ("garbage", bytes(range(256)) * 4),
                      ("nul bytes", b"\0" * 100), ("spaces", b"  \n\t "),
                      ("latin-1", 'model_checkpoint_path: "mod\xe8le"'.encode("latin-1"))]:
        fz.run(f"state {what}", read(bad), None)


def _worker(root: Path):
    import resource

    fz = Fuzz(root)
    limit = _address_space() + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for cases in (_checkpoint_cases, _event_cases, _tfrecord_cases, _state_file_cases):
        try:
            cases(fz)
        except Exception:  # noqa: BLE001 - setup broke: report it as a failure
            fz.failures.append(f"{cases.__name__} setup: {traceback.format_exc(limit=8)}")
    print(json.dumps({"cases": fz.cases, "errors": fz.errors, "error_classes": fz.classes,
                      "failures": fz.failures}))


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    import logging

    logging.disable(logging.CRITICAL)   # the state-file cases warn, as they should
    _worker(Path(sys.argv[1]))
else:
    pytestmark = pytest.mark.filterwarnings("ignore")
