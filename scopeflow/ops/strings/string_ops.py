"""Elementwise string ops: ``AsString``, ``EncodeBase64``/``DecodeBase64``, ``StringStrip``,
``StringLower``/``StringUpper``, ``StringLength``, ``Substr``, ``StaticRegexReplace``/
``RegexReplace`` and ``RegexFullMatch``.

Strings are object arrays of ``bytes``. Each kernel fails with TF's message, word for word
(a position past a string's end, a bad base64 character, a fill ``AsString`` does not
take). The regex ops run RE2 patterns on Python's ``re`` (the two agree on the common
syntax; RE2's rewrite ``\\1``..``\\9`` and ``\\\\`` is translated). None has a gradient.
"""

from __future__ import annotations

import binascii
import codecs
import re
from itertools import repeat

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework import errors as errors_  # `errors` is also an attr's name
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, broadcast_shape, check_dtype, same_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import shape_ops
from scopeflow.ops.io.io_ops import static_regex_full_match_op
from scopeflow.ops.math import arithmetic_ops, reduction_ops
from scopeflow.ops.strings.string_values import bytes_list, map_strings, string_values, to_bytes

__all__ = ["as_string", "encode_base64", "decode_base64", "string_strip", "string_lower",
           "string_upper", "string_length", "substr", "regex_replace", "regex_full_match",
           "unicode_transcode", "unicode_encode"]


def _text(attr) -> str:
    return attr.decode("utf-8") if isinstance(attr, bytes) else str(attr)


def _string_to_string(x, **attrs):
    check_dtype(x, (_dtypes.string,), "input")
    return _dtypes.string


# ── AsString ─────────────────────────────────────────────────────────────────────────
_INT_TYPES = (_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8,
              _dtypes.uint16, _dtypes.uint32, _dtypes.uint64)
_FLOAT_TYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
_COMPLEX_TYPES = (_dtypes.complex64, _dtypes.complex128)
_AS_STRING_TYPES = _INT_TYPES + _FLOAT_TYPES + _COMPLEX_TYPES + (_dtypes.bool_, _dtypes.string)


def _as_string_dtype(x, **attrs):
    check_dtype(x, _AS_STRING_TYPES, "input")
    return _dtypes.string


def _as_string_format(dtype, precision, scientific, shortest, width, fill):
    """The printf format TF's AsString kernel builds (Python's ``%`` is C's printf here)."""
    fill = _text(fill)
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None, "Fill string must be one or fewer "
                                          "characters")
    if scientific and shortest:
        raise errors.InvalidArgumentError(None, None, "Cannot select both scientific and "
                                          "shortest notation")
    fmt = "%"
    if fill:
        if fill not in " +-0#":
            raise errors.InvalidArgumentError(None, None,
                                              f'Fill argument not supported: "{fill}"')
        fmt += fill
    if width > -1:
        fmt += str(width)
    if dtype in _INT_TYPES:
        if precision > -1:
            raise errors.InvalidArgumentError(
                None, None, f"precision not supported for datatype {dtype.name}")
    elif precision > -1:
        fmt += f".{precision}"
    if dtype not in _FLOAT_TYPES + _COMPLEX_TYPES and (scientific or shortest):
        raise errors.InvalidArgumentError(
            None, None, f"scientific and shortest format not supported for datatype "
            f"{dtype.name}")
    if dtype in _INT_TYPES:
        return fmt + "d"
    if dtype in (_dtypes.bool_, _dtypes.string):
        if precision > -1:
            raise errors.InvalidArgumentError(
                None, None, f"precision not supported for datatype {dtype.name}")
        return fmt + "s"
    return fmt + ("g" if shortest else "e" if scientific else "f")


def _as_string_kernel(x, precision, scientific, shortest, width, fill):
    x = np.asarray(x)
    dtype = _dtypes.string if x.dtype == object else _dtypes.as_dtype(x.dtype)
    fmt = _as_string_format(dtype, precision, scientific, shortest, width, fill)
    if dtype == _dtypes.string:
        conv = lambda v: (fmt % to_bytes(v).decode("latin-1")).encode("latin-1")  # noqa: E731
    elif dtype == _dtypes.bool_:
        conv = lambda v: (fmt % ("true" if v else "false")).encode()  # noqa: E731
    elif dtype in _COMPLEX_TYPES:
        conv = lambda v: f"({fmt % float(v.real)},{fmt % float(v.imag)})".encode()  # noqa: E731
    elif dtype in _INT_TYPES:
        conv = lambda v: (fmt % int(v)).encode()  # noqa: E731
    else:
        conv = lambda v: (fmt % float(v)).encode()  # noqa: E731
    out = np.empty(x.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(x.reshape(-1).tolist()):
        flat[i] = conv(v)
    return out


as_string_op = OpDef(
    "AsString", shape=same_shape, dtype=_as_string_dtype, kernel=_as_string_kernel,
    attrs={"precision": -1, "scientific": False, "shortest": False, "width": -1, "fill": ""},
    grad=None, input_names=("input",))


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",  # noqa: A002
              name=None):
    """Each element as a string, formatted as C's printf with the given flags."""
    return as_string_op.bind(input, precision=int(precision), scientific=bool(scientific),
                             shortest=bool(shortest), width=int(width), fill=fill,
                             name=name or "AsString")


# ── EncodeBase64 / DecodeBase64 (web-safe alphabet) ──────────────────────────────────
_TO_WEB = bytes.maketrans(b"+/", b"-_")
_FROM_WEB = bytes.maketrans(b"-_", b"+/")
_B64_CHARS = re.compile(rb"[A-Za-z0-9_-]*")


def _encode_base64_kernel(x, pad):
    def enc(s):
        out = binascii.b2a_base64(s, newline=False).translate(_TO_WEB)
        return out if pad else out.rstrip(b"=")
    return map_strings(enc, x)


def _decode_one(s: bytes) -> bytes:
    """TF's Base64Decode: web-safe characters, padding only in the last group of four."""
    if not s:
        return b""
    body = s
    if len(s) % 4 == 0 and s.endswith(b"="):
        body = s[:-2] if s.endswith(b"==") else s[:-1]
    if not _B64_CHARS.fullmatch(body):
        raise errors.InvalidArgumentError(None, None, "Invalid character found in base64.")
    if len(body) % 4 == 1:
        raise errors.InvalidArgumentError(None, None,
                                          "Base64 string length cannot be 1 modulo 4.")
    body = body.translate(_FROM_WEB)
    return binascii.a2b_base64(body + b"=" * (-len(body) % 4))


encode_base64_op = OpDef("EncodeBase64", shape=same_shape, dtype=_string_to_string,
                         kernel=_encode_base64_kernel, attrs={"pad": False}, grad=None,
                         input_names=("input",))
def _decode_base64_kernel(x):
    return map_strings(_decode_one, x)


decode_base64_op = OpDef("DecodeBase64", shape=same_shape, dtype=_string_to_string,
                         kernel=_decode_base64_kernel, grad=None,
                         input_names=("input",))


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's name
    """Web-safe base64 (``-`` and ``_`` for ``+`` and ``/``), padded with ``=`` if ``pad``."""
    return encode_base64_op.bind(string_values(input), pad=bool(pad),
                                 name=name or "EncodeBase64")


def decode_base64(input, name=None):  # noqa: A002
    """Decodes web-safe base64 (with or without padding)."""
    return decode_base64_op.bind(string_values(input), name=name or "DecodeBase64")


# ── StringStrip / StringLower / StringUpper / StringLength ───────────────────────────
def _string_strip_kernel(x):
    return map_strings(bytes.strip, x)


string_strip_op = OpDef("StringStrip", shape=same_shape, dtype=_string_to_string,
                        kernel=_string_strip_kernel, grad=NO_GRADIENT,
                        input_names=("input",))


def _change_case(x, encoding, ascii_fn, text_fn):
    enc = _text(encoding)
    if enc not in ("", "utf-8"):
        raise errors.InvalidArgumentError(
            None, None, f"only utf-8 or '' (no encoding) is supported, received {enc}")
    if not enc:  # bytes, ASCII letters only (as C's tolower/toupper in the C locale)
        return map_strings(ascii_fn, x)
    return map_strings(lambda s: text_fn(s.decode("utf-8", "surrogateescape"))
                       .encode("utf-8", "surrogateescape"), x)


def _string_lower_kernel(x, encoding):
    return _change_case(x, encoding, bytes.lower, str.lower)


def _string_upper_kernel(x, encoding):
    return _change_case(x, encoding, bytes.upper, str.upper)


string_lower_op = OpDef("StringLower", shape=same_shape, dtype=_string_to_string,
                        kernel=_string_lower_kernel, attrs={"encoding": ""},
                        grad=NO_GRADIENT, input_names=("input",))
string_upper_op = OpDef("StringUpper", shape=same_shape, dtype=_string_to_string,
                        kernel=_string_upper_kernel, attrs={"encoding": ""},
                        grad=NO_GRADIENT, input_names=("input",))


def _utf8_len(s: bytes) -> int:
    """Code points as TF counts them: the bytes that are not UTF-8 continuation bytes."""
    b = np.frombuffer(s, dtype=np.uint8)
    return len(s) - int(np.count_nonzero((b & 0xC0) == 0x80))


_UNITS = ("BYTE", "UTF8_CHAR")


def _check_unit(unit):
    unit = _text(unit)
    if unit not in _UNITS:
        raise ValueError(f"Attr 'unit' has value '{unit}' not in list of allowed values: "
                         "\"BYTE\", \"UTF8_CHAR\"")
    return unit


def _string_length_dtype(x, unit):
    check_dtype(x, (_dtypes.string,), "input")
    return _dtypes.int32


def _string_length_kernel(x, unit):
    return map_strings(len if _text(unit) == "BYTE" else _utf8_len, x, np.int32)


string_length_op = OpDef("StringLength", shape=same_shape, dtype=_string_length_dtype,
                         kernel=_string_length_kernel, attrs={"unit": "BYTE"}, grad=NO_GRADIENT,
                         input_names=("input",))


def string_strip(input, name=None):  # noqa: A002
    """Strips leading and trailing ASCII whitespace."""
    return string_strip_op.bind(string_values(input), name=name or "StringStrip")


def string_lower(input, encoding="", name=None):  # noqa: A002
    """Lowercase: ASCII letters, or all of Unicode's with ``encoding='utf-8'``."""
    return string_lower_op.bind(string_values(input), encoding=encoding,
                                name=name or "StringLower")


def string_upper(input, encoding="", name=None):  # noqa: A002
    """Uppercase: ASCII letters, or all of Unicode's with ``encoding='utf-8'``."""
    return string_upper_op.bind(string_values(input), encoding=encoding,
                                name=name or "StringUpper")


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    """Each string's length in bytes, or in UTF-8 characters (``unit='UTF8_CHAR'``)."""
    return string_length_op.bind(string_values(input), unit=_check_unit(unit),
                                 name=name or "StringLength")


# ── Substr ───────────────────────────────────────────────────────────────────────────
def _substr_shape(x, pos, length, unit):
    if pos.ndims is not None and length.ndims is not None:
        if pos.ndims != length.ndims:
            raise ValueError(f"Shape must be rank {length.ndims} but is rank {pos.ndims}")
        for a, b in zip(pos.as_tuple(), length.as_tuple()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    if pos.ndims == 0:
        return x
    from_pos = pos if pos.ndims is not None else length
    return broadcast_shape(x, from_pos)


def _substr_dtype(x, pos, length, unit):
    check_dtype(x, (_dtypes.string,), "input")
    check_dtype(pos, (_dtypes.int32, _dtypes.int64), "pos")
    return _dtypes.string


def _substr_kernel(x, pos, length, unit):
    x = np.asarray(x, dtype=object)
    pos, length = np.asarray(pos), np.asarray(length)
    if pos.shape != length.shape:
        raise errors.InvalidArgumentError(
            None, None, f"pos and len should have the same shape, got: "
            f"{list(pos.shape)} vs. {list(length.shape)}")
    try:
        xb, pb, lb = np.broadcast_arrays(x, pos, length)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "Incompatible shapes: [" + ",".join(map(str, x.shape)) + "] vs. ["
            + ",".join(map(str, pos.shape)) + "]") from None
    utf8 = _text(unit) == "UTF8_CHAR"
    out = np.empty(xb.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (s, p, n) in enumerate(zip(xb.reshape(-1), pb.reshape(-1).tolist(),
                                       lb.reshape(-1).tolist())):
        s = to_bytes(s)
        if utf8:
            starts = [j for j, c in enumerate(s) if c & 0xC0 != 0x80]
            size = len(starts)
        else:
            size = len(s)
        if not (-size <= p <= size):
            where = "" if utf8 else f" b'{s.decode('utf-8', 'replace')}'"
            raise errors.InvalidArgumentError(
                None, None, f"pos {p} out of range for string{where} at index {i}")
        p = p + size if p < 0 else p
        end = size if n < 0 else min(size, p + n)
        if utf8:
            starts.append(len(s))
            flat[i] = s[starts[p]:starts[end]]
        else:
            flat[i] = s[p:end]
    return out


substr_op = OpDef("Substr", shape=_substr_shape, dtype=_substr_dtype, kernel=_substr_kernel,
                  attrs={"unit": "BYTE"}, grad=NO_GRADIENT, input_names=("input", "pos", "len"))


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF's names
    """Substrings ``input[pos:pos + len]`` (bytes or UTF-8 characters); ``pos < 0`` counts
    from the end, a ``len`` past the end stops there."""
    return substr_op.bind(string_values(input), pos, len, unit=_check_unit(unit),
                          name=name or "Substr")


# ── Regexes ──────────────────────────────────────────────────────────────────────────
def _compile(pattern):
    pattern = _text(to_bytes(pattern) if not isinstance(pattern, str) else pattern)
    try:
        return re.compile(pattern)
    except re.error as e:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid pattern: {pattern}, error: {_re2_error(e, pattern)}") \
            from None


def _re2_error(e: re.error, pattern: str) -> str:
    """A ``re`` compile error as RE2 words it (``<what>: <where>``), for the common ones."""
    pos = e.pos or 0
    if e.msg.startswith("missing ), unterminated subpattern"):
        return f"missing ): {pattern}"
    if e.msg.startswith("unbalanced parenthesis"):
        return f"unexpected ): {pattern}"
    if e.msg.startswith("unterminated character set"):
        return f"missing ]: {pattern[pos:]}"
    if e.msg.startswith("nothing to repeat"):
        return f"no argument for repetition operator: {pattern[pos:pos + 1]}"
    if e.msg.startswith("multiple repeat"):
        return f"bad repetition operator: {pattern[pos - 1:pos + 1]}"
    return e.msg


_REWRITE_TOKEN = re.compile(r"\\(.)|([^\\]+)|\\$", re.S)


def _rewrite_template(rewrite: str, groups: int):
    """RE2's rewrite string as a list of literal strings and group numbers; ``None`` when
    RE2 rejects it (a group the pattern lacks, a backslash before other than a digit or a
    backslash), in which case RE2 replaces nothing."""
    parts = []
    for m in _REWRITE_TOKEN.finditer(rewrite):
        esc, lit = m.group(1), m.group(2)
        if lit is not None:
            parts.append(lit)
        elif esc is not None and esc.isdigit():
            if int(esc) > groups:
                return None
            parts.append(int(esc))
        elif esc == "\\":
            parts.append("\\")
        else:
            return None
    return parts


def _replacement(template, kind):
    """What ``Pattern.sub`` takes for ``template``: a plain string when it is all literal
    with no backslash (``re``'s C fast path), else a function of the match (CPython 3.11
    expands ``\\g<n>`` templates in Python, slower than this)."""
    parts = [p.encode("utf-8", "surrogateescape") if kind is bytes and isinstance(p, str)
             else p for p in template]
    if all(isinstance(p, kind) for p in parts):
        literal = kind().join(parts)
        if (b"\\" if kind is bytes else "\\") not in literal:
            return literal
        return lambda m: literal
    empty = kind()
    return lambda m: empty.join(p if isinstance(p, kind) else (m.group(p) or empty)
                                for p in parts)


_UNICODE_ONLY = re.compile(r"\\[sS]")   # \s on str also takes \x1c-\x1f


def _ascii_regex(regex, joined):
    """``regex`` compiled for bytes when that matches the same on these strings: all of
    them and the pattern ASCII (on ASCII text a ``str`` and a ``bytes`` pattern agree,
    except that ``\\s`` on ``str`` also matches ``\\x1c``-``\\x1f``, and ``(?i)`` of a
    non-ASCII letter); ``None`` otherwise. It spares a decode and an encode per string."""
    if not (joined.isascii() and regex.pattern.isascii()) or \
            _UNICODE_ONLY.search(regex.pattern):
        return None
    try:
        return re.compile(regex.pattern.encode("ascii"), regex.flags & ~re.UNICODE)
    except re.error:   # a str-only escape such as \\N{...} or \\u0041
        return None


def _regex_replace(x, pattern, rewrite, replace_global):
    """Each string's ``regex.sub``, mapped over the whole array in C (``map`` with
    ``itertools.repeat`` arguments), on the bytes themselves when :func:`_ascii_regex`
    allows."""
    regex = _compile(pattern)
    template = _rewrite_template(_text(to_bytes(rewrite)), regex.groups)
    arr = np.asarray(x, dtype=object)
    if template is None:
        return np.array(arr, dtype=object)
    items = bytes_list(arr)
    count = 0 if replace_global else 1
    fast = _ascii_regex(regex, b"".join(items))
    if fast is not None:
        out = list(map(fast.sub, repeat(_replacement(template, bytes)), items, repeat(count)))
    else:
        texts = map(bytes.decode, items, repeat("utf-8"), repeat("surrogateescape"))
        subbed = map(regex.sub, repeat(_replacement(template, str)), texts, repeat(count))
        out = list(map(str.encode, subbed, repeat("utf-8"), repeat("surrogateescape")))
    result = np.empty(arr.shape, dtype=object)
    result.reshape(-1)[:] = out
    return result


def _static_regex_replace_kernel(x, pattern, rewrite, replace_global):
    return _regex_replace(x, pattern, rewrite, replace_global)


def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    return _regex_replace(x, np.asarray(pattern).item(), np.asarray(rewrite).item(),
                          replace_global)


static_regex_replace_op = OpDef(
    "StaticRegexReplace", shape=same_shape, dtype=_string_to_string,
    kernel=_static_regex_replace_kernel,
    attrs={"pattern": None, "rewrite": None, "replace_global": True}, grad=NO_GRADIENT,
    input_names=("input",))


def _regex_replace_shape(x, pattern, rewrite, replace_global):
    for s in (pattern, rewrite):
        if s.ndims is not None and s.ndims != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")
    return x


def _regex_replace_dtype(x, pattern, rewrite, replace_global):
    for what, d in (("input", x), ("pattern", pattern), ("rewrite", rewrite)):
        check_dtype(d, (_dtypes.string,), what)
    return _dtypes.string


regex_replace_op = OpDef(
    "RegexReplace", shape=_regex_replace_shape, dtype=_regex_replace_dtype,
    kernel=_regex_replace_kernel, attrs={"replace_global": True}, grad=None,
    input_names=("input", "pattern", "rewrite"))


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces the matches of ``pattern`` by ``rewrite`` (``\\1``.. insert groups): the
    static op when both are Python strings, as TF chooses."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return static_regex_replace_op.bind(
            string_values(input), pattern=pattern, rewrite=rewrite,
            replace_global=bool(replace_global), name=name or "StaticRegexReplace")
    return regex_replace_op.bind(string_values(input), pattern, rewrite,
                                 replace_global=bool(replace_global),
                                 name=name or "RegexReplace")


def _regex_full_match_shape(x, pattern):
    if pattern.ndims is not None and pattern.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {pattern.ndims}")
    return x


def _regex_full_match_dtype(x, pattern):
    check_dtype(x, (_dtypes.string,), "input")
    check_dtype(pattern, (_dtypes.string,), "pattern")
    return _dtypes.bool_


def _regex_full_match_kernel(x, pattern):
    regex = _compile(np.asarray(pattern).item())
    return map_strings(lambda s: regex.fullmatch(s.decode("utf-8", "surrogateescape"))
                       is not None, x, bool)


regex_full_match_op = OpDef(
    "RegexFullMatch", shape=_regex_full_match_shape, dtype=_regex_full_match_dtype,
    kernel=_regex_full_match_kernel, grad=NO_GRADIENT, input_names=("input", "pattern"))


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each string matches ``pattern`` entirely: the static op for a Python
    string pattern, as TF chooses."""
    if isinstance(pattern, (str, bytes)):
        return static_regex_full_match_op.bind(string_values(input), pattern=pattern,
                                               name=name or "StaticRegexFullMatch")
    return regex_full_match_op.bind(string_values(input), pattern,
                                    name=name or "RegexFullMatch")


# ── UnicodeTranscode ─────────────────────────────────────────────────────────────────
_OUTPUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_ERROR_MODES = ("strict", "replace", "ignore")


def _check_attr_in(op_type, attr, value, allowed):
    """TF's check of a string attr against its allowed values, raised at build time."""
    if value not in allowed:
        listed = ", ".join(f'"{a}"' for a in allowed)
        raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: "
                         f"{listed}.")
    return value


def _unicode_transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char,
                              replace_control_characters):
    in_enc = _text(input_encoding)
    try:
        codecs.lookup(in_enc)
    except LookupError:
        raise errors_.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {in_enc}") from None
    out_enc = _OUTPUT_ENCODINGS[_text(output_encoding)]
    mode = _text(errors)
    replacement = chr(replacement_char) if 0 <= replacement_char <= 0x10FFFF else "\ufffd"

    def decode(s):
        # Python's decoders take each maximal ill-formed subsequence as one error, as ICU.
        if mode == "strict":
            try:
                text = s.decode(in_enc)
            except UnicodeDecodeError:
                raise errors_.InvalidArgumentError(
                    None, None, "Invalid formatting on input string") from None
        else:
            text = s.decode(in_enc, "ignore" if mode == "ignore" else "transcode_replace")
            text = text.replace(_MARK, replacement)
        if replace_control_characters:
            text = _CONTROL.sub(replacement, text)
        return text.encode(out_enc, "surrogatepass")
    return map_strings(decode, x)


# An undecodable stretch becomes _MARK (two noncharacters no valid input holds together),
# then the replacement character: a U+FFFD in the input itself stays as it is.
_MARK = "\ufffe\uffff"
codecs.register_error("transcode_replace", lambda e: (_MARK, e.end))
_CONTROL = re.compile("[\x00-\x1f]")

unicode_transcode_op = OpDef(
    "UnicodeTranscode", shape=same_shape, dtype=_string_to_string,
    kernel=_unicode_transcode_kernel,
    attrs={"input_encoding": None, "output_encoding": None, "errors": "replace",
           "replacement_char": 65533, "replace_control_characters": False},
    grad=NO_GRADIENT, input_names=("input",))


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Re-encodes each string from ``input_encoding`` (any codec Python knows by that name)
    to UTF-8, UTF-16-BE or UTF-32-BE; ill-formed input fails (``errors='strict'``), is
    replaced by ``replacement_char`` or dropped."""
    _check_attr_in("UnicodeTranscode", "output_encoding", _text(output_encoding),
                   tuple(_OUTPUT_ENCODINGS))
    _check_attr_in("UnicodeTranscode", "errors", _text(errors), _ERROR_MODES)
    return unicode_transcode_op.bind(
        string_values(input), input_encoding=input_encoding, output_encoding=output_encoding,
        errors=errors, replacement_char=int(replacement_char),
        replace_control_characters=bool(replace_control_characters),
        name=name or "UnicodeTranscode")


# ── UnicodeEncode ────────────────────────────────────────────────────────────────────
def _unicode_encode_shape(values, splits, **attrs):
    if values.ndims is not None and values.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {values.ndims}")
    if splits.ndims is not None and splits.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {splits.ndims}")
    n = splits[0] if splits.ndims == 1 else None
    return TensorShape([None if n is None else n - 1])


def _unicode_encode_dtype(values, splits, **attrs):
    if values != _dtypes.int32:
        raise TypeError(f"Input 'input_values' of 'UnicodeEncode' Op has type {values.name} "
                        "that does not match expected type of int32.")
    check_dtype(splits, (_dtypes.int32, _dtypes.int64), "input_splits")
    return _dtypes.string


def _unicode_encode_kernel(values, splits, errors, output_encoding, replacement_char):
    enc = _OUTPUT_ENCODINGS[_text(output_encoding)]
    mode = _text(errors)
    points = np.asarray(values).tolist()
    bounds = np.asarray(splits).tolist()
    out = np.empty(max(len(bounds) - 1, 0), dtype=object)
    for r in range(len(out)):
        chars = []
        for cp in points[bounds[r]:bounds[r + 1]]:
            if cp < 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                if mode == "strict":
                    raise errors_.InvalidArgumentError(
                        None, None, "Code point is out of range for Unicode, or is a "
                        "surrogate.")
                if mode == "ignore":
                    continue
                cp = replacement_char
            chars.append(chr(cp))
        out[r] = "".join(chars).encode(enc, "surrogatepass")
    return out


unicode_encode_op = OpDef(
    "UnicodeEncode", shape=_unicode_encode_shape, dtype=_unicode_encode_dtype,
    kernel=_unicode_encode_kernel,
    attrs={"errors": "replace", "output_encoding": None, "replacement_char": 65533},
    grad=NO_GRADIENT, input_names=("input_values", "input_splits"))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   name=None):
    """Encodes each row of code points (the last dimension of a dense int32 tensor) as one
    string: the result has ``input``'s shape less its last dimension. A RaggedTensor input
    (TF's other case) is not supported: scopeflow has no RaggedTensor."""
    _check_attr_in("UnicodeEncode", "output_encoding", _text(output_encoding),
                   tuple(_OUTPUT_ENCODINGS))
    _check_attr_in("UnicodeEncode", "errors", _text(errors), _ERROR_MODES)
    with name_scope(name, "UnicodeEncode", [input]):
        x = input if isinstance(input, Tensor) else convert_to_tensor(input)
        shape = x.shape
        if shape.ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if shape.ndims == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        dims = shape.as_tuple()
        flat = x if shape.ndims == 1 else shape_ops.reshape(x, [-1])
        if all(d is not None for d in dims):
            rows, width = int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]
            splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * width)
        else:
            dyn = shape_ops.shape(x)
            rows = reduction_ops.reduce_prod(dyn[:-1])
            splits = arithmetic_ops.cast(arithmetic_ops.range(rows + 1) * dyn[-1],
                                         _dtypes.int64)
        with name_scope(None, "UnicodeEncode"):  # TF's op sits in a second scope of the name
            out = unicode_encode_op.bind(flat, splits, errors=errors,
                                         output_encoding=output_encoding,
                                         replacement_char=int(replacement_char),
                                         name="UnicodeEncode")
        if shape.ndims == 2:
            return out
        target = list(dims[:-1]) if all(d is not None for d in dims[:-1]) else \
            shape_ops.shape(x)[:-1]
        out = shape_ops.reshape(out, target)
        out.set_shape(dims[:-1])
        return out
