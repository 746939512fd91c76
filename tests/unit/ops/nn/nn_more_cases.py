"""Cases run both by scopeflow and by TensorFlow (tf.compat.v1) for test_nn_more.py: each
``run_*(tf)`` builds graphs with the given module as ``tf`` and returns JSON-able values,
op names, static shapes, op types and error classes, which the test compares."""
# ruff: noqa

import numpy as np


import numpy as np
def run_composites(tf):
    out = {}
    rng = np.random.RandomState(0)
    x = rng.randn(3, 4).astype(np.float32)
    tf.reset_default_graph()
    p = tf.placeholder(tf.float32, [None, 4], name="p")
    w = tf.constant(rng.randn(4, 2).astype(np.float32)); b = tf.constant([0.5, -0.5])
    lab = (rng.rand(3, 4) > .5).astype(np.float32)
    T = {}
    T["crelu"] = tf.nn.crelu(p)
    T["crelu0"] = tf.nn.crelu(p, axis=0)
    T["swish"] = tf.nn.swish(p)
    T["silu2"] = tf.nn.silu(p, beta=2.0)
    T["relu_layer"] = tf.nn.relu_layer(p, w, b)
    T["xw"] = tf.nn.xw_plus_b(p, w, b)
    T["wce"] = tf.nn.weighted_cross_entropy_with_logits(labels=lab, logits=p, pos_weight=3.0)
    T["wce_t"] = tf.nn.weighted_cross_entropy_with_logits(targets=lab, logits=p, pos_weight=0.5)
    T["lp"] = tf.nn.log_poisson_loss(lab * 3, p)
    T["lpf"] = tf.nn.log_poisson_loss(np.abs(x) * 3, p, compute_full_loss=True)
    c, m, v, s = tf.nn.sufficient_statistics(p, [0, 1])
    T["ss_c"], T["ss_m"], T["ss_v"] = c, m, v
    c2, m2, v2, s2 = tf.nn.sufficient_statistics(tf.constant(x), [1], shift=0.5, keepdims=True)
    T["ss2_c"], T["ss2_m"], T["ss2_v"] = c2, m2, v2
    T["nm_m"], T["nm_v"] = tf.nn.normalize_moments(c, m, v, None)
    T["nm2_m"], T["nm2_v"] = tf.nn.normalize_moments(c2, m2, v2, s2)
    fw = rng.rand(3, 1).astype(np.float32)
    T["wm_m"], T["wm_v"] = tf.nn.weighted_moments(p, [0], fw)
    T["wm2_m"], T["wm2_v"] = tf.nn.weighted_moments(p, [1], fw, keep_dims=True)
    T["bn"] = tf.nn.batch_norm_with_global_normalization(p, np.full(4, 0.1, np.float32), np.full(4, 2.0, np.float32), np.full(4, 0.3, np.float32), np.full(4, 1.5, np.float32), 1e-3, True)
    T["bn2"] = tf.nn.batch_norm_with_global_normalization(input=p, mean=np.full(4, 0.1, np.float32), variance=np.full(4, 2.0, np.float32), beta=np.full(4, 0.3, np.float32), gamma=np.full(4, 1.5, np.float32), variance_epsilon=1e-3, scale_after_normalization=False)
    T["cal"] = tf.nn.compute_average_loss(tf.reduce_sum(p, 1))
    T["cal2"] = tf.nn.compute_average_loss(tf.reduce_sum(p, 1), sample_weight=[1.0, 2.0, 0.0], global_batch_size=8)
    T["srl"] = tf.nn.scale_regularization_loss(p)
    keys = sorted(T)
    grads = {}
    for k in keys:
        if k.startswith("ss") or k.startswith("nm_") and False:
            continue
        g = tf.gradients(T[k], p)[0]
        if g is not None:
            grads["g_" + k] = g
    bt = tf.constant(1.5)
    grads["g_swish_beta"] = tf.gradients(tf.nn.swish(p, bt), bt)[0]
    with tf.Session() as sess:
        vals = sess.run({**T, **grads}, {p: x})
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(4).tolist() for k, v in vals.items()}
    out["names"] = {k: T[k].name for k in keys}
    out["shapes"] = {k: str(T[k].shape) for k in keys}
    out["dtypes"] = {k: T[k].dtype.name for k in keys}
    errs = {}
    for k, f in {"wce_shape": lambda: tf.nn.weighted_cross_entropy_with_logits(labels=[1.0, 2.0], logits=[1.0], pos_weight=1.0),
                 "lp_shape": lambda: tf.nn.log_poisson_loss([1.0, 2.0], [1.0]),
                 "cal_rank": lambda: tf.nn.compute_average_loss(1.0),
                 "both": lambda: tf.nn.weighted_cross_entropy_with_logits(labels=[1.0], targets=[1.0], logits=[1.0], pos_weight=1.0)}.items():
        try:
            f(); errs[k] = None
        except Exception as e:
            errs[k] = type(e).__name__
    out["errs"] = errs
    return out


def run_conv_pool(tf):
    out = {}
    rng = np.random.RandomState(1)
    tf.reset_default_graph()
    x1v = rng.randn(2, 9, 3).astype(np.float32)
    x2v = rng.randn(2, 9, 8, 3).astype(np.float32)
    x3v = rng.randn(1, 5, 6, 4, 2).astype(np.float32)
    x1 = tf.placeholder(tf.float32, [None, 9, 3], name="x1")
    x2 = tf.placeholder(tf.float32, [None, 9, 8, 3], name="x2")
    x3 = tf.placeholder(tf.float32, [None, 5, 6, 4, 2], name="x3")
    xu = tf.placeholder(tf.float32, [None, None, None, 3], name="xu")
    f1 = tf.constant(rng.randn(3, 3, 4).astype(np.float32))
    f2 = tf.constant(rng.randn(3, 2, 3, 4).astype(np.float32))
    f3 = tf.constant(rng.randn(2, 2, 2, 2, 3).astype(np.float32))
    ft2 = tf.constant(rng.randn(3, 3, 4, 3).astype(np.float32))
    ft1 = tf.constant(rng.randn(3, 4, 3).astype(np.float32))
    T = {}
    T["mp1"] = tf.nn.max_pool1d(x1, 2, 2, "SAME")
    T["ap1"] = tf.nn.avg_pool1d(x1, 3, 2, "VALID")
    T["mpv2_1"] = tf.nn.max_pool_v2(x1, 2, 1, "VALID")
    T["mpv2_2"] = tf.nn.max_pool_v2(x2, [2, 3], [2, 1], "SAME")
    T["mpv2_3"] = tf.nn.max_pool_v2(x3, 2, 2, "SAME")
    T["apv2_1"] = tf.nn.avg_pool_v2(x1, 2, 2, "SAME")
    T["apv2_2"] = tf.nn.avg_pool_v2(x2, 3, 2, "SAME")
    T["apv2_3"] = tf.nn.avg_pool_v2(x3, 2, 1, "VALID")
    T["pool_max2"] = tf.nn.pool(x2, [2, 2], "MAX", "SAME")
    T["pool_avg2_dil"] = tf.nn.pool(x2, [2, 2], "AVG", "VALID", dilation_rate=[2, 3])
    T["pool_max1_dil"] = tf.nn.pool(x1, [2], "MAX", "VALID", dilation_rate=[2])
    T["pool_avg1"] = tf.nn.pool(x1, [3], "AVG", "SAME", strides=[2])
    T["pool_max3"] = tf.nn.pool(x3, [2, 2, 2], "MAX", "VALID", strides=[1, 2, 2])
    T["pool_u_dil"] = tf.nn.pool(xu, [2, 2], "MAX", "VALID", dilation_rate=[2, 2])
    T["conv2"] = tf.nn.convolution(x2, f2, "SAME")
    T["conv2s"] = tf.nn.convolution(x2, f2, "VALID", strides=[2, 1])
    T["conv2d_dil"] = tf.nn.convolution(x2, f2, "SAME", dilation_rate=[2, 2])
    T["conv2d_dil_v"] = tf.nn.convolution(x2, f2, "VALID", dilations=[3, 2])
    T["conv1"] = tf.nn.convolution(x1, f1, "VALID")
    T["conv1_dil"] = tf.nn.convolution(x1, f1, "SAME", dilation_rate=[2])
    T["conv3"] = tf.nn.convolution(x3, f3, "VALID")
    T["conv3_dil"] = tf.nn.convolution(x3, f3, "SAME", dilation_rate=[2, 1, 2])
    T["conv_u_dil"] = tf.nn.convolution(xu, f2, "SAME", dilation_rate=[2, 2])
    T["atrous"] = tf.nn.atrous_conv2d(x2, f2, 2, "SAME")
    T["atrous_v"] = tf.nn.atrous_conv2d(x2, f2, 3, "VALID")
    y4 = tf.placeholder(tf.float32, [2, 9, 8, 3], name="y4")
    T["atrous_t"] = tf.nn.atrous_conv2d_transpose(y4, ft2, [2, 9, 8, 4], 2, "SAME")
    T["atrous_tv"] = tf.nn.atrous_conv2d_transpose(y4, ft2, [2, 13, 12, 4], 2, "VALID")
    T["convT2"] = tf.nn.conv_transpose(x2, ft2, [2, 18, 16, 4], 2)
    T["convT1"] = tf.nn.conv_transpose(x1, ft1, [2, 18, 4], 2, padding="VALID" if False else "SAME")
    T["c1t"] = tf.nn.conv1d_transpose(x1, ft1, [2, 19, 4], 2, "VALID")
    T["c1t_s"] = tf.nn.conv1d_transpose(x1, ft1, tf.constant([2, 9, 4]), 1)
    T["wstb"] = tf.nn.with_space_to_batch(x2, [2, 2], "SAME", lambda i, n, p: tf.nn.conv2d(i, f2, [1, 1, 1, 1], p), filter_shape=[3, 2])
    T["dwbf"] = tf.nn.depthwise_conv2d_backprop_filter(x2, [2, 2, 3, 2], tf.ones([2, 8, 7, 6]), [1] * 4, "VALID")
    T["dwbi"] = tf.nn.depthwise_conv2d_backprop_input([2, 9, 8, 3], tf.ones([2, 2, 3, 2]), tf.ones([2, 8, 7, 6]), [1] * 4, "VALID")
    T["c3bf"] = tf.nn.conv3d_backprop_filter(x3, [2, 2, 2, 2, 3], tf.ones([1, 4, 5, 3, 3]), [1] * 5, "VALID")
    keys = sorted(T)
    grads = {}
    for k in keys:
        if k in ("pool_u_dil", "conv_u_dil"): continue
        src = [t for t in (x1, x2, x3, y4) if t.name.split(":")[0] in [i.op.name for i in _inputs(T[k])]]
        for s in src:
            g = tf.gradients(tf.reduce_sum(T[k] * T[k]), s)[0]
            if g is not None:
                grads["g_" + k] = g
    xuv = rng.randn(2, 7, 10, 3).astype(np.float32)
    y4v = rng.randn(2, 9, 8, 3).astype(np.float32)
    with tf.Session() as sess:
        vals = sess.run({**T, **grads}, {x1: x1v, x2: x2v, x3: x3v, xu: xuv, y4: y4v})
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(3).tolist() for k, v in vals.items()}
    out["names"] = {k: T[k].name for k in keys}
    out["shapes"] = {k: str(T[k].shape) for k in keys}
    out["types"] = {k: sorted(o.type for o in _ops(T[k]) if o.type not in ("Const", "Placeholder")) for k in keys}
    errs = {}
    for k, f in {"pool_same_dil": lambda: tf.nn.pool(x2, [2, 2], "AVG", "SAME", dilation_rate=[2, 2]),
                 "pool_stride_gt": lambda: tf.nn.pool(x2, [2, 2], "AVG", "SAME", strides=[3, 3]),
                 "pool_rank": lambda: tf.nn.pool(x2, [2], "AVG", "SAME"),
                 "conv_dil_stride": lambda: tf.nn.convolution(x2, f2, "SAME", strides=[2, 2], dilation_rate=[2, 2]),
                 "mpv2_rank": lambda: tf.nn.max_pool_v2(tf.ones([2, 3]), 2, 2, "SAME"),
                 "convT_len": lambda: tf.nn.conv_transpose(x2, ft2, [2, 3], 2),
                 "atrous_rate": lambda: tf.nn.atrous_conv2d_transpose(y4, ft2, [2, 9, 8, 4], 0, "SAME")}.items():
        try:
            f(); errs[k] = None
        except Exception as e:
            errs[k] = type(e).__name__
    out["errs"] = errs
    return out

def _ops(t):
    seen, stack = set(), [t.op]
    while stack:
        o = stack.pop()
        if o.name in seen: continue
        seen.add(o.name); yield o
        stack.extend(i.op for i in o.inputs)

def _inputs(t):
    return [o.outputs[0] for o in _ops(t) if o.type == "Placeholder"]


def run_losses(tf):
    out={}
    rng=np.random.RandomState(0)
    lab=rng.rand(3,4).astype(np.float32); pred=rng.rand(3,4).astype(np.float32)
    w=np.array([[1.],[0.],[2.]],np.float32)
    tf.reset_default_graph()
    cases=[]
    cases.append(tf.losses.cosine_distance(lab,pred,axis=1))
    cases.append(tf.losses.cosine_distance(lab,pred,dim=0,weights=2.0,reduction=tf.losses.Reduction.MEAN))
    cases.append(tf.losses.hinge_loss((lab>.5).astype(np.float32),pred*2-1,weights=w))
    cases.append(tf.losses.hinge_loss((lab>.5).astype(np.float32),pred*2-1,reduction=tf.losses.Reduction.NONE))
    cases.append(tf.losses.mean_pairwise_squared_error(lab,pred))
    cases.append(tf.losses.mean_pairwise_squared_error(lab,pred,weights=w))
    cases.append(tf.losses.mean_pairwise_squared_error(lab.reshape(3,2,2),pred.reshape(3,2,2),weights=np.array([1.,0.,3.],np.float32).reshape(3,1,1)))
    p=tf.placeholder(tf.float32,[None,4])
    cases.append(tf.losses.mean_pairwise_squared_error(lab,p,weights=w))
    g=tf.gradients(cases[-1],p)[0]
    g2=tf.gradients(tf.losses.cosine_distance(lab,p,axis=1),p)[0]
    g3=tf.gradients(tf.losses.hinge_loss(lab,p),p)[0]
    with tf.Session() as s:
        vals=s.run(cases+[g,g2,g3],{p:pred})
    out['vals']={str(i): np.asarray(v).round(4).tolist() for i, v in enumerate(vals)}
    out['names']=[c.name for c in cases]
    out['shapes']=[str(c.shape) for c in cases]
    out['coll']=[t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)]
    # TF's assert_broadcastable leaves NoOps and constants of a static check; left out.
    out['ops']=[o.type for o in tf.get_default_graph().get_operations() if o.name.startswith('mean_pairwise_squared_error/') and o.type not in ('Const', 'NoOp')]
    return out


def run_layers(tf):
    out = {}
    rng = np.random.RandomState(3)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 9, 3], name="x")
    xv = rng.randn(2, 9, 3).astype(np.float32)
    dw = rng.randn(3, 3, 2).astype(np.float32)
    pw = rng.randn(1, 6, 4).astype(np.float32)
    dw2 = rng.randn(2, 3, 1).astype(np.float32)
    pw2 = rng.randn(1, 3, 4).astype(np.float32)
    T = {}
    T["sep_same"] = tf.layers.separable_conv1d(
        x, 4, 3, strides=2, padding="same", depth_multiplier=2,
        depthwise_initializer=tf.constant_initializer(dw),
        pointwise_initializer=tf.constant_initializer(pw),
        bias_initializer=tf.constant_initializer(0.25))
    layer = tf.layers.SeparableConv1D(4, 2, dilation_rate=2, activation=tf.nn.relu,
                                      depthwise_initializer=tf.constant_initializer(dw2),
                                      pointwise_initializer=tf.constant_initializer(pw2))
    T["sep_dil"] = layer(x)
    T["sep_causal"] = tf.layers.separable_conv1d(
        x, 4, 2, padding="causal", use_bias=False,
        depthwise_initializer=tf.constant_initializer(dw2),
        pointwise_initializer=tf.constant_initializer(pw2), name="causal")
    keys = sorted(T)
    g = tf.gradients(tf.reduce_sum(T["sep_same"] ** 2), [x] + tf.trainable_variables()[:3])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = s.run({**T, "grads": g}, {x: xv})
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(4).tolist() for k, v in vals.items() if k != "grads"}
    out["vals"].update({f"g{i}": np.asarray(v).round(3).tolist() for i, v in enumerate(vals["grads"])})
    out["names"] = {k: T[k].name for k in keys}
    out["shapes"] = {k: str(T[k].shape) for k in keys}
    out["vars"] = [(v.name, str(v.shape)) for v in tf.global_variables()]
    out["types"] = [o.type for o in tf.get_default_graph().get_operations()
                    if o.name.startswith("separable_conv1d_1/") and "Initializer" not in o.name
                    and o.type not in ("Const", "Identity", "VariableV2", "Assign")]
    return out


def run_ctc(tf):
    out = {}
    rng = np.random.RandomState(7)
    tf.reset_default_graph()
    T_, B, C = 8, 4, 5
    xv = rng.randn(T_, B, C).astype(np.float32)
    x = tf.placeholder(tf.float32, [T_, None, C], name="x")
    lab_idx = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 0], [3, 0], [3, 1], [3, 2], [3, 3]], np.int64)
    lab_val = np.array([1, 2, 2, 3, 3, 3, 0, 1, 0, 1, 3], np.int32)
    labels = tf.SparseTensor(lab_idx, lab_val, [4, 4])
    sl = np.array([8, 7, 3, 8], np.int32)
    T = {}
    T["loss"] = tf.nn.ctc_loss(labels, x, sl)
    T["loss_collapse"] = tf.nn.ctc_loss(labels, x, sl, preprocess_collapse_repeated=True)
    T["loss_nomerge"] = tf.nn.ctc_loss(labels, x, sl, ctc_merge_repeated=False)
    T["loss_bm"] = tf.nn.ctc_loss(labels, tf.transpose(x, [1, 0, 2]), sl, time_major=False)
    sl_short = np.array([8, 4, 3, 2], np.int32)
    T["loss_ignore"] = tf.nn.ctc_loss(labels, x, sl_short, ignore_longer_outputs_than_inputs=True)
    keys = sorted(T)
    grads = {"g_" + k: tf.gradients(tf.reduce_sum(T[k] * [1.0, 2.0, 0.5, 1.5]), x)[0] for k in keys}
    (d,), lp = tf.nn.ctc_greedy_decoder(x, sl)
    (d2,), lp2 = tf.nn.ctc_greedy_decoder(x, sl, merge_repeated=False, blank_index=0)
    xr = np.repeat(xv[::2], 2, axis=0)   # repeats to merge
    with tf.Session() as sess:
        vals = sess.run({**T, **grads}, {x: xv})
        dec = sess.run([d.indices, d.values, d.dense_shape, lp, d2.indices, d2.values, d2.dense_shape, lp2], {x: xr})
        errs = {}
        try:
            sess.run(tf.nn.ctc_loss(labels, x, sl_short), {x: xv})
            errs["short"] = None
        except Exception as e:
            errs["short"] = type(e).__name__
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(3).tolist() for k, v in vals.items()}
    out["dec"] = [np.asarray(v).round(3).tolist() for v in dec]
    out["names"] = {k: T[k].name for k in keys} | {"d": [d.indices.name, d.values.name, d.dense_shape.name, lp.name]}
    out["shapes"] = {k: str(T[k].shape) for k in keys} | {"d": [str(t.shape) for t in (d.indices, d.values, d.dense_shape, lp)]}
    out["dtypes"] = [t.dtype.name for t in (d.indices, d.values, d.dense_shape, lp)]
    out["grad_types"] = sorted(o.type for o in tf.get_default_graph().get_operations() if o.name.startswith("gradients/CTCLoss_grad/"))
    try:
        tf.gradients(grads["g_loss"], x)
        errs["second"] = None
    except Exception as e:
        errs["second"] = type(e).__name__
    try:
        tf.nn.ctc_loss(lab_val, x, sl); errs["dense"] = None
    except Exception as e:
        errs["dense"] = type(e).__name__
    out["errs"] = errs
    return out


def run_morphology(tf):
    out = {}
    rng = np.random.RandomState(9)
    tf.reset_default_graph()
    xv = rng.randn(2, 7, 6, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 7, 6, 3], name="x")
    xu = tf.placeholder(tf.float32, [None, 7, None, 3], name="xu")
    f = tf.constant(rng.randn(2, 3, 3).astype(np.float32))
    T = {}
    T["d_same"] = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    T["d_valid_s"] = tf.nn.dilation2d(x, f, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    T["d_rate"] = tf.nn.dilation2d(x, filters=f, strides=[1, 1, 2, 1], dilations=[1, 2, 2, 1], padding="SAME")
    T["d_rate_v"] = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 2, 1, 1], "VALID")
    T["e_same"] = tf.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    T["e_rate"] = tf.nn.erosion2d(x, f, [1, 2, 1, 1], [1, 1, 2, 1], "VALID")
    T["d_u"] = tf.nn.dilation2d(xu, f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    keys = sorted(T)
    grads = {}
    for k in keys:
        if k == "d_u": continue
        gx, gf = tf.gradients(tf.reduce_sum(T[k] * T[k]), [x, f])
        grads["gx_" + k], grads["gf_" + k] = gx, gf
    with tf.Session() as sess:
        vals = sess.run({**T, **grads}, {x: xv, xu: xv})
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(3).tolist() for k, v in vals.items()}
    out["names"] = {k: T[k].name for k in keys} | {k: grads[k].name for k in sorted(grads)}
    out["shapes"] = {k: str(T[k].shape) for k in keys} | {k: str(grads[k].shape) for k in sorted(grads)}
    errs = {}
    try:
        tf.gradients(grads["gx_d_same"], x); errs["second"] = None
    except Exception as e:
        errs["second"] = type(e).__name__
    for k, fn in {"depth": lambda: tf.nn.dilation2d(x, tf.ones([2, 2, 2]), [1] * 4, [1] * 4, "SAME"),
                  "stride": lambda: tf.nn.dilation2d(x, f, [2, 1, 1, 1], [1] * 4, "SAME")}.items():
        try:
            fn(); errs[k] = None
        except Exception as e:
            errs[k] = type(e).__name__
    out["errs"] = errs
    return out


def run_argmax(tf):
    out = {}
    rng = np.random.RandomState(10)
    tf.reset_default_graph()
    xv = rng.randn(2, 7, 6, 3).astype(np.float32)
    xv[0, 0, 0, 0] = xv[0, 0, 1, 0] = 5.0   # a tie: the first in scan order wins
    x = tf.placeholder(tf.float32, [None, 7, 6, 3], name="x")
    T = {}
    T["a"], T["a_i"] = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    T["b"], T["b_i"] = tf.nn.max_pool_with_argmax(x, [1, 3, 2, 1], [1, 1, 2, 1], "VALID", include_batch_in_index=True)
    T["c"], T["c_i"] = tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME", Targmax=tf.int32)
    T["d"], T["d_i"] = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID", output_dtype=tf.int32, name="mp")
    keys = sorted(T)
    grads = {"g_" + k: tf.gradients(tf.reduce_sum(T[k] * T[k]), x)[0] for k in "ab"}  # TF has no CPU gradient kernel for an int32 argmax
    with tf.Session() as sess:
        vals = sess.run({**T, **grads}, {x: xv})
    out["vals"] = {k: np.asarray(v).astype(np.float64).round(3).tolist() for k, v in vals.items()}
    out["names"] = {k: T[k].name for k in keys} | {k: grads[k].name for k in sorted(grads)}
    out["shapes"] = {k: str(T[k].shape) for k in keys}
    out["dtypes"] = {k: T[k].dtype.name for k in keys}
    errs = {}
    try:
        tf.gradients(grads["g_a"], x); errs["second"] = None
    except Exception as e:
        errs["second"] = type(e).__name__
    for k, fn in {"nchw": lambda: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", data_format="NCHW"),
                  "batch": lambda: tf.nn.max_pool_with_argmax(x, [2, 2, 2, 1], [1, 2, 2, 1], "SAME")}.items():
        try:
            fn(); errs[k] = None
        except Exception as e:
            errs[k] = type(e).__name__
    out["errs"] = errs
    return out


def run_collapse(tf):
    out = {}
    tf.reset_default_graph()
    lab = np.array([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0], [5, 6, 6, 7, 7]], np.int32)
    sl = np.array([5, 3, 4], np.int32)
    p = tf.placeholder(tf.int32, [None, None])
    r = {}
    r["a"], r["a_len"] = tf.nn.collapse_repeated(lab, sl)
    r["b"], r["b_len"] = tf.nn.collapse_repeated(p, tf.constant(sl, tf.int64))
    with tf.Session() as s:
        vals = s.run(r, {p: lab})
    out["vals"] = {k: np.asarray(v).tolist() for k, v in vals.items()}
    out["names"] = {k: v.name for k, v in r.items()}
    # TF also folds the constant input's new max length into the static shape (it evaluates
    # constant subgraphs during shape inference); scopeflow leaves it unknown: "b" only.
    out["shapes"] = {k: str(v.shape) for k, v in r.items() if k.startswith("b")}
    out["dtypes"] = {k: v.dtype.name for k, v in r.items()}
    return out
