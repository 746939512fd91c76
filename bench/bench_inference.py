"""Frozen-graph inference of classic image models (issues 38 and 41): MobileNet v1 and v2,
ResNet-50 (224x224) and Inception v3 (299x299), batch 1 and 32, for scopeflow or (with
--tf) TensorFlow.

    python bench/bench_inference.py            # scopeflow
    ../shared/tools/tf1 bench/bench_inference.py --tf
    python bench/compare.py bench/bench_inference.py

The graphs are the ones tests/fixtures/classic_models/make_models.py makes with real
TensorFlow (tf_keras.applications, fixed random weights, frozen with
``convert_variables_to_constants``): each framework imports the same ``.pb`` with
``import_graph_def`` and runs ``predictions/Softmax`` on a fed float32 batch, as a
serving process does. The first run makes the graphs into $SCOPEFLOW_BENCH_MODELS
(default ~/.cache/scopeflow-bench/classic_models) through the TF oracle (three minutes).
Prints one JSON line: the best time of one run per model and batch size.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from timing import best_of, cpu_model  # noqa: E402 - bench/ is on sys.path when a script runs

TF = "--tf" in sys.argv
if TF:
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import scopeflow as tf

ROOT = Path(__file__).resolve().parent.parent
MAKE_MODELS = ROOT / "tests" / "fixtures" / "classic_models" / "make_models.py"
MODELS = ("mobilenet_v1", "mobilenet_v2", "resnet50", "inception_v3")
BATCHES = (1, 32)


def models_dir() -> Path:
    """The folder holding each model's ``NAME.pb`` and ``NAME.json``, made on first use.

    Both processes of ``compare.py`` start at once: a lock file makes one of them build
    the graphs while the other waits."""
    out = Path(os.environ.get("SCOPEFLOW_BENCH_MODELS",
                              Path.home() / ".cache" / "scopeflow-bench" / "classic_models"))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [m for m in MODELS if not (out / f"{m}.json").exists()]
        if missing:
            tool = os.environ.get("SCOPEFLOW_TF1", str(ROOT.parent / "shared" / "tools" / "tf1"))
            oracle = [sys.executable] if TF else [tool]
            subprocess.run([*oracle, str(MAKE_MODELS), str(out), *missing], check=True,
                           stdout=sys.stderr)
    return out


def time_model(directory: Path, name: str) -> dict:
    with open(directory / f"{name}.json") as f:
        info = json.load(f)
    graph_def = tf.GraphDef()
    graph_def.ParseFromString((directory / f"{name}.pb").read_bytes())
    times = {}
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.import_graph_def(graph_def, name="")
        x = g.get_tensor_by_name(info["input"] + ":0")
        probabilities = g.get_tensor_by_name(info["outputs"][0] + ":0")
        rng = np.random.default_rng(0)
        for batch in BATCHES:
            images = rng.uniform(-1, 1, (batch, info["size"], info["size"], 3)).astype(np.float32)
            feed = {x: images}
            for _ in range(2):
                sess.run(probabilities, feed)
            times[f"{name}_batch{batch}_ms"] = best_of(
                lambda feed=feed: sess.run(probabilities, feed), repeat=5 if batch == 1 else 3,
                number=5 if batch == 1 else 1) * 1e3
    return times


def main():
    out = {"framework": "tensorflow " + tf.__version__ if TF else "scopeflow",
           "cpu": cpu_model()}
    directory = models_dir()
    for name in MODELS:
        out.update(time_model(directory, name))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
