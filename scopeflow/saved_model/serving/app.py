"""TF Serving's REST API as a Starlette (ASGI) application over one :class:`ServedModel`.

Paths, verbs and answers are those of https://www.tensorflow.org/tfx/serving/api_rest;
the URL patterns, the JSON of model status and metadata (protobuf's JSON printer with
``always_print_primitive_fields``, proto field names) and the mapping of TF's error codes
to HTTP statuses follow ``model_servers/http_rest_api_util.cc`` and ``http_server.cc`` in
github.com/tensorflow/serving::

    GET  /v1/models/NAME[/versions/N]             model status
    GET  /v1/models/NAME[/versions/N]/metadata    signature_def map
    POST /v1/models/NAME[/versions/N]:predict     {"instances": ...} or {"inputs": ...}
    POST /v1/models/NAME[/versions/N]:classify    {"examples": [...], "context": {...}}
    POST /v1/models/NAME[/versions/N]:regress

Every mistake is answered ``{"error": "<message>"}`` with TF Serving's status (400 for
INVALID_ARGUMENT, 404 for NOT_FOUND, ...); nothing a client sends ends the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from urllib.parse import unquote

import numpy as np
from google.protobuf import json_format

try:  # the `serve` extra; without it this module imports, and make_app says what to install
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route
except ImportError:  # pragma: no cover - exercised where starlette is absent
    Starlette = Response = Route = None

from scopeflow.saved_model.serving import json_tensor
from scopeflow.saved_model.serving.json_tensor import RequestError
from scopeflow.saved_model.serving.model import CLASSIFY_METHOD, REGRESS_METHOD, ServedModel

log = logging.getLogger("scopeflow.serve")

# http_rest_api_util.cc's patterns (RE2 FullMatch, case-insensitive).
_PREDICTION_RE = re.compile(
    r"(?i)/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?"
    r":(classify|regress|predict)")
_STATUS_RE = re.compile(
    r"(?i)/v1/models(?:/([^/:]+))?(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?"
    r"(?:/(metadata))?")

# http_server.cc's ToHTTPStatusCode.
HTTP_STATUS = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404, "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403,
    "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400, "ABORTED": 409,
    "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503,
    "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
    # Not a TF code: a body over --max_body_bytes (TF Serving's evhttp refuses it too).
    "PAYLOAD_TOO_LARGE": 413,
}

DEFAULT_MAX_BODY_BYTES = 64 << 20


def _response(text: str, status: int = 200):
    return Response(text, status_code=status, media_type="application/json")


def _error(e: RequestError):
    return _response(json_tensor.error_response(e.message), HTTP_STATUS.get(e.code, 500))


class ServingApp:
    """The ASGI app: ``ServingApp(model)`` is callable as Starlette/uvicorn expect."""

    def __init__(self, model: ServedModel, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES):
        if Starlette is None:
            raise ImportError("scopeflow serve needs starlette and uvicorn: pip install "
                              "'scopeflow[serve]'")
        self.model = model
        self.max_body_bytes = max_body_bytes
        # Every verb reaches _dispatch: one TF Serving does not serve is a malformed
        # request there (400, with the error JSON), not Starlette's plain-text 405.
        self.app = Starlette(routes=[Route("/{path:path}", self._dispatch, methods=[
            "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])])

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)

    # ── dispatch ──
    async def _dispatch(self, request):
        path = request.url.path
        try:
            if not path.lower().startswith("/v1/"):
                raise RequestError(f"Malformed request: {request.method} {path}", "NOT_FOUND")
            if request.method == "POST":
                m = _PREDICTION_RE.fullmatch(path)
                if m is None:
                    raise RequestError(f"Malformed request: POST {path}")
                name, version, label, method = m.groups()
                version = self._resolve(name, version, label, "predict")
                body = await self._body(request)
                return await self._post(method.lower(), body, version)
            m = _STATUS_RE.fullmatch(path)
            if request.method != "GET" or m is None:
                raise RequestError(f"Malformed request: {request.method} {path}")
            name, version, label, sub = m.groups()
            if not name:
                raise RequestError("Missing model name in request.")
            if sub:
                self._resolve(name, version, label, "metadata")
                return _response(self.metadata_json(version))
            return _response(self.status_json(name, version, label))
        except RequestError as e:
            return _error(e)
        except Exception as e:  # noqa: BLE001 - a bug answers 500, never ends the server
            log.exception("request %s %s failed", request.method, path)
            return _error(RequestError(f"{type(e).__name__}: {e}", "INTERNAL"))

    def _resolve(self, name, version, label, what):
        """The version asked for (None: the latest), or NOT_FOUND."""
        name = unquote(name)
        if version is not None and label is not None:
            raise RequestError(f"Both model version ({version}) and model version label "
                               f"({label}) cannot be supplied.")
        if name != self.model.name:
            if version is not None:
                raise RequestError(f"Servable not found for request: Specific({name}, "
                                   f"{int(version)})", "NOT_FOUND")
            raise RequestError(f"Servable not found for request: Latest({name})", "NOT_FOUND")
        if label is not None:
            raise RequestError(f"Unrecognized servable version label: {unquote(label)}",
                               "NOT_FOUND")
        if version is not None:
            try:
                version = int(version)
            except ValueError:
                raise RequestError(f"Failed to convert version: {version} to numeric.") \
                    from None
            self.model.check_version(version)
        return version

    async def _body(self, request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and \
                int(declared) > self.max_body_bytes:
            raise RequestError(f"Request body of {declared} bytes is larger than the "
                               f"server's limit of {self.max_body_bytes} bytes",
                               "PAYLOAD_TOO_LARGE")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise RequestError(f"Request body is larger than the server's limit of "
                                   f"{self.max_body_bytes} bytes", "PAYLOAD_TOO_LARGE")
            chunks.append(chunk)
        return b"".join(chunks)

    # ── the JSON documents ──
    def status_json(self, name, version, label) -> str:
        """``GetModelStatusResponse`` as TF Serving prints it."""
        name = unquote(name)
        if name != self.model.name:
            raise RequestError(f"Could not find any versions of model {name}", "NOT_FOUND")
        if label is not None:
            raise RequestError(f"Unrecognized servable version label: {unquote(label)}",
                               "NOT_FOUND")
        if version is not None and int(version) != self.model.version:
            raise RequestError(f"Could not find version {int(version)} of model {name}",
                               "NOT_FOUND")
        return json.dumps({"model_version_status": [{
            "version": str(self.model.version), "state": "AVAILABLE",
            "status": {"error_code": "OK", "error_message": ""}}]}, indent=1)

    def metadata_json(self, version) -> str:
        """``GetModelMetadataResponse`` as TF Serving prints it: ``model_spec`` and the
        ``signature_def`` map, every proto field present (defaults included)."""
        sigs = {key: _signature_json(sig) for key, sig in sorted(self.model.signatures.items())}
        return json.dumps({
            "model_spec": {"name": self.model.name, "signature_name": "",
                           "version": str(self.model.version)},
            "metadata": {"signature_def": {"signature_def": sigs}}}, indent=1)

    # ── predict, classify, regress ──
    async def _post(self, method, body, version):
        loop = asyncio.get_running_loop()
        pool = self.model.executor
        if method == "predict":
            sig, feeds, fmt = await loop.run_in_executor(pool, self._predict_request, body)
            outputs = await asyncio.wrap_future(self.model.submit(sig, feeds))
            text = await loop.run_in_executor(pool, json_tensor.predict_response, outputs,
                                              fmt)
            return _response(text)
        method_name, kind = ((CLASSIFY_METHOD, "classification") if method == "classify"
                             else (REGRESS_METHOD, "regression"))
        sig, feeds, n = await loop.run_in_executor(pool, self._examples_request, body,
                                                   method, method_name, kind)
        keys = [k for k in (("classes", "scores") if method == "classify" else ("outputs",))
                if k in sig.outputs]
        outputs = await asyncio.wrap_future(self.model.submit(sig, feeds, keys))
        if method == "classify":
            return _response(json_tensor.classify_response(_classifications(outputs, n)))
        return _response(json_tensor.regress_response(_regressions(outputs, n)))

    def _predict_request(self, body):
        doc = json_tensor.parse_json(body)
        sig = self.model.signature(json_tensor.predict_signature_name(doc))
        feeds, fmt = json_tensor.predict_inputs(doc, dict(sig.inputs))
        return sig, feeds, fmt

    def _examples_request(self, body, method, method_name, kind):
        doc = json_tensor.parse_json(body)
        sig = self.model.typed_signature(json_tensor.signature_name(doc), method_name, kind)
        if len(sig.inputs) != 1:
            raise RequestError("Expected one input Tensor.")
        examples = json_tensor.serialized_examples(doc, method)
        arr = np.empty(len(examples), dtype=object)
        arr[:] = examples
        if method == "classify" and not ({"classes", "scores"} & set(sig.outputs)):
            raise RequestError("Expected classification signature outputs to contain at "
                               "least one of classes, scores.")
        if method == "regress" and "outputs" not in sig.outputs:
            raise RequestError("No output Tensor named outputs found in the signature.")
        return sig, {next(iter(sig.inputs)): arr}, len(examples)


def _signature_json(sig) -> dict:
    """A SignatureDef as TF Serving's metadata prints it: a TensorInfo's ``dtype`` and
    ``tensor_shape`` before its encoding (``name``), as in the samples of its docs."""
    doc = json_format.MessageToDict(sig, always_print_fields_with_no_presence=True,
                                    preserving_proto_field_name=True)
    for side in ("inputs", "outputs"):
        for key, info in doc.get(side, {}).items():
            first = {k: info[k] for k in ("dtype", "tensor_shape") if k in info}
            doc[side][key] = {**first, **{k: v for k, v in info.items() if k not in first}}
    return doc


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _classifications(outputs, n):
    """Per example, its (label, score) pairs (TF Serving's classifier.cc checks)."""
    classes, scores = outputs.get("classes"), outputs.get("scores")
    for t in (classes, scores):
        if t is not None and (t.ndim != 2 or t.shape[0] != n):
            raise RequestError(f"Expected Tensor shape: [batch_size num_classes] but got "
                               f"{_shape_text(t.shape)}")
    if scores is not None and scores.dtype.kind != "f":
        raise RequestError(f"Expected scores Tensor of DT_FLOAT.  Got: {scores.dtype}")
    if classes is not None and classes.dtype.kind not in "OSU":
        raise RequestError(f"Expected classes Tensor of DT_STRING.  Got: {classes.dtype}")
    if classes is not None and scores is not None and classes.shape != scores.shape:
        raise RequestError(f"Tensors class and score should match in shape: classes "
                           f"{_shape_text(classes.shape)} vs. scores "
                           f"{_shape_text(scores.shape)}")
    k = (classes if classes is not None else scores).shape[1]
    rows = []
    for i in range(n):
        row = []
        for j in range(k):
            label = classes[i, j] if classes is not None else b""
            if isinstance(label, bytes):
                label = label.decode("utf-8", errors="replace")
            row.append((label, float(scores[i, j]) if scores is not None else 0.0))
        rows.append(row)
    return rows


def _regressions(outputs, n):
    out = outputs["outputs"]
    if out.dtype.kind != "f":
        raise RequestError(f"Expected output Tensor of DT_FLOAT.  Got: {out.dtype}")
    if not (out.ndim == 1 or (out.ndim == 2 and out.shape[1] == 1)):
        raise RequestError("Expected output Tensor shape to be either [batch_size] or "
                           f"[batch_size, 1] but got {_shape_text(out.shape)}")
    if out.shape[0] != n:
        raise RequestError(f"Input batch size did not match output batch size: {n} vs. "
                           f"{out.shape[0]}")
    return out.reshape(-1)


def make_app(model: ServedModel, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES):
    """The ASGI application serving ``model`` (needs the ``serve`` extra: starlette)."""
    return ServingApp(model, max_body_bytes)
