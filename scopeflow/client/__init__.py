"""TF1's ``tensorflow.python.client`` modules that users import (``timeline``)."""

from scopeflow.client import timeline

__all__ = ["timeline"]
