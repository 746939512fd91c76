"""FFTND, IFFTND, RFFTND, IRFFTND and their tf.signal wrappers.

TF 2.21 runs these ops only on GPUs, so values are checked against NumPy's ``fft.*n`` (TF's
documented definition) and, live, against TF's own CPU FFTs of rank 1-3 over the same
axes; graphs (op types, inputs, names, static shapes, dtypes) against TF's graphs.
"""

import numpy as np
import pytest

import scopeflow as tf

RNG = np.random.default_rng(3)
X = (RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))).astype(np.complex64)
R = RNG.standard_normal((2, 3, 4)).astype(np.float32)


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.mark.parametrize("fn, ref, x, kwargs", [
    (tf.signal.fftnd, np.fft.fftn, X, {}),
    (tf.signal.fftnd, np.fft.fftn, X, {"fft_length": [3, 4], "axes": [-2, -1]}),
    (tf.signal.fftnd, np.fft.fftn, X, {"fft_length": [2, 4], "axes": [0, 2]}),
    (tf.signal.ifftnd, np.fft.ifftn, X, {"fft_length": [5, 6], "axes": [1, 2]}),
    (tf.signal.rfftnd, np.fft.rfftn, R, {"fft_length": [3, 4], "axes": [1, 2]}),
    (tf.signal.rfftnd, np.fft.rfftn, R, {"fft_length": [2, 3, 6], "axes": [0, 1, 2]}),
    (tf.signal.irfftnd, np.fft.irfftn, X, {"fft_length": [3, 6], "axes": [1, 2]}),
])
def test_values_are_numpys_nd_transforms(fn, ref, x, kwargs):
    with tf.Graph().as_default():
        y = fn(tf.constant(x), **kwargs)
        got = _run(y)
    assert y.shape.as_list() == list(got.shape)
    np.testing.assert_allclose(got, ref(x, s=kwargs.get("fft_length"), axes=kwargs.get("axes")),
                               rtol=1e-5, atol=1e-5)
    assert got.dtype == (np.float32 if fn is tf.signal.irfftnd else np.complex64)


@pytest.mark.parametrize("norm, scale", [("forward", 1 / 12), ("ortho", 1 / np.sqrt(12))])
def test_norm_scales_the_input(norm, scale):
    with tf.Graph().as_default():
        got = _run(tf.signal.fftnd(tf.constant(X), fft_length=[3, 4], axes=[1, 2], norm=norm))
        back = _run(tf.signal.ifftnd(tf.constant(X), fft_length=[3, 4], axes=[1, 2], norm=norm))
    np.testing.assert_allclose(got, np.fft.fftn(X, axes=[1, 2]) * scale, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(back, np.fft.ifftn(X, axes=[1, 2]) / scale, rtol=1e-5, atol=1e-5)


def test_norm_needs_a_constant_fft_length():
    with tf.Graph().as_default(), pytest.raises(TypeError, match="symbolic"):
        tf.signal.fftnd(tf.constant(X), norm="ortho")


def test_float64_stays_double_and_raw_ops():
    x64 = R.astype(np.float64)
    with tf.Graph().as_default():
        y = tf.signal.rfftnd(tf.constant(x64), fft_length=[4], axes=[-1])
        raw = tf.fftnd(tf.constant(X), [3, 4], [-2, -1])
        assert y.dtype == tf.complex128 and raw.op.type == "FFTND" and raw.op.name == "FFTND"
        np.testing.assert_allclose(_run(y), np.fft.rfft(x64), rtol=1e-12)
        np.testing.assert_allclose(_run(raw), np.fft.fft2(X), rtol=1e-5, atol=1e-5)


def test_mismatched_lengths_and_axes_fail_at_run_time():
    with tf.Graph().as_default():
        y = tf.signal.fftnd(tf.constant(X), axes=[0, 2])  # lengths of 3 dims, 2 axes
        with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
            _run(y)


def test_no_gradient_is_registered():
    with tf.Graph().as_default():
        x = tf.constant(R)
        y = tf.signal.rfftnd(x, fft_length=[3, 4], axes=[1, 2])
        with pytest.raises(LookupError, match="RFFTND"):
            tf.gradients(tf.reduce_sum(tf.abs(y)), x)


def test_unknown_dims():
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.complex64, [None, None, 4])
        y = tf.signal.fftnd(ph, fft_length=[3, 8], axes=[-2, -1])
        assert y.shape.as_list() == [None, 3, 8]
        got = tf.Session().run(y, {ph: X})
    np.testing.assert_allclose(got, np.fft.fftn(X, s=[3, 8], axes=[-2, -1]), rtol=1e-5, atol=1e-5)


_GRAPH_CASES = """
x = tf.constant(X)
r = tf.constant(R)
cases = {
    "default": tf.signal.fftnd(x),
    "axes": tf.signal.fftnd(x, fft_length=[3, 4], axes=[-2, -1]),
    "pad": tf.signal.fftnd(x, fft_length=[4, 6]),
    "ifft": tf.signal.ifftnd(x, fft_length=[5, 6], axes=[1, 2]),
    "ortho": tf.signal.fftnd(x, fft_length=[3, 4], axes=[1, 2], norm="ortho"),
    "raw": tf.fftnd(x, [3, 4], [-2, -1]),
}
out = {k: {"type": t.op.type, "name": t.name, "dtype": t.dtype.name,
           "inputs": [i.name for i in t.op.inputs], "shape": t.shape.as_list()}
       for k, t in cases.items()}
rf = tf.signal.rfftnd(r, fft_length=[3, 4], axes=[1, 2])
irf = tf.signal.irfftnd(rf, fft_length=[3, 4], axes=[1, 2])
out["real"] = [rf.op.type, rf.dtype.name, [i.name for i in rf.op.inputs], irf.op.type,
               irf.dtype.name]
"""


def test_graphs_match_tf(tf1):
    scope = {"tf": tf, "X": X, "R": R}
    with tf.Graph().as_default():
        exec(_GRAPH_CASES, scope)
    theirs = tf1(f"""
        tf.disable_v2_behavior()
        X = np.array({X.tolist()!r}, np.complex64)
        R = np.array({R.tolist()!r}, np.float32)
        {_GRAPH_CASES.strip().replace(chr(10), chr(10) + '        ')}
        print(json.dumps(out))
    """)
    assert scope["out"] == theirs


def test_values_match_tfs_cpu_ffts(tf1):
    """TF has no CPU kernel for the N-D ops: its 1-3-D FFTs over the same axes agree."""
    theirs = tf1(f"""
        tf.disable_v2_behavior()
        X = np.array({X.tolist()!r}, np.complex64)
        R = np.array({R.tolist()!r}, np.float32)
        with tf.Session() as s:
            f2, f3, i2, r2, ir2 = s.run([tf.signal.fft2d(X), tf.signal.fft3d(X),
                                         tf.signal.ifft2d(X), tf.signal.rfft2d(R),
                                         tf.signal.irfft2d(tf.signal.rfft2d(R))])
        pack = lambda a: [np.real(a).tolist(), np.imag(a).tolist()]
        print(json.dumps([pack(f2), pack(f3), pack(i2), pack(r2), ir2.tolist()]))
    """)
    with tf.Graph().as_default():
        x, r = tf.constant(X), tf.constant(R)
        ours = _run([tf.signal.fftnd(x, fft_length=[3, 4], axes=[1, 2]), tf.signal.fftnd(x),
                     tf.signal.ifftnd(x, fft_length=[3, 4], axes=[1, 2]),
                     tf.signal.rfftnd(r, fft_length=[3, 4], axes=[1, 2]),
                     tf.signal.irfftnd(tf.signal.rfftnd(r, fft_length=[3, 4], axes=[1, 2]),
                                       fft_length=[3, 4], axes=[1, 2])])
    for got, want in zip(ours[:4], theirs[:4]):
        np.testing.assert_allclose(got, np.array(want[0]) + 1j * np.array(want[1]),
                                   rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-5, atol=1e-5)
