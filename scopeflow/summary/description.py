"""TF1's summary helpers for TF2-style summaries: ``SummaryDescription``,
``get_summary_description`` and ``all_v2_summary_ops``.

A TF1 ``TensorSummary`` op (the graphs of TF 1.x; ``tf.summary.tensor_summary`` now builds
``TensorSummaryV2``) carries a ``SummaryDescription`` as JSON in its ``description`` attr;
``get_summary_description`` reads it back from the op's NodeDef. ``all_v2_summary_ops``
lists the graph's ``_SUMMARY_V2`` collection, where TF's TF2-style summary ops (tf.summary
v2 and tf.contrib.summary) register themselves; TF1's summary ops never join it, so for a
TF1 graph it is empty unless something adds to it, as in TF.
"""

from __future__ import annotations

from google.protobuf import json_format

from scopeflow.framework.graph import get_collection
from scopeflow.io import protos
from scopeflow.ops.io.decode_ops import as_text

__all__ = ["SummaryDescription", "get_summary_description", "all_v2_summary_ops"]

SummaryDescription = protos.SummaryDescription

# TF's ``GraphKeys._SUMMARY_COLLECTION``.
SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


def get_summary_description(node_def):
    """The ``SummaryDescription`` of a ``TensorSummary`` op's NodeDef (a NodeDef proto, or
    an op's ``node_def``); ``ValueError`` for another op type."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    attr = node_def.attr["description"]
    text = as_text(attr.s if hasattr(attr, "s") else attr)
    description = SummaryDescription()
    json_format.Parse(text, description)
    return description


def all_v2_summary_ops():
    """The TF2-style summary ops of the default graph (its ``_SUMMARY_V2`` collection)."""
    return get_collection(SUMMARY_V2_COLLECTION)
