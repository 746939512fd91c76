"""``tf.describe``: from a TF name alone, where it is exported and where its op lives."""

import pytest

import scopeflow as tf


def test_a_public_name_gives_its_namespace_module_definition_and_op():
    text = tf.describe("tf.nn.conv2d")
    lines = text.splitlines()
    assert lines[0] == "tf.nn.conv2d"
    assert lines[1].split() == ["exported", "by", "scopeflow/api/nn.py", "(tf.nn)"]
    assert lines[2].split()[:3] == ["defined", "at", lines[2].split()[2]]
    assert lines[2].split()[2].startswith("scopeflow/ops/nn/conv_ops.py:")
    assert lines[3].split() == ["binds", "Conv2D"]
    assert "Conv2D: attrs=" in text and "kernel _conv2d_kernel" in text


def test_root_names_without_the_prefix_and_names_that_build_no_op():
    assert tf.describe("reduce_sum").splitlines()[1].split()[2] == "scopeflow/__init__.py"
    assert "binds        Sum" in tf.describe("tf.reduce_sum")
    text = tf.describe("tf.train.AdamOptimizer")
    assert "scopeflow/train/optimizers.py" in text and "binds" not in text


def test_op_types_are_described_as_before():
    assert tf.describe("Relu").startswith("Relu: attrs=")


def test_an_unknown_name_says_where_to_look():
    with pytest.raises(ValueError, match="neither a registered op type.*docs/API.md"):
        tf.describe("tf.nn.no_such_thing")
