"""``import scopeflow.compat.v1 as tf`` gives exactly the namespace of ``import scopeflow``."""

import sys as _sys

import scopeflow as _scopeflow

_sys.modules[__name__] = _scopeflow
