"""Op-table rows for the fake-quantization ops (scopeflow/ops/nn/fake_quant_ops.py), with
a float64 NumPy reference of TF's nudged quantization written independently of the
kernels (per element: nudge the range, clamp, round to a level, dequantize)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase

f32 = np.float32


def _nudge_ref(lo, hi, num_bits, narrow):
    """(nudged_min, nudged_max, scale) of TF's Nudge, per element. The zero point is
    and the nudged bounds are float32 as TF's (they decide ties and the range test: min=-1,
    max=1 rounds 127.49999 down); the dequantization below runs in float64."""
    qmin, qmax = f32(1 if narrow else 0), f32(2 ** num_bits - 1)
    scale = (f32(hi) - f32(lo)) / (qmax - qmin)
    z = qmin - f32(lo) / scale
    zp = np.where(z < qmin, qmin, np.where(z > qmax, qmax, np.sign(z) * np.floor(abs(z) + .5)))
    return f32((qmin - zp) * scale), f32((qmax - zp) * scale), scale


def fq_ref(x, lo, hi, num_bits=8, narrow=False):
    x = np.asarray(x, np.float64)
    nlo, nhi, scale = _nudge_ref(lo, hi, num_bits, narrow)
    c = np.clip(x, nlo, nhi)
    return (np.floor((c - nlo) / scale + 0.5) * scale + nlo).astype(f32)


def fq_grad_ref(g, x, lo, hi, num_bits=8, narrow=False, axes=None):
    nlo, nhi, _ = _nudge_ref(lo, hi, num_bits, narrow)
    inside = (x >= nlo) & (x <= nhi)
    return [np.where(inside, g, 0).astype(f32),
            np.where(x < nlo, g, 0).sum(axis=axes).astype(f32),
            np.where(x > nhi, g, 0).sum(axis=axes).astype(f32)]


X = np.array([[-3, -1.25, 0.1], [0.33, 1.6, 2.5], [1.04, 5, -0.02], [0.0, -0.7, 0.55]], f32)
G = np.arange(12, dtype=f32).reshape(4, 3) - 4
LO, HI = np.array([-1., -2., 0.5], f32), np.array([1., 2., 3.], f32)

ROWS = [
    OpCase("FakeQuantWithMinMaxArgs",
           lambda tf, x: tf.fake_quant_with_min_max_args(x, min=-1.3, max=2.1, num_bits=5),
           lambda x: fq_ref(x, f32(-1.3), f32(2.1), 5), [X], id="fq_args", check_grad=False),
    OpCase("FakeQuantWithMinMaxArgs",
           lambda tf, x: tf.fake_quant_with_min_max_args(x, min=0.2, max=1.7, num_bits=3,
                                                         narrow_range=True),
           lambda x: fq_ref(x, f32(0.2), f32(1.7), 3, True), [X], id="fq_args_narrow",
           check_grad=False),
    OpCase("FakeQuantWithMinMaxArgsGradient",
           lambda tf, g, x: tf.fake_quant_with_min_max_args_gradient(g, x, min=-0.5, max=0.7),
           lambda g, x: fq_grad_ref(g, x, f32(-0.5), f32(0.7))[0], [G, X], id="fq_args_grad"),
    OpCase("FakeQuantWithMinMaxVars",
           lambda tf, x, lo, hi: tf.fake_quant_with_min_max_vars(x, lo, hi),
           lambda x, lo, hi: fq_ref(x, lo, hi), [X, f32(-1.0), f32(1.5)], id="fq_vars",
           check_grad=False),
    OpCase("FakeQuantWithMinMaxVarsGradient",
           lambda tf, g, x, lo, hi: list(tf.fake_quant_with_min_max_vars_gradient(g, x, lo, hi,
                                                                                 num_bits=4)),
           lambda g, x, lo, hi: fq_grad_ref(g, x, lo, hi, 4), [G, X, f32(-1.0), f32(1.5)],
           id="fq_vars_grad"),
    OpCase("FakeQuantWithMinMaxVarsPerChannel",
           lambda tf, x, lo, hi: tf.fake_quant_with_min_max_vars_per_channel(x, lo, hi),
           lambda x, lo, hi: fq_ref(x, lo, hi), [X, LO, HI], id="fq_per_channel",
           check_grad=False),
    OpCase("FakeQuantWithMinMaxVarsPerChannelGradient",
           lambda tf, g, x, lo, hi: list(tf.fake_quant_with_min_max_vars_per_channel_gradient(
               g, x, lo, hi, narrow_range=True)),
           lambda g, x, lo, hi: fq_grad_ref(g, x, lo, hi, 8, True, axes=0), [G, X, LO, HI],
           id="fq_per_channel_grad"),
]


def _ctc_best_logprob(x, seq_len):
    """log P of the most probable label sequence per batch entry, by summing over every
    alignment (brute force; equals a beam search whose beam holds every prefix)."""
    import itertools
    out = []
    for b in range(x.shape[1]):
        xb = x[:seq_len[b], b].astype(np.float64)
        p = np.exp(xb - xb.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        n_t, n_c = p.shape
        scores = {}
        for path in itertools.product(range(n_c), repeat=n_t):
            seq, prev = [], None
            for c in path:
                if c != n_c - 1 and c != prev:
                    seq.append(c)
                prev = c
            key = tuple(seq)
            scores[key] = scores.get(key, 0.0) + np.prod(p[np.arange(n_t), path])
        out.append([np.log(max(scores.values()))])
    return np.array(out, x.dtype)


CTC_X = np.random.RandomState(5).randn(4, 2, 3).astype(f32)
ROWS.append(OpCase(
    "CTCBeamSearchDecoder",
    lambda tf, x: tf.nn.ctc_beam_search_decoder(x, [4, 3], beam_width=64)[1],
    lambda x: _ctc_best_logprob(x, [4, 3]), [CTC_X], id="ctc_beam_wide", rtol=1e-5))
