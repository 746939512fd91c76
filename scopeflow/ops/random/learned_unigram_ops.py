"""``LearnedUnigramCandidateSampler``: candidates drawn by the counts of the true classes
seen so far (``tf.nn.learned_unigram_candidate_sampler``), as TF's CPU kernel.

TF's ``UnigramSampler`` keeps one integer weight per class, all 1 at first, in the op's
kernel (so per op per session, as the op's Philox stream). A run reserves ``2048 *
num_sampled`` words of the stream, as the other samplers
(:mod:`scopeflow.ops.random.candidate_sampling_ops`), and each draw reads one word:
``word % total_weight`` picks the class whose cumulative weight interval holds it
(``WeightedPicker::Pick``). ``unique`` draws until ``num_sampled`` distinct classes came.
Expected counts use the weights before the run's update, ``float(weight) / total``; then
each true class (row-major) gains 1, as TF's ``Update``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.ops.random import philox
from scopeflow.ops.random.candidate_sampling_ops import (
    _SAMPLER_ATTRS,
    _bind_sampler,
    _expected_counts,
    _first_unique_rows,
    _sampler_dtype,
    _sampler_shape,
    check_sampler_args,
)

__all__ = ["learned_unigram_candidate_sampler"]

_INT32_MAX = 2**31 - 1


class _LearnedUnigramState:
    """One op's stream and class weights in one session."""

    __slots__ = ("stream", "weights")

    def __init__(self, seed, seed2, range_max):
        self.stream = philox.PhiloxStream(seed, seed2)
        self.weights = np.ones(range_max, np.int64)

    def position(self):
        return self.stream.position()

    def set_position(self, key, counter):
        self.stream.set_position(key, counter)

    def draw(self, num_sampled, unique):
        """``(picked, num_tries)`` of one run, read one word per draw."""
        start = self.stream.reserve32(2048 * num_sampled)
        cum = np.cumsum(self.weights)
        n = num_sampled if not unique else 2 * num_sampled + 16
        while True:
            words = self.stream.words(start, n).astype(np.int64)
            values = np.searchsorted(cum, words % cum[-1], side="right")
            if not unique:
                return values, num_sampled
            picked, tries = _first_unique_rows(values[None], num_sampled, len(cum))
            if tries[0] >= 0:
                return picked[0], int(tries[0])
            n *= 2

    def prob(self, values):
        total = np.float32(self.weights.sum())
        return (self.weights[np.clip(values, 0, len(self.weights) - 1)].astype(np.float32)
                / total) * ((values >= 0) & (values < len(self.weights)))

    def update(self, true_classes):
        flat = true_classes.ravel()
        room = _INT32_MAX - int(self.weights.sum())
        np.add.at(self.weights, flat[:max(0, min(len(flat), room))], 1)


def _learned_unigram_kernel(ctx, true_classes, *, num_true, num_sampled, unique, range_max,
                            seed, seed2):
    check_sampler_args(true_classes, num_true, num_sampled, unique, range_max)
    state = ctx.state.rngs.get(ctx.key)
    if state is None:
        state = ctx.state.rngs[ctx.key] = _LearnedUnigramState(seed, seed2, range_max)
        restored = ctx.state.pending_rngs.pop(ctx.key, None)
        if restored is not None:
            state.set_position(*restored)
    picked, tries = state.draw(num_sampled, unique)
    tries32 = np.float32(tries)
    sampled_counts = _expected_counts(state.prob(picked), num_sampled, tries32)
    true_counts = _expected_counts(state.prob(true_classes), num_sampled, tries32)
    state.update(true_classes)
    return picked.astype(np.int64), true_counts, sampled_counts


learned_unigram_candidate_sampler_op = OpDef(
    "LearnedUnigramCandidateSampler", shape=_sampler_shape, dtype=_sampler_dtype,
    kernel=_learned_unigram_kernel, attrs=_SAMPLER_ATTRS, num_outputs=3, stateful=True,
    grad=NO_GRADIENT, input_names=("true_classes",))


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique,
                                      range_max, seed=None, name=None) -> tuple:
    """Samples classes by how often each was a true class so far (every class starts at
    one count). Returns ``(sampled_candidates, true_expected_count,
    sampled_expected_count)``.

    >>> s, t, c = tf.nn.learned_unigram_candidate_sampler([[1]], 1, 2, False, 5, seed=1)
    >>> s.op.type, t.shape.as_list()
    ('LearnedUnigramCandidateSampler', [1, 1])
    """
    return _bind_sampler(learned_unigram_candidate_sampler_op, true_classes, num_true,
                         num_sampled, unique, range_max, seed, name)
