"""``tf.image``: TF1's image resizing (``resize_images`` and friends), codecs
(``decode_png``, ``encode_jpeg``...) and basic transforms (flips, crops, brightness...)."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.image.box_ops import crop_and_resize, draw_bounding_boxes, extract_glimpse
from scopeflow.ops.image.box_proposal_ops import generate_bounding_box_proposals
from scopeflow.ops.image.color_ops import (
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    hsv_to_rgb,
    random_hue,
    random_saturation,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    yiq_to_rgb,
    yuv_to_rgb,
)
from scopeflow.ops.image.distorted_box_ops import sample_distorted_bounding_box
from scopeflow.ops.image.image_codec_ops import (
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
)
from scopeflow.ops.image.image_ops import (
    ResizeMethod,
    resize,
    resize_area,
    resize_bicubic,
    resize_bilinear,
    resize_image_with_pad,
    resize_images,
    resize_nearest_neighbor,
)
from scopeflow.ops.image.image_transform_ops import (
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize_image_with_crop_or_pad,
    rgb_to_grayscale,
    rot90,
    transpose_image,
)
from scopeflow.ops.image.jpeg_ops import decode_and_crop_jpeg, extract_jpeg_shape, is_jpeg
from scopeflow.ops.image.jpeg_quality_ops import adjust_jpeg_quality, random_jpeg_quality
from scopeflow.ops.image.nms_ops import (
    combined_non_max_suppression,
    non_max_suppression,
    non_max_suppression_overlaps,
    non_max_suppression_with_scores,
)
from scopeflow.ops.image.nms_padded_ops import non_max_suppression_padded
from scopeflow.ops.image.patch_ops import extract_image_patches, extract_patches
from scopeflow.ops.image.quality_ops import (
    image_gradients,
    psnr,
    sobel_edges,
    ssim,
    ssim_multiscale,
    total_variation,
)
from scopeflow.ops.image.webp_ops import decode_webp

__all__ = ["ResizeMethod", "resize", "resize_area", "resize_bicubic", "resize_bilinear",
           "resize_images", "resize_nearest_neighbor"]

transpose = transpose_image
resize_with_crop_or_pad = resize_image_with_crop_or_pad
__all__ += ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
            "encode_jpeg", "encode_png", "adjust_brightness", "adjust_contrast",
            "central_crop", "convert_image_dtype", "crop_to_bounding_box", "flip_left_right",
            "flip_up_down", "grayscale_to_rgb", "pad_to_bounding_box",
            "per_image_standardization", "random_brightness", "random_contrast",
            "random_crop", "random_flip_left_right", "random_flip_up_down",
            "resize_image_with_crop_or_pad", "resize_with_crop_or_pad", "rgb_to_grayscale",
            "rot90", "transpose", "transpose_image"]

__all__ += ["adjust_gamma", "adjust_hue", "adjust_saturation", "hsv_to_rgb", "random_hue",
            "random_saturation", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv", "yiq_to_rgb",
            "yuv_to_rgb", "image_gradients", "psnr", "sobel_edges", "ssim", "ssim_multiscale",
            "total_variation", "combined_non_max_suppression", "non_max_suppression",
            "non_max_suppression_overlaps", "non_max_suppression_with_scores",
            "crop_and_resize", "draw_bounding_boxes", "extract_glimpse",
            "extract_image_patches", "extract_patches", "decode_and_crop_jpeg",
            "extract_jpeg_shape", "is_jpeg", "resize_image_with_pad"]
__all__ += ["sample_distorted_bounding_box", "generate_bounding_box_proposals",
            "adjust_jpeg_quality", "random_jpeg_quality", "decode_webp",
            "non_max_suppression_padded"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
