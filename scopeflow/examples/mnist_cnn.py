"""The main job: train seed 003's MNIST CNN, with summaries, checkpoints and resume.

    python -m scopeflow.examples.mnist_cnn            # or: scopeflow train-mnist

The model is the seed's ``cnnmodel`` (5x5x32 conv, 2x2 max-pool, 5x5x64 conv, max-pool,
1024-unit dense layer, dropout with a ``keep_prob`` placeholder, 10-way softmax; variables
``cnn/conv1/w`` ... ``cnn/fc2/b``), trained with Adam (1e-4) on batches of 50 until the
variable ``global_step`` reaches ``--steps``.

Everything lands in ``--logdir`` (default ``runs/mnist``): checkpoints ``model.ckpt-N`` and
their ``checkpoint`` state file, and TensorBoard event files (loss, accuracy, weight
histograms, the graph). Running the command again continues from the latest checkpoint
there (``--fresh`` starts over, moving the old run aside) with the data order an
uninterrupted run would have had (``StepBatches``); Ctrl-C saves a checkpoint before
exiting. Data: the MNIST files in ``--data-dir`` (default ``MNIST_data``, TF1's
convention), downloaded there when missing; without files or network, scikit-learn's
bundled 8x8 digits stand in, announced as such.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import sys
import time

import numpy as np

import scopeflow as tf
import scopeflow.distributed as sfd
from scopeflow.datasets import mnist
from scopeflow.io.atomic import atomic_file
from scopeflow.platform.cli_conventions import epilog
from scopeflow.train import checkpoint_management as cm
from scopeflow.train.checkpoint_cleanup import tidy_checkpoint_dir

DEFAULTS = dict(steps=20000, batch_size=50, lr=1e-4, eval_every=1000, save_every=1000,
                log_every=100, seed=0, logdir=os.path.join("runs", "mnist"),
                data_dir="MNIST_data", validation_size=5000)
_EVAL_BATCH = 1000  # evaluation batches: bounded memory for any test-set size


# ── the model (seed 003's cnnmodel, returning logits for a stable loss) ──────────────
def _weight_variable(shape):
    return tf.get_variable(initializer=tf.truncated_normal(shape, stddev=0.1), trainable=True,
                           name="w")


def _bias_variable(shape):
    return tf.get_variable(initializer=tf.zeros(shape), trainable=True, name="b")


def _conv2d(x, w_shape):
    w, b = _weight_variable(w_shape), _bias_variable(w_shape[-1])
    return tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b


def _ann(x, w_shape):
    w, b = _weight_variable(w_shape), _bias_variable(w_shape[-1])
    return tf.matmul(x, w) + b


def _max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def cnn_logits(inp, keep_prob):
    """Seed 003's ``cnnmodel`` up to the softmax: ``(logits, variables under 'cnn')``."""
    with tf.variable_scope("cnn"):
        with tf.variable_scope("conv1"):
            h_pool1 = _max_pool_2x2(tf.nn.relu(_conv2d(inp, [5, 5, 1, 32])))
        with tf.variable_scope("conv2"):
            h_pool2 = _max_pool_2x2(tf.nn.relu(_conv2d(h_pool1, [5, 5, 32, 64])))
        with tf.variable_scope("fc1"):
            h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
            h_fc1 = tf.nn.relu(_ann(h_pool2_flat, [7 * 7 * 64, 1024]))
            h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
        with tf.variable_scope("fc2"):
            logits = _ann(h_fc1_drop, [1024, 10])
    return logits, tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="cnn")


class Model:
    """The training graph: placeholders, loss, accuracy, train op, summaries, saver."""

    def __init__(self, lr, distributed=False):
        self.x = tf.placeholder(tf.float32, [None, 784], name="x")
        self.labels = tf.placeholder(tf.uint8, [None], name="labels")
        self.keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
        y = tf.cast(self.labels, tf.int64)
        logits, self.variables = cnn_logits(tf.reshape(self.x, [-1, 28, 28, 1]), self.keep_prob)
        with tf.name_scope("loss"):
            self.loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
                name="cross_entropy")
        with tf.name_scope("accuracy"):
            correct = tf.equal(tf.argmax(logits, 1), y)
            self.correct = tf.reduce_sum(tf.cast(correct, tf.int32), name="correct")
            self.accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
        self.global_step = tf.train.get_or_create_global_step()
        optimizer = tf.train.AdamOptimizer(lr)
        if distributed:  # mpiexec -n N: gradients averaged over the workers
            optimizer = sfd.DistributedOptimizer(optimizer)
        self.train_op = optimizer.minimize(
            self.loss, global_step=self.global_step, var_list=self.variables)
        with tf.name_scope("summaries"):
            tf.summary.scalar("loss", self.loss)
            tf.summary.scalar("accuracy", self.accuracy)
            for v in self.variables:
                tf.summary.histogram(v.op.name, v)
            self.summary_op = tf.summary.merge_all()
        # training_state: the checkpoints also carry dropout's random stream, so a resumed
        # run continues exactly as an uninterrupted one (the data order is StepBatches').
        self.saver = tf.train.Saver(max_to_keep=5, training_state=True)


# ── data ─────────────────────────────────────────────────────────────────────────────
def _digits_fallback(validation_size, seed):
    """scikit-learn's 1,797 bundled 8x8 digits as MNIST-shaped ``Datasets`` (28x28)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    # 8x8 (values 0..16) -> 24x24 by pixel repetition, centred in 28x28 like MNIST's digits.
    big = np.kron(digits.images, np.ones((3, 3)))
    images = np.zeros((len(big), 28, 28, 1), np.uint8)
    images[:, 2:26, 2:26, 0] = np.round(big * (255.0 / 16.0)).astype(np.uint8)
    labels = digits.target.astype(np.uint8)
    n_test = 300
    n_val = min(validation_size, 200)
    options = dict(dtype=tf.float32, reshape=True, seed=seed)
    return mnist.Datasets(
        train=mnist.DataSet(images[n_val:-n_test], labels[n_val:-n_test], **options),
        validation=mnist.DataSet(images[:n_val], labels[:n_val], **options),
        test=mnist.DataSet(images[-n_test:], labels[-n_test:], **options))


def load_data(data_dir, validation_size, seed, source_url=mnist.DEFAULT_SOURCE_URL):
    """MNIST from ``data_dir`` (or downloaded there); else the scikit-learn digits."""
    try:
        return mnist.read_data_sets(data_dir, validation_size=validation_size, seed=seed,
                                    source_url=source_url), "MNIST"
    except mnist.MNISTUnavailableError as e:
        reason = str(e)
    except ValueError as e:  # a file that is there but is not MNIST IDX data
        raise SystemExit(f"error: {e}") from None
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise SystemExit(
            f"error: no training data.\n{reason}\nThe offline stand-in, scikit-learn's bundled "
            f"digits, is not installed either (pip install scikit-learn).") from None
    print(f"MNIST is not available here:\n{reason}\n"
          "==> Training on scikit-learn's bundled handwritten digits instead (1,797 images, "
          "8x8 upsampled to 28x28). This is NOT MNIST: accuracies are not comparable.",
          file=sys.stderr, flush=True)
    return _digits_fallback(validation_size, seed), "sklearn-digits"


class StepBatches:
    """Training batches as a function of the step: a resumed run continues the data order.

    Epoch ``e`` visits the examples in ``RandomState([seed, e]).permutation(n)``; the batch
    of step ``k`` (1-based) is the examples ``(k-1)*b .. k*b-1`` of that endless sequence,
    crossing epoch boundaries as TF's ``next_batch`` does (tail of one epoch, then the head
    of the next). Restarting at step ``k`` therefore yields the batches an uninterrupted run
    would have seen, where ``DataSet.next_batch`` would replay epoch 0.
    """

    def __init__(self, dataset, batch_size, seed, first_step=0):
        self.images, self.labels = dataset.images, dataset.labels
        self.n, self.batch_size = dataset.num_examples, batch_size
        if self.n == 0:
            raise ValueError("no training examples (is --validation-size the whole set?)")
        self.seed = 0 if seed is None else seed
        self.position = first_step * batch_size
        self._epoch, self._perm = -1, None

    def _permutation(self, epoch):
        if epoch != self._epoch:
            self._epoch = epoch
            self._perm = np.random.RandomState([self.seed, epoch]).permutation(self.n)
        return self._perm

    def next_batch(self, batch_size=None):
        """The next batch ``(images, labels)``."""
        size = batch_size or self.batch_size
        epoch, start = divmod(self.position, self.n)
        self.position += size
        if start + size <= self.n:
            idx = self._permutation(epoch)[start:start + size]
        else:
            parts, need = [], size
            while need:
                take = min(need, self.n - start)
                parts.append(self._permutation(epoch)[start:start + take])
                need, epoch, start = need - take, epoch + 1, 0
            idx = np.concatenate(parts)
        return self.images[idx], self.labels[idx]


# ── progress ─────────────────────────────────────────────────────────────────────────
def _duration(seconds):
    if not math.isfinite(seconds):
        return "?"
    seconds = int(seconds)
    h, rem = divmod(seconds, 3600)
    return f"{h}:{rem // 60:02d}:{rem % 60:02d}" if h else f"{rem // 60}:{rem % 60:02d}"


class Progress:
    """One status line: ``\\r`` updates on a terminal, a line every ``log_every`` otherwise.

    Loss and accuracy are means over the last ``log_every`` training batches (accuracy of
    the training pass itself, dropout on).
    """

    def __init__(self, start_step, target, log_every, stream=sys.stdout):
        self.stream, self.target, self.log_every = stream, target, log_every
        self.tty = stream.isatty()
        self.t0 = self._shown = time.perf_counter()
        self.start_step = start_step
        self.loss = self.acc = float("nan")
        self._sums = [0.0, 0.0, 0]
        self._windows = 0
        self._open = False  # a terminal status line awaits its newline

    def rate(self, step):
        elapsed = time.perf_counter() - self.t0
        return (step - self.start_step) / elapsed if elapsed > 0 else 0.0

    def update(self, step, loss, acc, extra=""):
        sums = self._sums
        sums[0] += loss
        sums[1] += acc
        sums[2] += 1
        boundary = step % self.log_every == 0 or step == self.target
        if boundary or not self._windows or sums[2] >= min(10, self.log_every):
            # The window so far (or the last full one while the new one is short).
            self.loss, self.acc = sums[0] / sums[2], sums[1] / sums[2]
        if boundary:
            self._sums = [0.0, 0.0, 0]
            self._windows += 1
        if extra:
            self.print(self.line(step, extra))
        elif self.tty:
            now = time.perf_counter()
            if now - self._shown >= 0.25 or step == self.target:
                self._shown = now
                self.stream.write("\r" + self.line(step) + "\x1b[K")
                self.stream.flush()
                self._open = True
        elif boundary:
            self.print(self.line(step))

    def line(self, step, extra=""):
        rate = self.rate(step)
        eta = (self.target - step) / rate if rate > 0 else float("inf")
        width = len(str(self.target))
        return (f"step {step:>{width}}/{self.target}  {rate:5.1f} steps/s  loss {self.loss:.4f}"
                f"  train acc {self.acc:.3f}{extra}  ETA {_duration(eta)}")

    def print(self, text):
        """A line of its own (clearing a terminal's status line first)."""
        self.stream.write(("\r\x1b[K" if self.tty else "") + text + "\n")
        self.stream.flush()
        self._open = False

    def close(self):
        """End a terminal's status line."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


# ── checkpoints and the run directory ────────────────────────────────────────────────
def _move_old_run(logdir):
    """--fresh: move the previous run's files into ``logdir/previous-<time>`` (no data lost)."""
    names = [n for n in os.listdir(logdir) if not n.startswith("previous-")]
    if not names:
        return None
    dest = os.path.join(logdir, time.strftime("previous-%Y%m%d-%H%M%S"))
    os.makedirs(dest)
    for name in names:
        shutil.move(os.path.join(logdir, name), os.path.join(dest, name))
    return dest


def _in_run(path, logdir):
    """``path`` as a checkpoint of the run directory ``logdir``, or None: a state file
    copied with its run (or edited by hand) may list paths elsewhere; the run uses the
    checkpoint of that name in ``logdir`` when there is one, and never a file outside."""
    real = os.path.realpath(logdir)
    if os.path.realpath(os.path.dirname(path) or os.curdir) == real:
        return path
    here = os.path.join(logdir, os.path.basename(path))
    if os.path.exists(here + ".index"):
        print(f"warning: the checkpoint state file lists {path}, outside {logdir!r}; "
              f"using {here}", file=sys.stderr)
        return here
    print(f"warning: the checkpoint state file lists {path}, outside {logdir!r}; "
          f"ignored (a run uses and deletes only checkpoints in its own directory)",
          file=sys.stderr)
    return None


def _committed_checkpoints(logdir, out):
    """The run's checkpoints, oldest first: those the ``checkpoint`` state file lists (a
    save is committed when that file names it), inside ``logdir``. Also tidies what a
    killed run left: temporary files of an interrupted save, and checkpoints the state
    file does not list (a save killed before its commit, or an old one killed before its
    deletion). A missing or damaged state file falls back to the complete checkpoints on
    disk, and says so."""
    state = tf.train.get_checkpoint_state(logdir)
    listed = []
    if state is not None and state.model_checkpoint_path:
        paths = [p for p in state.all_model_checkpoint_paths
                 if p != state.model_checkpoint_path] + [state.model_checkpoint_path]
        listed = [p for p in (_in_run(p, logdir) for p in paths) if p is not None]
    removed, stale = tidy_checkpoint_dir(logdir, "model.ckpt", listed)
    if removed:
        print(f"removed {len(removed)} temporary file(s) of an interrupted save", file=out)
    for path in stale:
        print(f"removed {os.path.basename(path)}: the checkpoint state file does not list "
              f"it (a save or a deletion was interrupted)", file=out)
    if listed:
        return listed
    on_disk = cm.find_complete_checkpoints(logdir)  # newest first
    if on_disk:
        if state is not None:
            why = f"the checkpoint state file in {logdir!r} lists none of its checkpoints"
        elif os.path.exists(os.path.join(logdir, "checkpoint")):
            why = f"the checkpoint state file in {logdir!r} is damaged"
        else:
            why = f"{logdir!r} has no checkpoint state file"
        print(f"warning: {why}; using the complete checkpoints on disk (newest: "
              f"{on_disk[0]})", file=sys.stderr)
    return list(reversed(on_disk))


def _restore_latest(saver, sess, logdir, out=sys.stdout):
    """Restore the newest readable checkpoint in ``logdir``; its path, or None if none.

    The saver adopts the run's checkpoints, so ``max_to_keep`` counts those an earlier
    process wrote too (a run resumed many times keeps at most that many)."""
    committed = _committed_checkpoints(logdir, out)
    if not committed:
        return None
    saver.recover_last_checkpoints(committed[-saver.saver_def.max_to_keep:])
    for path in reversed(committed):
        try:
            saver.restore(sess, path)
            return path
        except (tf.errors.OpError, ValueError, OSError) as e:
            print(f"warning: cannot restore {path}: {e}; trying an older checkpoint",
                  file=sys.stderr)
    raise SystemExit(f"error: no checkpoint in {logdir!r} could be restored "
                     f"(use --fresh to start over)")


def _recorded_source(logdir):
    """The data source ``logdir/job.json`` records for a run that has checkpoints; None
    for a new run (or an unreadable record)."""
    path = os.path.join(logdir, "job.json")
    if tf.train.get_checkpoint_state(logdir) is None or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f).get("data")
    except (OSError, ValueError, AttributeError):
        return None


def _record_job(args, source):
    """Keep the run's data source and flags in ``logdir/job.json``; refuse to resume a run
    trained on other data (digits vs MNIST) rather than silently mix them."""
    path = os.path.join(args.logdir, "job.json")
    before = _recorded_source(args.logdir)
    if before is not None and before != source:
        raise SystemExit(f"error: the run in {args.logdir!r} was trained on {before}, but "
                         f"this time the data is {source}; use --fresh to start over on "
                         f"{source}, or another --logdir")
    flags = {k: v for k, v in vars(args).items() if k not in ("func", "source_url")}
    with atomic_file(path, "w") as f:
        json.dump({"data": source, "flags": flags}, f, indent=1)


class _StopRequest:
    """SIGINT/SIGTERM ask the loop to stop after the current step; a second SIGINT kills."""

    def __init__(self):
        self.signum = None
        self._old = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.signum = signum

    def __exit__(self, *exc):
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


# ── training ─────────────────────────────────────────────────────────────────────────
def evaluate(sess, model, dataset):
    """Accuracy over a whole ``DataSet``, in batches (bounded memory)."""
    count = sess.make_callable(model.correct, [model.x, model.labels])
    correct = 0
    for i in range(0, dataset.num_examples, _EVAL_BATCH):
        correct += int(count(dataset.images[i:i + _EVAL_BATCH],
                             dataset.labels[i:i + _EVAL_BATCH]))
    return correct / max(dataset.num_examples, 1)


def _scalar_summary(tag, value):
    return tf.Summary(value=[tf.Summary.Value(tag=tag, simple_value=float(value))])


class _NoWriter:
    """The FileWriter of a worker other than rank 0: rank 0 alone writes files."""

    def add_summary(self, *args, **kwargs):
        pass

    close = add_summary


def train(args, out=sys.stdout):
    """Run the job described by parsed ``args``; returns the exit code.

    Under ``mpiexec -n N`` the N workers split every batch (``--batch-size`` is the
    global one) and average their gradients; rank 0 alone restores, evaluates, prints and
    writes files, and gives its variables to the others at the start."""
    distributed = sfd.launched_by_mpi() and sfd.init() > 1
    root = not distributed or sfd.rank() == 0
    if not root:
        out = open(os.devnull, "w")  # the workers do not repeat rank 0's lines
    if root:
        _prepare_logdir(args, out)
    data, source = _job_data(args, out, root)
    if root:
        _record_job(args, source)

    tf.reset_default_graph()
    if args.seed is not None:
        tf.set_random_seed(args.seed)
    model = Model(args.lr, distributed)
    broadcast = sfd.broadcast_global_variables(0) if distributed else None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restored = _restore_latest(model.saver, sess, args.logdir, out) if root else None
        if distributed:
            sess.run(broadcast)  # rank 0's variables (restored or initialized) everywhere
        step = int(sess.run(model.global_step))
        # On resume, purge_step writes SessionLog(START) at the restored step: TensorBoard
        # then drops the points a killed run logged after its last checkpoint.
        writer = tf.summary.FileWriter(args.logdir, None if restored else sess.graph,
                                       purge_step=step if restored else None) if root \
            else _NoWriter()
        _print_start(args, out, restored, step, source, data)
        code = _loop(args, sess, model, data, writer, step, out, distributed, root)
        if code == 0 and root:  # interrupted runs exit promptly, without the test pass
            test_acc = evaluate(sess, model, data.test)
            final_step = int(sess.run(model.global_step))
            writer.add_summary(_scalar_summary("test/accuracy", test_acc), final_step)
            print(f"test accuracy: {test_acc:.4f}", file=out)
        writer.close()
    print(f"tensorboard --logdir {args.logdir}", file=out, flush=True)
    return code


def _prepare_logdir(args, out):
    """Rank 0: make the logdir, moving the previous run aside under ``--fresh``."""
    os.makedirs(args.logdir, exist_ok=True)
    if args.fresh:
        moved = _move_old_run(args.logdir)
        if moved:
            print(f"--fresh: moved the previous run to {moved}", file=out)


def _job_data(args, out, root):
    """``(data sets, source name)``: the digits stand-in when resuming a run trained on
    it, else MNIST (or the stand-in when MNIST cannot be had)."""
    if root and _recorded_source(args.logdir) == "sklearn-digits":
        # The run was trained on the stand-in: resuming it needs no MNIST (no downloads
        # timing out, no "MNIST is not available" block again at every resume).
        print(f"resuming a run trained on scikit-learn's bundled digits ({args.logdir}/"
              f"job.json); not looking for MNIST (--fresh starts over)", file=out)
        return _digits_fallback(args.validation_size, args.seed), "sklearn-digits"
    return load_data(args.data_dir, args.validation_size, args.seed,
                     getattr(args, "source_url", mnist.DEFAULT_SOURCE_URL))


def _print_start(args, out, restored, step, source, data):
    if restored:
        print(f"resuming from {restored} (global_step {step})", file=out)
    print(f"(loss and train acc below are means over {args.log_every} steps, as "
          f"TensorBoard's train/mean_loss; summaries/loss is one batch's)", file=out)
    print(f"training the seed's CNN on {source}: {data.train.num_examples} training "
          f"images, batch {args.batch_size}, Adam {args.lr:g}; logdir {args.logdir}",
          file=out, flush=True)


def _loop(args, sess, model, data, writer, step, out, distributed=False, root=True):
    save_path = os.path.join(args.logdir, "model.ckpt")
    feeds = [model.x, model.labels, model.keep_prob]
    train_step = sess.make_callable([model.train_op, model.loss, model.accuracy], feeds)
    train_summary = sess.make_callable(
        [model.train_op, model.loss, model.accuracy, model.summary_op, model.global_step], feeds)
    next_batch = StepBatches(data.train, args.batch_size, args.seed, first_step=step).next_batch
    batch_size, keep = args.batch_size, np.float32(0.5)
    progress = Progress(step, args.steps, args.log_every, out)
    saved_at = step
    with _StopRequest() as stop:
        try:
            while step < args.steps and not _stopping(stop, distributed):
                step += 1
                batch = next_batch(batch_size)  # the global batch; each worker takes its part
                loss, acc = _train_one(step, sfd.split_batch(*batch) if distributed else batch,
                                       train_step, train_summary, writer, args.log_every, keep)
                extra = ""
                if step % args.eval_every == 0 and data.validation.num_examples and root:
                    extra = _validate(sess, model, data, writer, step)
                progress.update(step, loss, acc, extra)
                if step % args.log_every == 0:  # the console's means, beside each batch's
                    writer.add_summary(_scalar_summary("train/mean_loss", progress.loss), step)
                    writer.add_summary(_scalar_summary("train/mean_accuracy", progress.acc),
                                       step)
                if step % args.save_every == 0:
                    _save_finite(sess, model, save_path, step, root)
                    saved_at = step
            if step != saved_at:
                _save_finite(sess, model, save_path, step, root)
        except _Diverged as e:
            progress.print(f"error: training diverged at step {e.step}: {e.reason}. Stopped "
                           f"without saving; the last good checkpoint is "
                           f"{tf.train.latest_checkpoint(args.logdir) or '(none)'}. A lower "
                           f"--lr may help; running the same command resumes from it.")
            return 1
        if stop.signum is not None:
            return _stopped(stop.signum, step, args.logdir, progress)
        progress.close()
    return 0


def _validate(sess, model, data, writer, step):
    """Log the validation accuracy; returns its text for the progress line."""
    val = evaluate(sess, model, data.validation)
    writer.add_summary(_scalar_summary("validation/accuracy", val), step)
    return f"  validation acc {val:.4f}"


def _save_finite(sess, model, save_path, step, root):
    # Finite weights only: a diverged run must not rotate good checkpoints out.
    if not all(np.isfinite(w).all() for w in sess.run(model.variables)):
        raise _Diverged(step, "the weights are no longer finite")
    if root:
        model.saver.save(sess, save_path, global_step=model.global_step)


def _stopped(signum, step, logdir, progress):
    """Say where a run stopped by a signal left off; returns its exit code."""
    name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    progress.print(f"{name}: stopped at step {step}; checkpoint saved in "
                   f"{logdir}. Run the same command again to continue.")
    return 130 if signum == signal.SIGINT else 143


def _stopping(stop, distributed):
    # All workers stop at the same step (a signal may reach them at different steps): one
    # that left the loop would leave the others waiting in their next allreduce.
    return sfd.any_worker(stop.signum is not None) if distributed else stop.signum is not None


class _Diverged(Exception):
    def __init__(self, step, reason):
        super().__init__(reason)
        self.step, self.reason = step, reason


def _train_one(step, batch, train_step, train_summary, writer, log_every, keep):
    """One training step (with summaries every ``log_every``): ``(loss, accuracy)``;
    ``_Diverged`` on a non-finite loss."""
    images, labels = batch
    try:
        if step % log_every == 0:
            _, loss, acc, summary, gs = train_summary(images, labels, keep)
        else:
            _, loss, acc = train_step(images, labels, keep)
            summary = None
    except tf.errors.InvalidArgumentError as e:  # a histogram of NaN weights (as TF)
        raise _Diverged(step, e.message.split("\n")[0]) from None
    loss = float(loss)
    if not math.isfinite(loss):
        raise _Diverged(step, f"the loss is {loss}")
    if summary is not None:
        writer.add_summary(summary, int(gs))
    return loss, float(acc)


# ── command line ─────────────────────────────────────────────────────────────────────
def _at_least(low):
    """An argparse type: an int no smaller than ``low`` (else a usage error, exit 2)."""
    def int_at_least(text):
        value = int(text)  # ValueError: argparse's "invalid int value"
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        return value
    int_at_least.__name__ = "int"  # argparse names the type in "invalid int value"
    return int_at_least


def _configure(parser):
    d = DEFAULTS
    parser.add_argument("--steps", type=_at_least(0), default=d["steps"],
                        help="train until global_step reaches this (default %(default)s)")
    parser.add_argument("--batch-size", type=_at_least(1), default=d["batch_size"],
                        help="default %(default)s")
    parser.add_argument("--lr", type=float, default=d["lr"],
                        help="Adam learning rate (default %(default)s)")
    parser.add_argument("--eval-every", type=_at_least(1), default=d["eval_every"],
                        help="validation accuracy every N steps (default %(default)s)")
    parser.add_argument("--save-every", type=_at_least(1), default=d["save_every"],
                        help="checkpoint every N steps (default %(default)s)")
    parser.add_argument("--log-every", type=_at_least(1), default=d["log_every"],
                        help="summaries (and, off a terminal, a progress line) every N steps")
    parser.add_argument("--seed", type=int, default=d["seed"],
                        help="graph-level and data-order seed (default %(default)s)")
    parser.add_argument("--logdir", default=d["logdir"],
                        help="checkpoints and event files (default %(default)s)")
    parser.add_argument("--data-dir", default=d["data_dir"],
                        help="the MNIST files, or where to download them (default %(default)s)")
    parser.add_argument("--validation-size", type=int, default=d["validation_size"],
                        help="training images held out for validation (default %(default)s)")
    parser.add_argument("--source-url", default=mnist.DEFAULT_SOURCE_URL,
                        help=argparse.SUPPRESS)
    parser.add_argument("--fresh", action="store_true",
                        help="start over (the previous run is moved aside, not deleted)")
    parser.set_defaults(func=_run)
    return parser


def _run(args):
    try:
        return train(args)
    except KeyboardInterrupt:  # before training started, or a second Ctrl-C
        print("\ninterrupted", file=sys.stderr)
        return 130


def add_parser(subparsers):
    """Register ``scopeflow train-mnist``."""

    return _configure(subparsers.add_parser(
        "train-mnist", help="train the seed's MNIST CNN (resumes from --logdir)",
        description=__doc__.split("\n\n")[0],
        epilog=epilog("no training data", "130 Ctrl-C, 143 SIGTERM, both after saving a "
                      "checkpoint: run the same command again to continue")))


def main(argv=None):
    """``python -m scopeflow.examples.mnist_cnn [flags]``; returns the exit code."""
    parser = _configure(argparse.ArgumentParser(
        prog="python -m scopeflow.examples.mnist_cnn", description=__doc__.split("\n\n")[0]))
    args = parser.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
