"""Checkpoint save/restore speed for ~1 GB of float32 variables, against copying the bytes.

    python bench/bench_checkpoint.py [--mb 1024]          # scopeflow's tf.train.Saver
    ../shared/tools/tf1 bench/bench_checkpoint.py --tf    # real TensorFlow's
    python bench/compare.py bench/bench_checkpoint.py     # both, as ratios

Sixteen float32 variables share ``--mb`` megabytes (default 1024). ``save`` is
``Saver.save(sess, prefix, global_step=i, write_meta_graph=False)``, best of 3, each a new
checkpoint as in training (deleting old ones is not timed, for the copies neither);
``restore`` is ``Saver.restore``. The yardsticks copy the checkpoint's data file with
``cp`` (``cp_ms``) and with ``cp`` followed by ``sync`` of the copy (``cp_sync_ms``):
scopeflow's save fsyncs its files, so ``cp_sync`` is the like-for-like rate, while
TensorFlow's save does not fsync. Human-readable MB/s and ratios to ``cp`` come first;
the last line is one JSON object of milliseconds (lower is better) for compare.py, whose
``framework`` says which saver ran. The scopeflow run also times the bundle layer alone
(``write_bundle``/``BundleReader``). Needs about 2x ``--mb`` of free disk in the temp
directory, and removes what it writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

USE_TF = "--tf" in sys.argv
if USE_TF:
    import tensorflow.compat.v1 as tf
else:
    import scopeflow as tf

NUM_VARS = 16


def _megabytes():
    if "--mb" in sys.argv:
        return int(sys.argv[sys.argv.index("--mb") + 1])
    return int(os.environ.get("SCOPEFLOW_BENCH_CKPT_MB", "1024"))


def _check_disk(directory, nbytes):
    free = shutil.disk_usage(directory).free
    if free < 2.5 * nbytes:
        sys.exit(f"bench_checkpoint: {free / 2**30:.1f} GiB free in {directory}, needs "
                 f"{2.5 * nbytes / 2**30:.1f} GiB; pass a smaller --mb")


def _timed_rounds(make_run, cleanup, rounds=3):
    """Best time of ``rounds`` runs; ``cleanup`` (deleting what a run wrote) is not timed."""
    best = float("inf")
    for i in range(rounds):
        run = make_run(i)
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
        cleanup()
    return best


def _remove_except(directory, keep):
    for name in os.listdir(directory):
        if not name.startswith(keep):
            os.remove(os.path.join(directory, name))


def _cp(src, dst, sync):
    def run():
        subprocess.run(["cp", src, dst], check=True)
        if sync:
            subprocess.run(["sync", dst], check=True)
    return run


def _bundle_layer(directory, sess, variables):
    """write_bundle/BundleReader alone, on the same values (scopeflow only)."""
    from scopeflow.io.tensor_bundle import BundleReader, write_bundle

    names = [v.op.name for v in variables]
    values = sess.run(variables)
    prefix = os.path.join(directory, "raw")
    save = _timed_rounds(lambda i: lambda: write_bundle(f"{prefix}-{i}", names, values),
                         lambda: _remove_except(directory, "model.ckpt-0."))
    write_bundle(prefix, names, values)
    values = None  # free the copies before reading back

    def read():
        with BundleReader(prefix) as reader:
            for name in names:
                reader.read(name)
    return save, best_of(read, repeat=3)


def main():
    nbytes = _megabytes() * 2**20
    per_var = nbytes // NUM_VARS // 4
    tmp = tempfile.mkdtemp(prefix="bench_ckpt_")
    try:
        _check_disk(tmp, nbytes)
        tf.reset_default_graph()
        variables = [tf.get_variable(f"layer{i}/kernel", [per_var], tf.float32,
                                     initializer=tf.random_uniform_initializer(-1.0, 1.0))
                     for i in range(NUM_VARS)]
        # As in training: each save is a new checkpoint (global_step); the deletion of
        # old ones (max_to_keep) is left out of both the saves' and the copies' times.
        saver = tf.train.Saver(variables, max_to_keep=None)
        prefix = os.path.join(tmp, "model.ckpt")
        total = per_var * 4 * NUM_VARS
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = saver.save(sess, prefix, global_step=0, write_meta_graph=False)
            keep = os.path.basename(first) + "."
            save = _timed_rounds(
                lambda i: lambda: saver.save(sess, prefix, global_step=i + 1,
                                             write_meta_graph=False),
                lambda: _remove_except(tmp, keep))
            restore = best_of(lambda: saver.restore(sess, first), repeat=3)
            data = f"{first}.data-00000-of-00001"
            assert os.path.getsize(data) == total
            copy = os.path.join(tmp, "copy")
            cp = _timed_rounds(lambda i: _cp(data, copy, sync=False),
                               lambda: _remove_except(tmp, keep))
            cp_sync = _timed_rounds(lambda i: _cp(data, copy, sync=True),
                                    lambda: _remove_except(tmp, keep))
            layer = None if USE_TF else _bundle_layer(tmp, sess, variables)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    mb = total / 1e6
    name = ("tensorflow " + tf.__version__) if USE_TF else "scopeflow"
    print(f"{name}: {NUM_VARS} float32 variables, {mb:.0f} MB; tf.train.Saver")
    rows = [("Saver.save", save), ("Saver.restore", restore), ("cp", cp),
            ("cp + sync", cp_sync)]
    if layer is not None:
        rows += [("write_bundle", layer[0]), ("BundleReader.read", layer[1])]
    for label, seconds in rows:
        print(f"  {label:18s} {seconds * 1e3:8.0f} ms  {mb / seconds:7.0f} MB/s  "
              f"{cp / seconds:5.2f}x cp  {cp_sync / seconds:5.2f}x cp+sync")
    print(json.dumps({"framework": name + " (tf.train.Saver)", "save_ms": save * 1e3,
                      "restore_ms": restore * 1e3, "cp_ms": cp * 1e3,
                      "cp_sync_ms": cp_sync * 1e3}))


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
