"""``tf.image``'s image-quality measures and finite differences, composites built op for
op as TF1 builds them (image_ops_impl.py): ``total_variation``, ``psnr``, ``ssim``,
``ssim_multiscale`` (a Gaussian window applied by ``depthwise_conv2d``, TF's softmax of
squared coordinates), ``image_gradients`` and ``sobel_edges``. Their gradients are those
of the ops they are built from.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow import cond_ops
from scopeflow.ops.image.image_transform_ops import convert_image_dtype
from scopeflow.ops.logging import logging_ops
from scopeflow.ops.nn.conv_ops import depthwise_conv2d
from scopeflow.ops.nn.nn_activation_ops import relu, softmax
from scopeflow.ops.nn.pool_ops import avg_pool

__all__ = ["total_variation", "psnr", "ssim", "ssim_multiscale", "image_gradients",
           "sobel_edges"]

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def total_variation(images, name=None) -> Tensor:
    """The sum of absolute differences of neighbouring pixels, per image ([batch] for 4-D
    images, a scalar for 3-D).

    >>> import scopeflow as tf
    >>> float(tf.Session().run(total_variation(tf.constant([[[0.], [1.]], [[3.], [1.]]]))))
    6.0
    """
    with name_scope(name, "total_variation"):
        ndims = images.shape.ndims
        if ndims == 3:
            pixel_dif1 = images[1:, :, :] - images[:-1, :, :]
            pixel_dif2 = images[:, 1:, :] - images[:, :-1, :]
            sum_axis = None
        elif ndims == 4:
            pixel_dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            pixel_dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            sum_axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (math_ops.reduce_sum(math_ops.abs(pixel_dif1), axis=sum_axis)
                + math_ops.reduce_sum(math_ops.abs(pixel_dif2), axis=sum_axis))


def _verify_compatible_image_shapes(img1, img2):
    """TF's static check that the two batches' last three dims agree and their batch dims
    broadcast, and the assert ops that check it at run time."""
    shape1 = img1.shape.with_rank_at_least(3)
    shape2 = img2.shape.with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for d1, d2 in zip(reversed(shape1.as_list()[:-3]), reversed(shape2.as_list()[:-3])):
            if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        logging_ops.Assert(math_ops.greater_equal(array_ops.size(shape1), 3),
                           [shape1, shape2], summarize=10),
        logging_ops.Assert(math_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:])),
                           [shape1, shape2], summarize=10)]
    return shape1, shape2, checks


def psnr(a, b, max_val, name=None) -> Tensor:
    """The peak signal-to-noise ratio of ``a`` against ``b`` per image (dB), in float32:
    ``20 log10(max_val) - 10 log10(mse)``."""
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a)
        b = convert_to_tensor(b)
        max_val = math_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        psnr_val = math_ops.subtract(
            20 * math_ops.log(max_val) / math_ops.log(10.0),
            np.float32(10 / np.log(10)) * math_ops.log(mse), name="psnr")
        _, _, checks = _verify_compatible_image_shapes(a, b)
        with control_dependencies(checks):
            return array_ops.identity(psnr_val)


def _ssim_helper(x, y, reducer, max_val, compensation=1.0, k1=0.01, k2=0.03):
    """SSIM's luminance and contrast-structure terms, the means taken by ``reducer``."""
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(math_ops.square(x) + math_ops.square(y))
    c2 *= compensation
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _fspecial_gauss(size, sigma):
    """The ``[size, size, 1, 1]`` Gaussian window, normalised by a softmax as TF does."""
    size = convert_to_tensor(size, dtypes.int32)
    sigma = convert_to_tensor(sigma)
    coords = math_ops.cast(math_ops.range(size), sigma.dtype)
    coords -= math_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, shape=[1, -1]) + array_ops.reshape(g, shape=[-1, 1])
    g = array_ops.reshape(g, shape=[1, -1])
    g = softmax(g)
    return array_ops.reshape(g, shape=[size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01,
                      k2=0.03, return_index_map=False):
    """Per-channel SSIM and contrast-structure (means over the window positions unless
    ``return_index_map``)."""
    filter_size = constant(filter_size, dtype=dtypes.int32)
    filter_sigma = constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        logging_ops.Assert(math_ops.reduce_all(
            math_ops.greater_equal(shape1[-3:-1], filter_size)),
            [shape1, filter_size], summarize=8),
        logging_ops.Assert(math_ops.reduce_all(
            math_ops.greater_equal(shape2[-3:-1], filter_size)),
            [shape2, filter_size], summarize=8)]
    with control_dependencies(checks):
        img1 = array_ops.identity(img1)
    kernel = _fspecial_gauss(filter_size, filter_sigma)
    kernel = array_ops.tile(kernel, multiples=[1, 1, shape1[-1], 1])

    def reducer(x):
        shape = array_ops.shape(x)
        x = array_ops.reshape(x, shape=array_ops.concat([[-1], shape[-3:]], 0))
        y = depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return array_ops.reshape(y, array_ops.concat([shape[:-3], array_ops.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, 1.0, k1, k2)
    if return_index_map:
        ssim_val = luminance * cs
    else:
        axes = constant([-3, -2], dtype=dtypes.int32)
        ssim_val = math_ops.reduce_mean(luminance * cs, axes)
        cs = math_ops.reduce_mean(cs, axes)
    return ssim_val, cs


def _prepare_pair(img1, img2, max_val):
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    shape1, shape2, checks = _verify_compatible_image_shapes(img1, img2)
    with control_dependencies(checks):
        img1 = array_ops.identity(img1)
    max_val = math_ops.cast(max_val, img1.dtype)
    max_val = convert_image_dtype(max_val, dtypes.float32)
    img1 = convert_image_dtype(img1, dtypes.float32)
    img2 = convert_image_dtype(img2, dtypes.float32)
    return img1, img2, max_val, shape1, shape2


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False) -> Tensor:
    """The structural similarity of two image batches (11x11 Gaussian window, sigma 1.5),
    averaged over positions and channels (or per position with ``return_index_map``)."""
    with name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val, _, _ = _prepare_pair(img1, img2, max_val)
        ssim_per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size,
                                                filter_sigma, k1, k2, return_index_map)
        return math_ops.reduce_mean(ssim_per_channel, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03) -> Tensor:
    """Multi-scale SSIM: the contrast-structure terms of each scale (2x2 average-pooled,
    symmetric-padded to even sizes) and the last scale's SSIM, weighted by
    ``power_factors`` and multiplied."""
    with name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val, shape1, shape2 = _prepare_pair(img1, img2, max_val)
        imgs = [img1, img2]
        heads = [s[:-3] for s in (shape1, shape2)]
        tails = [s[-3:] for s in (shape1, shape2)]
        divisor = [1, 2, 2, 1]
        divisor_tensor = constant(divisor[1:], dtype=dtypes.int32)

        def do_pad(images, remainder):
            padding = array_ops.expand_dims(remainder, -1)
            padding = array_ops.pad(padding, [[1, 0], [1, 0]])
            return [array_ops.pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        ssim_per_channel = None
        for k in range(len(power_factors)):
            with name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    flat_imgs = [array_ops.reshape(x, array_ops.concat([[-1], t], 0))
                                 for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = math_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = cond_ops.cond(need_padding,
                                           lambda: do_pad(flat_imgs, remainder),  # noqa: B023
                                           lambda: flat_imgs)  # noqa: B023
                    downscaled = [avg_pool(x, ksize=divisor, strides=divisor, padding="VALID")
                                  for x in padded]
                    tails = [x[1:] for x in array_ops.shape_n(downscaled)]
                    imgs = [array_ops.reshape(x, array_ops.concat([h, t], 0))
                            for x, h, t in zip(downscaled, heads, tails)]
                ssim_per_channel, cs = _ssim_per_channel(
                    *imgs, max_val=max_val, filter_size=filter_size,
                    filter_sigma=filter_sigma, k1=k1, k2=k2)
                mcs.append(relu(cs))
        mcs.pop()  # the last scale contributes its SSIM, not its cs
        mcs_and_ssim = array_ops.stack(mcs + [relu(ssim_per_channel)], axis=-1)
        ms_ssim = math_ops.reduce_prod(math_ops.pow(mcs_and_ssim, power_factors), [-1])
        return math_ops.reduce_mean(ms_ssim, [-1])


def image_gradients(image):
    """``(dy, dx)``: each pixel's forward difference down and right (zero in the last
    row / column), for a 4-D ``[batch, h, w, d]`` image."""
    if image.shape.ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    image_shape = array_ops.shape(image)
    batch_size, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    shape = array_ops.stack([batch_size, 1, width, depth])
    dy = array_ops.concat([dy, array_ops.zeros(shape, image.dtype)], 1)
    dy = array_ops.reshape(dy, image_shape)
    shape = array_ops.stack([batch_size, height, 1, depth])
    dx = array_ops.concat([dx, array_ops.zeros(shape, image.dtype)], 2)
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def sobel_edges(image) -> Tensor:
    """The Sobel responses ``[batch, h, w, d, 2]`` (dy, dx) of each channel, the image
    reflect-padded by one pixel."""
    static_image_shape = image.shape
    image_shape = array_ops.shape(image)
    kernels = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    num_kernels = len(kernels)
    kernels = np.expand_dims(np.transpose(np.asarray(kernels), (1, 2, 0)), -2)
    kernels_tf = constant(kernels, dtype=image.dtype)
    kernels_tf = array_ops.tile(kernels_tf, [1, 1, image_shape[-1], 1], name="sobel_filters")
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = depthwise_conv2d(padded, kernels_tf, [1, 1, 1, 1], "VALID")
    shape = array_ops.concat([image_shape, [num_kernels]], 0)
    output = array_ops.reshape(output, shape=shape)
    output.set_shape(static_image_shape.concatenate([num_kernels]))
    return output
