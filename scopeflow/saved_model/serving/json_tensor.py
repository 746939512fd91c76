"""TF Serving's JSON <-> tensor rules (its ``tensorflow_serving/util/json_tensor.cc``).

The formats are those of TF Serving's REST API page,
https://www.tensorflow.org/tfx/serving/api_rest ("Predict API", "Classify and Regress
API", "Encoding binary values", "JSON conformance"); the error texts and the checks behind
them follow ``json_tensor.cc`` in github.com/tensorflow/serving:

* a request is a JSON object (``NaN``, ``Infinity`` and ``-Infinity`` accepted, as
  rapidjson's ``kParseNanAndInfFlag`` does); ``signature_name`` must be a string;
* ``instances`` (row format: a non-empty list, of values for a signature with one input,
  else of objects keyed by every input name) or ``inputs`` (columnar: a value or list for
  one input, else an object of every input), never both;
* a tensor's shape comes from the first element at each level of nesting; every leaf
  must sit at the same depth, every list at a level has that level's length, and each
  value must fit the input's dtype (floats from any number that the type holds exactly,
  integers only from whole JSON numbers, strings from strings or ``{"b64": ...}``);
* ``predict`` answers ``{"predictions": [...]}`` for a row request (one value per
  instance, or one object per instance keyed by output name when there are several
  outputs) and ``{"outputs": ...}`` for a columnar one; floats are written in the
  shortest form that reads back to the same float32/float64 (absl's ``StrCat``, else
  ``%.9g``/``%.17g``) with ``.0`` on whole numbers; string outputs whose name ends in
  ``_bytes`` are written as ``{"b64": ...}``;
* ``classify``/``regress`` take ``examples`` (and an optional ``context``) as tf.Example
  features: numbers with a fraction are floats, whole numbers and booleans int64s,
  strings and ``{"b64": ...}`` bytes; they answer ``{"results": ...}``.

Mistakes raise :class:`RequestError` with TF Serving's message and error code.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import math

import numpy as np

try:
    import orjson as _orjson  # optional (the `serve` extra)
except ImportError:
    _orjson = None

from scopeflow.framework import dtypes
from scopeflow.io import protos

# TF's DataTypeString() where it differs from the dtype's Python name.
_TF_TYPE_STRING = {"float32": "float", "float64": "double", "float16": "half"}


class RequestError(Exception):
    """A request TF Serving refuses: ``code`` is its canonical error code's name
    (``INVALID_ARGUMENT``, ``NOT_FOUND``, ...), ``message`` its text."""

    def __init__(self, message: str, code: str = "INVALID_ARGUMENT"):
        super().__init__(message)
        self.message = message
        self.code = code


def type_string(dtype_enum: int) -> str:
    """TF's ``DataTypeString`` of a ``DataType`` number (``float``, ``int32``, ``string``)."""
    name = dtypes.as_dtype(dtype_enum).name
    return _TF_TYPE_STRING.get(name, name)


# ── reading JSON ───────────────────────────────────────────────────────────────────
def _reject_constant(name):
    raise ValueError(f"Invalid value '{name}'")


def _rapidjson_int(text: str):
    """An integer literal as TF Serving's RapidJSON reads it (and orjson): an int within
    int64/uint64, else the nearest double."""
    value = int(text)
    return value if -2**63 <= value < 2**64 else float(text)


def _fast_loads(body: bytes):
    """``body`` parsed by orjson (the `serve` extra; ~8x Python's json on an image's
    floats, to the same doubles), or None where it is absent or refuses the text (NaN and
    Infinity, ints past 64 bits, deep nesting, bad JSON): Python's json then parses it or
    words the error as before."""
    if _orjson is None:
        return None
    try:
        return _orjson.loads(body)
    except _orjson.JSONDecodeError:
        return None


def parse_json(body: bytes) -> dict:
    """The request body as a JSON object (TF's ``ParseJson``)."""
    if not body or not body.strip():
        raise RequestError("JSON Parse error: The document is empty")
    doc = _fast_loads(body)
    try:
        if doc is None:
            text = body.decode("utf-8")
            # Python's json takes NaN, Infinity, -Infinity as TF does
            doc = json.loads(text, parse_int=_rapidjson_int)
    except UnicodeDecodeError as e:
        raise RequestError(f"JSON Parse error: Invalid encoding in string. at offset: "
                           f"{e.start}") from None
    except json.JSONDecodeError as e:
        raise RequestError(f"JSON Parse error: {e.msg} at offset: {e.pos}") from None
    except RecursionError:
        raise RequestError("JSON Parse error: The document is nested too deeply") from None
    if not isinstance(doc, dict):
        raise RequestError(f"JSON Value: {value_to_string(doc)} Is not object")
    return doc


def value_to_string(val) -> str:
    """A JSON value as text, for error messages (long values cut short)."""
    try:
        text = json.dumps(val, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(val)
    return text if len(text) <= 200 else text[:197] + "..."


def _json_type(val) -> str:
    if val is None:
        return "Null"
    if val is True:
        return "True"
    if val is False:
        return "False"
    if isinstance(val, dict):
        return "Object"
    if isinstance(val, list):
        return "Array"
    if isinstance(val, str):
        return "String"
    return "Number"


def is_b64(val) -> bool:
    """``{"b64": "<base64>"}``: one key, a string (TF's ``IsValBase64Object``)."""
    return isinstance(val, dict) and len(val) == 1 and isinstance(val.get("b64"), str)


def decode_b64(val) -> bytes:
    if not is_b64(val):
        raise RequestError(f"JSON Value: {value_to_string(val)} not formatted correctly for "
                           "base64 data")
    text = val["b64"]
    try:
        # absl::Base64Unescape takes the standard and the web-safe alphabet, padded or not.
        text = text.replace("-", "+").replace("_", "/")
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise RequestError("Unable to base64 decode") from None


def _type_error(val, dtype_enum):
    return RequestError(f"JSON Value: {value_to_string(val)} Type: {_json_type(val)} is not "
                        f"of expected type: {type_string(dtype_enum)}")


_INT_RANGES = {"int8": (-2**31, 2**31 - 1), "int16": (-2**31, 2**31 - 1),
               "int32": (-2**31, 2**31 - 1), "uint8": (-2**31, 2**31 - 1),
               "int64": (-2**63, 2**63 - 1), "uint32": (0, 2**32 - 1),
               "uint64": (0, 2**64 - 1)}
_FLOAT_DIGITS = {"float32": 24, "float64": 53}


def _scalar(val, dtype_enum):
    """One leaf value checked against the dtype (TF's ``AddValueToTensor``)."""
    name = dtypes.as_dtype(dtype_enum).name
    if name in _FLOAT_DIGITS:
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise _type_error(val, dtype_enum)
        if isinstance(val, int):
            if abs(val) > (1 << _FLOAT_DIGITS[name]) - 1:
                raise RequestError(f"Cannot convert JSON value: {val} to "
                                   f"{type_string(dtype_enum)} without loss of precision.")
            return val
        limit = float(np.finfo(np.float32).max) if name == "float32" else math.inf
        if math.isfinite(val) and abs(val) > limit:
            raise RequestError(f"Cannot convert JSON value: {value_to_string(val)} to "
                               f"{type_string(dtype_enum)} without loss of precision.")
        return val
    if name in _INT_RANGES:
        lo, hi = _INT_RANGES[name]
        if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
            raise _type_error(val, dtype_enum)
        return val
    if name == "string":
        if isinstance(val, str):
            return val.encode("utf-8")
        if isinstance(val, dict):
            return decode_b64(val)
        raise _type_error(val, dtype_enum)
    if name == "bool":
        if not isinstance(val, bool):
            raise _type_error(val, dtype_enum)
        return val
    raise RequestError(f"Conversion of JSON Value: {value_to_string(val)} to type: "
                       f"{type_string(dtype_enum)}", "UNIMPLEMENTED")


def _dense_shape(val) -> list[int]:
    shape = []
    while isinstance(val, list):
        shape.append(len(val))
        if not val:
            break
        val = val[0]
    return shape


def _fill(val, level, shape, dtype_enum, out):
    rank = len(shape)
    if not isinstance(val, list):
        if level != rank:
            raise RequestError(f"JSON Value: {value_to_string(val)} found at incorrect level: "
                               f"{level + 1} in the JSON DOM. Expected at level: {rank}")
        out.append(_scalar(val, dtype_enum))
        return
    if level >= rank:
        raise RequestError(f"Encountered list at unexpected level: {level} expected < {rank}")
    if len(val) != shape[level]:
        raise RequestError(f"Encountered list at unexpected size: {len(val)} at level: "
                           f"{level} expected size: {shape[level]}")
    for v in val:
        _fill(v, level + 1, shape, dtype_enum, out)


def _float_leaves_array(val, shape, name):
    """A rectangular nested list of JSON floats as a float array, with C-speed checks; None
    for anything else (ints, bools, ragged or mixed levels), which :func:`_fill` checks
    element by element with TF's messages. An image is ~100K floats: the element walk took
    ~0.3 s of a request."""
    leaves = val
    for _ in range(len(shape) - 1):
        leaves = itertools.chain.from_iterable(leaves)
    try:
        if set(map(type, leaves)) != {float}:
            return None
        arr = np.array(val, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if arr.shape != tuple(shape):
        return None
    if name == "float32":
        finite = np.abs(arr[np.isfinite(arr)])
        if finite.size and finite.max() > float(np.finfo(np.float32).max):
            return None   # _fill names the value
    return arr.astype(name)


def to_array(val, dtype_enum) -> np.ndarray:
    """A JSON value (scalar or nested lists) as an array of the dtype."""
    shape = _dense_shape(val)
    name = dtypes.as_dtype(dtype_enum).name
    if name in _FLOAT_DIGITS and shape and shape[-1]:
        arr = _float_leaves_array(val, shape, name)
        if arr is not None:
            return arr
    flat: list = []
    try:
        _fill(val, 0, shape, dtype_enum, flat)
    except RecursionError:
        raise RequestError("JSON value is nested too deeply") from None
    np_dtype = dtypes.as_dtype(dtype_enum).as_numpy_dtype
    if np_dtype is np.object_:
        arr = np.empty(len(flat), dtype=object)
        arr[:] = flat
        return arr.reshape(shape)
    return np.array(flat, dtype=np_dtype).reshape(shape)


def _signature_name(doc) -> str:
    name = doc.get("signature_name", "")
    if not isinstance(name, str):
        raise RequestError(f"JSON Value: {value_to_string(doc)} not formatted correctly. "
                           "'signature_name' key must be a string value.")
    return name


def predict_signature_name(doc) -> str:
    return _signature_name(doc)


def predict_inputs(doc, input_infos) -> tuple[dict, str]:
    """The input key -> array map of a predict request, and its format (``row`` or
    ``columnar``); ``input_infos`` is the signature's input key -> TensorInfo map."""
    if not input_infos:
        raise RequestError("Failed to get input map for signature")
    has_instances, has_inputs = "instances" in doc, "inputs" in doc
    if has_instances and has_inputs:
        raise RequestError(f"JSON Value: {value_to_string(doc)} Not formatted correctly "
                           "expecting only one of 'inputs' or 'instances' keys to exist ")
    if has_instances:
        instances = doc["instances"]
        if not isinstance(instances, list):
            raise RequestError(f"JSON Value: {value_to_string(doc)} Excepting 'instances' "
                               "to be an list/array")
        if not instances:
            raise RequestError(f"JSON Value: {value_to_string(doc)} No values in "
                               "'instances' array")
        return _from_instances(instances, input_infos), "row"
    if has_inputs:
        return _from_inputs(doc["inputs"], input_infos), "columnar"
    raise RequestError("Missing 'inputs' or 'instances' key")


def _is_named(val) -> bool:
    return isinstance(val, dict) and not is_b64(val)


def _from_instances(instances, infos) -> dict:
    names = sorted(infos)
    if not isinstance(instances[0], dict) and len(infos) > 1:
        raise RequestError("instances is a plain list, but expecting list of objects as "
                           "multiple input tensors required as per tensorinfo_map")
    named = _is_named(instances[0])
    rows: dict[str, list] = {}
    for i, elem in enumerate(instances):
        if named:
            if not _is_named(elem):
                raise RequestError(f"Expecting object but got list at item {i} of input list")
            for key, value in elem.items():
                if key not in infos:
                    raise RequestError(f"Failed to process element: {i} key: {key} of "
                                       "'instances' list. Error: Invalid argument: JSON "
                                       f"object: does not have named input: {key}")
                try:
                    rows.setdefault(key, []).append(
                        _instance_item(value, infos[key].dtype, rows.get(key)))
                except RequestError as e:
                    raise RequestError(f"Failed to process element: {i} key: {key} of "
                                       f"'instances' list. Error: Invalid argument: "
                                       f"{e.message}") from None
            if set(elem) != set(names):
                raise RequestError(f"Failed to process element: {i} of 'instances' list. "
                                   f"JSON object: {value_to_string(elem)} keys must be "
                                   f"equal to: {','.join(names)}")
        else:
            if _is_named(elem):
                raise RequestError(f"Expecting value/list but got object at item {i} of "
                                   "input list")
            key = names[0]
            try:
                rows.setdefault(key, []).append(
                    _instance_item(elem, infos[key].dtype, rows.get(key)))
            except RequestError as e:
                raise RequestError(f"Failed to process element: {i} of 'instances' list. "
                                   f"Error: Invalid argument: {e.message}") from None
    return {key: np.stack(parts) for key, parts in rows.items()}


def _instance_item(value, dtype_enum, previous):
    arr = to_array(value, dtype_enum)
    if previous:
        first = previous[0]
        if first.size != arr.size:
            raise RequestError(f"Expecting tensor size: {first.size} but got: {arr.size}")
        if first.shape != arr.shape:
            raise RequestError(f"Expecting shape {_shape_text(first.shape)} but got: "
                               f"{_shape_text(arr.shape)}")
    return arr


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _from_inputs(val, infos) -> dict:
    if not isinstance(val, dict) or is_b64(val):
        if len(infos) > 1:
            raise RequestError("inputs is a plain value/list, but expecting an object as "
                               "multiple input tensors required as per tensorinfo_map")
        key = next(iter(infos))
        return {key: _named_input(val, key, infos[key].dtype)}
    out = {}
    for key in sorted(infos):
        if key not in val:
            raise RequestError(f"Missing named input: {key} in 'inputs' object.")
        out[key] = _named_input(val[key], key, infos[key].dtype)
    return out


def _named_input(val, key, dtype_enum):
    try:
        return to_array(val, dtype_enum)
    except RequestError as e:
        # TF's text, with the input it is about (TF's own columnar errors do not say).
        raise RequestError(f"{e.message} (input: '{key}' of 'inputs')", e.code) from None


# ── tf.Examples for classify and regress ───────────────────────────────────────────
def _kind_error(name, feature):
    kind = feature.WhichOneof("kind")
    text = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64"}.get(
        kind, "UNKNOWN")
    return RequestError(f"Unexpected element type in feature: {name} expecting type: {text}")


def _add_to_feature(val, name, feature):
    kind = feature.WhichOneof("kind")
    if val is None or isinstance(val, list) or (isinstance(val, dict) and not is_b64(val)):
        raise RequestError(f"Feature: {name} has element with unexpected JSON type: "
                           f"{_json_type(val)}")
    if isinstance(val, bool) or (isinstance(val, int) and not isinstance(val, bool)):
        if kind not in (None, "int64_list"):
            raise _kind_error(name, feature)
        if isinstance(val, int) and not isinstance(val, bool) and not (
                -2**63 <= val < 2**63):
            if 0 <= val < 2**64:
                raise RequestError(f"Feature: {name} has uint64 element. Only int64 is "
                                   "supported.")
            raise RequestError(f"Feature: {name} has element with unexpected JSON type: "
                               "Number")
        feature.int64_list.value.append(int(val))
    elif isinstance(val, float):
        if kind not in (None, "float_list"):
            raise _kind_error(name, feature)
        if math.isfinite(val) and abs(val) > float(np.finfo(np.float32).max):
            raise RequestError(f"Cannot convert JSON value: {value_to_string(val)} to float "
                               "without loss of precision.")
        feature.float_list.value.append(val)
    elif isinstance(val, str):
        if kind not in (None, "bytes_list"):
            raise _kind_error(name, feature)
        feature.bytes_list.value.append(val.encode("utf-8"))
    else:  # {"b64": ...}
        if kind not in (None, "bytes_list"):
            raise _kind_error(name, feature)
        feature.bytes_list.value.append(decode_b64(val))


def example_from_json(val):
    """A ``tf.train.Example`` from ``{"feature": value-or-list, ...}``."""
    if not isinstance(val, dict):
        raise RequestError(f"Example must be JSON object but got JSON {_json_type(val)}")
    example = protos.Example()
    for name, content in val.items():
        feature = protos.Feature()
        for v in content if isinstance(content, list) else [content]:
            _add_to_feature(v, name, feature)
        example.features.feature[name].CopyFrom(feature)
    return example


def serialized_examples(doc, method: str) -> list[bytes]:
    """The request's examples, each merged over the ``context`` (TF Serving serializes
    the context, then the example: the example's features win), serialized."""
    context = example_from_json(doc["context"]) if "context" in doc else None
    if "examples" not in doc:
        raise RequestError(f"JSON Value: {value_to_string(doc)} When method is {method}, "
                           "key 'examples' is expected and was not found")
    examples = doc["examples"]
    if not isinstance(examples, list):
        raise RequestError(f"JSON Value: {value_to_string(doc)} Expecting 'examples' value "
                           "to be an list/array")
    if not examples:
        raise RequestError(f"JSON Value: {value_to_string(doc)} 'examples' value is an empty "
                           "array")
    out = []
    for item in examples:
        example = example_from_json(item)
        if context is not None:
            merged = protos.Example()
            merged.CopyFrom(context)
            for name, feature in example.features.feature.items():
                merged.features.feature[name].CopyFrom(feature)
            example = merged
        out.append(example.SerializeToString())
    return out


def signature_name(doc) -> str:
    return _signature_name(doc)


# ── writing JSON ───────────────────────────────────────────────────────────────────
def _float_text(v, np_type) -> str:
    """TF Serving's ``WriteDecimal``: shortest ``%g`` form that reads back, ``.0`` on whole
    numbers, ``NaN``/``Infinity``/``-Infinity`` for the rest."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "-Infinity" if v < 0 else "Infinity"
    text = f"{v:g}"
    if np_type(text) != v:
        text = f"{v:.9g}" if np_type is np.float32 else f"{v:.17g}"
    if "." not in text and "e" not in text:
        text += ".0"
    return text


class _Writer:
    def __init__(self):
        self.parts: list[str] = []

    def value(self, arr, as_bytes: bool):
        """A tensor (or one row of one) as nested JSON lists."""
        arr = arr if isinstance(arr, np.ndarray) else np.asarray(arr)
        kind = arr.dtype.kind
        if kind == "f":
            np_type = np.float32 if arr.dtype.itemsize <= 4 else np.float64
            flat = [_float_text(float(v), np_type) for v in arr.ravel().tolist()]
        elif kind in "iu":
            flat = [str(v) for v in arr.ravel().tolist()]
        elif kind == "b":
            flat = ["true" if v else "false" for v in arr.ravel().tolist()]
        elif kind in "OSU":
            flat = [self._string(v, as_bytes) for v in arr.ravel().tolist()]
        else:
            raise RequestError(f"Failed to write JSON value for tensor type: {arr.dtype}")
        self._nest(flat, arr.shape, 0, 0)

    @staticmethod
    def _string(v, as_bytes):
        if isinstance(v, str):
            v = v.encode("utf-8")
        if as_bytes:
            return '{"b64": "' + base64.b64encode(v).decode("ascii") + '"}'
        return json.dumps(v.decode("utf-8", errors="replace"))

    def _nest(self, flat, shape, dim, offset):
        if dim == len(shape):
            self.parts.append(flat[offset])
            return offset + 1
        self.parts.append("[")
        for i in range(shape[dim]):
            if i:
                self.parts.append(", ")
            offset = self._nest(flat, shape, dim + 1, offset)
        self.parts.append("]")
        return offset

    def text(self) -> str:
        return "".join(self.parts)


def _is_bytes_output(name, arr) -> bool:
    return arr.dtype.kind in "OSU" and name.endswith("_bytes")


def predict_response(outputs: dict, fmt: str) -> str:
    """The ``predict`` answer for output key -> array (keys sorted, as TF's map order is
    not one to rely on)."""
    if not outputs:
        raise RequestError("Cannot convert empty tensor map to JSON")
    names = sorted(outputs)
    w = _Writer()
    if fmt == "columnar":
        w.parts.append('{"outputs": ')
        if len(names) > 1:
            w.parts.append("{")
        for i, name in enumerate(names):
            if len(names) > 1:
                w.parts.append((", " if i else "") + json.dumps(name) + ": ")
            w.value(outputs[name], _is_bytes_output(name, outputs[name]))
        if len(names) > 1:
            w.parts.append("}")
        w.parts.append("}")
        return w.text()
    batch = -1
    for name in names:
        arr = outputs[name]
        if arr.ndim == 0:
            raise RequestError(f"Tensor name: {name} has no shape information ")
        if batch >= 0 and arr.shape[0] != batch:
            raise RequestError(f"Tensor name: {name} has inconsistent batch size: "
                               f"{arr.shape[0]} expecting: {batch}")
        batch = arr.shape[0]
    w.parts.append('{"predictions": [')
    for item in range(batch):
        if item:
            w.parts.append(", ")
        if len(names) > 1:
            w.parts.append("{")
        for i, name in enumerate(names):
            if len(names) > 1:
                w.parts.append((", " if i else "") + json.dumps(name) + ": ")
            w.value(outputs[name][item, ...], _is_bytes_output(name, outputs[name]))
        if len(names) > 1:
            w.parts.append("}")
    w.parts.append("]}")
    return w.text()


def classify_response(rows) -> str:
    """``{"results": [[[label, score], ...], ...]}`` from per-example (label, score) lists."""
    if not rows:
        raise RequestError("Cannot convert empty ClassificationResults to JSON")
    out = []
    for row in rows:
        pairs = ", ".join(f"[{json.dumps(label)}, {_float_text(score, np.float32)}]"
                          for label, score in row)
        out.append(f"[{pairs}]")
    return '{"results": [' + ", ".join(out) + "]}"


def regress_response(values) -> str:
    if not len(values):
        raise RequestError("Cannot convert empty RegressionResults to JSON")
    return '{"results": [' + ", ".join(_float_text(float(v), np.float32)
                                       for v in values) + "]}"


def error_response(message: str) -> str:
    return json.dumps({"error": message})
