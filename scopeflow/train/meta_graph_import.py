"""``tf.train.import_meta_graph``: a ``.meta`` file (TensorFlow's or scopeflow's) back into
the default graph, with its collections and a Saver that restores its checkpoints."""

from __future__ import annotations

import os

from google.protobuf import message, text_format

from scopeflow.framework import errors
from scopeflow.framework.graph import GraphKeys, get_default_graph
from scopeflow.framework.graph_import import import_graph_def
from scopeflow.io.protos import POOL, MetaGraphDef, VariableDef
from scopeflow.state.variables import Variable
from scopeflow.train.saver import Saver

__all__ = ["import_meta_graph", "read_meta_graph_file"]

# Collections whose bytes are VariableDefs (TF's ops.GraphKeys._VARIABLE_COLLECTIONS).
_VARIABLE_COLLECTIONS = frozenset(GraphKeys._VARIABLE_COLLECTIONS) | {
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES, "metric_variables",
    "global_step", "concatenated_variables"}


def read_meta_graph_file(filename) -> MetaGraphDef:
    """The ``MetaGraphDef`` in ``filename`` (binary, or text when binary fails)."""
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        data = f.read()
    meta = MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except message.DecodeError:
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta, descriptor_pool=POOL)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise errors.DataLossError(None, None, f"Cannot parse file {filename}: not a "
                                   f"MetaGraphDef ({e})") from None
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None,
                      **kwargs):
    """Adds the graph of a ``.meta`` file (or ``MetaGraphDef``) to the default graph,
    rebuilds its collections (variables as ``Variable`` objects), and returns a ``Saver``
    built from its ``SaverDef`` (``None`` when there is nothing to save), so::

        saver = tf.train.import_meta_graph("model.ckpt.meta")
        saver.restore(sess, "model.ckpt")
        sess.run("logits:0", {"x:0": images})

    ``import_scope`` prefixes every imported name; ``clear_devices`` drops device strings.
    """
    del kwargs
    meta = meta_graph_or_file if isinstance(meta_graph_or_file, MetaGraphDef) else \
        read_meta_graph_file(meta_graph_or_file)
    graph_def = meta.graph_def
    if clear_devices:
        graph_def = type(graph_def).FromString(graph_def.SerializeToString())
        for node in graph_def.node:
            node.device = ""
    import_graph_def(graph_def, name=import_scope or "")
    graph = get_default_graph()
    prefix = f"{import_scope}/" if import_scope else ""
    variables: dict = {}  # one Variable per variable op, whichever collections name it
    for key in sorted(meta.collection_def):
        _import_collection(graph, key, meta.collection_def[key], prefix, import_scope,
                           variables)
    if meta.HasField("saver_def"):
        saver_def = type(meta.saver_def).FromString(meta.saver_def.SerializeToString())
        if prefix:
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(saver_def, field, prefix + getattr(saver_def, field))
        return Saver(saver_def=saver_def)
    if graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
        return Saver()
    return None


def _import_collection(graph, key, cdef, prefix, import_scope, variables):
    kind = cdef.WhichOneof("kind")
    if kind is None:
        return
    values = getattr(cdef, kind).value
    if kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
        for data in values:
            try:
                vdef = VariableDef.FromString(data)
            except message.DecodeError:
                raise errors.DataLossError(None, None, f"collection {key!r} of the meta graph "
                                           "holds a damaged VariableDef") from None
            name = prefix + vdef.variable_name
            variable = variables.get(name)
            if variable is None:
                variable = variables[name] = Variable.from_proto(vdef, import_scope)
            graph.add_to_collection(key, variable)
    elif kind == "node_list":
        for name in values:
            graph.add_to_collection(key, graph.as_graph_element(prefix + name))
    elif kind == "any_list":  # Any messages (a SavedModel builder's assets), as TF keeps them
        for v in values:
            graph.add_to_collection(key, type(v).FromString(v.SerializeToString()))
    elif kind == "bytes_list":
        for v in values:
            graph.add_to_collection(key, v)
    else:  # int64_list, float_list
        for v in values:
            graph.add_to_collection(key, v)
