"""Op-table rows for scopeflow/ops/image/image_ops.py, against per-pixel loop references (NumPy).

The references walk every output pixel and follow TF's CPU kernels' formulas (float32
coordinates), independently of the kernels' gathered index vectors. TF's own values are
checked in tests/unit/ops/image/test_image_ops.py.
"""

from __future__ import annotations

import numpy as np

from scopeflow.ops.image import image_ops

from .op_table import OpCase, rand

f32, f64 = np.float32, np.float64


def _scale(n_in, n_out, align):
    return f32(n_in - 1) / f32(n_out - 1) if align and n_out > 1 else f32(n_in) / f32(n_out)


def _linear(i, n_in, n_out, align, half):
    s = _scale(n_in, n_out, align)
    src = f32((f32(i) + f32(0.5)) * s - f32(0.5)) if half else f32(f32(i) * s)
    lo = np.floor(src)
    return max(int(lo), 0), min(int(np.ceil(src)), n_in - 1), float(src - lo)


def _nearest(i, n_in, n_out, align, half):
    s = _scale(n_in, n_out, align)
    src = f32((f32(i) + f32(0.5)) * s) if half else f32(f32(i) * s)
    j = int(np.floor(src + f32(0.5))) if align else int(np.floor(src))
    j = min(j, n_in - 1)
    return max(j, 0) if half else j


def ref_bilinear(x, size, align=False, half=False):
    n, h, w, c = x.shape
    oh, ow = size
    y = np.zeros((n, oh, ow, c), f64)
    for i in range(oh):
        y0, y1, yl = _linear(i, h, oh, align, half)
        for j in range(ow):
            x0, x1, xl = _linear(j, w, ow, align, half)
            top = x[:, y0, x0] * (1 - xl) + x[:, y0, x1] * xl
            bottom = x[:, y1, x0] * (1 - xl) + x[:, y1, x1] * xl
            y[:, i, j] = top * (1 - yl) + bottom * yl
    return y.astype(f32)


def ref_bilinear_grad(x, dy, align=False, half=False):
    _, h, w, _ = x.shape
    _, oh, ow, _ = dy.shape
    dx = np.zeros(x.shape, f64)
    for i in range(oh):
        y0, y1, yl = _linear(i, h, oh, align, half)
        for j in range(ow):
            x0, x1, xl = _linear(j, w, ow, align, half)
            g = dy[:, i, j].astype(f64)
            dx[:, y0, x0] += g * (1 - yl) * (1 - xl)
            dx[:, y0, x1] += g * (1 - yl) * xl
            dx[:, y1, x0] += g * yl * (1 - xl)
            dx[:, y1, x1] += g * yl * xl
    return dx.astype(x.dtype)


def ref_nearest(x, size, align=False, half=False):
    n, h, w, c = x.shape
    oh, ow = size
    y = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y[:, i, j] = x[:, _nearest(i, h, oh, align, half), _nearest(j, w, ow, align, half)]
    return y


def ref_nearest_grad(dy, size, align=False, half=False):
    n, oh, ow, c = dy.shape
    h, w = size
    dx = np.zeros((n, h, w, c), dy.dtype)
    for i in range(oh):
        for j in range(ow):
            dx[:, _nearest(i, h, oh, align, half), _nearest(j, w, ow, align, half)] += dy[:, i, j]
    return dx


_ATTRS = {"plain": (False, False), "align": (True, False), "half": (False, True)}


def _bilinear_row(shape, size, attrs):
    align, half = _ATTRS[attrs]
    # ResizeBilinear's output is float32 whatever the input: the table's float64 numeric
    # check would difference float32 sums, so its gradient is checked against TF's values
    # (tests/unit/ops/image/test_image_ops.py) and through ResizeBilinearGrad's rows here.
    return OpCase("ResizeBilinear",
                  lambda tf, x: tf.image.resize_bilinear(x, size, align_corners=align,
                                                         half_pixel_centers=half),
                  lambda x: ref_bilinear(x, size, align, half), [rand(*shape)], rtol=1e-5,
                  check_grad=False, id=f"ResizeBilinear-{attrs}-{shape[1]}x{shape[2]}-to-"
                                       f"{size[0]}x{size[1]}")


def _bilinear_grad_row(shape, size, attrs):
    align, half = _ATTRS[attrs]

    def build(tf, x, dy):
        return image_ops.resize_bilinear_grad_op.bind(dy, x, align_corners=align,
                                                      half_pixel_centers=half)
    return OpCase("ResizeBilinearGrad", build,
                  lambda x, dy: ref_bilinear_grad(x, dy, align, half),
                  [rand(*shape), rand(shape[0], *size, shape[3], seed=3)], rtol=1e-5,
                  id=f"ResizeBilinearGrad-{attrs}-{shape[1]}x{shape[2]}-to-{size[0]}x{size[1]}")


def _nearest_row(shape, size, attrs, dtype=f32):
    align, half = _ATTRS[attrs]
    x = rand(*shape) if dtype == f32 else \
        np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    return OpCase("ResizeNearestNeighbor",
                  lambda tf, x: tf.image.resize_nearest_neighbor(x, size, align_corners=align,
                                                                 half_pixel_centers=half),
                  lambda x: ref_nearest(x, size, align, half), [x],
                  id=f"ResizeNearestNeighbor-{attrs}-{np.dtype(dtype).name}-{shape[1]}x"
                     f"{shape[2]}-to-{size[0]}x{size[1]}")


def _nearest_grad_row(size, grad_shape, attrs):
    align, half = _ATTRS[attrs]

    def build(tf, dy):
        return image_ops.resize_nearest_neighbor_grad_op.bind(
            dy, size, align_corners=align, half_pixel_centers=half)
    return OpCase("ResizeNearestNeighborGrad", build,
                  lambda dy: ref_nearest_grad(dy, size, align, half),
                  [rand(*grad_shape, seed=3)], rtol=1e-5,
                  id=f"ResizeNearestNeighborGrad-{attrs}-{grad_shape[1]}x{grad_shape[2]}-to-"
                     f"{size[0]}x{size[1]}")


def _cubic_taps(i, n_in, n_out, align, half):
    """Output coordinate ``i``'s four (source index, weight) taps: the cubic kernel at the
    offset TF's 1024-entry table rounds to, from its formula."""
    s = _scale(n_in, n_out, align)
    src = f32(f32((f32(i) + f32(0.5)) * s - f32(0.5)) if half else f32(f32(i) * s))
    loc = int(np.floor(src))
    t = round(float(src - np.floor(src)) * 1024) / 1024
    a = -0.5 if half else -0.75

    def kernel(d):
        d = abs(d)
        if d <= 1:
            return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
    taps = [(loc + k, kernel(t - k)) for k in (-1, 0, 1, 2)]
    if half:  # Keys: taps outside the image drop out, the rest renormalised
        taps = [(j, w if 0 <= j < n_in else 0.0) for j, w in taps]
        total = sum(w for _, w in taps)
        taps = [(j, w / total) for j, w in taps]
    return [(min(max(j, 0), n_in - 1), w) for j, w in taps]


def ref_bicubic(x, size, align=False, half=False):
    n, h, w, c = x.shape
    oh, ow = size
    y = np.zeros((n, oh, ow, c), f64)
    for i in range(oh):
        for yi, wy in _cubic_taps(i, h, oh, align, half):
            for j in range(ow):
                for xj, wx in _cubic_taps(j, w, ow, align, half):
                    y[:, i, j] += wy * wx * x[:, yi, xj]
    return y.astype(f32)


def ref_bicubic_grad(x, dy, align=False, half=False):
    _, h, w, _ = x.shape
    _, oh, ow, _ = dy.shape
    dx = np.zeros(x.shape, f64)
    for i in range(oh):
        for yi, wy in _cubic_taps(i, h, oh, align, half):
            for j in range(ow):
                for xj, wx in _cubic_taps(j, w, ow, align, half):
                    dx[:, yi, xj] += wy * wx * dy[:, i, j]
    return dx.astype(x.dtype)


def _area_overlaps(i, n_in, n_out, align):
    s = _scale(n_in, n_out, align)
    lo, hi = f32(f32(i) * s), f32(f32(i + 1) * s)
    return [(min(max(p, 0), n_in - 1), min(p + 1.0, hi) - max(float(p), lo))
            for p in range(int(np.floor(lo)), int(np.ceil(hi)))], float(s)


def ref_area(x, size, align=False):
    n, h, w, c = x.shape
    oh, ow = size
    y = np.zeros((n, oh, ow, c), f64)
    for i in range(oh):
        rows, sy = _area_overlaps(i, h, oh, align)
        for j in range(ow):
            cols, sx = _area_overlaps(j, w, ow, align)
            for p, wy in rows:
                for q, wx in cols:
                    y[:, i, j] += wy * wx * x[:, p, q]
            y[:, i, j] /= sy * sx
    return y.astype(f32)


def _bicubic_row(shape, size, attrs):
    align, half = _ATTRS[attrs]
    # float32 output, as ResizeBilinear: the gradient is checked through ResizeBicubicGrad
    return OpCase("ResizeBicubic",
                  lambda tf, x: tf.image.resize_bicubic(x, size, align_corners=align,
                                                        half_pixel_centers=half),
                  lambda x: ref_bicubic(x, size, align, half), [rand(*shape)], rtol=1e-5,
                  atol=1e-5, check_grad=False,
                  id=f"ResizeBicubic-{attrs}-{shape[1]}x{shape[2]}-to-{size[0]}x{size[1]}")


def _bicubic_grad_row(shape, size, attrs):
    align, half = _ATTRS[attrs]

    def build(tf, x, dy):
        return image_ops.resize_bicubic_grad_op.bind(dy, x, align_corners=align,
                                                     half_pixel_centers=half)
    return OpCase("ResizeBicubicGrad", build,
                  lambda x, dy: ref_bicubic_grad(x, dy, align, half),
                  [rand(*shape), rand(shape[0], *size, shape[3], seed=3)], rtol=1e-5,
                  atol=1e-5,
                  id=f"ResizeBicubicGrad-{attrs}-{shape[1]}x{shape[2]}-to-{size[0]}x{size[1]}")


def _area_row(shape, size, align):
    return OpCase("ResizeArea",
                  lambda tf, x: tf.image.resize_area(x, size, align_corners=align),
                  lambda x: ref_area(x, size, align), [rand(*shape)], rtol=1e-5, atol=1e-5,
                  id=f"ResizeArea-align{int(align)}-{shape[1]}x{shape[2]}-to-{size[0]}x"
                     f"{size[1]}")


ROWS = [
    *[_bicubic_row((2, 3, 4, 2), (5, 7), a) for a in _ATTRS],
    *[_bicubic_row((1, 6, 5, 3), (4, 2), a) for a in _ATTRS],
    *[_bicubic_grad_row((2, 3, 4, 2), (5, 7), a) for a in _ATTRS],
    *[_bicubic_grad_row((1, 6, 5, 1), (4, 2), a) for a in _ATTRS],
    *[_area_row((2, 7, 5, 2), (3, 2), a) for a in (False, True)],
    *[_area_row((1, 3, 4, 3), (7, 9), a) for a in (False, True)],
    *[_bilinear_row((2, 3, 4, 2), (5, 7), a) for a in _ATTRS],
    *[_bilinear_row((1, 6, 5, 3), (4, 2), a) for a in _ATTRS],
    *[_bilinear_grad_row((2, 3, 4, 2), (5, 7), a) for a in _ATTRS],
    *[_bilinear_grad_row((1, 6, 5, 1), (4, 2), a) for a in _ATTRS],
    *[_nearest_row((2, 3, 4, 2), (5, 7), a) for a in _ATTRS],
    *[_nearest_row((1, 6, 5, 3), (4, 2), a) for a in _ATTRS],
    _nearest_row((1, 3, 5, 2), (6, 4), "align", np.uint8),
    *[_nearest_grad_row((3, 4), (2, 5, 7, 2), a) for a in _ATTRS],
    *[_nearest_grad_row((6, 5), (1, 4, 2, 3), a) for a in _ATTRS],
]
