"""Latency and throughput of ``gfbgcn serve`` (1, 32 and 256 documents a request) ->
docs/benchmarks.md.

A small model is trained on the R8 training documents (``--epochs``, default 5: the cost
depends on the shapes, not on the weights' quality) and saved, unless ``--model-dir`` names one;
``gfbgcn serve`` then runs in its own process on a free localhost port, as a user starts it,
and one client sends ``--requests`` requests of each size over one kept-alive connection, one
after the other, with R8 test documents.  Reported per size: requests/s and documents/s of that
sequential client, and the median (p50) and 99th-percentile (p99) latency of a request, from
sending it to reading its whole answer; beside them the median of ``model.predict`` on the same
batches in this process, so the share of HTTP and JSON is visible.

    python benchmarks/serve_latency.py
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from _report import command_line, machine_line, publish
from gfbgcn.text.corpus.benchmarks import load_benchmark


def _train(dataset: str, epochs: int, out: Path) -> Path:
    """A model saved by ``gfbgcn train --save`` from the training documents of ``dataset``."""
    from gfbgcn.text.graph.text_graph import build_text_graph
    from gfbgcn.text.predict.inductive import InductiveTextGCN
    from gfbgcn.text.predict.saved import save_model
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.run import train_text

    corpus = load_benchmark(dataset)
    graph = build_text_graph(corpus.subset(np.flatnonzero(corpus.is_train),
                                           name=f"{dataset}-train"))
    result = train_text(graph, TrainConfig(model="gfb-max", epochs=epochs), progress=False)
    return save_model(out, InductiveTextGCN.from_trained(result.model, graph, "gfb-max"),
                      layer_options=result.config.layer_options)


def _start(model_dir: Path, log: Path) -> tuple[subprocess.Popen, str, int]:
    """``gfbgcn serve MODEL --port 0`` in its own process; its address once it listens."""
    sink = open(log, "wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "gfbgcn", "serve", str(model_dir), "--port", "0", "--quiet",
         "--device", "cpu", "--max-texts", "256"],
        stdout=subprocess.DEVNULL, stderr=sink, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        found = re.search(r"on http://(127\.0\.0\.1):(\d+):", log.read_text(errors="replace"))
        if found:
            return process, found.group(1), int(found.group(2))
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"gfbgcn serve did not start: {log.read_text(errors='replace')}")


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _measure(host: str, port: int, batches: list[list[str]], model: Any,
             worker: ThreadPoolExecutor) -> tuple[list[float], list[float], list[float]]:
    """Seconds of each request (one kept-alive connection, one request at a time), then of
    ``model.predict`` on the same batch in a worker thread (where the server calls it) and in
    this main thread, each right after the request, so all three see the same load."""
    conn = http.client.HTTPConnection(host, port, timeout=120)
    served, in_worker, in_main = [], [], []
    try:
        for texts in batches:
            body = json.dumps({"texts": texts}).encode()
            start = time.perf_counter()
            conn.request("POST", "/predict", body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            data = reply.read()
            served.append(time.perf_counter() - start)
            if reply.status != 200:
                raise SystemExit(f"HTTP {reply.status}: {data[:200]!r}")
            in_worker.append(worker.submit(_timed, lambda t=texts: model.predict(t)).result())
            in_main.append(_timed(lambda t=texts: model.predict(t)))
    finally:
        conn.close()
    return served, in_worker, in_main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="r8")
    p.add_argument("--model-dir", type=Path, default=None,
                   help="a saved model to serve (default: train a small one)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--sizes", nargs="+", type=int, default=[1, 32, 256])
    p.add_argument("--requests", nargs="+", type=int, default=[500, 200, 100],
                   help="requests of each size (one number per --sizes)")
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    if len(args.requests) != len(args.sizes):
        p.error("give one --requests count per --sizes")
    corpus = load_benchmark(args.dataset)
    texts = [corpus.texts[i] for i in np.flatnonzero(~corpus.is_train)]
    chars = sum(len(t) for t in texts) / len(texts)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model_dir or _train(args.dataset, args.epochs, Path(tmp) / "model")
        from gfbgcn.text.predict.saved import load_model_and_config

        model, config = load_model_and_config(model_dir, device="cpu")
        process, host, port = _start(model_dir, Path(tmp) / "serve.log")
        rows = []
        worker = ThreadPoolExecutor(1)
        try:
            _measure(host, port, [texts[:32]] * 10, model, worker)  # warm-up: first-call work
            for size, count in zip(args.sizes, args.requests):
                batches = [[texts[(k * size + j) % len(texts)] for j in range(size)]
                           for k in range(count)]
                seconds, in_worker, in_main = _measure(host, port, batches, model, worker)
                total = sum(seconds)
                p50, p99 = np.percentile(seconds, [50, 99])
                direct = (statistics.median(in_worker), statistics.median(in_main))
                rows.append((size, count, count / total, count * size / total, p50, p99,
                             *direct))
                print(f"{size} docs/request: {count / total:,.1f} req/s, "
                      f"{count * size / total:,.0f} docs/s, p50 {p50 * 1e3:.1f} ms, "
                      f"p99 {p99 * 1e3:.1f} ms (model.predict {direct[0] * 1e3:.1f} ms in a "
                      f"worker thread, {direct[1] * 1e3:.1f} ms in the main thread)", flush=True)
        finally:
            worker.shutdown()
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)
    body = [
        "## `gfbgcn serve`: latency and throughput",
        "",
        f"`gfbgcn serve` (Starlette on uvicorn, one process, torch's default threads) with a "
        f"gfb-max model of the {args.dataset.upper()} training documents "
        f"({config['num_words']:,} words, hidden {config['model']['hidden']}, "
        f"{len(config['labels']['names'])} classes), on localhost. One client sends requests "
        f"one after the other over a kept-alive connection, with {args.dataset.upper()} test "
        f"documents (mean {chars:,.0f} characters); a request's latency runs from sending it "
        "to reading the whole JSON answer (every label's probability per document). "
        "`model.predict` is the median of the same batches called in the client's process "
        "right after each request, without HTTP or JSON: in a worker thread, as the server "
        "calls it (Starlette's thread pool), and in the main thread, as `gfbgcn predict` "
        "calls it; requests/s counts the requests' own time. The client and the server share "
        "the machine's cores, and the machine was loaded by other benchmark runs while this "
        "ran (the load average below): absolute times are pessimistic and noisy, p99 most of "
        "all; compare within a row.",
        "",
        "| documents a request | requests | requests/s | documents/s | p50 latency (ms) "
        "| p99 latency (ms) | `model.predict`, worker thread (ms) "
        "| `model.predict`, main thread (ms) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    body += [f"| {size} | {count} | {rps:,.1f} | {dps:,.0f} | {p50 * 1e3:,.1f} | "
             f"{p99 * 1e3:,.1f} | {worker_s * 1e3:,.1f} | {main_s * 1e3:,.1f} |"
             for size, count, rps, dps, p50, p99, worker_s, main_s in rows]
    body += ["", f"Machine: {machine_line()}.", "", f"Command: `{command_line()}`"]
    text = "\n".join(body)
    publish("serve-latency", text, args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
