"""``tf.saved_model.simple_save``: a SavedModel for serving in one call."""

from __future__ import annotations

from scopeflow.framework.graph import GraphKeys, get_collection
from scopeflow.saved_model import signature_constants, tag_constants
from scopeflow.saved_model.builder_impl import SavedModelBuilder
from scopeflow.saved_model.signature_def_utils_impl import predict_signature_def

__all__ = ["simple_save"]


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves ``session``'s graph and variables to ``export_dir`` under the ``serve`` tag
    with one Predict signature, ``serving_default``, of ``inputs`` and ``outputs`` (dicts
    of tensors); the ``asset_filepaths`` collection's files become assets, devices are
    cleared, and ``legacy_init_op`` is the main op."""
    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                         predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op, clear_devices=True)
    builder.save()
