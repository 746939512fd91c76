"""``tf.math.special``: Bessel functions and other special functions."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.math.bessel_ops import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    bessel_j0,
    bessel_j1,
    bessel_k0,
    bessel_k0e,
    bessel_k1,
    bessel_k1e,
    bessel_y0,
    bessel_y1,
)
from scopeflow.ops.math.integral_ops import dawsn, expint, fresnel_cos, fresnel_sin, spence

__all__: list[str] = ["dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence",
                      "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0",
                      "bessel_j1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
                      "bessel_y0", "bessel_y1"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
