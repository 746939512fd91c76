"""``tf.saved_model.Asset``: a file a SavedModel is to carry, as a string tensor.

TF2's object-based ``save`` copies every ``Asset`` reachable from the saved object into
``assets/``; scopeflow has no object-based ``save``, but an ``Asset`` is usable in a graph
as its path tensor (``tf.convert_to_tensor(asset)``, ``tf.read_file(asset)``), and its
``asset_path`` can go into the ``asset_filepaths`` collection that TF1's
``SavedModelBuilder`` copies.
"""

from __future__ import annotations

import os

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    convert_to_tensor,
    device,
    init_scope,
    register_tensor_conversion_function,
)

__all__ = ["Asset"]


class Asset:
    """Records the path of a file asset: ``asset_path`` is a scalar string constant named
    ``asset_path`` (made outside any control flow, on the CPU, as TF makes it)."""

    def __init__(self, path):
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        with init_scope(), device("CPU"):
            self._path = convert_to_tensor(path, dtype=dtypes.string, name="asset_path")

    @property
    def asset_path(self):
        """The path, a 0-D ``tf.string`` tensor."""
        return self._path


def _asset_to_tensor(asset, dtype=None, name=None, as_ref=False):
    del name, as_ref
    return convert_to_tensor(asset.asset_path, dtype=dtype)


register_tensor_conversion_function(Asset, _asset_to_tensor)
