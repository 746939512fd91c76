"""``tf.saved_model.loader``: TF1's SavedModel reader (``tf.saved_model.load`` in TF1).

``load`` parses ``saved_model.pb`` (or ``.pbtxt``), picks the meta graph whose tag set
equals ``tags``, imports it into the session's graph (``import_meta_graph``), restores
the variables from ``variables/variables``, then runs the init op (the
``__saved_model_init_op`` signature, else the ``saved_model_main_op`` or
``legacy_init_op`` collection) with each asset tensor fed its file's path under
``assets/``. Errors are TF's: OSError for a missing or unparsable file, RuntimeError for
tags no meta graph has.
"""

from __future__ import annotations

import logging
import os

from google.protobuf import message, text_format

from scopeflow.framework.graph import GraphKeys
from scopeflow.io import protos
from scopeflow.saved_model import constants
from scopeflow.saved_model import signature_def_utils_impl as sig_utils
from scopeflow.train.meta_graph_import import import_meta_graph
from scopeflow.train.saver import Saver

__all__ = ["load", "maybe_saved_model_directory", "contains_saved_model",
           "parse_saved_model", "get_asset_tensors", "get_init_op", "get_train_op",
           "SavedModelLoader"]

_log = logging.getLogger("scopeflow")


def parse_saved_model(export_dir):
    """The ``SavedModel`` proto in ``export_dir`` (``saved_model.pb``, else ``.pbtxt``).

    A damaged file raises OSError "Cannot parse file b'...': ...", TF's loader's message
    (the path as the bytes TF joins it as), rather than protobuf's DecodeError."""
    export_dir = os.fspath(export_dir)
    path_pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    path_pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = protos.SavedModel()
    if os.path.exists(path_pb):
        with open(path_pb, "rb") as f:
            data = f.read()
        try:
            saved_model.ParseFromString(data)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {path_pb.encode()!r}: {e}.") from None
    elif os.path.exists(path_pbtxt):
        with open(path_pbtxt, "rb") as f:
            data = f.read()
        try:
            # TF's text may hold fields scopeflow's protos leave out (stripped_op_list...).
            text_format.Parse(data.decode("utf-8"), saved_model, allow_unknown_field=True,
                              descriptor_pool=protos.POOL)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise OSError(f"Cannot parse file {path_pbtxt.encode()!r}: {e}.") from None
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
                      f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
                      f"{constants.SAVED_MODEL_FILENAME_PB}}}")
    return saved_model


def get_asset_tensors(export_dir, meta_graph_def_to_load, import_scope=None):
    """{asset tensor name: path of its file in ``export_dir/assets``} for a meta graph
    (its ``asset_file_def`` field, else the builder's ``saved_model_assets`` collection)."""
    asset_protos = list(meta_graph_def_to_load.asset_file_def)
    collection_def = meta_graph_def_to_load.collection_def
    if not asset_protos and constants.ASSETS_KEY in collection_def:
        for packed in collection_def[constants.ASSETS_KEY].any_list.value:
            asset_proto = protos.AssetFileDef()
            packed.Unpack(asset_proto)
            asset_protos.append(asset_proto)
    assets_dir = os.path.join(os.fspath(export_dir), constants.ASSETS_DIRECTORY)
    tensors = {}
    for asset_proto in asset_protos:
        name = asset_proto.tensor_info.name
        if import_scope:
            name = f"{import_scope}/{name}"
        tensors[name] = os.path.join(assets_dir, asset_proto.filename).encode("utf-8")
    return tensors


def _op_from_collection(graph, meta_graph_def, key):
    if key not in meta_graph_def.collection_def:
        return None
    names = meta_graph_def.collection_def[key].node_list.value
    if len(names) != 1:
        raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(names)}: "
                           f"{list(names)}.")
    return graph.get_collection(key)[0]


def _op_from_signature_def(meta_graph_def, key, import_scope):
    if key in meta_graph_def.signature_def:
        return sig_utils.load_op_from_signature_def(meta_graph_def.signature_def[key], key,
                                                    import_scope)
    return None


def get_init_op(meta_graph_def, import_scope=None, graph=None):
    """The op the loader runs after restoring (None when the meta graph names none)."""
    return (_op_from_signature_def(meta_graph_def, constants.INIT_OP_SIGNATURE_KEY,
                                   import_scope)
            or _op_from_collection(graph, meta_graph_def, constants.MAIN_OP_KEY)
            or _op_from_collection(graph, meta_graph_def, constants.LEGACY_INIT_OP_KEY))


def get_train_op(meta_graph_def, import_scope=None, graph=None):
    """The train op a meta graph stores (not run by the loader), or None."""
    op = _op_from_signature_def(meta_graph_def, constants.TRAIN_OP_SIGNATURE_KEY, import_scope)
    return op if op is not None else _op_from_collection(graph, meta_graph_def,
                                                         constants.TRAIN_OP_KEY)


def maybe_saved_model_directory(export_dir):
    """Whether ``export_dir`` holds a SavedModel file (``saved_model.pb``, ``.pbtxt`` or a
    chunked ``.cpb``); True promises nothing about loading it."""
    export_dir = os.fspath(export_dir)
    return any(os.path.exists(os.path.join(export_dir, name))
               for name in (constants.SAVED_MODEL_FILENAME_PBTXT,
                            constants.SAVED_MODEL_FILENAME_PB,
                            constants.SAVED_MODEL_FILENAME_CPB))


contains_saved_model = maybe_saved_model_directory


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the meta graph tagged ``tags`` from ``export_dir`` into ``sess``'s graph,
    restores its variables and runs its init op; returns the ``MetaGraphDef`` (its
    ``signature_def`` names the tensors to run, under ``import_scope`` when given)::

        with tf.Session(graph=tf.Graph()) as sess:
            meta = tf.saved_model.loader.load(sess, [tf.saved_model.SERVING], export_dir)
            sig = meta.signature_def["serving_default"]
            sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: x})
    """
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)


class SavedModelLoader:
    """Loads graphs and restores variable values from a SavedModel (TF's class)."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        self._variables_path = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY,
                                            constants.VARIABLES_FILENAME)
        self._saved_model = parse_saved_model(self._export_dir)

    @property
    def export_dir(self):
        return self._export_dir

    @property
    def variables_path(self):
        return self._variables_path

    @property
    def saved_model(self):
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags):
        """The meta graph whose tag set equals ``tags`` (RuntimeError, TF's, if none)."""
        available_tags = []
        for meta_graph_def in self._saved_model.meta_graphs:
            available_tags.append(set(meta_graph_def.meta_info_def.tags))
            if set(meta_graph_def.meta_info_def.tags) == set(tags):
                return meta_graph_def
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not be found "
            f"in SavedModel, with available tags '{available_tags}'. To inspect available "
            "tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`.")

    def load_graph(self, graph, tags, import_scope=None, **saver_kwargs):
        """Imports the meta graph into ``graph``; returns (its Saver or None, None)."""
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        with graph.as_default():
            return import_meta_graph(meta_graph_def, import_scope=import_scope,
                                     **saver_kwargs), None

    def restore_variables(self, sess, saver, import_scope=None):
        """Restores ``variables/variables`` with ``saver`` (nothing when there are none)."""
        with sess.graph.as_default():
            scope = f"{import_scope}/" if import_scope else None
            if saver is None and not sess.graph.get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                               scope):
                _log.info("The specified SavedModel has no variables; no checkpoints were "
                          "restored.")
            elif isinstance(saver, Saver):
                saver.restore(sess, self._variables_path)
            else:
                raise ValueError(
                    "No tf.train.Saver object was passed to the function "
                    "`SavedModelLoader.restore_variables`. Since there are variables in the "
                    "graph, a saver is required.")

    def run_init_ops(self, sess, tags, import_scope=None):
        """Runs the meta graph's init op with the asset paths fed."""
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            assets = get_asset_tensors(self._export_dir, meta_graph_def, import_scope)
            init_op = get_init_op(meta_graph_def, import_scope, sess.graph)
            if init_op is not None:
                sess.run(fetches=[init_op], feed_dict=assets)

    def load(self, sess, tags, import_scope=None, **saver_kwargs):
        """Imports, restores and initializes; returns the ``MetaGraphDef`` loaded (its names
        without ``import_scope``)."""
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)
