"""tf.train.SyncReplicasOptimizer: one-process synchronous training compared with TF 2.21.

Each step refreshes every replica's local step from the global step, runs ``train_op`` once
per replica (apply gradient, take a token) and then the chief queue runner's op (take the
mean gradient, apply it, enqueue tokens); the variables, the global step, the momentum slot,
the dropping of a stale gradient and the optimizer's errors must be TF's.
"""

import contextlib
import io
import json

import numpy as np
import pytest

import scopeflow as tf

PROGRAM = 'import json, numpy as np\ndef run(tf, R, total=None, sparse=False, steps=3):\n    g = tf.Graph()\n    with g.as_default():\n        gs = tf.train.get_or_create_global_step()\n        w = tf.Variable([1.0, 2.0, 3.0], name="w")\n        b = tf.Variable(0.5, name="b")\n        x = tf.placeholder(tf.float32, [3])\n        if sparse:\n            emb = tf.gather(w, [0, 2])\n            loss = tf.reduce_sum(emb * x[:2]) + b * b\n        else:\n            loss = tf.reduce_sum(w * w * x) + b * b\n        opt = tf.train.SyncReplicasOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), R, total_num_replicas=total)\n        gv = opt.compute_gradients(loss)\n        train = opt.apply_gradients(gv, global_step=gs)\n        qr = opt.get_chief_queue_runner()\n        init_tok = opt.get_init_tokens_op()\n        info = dict(slots=opt.get_slot_names(), nvars=len(opt.variables()),\n                    local=[v.name for v in tf.local_variables()], tr=train.name, qr_ops=[o.name for o in qr.enqueue_ops],\n                    q=qr.queue.name)\n        with tf.Session() as s:\n            s.run(tf.global_variables_initializer()); s.run(tf.local_variables_initializer())\n            s.run(opt.chief_init_op); s.run(init_tok)\n            out = []\n            feeds = [np.array([1., 2., 3.]), np.array([0.5, -1., 2.]), np.array([3., 0., -2.])]\n            k = 0\n            for step in range(steps):\n                for r in range(R):\n                    s.run(opt.local_step_init_op)\n                    s.run(train, {x: feeds[k % 3]}); k += 1\n                s.run(qr.enqueue_ops[0])\n                out.append([s.run(w).tolist(), float(s.run(b)), int(s.run(gs))])\n            info["out"] = out\n            nacc = opt._accumulator_list[-1][0].num_accumulated()\n            s.run(train, {x: feeds[0]})\n            info["stale"] = [int(s.run(nacc)), int(s.run(opt._local_step))]\n            info["slot"] = s.run(opt.get_slot(w, "momentum")).tolist()\n            # stale gradient: apply with old local step is dropped\n        return info\ndef main(tf):\n    res = {}\n    for R, total, sp in [(1, None, False), (2, None, False), (2, 3, False)]:\n        res[f"{R}-{total}-{sp}"] = run(tf, R, total, sp)\n    errs = []\n    for f in [lambda o: o.get_chief_queue_runner(), lambda o: o.get_init_tokens_op()]:\n        try: f(tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2)); errs.append(None)\n        except Exception as e: errs.append([type(e).__name__, str(e)])\n    with tf.Graph().as_default():\n        v = tf.Variable(1.0)\n        o = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 3, total_num_replicas=1)\n        for a in [([], None), ([(v*1.0, v)], None)]:\n            try: o.apply_gradients(*a); errs.append(None)\n            except Exception as e: errs.append([type(e).__name__, str(e)])\n        o.apply_gradients([(v*1.0, v)], tf.train.get_or_create_global_step())\n        try: o.get_init_tokens_op(1); errs.append(None)\n        except Exception as e: errs.append([type(e).__name__, str(e)])\n        try: errs.append(o.get_init_tokens_op(0).name)\n        except Exception as e: errs.append([type(e).__name__, str(e)])\n        errs.append(o.get_init_tokens_op(2).name)\n    res["errs"] = errs\n    print(json.dumps(res))\n'


def _program():
    scope = {}
    exec(PROGRAM, scope)  # noqa: S102 - the same program text runs under TF
    return scope


def test_sync_replicas_trains_like_one_optimizer_on_the_mean_gradient():
    """R=2: the update is Momentum's on the mean of the two replicas' gradients (NumPy)."""
    out = _program()["run"](tf, 2, None, False, 1)
    w0 = np.array([1.0, 2.0, 3.0])
    g = (2 * w0 * np.array([1., 2., 3.]) + 2 * w0 * np.array([0.5, -1., 2.])) / 2
    np.testing.assert_allclose(out["out"][0][0], w0 - 0.1 * g, rtol=1e-6)
    assert out["out"][0][2] == 1
    assert out["stale"][0] == 0  # a gradient from an old local step is dropped


def test_sync_replicas_errors():
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2)
    with pytest.raises(ValueError, match="after apply_gradients"):
        opt.get_chief_queue_runner()
    with pytest.raises(ValueError, match="Global step is required"):
        with tf.Graph().as_default():
            v = tf.Variable(1.0)
            opt.apply_gradients([(v * 1.0, v)])


def test_sync_replicas_matches_tf(tf1):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _program()["main"](tf)
    ours = json.loads(buf.getvalue().splitlines()[-1])
    theirs = tf1("PROGRAM = " + repr(PROGRAM) + "\nimport tensorflow.compat.v1 as tf\n"
                 "tf.disable_v2_behavior()\nscope = {}\nexec(PROGRAM, scope)\n"
                 "scope['main'](tf)\n")
    assert ours == theirs
