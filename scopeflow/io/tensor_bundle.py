"""Tensor bundles: TensorFlow's checkpoint V2 files, written atomically and read with checks.

A bundle with prefix ``model.ckpt`` is two kinds of file (``FORMATS.md`` §1):

* ``model.ckpt.data-00000-of-00001``: the tensors' bytes, back to back, in the order they
  were written (string tensors as varint lengths, a masked length CRC, then the bytes);
* ``model.ckpt.index``: a LevelDB table (:mod:`scopeflow.io.sstable`) mapping ``""`` to a
  ``BundleHeaderProto`` and each tensor name to a ``BundleEntryProto`` (dtype, shape,
  shard, offset, size, masked CRC-32C of the bytes).

:func:`write_bundle` produces TensorFlow's bytes exactly, and never leaves a torn
checkpoint behind: both files are written under temporary names, flushed to disk, then
renamed into place (data first, index last). :class:`BundleReader` reads what TensorFlow
writes, including sharded saves (``-00001-of-00004``), and verifies every tensor's checksum.

Partitioned variables are stored as TF stores them (``FORMATS.md`` §5): one entry under the
full name with the full shape and a ``slices`` list (no data), and each slice's data under
an encoded *slice key* (TF's ``EncodeTensorNameSlice``: OrderedCode of 0, the name, the
rank, then each dimension's start and length). ``write_bundle(..., slices=[spec, ...])``
takes TF's ``shape_and_slices`` strings (``"10 4 0,4:0,4"``); ``BundleReader.read`` returns
the full tensor assembled from its slices, ``read(name, spec)`` any slice of it, whether
the checkpoint stored the tensor whole or in slices; ``keys()`` hides the slice keys.

>>> import os, tempfile
>>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> write_bundle(prefix, ["w", "step"], [np.ones((2, 3), np.float32), np.array(7)])
>>> with BundleReader(prefix) as reader:
...     print(reader.keys(), reader.dtype("w"), reader.shape("w"), reader.read("step"))
['step', 'w'] <dtype: 'float32'> (2, 3) 7
"""

from __future__ import annotations

import math
import os
import struct

import numpy as np
from google.protobuf.message import DecodeError

from scopeflow.framework import dtypes, errors
from scopeflow.io import crc32c, protos, sstable
from scopeflow.io.atomic import fsync_dir
from scopeflow.io.sstable import encode_varint

__all__ = ["write_bundle", "BundleReader", "data_filename", "index_filename",
           "parse_shape_and_slice", "slice_key"]

# Tensors are written and checksummed in pieces this big, so each piece is checksummed
# while it is still in the CPU cache and no full copy of a large array is ever made.
_CHUNK = 1 << 22
_VERSION_PRODUCER = 1        # TF's kTensorBundleVersion
_TEMP_MARK = ".tempstate"    # TF's suffix for files being written
_U32 = struct.Struct("<I")

# DataType enum -> little-endian NumPy dtype, for the types TF stores as raw buffers.
_NP_BY_ENUM = {}
for _enum in (1, 2, 3, 4, 5, 6, 8, 9, 10, 17, 18, 19, 22, 23):
    _NP_BY_ENUM[_enum] = np.dtype(dtypes.as_dtype(_enum).as_numpy_dtype).newbyteorder("<")
_DT_STRING = 7
_DT_BFLOAT16 = 14
_ENUM_BY_NP = {np_dtype.newbyteorder("="): enum for enum, np_dtype in _NP_BY_ENUM.items()}


def _bfloat16_dtype():
    """bfloat16's NumPy dtype, or None without ml_dtypes (``dtypes.bfloat16_numpy_dtype``
    loads it on first use); added to this module's tables then."""
    npd = dtypes.bfloat16_numpy_dtype()
    if npd is not None and _DT_BFLOAT16 not in _NP_BY_ENUM:
        _NP_BY_ENUM[_DT_BFLOAT16] = npd
        _ENUM_BY_NP[npd.newbyteorder("=")] = _DT_BFLOAT16
    return npd


def data_filename(prefix: str, shard_id: int = 0, num_shards: int = 1) -> str:
    """``<prefix>.data-<shard>-of-<num_shards>``, five digits each, as TF names it."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    """``<prefix>.index``."""
    return f"{prefix}.index"


# ── writing ──────────────────────────────────────────────────────────────────────────
def _as_string_items(name: str, array: np.ndarray) -> list[bytes]:
    items = []
    for item in array.reshape(-1):
        if isinstance(item, bytes):
            items.append(item)
        elif isinstance(item, str):
            items.append(item.encode("utf-8"))
        elif isinstance(item, (bytearray, memoryview, np.bytes_)):
            items.append(bytes(item))
        else:
            raise TypeError(f"Tensor {name!r}: a string tensor holds bytes or str, found "
                            f"{type(item).__name__} {item!r}")
    return items


def _length_crc(lengths: list[int]) -> int:
    """CRC-32C of the lengths as fixed-width integers (TF: uint32, or uint64 past 2**32-1)."""
    if not lengths or max(lengths) <= 0xFFFFFFFF:
        return crc32c.value(np.asarray(lengths, "<u4").tobytes())
    crc = 0
    for size in lengths:
        crc = crc32c.extend(crc, struct.pack("<I" if size <= 0xFFFFFFFF else "<Q", size))
    return crc


def _write_string_tensor(out, items: list[bytes]) -> tuple[int, int]:
    """Writes TF's string layout; returns (bytes written, unmasked running CRC)."""
    lengths = [len(item) for item in items]
    if not lengths or max(lengths) < 0x80:
        encoded = bytes(lengths)                  # one-byte varints: the common case
    else:
        encoded = b"".join(encode_varint(size) for size in lengths)
    crc = _length_crc(lengths)
    length_crc = _U32.pack(crc32c.mask(crc))
    payload = b"".join(items)
    crc = crc32c.extend(crc32c.extend(crc, length_crc), payload)
    out.write(encoded)
    out.write(length_crc)
    out.write(payload)
    return len(encoded) + 4 + len(payload), crc


def _write_raw_tensor(out, array: np.ndarray) -> tuple[int, int]:
    """Writes a numeric tensor's buffer in cache-sized pieces; returns (size, CRC)."""
    flat = array.reshape(-1).view(np.uint8)
    crc = 0
    for start in range(0, flat.size, _CHUNK):
        piece = flat[start:start + _CHUNK]
        crc = crc32c.extend(crc, piece)
        out.write(piece)
    return flat.size, crc


def _prepare(name, array):
    """(DataType enum, shape, C-contiguous little-endian array or list of bytes items)."""
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        return _DT_STRING, array.shape, _as_string_items(name, array)
    enum = _ENUM_BY_NP.get(array.dtype.newbyteorder("="))
    if enum is None and array.dtype.name == "bfloat16" and _bfloat16_dtype() is not None:
        enum = _ENUM_BY_NP.get(array.dtype.newbyteorder("="))
    if enum is None:
        raise TypeError(f"Tensor {name!r}: dtype {array.dtype} cannot be stored in a "
                        "TensorFlow checkpoint")
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return enum, array.shape, np.ascontiguousarray(array)


def _check_names(names, arrays, sliced=False):
    if len(names) != len(arrays):
        raise ValueError(f"write_bundle: {len(names)} names but {len(arrays)} arrays")
    seen = set()
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names must be str, got {type(name).__name__} {name!r}")
        if not name:
            raise ValueError("A checkpoint tensor name must not be empty (the empty key holds "
                             "the bundle's header)")
        if name in seen and not sliced:  # slices of one tensor share its name
            raise ValueError(f"Duplicate tensor name {name!r} in one checkpoint")
        seen.add(name)


# ── slices (partitioned variables) ───────────────────────────────────────────────────
def parse_shape_and_slice(spec: str):
    """TF's ``shape_and_slices`` string -> ``(full shape, [(start, length), ...])``.

    ``"10 4 0,4:0,4"``: the full shape's dimensions, then one ``start,length`` per
    dimension (``-`` for a whole dimension, length -1). The empty string means the whole
    tensor: ``(None, None)``.

    >>> parse_shape_and_slice("10 4 4,3:-")
    ([10, 4], [(4, 3), (0, -1)])
    """
    spec = spec.decode("utf-8") if isinstance(spec, bytes) else spec
    if not spec:
        return None, None
    parts = spec.split()
    try:
        shape = [int(d) for d in parts[:-1]]
        extents = []
        for dim in parts[-1].split(":"):
            if dim == "-":
                extents.append((0, -1))
                continue
            start, length = dim.split(",")
            extents.append((int(start), int(length)))
    except ValueError:
        raise ValueError(f"Invalid shape_and_slice spec {spec!r}: expected the full shape "
                         "then start,length (or -) per dimension, e.g. '10 4 0,4:-'") from None
    if len(parts) < 2 or len(extents) != len(shape):
        raise ValueError(f"Invalid shape_and_slice spec {spec!r}: the slice has "
                         f"{len(extents)} dimensions, the shape {len(shape)}")
    for (start, length), dim in zip(extents, shape):
        if start < 0 or length < -1 or (length != -1 and start + length > dim):
            raise ValueError(f"Invalid shape_and_slice spec {spec!r}: the slice exceeds the "
                             f"shape {shape}")
    return shape, extents


def _concrete(extents, shape):
    """``[(start, stop), ...]`` of ``extents`` (length -1: the whole dimension)."""
    return [(0, dim) if length == -1 else (start, start + length)
            for (start, length), dim in zip(extents, shape)]


def _ordered_num(value: int) -> bytes:
    """OrderedCode ``WriteNumIncreasing``: a length byte, then big-endian bytes."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(body)]) + body


def _ordered_signed_num(value: int) -> bytes:
    """OrderedCode ``WriteSignedNumIncreasing`` (order-preserving signed varint)."""
    x = ~value if value < 0 else value
    length = x.bit_length() // 7 + 1
    if length == 1:
        return bytes([(0x80 ^ value) & 0xFF])
    buf = bytearray(value.to_bytes(10, "big", signed=True)[10 - length:])
    header = (0xFF00 >> min(length, 8)) & 0xFF    # length-1 leading one bits, then a zero
    buf[0] ^= header if length <= 8 else 0xFF
    if length > 8:
        buf[1] ^= (0xFF00 >> (length - 8)) & 0xFF
    return bytes(buf)


def slice_key(name: str, extents) -> bytes:
    """TF's ``EncodeTensorNameSlice``: the table key of one slice of tensor ``name``.

    >>> slice_key("emb", [(4, 3), (0, -1)])
    b'\\x00emb\\x00\\x01\\x01\\x02\\x84\\x83\\x80\\x7f'
    """
    escaped = name.encode("utf-8", "surrogateescape").replace(b"\xff", b"\xff\x00") \
        .replace(b"\x00", b"\x00\xff")
    out = [_ordered_num(0), escaped, b"\x00\x01", _ordered_num(len(extents))]
    for start, length in extents:
        out.append(_ordered_signed_num(start))
        out.append(_ordered_signed_num(length))
    return b"".join(out)


def _slice_proto(extents):
    proto = protos.TensorSliceProto()
    for start, length in extents:
        extent = proto.extent.add()
        if length != -1:          # a whole dimension is an empty extent (TF's IsFullAt)
            extent.start = start
            extent.length = length
    return proto


def _proto_extents(proto):
    return [(e.start, e.length) if e.HasField("length") else (0, -1) for e in proto.extent]


def _plan_keys(names, prepared, slices):
    """The table key of each tensor, and the full entries of sliced tensors.

    Returns ``(keys, full_entries)``: bytes keys in ``names``' order; ``{name: entry}`` for
    the tensors written in slices (TF's ``BundleWriter::AddSlice``). A slice covering the
    whole tensor is stored whole, as TF does.
    """
    keys, full_entries, whole = [], {}, set()
    for name, (enum, shape, _), spec in zip(names, prepared, slices):
        full_shape, extents = parse_shape_and_slice(spec or "")
        if full_shape is None or [b - a for a, b in _concrete(extents, full_shape)] == \
                list(full_shape):
            if full_shape is not None and list(shape) != list(full_shape):
                raise ValueError(f"Tensor {name!r}: shape {list(shape)} does not match its "
                                 f"slice spec {spec!r}")
            if name in whole or name in full_entries:
                raise ValueError(f"Duplicate tensor name {name!r} in one checkpoint")
            whole.add(name)
            keys.append(name.encode("utf-8"))
            continue
        lengths = [b - a for a, b in _concrete(extents, full_shape)]
        if list(shape) != lengths:
            raise ValueError(f"Tensor {name!r}: slice {spec!r} has shape {lengths}, the "
                             f"value has shape {list(shape)}")
        if name in whole:
            raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
        entry = full_entries.get(name)
        if entry is None:
            entry = full_entries[name] = protos.BundleEntryProto(dtype=enum)
            entry.shape.SetInParent()
            for dim in full_shape:
                entry.shape.dim.add(size=dim)
        elif entry.dtype != enum or [d.size for d in entry.shape.dim] != list(full_shape):
            raise ValueError(f"Tensor {name!r}: slices of different dtypes or full shapes")
        entry.slices.append(_slice_proto(extents))
        keys.append(slice_key(name, extents))
    if len(set(keys)) != len(keys):
        raise ValueError("The same slice of a tensor is written twice in one checkpoint")
    return keys, full_entries


def _temp_name(path: str) -> str:
    return f"{path}{_TEMP_MARK}{int.from_bytes(os.urandom(8), 'little')}"


def _close_file(f, sync: bool):
    f.flush()
    if sync:
        os.fsync(f.fileno())
    f.close()


def _link_backup(data_path: str, index_path: str):
    """A hard link to an existing checkpoint's data file, or None.

    Renaming the new data file over the old one breaks the old checkpoint until the new
    index follows it; if that second rename fails, the link puts the old data back.
    """
    if not (os.path.exists(index_path) and os.path.exists(data_path)):
        return None
    backup = _temp_name(data_path)
    try:
        os.link(data_path, backup)
    except OSError:  # a file system without hard links: TF's behaviour, no backup
        return None
    return backup


def write_bundle(prefix, names, arrays, *, slices=None, sync: bool = True) -> None:
    """Writes ``arrays`` under ``names`` as the checkpoint ``prefix`` (TF's V2 format).

    ``prefix`` is a path such as ``ckpt/model-1000``; its directory is created if needed.
    The data file holds the tensors in the given order; the index lists them sorted by
    name. Numeric and bool arrays are stored as raw little-endian buffers; arrays of
    ``bytes``/``str`` objects become string tensors (``str`` as UTF-8).

    ``slices``: TF's ``shape_and_slices`` string for each array (``""``: the whole
    tensor). Arrays written as slices of one name become one entry with the full shape and
    a ``slices`` list, each slice's data under its slice key, as TF writes partitioned
    variables.

    The write is atomic: each file is written to a temporary name in the same directory,
    flushed (``fsync`` when ``sync``), then renamed into place, the index last, and the
    directory is synced. If anything fails, the temporaries are removed and an earlier
    checkpoint with this prefix is left as it was.

    Raises:
      ValueError: an empty or duplicate name, or a different number of names and arrays.
      TypeError: an array whose dtype TensorFlow cannot store.
    """
    prefix = os.fspath(prefix)
    keys, prepared, full_entries = _plan_write(names, arrays, slices)
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    data_path, index_path = data_filename(prefix), index_filename(prefix)
    data_tmp, index_tmp = _temp_name(data_path), _temp_name(index_path)
    backup = None
    try:
        entries = _write_data_file(data_tmp, keys, prepared, sync)
        _write_index_file(index_tmp, entries, full_entries, sync)
        backup = _link_backup(data_path, index_path)
        os.replace(data_tmp, data_path)
        try:
            os.replace(index_tmp, index_path)
        except BaseException:
            if backup is not None:  # the old index is still there: give it its data back
                os.replace(backup, data_path)
            raise
    except BaseException:
        _remove_quietly(data_tmp, index_tmp, backup)
        raise
    if backup is not None:
        os.remove(backup)
    if sync:
        fsync_dir(directory)


def _plan_write(names, arrays, slices):
    """Check the arguments of ``write_bundle``; returns each array's key and
    ``(dtype enum, shape, value)``, and the entries of the sliced tensors by name."""
    if slices is None:
        slices = [""] * len(names)
    elif len(slices) != len(names):
        raise ValueError(f"write_bundle: {len(names)} names but {len(slices)} slice specs")
    _check_names(names, arrays, sliced=any(slices))
    prepared = [_prepare(name, array) for name, array in zip(names, arrays)]
    keys, full_entries = _plan_keys(names, prepared, slices)
    return keys, prepared, full_entries


def _write_data_file(path, keys, prepared, sync):
    """Write the tensors to ``path`` in order; returns their ``(key, serialized entry)``."""
    entries = []
    offset = 0
    with open(path, "wb") as out:
        for key, (enum, shape, value) in zip(keys, prepared):
            if enum == _DT_STRING:
                size, crc = _write_string_tensor(out, value)
            else:
                size, crc = _write_raw_tensor(out, value)
            entry = protos.BundleEntryProto(dtype=enum, offset=offset, size=size,
                                            crc32c=crc32c.mask(crc))
            entry.shape.SetInParent()
            for dim in shape:
                entry.shape.dim.add(size=dim)
            entries.append((key, entry.SerializeToString()))
            offset += size
        _close_file(out, sync)
    return entries


def _write_index_file(path, entries, full_entries, sync):
    """Write the index table to ``path``: the header under ``b""``, then ``entries`` and the
    sliced tensors' ``full_entries``, by key."""
    entries += [(name.encode("utf-8"), entry.SerializeToString())
                for name, entry in full_entries.items()]
    header = protos.BundleHeaderProto(num_shards=1,
                                      version=protos.VersionDef(producer=_VERSION_PRODUCER))
    entries.sort()
    with open(path, "wb") as out:
        builder = sstable.TableBuilder(out)
        builder.add(b"", header.SerializeToString())
        for key, value in entries:
            builder.add(key, value)
        builder.finish()
        _close_file(out, sync)


def _remove_quietly(*paths):
    """Remove the temporaries a failed write left (``None``: never made)."""
    for tmp in paths:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


# ── reading ──────────────────────────────────────────────────────────────────────────
_DATA_SUFFIX_LEN = len(".data-00000-of-00001")


def _checkpoint_file_hint(prefix: str):
    """When ``prefix`` names one of a checkpoint's files, the prefix the user meant."""
    if prefix.endswith(".index"):
        return prefix[:-len(".index")], "index file"
    tail = prefix[-_DATA_SUFFIX_LEN:]
    if (len(prefix) > _DATA_SUFFIX_LEN and tail.startswith(".data-") and tail[11:15] == "-of-"
            and tail[6:11].isdigit() and tail[15:].isdigit()):
        return prefix[:-_DATA_SUFFIX_LEN], "data file"
    if prefix.endswith(".meta"):
        return prefix[:-len(".meta")], "meta graph file"
    return None, None


def _nearby_checkpoints(prefix: str, limit: int = 5) -> list[str]:
    directory = os.path.dirname(prefix) or "."
    try:
        names = sorted(n[:-len(".index")] for n in os.listdir(directory) if n.endswith(".index"))
    except OSError:
        return []
    return names[:limit]


def _missing_checkpoint_error(prefix: str):
    tf_message = ("Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                  f"files for {prefix}")
    meant, what = _checkpoint_file_hint(prefix)
    if meant is not None and os.path.exists(prefix) and os.path.exists(index_filename(meant)):
        return errors.InvalidArgumentError(
            None, None, f"{prefix!r} is the {what} of the checkpoint {meant!r}: pass the "
            f"checkpoint prefix {meant!r} instead ({tf_message})")
    if os.path.isdir(prefix):
        return errors.NotFoundError(
            None, None, f"{tf_message}: {prefix!r} is a directory; pass a checkpoint prefix "
            f"such as 'dir/model.ckpt', or tf.train.latest_checkpoint({prefix!r})")
    nearby = _nearby_checkpoints(prefix)
    if nearby:
        tf_message += (f" (checkpoints in {os.path.dirname(prefix) or '.'!r}: "
                       f"{', '.join(nearby)})")
    return errors.NotFoundError(None, None, tf_message)


class BundleReader:
    """Reads the tensor bundle (checkpoint V2) with prefix ``prefix``.

    ``keys()``, ``dtype(name)`` and ``shape(name)`` come from the index alone; ``read(name)``
    reads one tensor from its data file and verifies its checksum. Data files are opened
    on first use and closed by ``close()`` (or by leaving a ``with`` block).

    Raises:
      NotFoundError: no ``<prefix>.index`` (TF's message, plus the checkpoints nearby).
      InvalidArgumentError: ``prefix`` is one of a checkpoint's files (``model.ckpt.index``,
        a ``.data-...`` file); the message names the prefix to pass instead.
      DataLossError: a corrupt or truncated index.
    """

    def __init__(self, prefix):
        prefix = os.fspath(prefix)
        self._prefix = prefix
        self._files = {}
        self._sizes = {}    # shard -> its data file's size, which bounds every read
        self._slices = {}   # partitioned tensor -> its slices, checked (_checked_slices)
        index_path = index_filename(prefix)
        try:
            with open(index_path, "rb") as f:
                table = f.read()
        except FileNotFoundError:
            raise _missing_checkpoint_error(prefix) from None
        except IsADirectoryError:
            raise _missing_checkpoint_error(prefix) from None
        entries = sstable.parse_table(table, index_path)
        if not entries or entries[0][0] != b"":
            raise errors.DataLossError(None, None, f"Corrupted checkpoint index {index_path}: "
                                       "no bundle header under the empty key")
        header = _parse(protos.BundleHeaderProto, entries[0][1],
                        f"Corrupted checkpoint index {index_path}: bad bundle header")
        self._check_header(header, index_path)
        self._num_shards = header.num_shards
        # Entries are parsed when first asked for: a large index costs one table read.
        self._raw = {key.decode("utf-8", "surrogateescape"): value
                     for key, value in entries[1:]}
        self._parsed = {}
        # NOTE: slice keys (TF's EncodeTensorNameSlice) all start with OrderedCode's 0,
        # a zero byte no tensor name starts with; they are hidden as TF's reader hides them.
        self._keys = [key for key in self._raw if not key.startswith("\x00")]

    @staticmethod
    def _check_header(header, index_path):
        if header.endianness != 0:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {index_path} was written on a big-endian machine; "
                "scopeflow reads little-endian checkpoints only")
        version = header.version
        if version.min_consumer > _VERSION_PRODUCER or _VERSION_PRODUCER in version.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {index_path} needs a newer reader (bundle version: "
                f"producer {version.producer}, min consumer {version.min_consumer}; this "
                f"reader is version {_VERSION_PRODUCER})")
        if header.num_shards < 1:
            raise errors.DataLossError(None, None, f"Corrupted checkpoint index {index_path}: "
                                       f"num_shards = {header.num_shards}")

    # -- the index ---------------------------------------------------------------------
    @property
    def prefix(self) -> str:
        return self._prefix

    def keys(self) -> list[str]:
        """The tensor names, sorted bytewise (TF's order)."""
        return list(self._keys)

    def __contains__(self, name) -> bool:
        return name in self._raw and not name.startswith("\x00")

    def __len__(self) -> int:
        return len(self._keys)

    def entry(self, name: str):
        """The ``BundleEntryProto`` of ``name`` (raises NotFoundError if absent)."""
        entry = self._parsed.get(name)
        if entry is None:
            raw = self._raw.get(name)
            if raw is None:
                raise errors.NotFoundError(None, None,
                                           f"Key {name} not found in checkpoint {self._prefix}")
            entry = _parse(protos.BundleEntryProto, raw, f"Corrupted checkpoint index "
                           f"{index_filename(self._prefix)}: bad entry for tensor {name!r}")
            self._parsed[name] = entry
        return entry

    def dtype(self, name: str):
        """The scopeflow ``DType`` of tensor ``name`` (``tf.float32``, ...)."""
        enum = self.entry(name).dtype
        try:
            return dtypes.as_dtype(enum)
        except TypeError:
            raise errors.UnimplementedError(
                None, None, f"Tensor {name!r} in checkpoint {self._prefix} has data type "
                f"{_type_name(enum)}, which scopeflow does not support") from None

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of tensor ``name`` as a tuple of ints."""
        return tuple(dim.size for dim in self.entry(name).shape.dim)

    def nbytes(self, name: str) -> int:
        """The size of tensor ``name`` in the data files (its ``size`` field; for a tensor
        stored in slices, the sum of its slices')."""
        entry = self.entry(name)
        if not entry.slices:
            return entry.size
        keys = (slice_key(name, _proto_extents(p)).decode("utf-8", "surrogateescape")
                for p in entry.slices)
        return sum(self.entry(key).size for key in keys if key in self._raw)

    def is_sliced(self, name: str) -> bool:
        """Whether tensor ``name`` is stored in slices (a partitioned variable)."""
        return bool(self.entry(name).slices)

    # -- the data ----------------------------------------------------------------------
    def read(self, name: str, shape_and_slice: str = "") -> np.ndarray:
        """Tensor ``name`` as a new NumPy array (strings: an object array of bytes).

        ``shape_and_slice``: TF's spec of the slice to read (``"10 4 0,4:-"``), whose
        full shape must be the stored one; empty: the whole tensor. A tensor stored in
        slices is assembled from them (the slices read must cover what is asked).

        Raises DataLossError, naming the file and the tensor, when the bytes do not match
        the checksum stored in the index or the data file is truncated.
        """
        entry = self.entry(name)
        if shape_and_slice or entry.slices:
            return self._read_slice(name, entry, shape_and_slice)
        return self._read_entry(name, entry)

    def _read_slice(self, name, entry, spec):
        stored = [dim.size for dim in entry.shape.dim]
        full_shape, extents = parse_shape_and_slice(spec)
        if full_shape is None:
            full_shape, extents = stored, [(0, -1)] * len(stored)
        if list(full_shape) != stored:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {name}; shape in shape_and_slice spec "
                f"{_shape_text(full_shape)} does not match the shape stored in checkpoint: "
                f"{_shape_text(stored)}")
        want = _concrete(extents, stored)
        if not entry.slices:
            return np.ascontiguousarray(self._read_entry(name, entry)[
                tuple(slice(a, b) for a, b in want)])
        parts = self._slices_for(name, entry, stored, want)
        if math.prod(b - a for a, b in want) != sum(
                math.prod(hi - lo for lo, hi in common) for _, _, common in parts):
            raise errors.NotFoundError(
                None, None, f"Tensor {name!r} in checkpoint {self._prefix}: its stored "
                f"slices do not cover the slice {spec or 'of the whole tensor'} asked for")
        out = None
        for have, slice_entry, common in parts:
            part = self._read_entry(name, slice_entry)
            if out is None:
                out = np.empty([b - a for a, b in want], part.dtype)
            out[tuple(slice(lo - a, hi - a) for (lo, hi), (a, _) in zip(common, want))] = \
                part[tuple(slice(lo - c, hi - c) for (lo, hi), (c, _) in zip(common, have))]
        return out

    def _slices_for(self, name, entry, stored, want):
        """``[(extent, entry, overlap with want), ...]`` of the stored slices ``want`` needs.

        Checked before anything is read or allocated, so a damaged index cannot make the
        output array larger than the data files: the slices lie inside the stored shape
        and do not overlap (TF: "Overlapping slices"), each is listed once and has an
        entry, and together their bytes fit in the data files.
        """
        index = index_filename(self._prefix)
        parts, total, shards = [], 0, set()
        for proto, extents, have in self._checked_slices(name, entry, stored):
            common = [(max(a, c), min(b, d)) for (a, b), (c, d) in zip(want, have)]
            if any(lo >= hi for lo, hi in common):
                continue
            key = slice_key(name, extents).decode("utf-8", "surrogateescape")
            if key not in self._raw:
                raise errors.DataLossError(
                    None, None, f"Corrupted checkpoint index {index}: tensor {name!r} lists "
                    f"the slice {_slice_text(proto, stored)} (a part of a partitioned "
                    "variable) but has no entry for its data")
            slice_entry = self.entry(key)
            lengths = [b - a for a, b in have]
            if [d.size for d in slice_entry.shape.dim] != lengths or \
                    slice_entry.dtype != entry.dtype:
                raise self._corrupt(name, slice_entry, f"the slice {_slice_text(proto, stored)}"
                                    f" is stored as {_type_name(slice_entry.dtype)}"
                                    f"{[d.size for d in slice_entry.shape.dim]}, not "
                                    f"{_type_name(entry.dtype)}{lengths}")
            self._check_extent(name, slice_entry)
            total += slice_entry.size
            shards.add(slice_entry.shard_id)
            parts.append((have, slice_entry, common))
        if total > sum(self._sizes[shard] for shard in shards):
            raise errors.DataLossError(
                None, None, f"Corrupted checkpoint index {index}: the slices of tensor "
                f"{name!r} claim {total} bytes, more than their data files hold")
        return parts

    def _checked_slices(self, name, entry, stored):
        """``[(proto, extents, [(start, stop), ...]), ...]`` of a partitioned tensor's
        slices, once they are known to lie inside its shape and not to overlap; checked on
        the first read of ``name`` only (a restore reads each partition separately)."""
        checked = self._slices.get(name)
        if checked is not None:
            return checked
        if any(d < 0 for d in stored):
            raise self._corrupt(name, entry, f"negative dimension in shape {stored}")
        index = index_filename(self._prefix)
        checked = []
        for proto in entry.slices:
            extents = _proto_extents(proto)
            if len(extents) != len(stored) or any(
                    start < 0 or (length != -1 and (length < 0 or start + length > dim))
                    for (start, length), dim in zip(extents, stored)):
                raise errors.DataLossError(
                    None, None, f"Corrupted checkpoint index {index}: tensor {name!r} of shape "
                    f"{_shape_text(stored)} lists the slice {_slice_text(proto, stored)}, "
                    "which does not fit in it")
            checked.append((proto, extents, _concrete(extents, stored)))
        overlap = _first_overlap([have for _, _, have in checked])
        if overlap is not None:
            raise errors.DataLossError(
                None, None, f"Corrupted checkpoint index {index}: tensor {name!r} has "
                f"overlapping slices ({_slice_text(checked[overlap][0], stored)})")
        self._slices[name] = checked
        return checked

    def _read_entry(self, name: str, entry) -> np.ndarray:
        shape = tuple(dim.size for dim in entry.shape.dim)
        if any(d < 0 for d in shape):
            raise self._corrupt(name, entry, f"negative dimension in shape {list(shape)}")
        if entry.dtype == _DT_STRING:
            return self._read_strings(name, entry, shape)
        np_dtype = _NP_BY_ENUM.get(entry.dtype)
        if np_dtype is None and entry.dtype == _DT_BFLOAT16:
            np_dtype = _bfloat16_dtype()
        if np_dtype is None:
            if entry.dtype == _DT_BFLOAT16:
                extra = " (pip install 'scopeflow[bfloat16]' to read bfloat16)"
            else:
                extra = ""
            raise errors.UnimplementedError(
                None, None, f"Tensor {name!r} in checkpoint {self._prefix} has data type "
                f"{_type_name(entry.dtype)}, which scopeflow cannot read{extra}")
        nbytes = math.prod(shape) * np_dtype.itemsize
        if nbytes != entry.size:
            raise self._corrupt(name, entry, f"size {entry.size} in the index, but "
                                f"{_type_name(entry.dtype)}{list(shape)} needs {nbytes}")
        # Nothing is allocated before the bytes are known to be in the file: a damaged
        # index declaring a huge tensor fails here, not in np.empty.
        self._check_extent(name, entry)
        try:
            array = np.empty(shape, np_dtype)
        except (ValueError, MemoryError) as e:  # a zero-size shape NumPy still refuses
            raise self._corrupt(name, entry, f"shape {list(shape)}: {e}") from None
        flat = array.reshape(-1).view(np.uint8)
        self._read_into(name, entry, flat)
        if array.dtype.byteorder == ">":  # only on a big-endian host
            array = array.astype(array.dtype.newbyteorder("="))
        return array

    def _read_into(self, name, entry, flat):
        """Reads the tensor's bytes into ``flat`` (uint8) and verifies their checksum.

        A large tensor is read in chunks by a small thread pool: one thread copying from
        the page cache (and faulting in fresh memory) runs at about half the machine's
        memory bandwidth, and ``preadv`` releases the GIL. The checksum runs here, in
        order, on each chunk as soon as it has arrived, so it overlaps the reads. ``flat``
        is a fresh array: on an error, chunks still in flight land in memory nobody keeps.
        """
        fd = self._check_extent(name, entry)
        starts = range(0, flat.size, _CHUNK)
        if len(starts) < 2:
            reads = iter([os.preadv(fd, [flat], entry.offset)] if flat.size else [])
        else:
            reads = _read_pool().map(
                lambda start: os.preadv(fd, [flat[start:start + _CHUNK]], entry.offset + start),
                starts)
        crc = 0
        for start, got in zip(starts, reads):
            if got != min(_CHUNK, flat.size - start):
                raise self._truncated(name, entry)
            crc = crc32c.extend(crc, flat[start:start + _CHUNK])
        self._check_crc(name, entry, crc)

    def _read_strings(self, name, entry, shape):
        count = math.prod(shape)
        # Each string takes at least a one-byte length, and the lengths a 4-byte checksum.
        if count + 4 > entry.size:
            raise self._corrupt(name, entry, f"{count} strings cannot fit in the tensor's "
                                f"{entry.size} bytes")
        fd = self._check_extent(name, entry)
        data = os.pread(fd, entry.size, entry.offset)
        if len(data) != entry.size:
            raise self._truncated(name, entry)
        if count <= len(data) and max(data[:count], default=0) < 0x80:
            lengths, pos = list(data[:count]), count     # one-byte varints: the common case
        else:
            lengths, pos = self._varints(name, entry, data, count)
        if pos + 4 > len(data):
            raise self._corrupt(name, entry, "string lengths run past the tensor's bytes")
        crc = _length_crc(lengths)
        stored_length_crc = _U32.unpack_from(data, pos)[0]
        if stored_length_crc != crc32c.mask(crc):
            raise self._corrupt(name, entry, "the string lengths are damaged: The length "
                                f"checksum does not match: expected {stored_length_crc} but "
                                f"actual is {crc32c.mask(crc)}")
        crc = crc32c.extend(crc, data[pos:pos + 4])
        pos += 4
        if pos + sum(lengths) != len(data):
            raise self._corrupt(name, entry, "string lengths do not add up to the size")
        crc = crc32c.extend(crc, data[pos:])
        self._check_crc(name, entry, crc)
        out = np.empty(count, dtype=object)
        for i, size in enumerate(lengths):
            out[i] = data[pos:pos + size]
            pos += size
        return out.reshape(shape)

    def _varints(self, name, entry, data, count):
        lengths = []
        pos = 0
        for _ in range(count):
            size = shift = 0
            while True:
                if pos >= len(data) or shift > 63:
                    raise self._corrupt(name, entry, "bad string length")
                byte = data[pos]
                pos += 1
                size |= (byte & 0x7F) << shift
                if byte < 0x80:
                    break
                shift += 7
            if size >> 64:   # a tenth byte past bit 63: TF's varint64 refuses it too
                raise self._corrupt(name, entry, "bad string length")
            lengths.append(size)
        return lengths, pos

    def _check_extent(self, name, entry) -> int:
        """The data file's descriptor, once the entry's bytes are known to lie inside it."""
        fd = self._fd(name, entry)
        if entry.offset + entry.size > self._sizes[entry.shard_id]:
            raise self._truncated(name, entry)
        return fd

    def _data_path(self, entry) -> str:
        return data_filename(self._prefix, entry.shard_id, self._num_shards)

    def _fd(self, name, entry) -> int:
        shard = entry.shard_id
        fd = self._files.get(shard)
        if fd is None:
            if not 0 <= shard < self._num_shards:
                raise self._corrupt(name, entry, f"shard {shard} of {self._num_shards}")
            path = self._data_path(entry)
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                raise errors.NotFoundError(
                    None, None, f"{path}; No such file or directory (data file of checkpoint "
                    f"{self._prefix}, needed for tensor {name!r})") from None
            self._files[shard] = fd
            self._sizes[shard] = os.fstat(fd).st_size
        return fd

    def _check_crc(self, name, entry, crc):
        actual = crc32c.mask(crc)
        if actual != entry.crc32c:
            raise errors.DataLossError(
                None, None, f"TensorBundle at {self._prefix} shard {entry.shard_id} "
                f"({entry.size} bytes): Checksum does not match: stored {entry.crc32c} vs. "
                f"calculated on the restored bytes {actual}, reading tensor {name!r} from "
                f"{self._data_path(entry)} (the file is corrupt)")

    def _corrupt(self, name, entry, what):
        return errors.DataLossError(
            None, None, f"Corrupted checkpoint: tensor {name!r} in {self._data_path(entry)}: "
            f"{what}")

    def _truncated(self, name, entry):
        return self._corrupt(name, entry, f"truncated record at {entry.offset}: the file "
                             f"ends before the tensor's {entry.size} bytes (truncated?)")

    # -- lifetime ----------------------------------------------------------------------
    def close(self) -> None:
        """Closes the data files (the reader can still list keys, and reopens on read)."""
        files, self._files = self._files, {}
        for fd in files.values():
            os.close(fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_files", None):
            self.close()

    def __repr__(self):
        return f"<BundleReader {self._prefix!r}: {len(self._keys)} tensors>"


def _first_overlap(boxes):
    """The position in ``boxes`` (``[(start, stop), ...]`` per dimension) of a box that
    overlaps one listed before it, or None.

    A sweep along the dimension with the most distinct starts: each box is compared, all
    at once, only with the boxes still open there. A partition along one axis (TF's) costs
    a NumPy step per slice; the pairwise check it replaces took seconds for a few
    thousand slices a damaged index can list.
    """
    solid = [i for i, have in enumerate(boxes) if all(a < b for a, b in have)]
    if len(solid) < 2:
        return None   # an empty box overlaps nothing
    rank = len(boxes[solid[0]])
    if rank == 0:     # slices of a scalar: any two are the same
        return solid[1]
    position = np.array(solid)
    lo = np.array([[a for a, _ in boxes[i]] for i in solid], dtype=np.int64)
    hi = np.array([[b for _, b in boxes[i]] for i in solid], dtype=np.int64)
    axis = max(range(rank), key=lambda k: len(np.unique(lo[:, k])))
    opened = np.empty(0, dtype=np.intp)
    for i in np.argsort(lo[:, axis], kind="stable"):
        opened = opened[hi[opened, axis] > lo[i, axis]]
        hit = np.all(np.maximum(lo[opened], lo[i]) < np.minimum(hi[opened], hi[i]), axis=1)
        if hit.any():
            return int(max(position[i], position[opened[hit]].min()))
        opened = np.append(opened, i)
    return None


_POOL = None


def _read_pool():
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 1)),
                                   thread_name_prefix="scopeflow-bundle-read")
    return _POOL


def _parse(message_class, data: bytes, what: str):
    try:
        return message_class.FromString(data)
    except DecodeError:
        raise errors.DataLossError(None, None, what) from None


def _slice_text(proto, shape) -> str:
    """A slice as TF's spec text, ``0,4:-``."""
    return ":".join("-" if length == -1 else f"{start},{length}"
                    for start, length in _proto_extents(proto))


def _shape_text(dims) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def _type_name(enum: int) -> str:
    try:
        return protos.DATA_TYPE.values_by_number[enum].name
    except KeyError:
        return f"DataType({enum})"
