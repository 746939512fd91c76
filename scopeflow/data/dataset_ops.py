"""``tf.data.Dataset`` in TF1 graph mode: the public class, and what its sources and
transformations share.

A Dataset is a description built while the graph is built: its element structure (nested
``Spec``s: ``output_types``/``output_shapes``), the graph tensors its pipeline needs
(``_captures``: source tensors, and the values the functions of ``map``/``filter``/...
capture), and how to make its run-time iterator (``_make_iterator(state, env)``, with
``env`` the ``pipeline.Env`` of an initialization: the captured values, taken when an
iterator is initialized). Functions are traced into the graph once (``data.functions``) and
run by their compiled sub-plans.

Each source and transformation is one block, its ``Dataset`` subclass and then its run-time
iterator: ``sources.py`` (tensors, ranges, generators, files), ``transformations.py``
(``map``, ``batch``, ``repeat``...) and ``buffers.py`` (``shuffle``, ``cache``,
``prefetch``).
"""

from __future__ import annotations

from scopeflow.data import iterator_ops
from scopeflow.data import pipeline as pl
from scopeflow.data import structure as st
from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.tensor_util import constant_value

__all__ = ["Dataset", "builds"]

AUTOTUNE = -1

# The class (or function) behind each of Dataset's sources and transformations, by method
# name. Each is one block in sources.py, transformations.py or buffers.py; they subclass
# Dataset, so they register here (``@builds("map")``) rather than being imported, and
# ``scopeflow.data``'s ``__init__`` imports them all before any Dataset can be made.
_BUILDERS: dict = {}


def builds(method: str):
    """Registers the decorated class or function as what ``Dataset.<method>`` makes."""
    def register(builder):
        _BUILDERS[method] = builder
        return builder
    return register


class Dataset(st.ElementDescription):
    """TF1's ``tf.data.Dataset``: ``from_tensor_slices(...).map(f).batch(32)`` and so on.

    >>> ds = tf.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
    >>> nxt = ds.make_one_shot_iterator().get_next()
    >>> s = tf.Session(); s.run(nxt).tolist(), s.run(nxt).tolist(), s.run(nxt).tolist()
    ([0, 2], [4, 6], [8])
    """

    _structure = None

    # -- what subclasses provide -----------------------------------------------------------
    def _captures(self) -> list:
        return []

    def _iterator(self, state, env: pl.Env) -> pl.PyIterator:
        raise NotImplementedError

    def _make_iterator(self, state, env) -> pl.PyIterator:
        """This dataset's run-time iterator in session ``state``. ``env`` is an
        initialization's ``Env`` (for a dataset a ``flat_map`` function returns, made per
        element, ``Env.for_element``), or a mapping of captured values."""
        return self._iterator(state, pl.Env.of(env))

    def __repr__(self):
        return (f"<{type(self).__name__} shapes: {self.output_shapes}, types: "
                f"{self.output_types}>")

    def __iter__(self):
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager "
                           "mode or within tf.function.")

    def as_numpy_iterator(self):
        """TF's: an iterator of NumPy elements, for eager mode only (graph mode has
        ``make_one_shot_iterator`` and a session)."""
        raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager "
                           "mode.")

    # -- iterators ------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        return iterator_ops.make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        return iterator_ops.make_initializable_iterator(self, shared_name)

    # -- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        if any(isinstance(x, Dataset) for x in st.flatten(tensors)):
            # slices of datasets batched (a list of datasets is one component, as in TF)
            return _BUILDERS["unbatch"](_BUILDERS["from_tensors_with_datasets"](tensors))
        return _BUILDERS["from_tensor_slices"](tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        if any(isinstance(x, Dataset) for x in st.flatten(tensors)):
            # an element holding datasets (``window_reduce``'s source)
            return _BUILDERS["from_tensors_with_datasets"](tensors)
        return _BUILDERS["from_tensors"](tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        return _BUILDERS["range"](args, output_type)

    @staticmethod
    def zip(datasets, name=None):
        return _BUILDERS["zip"](datasets)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        return _BUILDERS["from_generator"](generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        return _BUILDERS["list_files"](file_pattern, shuffle, seed)

    # TF 2.x's static forms of tf.data.experimental's sources, on TF1's Dataset too.
    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        if rerandomize_each_iteration:
            raise NotImplementedError(
                "tf.data.Dataset.random(rerandomize_each_iteration=True) (a new stream per "
                "epoch) is not implemented in scopeflow; leave it unset for TF1's "
                "RandomDataset, the same values every epoch")
        return _BUILDERS["random"](seed)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        if rerandomize_each_iteration:
            raise NotImplementedError(
                "tf.data.Dataset.sample_from_datasets(rerandomize_each_iteration=True) is "
                "not implemented in scopeflow")
        return _BUILDERS["sample_from_datasets"](datasets, weights, seed,
                                                 stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        return _BUILDERS["choose_from_datasets"](datasets, choice_dataset,
                                                 stop_on_empty_dataset)

    # -- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        del num_parallel_calls, deterministic, name  # elements are made in order, one at a time
        return _BUILDERS["map"](self, map_func)

    def filter(self, predicate, name=None):
        return _BUILDERS["filter"](self, predicate)

    def flat_map(self, map_func, name=None):
        return _BUILDERS["flat_map"](self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        del num_parallel_calls, deterministic, name
        return _BUILDERS["interleave"](self, map_func, cycle_length, block_length)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        del num_parallel_calls, deterministic, name  # batches are made in order
        return _BUILDERS["batch"](self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        return _BUILDERS["batch"](self, batch_size, drop_remainder, padded=(padded_shapes,
                                                                 padding_values))

    def unbatch(self, name=None):
        return _BUILDERS["unbatch"](self)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of the input as elements: each component becomes a dataset of ``size``
        elements, ``stride`` apart, a window starting every ``shift`` (default ``size``).

        >>> ds = tf.data.Dataset.range(5).window(2).flat_map(lambda w: w.batch(2))
        >>> nxt = ds.make_one_shot_iterator().get_next(); s = tf.Session()
        >>> [s.run(nxt).tolist() for _ in range(3)]
        [[0, 1], [2, 3], [4]]
        """
        return _BUILDERS["window"](self, size, shift, stride, drop_remainder)

    def reduce(self, initial_state, reduce_func, name=None):
        """The tensors ``reduce_func(state, element)`` leaves after the last element,
        starting from ``initial_state`` (one ``ReduceDataset`` op that runs the pipeline)."""
        return _BUILDERS["reduce"](self, initial_state, reduce_func)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        return _BUILDERS["shuffle"](self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        return _BUILDERS["repeat"](self, count)

    def take(self, count, name=None):
        return _BUILDERS["take"](self, count)

    def skip(self, count, name=None):
        return _BUILDERS["skip"](self, count)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index`` (TF's ``shard``: one
        worker's part of the data; both may be tensors, checked when the iterator starts).

        >>> ds = tf.data.Dataset.range(10).shard(3, 1)
        >>> nxt = ds.make_one_shot_iterator().get_next(); s = tf.Session()
        >>> [int(s.run(nxt)) for _ in range(3)]
        [1, 4, 7]
        """
        return _BUILDERS["shard"](self, num_shards, index)

    def concatenate(self, dataset, name=None):
        return _BUILDERS["concatenate"](self, dataset)

    def prefetch(self, buffer_size, name=None):
        return _BUILDERS["prefetch"](self, buffer_size)

    def cache(self, filename="", name=None):
        return _BUILDERS["cache"](self, filename)

    # TF 2.x's methods for tf.data.experimental's transformations (TF 2.21's compat.v1
    # Dataset has them); each is that transformation, applied.
    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """Groups elements by ``key_func``'s key into windows of ``window_size`` (or
        ``window_size_func(key)``) elements, each a dataset that ``reduce_func(key,
        window)`` makes into a dataset; their elements are the result's."""
        return self.apply(_BUILDERS["group_by_window"](key_func, reduce_func, window_size,
                                                       window_size_func))

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        return self.apply(_BUILDERS["bucket_by_sequence_length"](
            element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder))

    def scan(self, initial_state, scan_func, name=None):
        return self.apply(_BUILDERS["scan"](initial_state, scan_func))

    def take_while(self, predicate, name=None):
        return self.apply(_BUILDERS["take_while"](predicate))

    def ignore_errors(self, log_warning=False, name=None):
        return self.apply(_BUILDERS["ignore_errors"](log_warning))

    def unique(self, name=None):
        return self.apply(_BUILDERS["unique"]())

    def enumerate(self, start=0, name=None):
        return self.apply(_BUILDERS["enumerate"](start))

    def get_single_element(self, name=None):
        return _BUILDERS["get_single_element"](self)

    def cardinality(self):
        return _BUILDERS["cardinality"](self)

    @staticmethod
    def counter(start=0, step=1, dtype=dtypes.int64, name=None):
        return _BUILDERS["counter"](start, step, dtype)

    def apply(self, transformation_func):
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("`transformation_func` must return a Dataset. Got "
                            f"{type(result).__name__}.")
        return result

    def with_options(self, options):
        return self


# ── what sources and transformations share ──────────────────────────────────────────
def _unique(tensors):
    seen, out = set(), []
    for t in tensors:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _scalar_int(value, name):
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _static_int(value, name):
    if isinstance(value, Tensor):
        v = constant_value(value)
        if v is None:
            raise NotImplementedError(f"tf.data: a {name} computed at run time")
        return int(v)
    return int(value)


def _structure_like(packed, leaves):
    if st.is_sequence(packed):
        return st.pack(packed, leaves)
    return leaves[0]


def _flatten_up_to(structure, value):
    """``value``'s parts where ``structure`` has leaves (a leaf's part may itself be a list,
    a shape for instance); ``ValueError`` when they do not nest alike."""
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _flatten_up_to(structure[k], value[k])]
    if isinstance(structure, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{structure} and {value}")
        return [x for s, v in zip(structure, value) for x in _flatten_up_to(s, v)]
    return [value]


def _node_id():
    """A number for a dataset node, the same each time a program builds its graph: keys
    the run-time tables (a shuffle's pass count, a cache's elements) saved with an
    iterator's position."""
    graph = get_default_graph()
    n = getattr(graph, "_dataset_nodes", 0)
    graph._dataset_nodes = n + 1
    return n


class _Unary(Dataset):
    def __init__(self, input_dataset):
        self._id = _node_id()
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a Dataset, got {type(input_dataset).__name__}")
        self._input = input_dataset
        self._structure = input_dataset._structure

    def _captures(self):
        return self._input._captures()
