"""``tf.train.VocabInfo`` and the vocabulary remapping ``tf.train.warm_start`` does with it.

A model whose vocabulary changed warm-starts an embedding (or a layer whose rows or
columns are vocabulary entries) from the old checkpoint: the row (``axis=0``) or column
(``axis=1``) of each entry of the new vocabulary comes from that entry's row / column in
the old checkpoint; entries the old vocabulary lacks, and the ``num_oov_buckets`` extra
rows / columns, get ``backup_initializer``'s values (zeros by default). That is TF's
``GenerateVocabRemap`` + ``LoadAndRemapMatrix``, here computed with NumPy when
``warm_start`` is called (TF reads the checkpoint when the initializer runs: the values are
the same); the backup values are made in the graph, in TF's order, by the initializer.
Vocabulary files hold one entry per line, as TF reads them.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.ops import array_ops, constant_op
from scopeflow.ops.state import state_ops
from scopeflow.ops.state.init_ops import zeros_initializer
from scopeflow.train.checkpoint_utils import load_checkpoint

__all__ = ["VocabInfo", "warm_start_var_with_vocab"]


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How to warm-start one variable whose rows (``axis=0``) or columns (``axis=1``) are
    vocabulary entries: new and old vocabulary files, sizes (``old_vocab_size=-1``: the
    whole file), OOV buckets and the initializer of what the old checkpoint lacks."""

    __slots__ = ()

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis != 0 and axis != 1:
            raise ValueError("The only supported values for the axis argument are 0 and 1.  "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def _vocab(path, size=-1, offset=0) -> list:
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = lines[offset:]
    return lines if size is None or size < 0 else lines[:size]


def _remapping(new_path, old_path, offset, count, old_size=-1) -> np.ndarray:
    """TF's ``GenerateVocabRemap``: each new entry's index in the old vocabulary, or -1."""
    old = {}
    for i, key in enumerate(_vocab(old_path, old_size)):
        old.setdefault(key, i)
    return np.array([old.get(k, -1) for k in _vocab(new_path, count, offset)], np.int64)


def _remapped(old, rows, cols, initializer):
    """``LoadAndRemapMatrix``: old cells where both remappings hit, else the initializer's
    values in row-major order (``initializer([missing, 1])``, as TF consumes them)."""
    hit = (rows[:, None] >= 0) & (cols[None, :] >= 0)
    present = old[np.maximum(rows, 0)[:, None], np.maximum(cols, 0)[None, :]][hit]
    missing = int(hit.size - hit.sum())
    order = np.empty(hit.size, np.int64)
    flat_hit = hit.reshape(-1)
    order[flat_hit] = np.arange(present.size)
    order[~flat_hit] = present.size + np.arange(missing)
    values = constant_op.constant(present.astype(np.float32))
    if missing:
        backup = array_ops.reshape(convert_to_tensor(initializer([missing, 1])), [-1])
        values = array_ops.concat([values, backup], 0)
    return array_ops.reshape(array_ops.gather(values, order), list(hit.shape))


def _part_value(part, old, vocab_info, initializer):
    """The initial value of one variable (or one partition of a partitioned one)."""
    shape = part.shape.as_list()
    info = getattr(part, "_save_slice_info", None)
    offset = int(info.var_offset[0]) if info is not None else 0
    if vocab_info.axis == 0:
        n_vocab = vocab_info.new_vocab_size
        oov_here = min(shape[0], max(0, offset + shape[0] - n_vocab))
        n_load = shape[0] - oov_here
        if offset > n_vocab:
            return initializer(shape)
        rows = _remapping(vocab_info.new_vocab, vocab_info.old_vocab, offset, n_load,
                          vocab_info.old_vocab_size)
        cols = np.arange(shape[1], dtype=np.int64)
        value = _remapped(old, rows, cols, initializer)
        if oov_here:
            value = array_ops.concat([value, initializer([oov_here, shape[1]])], 0)
        return value
    rows = np.arange(offset, offset + shape[0], dtype=np.int64)
    cols = _remapping(vocab_info.new_vocab, vocab_info.old_vocab, 0, vocab_info.new_vocab_size)
    value = _remapped(old, rows, cols, initializer)
    if vocab_info.num_oov_buckets:
        value = array_ops.concat(
            [value, initializer([shape[0], vocab_info.num_oov_buckets])], 1)
    return value


def warm_start_var_with_vocab(parts, ckpt, prev_tensor_name, vocab_info):
    """Makes each part's initializer the remapped checkpoint tensor (TF's
    ``_warm_start_var_with_vocab``); ``parts`` are a variable or a partitioned one's parts."""
    if not (vocab_info.new_vocab and vocab_info.new_vocab_size and ckpt and
            vocab_info.old_vocab):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, "
                         "current_vocab_size, prev_ckpt, prev_vocab_path}.")
    initializer = vocab_info.backup_initializer or zeros_initializer()
    if not callable(initializer):
        raise TypeError(f"initializer must be callable, instead of being {initializer} of "
                        f"type {type(initializer)}.")
    old = np.asarray(load_checkpoint(ckpt).get_tensor(prev_tensor_name))
    for part in parts:
        if part.dtype.base_dtype != dtypes.float32:
            raise TypeError("Currently, only float32 is supported. Received dtype: "
                            f"{part.dtype.base_dtype}")
        if part.shape.ndims != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {part.shape.as_list()}")
        value = _part_value(part, old, vocab_info, initializer)
        part._initializer_op = state_ops.assign(part._ref(), value).op
