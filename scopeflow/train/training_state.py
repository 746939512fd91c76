"""Exact resume: the training state a checkpoint can carry beside the variables.

A TF1 checkpoint holds variables, optimizer slots and ``global_step``; a run restored from
it still differs from an uninterrupted one, because every random op (dropout, a sampled
loss) starts its stream over and the input pipeline starts its epoch over. With
``tf.train.Saver(training_state=True)`` (on by default in ``MonitoredTrainingSession``
and the main job) the checkpoint also carries, as one more ordinary bundle entry (a string
scalar under :data:`KEY`, which real TensorFlow reads or ignores like any other):

* every random op's stream position in the session (its Philox key and counter);
* every ``tf.data`` iterator's position (shuffle buffers and their generators included);
* the state of registered Python objects: the MNIST ``DataSet``\\ s of ``read_data_sets``
  (permutation, index, epoch, and NumPy's global generator, which TF1's ``DataSet``
  shuffles with), and anything a user adds with :func:`add_training_state`.

The protocol for user objects is two methods::

    class Curriculum:
        def get_state(self):          # JSON-like values: dicts with str keys, lists,
            return {"level": self.level}  # numbers, strings, bytes, NumPy arrays
        def set_state(self, state):
            self.level = state["level"]

    tf.train.add_training_state(curriculum, name="curriculum")

Restoring a checkpoint without the entry (one TensorFlow wrote, or a plain Saver's)
restores the variables and leaves the rest as it is, with a log message.
"""

from __future__ import annotations

import json
import logging

import numpy as np

from scopeflow.data import iterator_ops, iterator_state
from scopeflow.framework import errors
from scopeflow.framework.graph import get_default_graph
from scopeflow.ops import array_ops

__all__ = ["KEY", "COLLECTION", "add_training_state", "training_state_objects",
           "TrainingStateSaveable", "capture", "apply"]

_log = logging.getLogger("scopeflow.train")

KEY = "_scopeflow/training_state"
COLLECTION = "scopeflow_training_state"
FORMAT = "scopeflow-training-state/1"


class _Registered:
    __slots__ = ("name", "obj")

    def __init__(self, name, obj):
        self.name, self.obj = name, obj


def add_training_state(obj, name=None, graph=None, *, make_unique=False) -> str:
    """Saves ``obj``'s state (``obj.get_state()``, restored by ``obj.set_state(state)``) in
    the checkpoints of training-state savers of ``graph`` (default: the default graph).

    ``name`` keys it in the checkpoint (default: its class name, made unique); returns the
    name used. Adding the same object again returns its existing name. A ``name`` already
    taken is a ``ValueError``, unless ``make_unique`` (then ``name_1``, ``name_2``...).
    """
    if not (callable(getattr(obj, "get_state", None)) and
            callable(getattr(obj, "set_state", None))):
        raise TypeError(f"add_training_state needs an object with get_state() and "
                        f"set_state(state) methods, got {type(obj).__name__}")
    graph = graph or get_default_graph()
    entries = graph.get_collection_ref(COLLECTION)
    for e in entries:
        if e.obj is obj:
            return e.name
    taken = {e.name for e in entries}
    base = name or type(obj).__name__
    if name is not None and name in taken and not make_unique:
        raise ValueError(f"A training state named {name!r} is already registered")
    unique, i = base, 0
    while unique in taken:
        i += 1
        unique = f"{base}_{i}"
    entries.append(_Registered(unique, obj))
    return unique


def training_state_objects(graph=None) -> dict:
    """``{name: object}`` registered with :func:`add_training_state` in ``graph``."""
    graph = graph or get_default_graph()
    return {e.name: e.obj for e in graph.get_collection(COLLECTION)}


def _graph_iterators(graph) -> dict:
    """``{op name: (resource name, datasets)}`` of every ``tf.data`` iterator in ``graph``
    (the op name is stable from run to run, the resource name is not): a one-shot
    iterator's dataset, or those its initializers (``MakeIterator``) start it on."""
    found: dict = {}
    makers: dict = {}
    for op in graph.get_operations():
        if op.type == "IteratorV2":
            one_shot = op.get_attr("one_shot")
            found[op] = ((one_shot,) if one_shot is not None else ())
        elif op.type == "MakeIterator":
            makers.setdefault(op.inputs[0].op, []).append(op.get_attr("dataset"))
    out = {}
    for op, datasets in found.items():
        out[op.name] = (op.get_attr("shared_name"), tuple(datasets) + tuple(makers.get(op, ())))
    return out


class _Run:
    """What the iterator (de)serialization kernels use of a run: the session state."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state


def capture(sess, graph=None) -> bytes:
    """The session's training state now, as the bytes the checkpoint entry holds."""
    graph = graph or sess.graph
    state = sess._state
    streams = {name: s.position() for name, s in list(state.rngs.items())
               if hasattr(s, "position")}
    streams.update(state.pending_rngs)
    run = _Run(state)
    iterators = {}
    for name, (resource, datasets) in _graph_iterators(graph).items():
        if resource in state.resources:
            value = iterator_ops._serialize_kernel(run, resource.encode(), datasets=datasets)
            iterators[name] = bytes(np.asarray(value, dtype=object).reshape(-1)[0])
    objects = {}
    for name, obj in training_state_objects(graph).items():
        objects[name] = obj.get_state()
    doc = {"random_streams": {k: [hex(key), hex(counter)] for k, (key, counter)
                              in sorted(streams.items())},
           "iterators": iterators, "objects": objects}
    return json.dumps({"format": FORMAT, "state": iterator_state._encode(doc)}).encode()


def _load(data) -> dict:
    try:
        state = iterator_state.decode_document(data, FORMAT)
        if not isinstance(state, dict):
            raise ValueError("not a dict")
        for key in ("random_streams", "iterators", "objects"):
            if not isinstance(state.get(key), dict):
                raise ValueError(f"no {key}")
        return state
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise errors.DataLossError(
            None, None, f"The checkpoint's training state ({KEY}) is damaged: {e}") from None


def apply(sess, data, graph=None):
    """Puts the session (random streams, iterators) and the registered objects back to the
    state ``capture`` recorded."""
    graph = graph or sess.graph
    doc = _load(data)
    state = sess._state
    try:
        saved = {name: (int(k, 16), int(c, 16)) for name, (k, c)
                 in doc["random_streams"].items()}
        for name, (key, counter) in saved.items():
            if not (0 <= key < 2 ** 64 and 0 <= counter < 2 ** 128):
                raise ValueError(f"{name}: key or counter out of range")
    except (TypeError, ValueError) as e:
        raise errors.DataLossError(
            None, None, f"The checkpoint's training state ({KEY}) is damaged: bad random "
            f"stream position ({e})") from None
    # Streams the saved run had not started yet start fresh here too (seeded ones replay).
    for name in [n for n in state.rngs if n not in saved]:
        del state.rngs[name]
    state.pending_rngs.clear()
    for name, position in saved.items():
        stream = state.rngs.get(name)
        if stream is not None:
            stream.set_position(*position)
        else:
            state.pending_rngs[name] = position
    run = _Run(state)
    known = _graph_iterators(graph)
    for name, blob in doc["iterators"].items():
        if name not in known:
            _log.warning("The checkpoint's training state has iterator %s, which this graph "
                         "lacks; ignored", name)
            continue
        resource, datasets = known[name]
        iterator_ops._deserialize_kernel(run, resource.encode(), np.asarray(blob, dtype=object),
                                         datasets=datasets)
    objects = training_state_objects(graph)
    for name, obj in objects.items():
        if name in doc["objects"]:
            try:
                obj.set_state(doc["objects"][name])
            except (ValueError, KeyError, TypeError, IndexError) as e:
                raise errors.DataLossError(
                    None, None, f"The checkpoint's training state ({KEY}) is damaged: the "
                    f"state of {name} does not fit it ({type(e).__name__}: {e})") from None
        else:
            _log.warning("The checkpoint's training state has no state for %s; it keeps "
                         "its current state", name)


class TrainingStateSaveable(iterator_ops.StringEntrySaveable):
    """The training-state entry of a Saver: saved from a fed string, restored in Python
    (by ``Saver.restore``, after the variables), and optional there: a checkpoint
    without it restores the variables alone."""

    restore_in_graph = False

    def __init__(self, name=KEY):
        self.name = name
        # Empty unless Saver.save feeds the captured state: a save op run by hand (TF's
        # way, sess.run(saver_def.save_tensor_name)) writes an empty entry, which restores
        # as "no training state".
        self.tensor = array_ops.placeholder_with_default(
            np.asarray(b"", dtype=object), shape=[], name="training_state")

    def restore(self, restored, shape=None):
        raise AssertionError("the training state is restored by Saver.restore, in Python")
