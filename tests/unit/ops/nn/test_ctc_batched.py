"""The CTC loss kernel runs the whole batch at once: each sequence's loss and gradient
are the bits it gets run alone, whatever the other sequences' lengths and labels."""

import numpy as np

from scopeflow.ops.nn.ctc_ops import _ctc_loss_kernel

RNG = np.random.default_rng(0)
FLAGS = [dict(preprocess_collapse_repeated=c, ctc_merge_repeated=m,
              ignore_longer_outputs_than_inputs=True) for c in (False, True) for m in (True, False)]


def _case(n_t=9, batch=5, n_c=5):
    x = RNG.standard_normal((n_t, batch, n_c)).astype(np.float32) * 3
    seq = RNG.integers(0, n_t + 1, batch).astype(np.int32)
    idx = [[b, j] for b in range(batch) for j in range(int(RNG.integers(0, 6)))]
    vals = RNG.integers(0, n_c - 1, len(idx)).astype(np.int32)
    return x, np.array(idx, np.int64).reshape(-1, 2), vals, seq


def test_each_sequence_as_if_alone():
    for _ in range(40):
        x, idx, vals, seq = _case()
        for flags in FLAGS:
            loss, grad = _ctc_loss_kernel(x, idx, vals, seq, **flags)
            for b in range(x.shape[1]):
                mine = idx[:, 0] == b
                one = np.zeros_like(idx[mine])
                one[:, 1] = idx[mine, 1]
                l1, g1 = _ctc_loss_kernel(x[:, b:b + 1], one, vals[mine], seq[b:b + 1], **flags)
                assert l1.tobytes() == loss[b:b + 1].tobytes()
                assert g1.tobytes() == grad[:, b:b + 1].tobytes()


def test_impossible_alignment_and_padding():
    x = RNG.standard_normal((4, 2, 3)).astype(np.float64)
    idx = np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)
    vals = np.array([1, 1, 1, 0], np.int32)   # "1 1 1" needs 5 steps with merging
    loss, grad = _ctc_loss_kernel(x, idx, vals, np.array([4, 2], np.int32),
                                  preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                                  ignore_longer_outputs_than_inputs=False)
    assert np.isinf(loss[0]) and np.isfinite(loss[1])
    soft = np.exp(x[:, 0]) / np.exp(x[:, 0]).sum(-1, keepdims=True)
    np.testing.assert_allclose(grad[:, 0], soft)
    assert not grad[2:, 1].any()   # past sequence 1's length
