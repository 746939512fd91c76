"""``tf.sysconfig``: how this build was made. scopeflow has no C++ library to build
extensions against, so the include and link flags are not provided (docs/API.md); the build
facts TF1 code checks (``get_build_info()["is_cuda_build"]``) are answered."""

import platform as _platform

from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD", "get_build_info"]

CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0


def get_build_info() -> dict:
    """TF's build-info dict for a CPU-only build."""
    return {"cpu_compiler": _platform.python_compiler(), "is_cuda_build": False,
            "is_rocm_build": False, "is_tensorrt_build": False}


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
