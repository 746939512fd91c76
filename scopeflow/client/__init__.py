"""TF1's ``tensorflow.python.client`` modules that users import (``timeline``,
``device_lib``)."""

from scopeflow.client import device_lib, timeline

__all__ = ["device_lib", "timeline"]
