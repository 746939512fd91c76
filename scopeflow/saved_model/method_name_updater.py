"""``tf.saved_model.signature_def_utils.MethodNameUpdater``: rewrites the method names of a
saved SavedModel's signatures (e.g. for a server that wants another method name)."""

from __future__ import annotations

import logging
import os

from google.protobuf import text_format

from scopeflow.io import protos
from scopeflow.io.atomic import atomic_write_bytes
from scopeflow.saved_model import constants
from scopeflow.saved_model.loader_impl import parse_saved_model

__all__ = ["MethodNameUpdater"]

_log = logging.getLogger("scopeflow")


class MethodNameUpdater:
    """``updater.replace_method_name(key, name, tags)`` then ``updater.save()``."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    def replace_method_name(self, signature_key, method_name, tags=None):
        """Sets ``method_name`` on the signature ``signature_key`` of every meta graph whose
        tag set is ``tags`` (every meta graph when None); ValueError, as TF, otherwise."""
        if not signature_key:
            raise ValueError("`signature_key` must be defined.")
        if not method_name:
            raise ValueError("`method_name` must be defined.")
        if tags is not None and not isinstance(tags, list):
            tags = [tags]
        found_match = False
        for meta_graph_def in self._saved_model.meta_graphs:
            if tags is None or set(tags) == set(meta_graph_def.meta_info_def.tags):
                if signature_key not in meta_graph_def.signature_def:
                    raise ValueError(
                        f"MetaGraphDef associated with tags {tags} does not have a "
                        f"signature_def with key: '{signature_key}'. This means either you "
                        "specified the wrong signature key or forgot to put the "
                        "signature_def with the corresponding key in your SavedModel.")
                meta_graph_def.signature_def[signature_key].method_name = method_name
                found_match = True
        if not found_match:
            raise ValueError(
                f"MetaGraphDef associated with tags {tags} could not be found in SavedModel. "
                "This means either you specified invalid tags or your SavedModel does not "
                "have a MetaGraphDef with the specified tags.")

    def save(self, new_export_dir=None):
        """Writes the SavedModel (text if it was read as text) atomically, to
        ``new_export_dir`` or back in place."""
        as_text = os.path.exists(os.path.join(self._export_dir,
                                              constants.SAVED_MODEL_FILENAME_PBTXT))
        target = os.fspath(new_export_dir) if new_export_dir else self._export_dir
        if as_text:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model,
                                               descriptor_pool=protos.POOL).encode("utf-8")
        else:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        atomic_write_bytes(path, data)
        _log.info("SavedModel written to: %s", path)
