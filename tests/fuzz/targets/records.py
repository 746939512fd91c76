"""Record files: event files (``summary_iterator``, ``read_events``) and TFRecord files,
plain, GZIP and ZLIB (``tf.python_io.tf_record_iterator``, ``tf.data.TFRecordDataset``).

Seeds: an event file scopeflow's ``FileWriter`` writes (a graph, scalars, a histogram, an
image, audio, text and tensor summaries, a session log, run metadata; wall times made
fixed so the seed is the same every run), one of TF's own summaries (the ``Summary`` protos
TF wrote in ``tests/fixtures/tf_summaries``) and records of TF's word2vec event file;
TFRecord files scopeflow's writer writes (empty to 300-byte records) and the ones TF wrote
in ``tests/fixtures/tf_records``. The fix-up recomputes both CRCs of every record the
(damaged) framing still delimits; for a compressed file it inflates what it can, fixes
that, and deflates it again, so the damage reaches the framing and the Event parser.

Accepted: ``DataLossError`` -- TF's class for a corrupted or truncated record
("corrupted record at N", "truncated record at N") and for a damaged zlib/gzip stream
("inflate() failed"); scopeflow also uses it for a record that is not an ``Event`` (TF's
``summary_iterator`` lets protobuf's ``DecodeError`` out there) and for a summary tensor
that cannot be decoded. ``InvalidArgumentError`` only with TF's own words "Can't read a
negative number of bytes": TF 2.21 raises it for a length field from 2**63-4 up with a
valid CRC (checked with TF: 2**63 and 2**63-1 give it, 2**64-5 and up "record size too
large"; a length of 2**40 makes TF itself segfault). ``ResourceExhaustedError`` is TF's
class for an allocation that fails (a record or stream larger than memory).
"""

from __future__ import annotations

import io
import json
import struct
import zlib

from .base import FIXTURES, Accept, Hostile, Seed, Target


def _accepts():
    from scopeflow.framework import errors

    return (Accept(errors.DataLossError, "TF: corrupted or truncated record, inflate() "
                   "failed; scopeflow: a record that is not an Event, an undecodable summary "
                   "tensor"),
            Accept(errors.InvalidArgumentError, "TF 2.21's RecordReader for a length field "
                   "in [2**63-4, 2**64-5) with a valid CRC (its int64 read size turns "
                   "negative)", message="Can't read a negative number of bytes"),
            Accept(errors.ResourceExhaustedError, "TF's class for an allocation that fails"))


def frame(data: bytes, length: int | None = None) -> bytes:
    """One framed record; ``length``: the length to claim (its CRC kept valid)."""
    from scopeflow.io.crc32c import masked_value

    header = struct.pack("<Q", len(data) if length is None else length)
    return (header + struct.pack("<I", masked_value(header)) + data +
            struct.pack("<I", masked_value(data)))


def record_boundaries(data: bytes) -> list[int]:
    marks, pos = [], 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        marks += [pos, pos + 8, pos + 12]
        end = pos + 12 + length
        if end + 4 > len(data):
            break
        marks += [end, end + 4]
        pos = end + 4
    return sorted(set(marks + [len(data)]))


def fix_record_crcs(data: bytes) -> bytes:
    """Both CRCs of every record the framing delimits, recomputed (lengths kept)."""
    from scopeflow.io.crc32c import masked_value

    out = bytearray(data)
    pos = 0
    while pos + 12 <= len(out):
        out[pos + 8:pos + 12] = struct.pack("<I", masked_value(bytes(out[pos:pos + 8])))
        (length,) = struct.unpack_from("<Q", out, pos)
        end = pos + 12 + length
        if end + 4 > len(out):
            break
        out[end:end + 4] = struct.pack("<I", masked_value(bytes(out[pos + 12:end])))
        pos = end + 4
    return bytes(out)


_WBITS = {"": None, "GZIP": 16 + zlib.MAX_WBITS, "ZLIB": zlib.MAX_WBITS}


def compress(data: bytes, compression: str) -> bytes:
    if not compression:
        return data
    z = zlib.compressobj(6, zlib.DEFLATED, _WBITS[compression], 9)
    return z.compress(data) + z.flush()


def inflate_leniently(data: bytes, compression: str, limit: int = 16 << 20) -> bytes:
    """What inflates of ``data`` before an error or ``limit`` bytes."""
    z = zlib.decompressobj(_WBITS[compression])
    out = bytearray()
    try:
        out += z.decompress(data, limit)
    except zlib.error:
        pass
    return bytes(out)


def bomb(compression: str, size: int, prefix: bytes = b"") -> bytes:
    """``prefix`` then ``size`` zero bytes (whole MiBs) as a GZIP or ZLIB stream, about
    1 KiB per MiB. Built from one compressed MiB repeated: after a full flush deflate
    starts afresh, so every further MiB of zeros compresses to the same bytes; the
    trailer's checksum and size are computed for the whole."""
    gzip = compression == "GZIP"
    z = zlib.compressobj(9, zlib.DEFLATED, _WBITS[compression], 9)
    block = bytes(1 << 20)
    head = z.compress(prefix) + z.flush(zlib.Z_FULL_FLUSH)
    chunk = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    again = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    assert chunk == again, "deflate did not restart after a full flush"
    tail = z.flush()[:-8 if gzip else -4]         # the final empty block, no trailer
    check = zlib.crc32(prefix) if gzip else zlib.adler32(prefix)
    for _ in range(size >> 20):
        check = zlib.crc32(block, check) if gzip else zlib.adler32(block, check)
    total = len(prefix) + (size >> 20 << 20)
    trailer = (struct.pack("<II", check, total & 0xFFFFFFFF) if gzip else
               struct.pack(">I", check))
    return head + chunk * (size >> 20) + tail + trailer


# ── event files ──────────────────────────────────────────────────────────────────────
class Events(Target):
    """An event file read by ``summary_iterator`` and ``read_events``."""

    name = "events"
    owner = "scopeflow/summary/reader.py, io/tfrecord.py"

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _accepts()

    def prepare(self):
        self.path = self.workdir / "events.out.tfevents.1700000000.fuzz"
        ours = self._scopeflow_events()
        tf_summaries = self._tf_summaries()
        word2vec = self._word2vec()
        self.seeds = [Seed(label, data, record_boundaries(data)) for label, data in
                      [("scopeflow writer", ours), ("tf summaries", tf_summaries),
                       ("tf word2vec run", word2vec)]]

    def _scopeflow_events(self) -> bytes:
        import numpy as np

        import scopeflow as tf
        from scopeflow.io import protos

        logdir = self.workdir / "written"
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
                height=2, width=2, colorspace=3, encoded_image_string=b"\x89PNG" + bytes(40)))]),
                4)
            tensor = protos.TensorProto(dtype=1, tensor_content=np.arange(6, dtype="<f4").tobytes())
            tensor.tensor_shape.dim.add(size=2)
            tensor.tensor_shape.dim.add(size=3)
            text = protos.TensorProto(dtype=7, string_val=[b"hello"])
            scalar = protos.TensorProto(dtype=1, float_val=[0.5])
            meta = protos.SummaryMetadata(plugin_data=protos.SummaryMetadata.PluginData(
                plugin_name="scalars"))
            writer.add_summary(tf.Summary(value=[
                tf.Summary.Value(tag="t", tensor=tensor),
                tf.Summary.Value(tag="txt", tensor=text, metadata=protos.SummaryMetadata(
                    plugin_data=protos.SummaryMetadata.PluginData(plugin_name="text"))),
                tf.Summary.Value(tag="s2", tensor=scalar, metadata=meta)]), 5)
            writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 6)
        (path,) = logdir.iterdir()
        events = [e for e in _records(path.read_bytes())]
        out = []
        for i, raw in enumerate(events):   # fixed wall times: the same seed every run
            event = protos.Event.FromString(raw)
            event.wall_time = 1.7e9 + i
            out.append(frame(event.SerializeToString()))
        return b"".join(out)

    def _tf_summaries(self) -> bytes:
        from scopeflow.io import protos

        cases = json.loads((FIXTURES / "tf_summaries" / "summaries.json").read_text())["cases"]
        out = [frame(protos.Event(wall_time=1.7e9, file_version="brain.Event:2")
                     .SerializeToString())]
        for step, (_, case) in enumerate(sorted(cases.items())):
            summary = protos.Summary.FromString(bytes.fromhex(case["hex"]))
            out.append(frame(protos.Event(wall_time=1.7e9 + step, step=step,
                                          summary=summary).SerializeToString()))
        return b"".join(out)

    def _word2vec(self) -> bytes:
        """TF's own records of a word2vec run, without its two large graph records."""
        raw = (FIXTURES / "tf_summaries" / "events" / "word2vec" /
               "events.out.tfevents.1700000000.tf").read_bytes()
        return b"".join(frame(r) for r in _records(raw) if len(r) < 10_000)

    def fixup(self, seed, data):
        return fix_record_crcs(data)

    def probes(self):
        import scopeflow as tf

        def iterate(seed, path):
            for _ in tf.train.summary_iterator(str(path)):
                pass

        def read(seed, path):
            tf.summary.read_events(str(path))
        return [("summary_iterator", iterate), ("read_events", read)]

    def hostile(self, long):
        from scopeflow.io import protos

        good = self.seeds[0].data
        events = _records(good)
        out = []
        for length in (1 << 40, 2**64 - 1, 2**63, len(good)):
            for at in (0, 2):
                body = [frame(e) for e in events]
                body[at] = frame(events[at], length)
                out.append(Hostile(f"record {at} claims {length} bytes", b"".join(body)))
        out.append(Hostile("a record that is not an Event", frame(b"\xff" * 20)))

        def with_tensor(label, tensor):
            event = protos.Event(step=9, summary=protos.Summary(
                value=[protos.Summary.Value(tag="t", tensor=tensor)]))
            out.append(Hostile(label, good + frame(event.SerializeToString())))

        def tensor(dtype, dims, **values):
            t = protos.TensorProto(dtype=dtype, **values)
            for d in dims:
                t.tensor_shape.dim.add(size=d)
            return t
        with_tensor("splat float [2**40, 2**40]", tensor(1, [1 << 40, 1 << 40], float_val=[1.0]))
        with_tensor("splat float [2**24]", tensor(1, [1 << 24], float_val=[1.0]))
        with_tensor("splat string [2**22]", tensor(7, [1 << 22], string_val=[b"x"]))
        with_tensor("splat half [2**24]", tensor(19, [1 << 24], half_val=[1]))
        with_tensor("shape [-1]", tensor(1, [-1], float_val=[1.0]))
        with_tensor("shape of 100 ones", tensor(1, [1] * 100, float_val=[1.0]))
        with_tensor("content too short", tensor(1, [4], tensor_content=b"\0" * 7))
        with_tensor("content too long", tensor(1, [1], tensor_content=b"\0" * 4000))
        with_tensor("dtype 99", tensor(99, [1], tensor_content=b"\0" * 4))
        with_tensor("dtype variant", tensor(21, [1]))
        with_tensor("dtype resource", tensor(20, [1]))
        with_tensor("dtype bfloat16", tensor(14, [2], half_val=[1, 2]))
        with_tensor("dtype complex64 odd", tensor(8, [1], scomplex_val=[1.0]))
        with_tensor("too many values", tensor(1, [2], float_val=[1.0] * 5))
        with_tensor("string, content bytes", tensor(7, [2], tensor_content=b"ab"))
        # Deep nesting the protobuf parser must refuse: unknown groups 100000 deep.
        out.append(Hostile("100000 nested groups", good + frame(b"\x7b" * 100000 + b"\x7c" * 100000)))
        many = 100000 if long else 10000
        out.append(Hostile(f"{many} empty records", frame(b"") * many))
        out.append(Hostile("a 1 MiB event of zeros", frame(bytes(1 << 20))))
        buckets = 10**6 if long else 10**5
        out.append(Hostile(f"histogram with {buckets} buckets", good + frame(protos.Event(
            summary=protos.Summary(value=[protos.Summary.Value(tag="h", histo=protos.HistogramProto(
                bucket_limit=[1.0] * buckets, bucket=[2.0] * buckets))])).SerializeToString())))
        out.append(Hostile("12 bytes of header only", good[:12]))
        return out


def _records(data: bytes) -> list[bytes]:
    from scopeflow.io import tfrecord

    return list(tfrecord.tf_record_iterator(io.BytesIO(data)))


# ── TFRecord files ───────────────────────────────────────────────────────────────────
class _TFRecord(Target):
    compression = ""
    owner = "scopeflow/io/tfrecord.py, platform/python_io.py, data/sources.py"
    timeout_s = 20.0

    def __init__(self, workdir):
        super().__init__(workdir)
        self.accepts = _accepts()

    def prepare(self):
        import numpy as np

        import scopeflow as tf

        self.path = self.workdir / "records.tfrecord"
        rng = np.random.default_rng(20261202)
        payloads = [rng.bytes(int(n)) for n in rng.integers(0, 300, size=20)] + [b""]
        options = tf.python_io.TFRecordOptions(self.compression or None)
        with tf.python_io.TFRecordWriter(str(self.path), options=options) as writer:
            for p in payloads:
                writer.write(p)
        ours = self.path.read_bytes()
        suffix = {"": "", "GZIP": ".gz", "ZLIB": ".zlib"}[self.compression]
        theirs = (FIXTURES / "tf_records" / f"examples.tfrecord{suffix}").read_bytes()
        self.plain = [inflate_leniently(d, self.compression) if self.compression else d
                      for d in (ours, theirs)]
        self.seeds = [Seed("scopeflow writer", ours, self._boundaries(ours)),
                      Seed("tf examples", theirs, self._boundaries(theirs))]
        self.options = options
        self.graph = tf.Graph()
        with self.graph.as_default():
            dataset = tf.data.TFRecordDataset(str(self.path), compression_type=self.compression)
            self.iterator = dataset.make_initializable_iterator()
            self.next = self.iterator.get_next()
        self.sess = tf.Session(graph=self.graph)

    def _boundaries(self, data):
        if not self.compression:
            return record_boundaries(data)
        header = 10 if self.compression == "GZIP" else 2
        return [0, 1, 2, 3, 4, 8, header, len(data) - 8, len(data) - 4, len(data)]

    def fixup(self, seed, data):
        if not self.compression:
            return fix_record_crcs(data)
        plain = inflate_leniently(data, self.compression)
        return compress(fix_record_crcs(plain), self.compression)

    def probes(self):
        import scopeflow as tf

        def iterate(seed, path):
            for _ in tf.python_io.tf_record_iterator(str(path), options=self.options):
                pass

        def dataset(seed, path):
            self.sess.run(self.iterator.initializer)
            while True:
                try:
                    self.sess.run(self.next)
                except tf.errors.OutOfRangeError:
                    return
        return [("tf_record_iterator", iterate), ("TFRecordDataset", dataset)]

    def hostile(self, long):
        c = self.compression
        plain = self.plain[0]
        recs = _records(plain)
        out = []
        for length in (1 << 40, 2**64 - 1, 2**63, 1 << 31):
            data = frame(recs[0]) + frame(recs[1], length) + frame(recs[2])
            out.append(Hostile(f"record claims {length} bytes", compress(data, c)))
        many = 100000 if long else 10000
        out.append(Hostile(f"{many} empty records", compress(frame(b"") * many, c)))
        out.append(Hostile("one 8 MiB record", compress(frame(bytes(8 << 20)), c)))
        if not c:
            out.append(Hostile("header only", plain[:12]))
            return out
        good = self.seeds[0].data
        out += [Hostile("trailing garbage", good + b"\x00garbage"),
                Hostile("two streams", good + good),
                Hostile("10000 empty streams", compress(b"", c) * 10000),
                Hostile("stream cut in its trailer", good[:-3]),
                Hostile("bad trailer checksum", good[:-8] + bytes(8)),
                Hostile("not compressed at all", plain)]
        if c == "GZIP":
            out += [Hostile("gzip FEXTRA of 65535", b"\x1f\x8b\x08\x04" + bytes(6) +
                            b"\xff\xff" + b"x" * 100),
                    Hostile("gzip FNAME unterminated", b"\x1f\x8b\x08\x08" + bytes(6) +
                            b"name" * 1000),
                    Hostile("gzip header only", good[:10])]
        # Zip bombs: zeros (the first record's header fails its CRC at once), and a record
        # that claims 2**40 bytes (valid CRC) followed by 1.2 GiB of zeros: a reader that
        # gathers the claimed bytes in memory before finding the stream short exhausts it.
        out.append(Hostile("bomb: 64 MiB of zeros", bomb(c, 64 << 20)))
        out.append(Hostile("bomb: a record claiming 2**40 bytes, then 64 MiB of zeros",
                           bomb(c, 64 << 20, frame(recs[0]) + frame(b"", 1 << 40)[:12])))
        if long:
            out.append(Hostile("bomb: 1.2 GiB of zeros", bomb(c, 1228 << 20), long_only=True))
            out.append(Hostile("bomb: a record claiming 2**40 bytes, then 1.2 GiB of zeros",
                               bomb(c, 1228 << 20, frame(recs[0]) + frame(b"", 1 << 40)[:12]),
                               long_only=True))
        return out


class TFRecordPlain(_TFRecord):
    name = "tfrecord"


class TFRecordGzip(_TFRecord):
    name = "tfrecord_gzip"
    compression = "GZIP"


class TFRecordZlib(_TFRecord):
    name = "tfrecord_zlib"
    compression = "ZLIB"


TARGETS = {t.name: t for t in (Events, TFRecordPlain, TFRecordGzip, TFRecordZlib)}
