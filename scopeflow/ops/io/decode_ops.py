"""Decoding ops: raw bytes (``DecodeRaw``), CSV lines (``DecodeCSV``), numbers in strings
(``StringToNumber``), and the string-input helpers the parsing ops share with them.

Each reads a string tensor element by element and fails with TF's messages, word for
word (a length that is not a multiple of the type's size, a field that is not a number,
a missing required field). ``Example`` parsing is :mod:`scopeflow.ops.io.parsing_ops`.
"""

from __future__ import annotations

import re

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype

__all__ = ["decode_raw", "decode_csv", "string_to_number"]


# ── String inputs (also ParseExampleV2's and ParseSequenceExampleV2's) ───────────────
def as_text(x) -> str:
    """A string element (bytes decoded as UTF-8, bad bytes replaced) as ``str``."""
    x = x.item() if isinstance(x, np.ndarray) else x
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)


def string_input(value, name):
    """``value`` as a string tensor. Python bytes go through an object array: a NumPy bytes
    array (what a plain conversion makes) drops trailing NUL bytes, which serialized protos
    and raw data may end with."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, np.ndarray) or value.dtype.kind == "S":
        value = np.array(value, dtype=object)
    return convert_to_tensor(value, dtype=_dtypes.string, name=name)


def as_bytes(x) -> bytes:
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


# ── DecodeRaw ────────────────────────────────────────────────────────────────────────
_RAW_TYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.uint16,
              _dtypes.uint8, _dtypes.int16, _dtypes.int8, _dtypes.int64, _dtypes.complex64,
              _dtypes.complex128, _dtypes.bool_)


def _decode_raw_shape(data, out_type, little_endian):
    return data.concatenate([None])


def _decode_raw_dtype(data, out_type, little_endian):
    check_dtype(out_type, _RAW_TYPES, "out_type")
    return out_type


def _decode_raw_kernel(data, out_type, little_endian):
    np_type = np.dtype(out_type.as_numpy_dtype)
    wire = np_type.newbyteorder("<" if little_endian else ">")
    items = [as_bytes(b) for b in np.asarray(data).reshape(-1)]
    width = np_type.itemsize
    if items and len(items[0]) % width:
        raise errors.InvalidArgumentError(
            None, None, f"Input to DecodeRaw has length {len(items[0])} that is not a multiple "
            f"of {width}, the size of {_dtypes.type_string(out_type)}")
    for i, b in enumerate(items[1:], 1):
        if len(b) != len(items[0]):
            raise errors.InvalidArgumentError(
                None, None, "DecodeRaw requires input strings to all be the same size, but "
                f"element {i} has size {len(b)} != {len(items[0])}")
    n = len(items[0]) // width if items else 0
    flat = np.frombuffer(b"".join(items), dtype=wire).astype(np_type)
    return flat.reshape(np.shape(data) + (n,))


decode_raw_op = OpDef("DecodeRaw", shape=_decode_raw_shape, dtype=_decode_raw_dtype,
                      kernel=_decode_raw_kernel, attrs={"out_type": None, "little_endian": True},
                      grad=None, input_names=("bytes",))


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """Reinterprets the bytes of each string as a vector of ``out_type`` numbers."""
    if input_bytes is None:
        input_bytes = bytes
    elif bytes is not None:
        raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
    if not isinstance(input_bytes, Tensor):
        with name_scope(name, "DecodeRaw") as scope:
            data = string_input(input_bytes, "bytes")
            return decode_raw_op.create([data], {"out_type": _dtypes.as_dtype(out_type),
                                                 "little_endian": bool(little_endian)},
                                        name=scope).outputs[0]
    return decode_raw_op.bind(input_bytes, out_type=_dtypes.as_dtype(out_type),
                              little_endian=bool(little_endian), name=name or "DecodeRaw")


# ── DecodeCSV ────────────────────────────────────────────────────────────────────────
_CSV_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64, _dtypes.string)


def _decode_csv_shape(records, *defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
                      select_cols):
    for d in defaults:
        if d.ndims is not None and d.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {d.ndims}")
    return [records] * len(defaults)


def _decode_csv_dtype(records, *defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
                      select_cols):
    for d in defaults:
        check_dtype(d, _CSV_TYPES, "record_defaults")
    return list(defaults)


def _csv_fields(line: str, delim: str, quote: bool):
    """The fields of one CSV line, as TF's ``DecodeCSV`` splits it."""
    fields, i, n = [], 0, len(line)
    if n == 0:
        return fields
    while i < n:
        field = []
        if not quote or line[i] != '"':
            while i < n and line[i] != delim:
                if (quote and line[i] == '"') or line[i] in "\r\n":
                    raise ValueError("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(line[i])
                i += 1
            i += 1  # past the delimiter (or the end)
        else:
            i += 1
            while True:
                if i >= n:
                    raise ValueError("Quoted field has to end with quote followed by delim or "
                                     "end")
                ch = line[i]
                if ch == '"':
                    if i + 1 < n and line[i + 1] == '"':
                        field.append('"')
                        i += 2
                        continue
                    if i + 1 < n and line[i + 1] != delim:
                        raise ValueError("Quote inside a string has to be escaped by another "
                                         "quote")
                    i += 2
                    break
                field.append(ch)
                i += 1
        fields.append("".join(field))
    if line[-1] == delim:
        fields.append("")
    return fields


_INT_RE = re.compile(r"\s*[-+]?\d+\s*\Z")
_INT_RANGE = {_dtypes.int32: (-(1 << 31), (1 << 31) - 1),
              _dtypes.int64: (-(1 << 63), (1 << 63) - 1),
              _dtypes.uint32: (0, (1 << 32) - 1), _dtypes.uint64: (0, (1 << 64) - 1)}


def _parse_number(text: str, dtype):
    """``text`` as a number of ``dtype`` (TF's ``safe_strto*``), or ValueError."""
    if dtype in _INT_RANGE:
        if not _INT_RE.match(text):
            raise ValueError(text)
        value = int(text)
        low, high = _INT_RANGE[dtype]
        if not low <= value <= high:
            raise ValueError(text)
        return value
    stripped = text.strip()
    try:
        return float(stripped)
    except ValueError:
        try:
            return float.fromhex(stripped)
        except ValueError:
            raise ValueError(text) from None


def _decode_csv_kernel(records, *defaults, OUT_TYPE, field_delim, use_quote_delim, na_value,
                       select_cols):
    if len(field_delim) != 1:
        raise errors.InvalidArgumentError(None, None, "field_delim should be only 1 char")
    lines = [as_text(r) for r in np.asarray(records).reshape(-1)]
    outs = [np.empty(len(lines), dtype=t.as_numpy_dtype) for t in OUT_TYPE]
    cols = list(select_cols) if select_cols else None
    for r, line in enumerate(lines):
        try:
            fields = _csv_fields(line, field_delim, use_quote_delim)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None
        if cols is not None:
            if len(fields) <= cols[-1]:
                raise errors.InvalidArgumentError(
                    None, None, f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in "
                    f"record {r}")
            fields = [fields[c] for c in cols]
        elif len(fields) != len(OUT_TYPE):
            raise errors.InvalidArgumentError(
                None, None, f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in "
                f"record {r}")
        for f, (text, dtype, default) in enumerate(zip(fields, OUT_TYPE, defaults)):
            if text == "" or text == na_value:
                if np.size(default) == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Field {f} is required but missing in record {r}!")
                outs[f][r] = np.asarray(default).reshape(-1)[0]
            elif dtype is _dtypes.string:
                outs[f][r] = text.encode("utf-8")
            else:
                try:
                    outs[f][r] = _parse_number(text, dtype)
                except ValueError:
                    raise errors.InvalidArgumentError(
                        None, None, f"Field {f} in record {r} is not a valid "
                        f"{_dtypes.type_string(dtype)}: {text}") from None
    shape = np.shape(records)
    outs = [o.reshape(shape) for o in outs]
    return outs[0] if len(outs) == 1 else tuple(outs)  # one column: the array itself


decode_csv_op = OpDef(
    "DecodeCSV", shape=_decode_csv_shape, dtype=_decode_csv_dtype, kernel=_decode_csv_kernel,
    attrs={"OUT_TYPE": (), "field_delim": ",", "use_quote_delim": True, "na_value": "",
           "select_cols": ()}, num_outputs=lambda attrs, n: n - 1, grad=NO_GRADIENT,
    input_names=("records", "record_defaults"))


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Splits CSV lines into one tensor per column, typed by ``record_defaults`` (each a
    one-element default, or empty for a required column)."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    with name_scope(name, "DecodeCSV") as scope:
        records = records if isinstance(records, Tensor) else convert_to_tensor(
            records, dtype=_dtypes.string, name="records")
        defaults = [d if isinstance(d, Tensor) else convert_to_tensor(
            d, name=f"record_defaults_{i}") for i, d in enumerate(record_defaults)]
        for d in defaults:
            check_dtype(d.dtype.base_dtype, _CSV_TYPES, "record_defaults")
        op = decode_csv_op.create(
            [records] + defaults,
            {"OUT_TYPE": [d.dtype.base_dtype for d in defaults], "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
             "select_cols": select_cols or []},
            name=scope)
    return list(op.outputs)


# ── StringToNumber ───────────────────────────────────────────────────────────────────
_NUMBER_TYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64,
                 _dtypes.uint32, _dtypes.uint64)


def _string_to_number_shape(string_tensor, out_type):
    return string_tensor


def _string_to_number_dtype(string_tensor, out_type):
    check_dtype(out_type, _NUMBER_TYPES, "out_type")
    return out_type


def _string_to_number_kernel(string_tensor, out_type):
    items = np.asarray(string_tensor).reshape(-1)
    out = np.empty(len(items), dtype=out_type.as_numpy_dtype)
    for i, s in enumerate(items):
        text = as_text(s)
        try:
            out[i] = _parse_number(text, out_type)
        except (ValueError, OverflowError):
            raise errors.InvalidArgumentError(
                None, None, f"StringToNumberOp could not correctly convert string: {text}") \
                from None
    return out.reshape(np.shape(string_tensor))


string_to_number_op = OpDef(
    "StringToNumber", shape=_string_to_number_shape, dtype=_string_to_number_dtype,
    kernel=_string_to_number_kernel, attrs={"out_type": _dtypes.float32}, grad=None,
    input_names=("string_tensor",))


def string_to_number(string_tensor=None, out_type=_dtypes.float32, name=None, input=None):  # noqa: A002
    """Converts each string to a number of ``out_type``."""
    if string_tensor is None:
        string_tensor = input
    return string_to_number_op.bind(string_tensor, out_type=_dtypes.as_dtype(out_type),
                                     name=name or "StringToNumber")
