"""tf.gfile / tf.io.gfile, tf.compat's string helpers, tf.app.run and tf.flags.

The expected messages and results were read from TensorFlow 2.21's tf.compat.v1."""

from __future__ import annotations

import os

import pytest

import scopeflow as tf
from scopeflow.platform import flags as flags_module


# ── gfile ────────────────────────────────────────────────────────────────────────────
def test_gfile_read_write_modes(tmp_path):
    path = str(tmp_path / "a.txt")
    with tf.gfile.GFile(path, "w") as f:
        f.write("line1\n")
        f.write(b"line2\n")
    assert tf.gfile.GFile(path).read() == "line1\nline2\n"
    assert tf.gfile.GFile(path, "rb").read() == b"line1\nline2\n"
    assert tf.gfile.GFile(path).readlines() == ["line1\n", "line2\n"]
    assert list(tf.gfile.Open(path)) == ["line1\n", "line2\n"]
    assert tf.gfile.FastGFile(path, "rb").read(3) == b"lin"
    assert tf.gfile.GFile(path).size() == 12
    f = tf.gfile.GFile(path)
    assert f.read(2) == "li" and f.tell() == 2
    f.seek(1)
    assert f.read(2) == "in"
    f.seek(offset=3)
    assert f.read(1) == "e"
    with tf.gfile.GFile(path, "a") as f:
        f.write("x")
    assert tf.io.gfile.GFile(path).read().endswith("x")


def test_gfile_errors_are_tensorflows(tmp_path):
    missing = str(tmp_path / "nope")
    f = tf.gfile.GFile(missing)  # opened on first use, as TF's
    with pytest.raises(tf.errors.NotFoundError, match=f"^{missing}; No such file or directory$"):
        f.read()
    with pytest.raises(tf.errors.FailedPreconditionError, match="; Is a directory"):
        tf.gfile.GFile(str(tmp_path)).read()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"mode is not 'r' or 'w' or 'a' or 'r\+' or 'w\+' or 'a\+'"):
        tf.gfile.GFile(missing, "x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for writing"):
        tf.gfile.GFile(missing, "r").write("x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for reading"):
        tf.gfile.GFile(str(tmp_path / "w.txt"), "w").read()
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.gfile.GFile(str(tmp_path / "nodir" / "z.txt"), "w").write("x")


def test_gfile_file_system_operations(tmp_path):
    d = str(tmp_path)
    tf.gfile.GFile(d + "/a.txt", "w").write("abc")
    assert tf.gfile.Exists(d + "/a.txt") and not tf.gfile.Exists(d + "/nope")
    tf.gfile.MakeDirs(d + "/x/y/z")
    tf.gfile.MakeDirs(d + "/x/y/z")  # an existing directory is fine
    tf.gfile.MkDir(d + "/x")
    with pytest.raises(tf.errors.NotFoundError, match="q/r; No such file or directory"):
        tf.gfile.MkDir(d + "/q/r")
    assert (tf.gfile.IsDirectory(d + "/x"), tf.gfile.IsDirectory(d + "/a.txt"),
            tf.gfile.IsDirectory(d + "/nope")) == (True, False, False)
    assert sorted(tf.gfile.ListDirectory(d)) == ["a.txt", "x"]
    with pytest.raises(tf.errors.NotFoundError, match=f"^Could not find directory {d}/nope$"):
        tf.gfile.ListDirectory(d + "/nope")
    assert tf.gfile.Glob(d + "/*.txt") == [d + "/a.txt"]
    assert tf.gfile.Glob(d + "/*.zzz") == [] and tf.gfile.Glob(d + "/nope/*") == []
    assert sorted(tf.gfile.Glob([d + "/*.txt", d + "/x"])) == [d + "/a.txt", d + "/x"]
    tf.gfile.Copy(d + "/a.txt", d + "/c.txt")
    with pytest.raises(tf.errors.AlreadyExistsError, match="^file already exists$"):
        tf.gfile.Copy(d + "/a.txt", d + "/c.txt")
    tf.gfile.Copy(d + "/a.txt", d + "/c.txt", overwrite=True)
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
        tf.gfile.Copy(d + "/nope", d + "/c2.txt")
    tf.gfile.Rename(d + "/c.txt", d + "/r.txt")
    assert tf.gfile.GFile(d + "/r.txt").read() == "abc"
    with pytest.raises(tf.errors.AlreadyExistsError, match="^file already exists$"):
        tf.gfile.Rename(d + "/a.txt", d + "/r.txt")
    tf.gfile.Rename(d + "/a.txt", d + "/r.txt", overwrite=True)
    stat = tf.gfile.Stat(d + "/r.txt")
    assert (stat.length, stat.is_directory, type(stat.mtime_nsec)) == (3, False, int)
    with pytest.raises(tf.errors.NotFoundError, match="nope; No such file or directory"):
        tf.gfile.Stat(d + "/nope")
    tf.gfile.Remove(d + "/r.txt")
    with pytest.raises(tf.errors.NotFoundError, match="r.txt; No such file or directory"):
        tf.gfile.Remove(d + "/r.txt")
    with pytest.raises(tf.errors.FailedPreconditionError, match="x; Is a directory"):
        tf.gfile.Remove(d + "/x")
    assert list(tf.gfile.Walk(d)) == [(d, ["x"], []), (d + "/x", ["y"], []),
                                      (d + "/x/y", ["z"], []), (d + "/x/y/z", [], [])]
    tf.gfile.DeleteRecursively(d + "/x")
    assert not os.path.exists(d + "/x")
    with pytest.raises(tf.errors.NotFoundError, match=f"^{d}/x not found$"):
        tf.gfile.DeleteRecursively(d + "/x")


def test_io_gfile_names():
    g = tf.io.gfile
    assert g.exists is tf.gfile.Exists and g.makedirs is tf.gfile.MakeDirs
    assert g.rmtree is tf.gfile.DeleteRecursively and g.isdir is tf.gfile.IsDirectory
    assert g.join("a", "b") == "a/b"


# ── compat ───────────────────────────────────────────────────────────────────────────
def test_compat_string_helpers():
    c = tf.compat
    assert (c.as_bytes("é"), c.as_bytes(b"x"), c.as_bytes(bytearray(b"y"))) == \
        (b"\xc3\xa9", b"x", b"y")
    assert c.as_bytes("é", encoding="latin-1") == b"\xe9"
    assert (c.as_text(b"\xc3\xa9"), c.as_text("x"), c.as_str(b"x")) == ("é", "x", "x")
    assert (c.as_str_any(3), c.as_str_any(b"x"), c.as_str_any("y")) == ("3", "x", "y")
    with pytest.raises(TypeError, match="^Expected binary or unicode string, got 3$"):
        c.as_bytes(3)
    with pytest.raises(TypeError, match="^Expected binary or unicode string, got 3$"):
        c.as_text(3)
    import pathlib
    assert c.path_to_str(pathlib.Path("/a")) == "/a"


# ── flags and app ────────────────────────────────────────────────────────────────────
def _values():
    fv = flags_module.FlagValues()
    flags_module.DEFINE_string("data_dir", "/tmp/data", "Where the data is.", flag_values=fv)
    flags_module.DEFINE_integer("steps", 10, "Steps.", flag_values=fv)
    flags_module.DEFINE_float("lr", 0.1, "Learning rate.", flag_values=fv)
    flags_module.DEFINE_boolean("fast", False, "Go fast.", flag_values=fv)
    flags_module.DEFINE_bool("log", True, "Log.", flag_values=fv)
    flags_module.DEFINE_list("layers", "64,32", "Sizes.", flag_values=fv)
    return fv


def test_flags_parse_absl_style():
    fv = _values()
    rest = fv(["prog", "--data_dir=/d", "--steps", "5", "--lr=0.5", "--fast", "--nolog",
               "--layers=1,2,3", "positional", "--", "--steps=7"])
    assert rest == ["prog", "positional", "--steps=7"]
    assert (fv.data_dir, fv.steps, fv.lr, fv.fast, fv.log, fv.layers) == \
        ("/d", 5, 0.5, True, False, ["1", "2", "3"])
    fv = _values()
    fv(["prog", "--fast=false", "--log=true"])
    assert (fv.fast, fv.log, fv.layers, fv.steps) == (False, True, ["64", "32"], 10)
    fv.steps = 3
    assert fv.steps == 3 and fv.flag_values_dict()["steps"] == 3
    fv = _values()  # a boolean flag never takes the next argument as its value
    assert fv(["prog", "--fast", "rest"]) == ["prog", "rest"] and fv.fast is True
    with pytest.raises(flags_module.IllegalFlagValueError, match="Non-boolean argument"):
        _values()(["prog", "--fast=maybe"])


def test_flags_errors():
    fv = _values()
    with pytest.raises(flags_module.IllegalFlagValueError, match="--steps=abc"):
        fv(["prog", "--steps=abc"])
    with pytest.raises(flags_module.UnrecognizedFlagError, match="Unknown command line flag "
                       "'bogus'"):
        _values()(["prog", "--bogus=1"])
    assert _values()(["prog", "--bogus=1"], known_only=True) == ["prog", "--bogus=1"]
    with pytest.raises(flags_module.DuplicateFlagError, match="The flag 'steps' is defined "
                       "twice"):
        flags_module.DEFINE_integer("steps", 1, "again", flag_values=fv)
    with pytest.raises(AttributeError):
        getattr(fv, "not_a_flag")  # noqa: B009


def test_first_read_parses_sys_argv(monkeypatch):
    fv = _values()
    monkeypatch.setattr("sys.argv", ["prog", "--steps=42", "--unknown_to_us=1"])
    assert fv.steps == 42 and fv.is_parsed()


def test_app_run_parses_flags_and_exits_with_main(monkeypatch):
    name = "sf_test_app_flag"
    if name not in tf.flags.FLAGS:
        tf.app.flags.DEFINE_integer(name, 1, "A test flag.")
    seen = {}

    def main(argv):
        seen["argv"], seen["value"] = argv, tf.flags.FLAGS.sf_test_app_flag
        return 3

    tf.flags.FLAGS.unparse_flags()
    with pytest.raises(SystemExit) as exit_info:
        tf.app.run(main, argv=["prog", f"--{name}=7", "extra", "--other=1"])
    assert exit_info.value.code == 3
    assert seen == {"argv": ["prog", "extra", "--other=1"], "value": 7}
    assert tf.flags is tf.app.flags
    tf.flags.FLAGS.unparse_flags()
