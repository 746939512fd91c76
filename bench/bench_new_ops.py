"""The ops added for the whole ``tf.compat.v1`` surface, at realistic sizes, for scopeflow or
(with --tf) real TensorFlow: one forward run of each, and forward plus gradient where the
op has one.

    python bench/bench_new_ops.py            # scopeflow
    ../shared/tools/tf1 bench/bench_new_ops.py --tf
    python bench/compare.py bench/bench_new_ops.py   # both, side by side, as ratios

``--only NAME[,NAME]`` runs some rows. Prints one JSON line of milliseconds per row.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
else:
    import scopeflow as tf

RNG = np.random.default_rng(0)


def _f32(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(np.float32)


def _spd(n, batch=()):
    a = _f32(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)


def _strings(n):
    words = np.array([f"word{i % 5000}_{i % 7}".encode() for i in range(n)], dtype=object)
    return words


# name -> (builder(*placeholders) -> tensor, inputs, differentiate?)
def _rows():
    img = _f32(16, 128, 128, 3, low=0.0, high=1.0)
    boxes = np.sort(RNG.uniform(0, 1, (4000, 4)).astype(np.float32).reshape(4000, 2, 2), 1)
    boxes = boxes.transpose(0, 2, 1).reshape(4000, 4)
    seg_ids = np.sort(RNG.integers(0, 1000, 1_000_000)).astype(np.int32)
    return {
        # math
        "cumsum_1M": (lambda x: tf.cumsum(x), [_f32(1000, 1000)], True),
        "segment_sum_1M": (lambda x, s: tf.math.segment_sum(x, s),
                           [_f32(1_000_000), seg_ids], True),
        "unsorted_segment_max_1M": (lambda x, s: tf.math.unsorted_segment_max(x, s, 1000),
                                    [_f32(1_000_000), RNG.permutation(seg_ids)], True),
        "bincount_1M": (lambda x: tf.math.bincount(x), [RNG.integers(0, 1000, 1_000_000)
                                                        .astype(np.int32)], False),
        "erf_1M": (lambda x: tf.math.erf(x), [_f32(1_000_000)], True),
        "lgamma_1M": (lambda x: tf.math.lgamma(x), [_f32(1_000_000, low=0.1, high=10)], True),
        "digamma_1M": (lambda x: tf.math.digamma(x), [_f32(1_000_000, low=0.1, high=10)], True),
        "betainc_100k": (lambda a, b, x: tf.math.betainc(a, b, x),
                         [_f32(100_000, low=0.5, high=5), _f32(100_000, low=0.5, high=5),
                          _f32(100_000, low=0.0, high=1.0)], False),
        "bessel_i1e_1M": (lambda x: tf.math.bessel_i1e(x), [_f32(1_000_000)], True),
        # array
        "gather_nd_10k_rows": (lambda p, i: tf.gather_nd(p, i),
                               [_f32(1000, 512), RNG.integers(0, 1000, (10_000, 1))
                                .astype(np.int32)], True),
        "scatter_nd_10k_rows": (lambda i, u: tf.scatter_nd(i, u, [1000, 512]),
                                [RNG.integers(0, 1000, (10_000, 1)).astype(np.int32),
                                 _f32(10_000, 512)], True),
        "sort_1M": (lambda x: tf.sort(x), [_f32(1000, 1000)], True),
        "argsort_1M": (lambda x: tf.argsort(x), [_f32(1000, 1000)], False),
        "einsum_bij_bjk": (lambda a, b: tf.einsum("bij,bjk->bik", a, b),
                           [_f32(32, 128, 128), _f32(32, 128, 128)], True),
        "searchsorted_1M": (lambda s, v: tf.searchsorted(s, v),
                            [np.sort(_f32(1, 10_000), axis=1), _f32(1, 1_000_000)], False),
        "unique_with_counts_1M": (lambda x: tf.unique_with_counts(x).count,
                                  [RNG.integers(0, 10_000, 1_000_000).astype(np.int32)], False),
        "space_to_depth": (lambda x: tf.space_to_depth(x, 2), [_f32(32, 64, 64, 16)], True),
        "extract_image_patches": (lambda x: tf.extract_image_patches(
            x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), [_f32(8, 64, 64, 8)], True),
        "matrix_band_part_512": (lambda x: tf.linalg.band_part(x, 8, 8), [_f32(8, 512, 512)], True),
        # linalg
        "matrix_inverse_256": (lambda x: tf.linalg.inv(x), [_spd(256, (8,))], True),
        "cholesky_512": (lambda x: tf.linalg.cholesky(x), [_spd(512)], True),
        "triangular_solve_512": (lambda a, b: tf.linalg.triangular_solve(a, b),
                                 [np.tril(_spd(512)), _f32(512, 64)], True),
        "qr_256": (lambda x: tf.linalg.qr(x)[1], [_f32(8, 256, 256)], True),
        "svd_128": (lambda x: tf.linalg.svd(x, compute_uv=False), [_f32(8, 128, 128)], True),
        "eigh_256": (lambda x: tf.linalg.eigh(x)[0], [_spd(256)], True),
        "slogdet_256": (lambda x: tf.linalg.slogdet(x)[1], [_spd(256, (8,))], True),
        "expm_64": (lambda x: tf.linalg.expm(x), [_f32(8, 64, 64, low=-0.1, high=0.1)], True),
        # sparse
        "sparse_dense_matmul": (lambda v: tf.sparse.sparse_dense_matmul(
            tf.SparseTensor(np.stack([RNG.integers(0, 1000, 20_000),
                                      RNG.integers(0, 1000, 20_000)], 1).astype(np.int64),
                            v, [1000, 1000]), tf.ones([1000, 256])), [_f32(20_000)], True),
        # strings
        "string_to_hash_bucket_fast_100k": (lambda s: tf.strings.to_hash_bucket_fast(s, 1000),
                                            [_strings(100_000)], False),
        "regex_replace_10k": (lambda s: tf.strings.regex_replace(s, "[0-9]+", "#"),
                              [_strings(10_000)], False),
        "string_split_10k": (lambda s: tf.strings.split(s, "_").values, [_strings(10_000)], False),
        # signal
        "fft_1024x1024": (lambda re, im: tf.abs(tf.signal.fft(tf.complex(re, im))),
                          [_f32(1024, 1024), _f32(1024, 1024)], True),
        "rfft_1024x1024": (lambda x: tf.abs(tf.signal.rfft(x)), [_f32(1024, 1024)], True),
        "stft_8x16000": (lambda x: tf.abs(tf.signal.stft(x, 400, 160)), [_f32(8, 16000)], True),
        "mfccs_8x16000": (lambda x: tf.signal.mfccs_from_log_mel_spectrograms(
            tf.tensordot(tf.log(tf.abs(tf.signal.stft(x, 400, 160, 512)) + 1e-6),
                         tf.signal.linear_to_mel_weight_matrix(40, 257, 16000.0), 1)),
                          [_f32(8, 16000)], True),
        # image
        "resize_bilinear_16x128": (lambda x: tf.image.resize_bilinear(x, [64, 64]), [img], True),
        "crop_and_resize_1000": (lambda x, b: tf.image.crop_and_resize(
            x, b, np.arange(1000, dtype=np.int32) % 16, [24, 24]), [img, boxes[:1000]], True),
        "non_max_suppression_4000": (lambda b, s: tf.image.non_max_suppression(b, s, 200, 0.5),
                                     [boxes, _f32(4000, low=0.0, high=1.0)], False),
        "rgb_to_hsv_16x128": (lambda x: tf.image.rgb_to_hsv(x), [img], True),
        "ssim_16x128": (lambda a, b: tf.image.ssim(a, b, 1.0), [img, img[::-1].copy()], True),
        "sobel_edges_16x128": (lambda x: tf.image.sobel_edges(x), [img], True),
        # nn
        "ctc_loss_T100_B16": (lambda x: tf.nn.ctc_loss_v2(
            np.tile(np.arange(1, 21, dtype=np.int32), (16, 1)), x, np.full(16, 20, np.int32),
            np.full(16, 100, np.int32), logits_time_major=True, blank_index=0),
                              [_f32(100, 16, 32)], True),
        "lrn_32x28x28x64": (lambda x: tf.nn.lrn(x), [_f32(32, 28, 28, 64)], True),
        # random
        "stateless_normal_1M": (lambda: tf.random.stateless_normal([1000, 1000], [1, 2]), [],
                                False),
        "random_gamma_100k": (lambda: tf.random.gamma([100_000], 2.0, seed=1), [], False),
    }


def measure(name, build, inputs, differentiate):
    tf.reset_default_graph()
    ins = [tf.placeholder(tf.string if a.dtype == object else tf.as_dtype(a.dtype), a.shape)
           for a in inputs]
    out = build(*ins)
    feeds = dict(zip(ins, inputs))
    fetches = [out]
    float_ins = [t for t in ins if t.dtype.base_dtype == tf.float32]
    if differentiate and float_ins:
        grads = [g for g in tf.gradients(tf.reduce_sum(out), float_ins) if g is not None]
        fetches_grad = [out] + grads
    with tf.Session() as sess:
        sess.run(fetches, feeds)
        result = {f"{name}_ms": best_of(lambda: sess.run(fetches, feeds), repeat=3) * 1e3}
        if differentiate and float_ins:
            sess.run(fetches_grad, feeds)
            result[f"{name}_grad_ms"] = best_of(lambda: sess.run(fetches_grad, feeds),
                                                repeat=3) * 1e3
    return result


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    only = None
    if "--only" in sys.argv:
        only = set(sys.argv[sys.argv.index("--only") + 1].split(","))
    for name, (build, inputs, differentiate) in _rows().items():
        if only is None or name in only:
            out.update(measure(name, build, inputs, differentiate))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
