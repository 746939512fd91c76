"""TF's inspect_checkpoint tool prints what TF prints (tests/fixtures/tf_inspect_checkpoint,
recorded from TF on a checkpoint TF wrote)."""

import contextlib
import importlib.util
import io
import json
import os
from pathlib import Path

import pytest

import scopeflow as tf
from scopeflow.tools import inspect_checkpoint

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "tf_inspect_checkpoint"


def _cases():
    spec = importlib.util.spec_from_file_location("make_fixture", FIXTURE / "make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


EXPECTED = json.loads((FIXTURE / "expected.json").read_text())


def _printed(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args)
    return buf.getvalue()


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_prints_what_tensorflow_prints(case, monkeypatch):
    monkeypatch.chdir(ROOT)  # the fixture's paths are relative to the repository root
    args = _cases()[case]
    assert _printed(inspect_checkpoint.print_tensors_in_checkpoint_file, *args) == \
        EXPECTED[case]


def test_a_file_of_a_v2_checkpoint_is_told_its_prefix(tmp_path):
    prefix = tmp_path / "model"
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            tf.train.Saver().save(sess, str(prefix))
    out = _printed(inspect_checkpoint.print_tensors_in_checkpoint_file, f"{prefix}.index",
                   "", False)
    assert f"is the index file of the checkpoint '{prefix}'" in out
    assert "Traceback" not in out


def test_the_command_line_takes_tfs_flags(monkeypatch):
    monkeypatch.chdir(ROOT)
    args = _cases()["all_tensor_names"]
    out = _printed(inspect_checkpoint.main, [f"--file_name={args[0]}", "--all_tensor_names"])
    assert out == EXPECTED["all_tensor_names"]
    assert _printed(inspect_checkpoint.main, []).startswith("Usage: inspect_checkpoint")


def test_tf_train_inspect_checkpoint_points_to_the_module():
    with pytest.raises(AttributeError, match="tensorflow.python.tools.inspect_checkpoint"):
        tf.train.inspect_checkpoint  # noqa: B018
    assert not hasattr(tf.train, "inspect_checkpoint")
    assert os.path.basename(inspect_checkpoint.__file__) == "inspect_checkpoint.py"
