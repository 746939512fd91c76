"""``bench_word2vec.py --dynamic-batch`` as a script of its own, for ``compare.py``.

    python bench/compare.py bench/bench_word2vec.py bench/bench_word2vec_dynamic.py

The same word2vec step with ``placeholder([None])`` feeds (as the public tutorials write
it), fed batches of 128: with plans specialised on the fed shapes it should run as fast
as the static ``[128]`` graph.
"""

from __future__ import annotations

import sys

if "--dynamic-batch" not in sys.argv:
    sys.argv.append("--dynamic-batch")

import bench_word2vec  # noqa: E402 - bench/ is on sys.path when a script runs

if __name__ == "__main__":
    bench_word2vec.main()
