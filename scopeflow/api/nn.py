"""``tf.nn``: the neural-network ops, gathered from their op-family modules."""

from scopeflow.autodiff.gradients import RegisterGradient as _RegisterGradient
from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.array.space_ops import depth_to_space, space_to_batch, space_to_depth  # noqa: F401
from scopeflow.ops.math.approx_topk_ops import approx_max_k, approx_min_k  # noqa: F401
from scopeflow.ops.math.count_ops import zero_fraction  # noqa: F401
from scopeflow.ops.math_ops import sigmoid, tanh  # noqa: F401 - TF1 has tf.nn.sigmoid/tanh
from scopeflow.ops.nn.conv3d_ops import conv3d_transpose  # noqa: F401
from scopeflow.ops.nn.conv_ops import *  # noqa: F403
from scopeflow.ops.nn.conv_pool_composites import *  # noqa: F403
from scopeflow.ops.nn.ctc_decoder_ops import *  # noqa: F403
from scopeflow.ops.nn.ctc_ops import *  # noqa: F403
from scopeflow.ops.nn.ctc_v2_ops import ctc_loss_v2  # noqa: F401
from scopeflow.ops.nn.embedding_ops import *  # noqa: F403
from scopeflow.ops.nn.fractional_pool_ops import fractional_avg_pool, fractional_max_pool  # noqa: F401
from scopeflow.ops.nn.morphology_ops import *  # noqa: F403
from scopeflow.ops.nn.nn_extra_composites import *  # noqa: F403
from scopeflow.ops.nn.nn_extra_composites import SWISH_GRADIENT as _SWISH_GRADIENT
from scopeflow.ops.nn.nn_extra_composites import swish_grad as _swish_grad
from scopeflow.ops.nn.pool_argmax_ops import *  # noqa: F403
from scopeflow.ops.nn.pool_ops import *  # noqa: F403
from scopeflow.ops.nn.quantized_nn_ops import *  # noqa: F403
from scopeflow.ops.nn.safe_embedding_ops import *  # noqa: F403
from scopeflow.ops.nn_ops import *  # noqa: F403
from scopeflow.ops.random.candidate_sampling_ops import *  # noqa: F403
from scopeflow.ops.random.learned_unigram_ops import *  # noqa: F403
from scopeflow.ops.sparse.sparse_ops import embedding_lookup_sparse  # noqa: F401
from scopeflow.rnn import rnn_cell  # noqa: F401 - tf.nn.rnn_cell
from scopeflow.rnn.rnn import (  # noqa: F401
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    raw_rnn,
    static_bidirectional_rnn,
    static_rnn,
    static_state_saving_rnn,
)

# swish's custom gradient (its IdentityN's override), registered where autodiff is below.
_RegisterGradient(_SWISH_GRADIENT)(_swish_grad)


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
