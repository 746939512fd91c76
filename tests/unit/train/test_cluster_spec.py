"""tf.train.ClusterSpec and the ClusterDef / JobDef / ServerDef protos, against TF."""

import pytest

import scopeflow as tf

# (cluster dict, calls) run on both sides; each call's result or error class+message.
_CASES = [
    {"worker": ["w0:2222", "w1:2222"], "ps": ["ps0:2222"]},
    {"worker": {0: "w0:1", 3: "w3:1"}, "chief": ("c:1",)},
    {"ps": {"1": "p1:1"}, "empty": []},
    {},
]

_PROBE = """
def probe(spec):
    out = {"repr": repr(spec), "bool": bool(spec), "jobs": spec.jobs,
           "def": spec.as_cluster_def().SerializeToString().hex()}
    d = spec.as_dict()
    out["as_dict"] = {k: (v if isinstance(v, list) else {str(i): a for i, a in v.items()})
                      for k, v in d.items()}
    for job in spec.jobs + ["nope"]:
        for name, call in [("num_tasks", lambda: spec.num_tasks(job)),
                           ("task_indices", lambda: spec.task_indices(job)),
                           ("job_tasks", lambda: spec.job_tasks(job)),
                           ("addr0", lambda: spec.task_address(job, 0)),
                           ("addr3", lambda: spec.task_address(job, 3))]:
            try:
                out[job + "." + name] = call()
            except Exception as e:
                out[job + "." + name] = [type(e).__name__, str(e)]
    return out

def results(ClusterSpec, cases):
    res = [probe(ClusterSpec(c)) for c in cases]
    res.append(probe(ClusterSpec(ClusterSpec(cases[0]))))
    res.append(probe(ClusterSpec(ClusterSpec(cases[1]).as_cluster_def())))
    res.append(ClusterSpec(cases[0]) == cases[0])
    for bad in [{"w": 3}, 5, {"w": [1]}, {1: ["a"]}]:
        try:
            ClusterSpec(bad)
            res.append("ok")
        except Exception as e:
            res.append([type(e).__name__, str(e)])
    return res
"""


def _ours():
    ns = {}
    exec(_PROBE, ns)   # noqa: S102
    return ns["results"](tf.train.ClusterSpec, _CASES)


def test_cluster_spec_basics():
    spec = tf.train.ClusterSpec({"worker": {0: "a", 2: "c"}})
    assert spec.as_dict() == {"worker": {0: "a", 2: "c"}}
    assert spec.job_tasks("worker") == ["a", None, "c"]
    with pytest.raises(ValueError, match="No task with index 1 in job 'worker'"):
        spec.task_address("worker", 1)
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        tf.train.ClusterSpec({"worker": "a"})
    job = spec.as_cluster_def().job[0]
    assert isinstance(spec.as_cluster_def(), tf.train.ClusterDef)
    assert isinstance(job, tf.train.JobDef) and dict(job.tasks) == {0: "a", 2: "c"}
    server = tf.train.ServerDef(cluster=spec.as_cluster_def(), job_name="worker",
                                task_index=2, protocol="grpc")
    assert server.SerializeToString().hex().startswith("0a")


def test_cluster_spec_matches_tf(tf1):
    got = tf1(_PROBE + f"""
tf.disable_v2_behavior()
cases = {_CASES!r}
res = results(tf.train.ClusterSpec, cases)
sd = tf.train.ServerDef(cluster=tf.train.ClusterSpec(cases[0]).as_cluster_def(),
                        job_name="worker", replica=1, task_index=1, protocol="grpc", port=5)
sd.default_session_config.allow_soft_placement = True
sd.cluster_device_filters.jobs.add(name="w").tasks[0].device_filters.append("/job:ps")
res.append(sd.SerializeToString().hex())
print(json.dumps(res))
""")
    ours = _ours()
    sd = tf.train.ServerDef(cluster=tf.train.ClusterSpec(_CASES[0]).as_cluster_def(),
                            job_name="worker", replica=1, task_index=1, protocol="grpc", port=5)
    sd.default_session_config.allow_soft_placement = True
    sd.cluster_device_filters.jobs.add(name="w").tasks[0].device_filters.append("/job:ps")
    ours.append(sd.SerializeToString().hex())
    assert ours == got
