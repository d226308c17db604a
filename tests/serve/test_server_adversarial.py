"""``gfbgcn serve`` against clients that misbehave, over raw sockets on localhost: slow heads and
bodies, idle and vanishing clients, too many connections, malformed HTTP, pipelining, random
bodies, and many clients at once.  Every answer is JSON with a 4xx (or 503 for a full server),
never a 500 or a hang; every prediction equals ``gfbgcn predict``'s.  The mistakes of a
well-formed request (bad JSON, wrong types, too many texts, wrong content type) are
``test_server.py``'s.  Bounded in time: the server's deadline here is one second."""

from __future__ import annotations

import csv
import http.client
import io
import json
import logging
import random
import re
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.serve.conftest import Running, start

#: The server's deadline for a request's head and again for its body, in these tests.
TIMEOUT = 1.0
MAX_CONNECTIONS = 8
#: How long a test waits for an answer that should come within the deadline (generous: CI).
PATIENCE = 30.0


@pytest.fixture(scope="module")
def guarded(saved_model) -> Iterator[Running]:
    yield from start(saved_model, max_texts=8, max_bytes=4096, timeout=TIMEOUT,
                     max_connections=MAX_CONNECTIONS)


@pytest.fixture(scope="module")
def roomy(saved_model) -> Iterator[Running]:
    """A server with room for the many clients' test (its default limits but the deadline)."""
    yield from start(saved_model, timeout=PATIENCE)


@pytest.fixture()
def server_log() -> Iterator[list[logging.LogRecord]]:
    """The records uvicorn logs at WARNING and above while the test runs."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.WARNING)
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


def _connect(running: Running) -> socket.socket:
    sock = socket.create_connection((running.client.host, running.client.port), timeout=PATIENCE)
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by PATIENCE)."""
    chunks = []
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _status_and_json(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body)


def _post_head(length: int) -> bytes:
    return (b"POST /predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % length)


def test_a_head_sent_byte_by_byte_gets_408_and_the_connection_closed(guarded) -> None:
    sock = _connect(guarded)
    start_time = time.monotonic()
    head = _post_head(20)
    try:
        for byte in head[:-2]:  # never finished: a byte each 0.1 s until the server gives up
            sock.sendall(bytes([byte]))
            time.sleep(0.1)
            if time.monotonic() - start_time > 3 * TIMEOUT:
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    status, error = _status_and_json(_until_closed(sock))
    sock.close()
    assert status == 408 and error["status"] == 408
    assert "head" in error["error"] and "--timeout" in error["error"]
    assert time.monotonic() - start_time < PATIENCE


def test_an_idle_connection_is_closed_after_the_deadline(guarded) -> None:
    sock = _connect(guarded)
    start_time = time.monotonic()
    assert _until_closed(sock) == b""  # closed without a word: it asked for nothing
    assert TIMEOUT * 0.5 < time.monotonic() - start_time < PATIENCE
    sock.close()


def test_a_body_sent_slowly_gets_408(guarded) -> None:
    body = json.dumps({"texts": ["goal match"]}).encode()
    sock = _connect(guarded)
    sock.sendall(_post_head(len(body)) + body[:5])  # the rest never comes
    status, error = _status_and_json(_until_closed(sock))
    sock.close()
    assert status == 408 and "body did not arrive within 1 s" in error["error"]


def test_the_deadline_starts_again_after_each_answer(guarded) -> None:
    sock = _connect(guarded)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    first = http.client.HTTPResponse(sock)
    first.begin()
    assert first.status == 200 and json.loads(first.read())["status"] == "ok"
    sock.sendall(b"GET /hea")  # a second request that stalls
    status, error = _status_and_json(_until_closed(sock))
    sock.close()
    assert status == 408 and "head" in error["error"]


def test_a_client_gone_mid_body_costs_the_server_nothing(guarded, server_log) -> None:
    for _ in range(3):
        sock = _connect(guarded)
        sock.sendall(_post_head(100) + b'{"texts": ')
        sock.close()
    time.sleep(0.5)  # let the server notice
    reply = guarded.client.post_json("/predict", {"texts": ["goal match"]})
    assert reply.status == 200
    assert not [r for r in server_log if r.levelno >= logging.ERROR], [
        r.getMessage() for r in server_log]


def test_connections_past_the_cap_get_a_503_and_the_server_recovers(guarded) -> None:
    held = [_connect(guarded) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.3)  # accepted by the server
        extra = _connect(guarded)
        extra.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        status, error = _status_and_json(_until_closed(extra))
        extra.close()
        assert status == 503 and "--max-connections" in error["error"]
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + PATIENCE
    while True:  # the closed connections are let go, and the server answers again
        reply = guarded.client.request("GET", "/health")
        if reply.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert reply.status == 200


MALFORMED = [
    ("no HTTP version", b"GET /health\r\n\r\n"),
    ("a header without a colon", b"GET /health HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n"),
    # (h11 bounds what it buffers of an unfinished head; a whole head read at once is parsed)
    ("an unfinished head over 16 KiB", b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: "
     + b"a" * 20000),
    ("a negative length", b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/"
     b"json\r\nContent-Length: -1\r\n\r\n"),
    ("two lengths", b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
     b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
    ("a bad chunk size", b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
     b"\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
    ("binary garbage", bytes(range(256)) + b"\r\n\r\n"),
]


@pytest.mark.parametrize("raw", [m[1] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_http_is_a_json_400(guarded, raw) -> None:
    sock = _connect(guarded)
    sock.sendall(raw)
    status, error = _status_and_json(_until_closed(sock))
    sock.close()
    assert status == 400 and "not a valid HTTP/1.1 request" in error["error"]


def test_a_huge_declared_length_is_refused_before_any_body(guarded) -> None:
    sock = _connect(guarded)
    sock.sendall(_post_head(10 ** 12))  # no body follows: the answer must not wait for one
    answer = http.client.HTTPResponse(sock)
    answer.begin()
    assert answer.status == 413 and "over the limit of 4096 bytes" in json.loads(
        answer.read())["error"]
    sock.close()


def test_pipelined_requests_are_answered_in_order(guarded) -> None:
    body = json.dumps({"texts": ["goal match"]}).encode()
    sock = _connect(guarded)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" + _post_head(len(body)) + body
                 + b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
    raw = _until_closed(sock)  # the three answers, then the close of an idle connection
    sock.close()
    assert re.findall(rb"HTTP/1.1 (\d{3}) ", raw) == [b"200", b"200", b"404"]


def _random_json(rng: random.Random, depth: int = 0) -> object:
    kinds = ["null", "bool", "int", "float", "str", "list", "dict"]
    kind = rng.choice(kinds if depth < 3 else kinds[:5])
    if kind == "null":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice([0, -1, 1, 2, 10 ** 30, -(10 ** 30)])
    if kind == "float":
        return rng.choice([0.5, -2.5, 1e308, float("nan"), float("inf")])
    if kind == "str":
        return rng.choice(["", "goal", "\x00", "\u202e", "\U0001f600", "a" * 2000, "texts"])
    if kind == "list":
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["texts", "top_k", "text", ""]): _random_json(rng, depth + 1)
            for _ in range(rng.randint(0, 3))}


def test_random_bodies_never_get_a_500(guarded, server_log) -> None:
    """Seeded random JSON values and random bytes: each is answered 200 or a JSON 4xx."""
    rng = random.Random(0)
    statuses = set()
    for i in range(150):
        if i % 3 == 0:
            body = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
        else:
            value = _random_json(rng)
            if i % 3 == 1:  # shaped like a request, so that texts reach the model
                value = {"texts": [t for t in (value if isinstance(value, list) else [value])
                                   if isinstance(t, str)][:8], "top_k": rng.randint(1, 5)}
            body = json.dumps(value, allow_nan=True).encode()[:4096]
        reply = guarded.client.request("POST", "/predict", body,
                                       {"Content-Type": "application/json"})
        statuses.add(reply.status)
        assert reply.status == 200 or 400 <= reply.status < 500, (body[:200], reply.body)
        assert reply.headers["content-type"] == "application/json"
    assert 200 in statuses and statuses - {200}
    assert not [r for r in server_log if r.levelno >= logging.ERROR]


POOL = ["match goal team player", "recipe bread cheese soup", "computer software code chip",
        "words the model never saw", "", "goal " * 300, "Bread, CHEESE; soup!", "\x00\x01 chip",
        "é ü 中文 goal", "season league coach"]


def _predictions_of_gfbgcn_predict(cli, model) -> dict[str, tuple[str, str]]:
    result = cli("predict", model, *[w for t in POOL for w in ("--text", t)])
    assert result.status == 0, result.err
    rows = list(csv.DictReader(io.StringIO(result.out)))
    return {text: (row["label"], row["probability"]) for text, row in zip(POOL, rows)}


def test_many_clients_at_once_each_get_gfbgcn_predicts_answers(roomy, cli,
                                                               saved_model) -> None:
    """16 clients, each 25 requests on one kept-alive connection, batches drawn from a pool:
    every prediction equals ``gfbgcn predict``'s for that text."""
    expected = _predictions_of_gfbgcn_predict(cli, saved_model)
    failures: list[str] = []
    answered = [0]
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection(roomy.client.host, roomy.client.port,
                                          timeout=PATIENCE)
        try:
            for _ in range(25):
                texts = rng.sample(POOL, rng.randint(1, 4))
                conn.request("POST", "/predict", json.dumps({"texts": texts}),
                             {"Content-Type": "application/json"})
                reply = conn.getresponse()
                body = reply.read()
                if reply.status != 200:
                    failures.append(f"{reply.status}: {body[:200]!r}")
                    return
                for text, got in zip(texts, json.loads(body)["predictions"]):
                    # predict prints six decimals of a float32 sum over another batch
                    label, probability = expected[text]
                    if got["label"] != label or abs(got["probability"]
                                                    - float(probability)) > 1e-6:
                        failures.append(f"{text!r}: {got['label']} {got['probability']} != "
                                        f"{expected[text]}")
                with lock:
                    answered[0] += 1
        except OSError as err:
            failures.append(f"client {seed}: {err}")
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures, failures[:5]
    assert answered[0] == 16 * 25
