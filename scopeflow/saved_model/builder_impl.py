"""``tf.saved_model.builder.SavedModelBuilder`` (``tf.saved_model.Builder``): TF1's
SavedModel writer.

A SavedModel directory, as TensorFlow's builder lays it out::

    export_dir/saved_model.pb      a SavedModel proto: one MetaGraphDef per tag set
    export_dir/variables/variables.index, variables.data-00000-of-00001
    export_dir/assets/...          copies of the asset files the graph names

The variables are written once, by a sharded V2 ``Saver`` (the first meta graph's); later
meta graphs share them. Every file is written atomically, and ``saved_model.pb`` (what
makes a directory a SavedModel for ``maybe_saved_model_directory`` and for loaders) is
written last, by ``save()``: a save that fails part-way leaves no ``saved_model.pb``.
"""

from __future__ import annotations

import filecmp
import logging
import os
import shutil

from google.protobuf import text_format

from scopeflow.framework.graph import Operation, Tensor, get_default_graph
from scopeflow.io import protos
from scopeflow.io.atomic import atomic_file, atomic_write_bytes
from scopeflow.io.protos import SaverDef
from scopeflow.saved_model import constants, utils_impl
from scopeflow.train.saver import Saver

__all__ = ["SavedModelBuilder"]

_log = logging.getLogger("scopeflow")
_DT_INVALID = 0


class SavedModelBuilder:
    """Builds a ``SavedModel`` proto of one or more meta graphs that share one set of
    variables and assets, and writes it to ``export_dir``::

        builder = tf.saved_model.Builder(export_dir)
        with tf.Session(graph=tf.Graph()) as sess:
            ...
            builder.add_meta_graph_and_variables(
                sess, [tf.saved_model.SERVING],
                signature_def_map={"serving_default": signature},
                assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS))
        builder.save()

    ``export_dir`` must not exist or be empty (AssertionError otherwise, as in TF).
    """

    def __init__(self, export_dir):
        self._saved_model = protos.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._export_dir = export_dir = os.fspath(export_dir)
        if os.path.exists(export_dir):
            if os.listdir(export_dir):
                raise AssertionError(
                    f"Export directory {export_dir} already exists, and isn't empty. Please "
                    "choose a different export directory, or delete all the contents of the "
                    "specified directory.")
        else:
            os.makedirs(export_dir)
        self._has_saved_variables = False
        self._saved_asset_files: set = set()

    # -- what add_meta_graph* put into the graph ------------------------------------------
    def _save_and_write_assets(self, assets_collection_to_add=None):
        """Adds an ``AssetFileDef`` (packed in an ``Any``) per asset path tensor to the
        graph's ``saved_model_assets`` collection and copies the files to ``assets/``."""
        asset_filename_map = _maybe_save_assets(assets_collection_to_add)
        if not asset_filename_map:
            _log.info("No assets to write.")
            return
        copy_assets_to_destination_dir(asset_filename_map, self._export_dir,
                                       self._saved_asset_files)

    @staticmethod
    def _maybe_add_main_op(main_op):
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"Expected {main_op} to be an Operation but got type "
                            f"{type(main_op)} instead.")
        graph = get_default_graph()
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if graph.get_collection(key):
                raise ValueError("Graph already contains one or more main ops under the "
                                 f"collection {key}.")
        graph.add_to_collection(constants.MAIN_OP_KEY, main_op)

    @staticmethod
    def _add_train_op(train_op):
        if train_op is None:
            return
        if not isinstance(train_op, (Tensor, Operation)):
            raise TypeError(f"`train_op` {train_op} needs to be a Tensor or Op.")
        get_default_graph().add_to_collection(constants.TRAIN_OP_KEY, train_op)

    # -- validation ----------------------------------------------------------------------
    def _validate_tensor_info(self, tensor_info):
        if tensor_info is None:
            raise AssertionError("All TensorInfo protos used in the SignatureDefs must have "
                                 "the name and dtype fields set.")
        if utils_impl.is_composite(tensor_info):  # TF checks its components; kept as is
            return
        if tensor_info.WhichOneof("encoding") is None:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                "SignatureDefs must have one of the 'encoding' fields (e.g., name or "
                "coo_sparse) set.")
        if tensor_info.dtype == _DT_INVALID:
            raise AssertionError(
                f"Invalid `tensor_info`: {tensor_info}. All TensorInfo protos used in the "
                "SignatureDefs must have the dtype field set.")

    def _validate_signature_def_map(self, signature_def_map):
        for signature_def in signature_def_map.values():
            for info in signature_def.inputs.values():
                self._validate_tensor_info(info)
            for info in signature_def.outputs.values():
                self._validate_tensor_info(info)
        for key, what in ((constants.INIT_OP_SIGNATURE_KEY, "initialization"),
                          (constants.TRAIN_OP_SIGNATURE_KEY, "the train op")):
            if key in signature_def_map:
                raise KeyError(f'SignatureDef map key "{key}" is reserved for {what}. Please '
                               "use a different key.")

    # -- adding meta graphs --------------------------------------------------------------
    @staticmethod
    def _maybe_create_saver(saver=None):
        """The Saver given, or TF's: sharded, V2, every saveable, empty allowed."""
        if saver:
            return saver
        return Saver(sharded=True, write_version=SaverDef.V2, allow_empty=True)

    def _tag_and_add_meta_graph(self, meta_graph_def, tags, signature_def_map):
        meta_graph_def.meta_info_def.tags.extend(tags)
        for key in signature_def_map or {}:
            meta_graph_def.signature_def[key].CopyFrom(signature_def_map[key])
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None):
        """Adds the default graph as a further meta graph under ``tags`` (its variables are
        the first meta graph's: call ``add_meta_graph_and_variables`` first)."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op or legacy_init_op)
        saver = self._maybe_create_saver(saver)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves ``sess``'s variables to ``variables/`` and adds its graph as the first meta
        graph, under ``tags``. ``main_op`` (or the deprecated ``legacy_init_op``) is run by
        the loader after restoring, with the asset paths fed; ``assets_collection`` is a
        list of scalar string constants naming files to copy into ``assets/``."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op or legacy_init_op)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        saver = self._maybe_create_saver(saver)
        with sess.graph.as_default():
            saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                       write_meta_graph=False, write_state=False)
            meta_graph_def = saver.export_meta_graph(
                clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def save(self, as_text=False):
        """Writes ``saved_model.pb`` (or ``saved_model.pbtxt`` with ``as_text``, for
        debugging only) atomically; returns its path as bytes, as TF does."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model,
                                               descriptor_pool=protos.POOL).encode("utf-8")
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        atomic_write_bytes(path, data)
        _log.info("SavedModel written to: %s", path)
        return path.encode("utf-8")


def _maybe_save_assets(assets_to_add=None):
    """Adds each asset path tensor to the graph's assets collection; returns
    {basename in assets/: source path}."""
    asset_filename_map: dict = {}
    if assets_to_add is None:
        _log.info("No assets to save.")
        return asset_filename_map
    for asset_tensor in assets_to_add:
        source = _asset_path_from_tensor(asset_tensor)
        if not source:
            raise ValueError(f"Asset filepath tensor {asset_tensor} in is invalid.")
        filename = get_asset_filename_to_add(source, asset_filename_map)
        _add_asset_to_collection(filename, asset_tensor)
        asset_filename_map[filename] = source
    _log.info("Assets added to graph.")
    return asset_filename_map


def get_asset_filename_to_add(asset_filepath, asset_filename_map):
    """The name an asset gets in ``assets/``: its basename, with ``_1``, ``_2``... when a
    different file of that basename is already there (the same file keeps the name)."""
    filename = os.path.basename(asset_filepath)
    other = asset_filename_map.get(filename)
    if other is None or other == asset_filepath or filecmp.cmp(asset_filepath, other,
                                                                shallow=False):
        return filename
    i, unique = 1, filename
    while unique in asset_filename_map:
        unique = f"{filename}_{i}"
        i += 1
    return unique


def _asset_path_from_tensor(path_tensor):
    if not isinstance(path_tensor, Tensor):
        raise TypeError(f"Asset path tensor {path_tensor} must be a Tensor.")
    if path_tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {path_tensor} must be of type constant.Has type "
                        f"{path_tensor.op.type} instead.")
    if path_tensor.dtype.name != "string":
        raise TypeError(f"Asset path tensor {path_tensor}` must be of dtype string.Has type "
                        f"{path_tensor.dtype} instead.")
    value = path_tensor.op.get_attr("value")
    if getattr(value, "size", 1) != 1:
        raise TypeError(f"Asset path tensor {path_tensor} must be a scalar.")
    value = value.reshape(()).item() if hasattr(value, "reshape") else value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _add_asset_to_collection(asset_filename, asset_tensor):
    asset_proto = protos.AssetFileDef(filename=asset_filename)
    asset_proto.tensor_info.name = asset_tensor.name
    packed = protos.Any()
    packed.Pack(asset_proto)
    get_default_graph().add_to_collection(constants.ASSETS_KEY, packed)


def copy_assets_to_destination_dir(asset_filename_map, destination_dir, saved_files=None):
    """Copies each asset into ``destination_dir/assets/`` (atomically, once per file)."""
    saved_files = set() if saved_files is None else saved_files
    assets_dir = os.path.join(destination_dir, constants.ASSETS_DIRECTORY)
    os.makedirs(assets_dir, exist_ok=True)
    for basename, source in asset_filename_map.items():
        destination = os.path.join(assets_dir, basename)
        if os.path.exists(source) and source != destination and \
                destination not in saved_files:
            with open(source, "rb") as src, atomic_file(destination, "wb") as dst:
                shutil.copyfileobj(src, dst)
            saved_files.add(destination)
    _log.info("Assets written to: %s", assets_dir)

