"""``GenerateBoundingBoxProposals`` (``tf.image.generate_bounding_box_proposals``): region
proposals from anchors, box deltas and objectness scores (Detectron's).

TF registers this op's kernel for GPUs only. On a CPU-only machine, which is what
scopeflow models, TF builds the op (its static shapes and type checks are below, as TF's)
and fails at run time with "No OpKernel was registered"; so does this kernel. TF registers
it as not differentiable.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["generate_bounding_box_proposals"]

_INPUTS = ("scores", "bbox_deltas", "image_info", "anchors", "nms_threshold", "pre_nms_topn",
           "min_size")
_TYPES = (dtypes.float32,) * 5 + (dtypes.int32, dtypes.float32)


def _rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")


def _shape(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn, min_size,
           *, post_nms_topn):
    _rank(scores, 4)
    _rank(bbox_deltas, 4)
    _rank(image_info, 2)
    if image_info.ndims == 2 and image_info.dims[1] not in (None, 5):
        raise ValueError(f"Dimension must be 5 but is {image_info.dims[1]}")
    _rank(anchors, 3)
    batch = scores.dims[0] if scores.ndims else None
    return [TensorShape([batch, post_nms_topn, 4]), TensorShape([batch, post_nms_topn])]


def _dtype(*in_dtypes, post_nms_topn):
    for name, got, want in zip(_INPUTS, in_dtypes, _TYPES):
        if got is not want:
            raise TypeError(f"Input '{name}' of 'GenerateBoundingBoxProposals' Op has type "
                            f"{got.name} that does not match expected type of {want.name}.")
    return [dtypes.float32, dtypes.float32]


def _kernel(*inputs, post_nms_topn):
    raise InvalidArgumentError(
        None, None, "No OpKernel was registered to support Op 'GenerateBoundingBoxProposals' "
        f"used by {{{{node GenerateBoundingBoxProposals}}}} with these attrs: "
        f"[post_nms_topn={post_nms_topn}]\nRegistered devices: [CPU]\nRegistered kernels:\n"
        "  device='GPU'\n")


generate_bounding_box_proposals_op = OpDef(
    "GenerateBoundingBoxProposals", shape=_shape, dtype=_dtype, kernel=_kernel,
    attrs={"post_nms_topn": 300}, num_outputs=2, grad=None, input_names=_INPUTS)


def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors,
                                    nms_threshold=0.7, pre_nms_topn=6000, min_size=16,
                                    post_nms_topn=300, name=None):
    """``(rois, roi_probabilities)``: ``[batch, post_nms_topn, 4]`` boxes and
    ``[batch, post_nms_topn]`` scores. Runs only where TF has a kernel: a GPU (see the
    module docstring); on a CPU it fails as TF does."""
    values = [scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn,
              min_size]
    # Python values take the op's declared types (TF converts them so: min_size=16 is float).
    converted = [v if isinstance(v, Tensor) else np.asarray(v, t.as_numpy_dtype)
                 for v, t in zip(values, _TYPES)]
    return generate_bounding_box_proposals_op.bind(*converted, name=name,
                                                   post_nms_topn=int(post_nms_topn))
