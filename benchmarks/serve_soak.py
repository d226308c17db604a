"""``gfbgcn serve`` under many clients at once (a soak test) -> docs/benchmarks.md.

A small model is trained on the R8 training documents (as ``serve_latency.py`` does, or
``--model-dir`` names one) and ``gfbgcn serve`` runs in its own process on a free localhost
port.  ``--clients`` threads (16) each send ``--requests`` requests (200) over one kept-alive
connection, all at once: batches of 1 to ``--max-batch`` R8 test documents drawn with a seeded
generator, and every ``--bad-every``-th request a user's mistake (wrong content type, a number
among the texts, one text too many, broken JSON), which must be a JSON 4xx.  Every prediction
is checked against ``gfbgcn predict``'s for the same document: the same label and the
probability within :data:`TOLERANCE` of the one it prints.  Reported: requests/s and
documents/s of all clients together, the p50 and p99 latency of a request, and the server's
resident memory (``/proc``: before the clients start and its peak, ``VmHWM``, once they are
done).

    python benchmarks/serve_soak.py
"""

from __future__ import annotations

import argparse
import csv
import http.client
import io
import json
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from _report import command_line, machine_line, publish
from gfbgcn.text.corpus.benchmarks import load_benchmark
from serve_latency import _start, _train

#: The user's mistakes sent among the good requests: (what, body, content type), each a 4xx.
BAD: list[tuple[str, bytes, str]] = [
    ("wrong content type", b'{"texts": ["a"]}', "text/plain"),
    ("a number among the texts", b'{"texts": ["a", 3]}', "application/json"),
    ("one text too many", json.dumps({"texts": ["a"] * 257}).encode(), "application/json"),
    ("broken JSON", b'{"texts": ["a"', "application/json"),
]

_LOCK = threading.Lock()
#: The largest difference allowed between a served probability and ``gfbgcn predict``'s, which
#: prints six decimals (half a unit of the last, 5e-7) computed in float32 over other batches
#: (a few units of 1e-8 more).
TOLERANCE = 1e-6


def _expected(model_dir: Path, pool: list[str], tmp: Path) -> list[tuple[str, str]]:
    """``gfbgcn predict``'s label and probability for each document of ``pool``."""
    source = tmp / "pool.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in pool), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "gfbgcn", "predict", str(model_dir), "--input",
                           str(source), "--device", "cpu"], capture_output=True, text=True,
                          check=True)
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(rows) == len(pool), (len(rows), done.stderr[-500:])
    return [(row["label"], row["probability"]) for row in rows]


def _memory_kib(pid: int) -> dict[str, int]:
    """The process's resident memory now (VmRSS) and at its peak (VmHWM), in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def _client(seed: int, host: str, port: int, pool: list[str], expected: list[tuple[str, str]],
            args: argparse.Namespace, out: dict[str, list]) -> None:
    """One client's requests; appends latencies, documents, bad statuses and mismatches."""
    rng = random.Random(seed)
    conn = http.client.HTTPConnection(host, port, timeout=300)
    latencies, documents, bad_statuses, wrong, gaps = [], 0, [], [], []
    try:
        for k in range(args.requests):
            if args.bad_every and k % args.bad_every == args.bad_every - 1:
                what, body, kind = BAD[rng.randrange(len(BAD))]
                conn.request("POST", "/predict", body, {"Content-Type": kind})
                reply = conn.getresponse()
                error = reply.read()
                bad_statuses.append((what, reply.status))
                if reply.getheader("content-type") != "application/json" or json.loads(
                        error)["status"] != reply.status:
                    wrong.append(f"{what}: not a JSON error: {error[:200]!r}")
                continue
            picks = [rng.randrange(len(pool)) for _ in range(rng.randint(1, args.max_batch))]
            body = json.dumps({"texts": [pool[i] for i in picks]}).encode()
            start = time.perf_counter()
            conn.request("POST", "/predict", body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            data = reply.read()
            latencies.append(time.perf_counter() - start)
            if reply.status != 200:
                wrong.append(f"HTTP {reply.status}: {data[:200]!r}")
                continue
            documents += len(picks)
            for i, got in zip(picks, json.loads(data)["predictions"]):
                gap = abs(got["probability"] - float(expected[i][1]))
                gaps.append(gap)
                if got["label"] != expected[i][0] or gap > TOLERANCE:
                    wrong.append(f"document {i}: {got['label']} {got['probability']} != "
                                 f"{expected[i]}")
    except OSError as err:
        wrong.append(f"client {seed}: {err!r}")
    finally:
        conn.close()
    with _LOCK:
        out["latencies"].extend(latencies)
        out["documents"].append(documents)
        out["bad"].extend(bad_statuses)
        out["wrong"].extend(wrong)
        out["gaps"].extend(gaps)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="r8")
    p.add_argument("--model-dir", type=Path, default=None,
                   help="a saved model to serve (default: train a small one)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--requests", type=int, default=200, help="requests of each client")
    p.add_argument("--max-batch", type=int, default=8, help="most documents in a request")
    p.add_argument("--pool", type=int, default=1000, help="test documents drawn from")
    p.add_argument("--bad-every", type=int, default=10,
                   help="every N-th request of a client is a user's mistake (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    corpus = load_benchmark(args.dataset)
    test = np.flatnonzero(~corpus.is_train)[:args.pool]
    pool = [corpus.texts[i] for i in test]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        model_dir = args.model_dir or _train(args.dataset, args.epochs, tmp / "model")
        expected = _expected(model_dir, pool, tmp)
        process, host, port = _start(model_dir, tmp / "serve.log")
        out: dict[str, list] = {"latencies": [], "documents": [], "bad": [], "wrong": [],
                                 "gaps": []}
        try:
            warm = http.client.HTTPConnection(host, port, timeout=300)
            for _ in range(5):  # first-call work, outside the measurement
                warm.request("POST", "/predict", json.dumps({"texts": pool[:8]}),
                             {"Content-Type": "application/json"})
                warm.getresponse().read()
            warm.close()
            before = _memory_kib(process.pid)
            threads = [threading.Thread(target=_client, args=(args.seed * 1000 + c, host, port,
                                                              pool, expected, args, out))
                       for c in range(args.clients)]
            start = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seconds = time.perf_counter() - start
            after = _memory_kib(process.pid)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)
    requests = args.clients * args.requests
    good = len(out["latencies"])
    documents = sum(out["documents"])
    p50, p99 = np.percentile(out["latencies"], [50, 99])
    bad_statuses = sorted({status for _, status in out["bad"]})
    bad_ok = all(400 <= status < 500 for _, status in out["bad"])
    print(f"{requests} requests ({good} good, {len(out['bad'])} mistakes) in {seconds:.1f} s: "
          f"{requests / seconds:,.1f} req/s, {documents / seconds:,.0f} docs/s, "
          f"p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms; server RSS "
          f"{before['VmRSS'] / 1024:,.0f} MiB before, peak {after['VmHWM'] / 1024:,.0f} MiB; "
          f"mistakes answered {bad_statuses}; largest probability gap {max(out['gaps']):.1e}; "
          f"{len(out['wrong'])} wrong answers", flush=True)
    if out["wrong"] or not bad_ok:
        print("\n".join(out["wrong"][:20]), file=sys.stderr)
        raise SystemExit("the soak found wrong answers: nothing written")
    body = [
        "## `gfbgcn serve`: many clients at once (soak)",
        "",
        f"`gfbgcn serve` in its own process (default limits, torch's default threads) with a "
        f"gfb-max model of the {args.dataset.upper()} training documents; {args.clients} "
        f"clients at once, each {args.requests} requests over one kept-alive connection: "
        f"batches of 1 to {args.max_batch} documents drawn (seed {args.seed}) from "
        f"{len(pool):,} {args.dataset.upper()} test documents, and every "
        f"{args.bad_every}th request a user's mistake (wrong content type, a number among the "
        f"texts, 257 texts, broken JSON). Every one of the {documents:,} predictions agreed with "
        "`gfbgcn predict`'s for the same document: the same label, and the probability "
        f"within {max(out['gaps']):.1e} of the six decimals `gfbgcn predict` prints (float32 "
        "sums over batches of other sizes differ in the seventh); every mistake was answered "
        f"with a JSON 4xx ({', '.join(map(str, bad_statuses))}); no 5xx. Latency runs from "
        "sending a good request to reading its whole answer; requests/s counts all requests "
        "over the wall time. Memory is the server's resident set from `/proc/PID/status` "
        "after a warm-up (VmRSS) and its peak over the whole run (VmHWM). The clients and the "
        "server share the machine's cores, and other benchmarks and test runs were running on "
        "it (the load average below): absolute times are pessimistic, p99 most of all.",
        "",
        "| clients × requests | requests/s | documents/s | p50 latency (ms) "
        "| p99 latency (ms) | server RSS after warm-up (MiB) | server peak RSS (MiB) |",
        "|---|---|---|---|---|---|---|",
        f"| {args.clients} × {args.requests} | {requests / seconds:,.1f} | "
        f"{documents / seconds:,.0f} | {p50 * 1e3:,.1f} | {p99 * 1e3:,.1f} | "
        f"{before['VmRSS'] / 1024:,.0f} | {after['VmHWM'] / 1024:,.0f} |",
        "",
        f"Machine: {machine_line()}.",
        "",
        f"Command: `{command_line()}`",
    ]
    text = "\n".join(body)
    publish("serve-soak", text, args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
