"""``tf.io``'s public names. ``tf.io`` is the package :mod:`scopeflow.io` (TF's file formats,
below the graph); its TF1 names come from modules above it (ops, the record files, gfile),
so they are set on the package from here, which ``scopeflow/__init__.py`` imports."""

from __future__ import annotations

from scopeflow import io
from scopeflow.ops.data_flow import queue_ops
from scopeflow.ops.image import image_codec_ops, jpeg_ops, webp_ops
from scopeflow.ops.io import io_ops, parsing_ops, proto_ops, reader_ops, serialization_ops
from scopeflow.ops.sparse import sparse_serialize_ops
from scopeflow.ops.strings import string_ops
from scopeflow.platform import gfile, python_io
from scopeflow.train.basic_session_run_hooks import write_graph
from scopeflow.train.input import match_filenames_once

__all__ = ["install"]

# tf.io name -> the object.
NAMES = {
    "serialize_tensor": serialization_ops.serialize_tensor,
    "parse_tensor": serialization_ops.parse_tensor,
    "decode_compressed": serialization_ops.decode_compressed,
    "decode_json_example": serialization_ops.decode_json_example,
    "matching_files": reader_ops.matching_files,
    "match_filenames_once": match_filenames_once,
    "write_graph": write_graph,
    "QueueBase": queue_ops.QueueBase,
    "PaddingFIFOQueue": queue_ops.PaddingFIFOQueue,
    "PriorityQueue": queue_ops.PriorityQueue,
    "RandomShuffleQueue": queue_ops.RandomShuffleQueue,
    "gfile": gfile,
    "TFRecordWriter": python_io.TFRecordWriter,
    "TFRecordOptions": python_io.TFRecordOptions,
    "TFRecordCompressionType": python_io.TFRecordCompressionType,
    "tf_record_iterator": python_io.tf_record_iterator,
    "FixedLenFeature": parsing_ops.FixedLenFeature,
    "VarLenFeature": parsing_ops.VarLenFeature,
    "FixedLenSequenceFeature": parsing_ops.FixedLenSequenceFeature,
    "SparseFeature": parsing_ops.SparseFeature,
    "parse_example": parsing_ops.parse_example,
    "parse_single_example": parsing_ops.parse_single_example,
    "parse_single_sequence_example": parsing_ops.parse_single_sequence_example,
    "parse_sequence_example": parsing_ops.parse_sequence_example,
    "decode_raw": parsing_ops.decode_raw,
    "decode_csv": parsing_ops.decode_csv,
    "read_file": io_ops.read_file,
    "write_file": io_ops.write_file,
    "decode_png": image_codec_ops.decode_png,
    "decode_jpeg": image_codec_ops.decode_jpeg,
    "decode_gif": image_codec_ops.decode_gif,
    "decode_bmp": image_codec_ops.decode_bmp,
    "decode_image": image_codec_ops.decode_image,
    "decode_webp": webp_ops.decode_webp,
    "decode_proto": proto_ops.decode_proto,
    "encode_proto": proto_ops.encode_proto,
    "encode_png": image_codec_ops.encode_png,
    "encode_jpeg": image_codec_ops.encode_jpeg,
    "is_jpeg": jpeg_ops.is_jpeg,
    "extract_jpeg_shape": jpeg_ops.extract_jpeg_shape,
    "decode_and_crop_jpeg": jpeg_ops.decode_and_crop_jpeg,
    "encode_base64": string_ops.encode_base64,
    "decode_base64": string_ops.decode_base64,
    "serialize_sparse": sparse_serialize_ops.serialize_sparse,
    "serialize_many_sparse": sparse_serialize_ops.serialize_many_sparse,
    "deserialize_many_sparse": sparse_serialize_ops.deserialize_many_sparse,
}


def install():
    """Sets ``NAMES`` on :mod:`scopeflow.io` (``tf.io``)."""
    for name, value in NAMES.items():
        setattr(io, name, value)


install()
