"""Neural-network ops (``tf.nn``'s own), gathered from their family modules.

A facade: each op is declared, as one block, in its family module; this module re-exports
the builders (``__all__``, which ``tf.nn`` takes) and the op handles other modules reach
through it (``x as x``: a re-export). The families:

* :mod:`scopeflow.ops.nn.nn_activation_ops`: Relu, Relu6, Elu, Selu, LeakyRelu, Softplus,
  Softsign, Softmax, LogSoftmax (and their ``<Op>Grad`` ops);
* :mod:`scopeflow.ops.nn.nn_loss_ops`: the softmax cross-entropies and L2Loss;
* :mod:`scopeflow.ops.nn.nn_composites`: what TF builds from other ops (the logistic loss,
  dropout, moments, batch_normalization, l2_normalize);
* :mod:`scopeflow.ops.nn.nn_norm_ops`: FusedBatchNormV3 and LRN;
* :mod:`scopeflow.ops.nn.nn_top_k_ops`: TopKV2 and InTopKV2;
* :mod:`scopeflow.ops.nn.conv_composites`: conv1d and separable_conv2d (built from Conv2D,
  DepthwiseConv2dNative);
* :mod:`scopeflow.ops.nn.conv3d_ops`: Conv3D and its gradient ops (``conv3d``,
  ``conv3d_backprop_filter_v2``) and MaxPool3D, AvgPool3D and their gradient ops
  (``max_pool3d``, ``avg_pool3d``).

Convolutions and pooling are :mod:`scopeflow.ops.nn.conv_ops` and :mod:`scopeflow.ops.nn.pool_ops`.
The family modules never import this one.
"""

from __future__ import annotations

from scopeflow.ops.nn.conv3d_ops import avg_pool3d, conv3d, conv3d_backprop_filter_v2, max_pool3d
from scopeflow.ops.nn.conv_composites import conv1d, separable_conv2d
from scopeflow.ops.nn.nn_activation_ops import (
    elu,
    leaky_relu,
    log_softmax,
    relu,
    relu6,
    selu,
    softmax,
    softplus,
    softsign,
)
from scopeflow.ops.nn.nn_activation_ops import relu_grad_op as relu_grad_op
from scopeflow.ops.nn.nn_composites import (
    batch_normalization,
    dropout,
    l2_normalize,
    moments,
    sigmoid_cross_entropy_with_logits,
)
from scopeflow.ops.nn.nn_loss_ops import (
    l2_loss,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)
from scopeflow.ops.nn.nn_loss_ops import xent_op as xent_op
from scopeflow.ops.nn.nn_norm_ops import fused_batch_norm, local_response_normalization, lrn
from scopeflow.ops.nn.nn_top_k_ops import in_top_k, top_k

__all__ = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "softplus", "softsign", "softmax",
    "log_softmax", "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", "l2_loss",
    "dropout", "moments", "batch_normalization", "fused_batch_norm", "lrn",
    "local_response_normalization", "l2_normalize", "in_top_k", "top_k", "conv1d",
    "separable_conv2d", "conv3d", "conv3d_backprop_filter_v2",
    "max_pool3d", "avg_pool3d",
]
