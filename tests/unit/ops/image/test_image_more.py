"""tf.image's colour, box, patch and quality functions against TensorFlow (``tf1``).

Every expression of ``CASES`` is built twice, with ``tf = scopeflow`` and in real TF 2.21
(TF1 mode, one batched oracle call), on the same inputs (``_inputs``): values (float32
within 1e-5), dtypes, static shapes (placeholders with unknown dims where the key says so)
and the output's op name must agree. ``GRADS`` compares ``tf.gradients`` of a weighted sum
the same way. Checks that need no TF compare with NumPy references.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import scopeflow as tf


def _inputs():
    rng = np.random.default_rng(0)
    rgb = rng.uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)
    rgb[0, 0] = [[0.5, 0.5, 0.5], [0.7, 0.7, 0.2], [0.2, 0.7, 0.7], [0, 0, 0]]
    rgb[0, 1] = [[0.7, 0.2, 0.7], [0.1, 0.3, 0.9], [0.9, 0.3, 0.1], [0.3, 0.9, 0.1]]
    return {
        "rgb": rgb,
        "u8": (rgb * 255).astype(np.uint8),
        "hsv": rng.uniform(0, 1, (3, 5, 3)).astype(np.float32),
        "img": rng.uniform(0, 1, (2, 7, 6, 2)).astype(np.float32),
        "img2": rng.uniform(0, 1, (2, 7, 6, 2)).astype(np.float32),
        "big": rng.uniform(0, 1, (1, 40, 40, 3)).astype(np.float32),
        "big2": rng.uniform(0, 1, (1, 40, 40, 3)).astype(np.float32),
        "boxes": np.array([[0.1, 0.1, 0.6, 0.7], [0.0, 0.2, 1.0, 0.9], [0.5, -0.2, 1.2, 0.5],
                           [0.8, 0.9, 0.2, 0.1]], np.float32),
        "box_ind": np.array([0, 1, 0, 1], np.int32),
        "nms_boxes": np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
                               [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]],
                              np.float32),
        "nms_scores": np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32),
        "overlaps": rng.uniform(0, 1, (6, 6)).astype(np.float32),
        "cboxes": rng.uniform(-0.2, 1.2, (2, 7, 1, 4)).astype(np.float32),
        "cboxes_q": rng.uniform(-0.2, 1.2, (2, 7, 3, 4)).astype(np.float32),
        "cscores": rng.uniform(0, 1, (2, 7, 3)).astype(np.float32),
        "img2_rgb": rng.uniform(0, 1, (2, 9, 11, 3)).astype(np.float32),
        "dboxes": np.array([[[0.1, 0.1, 0.5, 0.6], [0.3, -0.2, 1.3, 0.8], [0.6, 0.7, 0.2, 0.9]],
                            [[0.0, 0.0, 1.0, 1.0], [-0.5, 0.25, 0.45, 1.5],
                             [1.2, 0.1, 1.5, 0.3]]], np.float32),
        "vol": rng.uniform(-1, 1, (2, 4, 5, 6, 2)).astype(np.float32),
    }


# key -> expression (names: tf, the inputs, and ``ph(name)``: a placeholder of unknown
# batch dim fed with that input).
CASES = {
    "rgb_to_hsv": "tf.image.rgb_to_hsv(rgb)",
    "rgb_to_hsv_ph": "tf.image.rgb_to_hsv(ph('rgb'))",
    "hsv_to_rgb": "tf.image.hsv_to_rgb(hsv)",
    "hsv_round_trip": "tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(rgb))",
    "rgb_to_yiq": "tf.image.rgb_to_yiq(rgb)",
    "yiq_to_rgb": "tf.image.yiq_to_rgb(hsv)",
    "rgb_to_yuv": "tf.image.rgb_to_yuv(ph('rgb'))",
    "yuv_to_rgb": "tf.image.yuv_to_rgb(hsv)",
    "adjust_hue": "tf.image.adjust_hue(rgb, 0.2)",
    "adjust_hue_neg": "tf.image.adjust_hue(ph('rgb'), -0.7)",
    "adjust_hue_u8": "tf.image.adjust_hue(u8, 0.45)",
    "adjust_saturation": "tf.image.adjust_saturation(rgb, 0.5)",
    "adjust_saturation_3": "tf.image.adjust_saturation(ph('rgb'), 3.0)",
    "adjust_saturation_u8": "tf.image.adjust_saturation(u8, 1.7)",
    "adjust_gamma": "tf.image.adjust_gamma(rgb, 0.2, 1.5)",
    "adjust_gamma_u8": "tf.image.adjust_gamma(u8, 2.0)",
    "random_hue": "tf.image.random_hue(rgb, 0.3, seed=5)",
    "random_saturation": "tf.image.random_saturation(rgb, 0.2, 1.9, seed=3)",
    "total_variation": "tf.image.total_variation(img)",
    "total_variation_3d": "tf.image.total_variation(img[0])",
    "total_variation_ph": "tf.image.total_variation(ph('img'))",
    "psnr": "tf.image.psnr(img, img2, 1.0)",
    "psnr_u8": "tf.image.psnr(u8, tf.reverse(u8, [1]), 255)",
    "ssim": "tf.image.ssim(big, big2, 1.0)",
    "ssim_small_filter": "tf.image.ssim(img, img2, 2.0, filter_size=3, filter_sigma=0.8)",
    "ssim_map": "tf.image.ssim(ph('img'), img2, 1.0, filter_size=5, return_index_map=True)",
    "ssim_u8": "tf.image.ssim(u8, tf.reverse(u8, [2]), 255, filter_size=3)",
    "ssim_multiscale": "tf.image.ssim_multiscale(big, big2, 1.0, filter_size=3)",
    "ssim_multiscale_3": "tf.image.ssim_multiscale(big, big * 0.8 + 0.1, 1.0,"
                         " power_factors=(0.3, 0.3, 0.4), filter_size=4, filter_sigma=1.0)",
    "image_gradients": "tf.image.image_gradients(img)",
    "image_gradients_ph": "tf.image.image_gradients(ph('img'))",
    "sobel_edges": "tf.image.sobel_edges(img)",
    "sobel_edges_ph": "tf.image.sobel_edges(ph('img'))",
    "nms": "tf.image.non_max_suppression(nms_boxes, nms_scores, 3)",
    "nms_all": "tf.image.non_max_suppression(nms_boxes, nms_scores, 10, 0.5)",
    "nms_thresholds": "tf.image.non_max_suppression(ph('nms_boxes'), ph('nms_scores'), 10,"
                      " 0.0, 0.55)",
    "nms_iou_high": "tf.image.non_max_suppression(nms_boxes, nms_scores, 4, 0.9)",
    "nms_scores_hard": "tf.image.non_max_suppression_with_scores(nms_boxes, nms_scores, 6)",
    "nms_soft": "tf.image.non_max_suppression_with_scores(nms_boxes, nms_scores, 6,"
                " soft_nms_sigma=0.5)",
    "nms_soft_thr": "tf.image.non_max_suppression_with_scores(nms_boxes, nms_scores, 6, 0.5,"
                    " 0.4, soft_nms_sigma=0.8)",
    "nms_overlaps": "tf.image.non_max_suppression_overlaps(overlaps, nms_scores, 5, 0.3)",
    "nms_overlaps_thr": "tf.image.non_max_suppression_overlaps(overlaps, nms_scores, 5, 0.6,"
                        " 0.55)",
    "combined": "tf.image.combined_non_max_suppression(cboxes, cscores, 3, 5)",
    "combined_pad": "tf.image.combined_non_max_suppression(cboxes, cscores, 2, 50,"
                    " pad_per_class=True, clip_boxes=False)",
    "combined_q": "tf.image.combined_non_max_suppression(cboxes_q, cscores, 3, 4, 0.3, 0.2)",
    "combined_ph": "tf.image.combined_non_max_suppression(ph('cboxes'), ph('cscores'), 3, 5)",
    "crop_and_resize": "tf.image.crop_and_resize(img, boxes, box_ind, [3, 4])",
    "crop_and_resize_1px": "tf.image.crop_and_resize(img, boxes, box_ind, [1, 1])",
    "crop_and_resize_nearest": "tf.image.crop_and_resize(img, boxes, box_ind, [5, 3],"
                               " method='nearest', extrapolation_value=-1.5)",
    "crop_and_resize_u8": "tf.image.crop_and_resize(u8, boxes[:2], [1, 0], [4, 4],"
                          " extrapolation_value=7)",
    "crop_and_resize_ph": "tf.image.crop_and_resize(ph('img'), ph('boxes'), ph('box_ind'),"
                          " [2, 6])",
    "draw_boxes": "tf.image.draw_bounding_boxes(img2_rgb, dboxes)",
    "draw_boxes_gray": "tf.image.draw_bounding_boxes(img2_rgb[..., :1], dboxes)",
    "draw_boxes_rgba": "tf.image.draw_bounding_boxes(tf.concat([img2_rgb, img2_rgb[..., :1]],"
                       " -1), dboxes)",
    "draw_boxes_colors": "tf.image.draw_bounding_boxes(img2_rgb, dboxes,"
                         " colors=[[0.1, 0.2, 0.3], [0.9, 0.8, 0.7]])",
    "glimpse": "tf.image.extract_glimpse(big, [5, 4], [[0.1, -0.3]])",
    "glimpse_pixels": "tf.image.extract_glimpse(img, [3, 2], [[1.0, 2.0], [2.5, 0.7]],"
                      " centered=False, normalized=False)",
    "glimpse_centered": "tf.image.extract_glimpse(img, [2, 3], [[1.0, -1.0], [0.4, 0.3]],"
                        " normalized=False)",
    "patches_same": "tf.extract_image_patches(img, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1],"
                    " 'SAME')",
    "patches_valid": "tf.image.extract_patches(img, [1, 3, 2, 1], [1, 1, 2, 1], [1, 2, 1, 1],"
                     " 'VALID')",
    "patches_ph": "tf.image.extract_image_patches(ph('img'), [1, 2, 2, 1], [1, 3, 3, 1],"
                  " [1, 1, 1, 1], 'SAME')",
    "patches_u8": "tf.extract_image_patches(u8, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],"
                  " 'VALID')",
    "patches_neg": "tf.extract_image_patches(img, [1, 9, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],"
                   " 'VALID')",
    "volume_valid": "tf.extract_volume_patches(vol, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1],"
                    " 'VALID')",
    "volume_same": "tf.extract_volume_patches(vol, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1], 'SAME')",
    "volume_ph": "tf.extract_volume_patches(ph('vol'), [1, 1, 2, 2, 1], [1, 1, 1, 1, 1],"
                 " 'SAME')",
    "resize_with_pad": "tf.image.resize_image_with_pad(img, 10, 4)",
    "resize_with_pad_3d": "tf.image.resize_image_with_pad(img[0], 5, 12, method=1)",
    "resize_with_pad_ph": "tf.image.resize_image_with_pad(ph('img'), 9, 9, align_corners=True)",
    "resize_with_pad_u8": "tf.image.resize_image_with_pad(u8, 6, 3, method=2)",
}

GRADS = {
    "resize_with_pad": ("tf.image.resize_image_with_pad(img, 10, 4)", "img"),
    "patches_same": ("tf.extract_image_patches(img, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1],"
                     " 'SAME')", "img"),
    "patches_valid": ("tf.image.extract_patches(img, [1, 3, 2, 1], [1, 1, 2, 1],"
                      " [1, 2, 1, 1], 'VALID')", "img"),
    "volume_valid": ("tf.extract_volume_patches(vol, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1],"
                     " 'VALID')", "vol"),
    "volume_same": ("tf.extract_volume_patches(vol, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1],"
                    " 'SAME')", "vol"),
    "crop_and_resize_image": ("tf.image.crop_and_resize(img, boxes, box_ind, [3, 4])", "img"),
    "crop_and_resize_boxes": ("tf.image.crop_and_resize(img, boxes, box_ind, [3, 4])",
                              "boxes"),
    "crop_and_resize_1px": ("tf.image.crop_and_resize(img, boxes, box_ind, [1, 1])", "boxes"),
    "crop_and_resize_nearest": ("tf.image.crop_and_resize(img, boxes, box_ind, [4, 3],"
                                " method='nearest')", "img"),
    "crop_and_resize_nearest_b": ("tf.image.crop_and_resize(img, boxes, box_ind, [4, 3],"
                                  " method='nearest')", "boxes"),
    "total_variation": ("tf.image.total_variation(img)", "img"),
    "psnr": ("tf.image.psnr(img, img2, 1.0)", "img"),
    "ssim": ("tf.image.ssim(img, img2, 1.0, filter_size=5)", "img"),
    "ssim_multiscale": ("tf.image.ssim_multiscale(big, big2, 1.0, filter_size=3)", "big"),
    "sobel_edges": ("tf.image.sobel_edges(img)", "img"),
    "rgb_to_hsv": ("tf.image.rgb_to_hsv(rgb)", "rgb"),
    "rgb_to_yiq": ("tf.image.rgb_to_yiq(rgb)", "rgb"),
    "adjust_gamma": ("tf.image.adjust_gamma(rgb, 0.7, 1.5)", "rgb"),
}

_RUN = """
def run_cases(tf, inputs, cases, grads):
    out = {}
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(11)
        feeds = {}
        def ph(name):
            v = inputs[name]
            p = tf.placeholder(v.dtype, [None] + list(v.shape[1:]))
            feeds[p] = v
            return p
        scope = {"tf": tf, "ph": ph}
        for k, v in inputs.items():
            scope[k] = tf.constant(v)
        built = {}
        for key, expr in cases.items():
            try:
                t = eval(expr, scope)
            except Exception as e:
                out[key] = {"error": type(e).__name__ + ": " + str(e)[:200]}
                continue
            ts = t if isinstance(t, (list, tuple)) else [t]
            built[key] = ts
            out[key] = {"names": [x.name for x in ts], "dtypes": [x.dtype.name for x in ts],
                        "shapes": [None if x.shape.ndims is None else
                                   [d if d is None else int(d) for d in x.shape.as_list()]
                                   for x in ts]}
        for key, (expr, wrt) in grads.items():
            x = scope[wrt]
            y = eval(expr, scope)
            w = tf.constant(np.linspace(-1, 1, int(np.prod(y.shape.as_list())))
                            .reshape(y.shape.as_list()).astype(y.dtype.name))
            gr = tf.gradients(tf.reduce_sum(y * w), x)[0]
            built["grad:" + key] = [gr]
            out["grad:" + key] = {"names": [gr.name], "dtypes": [gr.dtype.name],
                                  "shapes": [gr.shape.as_list()]}
        with tf.Session() as sess:
            for key, ts in built.items():
                vals = sess.run(ts, feeds)
                out[key]["values"] = [np.asarray(v).tolist() for v in vals]
    return out
"""


def _run_here():
    ns = {"np": np}
    exec(_RUN, ns)
    return ns["run_cases"](tf, _inputs(), CASES, GRADS)


@pytest.fixture(scope="module")
def tf_results(tf1):
    code = (f"tf.disable_v2_behavior()\n{_RUN}\n{inspect.getsource(_inputs)}\n"
            f"print(json.dumps(run_cases(tf, _inputs(), {CASES!r}, {GRADS!r})))\n")
    return tf1(code)


@pytest.fixture(scope="module")
def our_results():
    return _run_here()


@pytest.mark.parametrize("key", list(CASES) + [f"grad:{k}" for k in GRADS])
def test_matches_tf(key, tf_results, our_results):
    want, got = tf_results[key], our_results[key]
    if "error" in want:
        assert "error" in got, f"{key}: TF raised {want['error']}, scopeflow did not"
        assert got["error"].split(":")[0] == want["error"].split(":")[0]
        return
    assert "error" not in got, got.get("error")
    assert got["dtypes"] == want["dtypes"]
    assert got["shapes"] == want["shapes"]
    if not key.startswith("grad:"):  # gradient sums are named by the autodiff's walk
        assert got["names"] == want["names"]
    for g, w, dt in zip(got["values"], want["values"], want["dtypes"]):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        if dt.startswith("float"):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=key)
        else:
            np.testing.assert_array_equal(g, w, err_msg=key)


def test_jpeg_helpers_match_tf(tf1, tmp_path):
    """is_jpeg, extract_jpeg_shape (both dtypes) and decode_and_crop_jpeg on JPEG bytes
    that scopeflow wrote, read by TF from a file: the same shapes, dtypes, flags and error
    messages, and the crops within the codecs' difference."""
    yy, xx = np.mgrid[0:9, 0:13]
    # A smooth image: codecs (and TF's partial crop decode) agree on it within a few units.
    img = np.stack([yy * 20 + 30, xx * 15 + 20, 200 - yy * 10 - xx * 5], -1).astype(np.uint8)
    with tf.Session() as sess:
        jpeg, png = sess.run([tf.image.encode_jpeg(img, quality=100),
                              tf.image.encode_png(img)])
    (tmp_path / "a.jpg").write_bytes(jpeg)
    (tmp_path / "a.png").write_bytes(png)
    code = f"""
    tf.disable_v2_behavior()
    j = open({str(tmp_path / "a.jpg")!r}, "rb").read()
    p = open({str(tmp_path / "a.png")!r}, "rb").read()
    c = tf.placeholder(tf.string, [])
    ops = [tf.image.is_jpeg(c), tf.io.extract_jpeg_shape(c, tf.int64),
           tf.image.decode_and_crop_jpeg(c, [1, 2, 5, 6]),
           tf.image.decode_and_crop_jpeg(c, [0, 3, 9, 4], channels=1)]
    out = {{"names": [t.name for t in ops], "shapes": [t.shape.as_list() for t in ops]}}
    with tf.Session() as s:
        vals = s.run(ops, {{c: j}})
        out["values"] = [np.asarray(v).tolist() for v in vals]
        out["png_is_jpeg"] = bool(s.run(ops[0], {{c: p}}))
        errs = []
        for w in ([1, 2, 9, 6], [-1, 0, 2, 2], [0, 0, 0, 3]):
            try:
                s.run(tf.image.decode_and_crop_jpeg(c, w), {{c: j}})
                errs.append(None)
            except tf.errors.InvalidArgumentError as e:
                errs.append(e.message.splitlines()[-2].strip())
        try:
            s.run(tf.image.extract_jpeg_shape(c), {{c: p}})
        except tf.errors.InvalidArgumentError as e:
            errs.append(e.message.splitlines()[-2].strip())
        out["errors"] = errs
    print(json.dumps(out))
    """
    want = tf1(code)
    c = tf.placeholder(tf.string, [])
    ops = [tf.image.is_jpeg(c), tf.io.extract_jpeg_shape(c, tf.int64),
           tf.image.decode_and_crop_jpeg(c, [1, 2, 5, 6]),
           tf.image.decode_and_crop_jpeg(c, [0, 3, 9, 4], channels=1)]
    assert [t.shape.as_list() for t in ops] == want["shapes"]
    assert [t.name.split("_")[0].split(":")[0] for t in ops] == \
        [n.split("_")[0].split(":")[0] for n in want["names"]]
    with tf.Session() as sess:
        got = sess.run(ops, {c: jpeg})
        assert bool(sess.run(ops[0], {c: png})) == want["png_is_jpeg"] is False
        errs = []
        for w in ([1, 2, 9, 6], [-1, 0, 2, 2], [0, 0, 0, 3]):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(tf.image.decode_and_crop_jpeg(c, w), {c: jpeg})
            errs.append(e.value.message.splitlines()[0])
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(tf.image.extract_jpeg_shape(c), {c: png})
        errs.append(e.value.message.splitlines()[0])
    assert errs == want["errors"]
    assert bool(got[0]) is want["values"][0] is True
    assert got[1].dtype == np.int64 and got[1].tolist() == want["values"][1] == [9, 13, 3]
    for g, w in zip(got[2:], want["values"][2:]):
        assert g.dtype == np.uint8 and g.shape == np.shape(w)
        # Pillow's libjpeg and TF's libjpeg-turbo full decodes of this 9x13 image differ by
        # up to 10 (chroma upsampling at the edges), TF's crop from its own full decode by
        # up to 7: a bound, not a match, but a wrong window misses it by far more.
        assert np.max(np.abs(g.astype(int) - np.asarray(w))) <= 16
