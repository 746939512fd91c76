"""tf.image's resizes against TensorFlow.

``tests/fixtures/tf_image/make_fixtures.py`` defines the cases (bilinear, nearest
neighbour, bicubic and area, each attr combination, up- and downscaling, non-square, batch and channels > 1,
float64 and integer images, ``resize_images`` with 3-D images and ``preserve_aspect_ratio``)
and stored TF 2.21's values and gradients, and the op names of a small model, in
``expected.json``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "tf_image"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("tf_image_cases",
                                                  FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def _close(got, want, what):
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("case_id", sorted(CASES.CASES))
def test_values_and_gradients_match_tf(case_id):
    want = EXPECTED["cases"][case_id]
    got = CASES.run_case(tf, case_id)
    assert got["dtype"] == want["dtype"], case_id
    assert got["static_shape"] == want["static_shape"], case_id
    _close(got["y"], want["y"], f"{case_id}: forward")
    assert (got["grad"] is None) == (want["grad"] is None), case_id
    if want["grad"] is not None:
        _close(got["grad"], want["grad"], f"{case_id}: gradient")


def test_graph_names_match_tf():
    """The forward ops of a small model are TF's, name for name; so are the resize
    gradient ops (the rest of the gradient graph's order is tf.gradients' own)."""
    want = EXPECTED["graph_names"]
    got = CASES.graph_names(tf)
    n = next(i for i, (name, _) in enumerate(want) if name.startswith("gradients/"))
    assert got[:n] == want[:n]
    assert sorted(x for x in got if "Resize" in x[0]) == \
        sorted(x for x in want if "Resize" in x[0])


def test_small_values_hard_coded():
    x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.image.resize_bilinear(x, [3, 3]),
                        tf.image.resize_bilinear(x, [3, 3], align_corners=True),
                        tf.image.resize_bilinear(x, [3, 3], half_pixel_centers=True),
                        tf.image.resize_nearest_neighbor(x, [3, 3]),
                        tf.image.resize_nearest_neighbor(x, [3, 3], align_corners=True),
                        tf.image.resize_nearest_neighbor(x, [3, 3], half_pixel_centers=True)])
    got = [np.round(g[0, :, :, 0].astype(np.float64), 6).tolist() for g in got]
    # TF 2.21:
    assert got[0] == [[0.0, 0.666667, 1.0], [1.333333, 2.0, 2.333333], [2.0, 2.666667, 3.0]]
    assert got[1] == [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
    assert got[2] == [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
    assert got[3] == [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [2.0, 2.0, 3.0]]
    assert got[4] == [[0.0, 1.0, 1.0], [2.0, 3.0, 3.0], [2.0, 3.0, 3.0]]
    assert got[5] == [[0.0, 1.0, 1.0], [2.0, 3.0, 3.0], [2.0, 3.0, 3.0]]


def test_namespace_and_signatures():
    assert tf.image.resize is tf.image.resize_images  # TF1's tf.image.resize
    assert tf.compat.v1.image.ResizeMethod.NEAREST_NEIGHBOR == 1
    m = tf.image.ResizeMethod
    assert (m.BILINEAR, m.NEAREST_NEIGHBOR, m.BICUBIC, m.AREA) == (0, 1, 2, 3)
    # a TF1 name scopeflow lacks raises NotImplementedError naming it
    with pytest.raises(NotImplementedError, match="tf.image.decode_jxl"):
        tf.image.decode_jxl  # noqa: B018


def test_static_shapes_dtypes_and_the_same_size_shortcut():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.uint8, [2, 3, 4, 1])
        # TF: bilinear gives float32; nearest keeps the dtype; an unchanged size returns x
        assert tf.image.resize_images(x, [5, 6]).dtype == tf.float32
        assert tf.image.resize_images(x, [5, 6], method=1).dtype == tf.uint8
        assert tf.image.resize_images(x, [3, 4]) is x
        assert tf.image.resize_images(x, [3, 4], method=7) is x  # the method is not checked
        size = tf.placeholder(tf.int32, [2])
        assert tf.image.resize_images(x, size).shape.as_list() == [2, None, None, 1]
        assert tf.image.resize_images(x[0], [5, 6]).shape.as_list() == [5, 6, 1]
        assert tf.image.resize_images(x, [5, 6], method="nearest").op.type == \
            "ResizeNearestNeighbor"


def test_builder_errors_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 3, 4, 1])
        # TF 2.21: resize/ResizeBicubic, resize_1/ResizeArea (no half_pixel_centers attr)
        cubic = tf.image.resize_images(x, [5, 5], method=tf.image.ResizeMethod.BICUBIC)
        area = tf.image.resize_images(x, [5, 5], method=tf.image.ResizeMethod.AREA)
        assert (cubic.op.name, area.op.name) == ("resize/ResizeBicubic", "resize_1/ResizeArea")
        node = next(n for n in tf.get_default_graph().as_graph_def().node
                    if n.name == "resize_1/ResizeArea")
        assert sorted(node.attr) == ["T", "align_corners"]
        assert tf.image.resize_images(x, [5, 5], method="bicubic").op.type == "ResizeBicubic"
        with pytest.raises(TypeError, match="half_pixel_centers"):
            tf.image.resize_area(x, [2, 2], half_pixel_centers=True)
        # TF 2.21: "Resize method is not implemented: 7"
        with pytest.raises(ValueError, match="Resize method is not implemented: 7"):
            tf.image.resize_images(x, [5, 5], method=7)
        with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
            tf.image.resize_images(tf.zeros([3, 4]), [5, 5])
        with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
            tf.image.resize_images(x, [5, 5, 5])
        # TF 2.21: "Dimension must be 2 but is 3 for '{{node ResizeBilinear}} ..."
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            tf.image.resize_bilinear(x, [1, 2, 3])
        # TF 2.21: "Shape must be rank 4 but is rank 3 for '{{node ResizeNearestNeighbor}}"
        with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
            tf.image.resize_nearest_neighbor(tf.zeros([3, 4, 1]), [2, 2])
        with pytest.raises(TypeError, match="parameter 'images' has DataType bool"):
            tf.image.resize_bilinear(tf.zeros([1, 3, 4, 1], tf.bool), [2, 2])


@pytest.mark.parametrize("fn", ["resize_bilinear", "resize_nearest_neighbor", "resize_bicubic",
                                "resize_area"])
@pytest.mark.parametrize("kw,size,message", [
    ({"align_corners": True, "half_pixel_centers": True}, [2, 2],
     "If half_pixel_centers is True, align_corners must be False."),
    ({}, [0, 2], "output dimensions must be positive"),
    ({}, [-1, 2], "output dimensions must be positive"),
])
def test_runtime_errors_as_tf(fn, kw, size, message):
    if fn == "resize_area" and "half_pixel_centers" in kw:
        pytest.skip("ResizeArea has no half_pixel_centers")
    # TF 2.21: InvalidArgumentError with these messages
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 3, 4, 1])
        s = tf.placeholder(tf.int32, [2])
        y = getattr(tf.image, fn)(x, s, **kw)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as err:
            sess.run(y, {x: np.ones([1, 3, 4, 1]), s: size})
        assert err.value.message.splitlines()[0] == message


def test_gradient_ops_register_as_tf():
    """TF 2.21: ResizeBilinearGrad is NotDifferentiable; ResizeNearestNeighborGrad,
    ResizeBicubicGrad and ResizeArea have no registered gradient."""
    assert REGISTRY["ResizeBilinearGrad"].grad is None
    assert REGISTRY["ResizeNearestNeighborGrad"].grad is NO_GRADIENT
    assert REGISTRY["ResizeBicubicGrad"].grad is NO_GRADIENT
    assert REGISTRY["ResizeArea"].grad is NO_GRADIENT


def test_area_has_no_gradient_and_bicubic_of_integers_none_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 3, 4, 1])
        g = tf.gradients(tf.image.resize_bicubic(x, [5, 5]), x)[0]
        assert g.op.name == "gradients/ResizeBicubic_grad/ResizeBicubicGrad"
        # TF 2.21: LookupError "No gradient defined for operation'ResizeArea' (op type:
        # ResizeArea)..."
        with pytest.raises(LookupError, match=r"ResizeArea.*\(op type: ResizeArea\)"):
            tf.gradients(tf.image.resize_area(x, [2, 2]), x)
        with pytest.raises(LookupError, match=r"\(op type: ResizeBicubicGrad\)"):
            tf.gradients(g, x)
        xi = tf.placeholder(tf.int32, [1, 3, 4, 1])
        assert tf.gradients(tf.image.resize_bicubic(xi, [5, 5]), xi) == [None]


def test_bicubic_and_area_small_values_hard_coded():
    x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.image.resize_bicubic(x, [3, 3]),
                        tf.image.resize_bicubic(x, [3, 3], align_corners=True),
                        tf.image.resize_bicubic(x, [3, 3], half_pixel_centers=True),
                        tf.image.resize_area(x, [3, 3]), tf.image.resize_area(x, [1, 1]),
                        tf.image.resize_area(x, [3, 3], align_corners=True)])
    got = [np.round(g[0, :, :, 0].astype(np.float64), 6).tolist() for g in got]
    # TF 2.21:
    assert got[0] == [[0.0, 0.685538, 1.111111], [1.371076, 2.056613, 2.482187],
                      [2.222222, 2.90776, 3.333333]]
    assert got[1] == [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
    assert got[2] == [[-0.197666, 0.368222, 0.934111], [0.934111, 1.5, 2.065889],
                      [2.065889, 2.631777, 3.197666]]
    assert got[3] == [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 2.999999]]
    assert got[4] == [[1.5]]
    assert got[5] == [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [2.0, 2.0, 3.0]]


def test_dynamic_image_sizes_run():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 2])
        y = tf.image.resize_images(x, [5, 9], preserve_aspect_ratio=True)
        z = tf.image.resize_images(x, [3, 3], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
        gy, gz = tf.gradients(tf.reduce_sum(y), x)[0], tf.gradients(tf.reduce_sum(z), x)[0]
        with tf.Session() as sess:
            got = sess.run([tf.shape(y), tf.shape(z), gy, gz], {x: np.ones([1, 4, 6, 2])})
    # TF 2.21: [1, 5, 8, 2] (the scale 1.25; 7.5 rounds half to even)
    assert got[0].tolist() == [1, 5, 8, 2] and got[1].tolist() == [1, 3, 3, 2]
    assert got[2].shape == got[3].shape == (1, 4, 6, 2)
    np.testing.assert_allclose(got[2].sum(), 5 * 8 * 2, rtol=1e-6)
    np.testing.assert_allclose(got[3].sum(), 3 * 3 * 2, rtol=1e-6)


@pytest.mark.tf
def test_live_against_tensorflow(tf1):
    """Re-runs a few cases and the graph-name model under real TF right now."""
    names = ["resize_bilinear-half-odd", "resize_nearest_neighbor-align-down",
             "resize_images-m0-aspect", "resize_images-m1-3d", "resize_bicubic-half-down",
             "resize_bicubic-plain-up", "resize_area-plain-thirds"]
    live = tf1(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("cases",
                                                      {str(FIXTURES / "make_fixtures.py")!r})
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        out = {{n: cases.run_case(tf, n) for n in {names!r}}}
        out["graph_names"] = cases.graph_names(tf)
        print(json.dumps(out))
    """)
    assert live["graph_names"] == EXPECTED["graph_names"]
    for name in names:
        got = CASES.run_case(tf, name)
        _close(got["y"], live[name]["y"], name)
        if live[name]["grad"] is not None:
            _close(got["grad"], live[name]["grad"], f"{name} gradient")
