"""The banded-GEMM depthwise kernels (scopeflow/ops/nn/depthwise_gemm.py) against the
per-tap kernels they stand in for, and the per-tap fallback for non-finite operands; LRN's band-GEMM window sums."""

import numpy as np
import pytest

from scopeflow.ops.nn import conv_ops, depthwise_gemm, nn_norm_ops

CASES = [(2, 9, 11, 3, 1, 3, 3, "SAME"), (2, 9, 11, 3, 2, 3, 3, "VALID"),
         (1, 20, 37, 2, 3, 5, 4, "SAME"), (3, 15, 15, 3, 1, 11, 11, "VALID"),
         (2, 7, 50, 4, 2, 1, 1, "SAME"), (1, 6, 6, 1, 1, 6, 6, "SAME"),
         (2, 40, 33, 3, 2, 2, 7, "SAME")]


def _attrs(padding):
    return dict(strides=[1, 1, 1, 1], padding=padding, explicit_paddings=[],
                data_format="NHWC", dilations=[1, 1, 1, 1])


def _all_three(x, w, dy, attrs):
    return (conv_ops._depthwise_kernel(x, w, **attrs),
            conv_ops._depthwise_backprop_input_kernel(np.array(x.shape), w, dy, **attrs),
            conv_ops._depthwise_backprop_filter_kernel(x, np.array(w.shape), dy, **attrs))


@pytest.mark.parametrize("case", CASES)
def test_gemm_path_matches_per_tap(case, monkeypatch):
    n, h, wd, c, m, kh, kw, padding = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, h, wd, c)).astype(np.float32)
    w = rng.standard_normal((kh, kw, c, m)).astype(np.float32)
    attrs = _attrs(padding)
    assert depthwise_gemm.fast_ok(attrs, x, w)
    dy = rng.standard_normal(conv_ops._depthwise_kernel(x, w, **attrs).shape).astype(np.float32)
    fast = _all_three(x, w, dy, attrs)
    monkeypatch.setattr(depthwise_gemm, "fast_ok", lambda *a: False)
    slow = _all_three(x, w, dy, attrs)
    for a, b in zip(fast, slow):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(b).max())


def test_non_finite_and_strided_take_the_per_tap_kernel():
    x = np.ones((1, 5, 5, 1), np.float32)
    w = np.ones((3, 3, 1, 1), np.float32)
    assert not depthwise_gemm.fast_ok(dict(_attrs("SAME"), strides=[1, 2, 2, 1]), x, w)
    x[0, 0, 0, 0] = np.inf
    assert not depthwise_gemm.fast_ok(_attrs("VALID"), x, w)
    # An Inf outside every window of an output leaves it finite (the Toeplitz's zeros would
    # make it NaN): output (0, 2) reads columns 2..4 only.
    out = conv_ops._depthwise_kernel(x, w, **_attrs("VALID"))
    assert np.isinf(out[0, 0, 0, 0]) and out[0, 0, 2, 0] == 9 and out[0, 2, 2, 0] == 9


def _lrn_ref(x, r, bias, alpha, beta):
    x = x.astype(np.float64)
    d = x.shape[-1]
    sq = np.stack([np.sum(x[..., max(0, c - r):c + r + 1] ** 2, -1) for c in range(d)], -1)
    return x * (bias + alpha * sq) ** -beta


@pytest.mark.parametrize("beta", [0.5, 0.75])
def test_lrn_band_gemm_matches_windowed_sums(beta):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 9)).astype(np.float32)
    got = nn_norm_ops._lrn_kernel(x, depth_radius=2, bias=1.5, alpha=0.3, beta=beta)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _lrn_ref(x, 2, 1.5, 0.3, beta), rtol=2e-6, atol=1e-6)
    # TF's band product: an Inf in a pixel gives NaN in the channels whose window misses
    # it (Inf * 0), not only where it is summed.
    x[0, 0, 0, 0] = np.inf
    out = nn_norm_ops._lrn_kernel(x, depth_radius=2, bias=1.5, alpha=0.3, beta=beta)
    # Channels 1-2 sum it (norm Inf: x * 0), 3-8 miss it (NaN), 0 is Inf * 0.
    assert np.isnan(out[0, 0, 0, 3:]).all() and (out[0, 0, 0, 1:3] == 0).all()
    assert np.isfinite(out[0, 0, 1]).all()


def test_rank_one_windows_take_two_passes_with_the_same_values():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 20, 17, 3)).astype(np.float32)
    u, v = rng.standard_normal((3, 11)), rng.standard_normal((3, 7))
    w = np.einsum("ci,cj->ijc", u, v)[..., None].astype(np.float32)
    assert depthwise_gemm._rank_one(w) is not None
    assert depthwise_gemm._rank_one(rng.standard_normal((3, 3, 3, 1)).astype(np.float32)) \
        is None
    attrs = _attrs("SAME")
    dy = rng.standard_normal((2, 20, 17, 3)).astype(np.float32)
    fast = _all_three(x, w, dy, attrs)
    gemm_2d = depthwise_gemm._rank_one
    try:
        depthwise_gemm._rank_one = lambda w: None
        full = _all_three(x, w, dy, attrs)
    finally:
        depthwise_gemm._rank_one = gemm_2d
    for a, b in zip(fast, full):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(b).max())
