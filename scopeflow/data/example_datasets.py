"""``tf.data.experimental.parse_example_dataset`` and ``make_batched_features_dataset``:
batches of serialized ``tf.train.Example``s parsed into dicts of features.

TF parses with its ``ParseExampleDatasetV2`` op; here each batch goes through
``tf.io.parse_example`` (the same parser, the same values and errors) in a traced map, and
the element structure is TF's: ``{key: [batch] + shape}`` for every ``FixedLenFeature`` /
``FixedLenSequenceFeature`` (the batch dimension that of the input vectors).

scopeflow's datasets carry dense tensors only, so features that parse to a
``SparseTensor`` or ``RaggedTensor`` (``VarLenFeature``, ``SparseFeature``,
``RaggedFeature``) are refused with ``NotImplementedError``.
"""

from __future__ import annotations

from scopeflow.data import structure as st
from scopeflow.data import transformations
from scopeflow.data.dataset_ops import AUTOTUNE, Dataset
from scopeflow.data.sources import TFRecordDataset
from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.io.parsing_ops import FixedLenFeature, FixedLenSequenceFeature, parse_example
from scopeflow.ops.io.reader_ops import ReaderBase

__all__ = ["parse_example_dataset", "make_batched_features_dataset"]


def _check_input(dataset):
    spec = dataset._structure
    ok = isinstance(spec, st.Spec) and spec.dtype == dtypes.string and \
        spec.shape.is_compatible_with([None])
    if not ok:
        raise TypeError("Input dataset should be a dataset of vectors of strings. Instead it "
                        f"is `{dataset.element_spec}`.")


def _dense_only(features):
    for key in sorted(features):
        if not isinstance(features[key], (FixedLenFeature, FixedLenSequenceFeature)):
            raise NotImplementedError(
                f"parse_example_dataset: feature {key!r} is a "
                f"{type(features[key]).__name__}, which parses to a SparseTensor or "
                "RaggedTensor; scopeflow's datasets carry dense tensors only")


class _ParseExample(transformations._Map):
    """A map of ``parse_example`` over batches, its output shapes TF's: the batch
    dimension of the input's vectors before each feature's shape."""

    def __init__(self, input_dataset, features):
        keys = sorted(features)

        def parse(serialized):
            parsed = parse_example(serialized, features)
            return {k: parsed[k] for k in keys}

        super().__init__(input_dataset, parse)
        batch = input_dataset._structure.shape
        batch = batch if batch.ndims is not None else TensorShape([None])
        shapes = {}
        for k in keys:
            f = features[k]
            dims = list(f.shape) if isinstance(f, FixedLenFeature) else [None, *f.shape]
            shapes[k] = batch.concatenate(dims)
        self._structure = {k: st.Spec(s.dtype, shapes[k])
                           for k, s in self._structure.items()}


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation parsing a dataset of serialized ``Example`` vectors into dicts of
    features (``tf.io.parse_example`` per element), for ``Dataset.apply``."""
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def apply(dataset):
        _check_input(dataset)
        _dense_only(features)
        return _ParseExample(dataset, features)

    return apply


def _reader_dataset(file_pattern, reader, reader_args, shuffle, seed, cycle):
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=seed)
    if isinstance(reader, type) and issubclass(reader, ReaderBase):
        raise TypeError("The `reader` argument must return a `Dataset` object. "
                        "`tf.ReaderBase` subclasses are not supported. For example, pass "
                        "`tf.data.TFRecordDataset` instead of `tf.TFRecordReader`.")
    args = list(reader_args or [])
    # TF's parallel interleave of `cycle` files at a time, in order (sloppy or AUTOTUNE
    # orders are TF's nondeterministic choices; files are read in the deterministic one)
    dataset = files.interleave(lambda name: reader(name, *args),
                               cycle_length=1 if cycle == AUTOTUNE else cycle, block_length=1)
    if dataset.output_types == (dtypes.string, dtypes.string):
        dataset = dataset.map(lambda _, v: v)     # (key, value) readers: the values
    return dataset


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """Batches of ``Example`` records of the files matching ``file_pattern`` (TFRecord
    files unless ``reader`` says otherwise), parsed into dicts of ``features`` (and
    ``(features, label)`` with ``label_key``); files and records shuffled unless
    ``shuffle=False``; ``num_epochs=None`` repeats forever, each batch full."""
    reader = TFRecordDataset if reader is None else reader
    threads = 1 if reader_num_threads is None else reader_num_threads
    prefetch = AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size
    dataset = _reader_dataset(file_pattern, reader, reader_args, shuffle, shuffle_seed,
                              threads)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features))
    if label_key:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                             f"`features` keys: {features.keys()}.")
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(prefetch)
