"""TensorFlow's ``tensorflow.core``: its ``*_pb2`` protocol-buffer modules, mapped onto
scopeflow's messages (``scopeflow/io/protos.py``) by the table of
``scopeflow/python/module_paths.py`` (``scopeflow.core.framework.graph_pb2.GraphDef`` is
``scopeflow.GraphDef``). docs/API.md lists the paths."""

from scopeflow.python import child_or_missing, install

install()


def __getattr__(name):
    return child_or_missing(__name__, name)
