"""TF1's queue-based input pipelines: producers (``string_input_producer``,
``slice_input_producer``, ``range_input_producer``, ``input_producer``) and batchers
(``batch``, ``shuffle_batch``, ``batch_join``, ``shuffle_batch_join``, ``maybe_*``).

Each is built as TF1's ``training/input.py`` builds it, op for op and name for name: a
queue, the enqueue ops a ``QueueRunner`` runs in its threads (added to the graph's
``QUEUE_RUNNERS``), a summary of the queue's fullness, and the dequeue the caller reads.
``num_epochs`` counts with a local variable ``epochs`` (``limit_epochs``), so run
``tf.local_variables_initializer()`` first; when the epochs are done the producer's queue
is closed and, once drained, every dequeue downstream raises ``OutOfRangeError``.
"""

from __future__ import annotations

from scopeflow import summary
from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    GraphKeys,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from scopeflow.framework.tensor_shape import TensorShape, as_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.stitch_ops import dynamic_partition
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.control_flow_ops import no_op
from scopeflow.ops.data_flow.queue_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    RandomShuffleQueue,
    count_up_to,
)
from scopeflow.ops.io.reader_ops import matching_files
from scopeflow.ops.logging.logging_ops import Assert
from scopeflow.ops.random.random_ops import random_shuffle
from scopeflow.state.variables import Variable
from scopeflow.train.queue_runner import QueueRunner, add_queue_runner

__all__ = ["match_filenames_once", "limit_epochs", "input_producer", "string_input_producer",
           "range_input_producer", "slice_input_producer", "batch", "maybe_batch",
           "batch_join", "maybe_batch_join", "shuffle_batch", "maybe_shuffle_batch",
           "shuffle_batch_join", "maybe_shuffle_batch_join"]


# ── Producers ────────────────────────────────────────────────────────────────────────
def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching the glob ``pattern``, sorted (listed
    when the variable is initialized)."""
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return Variable(name=name, initial_value=matching_files(pattern), trainable=False,
                        validate_shape=False, collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """``tensor``, until it has been evaluated ``num_epochs`` times; then
    ``OutOfRangeError`` (counted in the local variable ``epochs``)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(zero64, name="epochs", trainable=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return array_ops.identity(tensor, name=name)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFO queue fed with the rows of ``input_tensor`` (shuffled each epoch when
    ``shuffle``), by a ``QueueRunner``; returns the queue."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = TensorShape(input_tensor.shape.as_list()[1:]
                                    if input_tensor.shape.ndims is not None else None) \
            .merge_with(as_shape(element_shape) if element_shape is not None
                        else TensorShape(None))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                      shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary.scalar(summary_name,
                           math_ops.cast(q.size(), dtypes.float32) * (1. / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the strings of ``string_tensor`` (file names), for a reader."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([Assert(math_ops.greater(array_ops.size(string_tensor), 0),
                                          [not_null_err])]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, shuffle=shuffle, seed=seed,
                              num_epochs=num_epochs, capacity=capacity,
                              shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 to ``limit - 1``."""
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = math_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", name)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row of each tensor of ``tensor_list`` at a time (the same row of each)."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# ── Batching helpers (TF's, by name) ─────────────────────────────────────────────────
def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            tensor_list = [tensor_list]  # one component comes back as a tensor
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors, key=str))}
    return tensor_list


def _to_tensors(tensor_list):
    out = []
    for t in tensor_list:
        if not isinstance(t, Tensor) and hasattr(t, "indices") and hasattr(t, "dense_shape"):
            raise TypeError("scopeflow's batching queues take dense tensors; convert "
                            f"{t!r} with tf.sparse_tensor_to_dense first")
        out.append(convert_to_tensor(t))
    return out


def _validate(tensor_list):
    tensor_list = _to_tensors(tensor_list)
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    tensor_list_list = [_to_tensors(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other_types in all_types[1:]:
        if other_types != types:
            raise TypeError(f"Expected types to be consistent: "
                            f"{', '.join(x.name for x in types)} vs. "
                            f"{', '.join(x.name for x in other_types)}.")
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [TensorShape(s.with_rank_at_least(1).as_list()[1:]) for s in shape_list]
    return shape_list[0].as_list()  # TF merges the others but keeps the first's


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        len0 = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(len0):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list],
                                enqueue_many) for i in range(len0)]
    return shapes


def _select_which_to_enqueue(tensor_list, keep_input):
    select_i = math_ops.cast(keep_input, dtypes.int32)
    return [dynamic_partition(x, select_i, num_partitions=2)[1] for x in tensor_list]


def _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input):
    """One enqueue op per tensor list, enqueueing only where ``keep_input`` holds."""
    ops = []
    for tl in tensor_list_list:
        if keep_input.shape.ndims == 1:
            ops.append(queue.enqueue_many(_select_which_to_enqueue(tl, keep_input)))
            continue
        keep = constant_value(keep_input)
        if keep is not None:  # TF's smart_cond: decided now
            ops.append(queue.enqueue_many(tl) if enqueue_many and keep else
                       queue.enqueue(tl) if keep else no_op())
            continue
        # A run-time scalar: enqueue the element (or all of them) or nothing, by
        # partitioning a batch of one.
        if enqueue_many:
            n = array_ops.shape(tl[0])[0]
            keep_v = array_ops.fill(array_ops.expand_dims(n, 0), keep_input)
            ops.append(queue.enqueue_many(_select_which_to_enqueue(tl, keep_v)))
        else:
            batch1 = [array_ops.expand_dims(t, 0) for t in tl]
            ops.append(queue.enqueue_many(_select_which_to_enqueue(
                batch1, array_ops.reshape(keep_input, [1]))))
    return ops


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    ops = _enqueue_ops(queue, [tensor_list], enqueue_many, keep_input) * threads
    add_queue_runner(QueueRunner(queue, ops))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, tensor_list_list, enqueue_many,
                                                     keep_input)))


def _which_queue(dynamic_pad):
    return PaddingFIFOQueue if dynamic_pad else FIFOQueue


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _fraction_full(queue, capacity):
    summary.scalar(f"fraction_of_{capacity}_full",
                   math_ops.cast(queue.size(), dtypes.float32) * (1. / capacity))


def _fraction_over(queue, capacity, min_after_dequeue):
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue),
                         dtypes.float32) * (1. / (capacity - min_after_dequeue))
    summary.scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full",
                   full)


def _flatten(tensor_list_list):
    return [t for tl in tensor_list_list for t in tl]


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
           name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, dequeued)


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", _flatten(tensor_list_list) + [keep_input]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                   num_threads=1, seed=None, enqueue_many=False, shapes=None,
                   allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                        seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "shuffle_batch_join",
                    _flatten(tensor_list_list) + [keep_input]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], dequeued)


# ── The public batchers ──────────────────────────────────────────────────────────────
def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` of ``tensors`` (a list or dict), in order, from a FIFO
    queue filled by ``num_threads`` threads."""
    return _batch(tensors, batch_size, keep_input=True, num_threads=num_threads,
                  capacity=capacity, enqueue_many=enqueue_many, shapes=shapes,
                  dynamic_pad=dynamic_pad, allow_smaller_final_batch=allow_smaller_final_batch,
                  shared_name=shared_name, name=name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch``, enqueueing only the elements for which ``keep_input`` is true."""
    return _batch(tensors, batch_size, keep_input, num_threads=num_threads, capacity=capacity,
                  enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                  allow_smaller_final_batch=allow_smaller_final_batch,
                  shared_name=shared_name, name=name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from several lists of tensors, one enqueueing thread each."""
    return _batch_join(tensors_list, batch_size, keep_input=True, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                       allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    return _batch_join(tensors_list, batch_size, keep_input, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                       allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches in a random order, from a ``RandomShuffleQueue`` that keeps at least
    ``min_after_dequeue`` elements to mix until the input ends."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input=True,
                          num_threads=num_threads, seed=seed, enqueue_many=enqueue_many,
                          shapes=shapes, allow_smaller_final_batch=allow_smaller_final_batch,
                          shared_name=shared_name, name=name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads=num_threads, seed=seed, enqueue_many=enqueue_many,
                          shapes=shapes, allow_smaller_final_batch=allow_smaller_final_batch,
                          shared_name=shared_name, name=name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """``shuffle_batch`` from several lists of tensors, one enqueueing thread each."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input=True, seed=seed, enqueue_many=enqueue_many,
                               shapes=shapes,
                               allow_smaller_final_batch=allow_smaller_final_batch,
                               shared_name=shared_name, name=name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input, seed=seed, enqueue_many=enqueue_many, shapes=shapes,
                               allow_smaller_final_batch=allow_smaller_final_batch,
                               shared_name=shared_name, name=name)
