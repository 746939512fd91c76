"""tf.saved_model: TF1's SavedModel builder and loader, checked both ways against real
TensorFlow (the ``tf1`` fixture) and, without TensorFlow, against a SavedModel TF wrote
(tests/fixtures/saved_model/tf_model, made by make_saved_model.py there)."""

from __future__ import annotations

import os
import shutil
import textwrap

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.saved_model as sm
from scopeflow.io import protos

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "saved_model")
TF_MODEL = os.path.join(FIXTURES, "tf_model")
VOCAB = "alpha\nbeta\ngamma\n"


def _build_and_save(export_dir, asset_dir, as_text=False, **kwargs):
    """The fixture's graph (make_saved_model.py) built and saved by scopeflow."""
    asset = os.path.join(asset_dir, "vocab.txt")
    with open(asset, "w") as f:
        f.write(VOCAB)
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        b = tf.Variable([0.5, -0.5], name="b")
        y = tf.add(tf.matmul(x, w), b, name="y")
        ex = tf.placeholder(tf.string, [None], name="ex")
        scores = tf.identity(tf.reshape(tf.strings.to_number(ex), [-1, 1]) * 2.0,
                             name="scores")
        predictions = tf.reshape(scores, [-1], name="predictions")
        counter = tf.Variable(0.0, name="counter", trainable=False,
                              collections=[tf.GraphKeys.LOCAL_VARIABLES])
        vocab = tf.Variable("", name="vocab", trainable=False,
                            collections=[tf.GraphKeys.LOCAL_VARIABLES])
        asset_path = tf.constant(asset, name="asset_path")
        tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset_path)
        main_op = tf.group(tf.assign(counter, 7.0), tf.assign(vocab, tf.read_file(asset_path)),
                           name="main_op")
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, [[1.0, 0.0], [0.0, 2.0]]))
        builder = sm.Builder(export_dir)
        sigs = {"serving_default": sm.predict_signature_def({"x": x}, {"y": y}),
                "classify": sm.classification_signature_def(ex, None, scores),
                "regress": sm.regression_signature_def(ex, predictions)}
        builder.add_meta_graph_and_variables(
            sess, [sm.SERVING], signature_def_map=sigs,
            assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
            main_op=main_op, **kwargs)
        path = builder.save(as_text=as_text)
    os.remove(asset)  # the loader must feed the copy under assets/
    return path


def _load_and_run(export_dir, import_scope=None):
    """Loads with scopeflow; runs each signature by the names it gives."""
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = sm.load(sess, [sm.SERVING], export_dir, import_scope=import_scope)
        pre = f"{import_scope}/" if import_scope else ""
        pred, cls, reg = (meta.signature_def[k] for k in ("serving_default", "classify",
                                                          "regress"))
        y = sess.run(pre + pred.outputs["y"].name, {pre + pred.inputs["x"].name: [[1.0, 1.0]]})
        scores = sess.run(pre + cls.outputs["scores"].name,
                          {pre + cls.inputs["inputs"].name: [b"1.5", b"2"]})
        outputs = sess.run(pre + reg.outputs["outputs"].name,
                           {pre + reg.inputs["inputs"].name: [b"4"]})
        counter, vocab = sess.run([pre + "counter:0", pre + "vocab:0"])
        # The TensorInfo resolves in the loaded graph, under the import scope.
        y_tensor = sm.get_tensor_from_tensor_info(pred.outputs["y"], graph=g,
                                                  import_scope=import_scope)
        assert y_tensor.name == pre + "y:0"
    return meta, y, scores, outputs, counter, vocab


def _check_values(y, scores, outputs, counter, vocab):
    np.testing.assert_allclose(y, [[1.5, 1.5]])
    np.testing.assert_allclose(scores, [[3.0], [4.0]])
    np.testing.assert_allclose(outputs, [8.0])
    assert counter == 7.0
    assert vocab == VOCAB.encode()


# ── Without TensorFlow: TF's fixture, scopeflow's own round trip ─────────────────────────


def test_loads_tf_written_fixture():
    meta, *values = _load_and_run(TF_MODEL)
    _check_values(*values)
    assert list(meta.meta_info_def.tags) == ["serve"]
    assert meta.signature_def["classify"].method_name == sm.CLASSIFY_METHOD_NAME


def test_loads_tf_fixture_under_import_scope():
    meta, *values = _load_and_run(TF_MODEL, import_scope="imported")
    _check_values(*values)
    assert meta.signature_def["serving_default"].outputs["y"].name == "y:0"  # unscoped


@pytest.mark.parametrize("as_text", [False, True])
def test_scopeflow_round_trip(tmp_path, as_text):
    export_dir = str(tmp_path / "model")
    path = _build_and_save(export_dir, str(tmp_path), as_text=as_text)
    name = sm.SAVED_MODEL_FILENAME_PBTXT if as_text else sm.SAVED_MODEL_FILENAME_PB
    assert path == os.path.join(export_dir, name).encode()
    assert sorted(os.listdir(export_dir)) == sorted(["assets", "variables", name])
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    _, *values = _load_and_run(export_dir)
    _check_values(*values)


def test_saved_model_proto_contents(tmp_path):
    export_dir = str(tmp_path / "model")
    _build_and_save(export_dir, str(tmp_path))
    saved = protos.SavedModel.FromString(open(os.path.join(export_dir, "saved_model.pb"),
                                              "rb").read())
    assert saved.saved_model_schema_version == 1
    (meta,) = saved.meta_graphs
    assert meta.saver_def.sharded and meta.saver_def.version == protos.SaverDef.V2
    assert list(meta.collection_def[sm.MAIN_OP_KEY].node_list.value) == ["main_op"]
    (packed,) = meta.collection_def[sm.ASSETS_KEY].any_list.value
    asset = protos.AssetFileDef()
    assert packed.Unpack(asset)
    assert (asset.filename, asset.tensor_info.name) == ("vocab.txt", "asset_path:0")
    assert not meta.meta_info_def.stripped_default_attrs


def test_clear_devices_and_strip_default_attrs(tmp_path):
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        with tf.device("/cpu:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        tf.reduce_sum(v, name="total")
        sess.run(tf.global_variables_initializer())
        builder = sm.Builder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["a"], clear_devices=True,
                                             strip_default_attrs=True)
        builder.add_meta_graph(["b"])
        builder.save()
    saved = sm.loader_impl.parse_saved_model(export_dir)
    stripped, plain = saved.meta_graphs
    assert stripped.meta_info_def.stripped_default_attrs
    nodes = {n.name: n for n in stripped.graph_def.node}
    assert all(not n.device for n in stripped.graph_def.node)
    assert "keep_dims" not in nodes["total"].attr and "Tidx" not in nodes["total"].attr
    plain_nodes = {n.name: n for n in plain.graph_def.node}
    assert plain_nodes["v"].device == "/device:CPU:0"
    assert "keep_dims" in plain_nodes["total"].attr
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        sm.load(sess, ["b"], export_dir)
        np.testing.assert_allclose(sess.run("total:0"), 3.0)


def test_builder_errors(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        sm.Builder(str(tmp_path / "full"))
    builder = sm.builder.SavedModelBuilder(str(tmp_path / "new"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        builder.add_meta_graph(["x"])
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        x = tf.placeholder(tf.float32, name="x")
        bad = protos.SignatureDef()
        bad.inputs["x"].dtype = protos.DATA_TYPE.values_by_name["DT_FLOAT"].number
        with pytest.raises(AssertionError, match="one of the 'encoding' fields"):
            builder.add_meta_graph_and_variables(sess, ["x"], signature_def_map={"s": bad})
        with pytest.raises(KeyError, match="reserved for initialization"):
            builder.add_meta_graph_and_variables(
                sess, ["x"], signature_def_map={"__saved_model_init_op":
                                                sm.predict_signature_def({"x": x}, {"y": x})})
        with pytest.raises(TypeError, match="to be an Operation"):
            builder.add_meta_graph_and_variables(sess, ["x"], main_op="init")
        with pytest.raises(TypeError, match="must be of type constant"):
            builder.add_meta_graph_and_variables(sess, ["x"], assets_collection=[x])


def test_failed_save_leaves_no_saved_model(tmp_path, monkeypatch):
    """Nothing makes the directory look like a SavedModel until save() wrote it whole."""
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.Variable(1.0, name="v")
        sess.run(tf.global_variables_initializer())
        builder = sm.Builder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"])
    assert not sm.maybe_saved_model_directory(export_dir)

    def broken(self, *args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(type(builder._saved_model), "SerializeToString", broken)
    with pytest.raises(OSError, match="disk full"):
        builder.save()
    assert not sm.contains_saved_model(export_dir)
    assert not [n for n in os.listdir(export_dir) if n.startswith("saved_model")]


def test_loader_errors(tmp_path):
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        with pytest.raises(RuntimeError) as info:
            sm.loader.load(sess, ["train", "gpu"], TF_MODEL)
    assert "MetaGraphDef associated with tags 'train', 'gpu' could not be found in " \
        "SavedModel, with available tags '[{'serve'}]'." in str(info.value)
    with pytest.raises(OSError, match=r"SavedModel file does not exist at: .*empty/"
                       r"\{saved_model.pbtxt\|saved_model.pb\}"):
        sm.load(None, ["serve"], str(tmp_path / "empty"))
    damaged = tmp_path / "damaged"
    shutil.copytree(TF_MODEL, damaged)
    data = (damaged / "saved_model.pb").read_bytes()
    (damaged / "saved_model.pb").write_bytes(data[:len(data) // 2])
    with pytest.raises(OSError, match=r"Cannot parse file b'.*saved_model.pb': Error parsing"):
        sm.load(None, ["serve"], str(damaged))
    assert sm.maybe_saved_model_directory(str(damaged))
    assert not sm.loader.maybe_saved_model_directory(str(tmp_path))


def test_simple_save_and_main_op_with_restore(tmp_path):
    export_dir = str(tmp_path / "simple")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        x = tf.placeholder(tf.float32, [None], name="x")
        v = tf.Variable(3.0, name="v")
        y = tf.multiply(x, v, name="y")
        sess.run(tf.global_variables_initializer())
        sm.simple_save(sess, export_dir, {"x": x}, {"y": y})
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = sm.load(sess, [sm.tag_constants.SERVING], export_dir)
        sig = meta.signature_def[sm.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert sm.is_valid_signature(sig)
        np.testing.assert_allclose(sess.run(sig.outputs["y"].name,
                                            {sig.inputs["x"].name: [1.0, 2.0]}), [3.0, 6.0])
        restore = sm.main_op_with_restore(g.get_operation_by_name(
            meta.saver_def.restore_op_name))
        assert restore.type == "NoOp"
        assert sorted(op.name for op in restore.control_inputs) == ["group_deps",
                                                                     "save/restore_all"]
        assert sm.main_op.main_op().type == "NoOp"


def test_method_name_updater(tmp_path):
    export_dir = tmp_path / "model"
    shutil.copytree(TF_MODEL, export_dir)
    updater = sm.signature_def_utils.MethodNameUpdater(str(export_dir))
    updater.replace_method_name("regress", "custom/regress", tags="serve")
    with pytest.raises(ValueError, match="does not have a signature_def with key: 'nope'"):
        updater.replace_method_name("nope", "m")
    with pytest.raises(ValueError, match=r"tags \['train'\] could not be found"):
        updater.replace_method_name("regress", "m", tags=["train"])
    updater.save()
    saved = sm.loader_impl.parse_saved_model(export_dir)
    assert saved.meta_graphs[0].signature_def["regress"].method_name == "custom/regress"


def test_tensor_info_encodings():
    with tf.Graph().as_default() as g:
        v = tf.Variable([1.0, 2.0], name="v")
        st = tf.sparse.placeholder(tf.float32, name="sp")
        info = sm.utils.build_tensor_info(v)
        assert (info.name, protos.DATA_TYPE.values_by_number[info.dtype].name) == (
            "v:0", "DT_FLOAT_REF")
        sparse = sm.build_tensor_info(st)
        assert sparse.WhichOneof("encoding") == "coo_sparse"
        assert sparse.coo_sparse.indices_tensor_name == "sp/indices:0"
        back = sm.get_tensor_from_tensor_info(sparse)
        assert isinstance(back, tf.SparseTensor) and back.values is st.values
        assert sm.get_tensor_from_tensor_info(info, graph=g).name == "v:0"
        with pytest.raises(ValueError, match="Invalid TensorInfo.encoding: None"):
            sm.get_tensor_from_tensor_info(protos.TensorInfo())
        with pytest.raises(NotImplementedError, match="composite_tensor"):
            sm.build_tensor_info(tf.ragged.constant([[1], [2, 3]]))
    assert tf.TensorInfo is protos.TensorInfo


def test_signature_builder_errors():
    with tf.Graph().as_default():
        ex = tf.placeholder(tf.string, [None], name="ex")
        f = tf.placeholder(tf.float32, [None], name="f")
        i = tf.placeholder(tf.int32, [None], name="i")
        with pytest.raises(ValueError, match="Regression input tensors must be of type "
                           "string. Found tensors with type 1."):
            sm.regression_signature_def(f, f)
        with pytest.raises(ValueError, match="Regression output tensors must be of type "
                           "float. Found tensors with type 3."):
            sm.regression_signature_def(ex, i)
        with pytest.raises(ValueError, match="cannot both be None"):
            sm.classification_signature_def(ex, None, None)
        with pytest.raises(ValueError, match="Classification scores must be a float"):
            sm.classification_signature_def(ex, None, i)
        with pytest.raises(ValueError, match="Prediction `inputs` cannot be None or empty."):
            sm.predict_signature_def({}, {"f": f})
        with pytest.raises(ValueError, match="Unable to convert object"):
            sm.build_signature_def(defaults={"f": f})
        bad_cls = sm.classification_signature_def(ex, ex, f)
        bad_cls.outputs["extra"].CopyFrom(sm.build_tensor_info(f))
        assert not sm.is_valid_signature(bad_cls)
        assert not sm.is_valid_signature(None)
        assert sm.is_valid_signature(sm.regression_signature_def(ex, f))


# ── Against TensorFlow ──────────────────────────────────────────────────────────────────

_TF_RUN = """
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

def run(export_dir, scope=None):
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir, import_scope=scope)
        pre = scope + "/" if scope else ""
        p, c, r = (meta.signature_def[k] for k in ("serving_default", "classify", "regress"))
        y = sess.run(pre + p.outputs["y"].name, {pre + p.inputs["x"].name: [[1.0, 1.0]]})
        s = sess.run(pre + c.outputs["scores"].name, {pre + c.inputs["inputs"].name: [b"1.5", b"2"]})
        o = sess.run(pre + r.outputs["outputs"].name, {pre + r.inputs["inputs"].name: [b"4"]})
        n, v = sess.run([pre + "counter:0", pre + "vocab:0"])
        return [y.tolist(), s.tolist(), o.tolist(), float(n), v.decode()]
"""


def test_tf_loads_scopeflow_saved_model(tmp_path, tf1):
    dirs = {}
    for as_text in (False, True):
        sub = tmp_path / ("text" if as_text else "binary")
        sub.mkdir()
        dirs[as_text] = str(sub / "model")
        _build_and_save(dirs[as_text], str(sub), as_text=as_text)
    two = str(tmp_path / "two")  # two meta graphs, the first stripped and device-free
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        with tf.device("/cpu:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        tf.reduce_sum(v * 3.0, name="total")
        sess.run(tf.global_variables_initializer())
        builder = sm.Builder(two)
        builder.add_meta_graph_and_variables(sess, ["a"], clear_devices=True,
                                             strip_default_attrs=True)
        builder.add_meta_graph(["b", "c"])
        builder.save()
    out = tf1(_TF_RUN + textwrap.dedent(f"""
        totals = []
        for tags in (["a"], ["c", "b"]):
            with tf.Session(graph=tf.Graph()) as sess:
                tf.saved_model.loader.load(sess, tags, {two!r})
                totals.append(float(sess.run("total:0")))
        print(json.dumps([[run({dirs[False]!r}), run({dirs[True]!r}),
                           run({dirs[False]!r}, "imp")], totals]))
    """))
    for y, scores, outputs, counter, vocab in out[0]:
        _check_values(np.array(y), np.array(scores), np.array(outputs), counter,
                      vocab.encode())
    assert out[1] == [9.0, 9.0]


def test_scopeflow_loads_tf_saved_model(tmp_path, tf1):
    binary, text = str(tmp_path / "binary"), str(tmp_path / "text")
    tf1(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.abspath(FIXTURES)!r})
        import make_saved_model
        make_saved_model.build({binary!r})
        make_saved_model.build({text!r}, as_text=True)
        print(json.dumps(0))
    """))
    assert os.path.exists(os.path.join(text, "saved_model.pbtxt"))
    for export_dir in (binary, text):
        _, *values = _load_and_run(export_dir)
        _check_values(*values)


def test_signature_protos_and_errors_match_tf(tmp_path, tf1):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        ex = tf.placeholder(tf.string, [None], name="ex")
        cls = tf.placeholder(tf.string, [None, 2], name="cls")
        sc = tf.placeholder(tf.float32, [None, 2], name="sc")
        st = tf.sparse.placeholder(tf.float32, [4, 5], name="sp")
        v = tf.Variable(tf.zeros([2, 2]), name="v")
        c = tf.constant([1.0, 2.0], name="c")
        ours = [sm.predict_signature_def({"x": x, "sp": st}, {"v": v}),
                sm.classification_signature_def(ex, cls, sc),
                sm.regression_signature_def(ex, tf.reshape(sc, [-1])),
                sm.build_signature_def({"x": sm.build_tensor_info(x)}, None, "m",
                                       defaults={"x": c})]
        ours = [s.SerializeToString(deterministic=True).hex() for s in ours]
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.Variable(1.0, name="w")
        sess.run(tf.global_variables_initializer())
        builder = sm.Builder(str(tmp_path / "m"))
        builder.add_meta_graph_and_variables(sess, ["serve"])
        builder.save()
    damaged = tmp_path / "damaged"
    shutil.copytree(TF_MODEL, damaged)
    data = (damaged / "saved_model.pb").read_bytes()
    (damaged / "saved_model.pb").write_bytes(data[:len(data) // 2])
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        errs = []
        for call in (lambda: sm.load(sess, ["serve", "gpu"], str(tmp_path / "m")),
                     lambda: sm.load(sess, ["serve"], str(tmp_path / "none")),
                     lambda: sm.Builder(str(tmp_path / "m")),
                     lambda: sm.load(sess, ["serve"], str(damaged))):
            with pytest.raises(Exception) as info:
                call()
            errs.append([type(info.value).__name__, str(info.value)])
    out = tf1(textwrap.dedent(f"""
        tf.disable_v2_behavior()
        sm = tf.saved_model
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        ex = tf.placeholder(tf.string, [None], name="ex")
        cls = tf.placeholder(tf.string, [None, 2], name="cls")
        sc = tf.placeholder(tf.float32, [None, 2], name="sc")
        st = tf.sparse.placeholder(tf.float32, [4, 5], name="sp")
        v = tf.Variable(tf.zeros([2, 2]), name="v")
        c = tf.constant([1.0, 2.0], name="c")
        sigs = [sm.predict_signature_def({{"x": x, "sp": st}}, {{"v": v}}),
                sm.classification_signature_def(ex, cls, sc),
                sm.regression_signature_def(ex, tf.reshape(sc, [-1])),
                sm.build_signature_def({{"x": sm.build_tensor_info(x)}}, None, "m",
                                       defaults={{"x": c}})]
        errs = []
        for call in (lambda: sm.load(tf.Session(), ["serve", "gpu"], {str(tmp_path / "m")!r}),
                     lambda: sm.load(tf.Session(), ["serve"], {str(tmp_path / "none")!r}),
                     lambda: sm.Builder({str(tmp_path / "m")!r}),
                     lambda: sm.load(tf.Session(), ["serve"], {str(damaged)!r})):
            try:
                call()
            except Exception as e:
                errs.append([type(e).__name__, str(e)])
        ragged = sm.build_tensor_info(tf.ragged.constant([[1], [2, 3]]))
        print(json.dumps([[s.SerializeToString(deterministic=True).hex() for s in sigs], errs,
                          ragged.SerializeToString().hex()]))
    """))
    assert ours == out[0]
    assert errs == out[1]
    # TF's composite_tensor encoding is read (kept as an unknown field) and refused clearly.
    ragged = protos.TensorInfo.FromString(bytes.fromhex(out[2]))
    assert sm.utils_impl.is_composite(ragged)
    with pytest.raises(NotImplementedError, match="composite_tensor encoding"):
        sm.get_tensor_from_tensor_info(ragged)


def test_legacy_init_op_and_init_op_signature(tmp_path):
    """The loader runs a TF 1.x ``legacy_init_op`` collection's op, and TF2's
    ``__saved_model_init_op`` signature before the collections."""
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        flag = tf.Variable(0, name="flag", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        tf.add_to_collection(sm.LEGACY_INIT_OP_KEY, tf.assign(flag, 1, name="legacy"))
        tf.assign(flag, 2, name="by_signature")
        builder = sm.Builder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"])
        builder.save()
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        sm.load(sess, ["serve"], export_dir)
        assert sess.run("flag:0") == 1
    saved = sm.loader_impl.parse_saved_model(export_dir)
    init_op = protos.TensorInfo(name="by_signature")
    saved.meta_graphs[0].signature_def["__saved_model_init_op"].outputs[
        "__saved_model_init_op"].CopyFrom(init_op)
    with open(os.path.join(export_dir, "saved_model.pb"), "wb") as f:
        f.write(saved.SerializeToString())
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        sm.load(sess, ["serve"], export_dir, import_scope="s")
        assert sess.run("s/flag:0") == 2


def test_asset_and_save_options():
    with tf.Graph().as_default():
        asset = sm.Asset("/tmp/vocab.txt")
        assert asset.asset_path.name == "asset_path:0"
        assert tf.convert_to_tensor(asset) is asset.asset_path
    options = sm.SaveOptions(experimental_variable_policy="SAVE_VARIABLE_DEVICES",
                             namespace_whitelist=["Custom"])
    assert options.experimental_variable_policy.value == "save_variable_devices"
    assert sm.SaveOptions().function_aliases == {}
    with pytest.raises(TypeError, match="must be a list of strings"):
        sm.SaveOptions(namespace_whitelist="Custom")


def test_asset_and_save_options_match_tf(tf1):
    def errors_of(module):
        out = []
        for kwargs in ({"namespace_whitelist": "a"}, {"namespace_whitelist": [1]},
                       {"experimental_variable_policy": "bogus"},
                       {"experimental_image_format": True}):
            try:
                module.SaveOptions(**kwargs)
            except Exception as e:  # noqa: BLE001 - comparing what each raises
                out.append([type(e).__name__, str(e)])
        try:
            module.Asset(3)
        except Exception as e:  # noqa: BLE001
            out.append([type(e).__name__, str(e)])
        return out

    with tf.Graph().as_default():
        ours = errors_of(sm)
        defaults = sm.SaveOptions()
        ours_defaults = {k: repr(getattr(defaults, k)) for k in sm.SaveOptions.__slots__}
        names = [sm.Asset("a").asset_path.name, sm.Asset("b").asset_path.name]
    theirs = tf1("""
        tf.disable_v2_behavior()
        def errors_of(module):
            out = []
            for kwargs in ({"namespace_whitelist": "a"}, {"namespace_whitelist": [1]},
                           {"experimental_variable_policy": "bogus"},
                           {"experimental_image_format": True}):
                try:
                    module.SaveOptions(**kwargs)
                except Exception as e:
                    out.append([type(e).__name__, str(e)])
            try:
                module.Asset(3)
            except Exception as e:
                out.append([type(e).__name__, str(e)])
            return out
        d = tf.saved_model.SaveOptions()
        print(json.dumps([errors_of(tf.saved_model),
                          {k: repr(getattr(d, k)) for k in d.__slots__},
                          [tf.saved_model.Asset("a").asset_path.name,
                           tf.saved_model.Asset("b").asset_path.name]]))
    """)
    assert ours == theirs[0]
    assert ours_defaults == theirs[1]
    assert names == theirs[2]


def test_asset_basenames_are_deduplicated(tmp_path):
    """Two different files of one basename get ``name`` and ``name_1`` in assets/; the same
    file named twice is copied once (TF's get_asset_filename_to_add)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "v.txt").write_text("first")
    (tmp_path / "b" / "v.txt").write_text("second")
    export_dir = str(tmp_path / "model")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        paths = [tf.constant(str(tmp_path / d / "v.txt"), name=f"p_{d}") for d in "aba"]
        builder = sm.Builder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=paths)
        builder.save()
    assets = os.path.join(export_dir, "assets")
    assert sorted(os.listdir(assets)) == ["v.txt", "v.txt_1"]
    assert open(os.path.join(assets, "v.txt_1")).read() == "second"
    meta = sm.loader_impl.parse_saved_model(export_dir).meta_graphs[0]
    found = sm.loader_impl.get_asset_tensors(export_dir, meta, import_scope="s")
    assert found == {"s/p_a:0": os.path.join(assets, "v.txt").encode(),
                     "s/p_b:0": os.path.join(assets, "v.txt_1").encode(),
                     "s/p_a_1:0": os.path.join(assets, "v.txt").encode()}
