"""``scopeflow serve``: TF Serving's REST API, spoken over real HTTP (urllib) to uvicorn
serving a SavedModel real TF wrote (tests/fixtures/saved_model/tf_model) and versioned
ones scopeflow's builder writes (serve_models.py).

The expected JSON follows TF Serving's REST API page
(https://www.tensorflow.org/tfx/serving/api_rest: model status, metadata, predict in row
and columnar form, classify/regress, b64, the error object) and, for error texts and
float formatting, tensorflow_serving/util/json_tensor.cc; real TF Serving is not
installable here, so these are checked against that documentation and source.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from scopeflow.saved_model.serving import (  # noqa: E402
    BatchingOptions,
    ServedModel,
    json_tensor,
    make_app,
)

HERE = Path(__file__).resolve().parent
TF_MODEL = str(HERE.parents[1] / "fixtures" / "saved_model" / "tf_model")


def _load_builder():
    spec = importlib.util.spec_from_file_location("serve_models_for_test_serve",
                                                  HERE / "serve_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Server:
    """uvicorn serving ``model`` on a free port in a background thread."""

    def __init__(self, model, **app_kwargs):
        self.model = model
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(make_app(model, **app_kwargs), log_level="critical",
                                lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        self.model.close()


def http(server_or_port, path, body=None, method=None):
    """(status, parsed JSON) of one request; ``body`` a dict (sent as JSON) or bytes."""
    port = server_or_port if isinstance(server_or_port, int) else server_or_port.port
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                 method=method or ("POST" if data is not None else "GET"))
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            assert r.headers["Content-Type"] == "application/json"
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        assert e.headers["Content-Type"] == "application/json"
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def tf_server():
    server = Server(ServedModel(TF_MODEL, name="tfm"))
    yield server
    server.close()


@pytest.fixture(scope="module")
def versioned_base(tmp_path_factory):
    return _load_builder().build_versioned(str(tmp_path_factory.mktemp("serve") / "m"))


@pytest.fixture(scope="module")
def sf_server(versioned_base):
    server = Server(ServedModel(versioned_base, name="m"), max_body_bytes=1 << 16)
    yield server
    server.close()


# ── status and metadata ────────────────────────────────────────────────────────────
def test_model_status_is_tf_servings_json(tf_server, sf_server):
    ok = {"version": "1", "state": "AVAILABLE",
          "status": {"error_code": "OK", "error_message": ""}}
    assert http(tf_server, "/v1/models/tfm") == (200, {"model_version_status": [ok]})
    assert http(tf_server, "/v1/models/tfm/versions/1") == (200, {"model_version_status": [ok]})
    # the highest numeric version folder is served, as TF Serving's latest policy does
    assert http(sf_server, "/v1/models/m")[1]["model_version_status"][0]["version"] == "3"
    assert http(sf_server, "/v1/models/m/versions/1") == (
        404, {"error": "Could not find version 1 of model m"})
    assert http(sf_server, "/v1/models/nope") == (
        404, {"error": "Could not find any versions of model nope"})


def test_metadata_is_the_signature_def_map(tf_server):
    status, doc = http(tf_server, "/v1/models/tfm/metadata")
    assert status == 200
    assert doc["model_spec"] == {"name": "tfm", "signature_name": "", "version": "1"}
    sigs = doc["metadata"]["signature_def"]["signature_def"]
    assert sorted(sigs) == ["classify", "regress", "serving_default"]
    assert sigs["serving_default"]["method_name"] == "tensorflow/serving/predict"
    assert sigs["serving_default"]["inputs"]["x"] == {
        "name": "x:0", "dtype": "DT_FLOAT",
        "tensor_shape": {"dim": [{"size": "-1", "name": ""}, {"size": "2", "name": ""}],
                         "unknown_rank": False}}
    assert sigs["classify"]["method_name"] == "tensorflow/serving/classify"
    assert http(tf_server, "/v1/models/tfm/versions/1/metadata")[1] == doc
    assert http(tf_server, "/v1/models/tfm/versions/2/metadata") == (
        404, {"error": "Servable not found for request: Specific(tfm, 2)"})


# ── predict ────────────────────────────────────────────────────────────────────────
def test_predict_row_and_columnar_on_a_tf_written_model(tf_server):
    # y = x @ [[1, 0], [0, 2]] + [0.5, -0.5]: TF's saved_model_cli gives these values
    want = [[1.5, 3.5], [0.5, 1.5]]
    rows = {"instances": [[1.0, 2.0], [0.0, 1.0]]}
    assert http(tf_server, "/v1/models/tfm:predict", rows) == (200, {"predictions": want})
    named = {"signature_name": "serving_default",
             "instances": [{"x": [1.0, 2.0]}, {"x": [0, 1]}]}
    assert http(tf_server, "/v1/models/tfm/versions/1:predict", named) == (
        200, {"predictions": want})
    cols = {"inputs": {"x": [[1.0, 2.0], [0.0, 1.0]]}}
    assert http(tf_server, "/v1/models/tfm:predict", cols) == (200, {"outputs": want})
    assert http(tf_server, "/v1/models/tfm:predict", {"inputs": [[1, 2]]}) == (
        200, {"outputs": [[1.5, 3.5]]})


def test_predict_several_inputs_and_outputs_bytes_and_b64(sf_server):
    body = {"instances": [{"a": [1.0, 2.0], "tag": "hi"},
                          {"a": [0.5, 0.25], "tag": {"b64": "AAE="}}]}
    # version 3 serves: total = 3 * (a0 + a1); tag_bytes ends in _bytes, so b64 out
    assert http(sf_server, "/v1/models/m:predict", body) == (200, {"predictions": [
        {"count": 2, "tag_bytes": {"b64": "aGk="}, "total": 9.0},
        {"count": 2, "tag_bytes": {"b64": "AAE="}, "total": 2.25}]})
    cols = {"inputs": {"a": [[1.0, 2.0]], "tag": ["xyz"]}}
    assert http(sf_server, "/v1/models/m/versions/3:predict", cols) == (200, {"outputs": {
        "count": [3], "tag_bytes": [{"b64": "eHl6"}], "total": [9.0]}})


def test_classify_and_regress_take_tf_examples(sf_server):
    ex = [{"x": [1.0, 2.0]}, {"x": [3.0, 0.5]}]
    status, doc = http(sf_server, "/v1/models/m:classify",
                       {"signature_name": "classify", "examples": ex})
    # scores (x0 / 3, x1 * 3), written as TF Serving writes floats (%.9g when %g
    # does not read back)
    assert status == 200 and doc == {"results": [
        [["neg", 0.333333343], ["pos", 6.0]], [["neg", 1.0], ["pos", 1.5]]]}
    # context features go into every example; the example's own win
    body = {"signature_name": "regress", "context": {"bias": 1.0},
            "examples": [{"x": [1.0, 2.0]}, {"x": [3.0, 0.5], "bias": 0.0}]}
    assert http(sf_server, "/v1/models/m:regress", body) == (200, {"results": [9.0, 9.5]})
    assert http(sf_server, "/v1/models/m:regress", {"examples": ex}) == (400, {
        "error": "Expected regression signature method_name to be tensorflow/serving/regress. "
                 "Was: tensorflow/serving/predict"})
    assert http(sf_server, "/v1/models/m:classify",
                {"signature_name": "nope", "examples": ex}) == (
        400, {"error": "No signature was found with the name: nope"})
    assert http(sf_server, "/v1/models/m:classify", {"signature_name": "classify"})[0] == 400
    status, doc = http(sf_server, "/v1/models/m:classify",
                       {"signature_name": "classify", "examples": [{"x": ["a", "b"]}]})
    assert status == 400 and "Data types don't match" in doc["error"]


# ── mistakes ───────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("body, status, error", [
    (b"", 400, "JSON Parse error: The document is empty"),
    (b"{not json", 400, "JSON Parse error: "),
    (b"[1, 2]", 400, "JSON Value: [1,2] Is not object"),
    ({"instances": [[1.0, 2.0]], "inputs": [[1.0, 2.0]]}, 400,
     "Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist"),
    ({"instances": []}, 400, "No values in 'instances' array"),
    ({"instances": 3}, 400, "Excepting 'instances' to be an list/array"),
    ({"signature_name": 7, "instances": [[1.0, 2.0]]}, 400,
     "'signature_name' key must be a string value."),
    ({"nothing": 1}, 400, "Missing 'inputs' or 'instances' key"),
    ({"instances": [["a", 2.0]]}, 400, "Failed to process element: 0 of 'instances' list. "
     'Error: Invalid argument: JSON Value: "a" Type: String is not of expected type: float'),
    ({"instances": [[1.0, 2.0], [1.0]]}, 400,
     "Failed to process element: 1 of 'instances' list. Error: Invalid argument: "
     "Expecting tensor size: 2 but got: 1"),
    ({"instances": [{"x": [1.0, 2.0], "z": 1}]}, 400,
     "JSON object: does not have named input: z"),
    ({"inputs": {"y": [[1.0, 2.0]]}}, 400, "Missing named input: x in 'inputs' object."),
    ({"inputs": [[1.0, [2.0]]]}, 400, "Encountered list at unexpected level: 2 expected < 2"),
    ({"inputs": [[1.0, 2.0, 3.0]]}, 400, "Cannot feed value of shape (1, 3)"),
    ({"inputs": [[1e300, 2.0]]}, 400, "to float without loss of precision."),
    ({"signature_name": "nope", "instances": [[1.0, 2.0]]}, 400,
     'Serving signature name: "nope" not found in signature def'),
])
def test_bad_requests_get_tf_servings_error_json(tf_server, body, status, error):
    got_status, doc = http(tf_server, "/v1/models/tfm:predict", body, method="POST")
    assert got_status == status and list(doc) == ["error"] and error in doc["error"], doc


def test_unknown_models_paths_versions_and_huge_bodies(tf_server, sf_server):
    assert http(tf_server, "/v1/models/half:predict", {"instances": [1.0]}) == (
        404, {"error": "Servable not found for request: Latest(half)"})
    assert http(tf_server, "/v1/models/tfm/versions/7:predict", {"instances": [1.0]}) == (
        404, {"error": "Servable not found for request: Specific(tfm, 7)"})
    assert http(tf_server, "/v1/models/tfm:explain", {"instances": [1.0]})[0] == 400
    assert http(tf_server, "/v1/models/tfm", {"instances": [1.0]}) == (
        400, {"error": "Malformed request: POST /v1/models/tfm"})
    assert http(tf_server, "/v2/anything")[0] == 404
    assert http(tf_server, "/v1/models/tfm", method="DELETE") == (
        400, {"error": "Malformed request: DELETE /v1/models/tfm"})
    assert http(tf_server, "/v1/models") == (400, {"error": "Missing model name in request."})
    huge = b'{"instances": [' + b"1.0, " * 20000 + b"1.0]}"
    status, doc = http(sf_server, "/v1/models/m:predict", huge)
    assert status == 413 and "larger than the server's limit" in doc["error"]
    # a graph error from a bad value answers 400 with TF's message; the server lives on
    status, doc = http(tf_server, "/v1/models/tfm:classify",
                       {"signature_name": "classify", "examples": [{"x": 1.0}]})
    assert status == 400 and doc["error"].startswith("StringToNumberOp could not correctly "
                                                     "convert string:"), doc
    assert http(tf_server, "/v1/models/tfm")[0] == 200


# ── concurrency and batching ───────────────────────────────────────────────────────
def test_concurrent_requests_each_get_their_own_answer(tf_server):
    def one(i):
        x = [[float(i), 1.0]]
        status, doc = http(tf_server, "/v1/models/tfm:predict", {"instances": x})
        return status, doc["predictions"], i

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(one, range(96)))
    for status, pred, i in results:
        assert status == 200 and pred == [[i + 0.5, 1.5]]


def test_batching_merges_concurrent_requests_into_one_run(versioned_base):
    model = ServedModel(versioned_base, name="m", num_threads=8,
                        batching=BatchingOptions(max_batch_size=64,
                                                 batch_timeout_micros=300_000))
    server = Server(model)
    try:
        def one(i):
            body = {"instances": [{"a": [float(i), 1.0], "tag": "t" * (i % 5)},
                                  {"a": [0.0, float(i)], "tag": "u"}]}
            return i, http(server, "/v1/models/m:predict", body)

        with ThreadPoolExecutor(12) as pool:
            results = list(pool.map(one, range(12)))
        for i, (status, doc) in results:
            assert status == 200, doc
            assert [p["total"] for p in doc["predictions"]] == [3.0 * (i + 1), 3.0 * i]
            assert [p["count"] for p in doc["predictions"]] == [i % 5, 1]
        # 12 requests of 2 rows each, within 0.3 s of one another: merged into few runs
        assert 1 <= model.batcher.runs < 12
        # a bad request in a batch fails alone
        with ThreadPoolExecutor(4) as pool:
            good = [pool.submit(one, i) for i in range(3)]
            bad = pool.submit(http, server, "/v1/models/m:predict",
                              {"instances": [{"a": [1.0, 2.0, 3.0], "tag": "x"}]})
            assert all(f.result()[1][0] == 200 for f in good)
            assert bad.result()[0] == 400
    finally:
        server.close()


def test_batching_parameters_file(tmp_path):
    path = tmp_path / "batching.txt"
    path.write_text("max_batch_size { value: 8 }\nbatch_timeout_micros { value: 500 }\n"
                    "num_batch_threads { value: 2 }\n")
    opts = BatchingOptions.from_file(str(path))
    assert (opts.max_batch_size, opts.batch_timeout_micros, opts.num_batch_threads) == (8, 500, 2)


# ── the JSON rules on their own ────────────────────────────────────────────────────
def test_floats_are_written_as_tf_serving_writes_them():
    f32 = [0.1, 3.0, 1e-5, 9000000.0, 1 / 3, float("nan"), float("inf"), -float("inf")]
    text = json_tensor.predict_response({"y": np.array([f32], np.float32)}, "columnar")
    assert text == ('{"outputs": [[0.1, 3.0, 1e-05, 9e+06, 0.333333343, NaN, Infinity, '
                    '-Infinity]]}')
    text = json_tensor.predict_response({"y": np.array([1 / 3, 2.0])}, "row")
    assert text == '{"predictions": [0.33333333333333331, 2.0]}'
    assert json.loads(json_tensor.predict_response(
        {"b": np.array([True]), "i": np.array([-3], np.int64)}, "row")) == {
        "predictions": [{"b": True, "i": -3}]}


def test_values_must_fit_the_dtype():
    from scopeflow.framework import dtypes

    i32 = dtypes.int32.as_datatype_enum
    assert json_tensor.to_array([[1, 2]], i32).dtype == np.int32
    for bad in ([1.5], [True], [2**31]):
        with pytest.raises(json_tensor.RequestError, match="is not of expected type: int32"):
            json_tensor.to_array(bad, i32)
    with pytest.raises(json_tensor.RequestError, match="not formatted correctly for base64"):
        json_tensor.to_array([{"b64": "AA==", "x": 1}], dtypes.string.as_datatype_enum)


# ── the command ────────────────────────────────────────────────────────────────────
def test_the_command_serves_until_sigterm(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "scopeflow", "serve", TF_MODEL,
                             "--port", str(port), "--model_name", "half_plus",
                             "--enable_batching"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, doc = http(port, "/v1/models/half_plus")
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert status == 200 and doc["model_version_status"][0]["state"] == "AVAILABLE"
        assert http(port, "/v1/models/half_plus:predict", {"instances": [[1.0, 2.0]]}) == (
            200, {"predictions": [[1.5, 3.5]]})
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    # uvicorn shuts down cleanly, then re-raises the signal: 143 in a shell (128 + 15)
    assert proc.returncode == -signal.SIGTERM, err
    assert "REST API at http://127.0.0.1:" in out


def test_the_command_reports_a_missing_model(tmp_path):
    out = subprocess.run([sys.executable, "-m", "scopeflow", "serve", str(tmp_path / "no"),
                          "--port", "1"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert out.stderr.startswith("scopeflow serve: error: Could not find base path")


# ── a TF-written model that parses tf.Examples (tests/fixtures/serving) ───────────
EXAMPLES_BASE = str(HERE.parents[1] / "fixtures" / "serving" / "tf_examples_model")


@pytest.fixture(scope="module")
def examples_server():
    server = Server(ServedModel(EXAMPLES_BASE, name="pets"))
    yield server
    server.close()


def test_classify_and_regress_on_a_tf_written_model_give_tfs_values(examples_server):
    expected = json.loads((Path(EXAMPLES_BASE).parent / "expected.json").read_text())
    examples = expected["examples"]
    assert http(examples_server, "/v1/models/pets")[1]["model_version_status"][0][
        "version"] == "7"
    # serving_default is a classification signature, as estimator exports have it
    status, doc = http(examples_server, "/v1/models/pets:classify", {"examples": examples})
    assert status == 200
    assert [[label for label, _ in row] for row in doc["results"]] == [["cat", "dog"]] * 3
    np.testing.assert_allclose([[s for _, s in row] for row in doc["results"]],
                               expected["scores"], rtol=1e-6)
    status, doc = http(examples_server, "/v1/models/pets/versions/7:regress",
                       {"signature_name": "regress", "examples": examples})
    assert status == 200
    np.testing.assert_allclose(doc["results"], expected["regress"], rtol=1e-6)
    # the same examples serialized by the client, through predict, as b64 strings
    from scopeflow.io import protos

    b64 = []
    for d in examples:
        ex = protos.Example()
        ex.features.feature["x"].float_list.value.extend(d["x"])
        if "age" in d:
            ex.features.feature["age"].int64_list.value.extend(d["age"])
        b64.append({"b64": base64.b64encode(ex.SerializeToString()).decode()})
    status, doc = http(examples_server, "/v1/models/pets:predict",
                       {"signature_name": "classify", "instances": b64})
    assert status == 200 and [p["classes"] for p in doc["predictions"]] == [["cat", "dog"]] * 3
    np.testing.assert_allclose([p["scores"] for p in doc["predictions"]], expected["scores"],
                               rtol=1e-6)
    # an int64 feature sent as a float: TF's parser refuses it, answered 400
    status, doc = http(examples_server, "/v1/models/pets:classify",
                       {"examples": [{"x": [1.0, 2.0], "age": 1.5}]})
    assert status == 400 and "Data types don't match" in doc["error"], doc


@pytest.mark.parametrize("body", [
    b"[" * 50000 + b"]" * 50000,                      # nested past Python's recursion limit
    b'{"instances": ' + b"[" * 5000 + b"1.0" + b"]" * 5000 + b"}",
    b'{"inputs": ' + b"[" * 5000 + b"1.0" + b"]" * 5000 + b"}",
    b"\xff\xfe{\x00}",                                # not UTF-8
    b'{"instances": [null]}',
    b'{"instances": [[NaN, Infinity]], "x": -Infinity}',
    b'{"inputs": {"x": {"b64": "AAAA"}}}',            # bytes for a float input
    b'{"inputs": {"x": [[1e999, 2]]}}',
    b'{"instances": [{"b64": 5}]}',
    b'{"instances": [[1, 2]], "signature_name": null}',
    b'{"inputs": {}}',
    b'{"instances": [{}]}',
    b'{"examples": [1, 2]}',
    "{\"instances\": [[\"\u00e9\", \"\U0001f600\"]]}".encode(),
])
def test_garbage_is_a_4xx_never_a_crash(tf_server, body):
    for path in ("/v1/models/tfm:predict", "/v1/models/tfm:classify",
                 "/v1/models/tfm/versions/1:regress"):
        status, doc = http(tf_server, path, body)
        # (1e999 reads as Infinity, which a float input takes: a 200)
        assert 400 <= status < 500 or (status == 200 and list(doc) in (
            ["predictions"], ["outputs"])), (path, doc)
    assert http(tf_server, "/v1/models/tfm")[0] == 200


def test_without_the_serve_extra_the_command_says_what_to_install(tmp_path):
    code = ("import sys; sys.modules['uvicorn'] = None; sys.modules['starlette'] = None\n"
            "from scopeflow.cli import main\n"
            f"sys.exit(main(['serve', {TF_MODEL!r}]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 1, out.stderr
    assert "pip install 'scopeflow[serve]'" in out.stderr
