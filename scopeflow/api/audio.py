"""``tf.audio``: WAV encoding and decoding."""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.signal.audio_ops import decode_wav, encode_wav

__all__: list[str] = ["decode_wav", "encode_wav"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
