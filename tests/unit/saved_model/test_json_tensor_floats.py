"""Float tensors in REST requests take a C-speed path (json_tensor._float_leaves_array):
the same arrays as the element-by-element walk (TF's ``AddValueToTensor``), and every
request it cannot take goes to that walk, so TF's error messages are unchanged."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scopeflow.framework import dtypes
from scopeflow.saved_model.serving import json_tensor

F32, F64 = dtypes.float32.as_datatype_enum, dtypes.float64.as_datatype_enum


def _walk(val, dtype_enum):
    """The element-by-element conversion alone (the fast path switched off)."""
    shape = json_tensor._dense_shape(val)
    flat = []
    json_tensor._fill(val, 0, shape, dtype_enum, flat)
    return np.array(flat, dtypes.as_dtype(dtype_enum).as_numpy_dtype).reshape(shape)


VALUES = [
    np.random.default_rng(0).uniform(-1, 1, (4, 5, 3)).tolist(),
    [[0.1, 1e-45, -3.4028234e38], [math.nan, math.inf, -0.0]],
    [1.5, 2.5, 1e300],            # beyond float32 (an error), fine for float64
    [[1.0, 2], [3.0, 4.0]],       # an int among floats: the walk
    [[[1.0]]],
]


@pytest.mark.parametrize("dtype_enum", [F32, F64])
@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_same_array_or_same_error_as_the_walk(value, dtype_enum):
    try:
        want = _walk(value, dtype_enum)
    except json_tensor.RequestError as e:
        with pytest.raises(json_tensor.RequestError) as got:
            json_tensor.to_array(value, dtype_enum)
        assert str(got.value) == str(e)
        return
    got = json_tensor.to_array(value, dtype_enum)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("value,message", [
    ([[1.0, 2.0], [3.0]], "unexpected size"),
    ([[1.0, 2.0], 3.0], "incorrect level"),
    ([[1.0, True]], "Type: True is not of expected type: float"),
    ([[1.0, "a"]], "is not of expected type: float"),
    ([[1.0, [2.0]]], "unexpected level"),
    ([1.0, 3.5e38], "without loss of precision"),
])
def test_bad_requests_keep_tfs_messages(value, message):
    with pytest.raises(json_tensor.RequestError, match=message):
        json_tensor.to_array(value, F32)


BODIES = [b'{"instances": [[0.1, 2.5e-3, -1e300, 5e-324, 1, -0.0]]}',
          b'{"inputs": {"x": [NaN, Infinity, -Infinity]}}',          # orjson refuses these
          b'{"instances": [123456789012345678901234567890]}',       # past 64 bits: a double
          b'{"x": [18446744073709551615, 18446744073709551616, -9223372036854775809]}',
          '{"instances": ["\u00e9\u4e2d"], "signature_name": "a"}'.encode()]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_orjson_and_pythons_json_give_the_same_document(monkeypatch, body):
    got = json_tensor.parse_json(body)
    monkeypatch.setattr(json_tensor, "_orjson", None)
    want = json_tensor.parse_json(body)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("body", [b'{"instances": [1.0,]}', b'[1.0]', b'{"a": 1} x', b'\xff'])
def test_bad_json_keeps_its_message(monkeypatch, body):
    with pytest.raises(json_tensor.RequestError) as fast:
        json_tensor.parse_json(body)
    monkeypatch.setattr(json_tensor, "_orjson", None)
    with pytest.raises(json_tensor.RequestError) as slow:
        json_tensor.parse_json(body)
    assert str(fast.value) == str(slow.value)
