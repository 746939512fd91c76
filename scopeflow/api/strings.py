"""``tf.strings``: string ops (split, join, regex, substr, hashing, formatting).

TF1's signatures (``tf.compat.v1.strings``): ``split`` returns a ``SparseTensor``, ``length``
and ``substr`` take ``name`` before ``unit``, ``reduce_join`` keeps ``keep_dims`` and
``reduction_indices``, ``to_number``/``to_hash_bucket`` take ``string_tensor``.
"""

from scopeflow.framework.api_fallback import missing_attribute
from scopeflow.ops.io.decode_ops import string_to_number as to_number
from scopeflow.ops.io.io_ops import string_join as join
from scopeflow.ops.strings.hash_ops import (
    string_to_hash_bucket_fast as to_hash_bucket_fast,
)
from scopeflow.ops.strings.hash_ops import (
    string_to_hash_bucket_strong as to_hash_bucket_strong,
)
from scopeflow.ops.strings.hash_ops import string_to_hash_bucket_v1 as to_hash_bucket
from scopeflow.ops.strings.join_split_ops import ngrams, unsorted_segment_join
from scopeflow.ops.strings.join_split_ops import reduce_join_v1 as reduce_join
from scopeflow.ops.strings.join_split_ops import string_format as format  # noqa: A004
from scopeflow.ops.strings.join_split_ops import strings_split_v1 as split
from scopeflow.ops.strings.string_ops import (
    as_string,
    regex_full_match,
    regex_replace,
    substr,
    unicode_encode,
    unicode_transcode,
)
from scopeflow.ops.strings.string_ops import string_length as length
from scopeflow.ops.strings.string_ops import string_lower as lower
from scopeflow.ops.strings.string_ops import string_strip as strip
from scopeflow.ops.strings.string_ops import string_upper as upper
from scopeflow.ops.strings.unicode_ragged_ops import (
    bytes_split,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_split,
    unicode_split_with_offsets,
)

__all__: list[str] = [
    "as_string", "bytes_split", "format", "join", "length", "lower", "ngrams", "reduce_join",
    "regex_full_match",
    "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
    "to_hash_bucket_strong", "to_number", "unicode_decode", "unicode_decode_with_offsets",
    "unicode_encode", "unicode_split", "unicode_split_with_offsets", "unicode_transcode",
    "unsorted_segment_join", "upper"]


def __getattr__(name):
    """A TF1 name scopeflow lacks raises NotImplementedError naming it (api/fallback.py)."""
    raise missing_attribute(__name__, name)
