"""``scopeflow serve``: TF Serving's REST API over a SavedModel, so that clients written
for TensorFlow Serving work unchanged (docs/saved_model.md, "Serving").

* :mod:`.json_tensor`: TF Serving's JSON <-> tensor rules (no web dependencies);
* :mod:`.model`: the served version, one Session, the thread pool and the batcher;
* :mod:`.app`: the Starlette (ASGI) application; :mod:`.cli`: the command, on uvicorn.

Starlette and uvicorn come with the ``serve`` extra: ``pip install 'scopeflow[serve]'``.
"""

from scopeflow.saved_model.serving.app import ServingApp, make_app
from scopeflow.saved_model.serving.json_tensor import RequestError
from scopeflow.saved_model.serving.model import BatchingOptions, ServedModel, find_versions

__all__ = ["RequestError", "BatchingOptions", "ServedModel", "ServingApp", "find_versions",
           "make_app"]
