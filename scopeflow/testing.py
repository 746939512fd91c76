"""Testing helpers for scopeflow programs (no test framework needed).

:func:`assert_resume_equivalent` checks the promise of exact resume on a user's own model:
training ``steps`` steps straight gives bitwise the same variables as training ``k``
steps, saving a checkpoint, throwing the graph and session away, restoring into a newly
built graph and training the rest.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

import scopeflow as tf

__all__ = ["assert_resume_equivalent"]


def _train(build_fn, first, last, restore_from=None, save_to=None):
    """Builds a fresh graph, initializes or restores, runs steps ``first+1 .. last``;
    returns ``{variable name: value}`` (and saves to ``save_to`` when given)."""
    tf.reset_default_graph()
    step = build_fn()
    saver = tf.train.Saver(training_state=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        if restore_from is not None:
            saver.restore(sess, restore_from)
        run = step if callable(step) else (lambda s: s.run(step))
        for _ in range(first, last):
            run(sess)
        if save_to is not None:
            saver.save(sess, save_to)
        variables = tf.global_variables()
        return dict(zip([v.op.name for v in variables], sess.run(variables)))


def assert_resume_equivalent(build_fn, steps, stop_at):
    """Asserts that interrupting training at ``stop_at`` changes nothing.

    ``build_fn()`` builds the model in the (new, empty) default graph — seeding it with
    ``tf.set_random_seed`` if the run should be repeatable — and returns one training step:
    a fetch for ``sess.run``, or a callable ``step(sess)`` (for feeds, Python-side input
    such as an MNIST ``DataSet``, which joins the checkpoint with
    ``tf.train.add_training_state``). ``stop_at`` is a step count or a list of them.

    For each ``k`` in ``stop_at``: ``k`` steps, a checkpoint (``Saver(training_state=True)``),
    a new graph and session restored from it, ``steps - k`` more steps. Every variable must
    equal, bit for bit, its value after ``steps`` uninterrupted steps; an AssertionError
    lists those that differ.

    >>> import scopeflow as tf
    >>> def build():
    ...     tf.set_random_seed(1)
    ...     w = tf.Variable(tf.ones([3]), name="w")
    ...     noise = tf.nn.dropout(tf.random_normal([3]), keep_prob=0.5)
    ...     return tf.assign_add(w, noise)
    >>> assert_resume_equivalent(build, steps=6, stop_at=[1, 3])
    """
    stops = [stop_at] if isinstance(stop_at, (int, np.integer)) else list(stop_at)
    for k in stops:
        if not 0 <= k <= steps:
            raise ValueError(f"stop_at must be between 0 and steps={steps}, got {k}")
    straight = _train(build_fn, 0, steps)
    tmp = tempfile.mkdtemp(prefix="scopeflow-resume-")
    try:
        for k in stops:
            path = os.path.join(tmp, f"at-{k}")
            _train(build_fn, 0, k, save_to=path)
            resumed = _train(build_fn, k, steps, restore_from=path)
            _compare(straight, resumed, k, steps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _compare(straight, resumed, k, steps):
    problems = []
    for name in sorted(set(straight) | set(resumed)):
        if name not in resumed or name not in straight:
            problems.append(f"  {name}: only in the {'straight' if name in straight else 'resumed'}"
                            f" run")
            continue
        a, b = np.asarray(straight[name]), np.asarray(resumed[name])
        if a.shape != b.shape or a.dtype != b.dtype:
            problems.append(f"  {name}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
        elif a.tobytes() != b.tobytes():
            if a.dtype.kind in "fc":
                diff = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
                problems.append(f"  {name}: differs, by up to {diff:g}")
            else:
                problems.append(f"  {name}: differs")
    if problems:
        raise AssertionError(
            f"training {k} steps, restarting from a checkpoint and training {steps - k} more "
            f"does not give the variables of {steps} straight steps:\n" + "\n".join(problems))
