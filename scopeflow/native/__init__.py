"""Optional native kernel backends (``pip install scopeflow[fast]``).

NumPy stays the default and the reference: a backend serves only the ops and attrs it
supports, found at kernel call by a cheap check, and every other case falls through to
the NumPy kernel. ``SCOPEFLOW_NATIVE=0`` turns them all off; ``scopeflow info`` says
which backend each supported op uses.

* :mod:`scopeflow.native.backends` - which backends can run each op type: the table the
  kernels choose from and ``scopeflow info`` (:mod:`scopeflow.cli.info`) prints.
* :mod:`scopeflow.native.onednn` - Intel's oneDNN (what TensorFlow uses on x86) through
  ``ctypes``: Conv2D and its two gradients, MaxPool.

Nothing here imports scopeflow beyond this package, so the op families can use it.
"""
