"""``tf.image``: TF1's image resizing (``resize_images`` and friends)."""

from scopeflow._api import missing_attribute
from scopeflow.ops.image_ops import (
    ResizeMethod,
    resize,
    resize_bilinear,
    resize_images,
    resize_nearest_neighbor,
)

__all__ = ["ResizeMethod", "resize", "resize_bilinear", "resize_images",
           "resize_nearest_neighbor"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (scopeflow/_api.py)."""
    raise missing_attribute(__name__, name)
