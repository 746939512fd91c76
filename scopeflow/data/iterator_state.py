"""An iterator's position as bytes, for checkpoints: the values its pipeline captured and
each run-time iterator's state (shuffle buffers and random generators included), as JSON
with arrays stored by ``numpy.save`` (never pickles: a checkpoint is data, not code).
A damaged or hostile state is a ``DataLossError``.

Reading is bounded by the bytes present: nesting deeper than :data:`MAX_DEPTH` levels is
refused before ``json`` parses anything (no ``RecursionError``), and an array's ``.npy``
header must declare exactly the bytes that follow it (no allocation of a declared 10^13
elements). Writing refuses the same depth, so whatever is saved can be read back.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
from dataclasses import dataclass

import numpy as np
from numpy.lib import format as npy_format

from scopeflow.framework import errors
from scopeflow.framework.sparse_tensor import SparseTensorValue
from scopeflow.ragged.ragged_tensor import RaggedTensorValue, value_from_components

__all__ = ["Position", "dumps", "loads", "decode_document", "parse_json", "MAX_DEPTH"]

FORMAT = "scopeflow-iterator-state/1"

# JSON nesting levels a state may have (each dict of a state takes two); far below the
# interpreter's recursion limit, far above what pipelines and training objects save.
MAX_DEPTH = 200
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_OPEN = np.frombuffer(b"[{", np.uint8)
_CLOSE = np.frombuffer(b"]}", np.uint8)


def _depth(data: bytes) -> int:
    """The deepest bracket nesting of JSON text ``data`` (strings' contents skipped)."""
    bare = np.frombuffer(_STRING.sub(b'""', data), np.uint8)
    steps = np.isin(bare, _OPEN).astype(np.int32) - np.isin(bare, _CLOSE)
    return int(np.cumsum(steps).max(initial=0))


def parse_json(data):
    """``json.loads`` of ``data`` (bytes or str) that refuses nesting deeper than
    :data:`MAX_DEPTH` with ``ValueError`` before parsing."""
    raw = data if isinstance(data, bytes) else str(data).encode("utf-8", "surrogatepass")
    deepest = _depth(raw)
    if deepest > MAX_DEPTH:
        raise ValueError(f"nested {deepest} levels deep, more than the {MAX_DEPTH} a saved "
                         "state may have")
    return json.loads(raw.decode("utf-8"))


def _load_array(raw: bytes) -> np.ndarray:
    """An array from ``.npy`` bytes whose header must account for exactly the bytes that
    follow it (``np.load`` would allocate whatever the header declares first)."""
    f = io.BytesIO(raw)
    try:
        major, _ = npy_format.read_magic(f)
        read_header = npy_format.read_array_header_1_0 if major == 1 else \
            npy_format.read_array_header_2_0
        shape, fortran_order, dtype = read_header(f)
    except MemoryError:
        raise
    except Exception as e:  # NumPy parses the header's dict with Python's tokenizer: a
        # damaged one raises ValueError, SyntaxError, tokenize.TokenError, TypeError...
        raise ValueError(f"a damaged .npy header ({type(e).__name__}: {e})") from None
    if dtype.hasobject:
        raise ValueError("an array of Python objects (a pickle) is not a saved state")
    count = math.prod(shape)
    present = len(raw) - f.tell()
    if dtype.itemsize == 0 or count * dtype.itemsize != present:
        raise ValueError(f"an array header declares {count} elements of {dtype} "
                         f"({count * dtype.itemsize} bytes) but {present} bytes follow it")
    flat = np.frombuffer(raw, dtype, count, offset=f.tell()).copy()
    return flat.reshape(shape, order="F" if fortran_order else "C")


def _encode(x, level=1):
    """``x`` as JSON values, at ``level`` brackets deep (1: a document's ``state``)."""
    if level + 2 > MAX_DEPTH and isinstance(x, (dict, list, tuple, bytes, np.ndarray,
                                                 np.generic)):
        raise ValueError(f"a saved state may nest at most {MAX_DEPTH} JSON levels deep "
                         "(lists count one, dicts two)")
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        a = np.asarray(x)
        if a.dtype == object:
            return {"__strings__": [base64.b64encode(_as_bytes(v)).decode()
                                    for v in a.reshape(-1)], "shape": list(a.shape)}
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        return {"__array__": base64.b64encode(buf.getvalue()).decode()}
    if isinstance(x, bytes):
        return {"__bytes__": base64.b64encode(x).decode()}
    if isinstance(x, dict):
        if not all(isinstance(k, str) for k in x):
            raise TypeError("iterator state dict keys must be strings")
        return {"__dict__": {k: _encode(v, level + 2) for k, v in x.items()}}
    if isinstance(x, SparseTensorValue):  # a sparse component (a namedtuple: before tuples)
        return {"__sparse__": _encode(list(x), level + 2)}
    if isinstance(x, RaggedTensorValue):
        return {"__ragged__": _encode([x.flat_values, *x.nested_row_splits], level + 2)}
    if isinstance(x, (list, tuple)):
        return [_encode(v, level + 1) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if getattr(x, "elements", None) is not None:
        # a dataset-valued component that is a list of values (a window's)
        return {"__dataset__": _encode(list(x.elements), level + 2)}
    raise TypeError(f"cannot save a {type(x).__name__} in an iterator's state")


class SavedDataset:
    """A dataset-valued component read back from a saved state: its elements' values
    (``dataset_values.element_value`` makes it a dataset again)."""

    __slots__ = ("elements",)

    def __init__(self, elements):
        self.elements = elements


def _as_bytes(v):
    return v if isinstance(v, bytes) else str(v).encode()


def _decode(x):
    if isinstance(x, list):
        return [_decode(v) for v in x]
    if isinstance(x, dict):
        if "__array__" in x:
            return _load_array(base64.b64decode(_text(x["__array__"])))
        if "__strings__" in x:
            items, shape = x["__strings__"], x.get("shape")
            if not isinstance(items, list) or not isinstance(shape, list):
                raise ValueError("a string array's entry is damaged")
            out = np.empty(len(items), dtype=object)
            out[:] = [base64.b64decode(_text(v)) for v in items]
            return out.reshape(shape)
        if "__bytes__" in x:
            return base64.b64decode(_text(x["__bytes__"]))
        if "__sparse__" in x:
            return SparseTensorValue(*_decode(x["__sparse__"]))
        if "__ragged__" in x:
            flat, *splits = _decode(x["__ragged__"])
            return value_from_components(splits + [flat])
        if "__dataset__" in x:
            return SavedDataset(_decode(x["__dataset__"]))
        if "__dict__" in x:
            if not isinstance(x["__dict__"], dict):
                raise ValueError("a dict's entry is damaged")
            return {k: _decode(v) for k, v in x["__dict__"].items()}
        raise ValueError("unknown entry")
    return x


def _text(v) -> str:
    if not isinstance(v, str):
        raise ValueError(f"expected base64 text, found {type(v).__name__}")
    return v


def decode_document(data, fmt: str):
    """The state of a ``{"format": fmt, "state": ...}`` document; ``ValueError`` (or
    ``KeyError``/``TypeError``) when it is damaged, never an unbounded allocation."""
    doc = parse_json(data)
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ValueError(f"not a {fmt} record")
    return _decode(doc["state"])


def dumps(state) -> bytes:
    return json.dumps({"format": FORMAT, "state": _encode(state)}).encode()


def loads(data: bytes, where: str):
    """The state ``dumps`` wrote; ``DataLossError`` naming ``where`` if it is damaged."""
    try:
        return decode_document(data, FORMAT)
    except (ValueError, KeyError, TypeError, OSError) as e:  # UnicodeDecodeError: a ValueError
        raise errors.DataLossError(
            None, None, f"Could not restore the position of iterator {where}: its saved "
            f"state is damaged ({e})") from None


@dataclass
class Position:
    """One iterator's saved position: the record ``SerializeIterator`` writes.

    Attributes:
      dataset: which of the datasets its initializers know it runs (-1: another one).
      captured: the values its pipeline captured, in ``Dataset._captures()`` order.
      tables: its run-time tables as ``[kind, node, value]`` rows (``pipeline.Env``).
      iterator: its run-time iterator's state (``PyIterator.get_state()``).
    """

    dataset: int
    captured: list
    tables: list
    iterator: object

    def dumps(self) -> bytes:
        return dumps({"dataset": self.dataset, "captured": self.captured,
                      "tables": self.tables, "iterator": self.iterator})

    @classmethod
    def of(cls, state) -> Position:
        """The position in a decoded record (``loads``); ``KeyError``, ``TypeError`` or
        ``ValueError`` when it is not one."""
        return cls(int(state["dataset"]), state["captured"], state["tables"],
                   state["iterator"])
