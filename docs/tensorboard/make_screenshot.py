"""Screenshots of real TensorBoard 2.21 showing scopeflow's word2vec run (seed 000).

    python docs/tensorboard/make_screenshot.py [OUT_DIR]

Writes the run with scopeflow (5 training steps, the seed's summaries and graph; the
program is tests/integration/test_tensorboard.py's), starts ``tensorboard`` on a free
port, and takes headless-Chromium screenshots of the graph view (the ``embed`` and
``loss`` name scopes as groups; ``word2vec_graph_tf.png`` is TensorFlow's run of the same
program, from the fixtures) and of the scalars view (both runs' curves). Needs Debian's ``chromium``
(``apt-get install -y chromium``); CI does not run this, it runs the structural tests.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
from test_tensorboard import _free_port, write_scopeflow_run  # noqa: E402


def _wait(url, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if b"run_graph" in r.read():
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"TensorBoard did not answer {url}")


def _shot(browser, url, out, size="1500,950", budget_ms=25000):
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", f"--window-size={size}",
                    f"--virtual-time-budget={budget_ms}", f"--screenshot={out}", url],
                   check=True, capture_output=True, timeout=180)
    if not Path(out).exists():
        raise RuntimeError(f"chromium wrote no screenshot to {out}")
    print(f"wrote {out}")


def _serve_and_shoot(browser, logdir, shots):
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir",
                               str(logdir), "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait(base + "/data/plugin/graphs/info")
        for fragment, out in shots:
            _shot(browser, f"{base}/{fragment}", out)
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    out_dir.mkdir(parents=True, exist_ok=True)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("needs chromium (Debian: apt-get install -y chromium)")
    root = Path(tempfile.mkdtemp())
    try:
        write_scopeflow_run(root / "ours" / "scopeflow")
        # the same program's run written by TF 2.21 (fixtures), alone and beside ours
        tf_run = ROOT / "tests" / "fixtures" / "tf_summaries" / "events" / "word2vec"
        shutil.copytree(tf_run, root / "theirs" / "tensorflow")
        shutil.copytree(root / "ours", root / "both")
        shutil.copytree(tf_run, root / "both" / "tensorflow")
        _serve_and_shoot(browser, root / "ours",
                         [("#graphs", out_dir / "word2vec_graph.png")])
        _serve_and_shoot(browser, root / "theirs",
                         [("#graphs", out_dir / "word2vec_graph_tf.png")])
        _serve_and_shoot(browser, root / "both",
                         [("#scalars", out_dir / "word2vec_scalars.png")])
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
