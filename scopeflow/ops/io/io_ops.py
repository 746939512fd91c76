"""Checkpoint ops: ``SaveV2`` and ``RestoreV2`` (TensorFlow's V2 tensor bundle).

``tf.train.Saver`` builds these exactly as TF1 does (``save/SaveV2``, ``save/RestoreV2``),
so a graph's op names match TF and ``saver_def.restore_op_name`` can be run directly.
The kernels call the bundle layer (:mod:`scopeflow.io.tensor_bundle`): writes are atomic
(temp files, fsync, rename, index last) and every read is CRC-checked.
"""

from __future__ import annotations

import os
import re

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, broadcast_shape, same_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos, sstable
from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.io.tensor_bundle import BundleReader, data_filename, index_filename, write_bundle
from scopeflow.ops.array_ops import stack

__all__ = ["save_v2", "restore_v2", "sharded_filename", "merge_v2_checkpoints", "string_join",
           "regex_full_match", "read_file", "write_file"]


def _as_str(x) -> str:
    x = x.item() if isinstance(x, np.ndarray) else x
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


def _check_names(op_type, prefix, tensor_names, shape_and_slices, n):
    if prefix.ndims not in (None, 0):
        raise ValueError(f"{op_type}: prefix must be a scalar string, got shape {prefix}")
    for what, s in (("tensor_names", tensor_names), ("shape_and_slices", shape_and_slices)):
        if s.ndims not in (None, 1):
            raise ValueError(f"{op_type}: {what} must be a 1-D string tensor, got shape {s}")
        if s.ndims == 1 and s[0] is not None and s[0] != n:
            raise ValueError(f"{op_type}: {what} has {s[0]} entries for {n} tensors")


def _slice_specs(ctx, shape_and_slices, n):
    """The ``shape_and_slices`` strings (``"10 4 0,4:-"``: a slice of a partitioned variable;
    ``""``: the whole tensor)."""
    specs = [_as_str(s) for s in np.asarray(shape_and_slices).reshape(-1)]
    if len(specs) != n:
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Got {len(specs)} shape_and_slices for {n} tensors")
    return specs


def _string_inputs(prefix, tensor_names, shape_and_slices):
    """The three string inputs, converted inside the op's scope (``save/SaveV2/...``)."""
    if not isinstance(prefix, Tensor):
        prefix = convert_to_tensor(prefix, dtype=_dtypes.string, name="prefix")
    if not isinstance(tensor_names, Tensor):
        tensor_names = convert_to_tensor(list(tensor_names), dtype=_dtypes.string,
                                         name="tensor_names")
    if not isinstance(shape_and_slices, Tensor):
        shape_and_slices = convert_to_tensor(list(shape_and_slices), dtype=_dtypes.string,
                                             name="shape_and_slices")
    return prefix, tensor_names, shape_and_slices


# ── SaveV2 ───────────────────────────────────────────────────────────────────────────
def _save_v2_shape(prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    _check_names("SaveV2", prefix, tensor_names, shape_and_slices, len(tensors))
    return []


def _save_v2_dtype(prefix, tensor_names, shape_and_slices, *tensors, dtypes):
    if list(tensors) != list(dtypes):
        raise TypeError(f"SaveV2: the tensors' dtypes {[d.name for d in tensors]} differ from "
                        f"the dtypes attr {[d.name for d in dtypes]}")
    return []


def _save_v2_kernel(ctx, prefix, tensor_names, shape_and_slices, *tensors, dtypes):

    names = [_as_str(s) for s in np.asarray(tensor_names).reshape(-1)]
    if len(names) != len(tensors):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Got {len(names)} tensor names for {len(tensors)} tensors")
    specs = _slice_specs(ctx, shape_and_slices, len(names))
    arrays = [np.asarray(t, dtype=d.as_numpy_dtype) for t, d in zip(tensors, dtypes)]
    prefix = _as_str(prefix)
    try:
        write_bundle(prefix, names, arrays, slices=specs)
    except OSError as e:
        raise _os_error(ctx, e, f"Failed to write checkpoint {prefix}") from None
    except ValueError as e:
        raise errors.InvalidArgumentError(None, ctx.op, str(e)) from None


_OS_ERRORS = {FileNotFoundError: errors.NotFoundError, NotADirectoryError: errors.NotFoundError,
              PermissionError: errors.PermissionDeniedError,
              FileExistsError: errors.AlreadyExistsError}


def _os_error(ctx, e, what):
    """An OSError as TF's error class, naming the file (``NotFoundError``, ...)."""
    cls = _OS_ERRORS.get(type(e)) or errors.error_for_os_error(e)
    name = f" ({e.filename})" if getattr(e, "filename", None) else ""
    return cls(None, ctx.op, f"{what}: {e.strerror or e}{name}")


save_v2_op = OpDef("SaveV2", shape=_save_v2_shape, dtype=_save_v2_dtype, kernel=_save_v2_kernel,
                   attrs={"dtypes": None}, num_outputs=0, stateful=True, grad=NO_GRADIENT,
                   input_names=("prefix", "tensor_names", "shape_and_slices", "tensors"))


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """Saves ``tensors`` under ``tensor_names`` in the V2 checkpoint ``prefix``."""
    tensors = list(tensors)
    with name_scope(name, "SaveV2") as scope:
        prefix, tensor_names, shape_and_slices = _string_inputs(prefix, tensor_names,
                                                                shape_and_slices)
        tensors = [t if isinstance(t, Tensor) else convert_to_tensor(t, as_ref=True)
                   for t in tensors]
        return save_v2_op.create([prefix, tensor_names, shape_and_slices, *tensors],
                                 {"dtypes": [t.dtype.base_dtype for t in tensors]}, scope)


# ── RestoreV2 ────────────────────────────────────────────────────────────────────────
def _restore_v2_shape(prefix, tensor_names, shape_and_slices, *, dtypes):
    _check_names("RestoreV2", prefix, tensor_names, shape_and_slices, len(dtypes))
    return [TensorShape(None)] * len(dtypes)


def _restore_v2_kernel(ctx, prefix, tensor_names, shape_and_slices, *, dtypes):

    names = [_as_str(s) for s in np.asarray(tensor_names).reshape(-1)]
    if len(names) != len(dtypes):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Got {len(names)} tensor names for {len(dtypes)} dtypes")
    specs = _slice_specs(ctx, shape_and_slices, len(names))
    out = []
    prefix = _as_str(prefix)
    try:
        reader = BundleReader(prefix)
    except OSError as e:
        raise _os_error(ctx, e, f"Failed to open checkpoint {prefix}") from None
    with reader:
        # Every key and dtype is checked before any tensor is read (TF's messages).
        for name, dtype in zip(names, dtypes):
            if name not in reader:
                raise errors.NotFoundError(None, ctx.op, f"Key {name} not found in checkpoint")
            saved = reader.dtype(name)
            if saved.base_dtype != dtype.base_dtype:
                raise errors.InvalidArgumentError(
                    None, ctx.op, f"tensor_name = {name}; expected dtype "
                    f"{_dtypes.type_string(dtype)} does not equal original dtype "
                    f"{_dtypes.type_string(saved)}")
        for name, spec in zip(names, specs):
            try:
                out.append(reader.read(name, spec))
            except ValueError as e:  # a malformed spec
                raise errors.InvalidArgumentError(None, ctx.op, str(e)) from None
    return out[0] if len(out) == 1 else tuple(out)


def _restore_v2_dtype(*inputs, dtypes):
    return [d.base_dtype for d in dtypes]


def _restore_v2_num_outputs(attrs, n_inputs):
    return len(attrs["dtypes"])


restore_v2_op = OpDef("RestoreV2", shape=_restore_v2_shape, dtype=_restore_v2_dtype,
                      kernel=_restore_v2_kernel, attrs={"dtypes": None},
                      num_outputs=_restore_v2_num_outputs, stateful=True,
                      grad=NO_GRADIENT, input_names=("prefix", "tensor_names", "shape_and_slices"))


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """Reads the named tensors of the V2 checkpoint ``prefix``; one output per name."""
    with name_scope(name, "RestoreV2") as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        op = restore_v2_op.create(
            list(inputs), {"dtypes": [_dtypes.as_dtype(d).base_dtype for d in dtypes]}, scope)
    outs = op.outputs
    return outs[0] if len(outs) == 1 else list(outs)




# TF1's ``Saver(sharded=True)`` writes each device's variables to
# ``<prefix>_temp/part-0000i-of-0000n`` and then merges them into ``<prefix>``
# (``ShardedFilename``, ``MergeV2Checkpoints``). The two string ops it uses on the way
# (``StaticRegexFullMatch``, ``StringJoin``) are declared here because the Saver is their
# only user so far.

# ── ShardedFilename ──────────────────────────────────────────────────────────────────
def _sharded_filename_shape(basename, shard, num_shards):
    return TensorShape([])


def _sharded_filename_dtype(basename, shard, num_shards):
    return _dtypes.string


def _sharded_filename_kernel(basename, shard, num_shards):
    return np.array(f"{_as_str(basename)}-{int(shard):05d}-of-{int(num_shards):05d}".encode(),
                    dtype=object)


sharded_filename_op = OpDef(
    "ShardedFilename", shape=_sharded_filename_shape, dtype=_sharded_filename_dtype,
    kernel=_sharded_filename_kernel, grad=NO_GRADIENT,
    input_names=("basename", "shard", "num_shards"))


def sharded_filename(basename, shard, num_shards, name=None):
    """``<basename>-<shard:05d>-of-<num_shards:05d>``: the file name of one save shard."""
    return sharded_filename_op.bind(basename, shard, num_shards, name=name)


# ── MergeV2Checkpoints ───────────────────────────────────────────────────────────────
def _merge_v2_rule(checkpoint_prefixes, destination_prefix, **attrs):
    """MergeV2Checkpoints' shape and dtype rules: no outputs."""
    return []


def _merge_v2_kernel(ctx, checkpoint_prefixes, destination_prefix, *, delete_old_dirs,
                     allow_missing_files):
    prefixes = [_as_str(p) for p in np.asarray(checkpoint_prefixes).reshape(-1)]
    try:
        _merge_bundles(prefixes, _as_str(destination_prefix), allow_missing_files)
    except OSError as e:
        raise _os_error(ctx, e, "Failed to merge checkpoint shards") from None
    if delete_old_dirs:
        for p in prefixes:  # "<prefix>_temp": removed once empty, as TF
            try:
                os.rmdir(os.path.dirname(p))
            except OSError:
                pass


def _merge_bundles(prefixes, merged, allow_missing_files):
    """TF's ``MergeBundles``: data files renamed into place, then one merged index.

    The merged ``.index`` is written to a temporary name, synced and renamed last, so the
    checkpoint ``merged`` appears complete or not at all.
    """

    parts = []
    for p in prefixes:
        if not os.path.exists(index_filename(p)):
            if allow_missing_files:
                continue
            raise errors.NotFoundError(None, None, f"Checkpoint shard {p} has no index file")
        with open(index_filename(p), "rb") as f:
            table = sstable.parse_table(f.read(), index_filename(p))
        header = protos.BundleHeaderProto.FromString(table[0][1])
        parts.append((p, header, table[1:]))
    total = sum(h.num_shards for _, h, _ in parts)
    if not parts:
        raise errors.InvalidArgumentError(None, None, "No checkpoint shards to merge")
    entries, first_shard = {}, 0
    for p, header, table in parts:
        for key, value in table:
            entry = protos.BundleEntryProto.FromString(value)
            if entry.slices:  # a partitioned variable's entry: its parts may be in any shard
                if key in entries and entries[key].slices:
                    entries[key].slices.extend(entry.slices)
                    continue
            else:
                entry.shard_id += first_shard
            if key in entries:
                raise errors.InvalidArgumentError(
                    None, None, "Duplicate tensor keys across shards: "
                    f"{key.decode(errors='replace')!r}")
            entries[key] = entry
        for i in range(header.num_shards):
            os.replace(data_filename(p, i, header.num_shards),
                       data_filename(merged, first_shard + i, total))
        first_shard += header.num_shards
    merged_header = protos.BundleHeaderProto(num_shards=total, version=parts[0][1].version)
    table = sstable.build_table([(b"", merged_header.SerializeToString())] +
                                sorted((k, e.SerializeToString()) for k, e in entries.items()))
    atomic_write_bytes(index_filename(merged), table)
    for p, _, _ in parts:
        os.remove(index_filename(p))


merge_v2_checkpoints_op = OpDef(
    "MergeV2Checkpoints", shape=_merge_v2_rule, dtype=_merge_v2_rule, kernel=_merge_v2_kernel,
    attrs={"delete_old_dirs": True, "allow_missing_files": False}, num_outputs=0,
    stateful=True, grad=NO_GRADIENT, input_names=("checkpoint_prefixes", "destination_prefix"))


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True,
                         allow_missing_files=False, name=None):
    """Merges the bundles ``checkpoint_prefixes`` into one bundle ``destination_prefix``."""
    if isinstance(checkpoint_prefixes, (list, tuple)) and \
            any(isinstance(p, Tensor) for p in checkpoint_prefixes):
        with name_scope(name, "MergeV2Checkpoints") as scope:
            packed = stack(list(checkpoint_prefixes), name="checkpoint_prefixes")
            return merge_v2_checkpoints_op.create(
                [packed, convert_to_tensor(destination_prefix, dtype=_dtypes.string)],
                {"delete_old_dirs": delete_old_dirs, "allow_missing_files": allow_missing_files},
                scope)
    return merge_v2_checkpoints_op.bind(checkpoint_prefixes, destination_prefix,
                                        delete_old_dirs=delete_old_dirs,
                                        allow_missing_files=allow_missing_files, name=name)


# ── StringJoin ───────────────────────────────────────────────────────────────────────
def _string_join_kernel(*inputs, N, separator):  # noqa: N803 - TF's attr name
    parts = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in inputs])
    sep = separator.encode() if isinstance(separator, str) else separator
    out = np.empty(parts[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(p[idx] if isinstance(p[idx], bytes) else str(p[idx]).encode()
                            for p in parts)
    return out


def _string_join_shape(*shapes, N, separator):  # noqa: N803
    out = TensorShape([])
    for s in shapes:
        out = broadcast_shape(out, s)
    return out


def _string_join_dtype(*dtypes, N, separator):  # noqa: N803
    return _dtypes.string


string_join_op = OpDef(
    "StringJoin", shape=_string_join_shape, dtype=_string_join_dtype,
    kernel=_string_join_kernel, attrs={"N": None, "separator": ""}, grad=None,
    input_names=("inputs",))


def string_join(inputs, separator="", name=None):
    """Joins string tensors elementwise (broadcasting scalars) with ``separator``."""
    with name_scope(name, "StringJoin") as scope:
        ts = [x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=_dtypes.string)
              for x in inputs]
        return string_join_op.create(ts, {"N": len(ts), "separator": separator},
                                     scope).outputs[0]


# ── StaticRegexFullMatch ─────────────────────────────────────────────────────────────
def _regex_full_match_dtype(x, *, pattern):
    return _dtypes.bool_


def _regex_full_match_kernel(x, *, pattern):
    regex = re.compile(pattern.decode() if isinstance(pattern, bytes) else pattern)
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=bool)
    for idx in np.ndindex(arr.shape):
        s = arr[idx]
        out[idx] = regex.fullmatch(s.decode("utf-8", "surrogateescape")
                                   if isinstance(s, bytes) else str(s)) is not None
    return out


static_regex_full_match_op = OpDef(
    "StaticRegexFullMatch", shape=same_shape, dtype=_regex_full_match_dtype,
    kernel=_regex_full_match_kernel,
    attrs={"pattern": None}, grad=NO_GRADIENT, input_names=("input",))


def regex_full_match(input, pattern, name=None):  # noqa: A002 - TF's name
    """Whether each string fully matches ``pattern`` (a Python string: the static op)."""
    return static_regex_full_match_op.bind(input, pattern=pattern, name=name)


# ── ReadFile ─────────────────────────────────────────────────────────────────────────
# Stateful (unlike TF's), so a plan never folds a file's contents into a constant when it
# is compiled: every run reads the file as it is then.
def _file_error(e, path):
    """An OSError as TF's POSIX file system reports it: ``<path>; <strerror>``."""
    return errors.file_error(e, path, f"{path}; {e.strerror or e}")


def _read_file_shape(filename):
    return TensorShape([])


def _read_file_dtype(filename):
    return _dtypes.string


def _read_file_kernel(ctx, filename):
    path = _as_str(filename)
    try:
        with open(path, "rb") as f:
            return np.array(f.read(), dtype=object)
    except OSError as e:
        raise _file_error(e, path) from None


read_file_op = OpDef("ReadFile", shape=_read_file_shape, dtype=_read_file_dtype,
                     kernel=_read_file_kernel, stateful=True, grad=NO_GRADIENT,
                     input_names=("filename",))


def read_file(filename, name=None):
    """The contents of the file ``filename`` (a scalar string)."""
    return read_file_op.bind(filename, name=name or "ReadFile")


# ── WriteFile ────────────────────────────────────────────────────────────────────────
def _write_file_shape(filename, contents):
    return []


def _write_file_dtype(filename, contents):
    return []


def _write_file_kernel(ctx, filename, contents):
    path = _as_str(filename)
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)  # TF's WriteFile creates the directories
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else str(data).encode("utf-8"))
    except OSError as e:
        raise _file_error(e, path) from None


write_file_op = OpDef("WriteFile", shape=_write_file_shape, dtype=_write_file_dtype,
                      kernel=_write_file_kernel, num_outputs=0, stateful=True,
                      grad=NO_GRADIENT, input_names=("filename", "contents"))


def write_file(filename, contents, name=None):
    """Writes ``contents`` to the file ``filename``, creating its directories."""
    return write_file_op.bind(filename, contents, name=name or "WriteFile")
