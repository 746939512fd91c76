"""``scopeflow serve`` under load (issue 38): latency percentiles and throughput of TF
Serving's REST ``:predict`` with concurrent clients, with and without server-side batching.

    python bench/bench_serve.py [--clients 8] [--requests 1000] [--model DIR]

Serves a SavedModel TensorFlow wrote (default: the MobileNet v1 0.25 at 96x96 in
tests/fixtures/classic_models/) with ``scopeflow serve`` in a child process, then sends
``--requests`` requests of one image from each of ``--clients`` threads at once, first to
the plain server, then to one started with ``--enable_batching``. Prints one JSON line:
p50 and p99 latency (ms), requests per second and failed requests for each, and the
status of each kind of bad request (wrong shape or dtype, JSON garbage, a body over the
64 MiB limit), which must be 4xx. There is no TensorFlow side:
TF Serving is a separate C++ server that this machine does not have, so the rows are
scopeflow's own, with the CPU model.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
from timing import cpu_model  # noqa: E402 - bench/ is on sys.path when a script runs

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "tests" / "fixtures" / "classic_models" / "mobilenet_v1_025_saved_model"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(port, body) -> int:
    """The HTTP status of a predict request."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/models/default:predict",
                                 data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        e.read()
        return e.code


def _bad_requests(size):
    """Requests TF Serving answers with 400: a wrong shape, a wrong dtype, JSON garbage."""
    small = [[[0.5] * 3] * (size // 2)] * (size // 2)
    return {"wrong shape": json.dumps({"instances": [{"input": small}]}).encode(),
            "wrong dtype": json.dumps({"instances": [{"input": "an image"}]}).encode(),
            "JSON garbage": b'{"instances": [1.0, '}


def _huge_body_status(port, nbytes=70 << 20) -> int:
    """The status of a predict request declaring a body over the 64 MiB limit: the server
    answers from the headers (a client that went on sending would see the connection
    closed under it, as with TF Serving)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("POST", "/v1/models/default:predict")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(nbytes))
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def _start(model, port, batching):
    cmd = [sys.executable, "-m", "scopeflow", "serve", str(model), "--port", str(port),
           "--log_level", "warning"]
    if batching:
        cmd += ["--enable_batching", "--max_batch_size", "32", "--batch_timeout_micros", "2000"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"scopeflow serve exited: {server.stderr.read().decode()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models/default", timeout=2)
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("scopeflow serve did not answer within 120 s")


def _load(port, body, clients, requests):
    """(each request's latency in seconds, the statuses other than 200, wall seconds for
    all of them)."""
    for _ in range(3):   # warm-up: the first runs compile the plan
        _post(port, body)
    latencies, failed, lock = [], [], threading.Lock()
    start_gate = threading.Barrier(clients + 1)

    def client():
        mine, bad = [], []
        start_gate.wait()
        for _ in range(requests):
            t0 = time.perf_counter()
            status = _post(port, body)
            mine.append(time.perf_counter() - t0)
            if status != 200:
                bad.append(status)
        with lock:
            latencies.extend(mine)
            failed.extend(bad)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    start_gate.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return latencies, failed, time.perf_counter() - t0


def _percentile(values, q):
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=1000, help="per client")
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--size", type=int, default=96, help="the model's image size")
    args = parser.parse_args()
    image = np.random.default_rng(0).uniform(-1, 1, (args.size, args.size, 3))
    body = json.dumps({"instances": [{"input": image.astype(np.float32).tolist()}]}).encode()
    out = {"framework": "scopeflow", "cpu": cpu_model(), "clients": args.clients}
    for batching in (False, True):
        port = _free_port()
        server = _start(args.model, port, batching)
        try:
            latencies, failed, wall = _load(port, body, args.clients, args.requests)
            if not batching:
                out["bad_requests_status"] = {what: _post(port, bad) for what, bad
                                              in _bad_requests(args.size).items()}
                out["bad_requests_status"]["huge body"] = _huge_body_status(port)
        finally:
            server.terminate()
            server.wait(timeout=30)
        key = "batching" if batching else "plain"
        out[f"{key}_p50_ms"] = _percentile(latencies, 50) * 1e3
        out[f"{key}_p99_ms"] = _percentile(latencies, 99) * 1e3
        out[f"{key}_requests_per_s"] = len(latencies) / wall
        out[f"{key}_failed_requests"] = len(failed)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
