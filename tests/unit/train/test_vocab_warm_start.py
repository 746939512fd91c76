"""tf.train.VocabInfo and warm_start's vocabulary remapping, against TF's values."""

import numpy as np
import pytest

import scopeflow as tf

_OLD = np.arange(12, dtype=np.float32).reshape(4, 3) + 1.0   # rows: apple banana cherry date
_OLD_T = np.arange(8, dtype=np.float32).reshape(2, 4) + 1.0  # cols: apple banana cherry date

# The same warm start, run by scopeflow and by TF: (variable name, shape, VocabInfo args).
_BUILD = """
def build(tf, ckpt, d):
    emb = tf.get_variable("emb", shape=[5, 3], initializer=tf.ones_initializer())
    small = tf.get_variable("small", shape=[2, 3], initializer=tf.ones_initializer())
    dense = tf.get_variable("dense", shape=[2, 5], initializer=tf.ones_initializer())
    part = tf.get_variable("part", shape=[5, 3], initializer=tf.ones_initializer(),
                           partitioner=tf.fixed_size_partitioner(2))
    infos = {
        "emb": tf.train.VocabInfo(d + "/new.txt", 4, 1, d + "/old.txt"),
        "small": tf.train.VocabInfo(d + "/new.txt", 2, 0, d + "/old.txt", old_vocab_size=3),
        "dense": tf.train.VocabInfo(d + "/new.txt", 4, 1, d + "/old.txt", axis=1),
        "part": tf.train.VocabInfo(d + "/new.txt", 4, 1, d + "/old.txt"),
    }
    tf.train.warm_start(ckpt, vars_to_warm_start=["emb", "small", "dense", "part"],
                        var_name_to_vocab_info=infos,
                        var_name_to_prev_var_name={"small": "emb", "dense": "emb_t",
                                                   "part": "emb"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return [sess.run(v).tolist() for v in (emb, small, dense)] + \\
            [sess.run(tf.concat(list(part), 0)).tolist()]
"""


def _files(tmp_path):
    (tmp_path / "old.txt").write_text("apple\nbanana\ncherry\ndate\n")
    (tmp_path / "new.txt").write_text("cherry\nkiwi\napple\ndate\n")
    with tf.Graph().as_default():
        emb = tf.Variable(_OLD, name="emb")
        emb_t = tf.Variable(_OLD_T, name="emb_t")
        with tf.Session() as sess:
            sess.run([emb.initializer, emb_t.initializer])
            return tf.train.Saver().save(sess, str(tmp_path / "old"))


def _ours(ckpt, d):
    ns = {}
    exec(_BUILD, ns)   # noqa: S102
    with tf.Graph().as_default():
        return ns["build"](tf, ckpt, d)


def test_remaps_rows_columns_and_oov(tmp_path):
    emb, small, dense, part = _ours(_files(tmp_path), str(tmp_path))
    # new vocab cherry kiwi apple date (+1 OOV row): old rows 2, none, 0, 3, then zeros.
    assert emb == [_OLD[2].tolist(), [0, 0, 0], _OLD[0].tolist(), _OLD[3].tolist(), [0, 0, 0]]
    assert part == emb   # partitions remap their own rows
    # old_vocab_size=3: "date" is not in the old vocabulary any more; kiwi never was.
    assert small == [_OLD[2].tolist(), [0, 0, 0]]
    # axis=1: columns remapped, one OOV column of zeros.
    assert dense == [[3, 0, 1, 4, 0], [7, 0, 5, 8, 0]]


def test_backup_initializer_fills_what_is_missing(tmp_path):
    # (TF 2.21 itself fails here: its constant initializer gets a symbolic shape.)
    ckpt = _files(tmp_path)
    with tf.Graph().as_default():
        small = tf.get_variable("small", shape=[2, 3])
        info = tf.train.VocabInfo(str(tmp_path / "new.txt"), 2, 1, str(tmp_path / "old.txt"),
                                  old_vocab_size=1,
                                  backup_initializer=tf.constant_initializer(-7.0))
        tf.train.warm_start(ckpt, vars_to_warm_start=None,
                            var_name_to_vocab_info={"small": info},
                            var_name_to_prev_var_name={"small": "emb"})
        with tf.Session() as sess:
            sess.run(small.initializer)
            assert sess.run(small).tolist() == [[-7.0] * 3, [-7.0] * 3]


def test_vocab_info_and_errors(tmp_path):
    info = tf.train.VocabInfo("new", 3, 0, "old")
    assert info.old_vocab_size == -1 and info.backup_initializer is None and info.axis == 0
    with pytest.raises(ValueError, match="The only supported values for the axis argument"):
        tf.train.VocabInfo("new", 3, 0, "old", axis=2)
    ckpt = _files(tmp_path)
    with tf.Graph().as_default():
        tf.get_variable("emb", shape=[4, 3])
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            tf.train.warm_start(ckpt, var_name_to_vocab_info={"nope": info})


def test_matches_tf(tf1, tmp_path):
    ckpt = _files(tmp_path)
    got = tf1(_BUILD + f"""
tf.disable_v2_behavior()
print(json.dumps(build(tf, {ckpt!r}, {str(tmp_path)!r})))
""")
    assert _ours(ckpt, str(tmp_path)) == got
