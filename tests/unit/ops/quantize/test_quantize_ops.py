"""bfloat16, the quantized dtypes, and the quantization ops (tf.quantize, tf.dequantize,
tf.quantized_concat, tf.nn.quantized_*).

The first half runs without TensorFlow (dtype properties, values TF 2.21 gave, recorded
here, and the errors); the second runs the same graph-building code under real TF and
scopeflow and compares every integer and the float32 bits of every range and value."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import dtypes, errors


def _has_ml_dtypes():
    return dtypes.bfloat16_numpy_dtype() is not None


needs_bf16 = pytest.mark.skipif(not _has_ml_dtypes(), reason="ml_dtypes is not installed")


# ── dtypes without TensorFlow ───────────────────────────────────────────────────────
def test_bfloat16_dtype_properties():
    b = tf.bfloat16
    assert (b.name, b.as_datatype_enum, b.size, str(b)) == ("bfloat16", 14, 2,
                                                             "<dtype: 'bfloat16'>")
    assert b.is_floating and not b.is_integer and not b.is_quantized and b.is_numpy_compatible
    assert b.max == float.fromhex("0x1.fep127") == -b.min
    assert tf.as_dtype("bfloat16") is b is tf.dtypes.bfloat16
    assert tf.as_dtype(114) is b._as_ref and b._as_ref.name == "bfloat16_ref"


def test_quantized_dtype_properties():
    table = {"qint8": (11, 1, np.int8), "quint8": (12, 1, np.uint8), "qint32": (13, 4, np.int32),
             "qint16": (15, 2, np.int16), "quint16": (16, 2, np.uint16)}
    for name, (enum, size, np_int) in table.items():
        d = getattr(tf, name)
        assert (d.as_datatype_enum, d.size, d.name) == (enum, size, name)
        assert d.is_quantized and not d.is_integer and not d.is_unsigned and not d.is_floating
        assert d.as_numpy_dtype == np.dtype([(name, np_int)])
        assert tf.as_dtype(np.dtype([(name, np_int)])) is d is tf.as_dtype(enum)
        assert dtypes.storage_dtype(d) == np.dtype(np_int)
        with pytest.raises(TypeError, match=f"Cannot find minimum value of <dtype: '{name}'> "
                           f"with quantized type <dtype: '{name}'>"):
            _ = d.min
    assert tf.QUANTIZED_DTYPES is tf.dtypes.QUANTIZED_DTYPES
    assert len(tf.QUANTIZED_DTYPES) == 10 and tf.qint8._as_ref in tf.QUANTIZED_DTYPES


def test_bfloat16_without_ml_dtypes_names_the_extra(monkeypatch):
    monkeypatch.setattr(dtypes, "_bfloat16_np", None)
    assert tf.bfloat16.is_floating and tf.bfloat16.size == 2
    with pytest.raises(ImportError, match=r"scopeflow\[bfloat16\]"):
        _ = tf.bfloat16.as_numpy_dtype
    with tf.Graph().as_default():
        with pytest.raises(ImportError, match=r"scopeflow\[bfloat16\]"):
            tf.constant([1.0], tf.bfloat16)


# ── values TF 2.21 gave (recorded) ──────────────────────────────────────────────────
F32_IN = [1.0, 1.00390625, 1.01171875, -0.0, np.nan, np.inf, -np.inf, 3.4e38, 3.3961e38, 1e-40,
          65504.0, 0.1]
F32_BITS = [16256, 16256, 16258, 32768, 32704, 32640, 65408, 32640, 32639, 1, 18304, 15821]


@needs_bf16
def test_bfloat16_casts_round_as_tf():
    with tf.Graph().as_default(), tf.Session() as s:
        f32 = tf.to_bfloat16(tf.constant(np.array(F32_IN, np.float32)))
        # float64 rounds twice (to float32, then bfloat16): 1 + 2**-8 + 2**-30 gives 1.0
        f64 = tf.cast(tf.constant([1 + 2 ** -8 + 2 ** -30, 3.3961e38, 1e300, -1e-300],
                                  tf.float64), tf.bfloat16)
        ints = tf.cast(tf.constant([16777217, 257]), tf.bfloat16)
        back = tf.cast(tf.constant([1.5, -2.5, 300.7, 262144.0], tf.bfloat16), tf.int8)
        a, b, c, d = s.run([f32, f64, ints, back])
    assert f32.op.name == "ToBFloat16" and a.dtype.name == "bfloat16"
    assert a.view(np.uint16).tolist() == F32_BITS
    assert b.view(np.uint16).tolist() == [16256, 32639, 32640, 32768]
    assert c.view(np.uint16).tolist() == [19328, 17280]
    assert d.tolist() == [1, -2, 44, 0]


@needs_bf16
def test_bfloat16_feeds_variables_and_checkpoints(tmp_path):
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.bfloat16, [2])
        tf.Variable(tf.constant([1.5, 2.5], tf.bfloat16), name="v")
        s.run(tf.global_variables_initializer())
        fed = s.run(tf.cast(p, tf.float32), {p: [1.25, 3.0]})
        tf.train.Saver().save(s, str(tmp_path / "m"))
    assert fed.tolist() == [1.25, 3.0]
    restored = tf.train.load_variable(str(tmp_path / "m"), "v")
    assert restored.dtype.name == "bfloat16" and restored.astype(np.float32).tolist() == [1.5, 2.5]


def test_quantize_recorded_values():
    with tf.Graph().as_default(), tf.Session() as s:
        q = tf.quantize(tf.constant([0.0, 1.0, 2.0, 3.5]), 0.0, 4.0, tf.quint8)
        nan = tf.quantize([np.nan, np.inf, -np.inf], -1.0, 1.0, tf.qint8, mode="SCALED")
        wide = tf.quantize([1.0], 2.0, 3.0, tf.quint8, ensure_minimum_range=0.5)
        a, b, c = s.run([q, nan, wide])
    assert q.output.op.name == "QuantizeV2" and q.output.dtype == tf.quint8
    assert a.output.dtype == np.uint8 and a.output.tolist() == [0, 64, 128, 223]
    assert (float(a.output_min), float(a.output_max)) == (0.0, 4.0)
    assert b.output.tolist() == [0, 127, -128] and b.output_min == np.float32(-128 / 127)
    assert c.output.tolist() == [85] and float(c.output_max) == 3.0


def test_quantized_constants_name_their_type_in_graph_defs():
    with tf.Graph().as_default() as g:
        tf.constant(np.array([5, 7], np.uint8), tf.quint8, name="q")
        tf.quantized_concat(0, [tf.constant(np.array([1], np.uint8), tf.quint8)] * 2,
                            [0.0, 0.0], [1.0, 1.0])
    node = g.as_graph_def().node[0]
    assert node.attr["value"].tensor.dtype == tf.quint8.as_datatype_enum
    assert node.attr["dtype"].type == tf.quint8.as_datatype_enum
    assert [i.name for i in g.get_operation_by_name("QuantizedConcat").inputs][3:] == [
        "QuantizedConcat/input_mins_0:0", "QuantizedConcat/input_mins_1:0",
        "QuantizedConcat/input_maxes_0:0", "QuantizedConcat/input_maxes_1:0"]


def test_quantized_placeholders_take_plain_integers():
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.qint8, [2])
        got = s.run(tf.dequantize(p, -1.0, 1.0, mode="SCALED"), {p: np.array([127, -64])})
    assert got.tolist() == [1.0, np.float32(-64 / 127)]


def test_errors_as_tf():
    with tf.Graph().as_default(), tf.Session() as s:
        even = tf.quantize([1.0], 0.0, 1.0, tf.quint8, round_mode="HALF_TO_EVEN")
        with pytest.raises(errors.InvalidArgumentError, match="Round mode 'HALF_TO_EVEN' only "
                           "supported for mode 'SCALED', but mode is 'MIN_COMBINED'"):
            s.run(even)
        with pytest.raises(errors.UnimplementedError, match="MIN_FIRST"):
            s.run(tf.quantize([[1.0, 2.0]], [0.0, 0.0], [1.0, 1.0], tf.quint8, axis=1,
                              mode="MIN_FIRST"))
        with pytest.raises(errors.InvalidArgumentError,
                           match="input_max_range must be larger than input_min_range"):
            s.run(tf.quantize([1.0], 2.0, 1.0, tf.quint8))
        q8 = tf.constant(np.ones((1, 3, 3, 1), np.uint8), tf.quint8)
        with pytest.raises(errors.InvalidArgumentError, match="equal length strides"):
            s.run(tf.nn.quantized_conv2d(q8, q8[:, :2, :2], 0.0, 1.0, 0.0, 1.0, [1, 1, 2, 1],
                                         "SAME"))
        with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
            tf.quantize([[1.0, 2.0]], [0.0], [1.0], tf.quint8, axis=2)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.quantize([1.0], [0.0, 0.0], [1.0, 1.0], tf.quint8)
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
            tf.quantize([[1.0, 2.0]], 0.0, 1.0, tf.quint8, axis=1)
        with pytest.raises(TypeError, match="not in list of allowed values: qint8, quint8"):
            tf.quantize([1.0], 0.0, 1.0, tf.int8)
        with pytest.raises(TypeError, match="allowed values: bfloat16, float32"):
            tf.dequantize(even.output, 0.0, 1.0, dtype=tf.float64)


def test_quantized_conv2d_refuses_a_qint8_filter():
    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.constant(np.ones((1, 2, 2, 1), np.uint8), tf.quint8)
        f = tf.constant(np.ones((1, 1, 1, 1), np.int8), tf.qint8)
        out = tf.nn.quantized_conv2d(x, f, 0.0, 1.0, -1.0, 1.0, [1, 1, 1, 1], "SAME")
        assert out.output.dtype == tf.qint32 and out.output.shape.as_list() == [1, 2, 2, 1]
        with pytest.raises(errors.UnimplementedError, match="quint8 inputs and filters"):
            s.run(out)


def test_no_gradients_registered():
    with tf.Graph().as_default():
        x = tf.constant([0.5, 1.0])
        q = tf.quantize(x, 0.0, 1.0, tf.quint8)
        y = tf.dequantize(q.output, q.output_min, q.output_max)
        with pytest.raises(LookupError, match="Dequantize"):
            tf.gradients(y, x)


# ── live comparisons with TensorFlow ────────────────────────────────────────────────
# One program builds every case with the `tf` module it is given, so TF and scopeflow run
# exactly the same graph code; results are integers and float32 bit patterns.
BUILD = textwrap.dedent('''
    def bits(v):
        v = np.asarray(v)
        if v.dtype.kind == "f" or v.dtype.name == "bfloat16":
            v = v.astype(np.float32).view(np.uint32)
        return v.astype(np.int64).reshape(-1).tolist()

    def quant_cases(tf):
        rng = np.random.RandomState(7)
        fetches = []
        ranges = [(0.0, 4.0), (-1.0, 1.0), (-3.5, 7.25), (0.5, 2.0), (-2.0, -0.5), (0.0, 0.0),
                  (-0.001, 0.002), (-100.0, 3.0)]
        for T in ("qint8", "quint8", "qint16", "quint16", "qint32"):
            for mode, rm in (("MIN_COMBINED", "HALF_AWAY_FROM_ZERO"),
                             ("MIN_FIRST", "HALF_AWAY_FROM_ZERO"),
                             ("SCALED", "HALF_AWAY_FROM_ZERO"), ("SCALED", "HALF_TO_EVEN")):
                for nr in (False, True):
                    for lo, hi in ranges:
                        x = np.concatenate([rng.uniform(lo - 1, hi + 1, 12),
                                            [0.0, lo, hi, 0.5, -0.5, 2.5, np.nan]])
                        q = tf.quantize(tf.constant(x.astype(np.float32)), lo, hi,
                                        getattr(tf, T), mode=mode, round_mode=rm,
                                        narrow_range=nr)
                        fetches.append(list(q))
                        # TF's oneDNN build rewrites SCALED Dequantize to a kernel taking
                        # 8-bit types only (NotFoundError for the others in one graph)
                        if mode != "SCALED" or T in ("qint8", "quint8"):
                            fetches.append(tf.dequantize(*q, mode=mode, narrow_range=nr))
        for T in ("qint8", "quint8", "qint32"):
            for mode in ("MIN_COMBINED", "SCALED"):
                for axis in (0, 1):
                    x = rng.uniform(-3, 3, (3, 4)).astype(np.float32)
                    lo = rng.uniform(-2, 0.5, x.shape[axis]).astype(np.float32)
                    hi = (lo + rng.uniform(0, 3, x.shape[axis])).astype(np.float32)
                    q = tf.quantize(x, lo, hi, getattr(tf, T), mode=mode, axis=axis,
                                    narrow_range=bool(axis))
                    fetches.append(list(q))
                    if mode != "SCALED" or T != "qint32":
                        fetches.append(tf.dequantize(*q, mode=mode, axis=axis,
                                                     narrow_range=bool(axis)))
        return fetches

    def nn_cases(tf):
        rng = np.random.RandomState(3)
        q8 = lambda v: tf.constant(np.asarray(v, np.uint8), tf.quint8)  # noqa: E731
        fetches = []
        for i in range(20):
            n, h, w, c, oc = 1 + i % 2, rng.randint(2, 7), rng.randint(2, 7), \\
                rng.randint(1, 4), rng.randint(1, 4)
            kh, kw = rng.randint(1, min(h, 3) + 1), rng.randint(1, min(w, 3) + 1)
            s = int(rng.randint(1, 3))
            r = [float(v) for v in (rng.uniform(-3, 0), rng.uniform(0.1, 4),
                                    rng.uniform(-2, 0), rng.uniform(0.1, 2))]
            f = q8(rng.randint(0, 256, (kh, kw, c, oc)))
            fetches.append(list(tf.nn.quantized_conv2d(
                q8(rng.randint(0, 256, (n, h, w, c))), f, *r, strides=[1, s, s, 1],
                padding=("SAME", "VALID")[i % 2])))
        for pool in (tf.nn.quantized_avg_pool, tf.nn.quantized_max_pool):
            for i in range(12):
                n, h, w, c = 1 + i % 2, rng.randint(1, 7), rng.randint(1, 7), rng.randint(1, 3)
                kh, kw = rng.randint(1, 4), rng.randint(1, 4)
                pad = ("SAME", "VALID")[i % 2]
                if pad == "VALID":
                    kh, kw = min(kh, h), min(kw, w)
                st = [1, int(rng.randint(1, 3)), int(rng.randint(1, 3)), 1]
                x = rng.randint(0, 256, (n, h, w, c))  # quint8, and qint8 (TF's kernels)
                x = q8(x) if i % 3 else tf.constant((x - 128).astype(np.int8), tf.qint8)
                fetches.append(list(pool(x, -1.5, 2.5, [1, kh, kw, 1], st, pad)))
        np_of = {"quint8": np.uint8, "qint32": np.int32}  # TF's QuantizedConcat kernels
        for T, st in np_of.items():
            info = np.iinfo(st)
            cases = [[(0., 1.), (-1., 3.)], [(0., 2.), (0., 2.)], [(1.0, 1.0), (0.0, 2.0)]]
            if T == "quint8":  # qint32 requantizing (-0.1, 0.1) onto (-4, 4) is one off
                cases.append([(-2., 1.), (0.5, 4.), (-0.1, 0.1)])
            for ranges in cases:
                vals = [tf.constant(rng.randint(info.min, int(info.max) + 1, (2, 3),
                                                dtype=np.int64).astype(st), getattr(tf, T))
                        for _ in ranges]
                fetches.append(list(tf.quantized_concat(1, vals, [r[0] for r in ranges],
                                                        [r[1] for r in ranges])))
        return fetches

    def bf16_cases(tf):
        x = np.array([1.0, 1.00390625, 1.01171875, -0.0, np.nan, np.inf, -np.inf, 3.4e38,
                      3.3961e38, 1e-40, 65504.0, 0.1, -7.3e-39, 2.5, 1e-45], np.float32)
        d = np.array([1 + 2 ** -8 + 2 ** -30, 1 + 3 * 2 ** -8, 3.3961e38, 1e300, 1e-300],
                     np.float64)
        b = tf.cast(tf.constant(x), tf.bfloat16)
        out = [b, tf.cast(tf.constant(d), tf.bfloat16),
               tf.cast(tf.constant(np.array([65504, 0.1, -3.5], np.float16)), tf.bfloat16),
               tf.cast(tf.constant([16777217, 257, -129]), tf.bfloat16),
               tf.cast(tf.constant(np.array([2 ** 40 + 1], np.int64)), tf.bfloat16),
               tf.cast(tf.constant([True, False]), tf.bfloat16),
               tf.constant([1.5, 2.7, -0.1], tf.bfloat16)]
        b2 = tf.constant([1.5, -2.5, 300.7, -0.0, 262144.0, 65520.0], tf.bfloat16)
        for dt in (tf.int32, tf.int8, tf.uint8, tf.int64, tf.float16, tf.float64, tf.bool):
            out.append(tf.cast(b2, dt))
        return out

    def dtype_props(tf):
        out = {}
        for name in ("bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32"):
            d = getattr(tf, name)
            out[name] = [d.as_datatype_enum, d.size, d.is_floating, d.is_integer,
                         d.is_quantized, d.is_unsigned, d.is_numpy_compatible,
                         str(d.as_numpy_dtype) if d.is_quantized else None]
        out["q"] = sorted(d.name for d in tf.QUANTIZED_DTYPES)
        return out

    def run_all(tf, which):
        with tf.Graph().as_default():
            fetches = {"quant": quant_cases, "nn": nn_cases, "bf16": bf16_cases}[which](tf)
            sess = tf.Session()
            got = sess.run(fetches)
        flat = []
        for group in got:
            for v in (group if isinstance(group, (list, tuple)) else [group]):
                flat.append(bits(v))
        return flat
''')


def _ours(which):
    env = {"np": np}
    exec(BUILD, env)  # noqa: S102 - the shared program text, defined above
    return env["run_all"](tf, which), env


def _theirs(tf1, which):
    return tf1(BUILD + textwrap.dedent(f'''
        tf.disable_v2_behavior()
        print(json.dumps(run_all(tf, {which!r})))
    '''))


def _compare(ours, theirs):
    assert len(ours) == len(theirs)
    bad = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert not bad, f"{len(bad)} of {len(ours)} results differ; first #{bad[0]}: " \
                    f"{ours[bad[0]][:12]} vs TF {theirs[bad[0]][:12]}"


def test_quantize_dequantize_match_tf(tf1):
    ours, _ = _ours("quant")
    _compare(ours, _theirs(tf1, "quant"))


def test_quantized_nn_ops_match_tf(tf1):
    ours, _ = _ours("nn")
    _compare(ours, _theirs(tf1, "nn"))


@needs_bf16
def test_bfloat16_casts_and_dtypes_match_tf(tf1):
    ours, env = _ours("bf16")
    theirs = tf1(BUILD + textwrap.dedent('''
        tf.disable_v2_behavior()
        print(json.dumps([run_all(tf, "bf16"), dtype_props(tf)]))
    '''))
    _compare(ours, theirs[0])
    assert json.loads(json.dumps(env["dtype_props"](tf))) == theirs[1]
