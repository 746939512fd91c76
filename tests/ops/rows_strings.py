"""String ops (scopeflow/ops/strings/): expected values are TF 2.21's outputs for the same
inputs. Live comparisons with TF: tests/unit/ops/strings/test_string_ops.py."""

from __future__ import annotations

import numpy as np

from scopeflow.ops.strings import hash_ops, join_split_ops, string_ops

from .op_table import OpCase


def _expect(*want):
    def check(*got):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            w = np.asarray(w, dtype=g.dtype if g.dtype != object else object)
            assert g.shape == w.shape, (g.shape, w.shape)
            assert g.reshape(-1).tolist() == w.reshape(-1).tolist(), (g, w)
    return check


def _s(*x):
    return np.array(x, dtype=object)


def _sparse(st):
    return [st.indices, st.values, st.dense_shape]


_WORDS = _s(b"a b  c", b"", b"d")

ROWS = [
    OpCase("StringToHashBucket", lambda tf, x: hash_ops.string_to_hash_bucket_v1(x, 2**63 - 1),
           _expect([105434511174508092, 5943547241907780938]), [_s(b"", b"hello")],
           check_values=False),
    OpCase("StringToHashBucketFast", lambda tf, x: hash_ops.string_to_hash_bucket_fast(x, 10),
           _expect([9, 6]), [_s(b"a", b"hello")], check_values=False),
    OpCase("StringToHashBucketStrong",
           lambda tf, x: hash_ops.string_to_hash_bucket_strong(x, 100, [1, 2]),
           _expect([46, 22]), [_s(b"a", b"hello")], check_values=False),
    OpCase("Fingerprint", lambda tf, x: hash_ops.fingerprint(x),
           _expect(np.array([[85, 27, 103, 37, 147, 177, 144, 87],
                             [8, 35, 170, 152, 214, 154, 58, 109]], np.uint8)),
           [_s([b"a", b"bc"], [b"", b"d"])], check_values=False),
    OpCase("AsString", lambda tf, x: string_ops.as_string(x, precision=3, width=10, fill="0"),
           _expect(_s(b"000001.500", b"000003.000")), [np.array([1.5, 3.0])],
           check_values=False),
    OpCase("EncodeBase64", lambda tf, x: string_ops.encode_base64(x, pad=True),
           _expect(_s(b"", b"YQ==", b"YWI=", b"YWJj", b"-__-")),
           [_s(b"", b"a", b"ab", b"abc", b"\xfb\xff\xfe")], check_values=False),
    OpCase("DecodeBase64", lambda tf, x: string_ops.decode_base64(x),
           _expect(_s(b"ab", b"ab", b"a", b"\xfb\xff\xfe", b"")),
           [_s(b"YWI=", b"YWI", b"YQ", b"-__-", b"")], check_values=False),
    OpCase("StringStrip", lambda tf, x: string_ops.string_strip(x),
           _expect(_s(b"a b", b"x", b"")), [_s(b"  a b \t\n", b"\x0bx\x0c\r", b"")],
           check_values=False),
    OpCase("StringLower", lambda tf, x: string_ops.string_lower(x, "utf-8"),
           _expect(_s("abé".encode())), [_s("AbÉ".encode())], check_values=False),
    OpCase("StringUpper", lambda tf, x: string_ops.string_upper(x),
           _expect(_s("ABÉ".encode())), [_s("abÉ".encode())], check_values=False),
    OpCase("StringLength", lambda tf, x: string_ops.string_length(x, unit="UTF8_CHAR"),
           _expect(np.array([5, 2, 0], np.int32)), [_s("héllo".encode(), b"\xff\xfe", b"")],
           check_values=False),
    OpCase("Substr", lambda tf, x: string_ops.substr(x, [0, 1], [1, 2]),
           _expect(_s([b"a", b"ef"], [b"g", b"kl"])), [_s([b"abc", b"def"], [b"ghi", b"jkl"])],
           check_values=False),
    OpCase("StaticRegexReplace",
           lambda tf, x: string_ops.regex_replace(x, r"([a-z]+)(\d+)", r"\2<\1>"),
           _expect(_s(b"12<ab>34<cd>")), [_s(b"ab12cd34")], check_values=False),
    OpCase("RegexReplace",
           lambda tf, x: string_ops.regex_replace(x, tf.constant("X"), "-", False),
           _expect(_s(b"a-bXc", b"xx")), [_s(b"aXbXc", b"xx")], check_values=False),
    OpCase("RegexFullMatch", lambda tf, x: string_ops.regex_full_match(x, tf.constant(".")),
           _expect([True, False]), [_s("é".encode(), b"ab")], check_values=False),
    OpCase("ReduceJoin", lambda tf, x: join_split_ops.reduce_join(x, 0, separator=","),
           _expect(_s(b"a,c", b"b,d")), [_s([b"a", b"b"], [b"c", b"d"])], check_values=False),
    OpCase("UnsortedSegmentJoin",
           lambda tf, x: join_split_ops.unsorted_segment_join(x, [0, 2, 0], 3, separator=","),
           _expect(_s([b"a,e", b"b,f"], [b"", b""], [b"c", b"d"])),
           [_s([b"a", b"b"], [b"c", b"d"], [b"e", b"f"])], check_values=False),
    OpCase("StringSplit",
           lambda tf, x: _sparse(join_split_ops.string_split(x, skip_empty=False)),
           _expect(np.array([[0, 0], [0, 1], [0, 2], [0, 3], [2, 0]]),
                   _s(b"a", b"b", b"", b"c", b"d"), [3, 4]), [_WORDS], check_values=False),
    OpCase("StringSplitV2", lambda tf, x: _sparse(join_split_ops.strings_split_v1(x)),
           _expect(np.array([[0, 0], [0, 1], [0, 2], [2, 0]]), _s(b"a", b"b", b"c", b"d"),
                   [3, 3]), [_WORDS], check_values=False),
    OpCase("UnicodeTranscode",
           lambda tf, x: string_ops.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
           _expect(_s(b"\x00a\xff\xfd\x00b", b"\x00\xe9")), [_s(b"a\xffb", "é".encode())],
           check_values=False),
    OpCase("UnicodeEncode", lambda tf, x: string_ops.unicode_encode(x, "UTF-8"),
           _expect(_s(b"hi", "\xe9?".encode())), [np.array([[104, 105], [233, 63]], np.int32)],
           check_values=False),
    OpCase("StringNGrams", lambda tf, x: join_split_ops.ngrams(x, 2, pad_values="#"),
           _expect(_s([b"# a", b"a b", b"b #"], [b"# c", b"c d", b"d #"])),
           [_s([b"a", b"b"], [b"c", b"d"])], check_values=False),
]
