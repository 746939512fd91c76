"""Patch extraction: ``ExtractImagePatches`` (``tf.image.extract_patches``,
``tf.extract_image_patches``) and ``ExtractVolumePatches`` (``tf.extract_volume_patches``).

Each output position holds its window's pixels flattened in (row, column[, plane],
channel) order; ``SAME`` pads with zeros, ``pad_before = max((out - 1) * stride +
window - in, 0) // 2``, the window of a rate ``r`` spanning ``k + (k - 1)(r - 1)``
pixels. The kernel gathers all windows with one fancy index. The gradients are TF's
(array_grad.py): the image one extracts patches of a 1-based pixel-number image and sums
the incoming gradient into those pixels with ``UnsortedSegmentSum`` (padding, numbered 0,
drops out); the volume one builds the same map as a ``SparseTensor``, slices the padding
row off and multiplies it with the gradient.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.sparse.sparse_layout_ops import sparse_slice
from scopeflow.ops.sparse.sparse_math_ops import sparse_tensor_dense_matmul

__all__ = ["extract_image_patches", "extract_patches", "extract_volume_patches"]

_PATCH_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
                dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
                dtypes.uint64, dtypes.complex64, dtypes.complex128, dtypes.bool)
_VOLUME_TYPES = tuple(t for t in _PATCH_TYPES if t not in (dtypes.bool,))


def _out_size(in_size, window, stride, padding, check=True):
    """(output size, padding before) along one dim, as TF's windowed-output rule."""
    if padding == "VALID":
        out = (in_size - window + stride) // stride
        if check and out < 0:
            raise ValueError(f"Computed output size would be negative: {out} [input_size: "
                             f"{in_size}, effective_filter_size: {window}, stride: {stride}]")
        return max(out, 0), 0
    out = (in_size + stride - 1) // stride
    return out, max((out - 1) * stride + window - in_size, 0) // 2


def _check_list(values, n, what, op_type):
    values = [int(v) for v in values]
    if len(values) < n:
        raise ValueError(f"Attr '{what}' of '{op_type}' Op passed list of length "
                         f"{len(values)} less than minimum {n}.")
    if len(values) != n:
        raise ValueError(f"{op_type} requires the {what} attribute to contain {n} values, "
                         f"but got: {len(values)}")
    return values


def _check_padding(padding, op_type):
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string '{padding}' not "
                         'in: "SAME", "VALID".')


def _patch_gather(x, spatial, ksizes, strides, rates, padding):
    """The patches of ``x`` (batch, *spatial dims, channels): ``(batch, *out dims,
    prod(ksizes) * channels)``."""
    n_sp = len(spatial)
    windows = [k + (k - 1) * (r - 1) for k, r in zip(ksizes, rates)]
    sizes = [_out_size(d, w, s, padding, check=False)
             for d, w, s in zip(spatial, windows, strides)]
    index = []
    pads = [(0, 0)]
    for (out, before), d, k, s, r in zip(sizes, spatial, ksizes, strides, rates):
        idx = np.arange(out)[:, None] * s + np.arange(k)[None, :] * r  # padded coordinates
        after = max(int(idx.max()) + 1 - (d + before), 0) if idx.size else 0
        pads.append((before, after))
        index.append(idx)
    pads.append((0, 0))
    padded = np.pad(x, pads)
    grids = []
    for i, idx in enumerate(index):
        # axes: out dims (n_sp), then kernel dims (n_sp)
        shape = [1] * (2 * n_sp)
        shape[i] = idx.shape[0]
        shape[n_sp + i] = idx.shape[1]
        grids.append(idx.reshape(shape))
    patches = padded[(slice(None), *grids)]  # (batch, *out, *k, channels)
    outs = [o for o, _ in sizes]
    return patches.reshape(x.shape[0], *outs, -1)


# ── ExtractImagePatches ──────────────────────────────────────────────────────────────
def _image_patches_shape(images, *, ksizes, strides, rates, padding, T=None):
    if images.ndims is not None and images.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.ndims}")
    n, h, w, c = images.as_list() if images.ndims is not None else [None] * 4
    _, kr, kc, _ = ksizes
    _, sr, sc, _ = strides
    _, rr, rc, _ = rates
    depth = None if c is None else kr * kc * c
    if h is None or w is None:
        return TensorShape([n, None, None, depth])
    oh, _ = _out_size(h, kr + (kr - 1) * (rr - 1), sr, padding)
    ow, _ = _out_size(w, kc + (kc - 1) * (rc - 1), sc, padding)
    return TensorShape([n, oh, ow, depth])


def _image_patches_dtype(images, **attrs):
    return check_dtype(images, _PATCH_TYPES, "images")


extract_image_patches_op = OpDef(
    "ExtractImagePatches", shape=_image_patches_shape, dtype=_image_patches_dtype,
    attrs={"ksizes": None, "strides": None, "rates": None, "padding": None,
           "T": dtypes.float32}, input_names=("images",))


@extract_image_patches_op.def_kernel
def _extract_image_patches_kernel(images, *, ksizes, strides, rates, padding, T):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input must be 4-dimensional{list(images.shape)}")
    _, h, w, _ = images.shape
    for d, k, r, s in zip((h, w), ksizes[1:3], rates[1:3], strides[1:3]):
        _out_size_checked(d, k + (k - 1) * (r - 1), s, padding)
    return _patch_gather(images, (h, w), ksizes[1:3], strides[1:3], rates[1:3], padding)


def _out_size_checked(d, window, stride, padding):
    try:
        return _out_size(d, window, stride, padding)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None


@extract_image_patches_op.def_grad
def _extract_image_patches_grad(op, grad):
    """TF's ``_ExtractImagePatchesGrad``: patches of the pixel numbers 1..h*w route each
    gradient entry to its pixel (``UnsortedSegmentSum``; padding's 0 becomes -1, dropped)."""
    input_bhwc = array_ops.shape(op.inputs[0], out_type=dtypes.int64)
    batch_size, rows_in, cols_in, channels = array_ops.unstack(input_bhwc)
    output_bhwc = array_ops.shape(op.outputs[0], out_type=dtypes.int64)
    rows_out, cols_out = array_ops.unstack(output_bhwc[1:3])
    _, ksize_r, ksize_c, _ = op.get_attr("ksizes")
    input_indices_num = rows_in * cols_in
    input_idx = array_ops.reshape(
        math_ops.range(1, input_indices_num + 1, dtype=dtypes.float32),
        (1, rows_in, cols_in, 1))
    input_idx_patched = extract_image_patches_op.bind(
        input_idx, ksizes=op.get_attr("ksizes"), strides=op.get_attr("strides"),
        rates=op.get_attr("rates"), padding=op.get_attr("padding"), T=dtypes.float32)
    input_idx_patched = math_ops.cast(input_idx_patched, dtypes.int64)
    grad_expanded = array_ops.transpose(
        array_ops.reshape(grad, (batch_size, rows_out, cols_out, ksize_r, ksize_c, channels)),
        (1, 2, 3, 4, 0, 5))
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    segment_ids = array_ops.reshape(input_idx_patched, [-1]) - 1
    grad_out = math_ops.unsorted_segment_sum(grad_flat, segment_ids,
                                             num_segments=input_indices_num)
    grad_out = array_ops.reshape(grad_out, (rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (2, 0, 1, 3))]


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None) -> Tensor:
    """The ``ksizes`` windows of 4-D ``images`` (every ``strides`` pixels, dilated by
    ``rates``), flattened into the depth dimension (``ExtractImagePatches``)."""
    if sizes is not None:
        if ksizes is not None:
            raise ValueError("Cannot specify both 'sizes' and 'ksizes'.")
        ksizes = sizes
    op_type = "ExtractImagePatches"
    for value, what in ((ksizes, "ksizes"), (strides, "strides"), (rates, "rates")):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{what}' argument to 'extract_image_patches' "
                            f"Op, not {value}.")
    ksizes = _check_list(ksizes, 4, "ksizes", op_type)
    strides = _check_list(strides, 4, "strides", op_type)
    rates = _check_list(rates, 4, "rates", op_type)
    _check_padding(padding, op_type)
    images = convert_to_tensor(images, name="images")
    return extract_image_patches_op.bind(images, name=name, ksizes=ksizes, strides=strides,
                                         rates=rates, padding=padding,
                                         T=images.dtype.base_dtype)


def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """TF2's ``tf.image.extract_patches``: ``extract_image_patches`` with ``sizes``."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


# ── ExtractVolumePatches ─────────────────────────────────────────────────────────────
def _volume_patches_shape(input, *, ksizes, strides, padding, T=None):  # noqa: A002
    if input.ndims is not None and input.ndims != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {input.ndims}")
    n, p, h, w, c = input.as_list() if input.ndims is not None else [None] * 5
    depth = None if c is None else ksizes[1] * ksizes[2] * ksizes[3] * c
    if None in (p, h, w):
        return TensorShape([n, None, None, None, depth])
    outs = [_out_size(d, k, s, padding, check=False)[0]
            for d, k, s in zip((p, h, w), ksizes[1:4], strides[1:4])]
    return TensorShape([n, *outs, depth])


def _volume_patches_dtype(input, **attrs):  # noqa: A002
    return check_dtype(input, _VOLUME_TYPES, "input")


extract_volume_patches_op = OpDef(
    "ExtractVolumePatches", shape=_volume_patches_shape, dtype=_volume_patches_dtype,
    attrs={"ksizes": None, "strides": None, "padding": None, "T": dtypes.float32},
    input_names=("input",))


@extract_volume_patches_op.def_kernel
def _extract_volume_patches_kernel(input, *, ksizes, strides, padding, T):  # noqa: A002
    if input.ndim != 5:
        raise errors.InvalidArgumentError(
            None, None, f"input must be 5-dimensional{list(input.shape)}")
    return _patch_gather(input, input.shape[1:4], ksizes[1:4], strides[1:4], (1, 1, 1),
                         padding)


@extract_volume_patches_op.def_grad
def _extract_volume_patches_grad(op, grad):
    """TF's ``_ExtractVolumePatchesGrad``: a sparse (input pixel, patch entry) map built
    from patches of the pixel numbers (static spatial shapes needed, as in TF)."""
    _, planes_in, rows_in, cols_in, _ = op.inputs[0].shape.as_list()
    input_bphwc = array_ops.shape(op.inputs[0])
    batch_size = input_bphwc[0]
    channels = input_bphwc[4]
    input_indices_num = 1 + planes_in * rows_in * cols_in
    input_idx = array_ops.reshape(
        math_ops.range(1, input_indices_num, dtype=dtypes.int64),
        (1, planes_in, rows_in, cols_in, 1))
    input_idx_patched = extract_volume_patches_op.bind(
        input_idx, ksizes=op.get_attr("ksizes"), strides=op.get_attr("strides"),
        padding=op.get_attr("padding"), T=dtypes.int64)
    _, planes_out, rows_out, cols_out, _ = op.outputs[0].shape.as_list()
    _, ksize_p, ksize_r, ksize_c, _ = op.get_attr("ksizes")
    prc_indices_num = planes_out * rows_out * cols_out
    output_indices_num = prc_indices_num * ksize_p * ksize_r * ksize_c
    output_idx = array_ops.reshape(
        math_ops.range(output_indices_num, dtype=dtypes.int64),
        (1, planes_out, rows_out, cols_out, ksize_p * ksize_r * ksize_c))
    idx_matrix = array_ops.concat([array_ops.expand_dims(input_idx_patched, axis=-1),
                                   array_ops.expand_dims(output_idx, axis=-1)], axis=-1)
    idx_map = array_ops.reshape(idx_matrix, (-1, 2))
    sp_shape = (input_indices_num, output_indices_num)
    sp_mat_full = SparseTensor(idx_map, array_ops.ones([output_indices_num],
                                                       dtype=grad.dtype), sp_shape)
    sp_mat = sparse_slice(sp_mat_full, (1, 0),
                                     (input_indices_num - 1, output_indices_num))
    grad_expanded = array_ops.transpose(
        array_ops.reshape(grad, (batch_size, planes_out, rows_out, cols_out, ksize_p,
                                 ksize_r, ksize_c, channels)),
        (1, 2, 3, 4, 5, 6, 0, 7))
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    jac = sparse_tensor_dense_matmul(sp_mat, grad_flat)
    grad_out = array_ops.reshape(jac, (planes_in, rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (3, 0, 1, 2, 4))]


def extract_volume_patches(input, ksizes, strides, padding, name=None) -> Tensor:  # noqa: A002
    """The ``ksizes`` windows of 5-D ``input`` ([batch, planes, rows, cols, depth]) every
    ``strides``, flattened into the depth dimension (``ExtractVolumePatches``)."""
    op_type = "ExtractVolumePatches"
    ksizes = _check_list(ksizes, 5, "ksizes", op_type)
    strides = _check_list(strides, 5, "strides", op_type)
    _check_padding(padding, op_type)
    input = convert_to_tensor(input, name="input")  # noqa: A001
    return extract_volume_patches_op.bind(input, name=name, ksizes=ksizes, strides=strides,
                                          padding=padding, T=input.dtype.base_dtype)
