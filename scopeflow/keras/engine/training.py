"""Keras's ``Model``: a ``Network`` with a training loop, as tf_keras's graph-mode (v1) loop
builds and runs it.

``compile`` makes one target placeholder per output (``dense_1_target``) and a sample-weight
placeholder, the total loss (each output's loss, weighted per sample and averaged over the
batch's elements, times its ``loss_weights``, plus the layers' losses) in ``loss/``, and the
metrics in ``metrics/``; the first ``fit`` builds the optimizer's updates in ``training/``.
``fit``/``evaluate``/``predict`` slice NumPy arrays into batches and run them in
``backend.get_session()`` (feeding ``keras_learning_phase`` ``True`` while training); the
epoch values are sample-weighted means over the batches, as tf_keras reports them.
"""

from __future__ import annotations

import json
import os

import numpy as np

from scopeflow.framework.graph import name_scope
from scopeflow.keras import backend as K
from scopeflow.keras import callbacks as cbks
from scopeflow.keras import layers as layers_module
from scopeflow.keras import losses as losses_module
from scopeflow.keras import metrics as metrics_module
from scopeflow.keras import optimizers
from scopeflow.keras.engine import data_adapter
from scopeflow.keras.engine.input_layer import Input
from scopeflow.keras.engine.keras_tensor import get_mask
from scopeflow.keras.engine.network import Network
from scopeflow.keras.utils import saving_utils
from scopeflow.keras.utils.generic_utils import Progbar
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.platform import tf_logging as logging

__all__ = ["Model"]

_METRIC_NAMES = {"accuracy": "acc", "acc": "acc", "mse": "mean_squared_error",
                 "mae": "mean_absolute_error", "mape": "mean_absolute_percentage_error",
                 "msle": "mean_squared_logarithmic_error", "crossentropy": "ce", "ce": "ce"}


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _batches(size, batch_size):
    num = int(np.ceil(size / float(batch_size)))
    return [(i * batch_size, min(size, (i + 1) * batch_size)) for i in range(num)]


def _slice(arrays, ids):
    return [None if a is None else a[ids] for a in arrays]


class _FitRun:
    """The settings of one ``fit`` that its loops share."""

    def __init__(self, epochs, verbose, callbacks, initial_epoch, validation_freq, batch_size,
                 class_weight):
        self.epochs, self.verbose, self.callbacks = epochs, verbose, callbacks
        self.initial_epoch, self.validation_freq = initial_epoch, validation_freq
        self.batch_size, self.class_weight = batch_size, class_weight


def _validation_tuple(validation_data):
    """``(x, y, sample_weight)`` of ``validation_data`` (2 or 3 items)."""
    if len(validation_data) == 2:
        return validation_data[0], validation_data[1], None
    if len(validation_data) == 3:
        return tuple(validation_data)
    raise ValueError("When passing validation_data, it must contain 2 (x_val, y_val) or 3 "
                     "(x_val, y_val, val_sample_weights) items, however it contains "
                     f"{len(validation_data)} items")


def _should_validate(validation_freq, epoch):
    """tf_keras's rule: every ``validation_freq`` epochs, or the epochs (1-based) listed."""
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError("`validation_freq` can not be less than 1.")
        return (epoch + 1) % validation_freq == 0
    return epoch + 1 in validation_freq


class Model(Network):
    """``Model(inputs, outputs)`` or a subclass with ``call``; ``compile``, ``fit``,
    ``evaluate``, ``predict`` and the ``*_on_batch`` methods.

    >>> x = tf.keras.Input((3,))
    >>> model = tf.keras.Model(x, tf.keras.layers.Dense(1)(x))
    >>> model.compile("sgd", "mse")
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.optimizer = None
        self.stop_training = False
        self.history = None
        self._compiled = False
        self._train_function = self._test_function = self._predict_function = None

    # ── compile ───────────────────────────────────────────────────────────────────────
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                **kwargs):
        """Builds the loss, metrics and placeholders in the model's graph."""
        if kwargs:
            raise TypeError(f"Invalid keyword argument(s) in `compile`: {sorted(kwargs)}")
        if sample_weight_mode is not None:
            raise NotImplementedError("compile(sample_weight_mode=...) is not implemented in "
                                      "scopeflow's tf.keras")
        if target_tensors is not None:
            raise NotImplementedError("compile(target_tensors=...) is not implemented in "
                                      "scopeflow's tf.keras")
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._compile_metrics = metrics
        self._compile_weighted_metrics = weighted_metrics
        self.loss_weights = loss_weights
        self._compiled = True
        self._train_function = self._test_function = None
        if self.outputs:
            self._compile_graph()

    def _loss_functions(self):
        loss = self.loss
        if isinstance(loss, dict):
            for name in loss:
                if name not in self.output_names:
                    raise ValueError(f"Unknown entries in loss dictionary: ['{name}']. Only "
                                     f"expected following keys: {self.output_names}")
            return [losses_module.get(loss.get(name)) for name in self.output_names]
        if isinstance(loss, (list, tuple)):
            if len(loss) != len(self.outputs):
                raise ValueError(f"When passing a list as loss, it should have one entry per "
                                 f"model outputs. The model has {len(self.outputs)} outputs, "
                                 f"but you passed loss={loss}")
            return [losses_module.get(fn) for fn in loss]
        return [losses_module.get(loss) for _ in self.outputs]

    def _per_output(self, spec):
        if isinstance(spec, dict):
            return [_as_list(spec.get(name)) for name in self.output_names]
        spec = _as_list(spec)
        if spec and isinstance(spec[0], (list, tuple)):
            return [list(s) for s in spec]
        return [list(spec) for _ in self.outputs]

    def _compile_graph(self):
        """The targets' placeholders, the total loss in ``loss/`` and the metrics in
        ``metrics/``, in that order (the graph's names follow tf_keras's)."""
        with self.outputs[0].graph.as_default():
            self._loss_fns = self._loss_functions()
            self._compile_placeholders()
            with name_scope("loss"):
                self.total_loss = self._compile_total_loss()
            self._compile_metric_tensors()

    def _compile_placeholders(self):
        """One target placeholder (``dense_1_target``) and one sample-weight placeholder
        (ones by default) per output that has a loss."""
        self._targets, self._sample_weights = [], []
        for output, name, fn in zip(self.outputs, self.output_names, self._loss_fns):
            if fn is None:
                self._targets.append(None)
                self._sample_weights.append(None)
                continue
            target = K.placeholder(ndim=output.shape.ndims, name=f"{name}_target",
                                   dtype=output.dtype.base_dtype)
            self._targets.append(target)
            self._sample_weights.append(array_ops.placeholder_with_default(
                constant([1.0], dtype=K.floatx()), shape=[None],
                name=f"{name}_sample_weights"))

    def _loss_weight_list(self):
        if self.loss_weights is None:
            return [1.0] * len(self.outputs)
        if isinstance(self.loss_weights, dict):
            return [self.loss_weights.get(n, 1.0) for n in self.output_names]
        return list(self.loss_weights)

    def _compile_total_loss(self):
        """Each output's weighted loss times its ``loss_weights``, plus the layers' losses."""
        weights = self._loss_weight_list()
        total = None
        self._output_losses = []
        for i, (output, name, fn) in enumerate(zip(self.outputs, self.output_names,
                                                   self._loss_fns)):
            if fn is None:
                self._output_losses.append(None)
                continue
            with name_scope(f"{name}_loss"):
                value = self._weighted_loss(fn, self._targets[i], output,
                                            self._sample_weights[i], get_mask(output))
            self._output_losses.append(value)
            term = value if weights[i] == 1.0 else value * weights[i]
            total = term if total is None else total + term
        if total is None:
            raise ValueError("The model cannot be compiled because it has no loss to "
                             "optimize.")
        extra = self.losses
        if extra:
            total = total + math_ops.add_n([math_ops.cast(x, total.dtype.base_dtype)
                                            for x in extra])
        return total

    def _compile_metric_tensors(self):
        """``metrics_names`` (the loss, each output's loss when several, the metrics) and
        the metrics' tensors, in ``metrics/``."""
        self._metric_tensors, self.metrics_names = [], ["loss"]
        if len(self.outputs) > 1:
            self.metrics_names += [f"{n}_loss" for n, fn in
                                   zip(self.output_names, self._loss_fns) if fn is not None]
        per_output = self._per_output(self._compile_metrics)
        with name_scope("metrics"):
            for i, (output, name) in enumerate(zip(self.outputs, self.output_names)):
                if self._targets[i] is None:
                    continue
                for metric in per_output[i]:
                    fn, metric_name = self._metric_function(metric, output, i)
                    with name_scope(metric_name):
                        value = math_ops.reduce_mean(fn(self._targets[i], output))
                    self._metric_tensors.append(value)
                    self.metrics_names.append(metric_name if len(self.outputs) == 1
                                              else f"{name}_{metric_name}")

    def _weighted_loss(self, fn, target, output, sample_weight, mask):
        losses = fn(target, output)
        weights = sample_weight
        rank = losses.shape.ndims
        if rank is not None and rank > 1:
            weights = array_ops.reshape(weights, [-1] + [1] * (rank - 1))
        weighted = losses * weights
        if mask is not None:
            weighted = weighted * math_ops.cast(mask, losses.dtype.base_dtype)
        count = math_ops.cast(array_ops.size(losses), losses.dtype.base_dtype)
        return math_ops.div_no_nan(math_ops.reduce_sum(weighted), count)

    def _metric_function(self, metric, output, index):
        if metric in ("accuracy", "acc"):
            loss_fn = self._loss_fns[index]
            if output.shape[-1].value == 1 or loss_fn is losses_module.binary_crossentropy:
                fn = metrics_module.binary_accuracy
            elif loss_fn is losses_module.sparse_categorical_crossentropy:
                fn = metrics_module.sparse_categorical_accuracy
            else:
                fn = metrics_module.categorical_accuracy
            return fn, "acc"
        if isinstance(metric, str):
            name = _METRIC_NAMES.get(metric, metric)
            if name == "ce":
                loss_fn = self._loss_fns[index]
                if output.shape[-1].value == 1 or \
                        loss_fn is losses_module.binary_crossentropy:
                    return metrics_module.binary_crossentropy, "ce"
                if loss_fn is losses_module.sparse_categorical_crossentropy:
                    return metrics_module.sparse_categorical_crossentropy, "ce"
                return metrics_module.categorical_crossentropy, "ce"
            return metrics_module.get(name), name
        return metric, getattr(metric, "__name__", type(metric).__name__)

    # ── the functions ─────────────────────────────────────────────────────────────────
    def _check_compiled(self):
        if not self._compiled or self.optimizer is None:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    def _feeds(self):
        targets = [t for t in self._targets if t is not None]
        weights = [w for w in self._sample_weights if w is not None]
        return list(self.inputs) + targets + weights

    def _make_train_function(self):
        if self._train_function is not None:
            return
        graph = self.outputs[0].graph
        with graph.as_default():
            with name_scope("training"):
                params = self._collected_trainable_weights = self.trainable_weights
                updates = self.optimizer.get_updates(loss=self.total_loss, params=params)
                updates = list(updates) + list(self.updates)
                self._train_function = K.function(
                    self._feeds(), [self.total_loss] + self._extra_loss_outputs()
                    + self._metric_tensors, updates=updates, name="train_function")
                self._train_function.training = True

    def _extra_loss_outputs(self):
        if len(self.outputs) > 1:
            return [x for x in self._output_losses if x is not None]
        return []

    def _make_test_function(self):
        if self._test_function is not None:
            return
        with self.outputs[0].graph.as_default():
            self._test_function = K.function(
                self._feeds(), [self.total_loss] + self._extra_loss_outputs()
                + self._metric_tensors, updates=self.state_updates, name="test_function")
            self._test_function.training = False

    def _run(self, function, ins, training):
        feed_phase = not isinstance(K.learning_phase(), int)
        graph = self.outputs[0].graph
        with graph.as_default():
            phase = K._learning_phase_placeholder() if feed_phase else None
        if feed_phase and training:
            function.feed_dict = {phase: True}
        else:
            function.feed_dict = {}
        return function(ins)

    # ── data ──────────────────────────────────────────────────────────────────────────
    def _standardize(self, data, names, what, tensors):
        if data is None:
            return [None] * len(names)
        if isinstance(data, dict):
            missing = [n for n in names if n not in data]
            if missing:
                raise ValueError(f"No data provided for \"{missing[0]}\". Need data for each "
                                 f"key in: {names}")
            arrays = [data[n] for n in names]
        elif isinstance(data, (list, tuple)) and len(names) > 1:
            arrays = list(data)
        elif isinstance(data, (list, tuple)) and len(data) == 1 and len(names) == 1 and \
                hasattr(data[0], "shape"):
            arrays = [data[0]]
        else:
            arrays = [data]
        if len(arrays) != len(names):
            raise ValueError(f"Error when checking model {what}: the list of Numpy arrays that "
                             f"you are passing to your model is not the size the model "
                             f"expected. Expected to see {len(names)} array(s), but instead "
                             f"got the following list of {len(arrays)} arrays.")
        out = []
        for array, name, tensor in zip(arrays, names, tensors):
            array = np.asarray(array)
            if tensor is not None:
                ndim = tensor.shape.ndims
                if array.ndim == 1 and ndim == 2:
                    array = np.expand_dims(array, 1)
                expected = tensor.shape.as_list()
                if ndim is not None and array.ndim != ndim:
                    raise ValueError(f"Error when checking {what}: expected {name} to have "
                                     f"{ndim} dimensions, but got array with shape "
                                     f"{array.shape}")
                for want, got in zip(expected[1:], array.shape[1:]):
                    if want is not None and want != got and what == "input":
                        raise ValueError(f"Error when checking input: expected {name} to have "
                                         f"shape {tuple(expected[1:])} but got array with "
                                         f"shape {array.shape[1:]}")
            out.append(array)
        return out

    def _prepare(self, x, y, sample_weight=None, class_weight=None):
        self._ensure_built(x)
        inputs = self._standardize(x, self.input_names, "input", self.inputs)
        if y is None:
            return inputs, [], []
        names = [n for n, t in zip(self.output_names, self._targets) if t is not None]
        targets = self._standardize(y, names, "target",
                                    [t for t in self._targets if t is not None])
        weights = []
        sample_weights = sample_weight if isinstance(sample_weight, (list, tuple, dict)) \
            else [sample_weight] * len(targets)
        if isinstance(sample_weights, dict):
            sample_weights = [sample_weights.get(n) for n in names]
        class_weights = class_weight if isinstance(class_weight, dict) and class_weight and \
            all(n in class_weight for n in names) else {n: class_weight for n in names}
        for target, sw, name in zip(targets, sample_weights, names):
            if sw is None:
                sw = np.ones(len(target), dtype=K.floatx())
            sw = np.asarray(sw, dtype=K.floatx())
            cw = class_weights.get(name)
            if cw:
                classes = np.argmax(target, axis=1) if target.ndim == 2 and \
                    target.shape[1] > 1 else target.reshape(len(target), -1)[:, 0]
                sw = sw * np.asarray([cw.get(int(c), 1.0) for c in classes], K.floatx())
            weights.append(sw)
        lengths = {len(a) for a in inputs + targets}
        if len(lengths) > 1:
            raise ValueError("Input arrays should have the same number of samples as target "
                             f"arrays. Found {[len(a) for a in inputs]} input samples and "
                             f"{[len(a) for a in targets]} target samples.")
        return inputs, targets, weights

    def _ensure_built(self, x):
        if self.outputs:
            return
        if self._is_graph_network or type(self).call is Network.call:
            raise ValueError("This model has not yet been built: it has no inputs.")
        self._build_subclassed(x)

    def _build_subclassed(self, x):
        """tf_keras's deferred build of a subclassed model: one placeholder per input array,
        shaped like the data (any batch size), the model called on them, then the loss and
        metrics of ``compile``."""
        keys = sorted(x) if isinstance(x, dict) else None
        arrays = [x[k] for k in keys] if keys else \
            list(x) if isinstance(x, (list, tuple)) else [x]
        with K.get_graph().as_default():
            inputs = []
            for array in arrays:
                array = np.asarray(array)
                dtype = K.floatx() if array.dtype.kind == "f" else array.dtype.name
                inputs.append(Input(batch_shape=(None,) + array.shape[1:], dtype=dtype))
            if keys:
                structure = dict(zip(keys, inputs))
            else:
                structure = inputs[0] if len(inputs) == 1 else inputs
            outputs = self(structure)
        self.inputs = inputs
        self.outputs = _as_list(outputs)
        self.input_names = keys or [f"input_{i + 1}" for i in range(len(self.inputs))]
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.built = True
        if self._compiled and self.optimizer is not None:
            self._compile_graph()

    def _graph(self):
        return self.outputs[0].graph if self.outputs else K.get_graph()

    # ── loops ─────────────────────────────────────────────────────────────────────────
    def _loop(self, function, arrays, num_samples, batch_size, training, callbacks=None,
              index_array=None, mode="train"):
        """Runs ``function`` over batches; returns the sample-weighted means of its outputs
        (the loss averaged over batches, the metrics over samples)."""
        if index_array is None:
            index_array = np.arange(num_samples)
        self.reset_metrics()
        total_loss, seen, values = 0.0, 0, []
        for batch_index, (start, end) in enumerate(_batches(num_samples, batch_size)):
            ids = index_array[start:end]
            batch = _slice(arrays, ids)
            size = end - start
            logs = {"batch": batch_index, "size": size}
            if callbacks is not None:
                hook = "on_train_batch_begin" if mode == "train" else "on_test_batch_begin"
                getattr(callbacks, hook)(batch_index, logs)
            outs = self._run(function, batch, training)
            values = self._accumulate_metrics([float(np.asarray(o)) for o in outs], size)
            total_loss += values[0] * size
            seen += size
            if callbacks is not None:
                logs.update(zip(self.metrics_names, values))
                hook = "on_train_batch_end" if mode == "train" else "on_test_batch_end"
                getattr(callbacks, hook)(batch_index, logs)
                if mode == "train" and self.stop_training:
                    break
        if not seen:
            return []
        return [total_loss / seen] + values[1:]

    def _run_steps(self, function, feed, training, callbacks=None, class_weight=None,
                   steps_name="steps"):
        """Runs ``function`` on ``feed.steps`` batches of ``feed`` (all it has when that is
        None): the loss averaged over the steps, then the metrics' running values."""
        mode = "train" if training else "test"
        self.reset_metrics()
        step, total, values = 0, 0.0, []
        while feed.steps is None or step < feed.steps:
            batch = feed.next_batch()
            if batch is None:
                self._out_of_data(feed, step, steps_name)
                break
            logs = {"batch": step, "size": feed.log_size(batch)}
            if callbacks is not None:
                getattr(callbacks, f"on_{mode}_batch_begin")(step, logs)
            arrays = sum(self._prepare(*batch, class_weight=class_weight), [])
            outs = self._run(function, arrays, training)
            values = self._accumulate_metrics([float(np.asarray(o)) for o in outs],
                                              len(arrays[0]))
            total += values[0]
            step += 1
            if callbacks is not None:
                logs.update(zip(self.metrics_names, values))
                getattr(callbacks, f"on_{mode}_batch_end")(step - 1, logs)
                if training and self.stop_training:
                    break
        if not step:
            raise ValueError("Empty training data.")
        return [total / step] + values[1:]

    def _out_of_data(self, feed, step, steps_name):
        """tf_keras's handling of data that ends before ``steps``: a warning and the end of
        training, or (steps unknown) the number of steps of a pass learnt."""
        if feed.steps is not None:
            self.stop_training = True
            what = "dataset" if feed.kind == "dataset" else "dataset iterator"
            logging.warning(f"Your {what} ran out of data; interrupting training. Make sure "
                            f"that your {what} can generate at least `{steps_name} * epochs` "
                            "batches. You may need to use the repeat() function when "
                            "building your dataset.")
        elif step > 0:
            feed.steps = step

    def _predict_steps(self, feed, callback_list=None):
        results = []
        while feed.steps is None or len(results) < feed.steps:
            batch = feed.next_batch()
            if batch is None:
                break
            inputs, _, _ = self._prepare(batch[0], None)
            results.append(self._predict_batch(inputs, len(results), feed.log_size(batch),
                                               callback_list))
        if not results:
            raise ValueError("Empty prediction data.")
        outputs = [np.concatenate([r[i] for r in results]) for i in range(len(results[0]))]
        return outputs[0] if len(outputs) == 1 else outputs

    def _predict_batch(self, inputs, step, size, callback_list):
        """The outputs of one batch, between the predict batch hooks (tf_keras's logs:
        ``batch``, ``size``, then ``outputs``)."""
        logs = {"batch": step, "size": size}
        if callback_list is not None:
            callback_list.on_predict_batch_begin(step, logs)
        outs = self._run(self._predict_function, inputs, False)
        if callback_list is not None:
            logs["outputs"] = outs
            callback_list.on_predict_batch_end(step, logs)
        return outs

    # ── fit ───────────────────────────────────────────────────────────────────────────
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_freq=1, max_queue_size=10, workers=1, use_multiprocessing=False,
            **kwargs):
        """Trains for ``epochs``: on NumPy arrays in batches of ``batch_size``, or on a
        ``tf.data`` dataset, generator, ``Sequence`` or tensors, ``steps_per_epoch`` batches
        an epoch (a finite dataset's or a ``Sequence``'s length when None). Returns the
        ``History``."""
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
        self._check_compiled()
        if shuffle == "batch":
            raise NotImplementedError("fit(shuffle='batch') is not implemented in scopeflow's "
                                      "tf.keras")
        run = _FitRun(epochs, verbose, callbacks, initial_epoch, validation_freq,
                      batch_size or 32, class_weight)
        if data_adapter.is_array_data(x) and steps_per_epoch is None:
            return self._fit_arrays(run, x, y, sample_weight, validation_split,
                                    (validation_data, validation_steps), shuffle)
        feed = data_adapter.make_feed(self._graph(), x, y, sample_weight, steps_per_epoch,
                                      "steps_per_epoch", shuffle, validation_split)
        return self._fit_feed(run, feed, validation_data, validation_steps)

    def _fit_arrays(self, run, x, y, sample_weight, validation_split, validation, shuffle):
        """``fit`` on NumPy arrays; ``validation`` is ``(validation_data, validation_steps)``
        (arrays, or a dataset, generator or ``Sequence``)."""
        inputs, targets, weights = self._prepare(x, y, sample_weight, run.class_weight)
        arrays = inputs + targets + weights
        self._make_train_function()
        validate, val_count = self._feed_validator(*validation, run.batch_size)
        if validate is None and validation_split and 0.0 < validation_split < 1.0:
            split_at = int(len(inputs[0]) * (1.0 - validation_split))
            val_arrays = [a[split_at:] for a in arrays]
            arrays = [a[:split_at] for a in arrays]
            validate, val_count = self._array_validator(val_arrays, run.batch_size), \
                len(val_arrays[0])
        num_samples = len(arrays[0])
        if run.verbose:
            print(f"Train on {num_samples} samples" + (
                f", validate on {val_count} samples" if val_count else ""))
        callback_list = self._fit_callbacks(run, "samples", num_samples, None, validate)

        def train_epoch(epoch):
            index_array = np.arange(num_samples)
            if shuffle:
                np.random.shuffle(index_array)
            self._loop(self._train_function, arrays, num_samples, run.batch_size, True,
                       callbacks=callback_list, index_array=index_array)
            return {}

        return self._epochs(run, callback_list, train_epoch, validate)

    def _fit_feed(self, run, feed, validation_data, validation_steps):
        if not self.outputs:
            self._ensure_built(feed.peek()[0])
        self._make_train_function()
        validate, val_count = self._feed_validator(validation_data, validation_steps,
                                                   run.batch_size)
        if run.verbose and feed.kind != "generator":
            unit = "steps" if feed.kind == "dataset" else "samples"
            print(f"Train on {feed.steps} {unit}" + (
                f", validate on {val_count} {unit}" if val_count else ""))
        callback_list = self._fit_callbacks(run, "steps", feed.steps, feed.steps, validate)

        def train_epoch(epoch):
            if epoch > run.initial_epoch:
                feed.new_pass()
            values = self._run_steps(self._train_function, feed, True, callback_list,
                                     run.class_weight, "steps_per_epoch")
            feed.end_epoch()
            return dict(zip(self.metrics_names, values))

        return self._epochs(run, callback_list, train_epoch, validate)

    def _array_validator(self, val_arrays, batch_size):
        """The function of the epoch giving the ``val_`` logs on NumPy arrays (None)."""
        if val_arrays is None:
            return None
        self._make_test_function()

        def validate(epoch):
            values = self._loop(self._test_function, val_arrays, len(val_arrays[0]),
                                batch_size, False, mode="test")
            return {f"val_{n}": v for n, v in zip(self.metrics_names, values)}

        return validate

    def _feed_validator(self, validation_data, validation_steps, batch_size):
        """The validation function and its number of steps or samples, for any data."""
        if validation_data is None:
            return None, None
        if isinstance(validation_data, (list, tuple)) and \
                data_adapter.is_array_data(validation_data[0]):
            arrays = sum(self._prepare(*_validation_tuple(validation_data)), [])
            return self._array_validator(arrays, batch_size), len(arrays[0])
        if isinstance(validation_data, (list, tuple)):
            validation_data = _validation_tuple(validation_data)
        else:
            validation_data = (validation_data, None, None)
        feed = data_adapter.make_feed(self._graph(), *validation_data,
                                      steps=validation_steps, steps_name="validation_steps")
        self._make_test_function()
        passes = []

        def validate(epoch):
            if passes:
                feed.new_pass(restart=True)
            passes.append(epoch)
            values = self._run_steps(self._test_function, feed, False,
                                     steps_name="validation_steps")
            return {f"val_{n}": v for n, v in zip(self.metrics_names, values)}

        return validate, feed.steps

    def _fit_callbacks(self, run, count_mode, samples, steps, validate):
        """The ``CallbackList`` of ``fit``: ``BaseLogger``, the user's, ``History`` and (when
        verbose) ``ProgbarLogger``, with tf_keras's params."""
        self.history = cbks.History()
        stateful = self.metrics_names[1:]
        callback_list = [cbks.BaseLogger(stateful_metrics=stateful)] + \
            _as_list(run.callbacks) + [self.history]
        if run.verbose:
            callback_list.append(cbks.ProgbarLogger(count_mode, stateful_metrics=stateful))
        callback_list = cbks.CallbackList(callback_list)
        callback_list.set_model(self)
        names = list(self.metrics_names)
        metrics = names + ([f"val_{n}" for n in names] if validate is not None else [])
        callback_list.set_params({
            "batch_size": run.batch_size if count_mode == "samples" else None,
            "epochs": run.epochs, "steps": steps, "samples": samples,
            "verbose": run.verbose, "do_validation": validate is not None,
            "metrics": metrics})
        return callback_list

    def _epochs(self, run, callback_list, train_epoch, validate):
        """The epochs from ``initial_epoch``: train, validate when due, the callbacks."""
        self.stop_training = False
        callback_list.on_train_begin()
        for epoch in range(run.initial_epoch, run.epochs):
            epoch_logs = {}
            callback_list.on_epoch_begin(epoch, epoch_logs)
            epoch_logs.update(train_epoch(epoch))
            if validate is not None and _should_validate(run.validation_freq, epoch) and \
                    not self.stop_training:
                epoch_logs.update(validate(epoch))
            callback_list.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callback_list.on_train_end()
        return self.history

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, validation_steps=None,
                      validation_freq=1, class_weight=None, max_queue_size=10, workers=1,
                      use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """``fit`` on a generator or ``Sequence`` (TF1's name for it)."""
        return self.fit(generator, steps_per_epoch=steps_per_epoch, epochs=epochs,
                        verbose=verbose, callbacks=callbacks, validation_data=validation_data,
                        validation_steps=validation_steps, validation_freq=validation_freq,
                        class_weight=class_weight, shuffle=shuffle,
                        initial_epoch=initial_epoch)

    # ── evaluate, predict ─────────────────────────────────────────────────────────────
    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False, **kwargs):
        """The loss and metrics over ``x``/``y`` (or ``steps`` batches of a dataset,
        generator or tensors): a scalar, or a list (``metrics_names``)."""
        if kwargs:
            raise TypeError(f"Invalid keyword arguments: {kwargs}")
        self._check_compiled()
        # tf_keras's graph-mode evaluate prints no progress bar, whatever ``verbose``.
        if data_adapter.is_array_data(x) and steps is None:
            batch_size = batch_size or 32
            inputs, targets, weights = self._prepare(x, y, sample_weight)
            self._make_test_function()
            callback_list = self._test_callbacks(callbacks, verbose, len(inputs[0]))
            values = self._loop(self._test_function, inputs + targets + weights,
                                len(inputs[0]), batch_size, False, mode="test",
                                callbacks=callback_list)
        else:
            feed = data_adapter.make_feed(self._graph(), x, y, sample_weight, steps)
            if not self.outputs:
                self._ensure_built(feed.peek()[0])
            self._make_test_function()
            callback_list = self._test_callbacks(callbacks, verbose, feed.steps)
            values = self._run_steps(self._test_function, feed, False, callback_list)
        if callback_list is not None:
            callback_list.on_test_end()
        values = [np.float32(v) for v in values]
        return values[0] if len(values) == 1 else values

    def _test_callbacks(self, callbacks, verbose, count):
        """The user's callbacks of ``evaluate`` (None without), ``on_test_begin`` called."""
        if not callbacks:
            return None
        callback_list = cbks.CallbackList(_as_list(callbacks))
        callback_list.set_model(self)
        callback_list.set_params({"batch_size": None, "epochs": 1, "steps": count,
                                  "samples": count, "verbose": verbose,
                                  "do_validation": False, "metrics": list(self.metrics_names)})
        callback_list.on_test_begin()
        return callback_list

    def evaluate_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                           workers=1, use_multiprocessing=False, verbose=0):
        """``evaluate`` on a generator or ``Sequence`` (TF1's name for it)."""
        return self.evaluate(generator, steps=steps, verbose=verbose, callbacks=callbacks)

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False, **kwargs):
        """The outputs for ``x`` (arrays in batches, or ``steps`` batches of a dataset,
        generator or tensors), concatenated (a list for several)."""
        if kwargs:
            raise TypeError(f"Invalid keyword arguments: {kwargs}")
        feed = None
        if not data_adapter.is_array_data(x) or steps is not None:
            feed = data_adapter.make_feed(self._graph(), x, steps=steps)
            if not self.outputs:
                self._ensure_built(feed.peek()[0])
        elif not self.outputs:
            self._ensure_built(x)
        if self._predict_function is None:
            with self.outputs[0].graph.as_default():
                self._predict_function = K.function(list(self.inputs), list(self.outputs),
                                                    updates=self.state_updates,
                                                    name="predict_function")
        callback_list = None
        if callbacks:
            callback_list = cbks.CallbackList(_as_list(callbacks))
            callback_list.set_model(self)
            callback_list.set_params({"batch_size": batch_size, "epochs": 1,
                                      "steps": steps, "verbose": verbose})
            callback_list.on_predict_begin()
        if feed is not None:
            outputs = self._predict_steps(feed, callback_list)
        else:
            outputs = self._predict_arrays(x, batch_size or 32, verbose, callback_list)
        if callback_list is not None:
            callback_list.on_predict_end()
        return outputs

    def _predict_arrays(self, x, batch_size, verbose, callback_list=None):
        inputs, _, _ = self._prepare(x, None)
        num_samples = len(inputs[0])
        results = None
        progbar = Progbar(num_samples) if verbose == 1 else None
        for step, (start, end) in enumerate(_batches(num_samples, batch_size)):
            outs = self._predict_batch([a[start:end] for a in inputs], step, end - start,
                                       callback_list)
            results = [[o] for o in outs] if results is None else \
                [r + [o] for r, o in zip(results, outs)]
            if progbar is not None:
                progbar.update(end)
        results = [np.concatenate(r) for r in results]
        return results[0] if len(results) == 1 else results

    def predict_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                          workers=1, use_multiprocessing=False, verbose=0):
        """``predict`` on a generator or ``Sequence`` (TF1's name for it)."""
        return self.predict(generator, steps=steps, verbose=verbose, callbacks=callbacks)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True):
        """One gradient step on one batch: the loss (and metrics) of that batch."""
        self._check_compiled()
        inputs, targets, weights = self._prepare(x, y, sample_weight, class_weight)
        self._make_train_function()
        return self._on_batch(self._train_function, inputs + targets + weights, True,
                              reset_metrics)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        self._check_compiled()
        inputs, targets, weights = self._prepare(x, y, sample_weight)
        self._make_test_function()
        return self._on_batch(self._test_function, inputs + targets + weights, False,
                              reset_metrics)

    def predict_on_batch(self, x):
        return self.predict(x, batch_size=len(self._prepare(x, None)[0][0]))

    def reset_metrics(self):
        """Zeroes the metrics' running totals (tf_keras's stateful metrics)."""
        self._metric_state = None

    def _accumulate_metrics(self, values, size):
        """Adds one batch's outputs to the running totals of tf_keras's stateful metrics:
        each output's loss (a mean over batches) and the metrics (over samples). Returns
        the total loss of the batch, then those running means."""
        state = getattr(self, "_metric_state", None) or [[0.0, 0] for _ in values[1:]]
        n_output_losses = len(values) - 1 - len(self._metric_tensors)
        for i, (entry, value) in enumerate(zip(state, values[1:])):
            weight = 1 if i < n_output_losses else size
            entry[0] += value * weight
            entry[1] += weight
        self._metric_state = state
        return values[:1] + [total / max(count, 1) for total, count in state]

    def _on_batch(self, function, arrays, training, reset_metrics):
        outs = self._run(function, arrays, training)
        values = self._accumulate_metrics([float(np.asarray(o)) for o in outs],
                                          len(arrays[0]))
        if reset_metrics:
            self.reset_metrics()
        outs = [np.float32(v) for v in values]
        return outs[0] if len(outs) == 1 else outs

    @property
    def metrics(self):
        return list(self._metric_tensors) if self._compiled and self.outputs else []

    # ── weights and saving ────────────────────────────────────────────────────────────
    def get_weights(self):
        return K.batch_get_value(self.weights)

    def save_weights(self, filepath, overwrite=True, save_format=None):
        """Saves the weights: HDF5 (``.h5``, ``.keras``; needs h5py) or a TF checkpoint."""
        filepath = os.fspath(filepath)
        if save_format is None:
            save_format = "h5" if filepath.endswith((".h5", ".keras", ".hdf5")) else "tf"
        if save_format == "h5":
            saving_utils.save_weights_to_hdf5(self, filepath)
        else:
            saving_utils.save_weights_to_checkpoint(self, filepath)

    def load_weights(self, filepath, by_name=False):
        filepath = os.fspath(filepath)
        if filepath.endswith((".h5", ".keras", ".hdf5")):
            saving_utils.load_weights_from_hdf5(self, filepath, by_name=by_name)
        else:
            saving_utils.load_weights_from_checkpoint(self, filepath)

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        """The whole model in Keras's HDF5 file (``tf.keras.models.save_model``)."""
        saving_utils.save_model(self, filepath, overwrite, include_optimizer, save_format)

    def to_json(self, **kwargs):
        """The model's architecture as tf_keras's JSON (``model_from_json`` reads it)."""
        class_name = "Functional" if type(self).__name__ == "Model" else type(self).__name__
        return json.dumps({"class_name": class_name, "config": self.get_config(),
                           "keras_version": "2.21.0", "backend": "tensorflow"},
                          default=_json_default, **kwargs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A functional model from ``get_config()``: its layers, called as recorded."""
        created = {}
        pending = []
        for layer_data in config["layers"]:
            layer = layers_module.deserialize(
                {"class_name": layer_data["class_name"], "config": layer_data["config"]},
                custom_objects=custom_objects)
            created[layer_data["name"]] = layer
            pending.extend((layer, node) for node in layer_data["inbound_nodes"])
        while pending:
            waiting = []
            for layer, node_data in pending:
                try:
                    inputs = [_node_output(created[name], index, tensor)
                              for name, index, tensor, *_ in node_data]
                except IndexError:
                    waiting.append((layer, node_data))
                    continue
                kwargs = node_data[0][3] if node_data and len(node_data[0]) > 3 else {}
                layer(inputs[0] if len(inputs) == 1 else inputs, **(kwargs or {}))
            if len(waiting) == len(pending):
                raise ValueError("Cannot rebuild the model: the layers' inbound nodes refer to "
                                 "layers that never produce them.")
            pending = waiting
        inputs = [_node_output(created[name], index, tensor)
                  for name, index, tensor in config["input_layers"]]
        outputs = [_node_output(created[name], index, tensor)
                   for name, index, tensor in config["output_layers"]]
        return cls(inputs[0] if len(inputs) == 1 else inputs,
                   outputs[0] if len(outputs) == 1 else outputs, name=config.get("name"))


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"Not JSON serializable: {value!r}")


def _node_output(layer, node_index, tensor_index):
    """Output ``tensor_index`` of the ``node_index``-th call of ``layer``."""
    outputs = layer._inbound_nodes[node_index].output_tensors
    return outputs[tensor_index] if isinstance(outputs, (list, tuple)) else outputs
