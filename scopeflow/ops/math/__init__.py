"""Math ops: arithmetic and comparisons, reductions, elementwise functions, statistics,
matrix products, segment reductions, clipping; ``libm.py`` and ``blas.py`` are the
bit-exact scalar functions and matrix products they run on."""
