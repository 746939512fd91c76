"""Random sampling in ``tf.data.experimental``: ``RandomDataset`` (TF's ``RandomDataset`` op:
the Philox sample stream of its seeds), ``sample_from_datasets`` and ``rejection_resample``.

The two transformations are built as TF builds them, out of datasets and traced functions,
so their random streams are TF's draw for draw: ``sample_from_datasets`` is a
``RandomDataset`` batched in pairs, each pair the seed of a ``StatelessMultinomial`` draw
over the logits (``log(weights)``), whose index a directed interleave (``choose_from_datasets``)
follows; ``rejection_resample`` keeps an element with its class's acceptance probability (a
seeded ``random_uniform`` in a filter) and mixes the kept ones with the original elements by
``sample_from_datasets``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.buffers import _dataset_seeds
from scopeflow.data.dataset_ops import Dataset, _node_id, builds
from scopeflow.data.experimental_ops import _Choose, scan
from scopeflow.data.pipeline import PhiloxWords, PyIterator, SeedTable, os_seeds
from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.random.random_ops import random_uniform
from scopeflow.ops.random.stateless_random_ops import stateless_multinomial

__all__ = ["RandomDataset", "sample_from_datasets", "rejection_resample"]


# ── RandomDataset ────────────────────────────────────────────────────────────────────
@builds("random")
class RandomDataset(Dataset):
    """TF1's ``tf.data.experimental.RandomDataset``: endless scalar ``int64`` values, the
    uint32 samples of TF's Philox stream for the dataset seeds (``(graph seed, op seed)`` as
    ``tf.data`` derives them; OS-random seeds when neither is set).

    As TF's ``RandomDataset`` op with a fixed seed generator, every pass over it (a repeat,
    a re-initialization) yields the same values. TF1's class takes only ``seed``.

    >>> ds = tf.data.experimental.RandomDataset(seed=42).take(2)
    >>> nxt = ds.make_one_shot_iterator().get_next(); s = tf.Session()
    >>> int(s.run(nxt)), int(s.run(nxt))
    (2985944072, 4132877644)
    """

    def __init__(self, seed=None, rerandomize_each_iteration=None, name=None):
        # TF1's RandomDatasetV1.__init__ takes only `seed`; TF's signature shows the v2 one.
        for arg, value in (("rerandomize_each_iteration", rerandomize_each_iteration),
                           ("name", name)):
            if value is not None:
                raise TypeError(f"RandomDatasetV1.__init__() got an unexpected keyword "
                                f"argument '{arg}'")
        self._id = _node_id()
        self._seeds = _dataset_seeds(seed)
        self._structure = st.Spec(dtypes.int64, [])

    def _iterator(self, state, env):
        # A fixed seed generator: the seeds themselves (OS-random ones drawn once per
        # initialization when none are set), the same for every pass.
        table = env.table(self._id, SeedTable, lambda: SeedTable(
            *(self._seeds if self._seeds != (0, 0) else os_seeds())))
        return _RandomIterator(table.seed, table.seed2)


class _RandomIterator(PyIterator):
    def __init__(self, seed, seed2):
        self.seeds = (int(seed), int(seed2))
        self.rng = PhiloxWords(*self.seeds)

    def next(self):
        return [np.asarray(self.rng.next(), np.int64)]

    def get_state(self):
        return {"seeds": list(self.seeds), "drawn": self.rng.drawn}

    def set_state(self, state):
        self.seeds = (int(state["seeds"][0]), int(state["seeds"][1]))
        self.rng = PhiloxWords(*self.seeds, drawn=int(state["drawn"]))


# ── sample_from_datasets ─────────────────────────────────────────────────────────────
def _check_weights(datasets, weights):
    """``(datasets, logits)`` for weights given as a list or tensor: zero-weight datasets
    dropped from a list (all zero: an empty dataset), ``logits = [log(weights)]``."""
    if isinstance(weights, Tensor):
        if not weights.shape.is_compatible_with([len(datasets)]):
            raise ValueError("Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {weights.shape}.")
    else:
        if len(datasets) != len(weights):
            raise ValueError("Invalid `weights`. `weights` should have the same length as "
                             f"`datasets` but got `len(weights)={len(weights)}` vs. "
                             f"`len(datasets)={len(datasets)}`.")
        kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
        datasets, weights = ([d for d, _ in kept], [w for _, w in kept]) if kept else \
            ([datasets[0].take(0)], [1.0])
    weights = convert_to_tensor(weights, name="weights")
    if weights.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError("Invalid `weights`. `weights` type must be either `tf.float32` or "
                        f"`tf.float64` but is {weights.dtype}.")
    return datasets, array_ops.expand_dims(math_ops.log(weights, name="logits"), 0)


def _draw(logits, seed):
    """One index drawn from ``logits`` (``[1, n]``) by a stateless multinomial with
    ``seed`` (an int64 pair of the random dataset)."""
    return array_ops.squeeze(stateless_multinomial(logits, 1, seed=seed), axis=[0, 1])


@builds("sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """Elements of ``datasets``, each taken from dataset ``i`` with probability
    ``weights[i]`` (uniform when ``weights`` is None; ``weights`` may also be a dataset of
    weight vectors, one per element). Seeded, the choices are TF's.

    >>> ds = tf.data.experimental.sample_from_datasets(
    ...     [tf.data.Dataset.range(3), tf.data.Dataset.range(100, 103)], seed=1)
    """
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if isinstance(weights, Dataset):
        logits_ds = weights.map(lambda *p: math_ops.log(p, name="logits"))
        selector = Dataset.zip((logits_ds, RandomDataset(seed).batch(2))).map(_draw)
    else:
        if weights is None:
            logits = [[1.0] * len(datasets)]
        else:
            datasets, logits = _check_weights(datasets, weights)
        if len(datasets) == 1:
            return datasets[0]
        selector = RandomDataset(seed).batch(2).map(lambda s: _draw(logits, s))
    return _Choose(datasets, selector, stop_on_empty_dataset)


# ── rejection_resample ───────────────────────────────────────────────────────────────
def _acceptance_and_mixing(initial, target):
    """TF's acceptance probabilities ``a_i = (r_i - m) / (max r - m)`` with ``r = target /
    (initial + tiny)`` and the probability ``m = min r`` of taking an original element."""
    tiny = np.finfo(initial.dtype.as_numpy_dtype).tiny
    ratio = target / (initial + tiny)
    hi, lo = math_ops.reduce_max(ratio), math_ops.reduce_min(ratio)
    return (ratio - lo) / (hi - lo), lo


def _estimated_dist(target, class_values, batch=32, smoothing=10):
    """The class distribution estimated while the classes stream by: counts (starting at
    ``smoothing`` each) updated per batch of ``batch`` classes, each estimate repeated for
    the elements of its batch (TF's ``_estimate_initial_dist_ds``)."""
    num_classes = target.shape.as_tuple()[0] or array_ops.shape(target)[0]
    start = array_ops.fill([num_classes], np.int64(smoothing))

    def update(seen, c):
        seen = math_ops.add(seen, math_ops.reduce_sum(
            array_ops.one_hot(c, seen.shape.as_tuple()[0], dtype=dtypes.int64), 0))
        dist = math_ops.cast(math_ops.truediv(seen, math_ops.reduce_sum(seen)),
                             dtypes.float32)
        return seen, array_ops.tile(array_ops.expand_dims(dist, 0), [batch, 1])

    return class_values.batch(batch).apply(scan(start, update)).unbatch()


def _filtered(dataset, accept_ds, class_func, seed):
    """``(class, element)`` of the elements kept: each with its class's acceptance
    probability, by a seeded ``random_uniform`` per element."""
    def gather(accept, data):
        cls = class_func(*data) if isinstance(data, tuple) else class_func(data)
        return cls, array_ops.gather(accept, cls), data

    def keep(unused_cls, p, unused_data):
        return random_uniform([], seed=seed, dtype=p.dtype) < p

    zipped = Dataset.zip((accept_ds, dataset)).map(gather)
    return zipped.filter(keep).map(lambda cls, _, data: (cls, data))


def _resample(dataset, class_func, target_dist, initial_dist, seed):
    target = math_ops.cast(convert_to_tensor(target_dist, name="target_dist"),
                           dtypes.float32)
    static_original = None
    if initial_dist is not None:
        initial = math_ops.cast(convert_to_tensor(initial_dist, name="initial_dist"),
                                dtypes.float32)
        accept, original = _acceptance_and_mixing(initial, target)
        initial_ds = Dataset.from_tensors(initial).repeat()
        accept_ds = Dataset.from_tensors(accept).repeat()
        original_ds = Dataset.from_tensors(original).repeat()
        init_v, target_v = constant_value(initial), constant_value(target)
        if init_v is not None and target_v is not None:
            static_original = np.min(target_v / init_v)
    else:
        initial_ds = _estimated_dist(target, dataset.map(class_func))
        both = initial_ds.map(lambda init: _acceptance_and_mixing(init, target))
        accept_ds = both.map(lambda accept, _: accept)
        original_ds = both.map(lambda _, original: original)
    del initial_ds  # TF zips it in only to print a warning when most elements are rejected
    kept = _filtered(dataset, accept_ds, class_func, seed).prefetch(3)

    def with_class(*x):
        return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

    if static_original == 1:
        return dataset.map(with_class)
    if static_original == 0:
        return kept
    return sample_from_datasets([dataset.map(with_class), kept],
                                weights=original_ds.map(lambda p: [(p, 1.0 - p)]),
                                seed=seed, stop_on_empty_dataset=True)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation resampling a dataset toward the class distribution
    ``target_dist`` by rejection: it yields ``(class, element)`` pairs, some elements
    dropped. Without ``initial_dist`` the class distribution is estimated as the data
    streams by. For ``Dataset.apply``.
    """
    return lambda dataset: _resample(dataset, class_func, target_dist, initial_dist, seed)
