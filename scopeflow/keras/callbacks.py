"""``tf.keras.callbacks``: what ``fit`` calls around epochs and batches (tf_keras's v1 loop:
``BaseLogger`` first, the user's callbacks, ``History``, then ``ProgbarLogger`` when
``verbose``)."""

from __future__ import annotations

import collections
import csv
import os

import numpy as np

from scopeflow import summary as summary_lib
from scopeflow.keras import backend as K
from scopeflow.keras.utils.generic_utils import Progbar
from scopeflow.ops import array_ops
from scopeflow.platform import tf_logging as logging
from scopeflow.summary import FileWriter, Summary

__all__ = ["Callback", "CallbackList", "BaseLogger", "History", "ProgbarLogger",
           "ModelCheckpoint", "EarlyStopping", "CSVLogger", "LambdaCallback",
           "TerminateOnNaN", "LearningRateScheduler", "ReduceLROnPlateau", "TensorBoard",
           "RemoteMonitor"]


class Callback:
    """The base class: every hook does nothing."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


class CallbackList:
    """Calls each hook on every callback, in order."""

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model):
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook, *args):
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs if logs is not None else {})

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs if logs is not None else {})

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs if logs is not None else {})

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs if logs is not None else {})

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs if logs is not None else {})

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs if logs is not None else {})

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs if logs is not None else {})

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs if logs is not None else {})

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs if logs is not None else {})

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs if logs is not None else {})

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs if logs is not None else {})

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs if logs is not None else {})

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs if logs is not None else {})

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs if logs is not None else {})

    def __iter__(self):
        return iter(self.callbacks)


class BaseLogger(Callback):
    """Averages the batch values over each epoch (weighted by batch size); the stateful
    metrics keep their last (running) value."""

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        batch_size = logs.get("size", 0)
        num_steps = logs.get("num_steps", 1)
        self.seen += batch_size * num_steps
        for k, v in logs.items():
            if k in self.stateful_metrics:
                self.totals[k] = v
            elif k in self.totals:
                self.totals[k] += v * batch_size
            else:
                self.totals[k] = v * batch_size

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        for k in self.params.get("metrics", []):
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics \
                    else self.totals[k] / self.seen


class History(Callback):
    """``model.history``: ``epoch`` and ``history`` (each metric's list of epoch values)."""

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    """Prints ``Epoch 1/2`` and Keras's progress bar: counted in samples (arrays), or in
    steps (datasets, generators), where tf_keras shows every batch log (``batch``,
    ``size``, then the loss and metrics) and, at ``verbose=2``, the epoch's logs alone."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode == "samples":
            self.use_steps = False
        elif count_mode == "steps":
            self.use_steps = True
        else:
            raise ValueError(f"Unknown `count_mode`: {count_mode}")
        self.stateful_metrics = set(stateful_metrics or [])

    def on_train_begin(self, logs=None):
        self.verbose = self.params["verbose"]
        self.epochs = self.params["epochs"]

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        if self.use_steps:
            self.target = self.params["steps"]
        else:
            self.target = self.params["samples"]
        if self.verbose:
            if self.epochs > 1:
                print(f"Epoch {epoch + 1}/{self.epochs}")
        self.progbar = Progbar(target=self.target, verbose=self.verbose,
                               stateful_metrics=self.stateful_metrics,
                               unit_name="step" if self.use_steps else "sample")

    def on_batch_begin(self, batch, logs=None):
        self.log_values = []

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        if self.use_steps:
            self.seen = batch + 1
            self.log_values = list(logs.items())
            if self.verbose == 1:
                self.progbar.update(self.seen, self.log_values, finalize=False)
            return
        batch_size = logs.get("size", 0)
        num_steps = logs.get("num_steps", 1)
        self.seen += batch_size * num_steps
        for k in self.params["metrics"]:
            if k in logs:
                self.log_values.append((k, logs[k]))
        if self.verbose and (self.target is None or self.seen < self.target):
            self.progbar.update(self.seen, self.log_values)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.use_steps:
            if self.target is None:
                self.target = self.progbar.target = self.seen
            if self.verbose:
                self.progbar.update(self.target, list(logs.items()), finalize=True)
            return
        for k in self.params["metrics"]:
            if k in logs:
                self.log_values.append((k, logs[k]))
        if self.verbose:
            self.progbar.update(self.seen, self.log_values, finalize=True)


class TerminateOnNaN(Callback):
    """Stops training when the loss becomes NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class _Monitor(Callback):
    def _init_monitor(self, monitor, mode, min_delta=0.0):
        self.monitor = monitor
        if mode not in ("auto", "min", "max"):
            logging.warning(f"{type(self).__name__} mode {mode} is unknown, fallback to auto "
                            "mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and not ("acc" in monitor or
                                                     monitor.startswith("fmeasure"))):
            self.monitor_op = np.less
            self.min_delta = -abs(min_delta)
        else:
            self.monitor_op = np.greater
            self.min_delta = abs(min_delta)


class EarlyStopping(_Monitor):
    """Stops training when ``monitor`` has not improved for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self._init_monitor(monitor, mode, min_delta)

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            logging.warning(f"Early stopping conditioned on metric `{self.monitor}` which is "
                            f"not available. Available metrics are: "
                            f"{','.join(list((logs or {}).keys()))}")
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    if self.verbose > 0:
                        print("Restoring model weights from the end of the best epoch.")
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


class ModelCheckpoint(_Monitor):
    """Saves the model (or its weights) after each epoch to ``filepath`` (formatted with
    ``epoch`` and the logs), or only when ``monitor`` improves."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", period=1):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.period = period
        self.epochs_since_last_save = 0
        if save_freq != "epoch":
            raise NotImplementedError("ModelCheckpoint(save_freq=<batches>) is not implemented "
                                      "in scopeflow")
        self._init_monitor(monitor, mode)
        self.best = np.inf if self.monitor_op == np.less else -np.inf

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                logging.warning(f"Can save best model only with {self.monitor} available, "
                                "skipping.")
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from "
                          f"{self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from "
                      f"{self.best:.5f} to {current:.5f}, saving model to {filepath}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: saving model to {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)


class CSVLogger(Callback):
    """Writes each epoch's logs as a CSV row (``epoch`` then the sorted keys)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(k):
            is_zero_dim_ndarray = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable) and not is_zero_dim_ndarray:
                return f"\"[{', '.join(map(str, k))}]\""
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.model is not None and getattr(self.model, "stop_training", False):
            logs = {k: logs[k] if k in logs else "NA" for k in self.keys}
        if not self.writer:
            class CustomDialect(csv.excel):
                delimiter = self.sep
            fieldnames = ["epoch"] + self.keys
            self.writer = csv.DictWriter(self.csv_file, fieldnames=fieldnames,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs[key])) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        self.csv_file.close()
        self.writer = None


class LambdaCallback(Callback):
    """A callback from functions: ``on_epoch_end=lambda epoch, logs: ...``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        noop = lambda *a: None  # noqa: E731
        self.on_epoch_begin = on_epoch_begin or noop
        self.on_epoch_end = on_epoch_end or noop
        self.on_batch_begin = on_batch_begin or noop
        self.on_batch_end = on_batch_end or noop
        self.on_train_begin = on_train_begin or noop
        self.on_train_end = on_train_end or noop


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at each epoch's start to ``schedule(epoch, lr)``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = float(K.get_value(self.model.optimizer.lr))
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64, int)):
            raise ValueError('The output of the "schedule" function should be float.')
        K.set_value(self.model.optimizer.lr, lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler setting learning rate to "
                  f"{lr}.")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = K.get_value(self.model.optimizer.lr)


class ReduceLROnPlateau(_Monitor):
    """Multiplies the learning rate by ``factor`` when ``monitor`` has stalled for
    ``patience`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self.min_delta = min_delta
        self._monitor_name = monitor
        self._reset()

    def _reset(self):
        self.monitor = self._monitor_name
        mode = self.mode
        if mode == "min" or (mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        logs["lr"] = K.get_value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            logging.warning(f"Learning rate reduction is conditioned on metric `{self.monitor}`"
                            f" which is not available. Available metrics are: "
                            f"{','.join(list(logs.keys()))}")
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = float(K.get_value(self.model.optimizer.lr))
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    K.set_value(self.model.optimizer.lr, new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class TensorBoard(Callback):
    """Writes the graph and each epoch's logs as scalar summaries to ``log_dir``; with
    ``histogram_freq=N``, every N epochs, histograms of each layer's weights (tags
    ``<weight name with : as _>``) and outputs (``<layer>_out``), with ``write_grads`` the
    weights' gradients (``..._grad``) and with ``write_images`` the weights as images,
    each computed on every validation batch (tf_keras's v1 callback: the merged summary
    is fetched with the test function, its step counting validation batches).
    Embeddings and profiling are not implemented."""

    def __init__(self, log_dir="./logs", histogram_freq=0, batch_size=32, write_graph=True,
                 write_grads=False, write_images=False, embeddings_freq=0,
                 embeddings_layer_names=None, embeddings_metadata=None, embeddings_data=None,
                 update_freq="epoch", profile_batch=2):
        super().__init__()
        if embeddings_freq:
            raise NotImplementedError("TensorBoard(embeddings_freq>0) is not implemented in "
                                      "scopeflow's tf.keras")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.batch_size = batch_size
        self.write_graph = write_graph
        self.write_grads = write_grads
        self.write_images = write_images
        self.update_freq = update_freq
        self.writer = None
        self.merged = None
        self._samples_seen = 0
        self._total_val_batches_seen = 0

    def set_model(self, model):
        self.model = model
        graph = K.get_session().graph if self.write_graph else None
        self.writer = FileWriter(self.log_dir, graph)
        if self.histogram_freq and self.merged is None:
            with model.outputs[0].graph.as_default():
                self._make_histogram_ops(model)
                self.merged = summary_lib.merge_all()

    def _make_histogram_ops(self, model):
        """tf_keras's summaries, in its order: per layer, its weights (and their images),
        its trainable weights' gradients, then its output(s)."""
        for layer in model.layers:
            for weight in layer.weights:
                name = weight.name.replace(":", "_")
                summary_lib.histogram(name, weight)
                if self.write_images:
                    image = _weight_image(weight)
                    if image is not None:
                        summary_lib.image(name, image)
            if self.write_grads:
                for weight in layer.trainable_weights:
                    name = weight.name.replace(":", "_")
                    grads = model.optimizer.get_gradients(model.total_loss, weight)
                    grads = [g.values if type(g).__name__ == "IndexedSlices" else g
                             for g in grads]
                    summary_lib.histogram(f"{name}_grad", grads)
            try:
                output = layer.output
            except AttributeError:
                continue
            if isinstance(output, list):
                for i, out in enumerate(output):
                    summary_lib.histogram(f"{layer.name}_out_{i}", out)
            else:
                summary_lib.histogram(f"{layer.name}_out", output)

    def _fetch_callback(self, summary):
        self.writer.add_summary(summary, self._total_val_batches_seen)
        self._total_val_batches_seen += 1

    def _write(self, logs, step):
        for name, value in logs.items():
            if name in ("batch", "size", "num_steps"):
                continue
            summary = Summary()
            entry = summary.value.add()
            entry.simple_value = float(np.asarray(value).item())
            entry.tag = name
            self.writer.add_summary(summary, step)
        self.writer.flush()

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self._samples_seen += logs.get("size", 1)
        if self.update_freq != "epoch" and self.update_freq != "batch" and \
                self._samples_seen % int(self.update_freq) == 0:
            self._write({f"batch_{k}": v for k, v in logs.items()}, self._samples_seen)
        elif self.update_freq == "batch":
            self._write({f"batch_{k}": v for k, v in logs.items()}, self._samples_seen)

    def on_epoch_begin(self, epoch, logs=None):
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self.model._make_test_function()
            function = self.model._test_function
            if self.merged not in function.fetches:
                function.fetches.append(self.merged)
                function.fetch_callbacks[self.merged] = self._fetch_callback

    def on_epoch_end(self, epoch, logs=None):
        self._write(dict(logs or {}), epoch)
        if self.histogram_freq and self.model._test_function is not None:
            function = self.model._test_function
            if self.merged in function.fetches:
                function.fetches.remove(self.merged)
            function.fetch_callbacks.pop(self.merged, None)

    def on_train_end(self, logs=None):
        if self.writer is not None:
            self.writer.close()


def _weight_image(weight):
    """tf_keras's image of a weight (``write_images``): a 2-D kernel as one wide image, a
    3-D kernel as one image per output channel, a bias as a column; None for others."""
    image = array_ops.squeeze(weight)
    shape = tuple(image.shape.as_list())
    if len(shape) == 2:
        if shape[0] > shape[1]:
            image = array_ops.transpose(image)
            shape = tuple(image.shape.as_list())
        image = array_ops.reshape(image, [1, shape[0], shape[1], 1])
    elif len(shape) == 3:
        if K.image_data_format() == "channels_last":
            image = array_ops.transpose(image, perm=[2, 0, 1])
            shape = tuple(image.shape.as_list())
        image = array_ops.reshape(image, [shape[0], shape[1], shape[2], 1])
    elif len(shape) == 1:
        image = array_ops.reshape(image, [1, shape[0], 1, 1])
    else:
        return None
    return image


class RemoteMonitor(Callback):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tf.keras.callbacks.RemoteMonitor posts to a server; there "
                                  "is no network here")

