"""The samplers' float32 ``expm1f``/``log1pf`` (``scopeflow.ops.math.libm``) by path.

    python bench/bench_libm.py               # per-call times
    python bench/bench_libm.py --word2vec    # and bench_word2vec's training step per path

Paths: ``numpy``, NumPy's float32 ufunc (the C function itself where NumPy runs its plain
loop, as ``libm`` then takes it; SVML's under AVX-512); ``replay``, glibc's code replayed
in NumPy float32 arithmetic (``libm.glibc_expm1f``/``glibc_log1pf``); ``ctypes``, the C
function called element by element. Sizes: 64 and 128 (one run's sampled and true
classes), 4096 (64 runs sampled ahead), 50,000 (a class table). Inputs as the word2vec
sampler's: ``-p`` of log-uniform class probabilities, and ``num_tries * log1pf(-p)``.
Prints one JSON line (microseconds; best of repeated rounds).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

from scopeflow.ops.math import libm

PATHS = ("numpy", "replay", "ctypes")


def use(path):
    """Make ``libm.expm1f``/``log1pf`` take ``path``."""
    libm._float_function.cache_clear()
    libm.numpy_loop_is_plain = lambda name: path == "numpy"
    libm.replay_is_the_c_librarys = lambda: path == "replay"


def inputs(n, rng):
    classes = rng.integers(0, 50_000, n)
    p = (np.log((classes + 2.0) / (classes + 1.0)) / np.log(50_001.0)).astype(np.float32)
    tries = np.float32(rng.integers(64, 200))
    return -p, tries * libm.glibc_log1pf(-p)


def micro(rounds=15):
    """Best time per call of each path; the paths take turns, a round each (this machine's
    speed drifts)."""
    rng = np.random.default_rng(0)
    out = {}
    for n in (64, 128, 4096, 50_000):
        neg_p, x = inputs(n, rng)
        for _ in range(rounds):
            for path in PATHS:
                use(path)
                number = max(1, 4_000 // n) if path == "ctypes" else max(5, 40_000 // n)
                for name, fn, arg in (("expm1f", libm.expm1f, x), ("log1pf", libm.log1pf, neg_p)):
                    key = f"{name}_{n}_{path}_us"
                    t = best_of(lambda fn=fn, arg=arg: fn(arg), 1, number) * 1e6
                    out[key] = min(out.get(key, t), t)
    return out


def word2vec():
    import bench_word2vec as w2v

    tf = w2v.tf
    center, target, loss, step = w2v.build()
    rng = np.random.default_rng(0)
    feeds = [{center: rng.integers(0, w2v.VOCAB, w2v.BATCH),
              target: rng.integers(0, w2v.VOCAB, (w2v.BATCH, 1))} for _ in range(16)]
    out = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        it = iter(range(10**9))

        def train_step():
            sess.run([loss, step], feeds[next(it) % 16])

        calls = {"expm1f": 0, "log1pf": 0, "elements": 0}
        for path in PATHS * 2:                 # twice round: the machine's speed drifts
            use(path)
            for _ in range(100):
                train_step()
            t = best_of(train_step, repeat=15, number=50) * 1e6
            out[f"step_{path}_us"] = min(out.get(f"step_{path}_us", t), t)
        for name in ("expm1f", "log1pf"):      # what a step asks of them (steady state)
            fn = getattr(libm, name)

            def counted(x, fn=fn, name=name):
                calls[name] += 1
                calls["elements"] += np.size(x)
                return fn(x)
            setattr(libm, name, counted)
        for _ in range(640):
            train_step()
        out.update({f"{k}_per_step": v / 640 for k, v in calls.items()})
    return out


def main():
    out = {"opt_loop_plain": {n: libm.numpy_loop_is_plain(n) for n in ("expm1", "log1p")}}
    out.update(micro())
    if "--word2vec" in sys.argv:
        out.update(word2vec())
    print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}))


if __name__ == "__main__":
    main()
