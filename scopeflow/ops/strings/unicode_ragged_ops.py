"""Strings to RaggedTensors: ``UnicodeDecode``/``UnicodeDecodeWithOffsets`` and the
``tf.strings`` functions built on them (``unicode_decode``, ``unicode_split`` and their
``_with_offsets`` forms) and on ``StringSplit`` (``bytes_split``).

The decode ops take a vector of strings and give the row splits (int64) and the code
points (int32) of all rows, with each character's byte offset for the ``WithOffsets``
form. An ill-formed stretch (Python's decoders find each maximal ill-formed subsequence,
as ICU does) becomes ``replacement_char`` (``errors='replace'``), is dropped (``'ignore'``)
or fails the run (``'strict'``); ``replace_control_characters`` treats U+0000..U+001F the
same way. An input of rank ``k > 1`` gives a RaggedTensor whose outer ``k - 1`` dimensions
are uniform, as TF's.
"""

from __future__ import annotations

import codecs

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors as errors_
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import shape_ops
from scopeflow.ops.strings.join_split_ops import string_split_op
from scopeflow.ops.strings.string_ops import _check_attr_in, _text, unicode_encode
from scopeflow.ops.strings.string_values import to_bytes
from scopeflow.ragged.ragged_tensor import RaggedTensor

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_split",
           "unicode_split_with_offsets", "bytes_split"]

_ERROR_MODES = ("strict", "replace", "ignore")


def _char_widths(cps: np.ndarray, enc: str, text: str) -> np.ndarray:
    """Each decoded character's length in bytes (vectorised for the UTF encodings)."""
    name = codecs.lookup(enc).name
    if name == "utf-8":
        return 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
    if name.startswith("utf-16"):
        return np.where(cps >= 0x10000, 4, 2)
    if name.startswith("utf-32"):
        return np.full(cps.shape, 4)
    return np.array([len(c.encode(enc)) for c in text], dtype=np.int64)


def _decode_one(s: bytes, enc, mode, replacement, control):
    """The code points of ``s`` and their byte offsets, errors handled as ``mode`` says."""
    cps, offs, pos = [], [], 0
    while pos < len(s):
        try:
            text, end, bad = s[pos:].decode(enc), len(s), None
        except UnicodeDecodeError as e:
            end = pos + e.start
            text, bad = s[pos:end].decode(enc), (end, pos + e.end)
        points = np.array([ord(c) for c in text], dtype=np.int64)
        widths = _char_widths(points, enc, text)
        cps.append(points)
        offs.append(pos + np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
                    if len(points) else np.zeros(0, np.int64))
        if bad is None:
            break
        if mode == "strict":
            raise errors_.InvalidArgumentError(None, None,
                                               "Invalid formatting on input string")
        if mode == "replace":
            cps.append(np.array([replacement], np.int64))
            offs.append(np.array([bad[0]], np.int64))
        pos = bad[1]
    points = np.concatenate(cps) if cps else np.zeros(0, np.int64)
    starts = np.concatenate(offs) if offs else np.zeros(0, np.int64)
    if control:
        is_control = points < 0x20
        if mode == "ignore":
            points, starts = points[~is_control], starts[~is_control]
        else:
            points = np.where(is_control, replacement, points)
    return points, starts


def _decode_kernel(x, input_encoding, errors, replacement_char, replace_control_characters,
                   Tsplits, offsets):  # noqa: N803 - TF's attr name
    enc = _text(input_encoding)
    try:
        codecs.lookup(enc)
    except LookupError:
        raise errors_.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {enc}") from None
    rows = [_decode_one(to_bytes(s), enc, _text(errors), int(replacement_char),
                        bool(replace_control_characters)) for s in np.asarray(x).reshape(-1)]
    lengths = [len(p) for p, _ in rows]
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    points = np.concatenate([p for p, _ in rows]).astype(np.int32) if rows else \
        np.zeros(0, np.int32)
    if not offsets:
        return splits, points
    starts = np.concatenate([o for _, o in rows]).astype(np.int64) if rows else \
        np.zeros(0, np.int64)
    return splits, points, starts


def _decode_shape(x, **attrs):
    x = x.with_rank(1)
    n = x[0].value
    out = [TensorShape([None if n is None else n + 1]), TensorShape([None])]
    return out + [TensorShape([None])] if attrs.get("_offsets") else out


def _decode_dtype(x, **attrs):
    check_dtype(x, (_dtypes.string,), "input")
    return [_dtypes.int64, _dtypes.int32]


_DECODE_ATTRS = {"input_encoding": None, "errors": "replace", "replacement_char": 65533,
                 "replace_control_characters": False, "Tsplits": _dtypes.int64}

def _unicode_decode_kernel(x, **a):
    return _decode_kernel(x, offsets=False, **a)


def _unicode_decode_with_offsets_kernel(x, **a):
    return _decode_kernel(x, offsets=True, **a)


unicode_decode_op = OpDef(
    "UnicodeDecode", shape=_decode_shape, dtype=_decode_dtype,
    kernel=_unicode_decode_kernel, attrs=_DECODE_ATTRS,
    num_outputs=2, grad=NO_GRADIENT, input_names=("input",))
unicode_decode_with_offsets_op = OpDef(
    "UnicodeDecodeWithOffsets",
    shape=lambda x, **a: _decode_shape(x, _offsets=True, **a),
    dtype=lambda x, **a: _decode_dtype(x, **a) + [_dtypes.int64],
    kernel=_unicode_decode_with_offsets_kernel, attrs=_DECODE_ATTRS,
    num_outputs=3, grad=NO_GRADIENT, input_names=("input",))


def _nest(dims, splits, *values):
    """RaggedTensors (one per ``values``) of rows cut by ``splits``, nested in the uniform
    outer dimensions ``dims[:-1]`` of the input (rank 0: the values themselves)."""
    if not dims:
        return values if len(values) > 1 else values[0]
    outs = []
    for v in values:
        rt = RaggedTensor(v, splits, internal=True)
        n = 1
        for level in range(len(dims) - 1):
            n *= dims[level] if dims[level] is not None else 0
        for level in range(len(dims) - 2, -1, -1):
            outer = int(np.prod(dims[:level + 1]))
            width = dims[level + 1]
            rt = RaggedTensor(rt, convert_to_tensor(np.arange(outer + 1, dtype=np.int64) * width,
                                                    name="Const"),
                              internal=True, uniform_row_length=width)
        outs.append(rt)
    return tuple(outs) if len(outs) > 1 else outs[0]


def _prepare(input, errors, op_type):  # noqa: A002
    _check_attr_in(op_type, "errors", _text(errors), _ERROR_MODES)
    x = input if isinstance(input, Tensor) else convert_to_tensor(
        np.asarray(input, dtype=object) if not isinstance(input, (bytes, str)) else input,
        dtype=_dtypes.string, name="input")
    if x.shape.ndims is None:
        raise ValueError("Rank of input must be statically known.")
    dims = x.shape.as_list()
    if any(d is None for d in dims[:-1]):
        raise NotImplementedError("unicode_decode: unknown outer dimensions of input")
    flat = shape_ops.reshape(x, [-1])
    return dims, flat


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """Each string's code points (int32): a RaggedTensor with one more dimension than
    ``input`` (a dense vector for a scalar)."""
    with name_scope(name, "UnicodeDecode", [input]):
        dims, flat = _prepare(input, errors, "UnicodeDecode")
        splits, points = unicode_decode_op.bind(
            flat, input_encoding=input_encoding, errors=errors,
            replacement_char=int(replacement_char),
            replace_control_characters=bool(replace_control_characters), name="UnicodeDecode")
        return _nest(dims, splits, points)


def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """``(code points, byte offsets)``: each character's start in its string (int64)."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        dims, flat = _prepare(input, errors, "UnicodeDecodeWithOffsets")
        splits, points, starts = unicode_decode_with_offsets_op.bind(
            flat, input_encoding=input_encoding, errors=errors,
            replacement_char=int(replacement_char),
            replace_control_characters=bool(replace_control_characters),
            name="UnicodeDecodeWithOffsets")
        return _nest(dims, splits, points, starts)


def _chars(points, input_encoding, errors, replacement_char):
    """Each code point encoded as its own string (TF's ``UnicodeEncode`` of 1-char rows)."""
    return unicode_encode(shape_ops.expand_dims(points, 1), input_encoding, errors=errors,
                          replacement_char=replacement_char)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
    """Each string's characters, each as a string (in ``input_encoding``)."""
    with name_scope(name, "UnicodeSplit", [input]):
        dims, flat = _prepare(input, errors, "UnicodeDecode")
        splits, points = unicode_decode_op.bind(
            flat, input_encoding=input_encoding, errors=errors,
            replacement_char=int(replacement_char), replace_control_characters=False,
            name="UnicodeDecode")
        return _nest(dims, splits, _chars(points, input_encoding, errors, replacement_char))


def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533, name=None):
    """``(characters, byte offsets)``, as :func:`unicode_split` and the decode's offsets."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        dims, flat = _prepare(input, errors, "UnicodeDecodeWithOffsets")
        splits, points, starts = unicode_decode_with_offsets_op.bind(
            flat, input_encoding=input_encoding, errors=errors,
            replacement_char=int(replacement_char), replace_control_characters=False,
            name="UnicodeDecodeWithOffsets")
        return _nest(dims, splits, _chars(points, input_encoding, errors, replacement_char),
                     starts)


def bytes_split(input, name=None):  # noqa: A002 - TF's name
    """Each string's bytes, each a 1-byte string (TF's ``StringSplit`` with an empty
    delimiter, its rows from the value row ids)."""
    with name_scope(name, "StringsByteSplit", [input]):
        dims, flat = _prepare(input, "replace", "StringSplit")
        indices, values, shape = string_split_op.bind(flat, convert_to_tensor(
            np.asarray(b"", dtype=object), name="delimiter"), skip_empty=True,
            name="StringSplit")
        rt = RaggedTensor.from_value_rowids(values, indices[:, 0], shape[0], validate=False)
        splits = rt.row_splits
        if all(d is not None for d in dims):  # one row per string (TF's static shape)
            splits.set_shape([int(np.prod(dims, dtype=np.int64)) + 1])
        return _nest(dims, splits, values)
