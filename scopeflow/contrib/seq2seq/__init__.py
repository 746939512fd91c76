"""``tf.contrib.seq2seq`` as TF 1.15 had it (the NMT tutorial's stack): the decoders,
helpers, ``dynamic_decode``, beam search, attention and ``sequence_loss``."""

from scopeflow.contrib.seq2seq.attention_wrapper import (
    AttentionMechanism,
    AttentionWrapper,
    AttentionWrapperState,
    BahdanauAttention,
    BahdanauMonotonicAttention,
    LuongAttention,
    LuongMonotonicAttention,
    hardmax,
    monotonic_attention,
    safe_cumprod,
)
from scopeflow.contrib.seq2seq.basic_decoder import BasicDecoder, BasicDecoderOutput
from scopeflow.contrib.seq2seq.beam_search_decoder import (
    BeamSearchDecoder,
    BeamSearchDecoderOutput,
    BeamSearchDecoderState,
    FinalBeamSearchDecoderOutput,
    tile_batch,
)
from scopeflow.contrib.seq2seq.beam_search_ops import gather_tree
from scopeflow.contrib.seq2seq.decoder import Decoder, dynamic_decode
from scopeflow.contrib.seq2seq.helper import (
    CustomHelper,
    GreedyEmbeddingHelper,
    Helper,
    InferenceHelper,
    SampleEmbeddingHelper,
    ScheduledEmbeddingTrainingHelper,
    ScheduledOutputTrainingHelper,
    TrainingHelper,
)
from scopeflow.contrib.seq2seq.loss import sequence_loss
from scopeflow.framework.api_fallback import missing_attribute

__all__ = ["BasicDecoder", "BasicDecoderOutput", "Decoder", "dynamic_decode",
           "GreedyEmbeddingHelper", "Helper", "TrainingHelper", "sequence_loss", "tile_batch",
           "gather_tree", "CustomHelper", "SampleEmbeddingHelper",
           "ScheduledEmbeddingTrainingHelper", "InferenceHelper",
           "AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "BahdanauAttention", "LuongAttention", "hardmax", "safe_cumprod",
           "monotonic_attention", "BahdanauMonotonicAttention", "LuongMonotonicAttention",
           "BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState",
           "FinalBeamSearchDecoderOutput", "ScheduledOutputTrainingHelper"]


def __getattr__(name):
    """A TF 1.x name scopeflow lacks raises NotImplementedError naming it
    (scopeflow/framework/api_fallback.py)."""
    raise missing_attribute(__name__, name)
