"""``MetaGraphDef`` export (``tf.train.export_meta_graph``): the graph, its collections and a
saver's ``SaverDef``, as TF writes them into a checkpoint's ``.meta`` file."""

from __future__ import annotations

import logging
import os

import numpy as np
from google.protobuf import text_format

from scopeflow._version import __version__
from scopeflow.framework._tf_op_signatures import SIGNATURES
from scopeflow.framework.graph import Operation, Tensor, get_default_graph
from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.io.protos import POOL, AttrValue, CollectionDef, MetaGraphDef

__all__ = ["export_meta_graph", "strip_graph_default_attrs"]

_log = logging.getLogger("scopeflow")


def _collection_def(values):
    """A CollectionDef for a collection's values, or None when TF would skip it."""
    if not values:
        return None
    first = values[0]
    if hasattr(first, "initializer") and hasattr(first, "_ref"):
        if not all(hasattr(v, "_ref") for v in values):
            return None
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[v.to_proto().SerializeToString() for v in values]))
    if _is_any(first):  # e.g. a SavedModel builder's packed AssetFileDefs
        if not all(_is_any(v) for v in values):
            return None
        cdef = CollectionDef()
        for v in values:
            cdef.any_list.value.add().ParseFromString(v.SerializeToString())
        return cdef
    if isinstance(first, (Operation, Tensor)):
        if not all(isinstance(v, (Operation, Tensor)) for v in values):
            return None
        return CollectionDef(node_list=CollectionDef.NodeList(value=[v.name for v in values]))
    if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        return CollectionDef(int64_list=CollectionDef.Int64List(value=[int(v) for v in values]))
    if isinstance(first, (float, np.floating)):
        return CollectionDef(float_list=CollectionDef.FloatList(value=[float(v)
                                                                       for v in values]))
    if isinstance(first, (str, bytes)):
        return CollectionDef(bytes_list=CollectionDef.BytesList(
            value=[v.encode() if isinstance(v, str) else v for v in values]))
    return None


def _is_any(value) -> bool:
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == "google.protobuf.Any"


def strip_graph_default_attrs(graph_def):
    """Removes, in place, every node attr equal to its op's default in TF 2.21's op
    registry (TF's ``strip_default_attrs``), so that a consumer with a newer op definition
    that adds an attr with a default still reads the graph. Ops TF lacks keep theirs."""
    for node in graph_def.node:
        sig = SIGNATURES.get(node.op)
        if sig is None:
            continue
        for name, _, default_hex in sig[2]:
            if default_hex is not None and name in node.attr and \
                    node.attr[name] == _default_attr(default_hex):
                del node.attr[name]


def _default_attr(hex_value):
    value = _DEFAULT_ATTRS.get(hex_value)
    if value is None:
        value = _DEFAULT_ATTRS[hex_value] = AttrValue.FromString(bytes.fromhex(hex_value))
    return value


_DEFAULT_ATTRS: dict = {}


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Builds a ``MetaGraphDef`` of ``graph`` (and writes it to ``filename`` atomically).

    Holds ``meta_info_def``, the ``graph_def`` (``graph.as_graph_def(add_shapes=True)``),
    ``saver_def`` and the collections TF serializes (variables as ``VariableDef`` bytes,
    ops and tensors by name, numbers and strings). Returns the message.
    """
    if export_scope:
        raise NotImplementedError("export_meta_graph(export_scope=...) is not supported")
    graph = graph or get_default_graph()
    meta = MetaGraphDef()
    info = meta.meta_info_def
    if meta_info_def is not None:
        info.CopyFrom(meta_info_def)
    if not info.tensorflow_version:
        info.tensorflow_version = _TF_VERSION
        info.tensorflow_git_version = f"scopeflow-{__version__}"
    if graph_def is None:
        graph_def = _graph_def_of(graph)
    meta.graph_def.CopyFrom(graph_def)
    if strip_default_attrs:
        info.stripped_default_attrs = True
        strip_graph_default_attrs(meta.graph_def)
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    for key in keys:
        cdef = _collection_def(graph.get_collection(key))
        if cdef is not None:
            meta.collection_def[key].CopyFrom(cdef)
        else:
            _log.debug("Issue encountered when serializing %s: not exported", key)
    if filename:
        if as_text:
            data = text_format.MessageToString(meta, descriptor_pool=POOL).encode("utf-8")
        else:
            data = meta.SerializeToString()
        atomic_write_bytes(os.fspath(filename), data)
    return meta


_TF_VERSION = "2.21.0"  # the TensorFlow whose graph semantics scopeflow follows


def _graph_def_of(graph):
    try:
        return graph.as_graph_def(add_shapes=True)
    except TypeError:  # an as_graph_def without add_shapes
        return graph.as_graph_def()
