"""Joining and splitting strings: ``ReduceJoin``, ``UnsortedSegmentJoin``, ``StringSplit``
(``tf.string_split``: a set of one-byte delimiters) and ``StringSplitV2``
(``tf.strings.split``: one separator, or runs of whitespace), whose results are
``SparseTensor``s as in TF1; and ``StringFormat`` (``tf.strings.format``). None has a
gradient.
"""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array import shape_ops, slicing_ops
from scopeflow.ops.logging import logging_ops
from scopeflow.ops.math import arithmetic_ops, reduction_ops
from scopeflow.ops.strings.string_values import string_values, to_bytes

__all__ = ["reduce_join", "reduce_join_v1", "unsorted_segment_join", "string_split",
           "string_split_v2", "strings_split_v1", "string_format",
           "ngrams"]


def _text(attr) -> str:
    return attr.decode("utf-8") if isinstance(attr, bytes) else str(attr)


# ── ReduceJoin ───────────────────────────────────────────────────────────────────────
def _reduce_join_shape(x, axis, *, keep_dims, separator):
    rank = x.shape.ndims
    values = constant_value(axis)
    if values is None or rank is None:
        return TensorShape([None] * rank if keep_dims and rank is not None else None)
    axes = set()
    for v in np.asarray(values).reshape(-1).tolist():
        if not -rank <= v < rank:
            raise ValueError(f"Invalid reduction dimension {v} for input with {rank} "
                             "dimensions")
        axes.add(v % rank)
    dims = x.shape.as_tuple()
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _reduce_join_dtype(x, axis, *, keep_dims, separator):
    check_dtype(x, (_dtypes.string,), "inputs")
    return _dtypes.string


def _reduce_join_kernel(x, axis, *, keep_dims, separator):
    x = np.asarray(x, dtype=object)
    nd = x.ndim
    axes = []
    for v in np.asarray(axis).reshape(-1).tolist():
        if not -nd <= v < nd:
            raise errors.OutOfRangeError(
                None, None, f"Invalid reduction dimension {v} for input with {nd} "
                "dimension(s)")
        if v % nd in axes:
            raise errors.InvalidArgumentError(None, None,
                                              f"Duplicate reduction dimension {v}")
        axes.append(v % nd)
    axes.sort()  # joined in row-major order, whatever the order of the axes given
    kept = [i for i in range(nd) if i not in axes]
    moved = np.transpose(x, kept + axes)
    kept_shape = moved.shape[:len(kept)]
    width = int(np.prod(moved.shape[len(kept):], dtype=np.int64))
    rows = moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), width)
    sep = to_bytes(separator)
    out = np.empty(kept_shape, dtype=object)
    flat = out.reshape(-1)
    for i, row in enumerate(rows):
        flat[i] = sep.join(to_bytes(s) for s in row)
    if keep_dims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return out


reduce_join_op = OpDef(
    "ReduceJoin", shape=from_tensors(_reduce_join_shape), dtype=_reduce_join_dtype,
    kernel=_reduce_join_kernel, attrs={"keep_dims": False, "separator": ""}, grad=None,
    input_names=("inputs", "reduction_indices"))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (all of them when ``None``) with ``separator``.

    As TF 2.21 builds it: a ``ReduceJoin`` scope holding the axis and the op, which takes
    ``name`` (``ReduceJoin/<name>``)."""
    with name_scope(None, "ReduceJoin", [inputs]):
        inputs = convert_to_tensor(string_values(inputs), dtype=_dtypes.string)
        if axis is None:
            rank = inputs.shape.ndims
            if rank is not None:
                axis = convert_to_tensor(np.arange(rank - 1, -1, -1, dtype=np.int32))
            else:
                axis = arithmetic_ops.range(shape_ops.rank(inputs) - 1, -1, -1)
        return reduce_join_op.bind(inputs, axis, keep_dims=bool(keepdims),
                                   separator=separator, name=name or "ReduceJoin")


def reduce_join_v1(inputs, axis=None, keep_dims=None, separator="", name=None,
                   reduction_indices=None, keepdims=None):
    """``tf.compat.v1.reduce_join``: ``keep_dims`` and ``reduction_indices`` are the
    deprecated names of ``keepdims`` and ``axis``."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
    keepdims = keep_dims if keepdims is None else keepdims
    axis = reduction_indices if axis is None else axis
    return reduce_join(inputs, axis=axis, keepdims=bool(keepdims), separator=separator,
                       name=name)


# ── UnsortedSegmentJoin ──────────────────────────────────────────────────────────────
def _usj_shape(x, segment_ids, num_segments, *, separator):
    n = constant_value(num_segments)
    n = int(np.asarray(n).item()) if n is not None else None
    xs, ids = x.shape, segment_ids.shape
    if xs.ndims is None or ids.ndims is None:
        return TensorShape(None)
    return TensorShape([n] + list(xs.as_tuple()[ids.ndims:]))


def _usj_dtype(x, segment_ids, num_segments, *, separator):
    check_dtype(x, (_dtypes.string,), "inputs")
    check_dtype(segment_ids, (_dtypes.int32, _dtypes.int64), "segment_ids")
    check_dtype(num_segments, (_dtypes.int32, _dtypes.int64), "num_segments")
    return _dtypes.string


def _usj_kernel(x, segment_ids, num_segments, *, separator):
    x = np.asarray(x, dtype=object)
    ids = np.asarray(segment_ids)
    n = int(np.asarray(num_segments).item())
    if x.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(
            None, None, "segment_ids should have same dimensions as the first "
            f"{ids.ndim} dimensions of input, got: {list(ids.shape)} vs. {list(x.shape)}")
    flat_ids = ids.reshape(-1)
    if flat_ids.size and (flat_ids.min() < 0 or flat_ids.max() >= n):
        raise errors.InvalidArgumentError(
            None, None, "segment_ids are not allowed to exceed num_segments or to have "
            "negative values.")
    rows = x.reshape((flat_ids.size, -1))
    sep = to_bytes(separator)
    parts = [[[] for _ in range(rows.shape[1])] for _ in range(n)]
    for r, seg in enumerate(flat_ids.tolist()):
        for c in range(rows.shape[1]):
            parts[seg][c].append(to_bytes(rows[r, c]))
    out = np.empty((n, rows.shape[1]), dtype=object)
    for s in range(n):
        for c in range(rows.shape[1]):
            out[s, c] = sep.join(parts[s][c])
    return out.reshape((n,) + x.shape[ids.ndim:])


unsorted_segment_join_op = OpDef(
    "UnsortedSegmentJoin", shape=from_tensors(_usj_shape), dtype=_usj_dtype,
    kernel=_usj_kernel, attrs={"separator": ""}, grad=NO_GRADIENT,
    input_names=("inputs", "segment_ids", "num_segments"))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the rows of ``inputs`` whose ``segment_ids`` are equal, in their order;
    segments no row names are empty strings."""
    return unsorted_segment_join_op.bind(string_values(inputs), segment_ids, num_segments,
                                         separator=separator,
                                         name=name or "UnsortedSegmentJoin")


# ── StringSplit / StringSplitV2 ──────────────────────────────────────────────────────
def _split_shape(x, sep, **attrs):
    if x.ndims is not None and x.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.ndims}")
    if sep.ndims is not None and sep.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {sep.ndims}")
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


def _split_dtype(x, sep, **attrs):
    check_dtype(x, (_dtypes.string,), "input")
    check_dtype(sep, (_dtypes.string,), "delimiter")
    return [_dtypes.int64, _dtypes.string, _dtypes.int64]


def _sparse_result(flat, counts):
    """The three outputs of a split from all tokens in order and each string's token
    count, built by NumPy (a Python ``(row, column)`` tuple per token cost more than the
    split itself)."""
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    firsts = np.repeat(np.cumsum(counts) - counts, counts)
    indices = np.stack([rows, np.arange(total, dtype=np.int64) - firsts], axis=1)
    values = np.empty(total, dtype=object)
    values[:] = flat
    width = int(counts.max()) if len(counts) else 0
    return indices, values, np.array([len(counts), width], dtype=np.int64)


def _from_lists(tokens):
    """:func:`_sparse_result` of a list of token lists, one per string."""
    counts = np.fromiter(map(len, tokens), np.int64, len(tokens))
    return _sparse_result(list(itertools.chain.from_iterable(tokens)), counts)


def _as_bytes_list(x):
    """The elements of a string vector as a list of ``bytes`` (``str`` ones encoded)."""
    items = x.tolist()
    if not items or set(map(type, items)) == {bytes}:
        return items
    return [to_bytes(s) for s in items]


def _check_vector(x):
    x = np.asarray(x, dtype=object)
    if x.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"input must be a vector, got shape: {list(x.shape)}")
    return x


def _bounds(items, gap):
    """Where each string starts and ends in ``sep.join(items)`` for a ``gap``-byte sep."""
    lengths = np.fromiter(map(len, items), np.int64, len(items))
    starts = np.cumsum(lengths + gap) - (lengths + gap)
    return starts, starts + lengths


def _split_joined(items, byte: bytes, table=None):
    """All strings split at the one-byte ``byte`` in a single C call: ``byte.join(items)``
    split at ``byte`` is each string's tokens in turn (an empty string gives one empty
    token), and each string's count is one more than the ``byte``s inside it, counted by
    NumPy. ``table`` first maps other delimiter bytes to ``byte``."""
    joined = byte.join(items)
    if table is not None:
        joined = joined.translate(table)
    starts, ends = _bounds(items, 1)
    hits = np.flatnonzero(np.frombuffer(joined, np.uint8) == byte[0])
    counts = np.searchsorted(hits, ends) - np.searchsorted(hits, starts) + 1
    return joined.split(byte), counts


_SPACE = np.zeros(256, bool)
_SPACE[list(b" \t\n\r\x0b\x0c")] = True   # bytes.split()'s whitespace, as TF's isspace


def _split_whitespace(items):
    """``s.split()`` of every string in one C call on the strings joined by spaces; each
    string's count is its word starts (a non-space byte after a space or its start)."""
    joined = b" ".join(items)
    starts, ends = _bounds(items, 1)
    space = _SPACE[np.frombuffer(joined, np.uint8)]
    word = ~space
    word[1:] &= space[:-1]
    hits = np.flatnonzero(word)
    return joined.split(), np.searchsorted(hits, ends) - np.searchsorted(hits, starts)


def _string_split_kernel(x, delimiter, *, skip_empty):
    """An empty string has no tokens; any byte of ``delimiter`` splits (every byte when it
    is empty); ``skip_empty`` drops empty tokens."""
    delim = to_bytes(np.asarray(delimiter).item())
    items = _as_bytes_list(_check_vector(x))
    if not delim or not items:
        return _from_lists([[s[i:i + 1] for i in range(len(s))] for s in items])
    table = bytes.maketrans(delim, delim[:1] * len(delim)) if len(delim) > 1 else None
    flat, counts = _split_joined(items, delim[:1], table)
    lengths = np.fromiter(map(len, flat), np.int64, len(flat))
    if skip_empty:
        keep = lengths > 0
    else:   # only an empty string's one empty token goes
        keep = np.repeat(np.fromiter(map(bool, items), bool, len(items)), counts)
    if not keep.all():
        offsets = np.cumsum(counts) - counts
        counts = np.add.reduceat(keep.astype(np.int64), offsets)
        flat = list(itertools.compress(flat, keep.tolist()))
    return _sparse_result(flat, counts)


def _string_split_v2_kernel(x, sep, *, maxsplit):
    """One C split of all strings joined when it gives the same tokens (a one-byte ``sep``
    or whitespace, no ``maxsplit``); else each string's ``bytes.split``."""
    sep = to_bytes(np.asarray(sep).item()) or None
    items = _as_bytes_list(_check_vector(x))
    if maxsplit >= 0 or not items or (sep is not None and len(sep) != 1):
        return _from_lists([s.split(sep, maxsplit) for s in items])
    if sep is None:
        return _sparse_result(*_split_whitespace(items))
    return _sparse_result(*_split_joined(items, sep))


string_split_op = OpDef(
    "StringSplit", shape=_split_shape, dtype=_split_dtype, kernel=_string_split_kernel,
    attrs={"skip_empty": True}, num_outputs=3, grad=None, input_names=("input", "delimiter"))
string_split_v2_op = OpDef(
    "StringSplitV2", shape=_split_shape, dtype=_split_dtype, kernel=_string_split_v2_kernel,
    attrs={"maxsplit": -1}, num_outputs=3, grad=NO_GRADIENT, input_names=("input", "sep"))


def _check_result_type(result_type):
    if result_type == "RaggedTensor":
        raise NotImplementedError("result_type='RaggedTensor': scopeflow has no RaggedTensor;"
                                  " use result_type='SparseTensor'")
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None):
    """``tf.compat.v1.string_split``: splits a string vector at any byte of ``sep`` (one
    space by default; every byte when empty) into a ``SparseTensor``."""
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    sep = delimiter if sep is None else sep
    _check_result_type(result_type)
    with name_scope(name, "StringSplit", [source]):
        sep = convert_to_tensor(" " if sep is None else sep, dtype=_dtypes.string)
        source = convert_to_tensor(string_values(source), dtype=_dtypes.string)
        indices, values, shape = string_split_op.bind(source, sep,
                                                      skip_empty=bool(skip_empty))
        return SparseTensor(indices, values, shape)


def string_split_v2(source, sep=None, maxsplit=-1):
    """The ``StringSplitV2`` op on a string vector, as a ``SparseTensor``."""
    sep = convert_to_tensor("" if sep is None else sep, dtype=_dtypes.string)
    source = convert_to_tensor(string_values(source), dtype=_dtypes.string)
    indices, values, shape = string_split_v2_op.bind(source, sep, maxsplit=int(maxsplit))
    return SparseTensor(indices, values, shape)


def strings_split_v1(input=None, sep=None, maxsplit=-1, result_type="SparseTensor",  # noqa: A002
                     source=None, name=None):
    """``tf.compat.v1.strings.split``: splits at ``sep`` (runs of whitespace when ``None``),
    at most ``maxsplit`` times; a scalar is taken as a vector of one string."""
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = source if input is None else input  # noqa: A001
    _check_result_type(result_type)
    with name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor(string_values(input), dtype=_dtypes.string,  # noqa: A001
                                  name="input") if not isinstance(input, Tensor) else input
        rank = input.shape.ndims
        if rank == 0:
            input = shape_ops.expand_dims(input, 0)  # noqa: A001
        elif rank is not None and rank > 1:
            raise NotImplementedError(
                "tf.strings.split of a tensor of rank > 1 goes through a RaggedTensor, "
                "which scopeflow lacks; reshape it to a vector first")
        return string_split_v2(input, sep=sep, maxsplit=maxsplit)


# ── StringFormat (the op is tf.print's formatting: scopeflow/ops/logging) ───────────
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by one of
    ``inputs`` (a lone tensor is a list of one) as ``tf.print`` writes it, showing
    ``summarize`` entries at each end of every dimension."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    expected = template.count(placeholder)
    if expected != len(inputs):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in "
                         "template matches inputs length.")
    return logging_ops.string_format(template, inputs, placeholder=placeholder,
                                     summarize=summarize, name=name)


# ── StringNGrams (tf.strings.ngrams of dense tensors) ────────────────────────────────
def _ngrams_shape(data, splits, **attrs):
    return [TensorShape([None]), TensorShape([splits[0] if splits.ndims == 1 else None])]


def _ngrams_dtype(data, splits, **attrs):
    check_dtype(data, (_dtypes.string,), "data")
    check_dtype(splits, (_dtypes.int32, _dtypes.int64), "data_splits")
    return [_dtypes.string, splits]


def _row_ngrams(row, width, num, pad, sep, left_pad, right_pad):
    """TF's CreateNgrams: ``num`` n-grams of ``width`` tokens, padded ``pad`` each side."""
    out = []
    for k in range(num):
        left = max(0, pad - k)
        right = max(0, pad - (num - (k + 1)))
        tokens = width - (left + right)
        start = 0 if left > 0 else k - pad
        out.append(sep.join([left_pad] * left + row[start:start + tokens] + [right_pad] * right))
    return out


def _ngrams_kernel(data, splits, *, separator, ngram_widths, left_pad, right_pad, pad_width,
                   preserve_short_sequences):
    tokens = [to_bytes(s) for s in np.asarray(data, dtype=object).tolist()]
    bounds = np.asarray(splits).tolist()
    sep, lpad, rpad = to_bytes(separator), to_bytes(left_pad), to_bytes(right_pad)

    def pad_for(width):
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    values, out_splits = [], [0]
    for r in range(len(bounds) - 1):
        row = tokens[bounds[r]:bounds[r + 1]]
        grams = []
        for width in ngram_widths:
            pad = pad_for(width)
            num = max(0, len(row) + 2 * pad - width + 1)
            grams += _row_ngrams(row, width, num, pad, sep, lpad, rpad)
        if preserve_short_sequences and not grams and row:
            width = len(row) + 2 * pad_width
            grams = _row_ngrams(row, width, 1, pad_for(width), sep, lpad, rpad)
        values += grams
        out_splits.append(len(values))
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out, np.array(out_splits, dtype=np.asarray(splits).dtype)


string_ngrams_op = OpDef(
    "StringNGrams", shape=_ngrams_shape, dtype=_ngrams_dtype, kernel=_ngrams_kernel,
    attrs={"separator": None, "ngram_widths": None, "left_pad": None, "right_pad": None,
           "pad_width": None, "preserve_short_sequences": None},
    num_outputs=2, grad=NO_GRADIENT, input_names=("data", "data_splits"))


def _ngram_pads(pad_values, padding_width):
    """``ngrams``' (left, right) pad strings, checking ``pad_values`` and
    ``padding_width`` as TF does."""
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if not all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values[0], pad_values[1]
    elif isinstance(pad_values, (str, bytes)):
        left_pad = right_pad = pad_values
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    return left_pad, right_pad


def _ngram_rows(data, rank, dims):
    """``data``'s values, flattened, and the row splits of its last dimension's rows."""
    with name_scope(None, "RaggedFromTensor"):  # the rows, where TF makes its ragged rows
        flat = data if rank == 1 else shape_ops.reshape(data, [-1])
        if all(d is not None for d in dims):
            rows = int(np.prod(dims[:-1], dtype=np.int64))
            splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * dims[-1])
        else:
            dyn = shape_ops.shape(data)
            rows = reduction_ops.reduce_prod(dyn[:-1])
            splits = arithmetic_ops.cast(arithmetic_ops.range(rows + 1) * dyn[-1],
                                         _dtypes.int64)
    return flat, splits


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of each row (the last dimension) of a dense string tensor, joined by
    ``separator``; ``pad_values`` (one string or a (left, right) pair) pads each side by
    ``padding_width`` (``ngram_width - 1`` by default). The result replaces the last
    dimension by the n-grams. RaggedTensor inputs are not supported."""
    with name_scope(name, "StringNGrams", [data]):
        left_pad, right_pad = _ngram_pads(pad_values, padding_width)
        data = data if isinstance(data, Tensor) else convert_to_tensor(
            string_values(data), dtype=_dtypes.string, name="data")
        rank = data.shape.ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        pad_width = 0 if pad_values is None else -1 if padding_width is None else padding_width
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for width in widths:
            if width < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        dims = data.shape.as_tuple()
        flat, splits = _ngram_rows(data, rank, dims)
        values, _ = string_ngrams_op.bind(
            flat, splits, separator=separator, ngram_widths=[int(w) for w in widths],
            left_pad=left_pad, right_pad=right_pad, pad_width=int(pad_width),
            preserve_short_sequences=bool(preserve_short_sequences), name="StringNGrams")
        if rank == 1:
            return values
        if all(d is not None for d in dims[:-1]):
            return shape_ops.reshape(values, list(dims[:-1]) + [-1])
        return shape_ops.reshape(values, slicing_ops.concat(
            [shape_ops.shape(data)[:-1], [-1]], axis=0))
