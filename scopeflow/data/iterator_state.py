"""An iterator's position as bytes, for checkpoints: the values its pipeline captured and
each run-time iterator's state (shuffle buffers and random generators included), as JSON
with arrays stored by ``numpy.save`` (never pickles: a checkpoint is data, not code).
A damaged or hostile state is a ``DataLossError``."""

from __future__ import annotations

import base64
import io
import json

import numpy as np

from scopeflow.framework import errors

__all__ = ["dumps", "loads"]

FORMAT = "scopeflow-iterator-state/1"


def _encode(x):
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
        return {"__dict__": {k: _encode(v) for k, v in x.items()}}
    if isinstance(x, (list, tuple)):
        return [_encode(v) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise TypeError(f"cannot save a {type(x).__name__} in an iterator's state")


def _as_bytes(v):
    return v if isinstance(v, bytes) else str(v).encode()


def _decode(x):
    if isinstance(x, list):
        return [_decode(v) for v in x]
    if isinstance(x, dict):
        if "__array__" in x:
            return np.load(io.BytesIO(base64.b64decode(x["__array__"])), allow_pickle=False)
        if "__strings__" in x:
            values = [base64.b64decode(v) for v in x["__strings__"]]
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out.reshape(x["shape"])
        if "__bytes__" in x:
            return base64.b64decode(x["__bytes__"])
        if "__dict__" in x:
            return {k: _decode(v) for k, v in x["__dict__"].items()}
        raise ValueError("unknown entry")
    return x


def dumps(state) -> bytes:
    return json.dumps({"format": FORMAT, "state": _encode(state)}).encode()


def loads(data: bytes, where: str):
    """The state ``dumps`` wrote; ``DataLossError`` naming ``where`` if it is damaged."""
    try:
        doc = json.loads(data.decode() if isinstance(data, bytes) else str(data))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} record")
        return _decode(doc["state"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError) as e:
        raise errors.DataLossError(
            None, None, f"Could not restore the position of iterator {where}: its saved "
            f"state is damaged ({e})") from None
