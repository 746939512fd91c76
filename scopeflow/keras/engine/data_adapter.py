"""What ``fit``/``evaluate``/``predict`` read when the data is not NumPy arrays: a
``tf.data`` dataset, a Python generator or ``keras.utils.Sequence``, or symbolic tensors.

Each is a *feed*: ``next_batch()`` gives one batch as NumPy values ``(x, y, sample_weight)``
(``None`` when the data ran out), ``new_pass()`` starts the data again where tf_keras's
graph-mode loops do (``training_arrays_v1`` for datasets and tensors, ``training_generator_v1``
for generators). A dataset is read through an initializable iterator made in the model's
graph and run in ``backend.get_session()``, one ``get_next`` per step, as tf_keras connects
it; symbolic tensors are evaluated once per step.
"""

from __future__ import annotations

import random
import weakref

import numpy as np

from scopeflow.data.dataset_ops import Dataset
from scopeflow.data.experimental_ops import INFINITE_CARDINALITY
from scopeflow.data.iterator_ops import Iterator
from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor
from scopeflow.keras import backend as K
from scopeflow.keras.utils import Sequence

__all__ = ["is_array_data", "make_feed", "unpack"]


def _is_generator(x):
    return hasattr(x, "__next__") and hasattr(x, "__iter__") and \
        not isinstance(x, (np.ndarray, list, tuple, dict))


def _is_symbolic(x):
    values = list(x.values()) if isinstance(x, dict) else \
        list(x) if isinstance(x, (list, tuple)) else [x]
    return bool(values) and all(isinstance(v, Tensor) for v in values)


def is_array_data(x):
    """True for NumPy-like data (arrays, lists or dicts of arrays): the sample-based loop."""
    return not (isinstance(x, (Dataset, Iterator, Sequence)) or _is_generator(x)
                or _is_symbolic(x))


def unpack(element, what="dataset"):
    """``(x, y, sample_weight)`` of one element: a 2- or 3-tuple, or the inputs alone."""
    if isinstance(element, (list, tuple)):
        if len(element) == 2:
            return element[0], element[1], None
        if len(element) == 3:
            return tuple(element)
        if what == "generator":
            raise ValueError("Output of generator should be a tuple `(x, y, sample_weight)` "
                             f"or `(x, y)`. Found: {element}")
        raise ValueError("Please provide model inputs as a list or tuple of 2 or 3 elements: "
                         "(input, target) or (input, target, sample_weights) Received "
                         f"{element}")
    return element, None, None


def _rows(x):
    first = x
    while isinstance(first, (dict, list, tuple)):
        first = list(first.values())[0] if isinstance(first, dict) else first[0]
    return int(np.shape(first)[0])


class _Feed:
    """One source of batches; ``steps`` is the number per pass (None: until it runs out)."""

    kind = "tensors"
    steps = None

    def __init__(self):
        self._peeked = None

    def peek(self):
        """The first batch, kept for the next ``next_batch``."""
        if self._peeked is None:
            self._peeked = self._fetch()
        return self._peeked

    def next_batch(self):
        batch, self._peeked = self._peeked, None
        return batch if batch is not None else self._fetch()

    def new_pass(self, restart=False):
        """Starts the next pass: a dataset's iterator starts again when its steps were
        counted (or ``restart``), a ``Sequence`` always, a generator goes on."""

    def end_epoch(self):
        """Called after each training epoch (``Sequence.on_epoch_end``)."""

    def log_size(self, batch):
        """The ``size`` of the batch logs: 1 per step, the rows for generators (tf_keras)."""
        return 1

    def _fetch(self):
        raise NotImplementedError


_DATASET_OPS = weakref.WeakKeyDictionary()


def _dataset_ops(graph, dataset, role):
    """``(cardinality, iterator, get_next)`` of ``dataset`` in ``graph``, made once per
    ``role`` (the training data and the validation data of one ``fit`` may be the same
    dataset, read by two iterators): each ``fit``/``evaluate``/``predict`` re-initializes
    the iterator (the data starts again, as with tf_keras's new iterator per call) instead
    of growing the graph."""
    made = _DATASET_OPS.setdefault(dataset, {})
    if (graph, role) not in made:
        with graph.as_default():
            iterator = dataset.make_initializable_iterator()
            made[graph, role] = (dataset.cardinality(), iterator, iterator.get_next())
    return made[graph, role]


class DatasetFeed(_Feed):
    """A ``tf.data.Dataset`` read in the session through an initializable iterator."""

    kind = "dataset"

    def __init__(self, model_graph, dataset, steps, steps_name, role="data"):
        super().__init__()
        # tf_keras starts a dataset again each epoch only when it counted the steps itself.
        self.reset_each_epoch = steps is None
        cardinality, self._iterator, self._next = _dataset_ops(model_graph, dataset, role)
        if steps is None:
            size = int(K.get_session().run(cardinality))
            if size == INFINITE_CARDINALITY:
                raise ValueError("When passing an infinitely repeating dataset, you must "
                                 f"specify the `{steps_name}` argument.")
            steps = size if size >= 0 else None
        self.steps = steps
        K.get_session().run(self._iterator.initializer)

    def new_pass(self, restart=False):
        if restart or self.reset_each_epoch:
            self._peeked = None
            K.get_session().run(self._iterator.initializer)

    def _fetch(self):
        try:
            return unpack(K.get_session().run(self._next))
        except errors.OutOfRangeError:
            return None


class GeneratorFeed(_Feed):
    """A Python generator, or a ``keras.utils.Sequence`` (its batches in order, shuffled
    per epoch when ``shuffle``)."""

    kind = "generator"

    def __init__(self, data, steps, steps_name, shuffle=False):
        super().__init__()
        self._sequence = data if isinstance(data, Sequence) else None
        self._shuffle = shuffle
        if steps is None:
            if self._sequence is None:
                raise ValueError("Please specify the number of steps via the "
                                 f"`{steps_name}` argument.")
            steps = len(self._sequence)
        self.steps = steps
        self._iterator = None
        self.new_pass()

    def new_pass(self, restart=False):
        if self._sequence is None:
            if self._iterator is None:
                self._iterator = self._data_iterator()
            return
        self._peeked = None
        order = list(range(len(self._sequence)))
        if self._shuffle:
            random.shuffle(order)
        self._iterator = (self._sequence[i] for i in order)

    def _data_iterator(self):
        raise NotImplementedError

    def end_epoch(self):
        if self._sequence is not None:
            self._sequence.on_epoch_end()

    def log_size(self, batch):
        return _rows(batch[0])

    def _fetch(self):
        try:
            element = next(self._iterator)
        except StopIteration:
            return None
        return unpack(element, "generator")


class _PlainGeneratorFeed(GeneratorFeed):
    def __init__(self, generator, steps, steps_name):
        self._generator = generator
        super().__init__(generator, steps, steps_name)

    def _data_iterator(self):
        return self._generator


class TensorFeed(_Feed):
    """Symbolic tensors (``fit(x=tensor, y=tensor, steps_per_epoch=...)``), evaluated in
    the session once per step; or NumPy arrays given with ``steps``, whole each step."""

    def __init__(self, x, y, sample_weight, steps, steps_name):
        super().__init__()
        if steps is None:
            raise ValueError("When using data tensors as input to a model, you should specify "
                             f"the `{steps_name}` argument.")
        self.steps = steps
        self._tensors = (x, y, sample_weight)

    def _fetch(self):
        x, y, w = self._tensors
        if not _is_symbolic(x):
            return x, y, w     # NumPy arrays with ``steps``: all of them, each step
        fetches = {"x": x}
        if y is not None:
            fetches["y"] = y
        if w is not None:
            fetches["w"] = w
        values = K.get_session().run(fetches)
        return values["x"], values.get("y"), values.get("w")


def _check_no_extras(x, y, sample_weight, validation_split):
    """tf_keras's errors for arguments a dataset or generator carries itself."""
    if isinstance(x, Dataset):
        if y is not None:
            raise ValueError(f"You passed a dataset or dataset iterator ({x}) as input `x` to "
                             "your model. In that case, you should not specify a target "
                             "(`y`) argument, since the dataset or dataset iterator generates "
                             f"both input data and target data. Received: {y}")
        if sample_weight is not None:
            raise ValueError("`sample_weight` argument is not supported when input `x` is a "
                             "dataset or a dataset iterator. Instead, you can provide "
                             "sample_weight as the third element of your dataset, i.e. "
                             "(inputs, targets, sample_weight).")
        if validation_split:
            raise ValueError("`validation_split` argument is not supported when input `x` is "
                             f"a dataset or a dataset iterator. Received: x={x}, "
                             f"validation_split={validation_split:f}")
    elif isinstance(x, Sequence) or _is_generator(x):
        if y is not None:
            raise ValueError("`y` argument is not supported when data isa generator or "
                             "Sequence instance. Instead pass targets as the second element "
                             "of the generator.")
        if sample_weight is not None:
            raise ValueError("`sample_weight` argument is not supported when data isa "
                             "generator or Sequence instance. Instead pass sample weights as "
                             "the third element of the generator.")
        if validation_split:
            raise ValueError("If your data is in the form of a Python generator, you cannot "
                             "use `validation_split`.")


def make_feed(graph, x, y=None, sample_weight=None, steps=None, steps_name="steps",
              shuffle=False, validation_split=0.0):
    """The feed for ``x`` (a dataset, generator, ``Sequence`` or tensors)."""
    if isinstance(x, Iterator):
        raise ValueError("For performance reasons TF-Keras `fit`, `evaluate` and`predict` "
                         "accept tf.data `Datasets` as input but not iterators that have been "
                         "manually generated from Datasets by users. Please directly pass in "
                         "the original `Dataset` object instead of passing in `iter(dataset)`.")
    _check_no_extras(x, y, sample_weight, validation_split)
    if isinstance(x, Dataset):
        return DatasetFeed(graph, x, steps, steps_name, steps_name)
    if isinstance(x, Sequence):
        return GeneratorFeed(x, steps, steps_name, shuffle=shuffle)
    if _is_generator(x):
        return _PlainGeneratorFeed(x, steps, steps_name)
    if validation_split:
        raise NotImplementedError("fit(validation_split=...) with tensors or with "
                                  "steps_per_epoch is not implemented in scopeflow's tf.keras")
    return TensorFeed(x, y, sample_weight, steps, steps_name)
