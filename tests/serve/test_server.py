"""``gfbgcn serve`` over real HTTP: the answers equal ``gfbgcn predict``'s, the model and health
endpoints, the page, and every mistake a client can make answered with a 4xx JSON error."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from gfbgcn.core.runinfo import package_versions
from tests.core.test_extras import _block

TEXTS = ["match goal team player", "recipe bread cheese soup", "computer software code chip",
         "words the model never saw"]


def _predict_cli(cli, model, texts, *options: str) -> list[dict[str, str]]:
    result = cli("predict", model, *[w for t in texts for w in ("--text", t)], *options)
    assert result.status == 0, result.err
    return list(csv.DictReader(io.StringIO(result.out)))


def test_predict_answers_equal_gfbgcn_predicts(server, cli, saved_model) -> None:
    reply = server.client.post_json("/predict", {"texts": TEXTS, "top_k": 2})
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    answer = reply.json()
    assert answer["label_names"] == ["food", "sport", "tech"] and not answer["multi_label"]
    rows = _predict_cli(cli, saved_model, TEXTS, "--top-k", "2")
    assert len(answer["predictions"]) == len(rows) == len(TEXTS)
    for got, row in zip(answer["predictions"], rows):
        assert got["label"] == row["label"] and f"{got['probability']:.6f}" == row["probability"]
        assert [(t["label"], f"{t['probability']:.6f}") for t in got["top_k"]] == [
            (row["label"], row["probability"]), (row["label_2"], row["probability_2"])]
        assert set(got["probabilities"]) == set(answer["label_names"])
        assert sum(got["probabilities"].values()) == pytest.approx(1.0, abs=1e-6)
    assert [p["no_known_words"] for p in answer["predictions"]] == [False, False, False, True]


def test_multi_label_answers_equal_gfbgcn_predicts(multi_label_server, cli,
                                                   saved_multi_label_model) -> None:
    answer = multi_label_server.client.post_json("/predict", {"texts": TEXTS}).json()
    assert answer["multi_label"] and 0 < answer["threshold"] < 1
    rows = _predict_cli(cli, saved_multi_label_model, TEXTS)
    for got, row in zip(answer["predictions"], rows):
        assert "|".join(got["labels"]) == row["labels"]
        assert "|".join(f"{got['probabilities'][lab]:.6f}" for lab in got["labels"]) == row[
            "probabilities"]
        assert all((p >= answer["threshold"]) == (lab in got["labels"])
                   for lab, p in got["probabilities"].items())


def test_empty_batch_and_top_k_capped_at_the_labels(server) -> None:
    assert server.client.post_json("/predict", {"texts": []}).json()["predictions"] == []
    answer = server.client.post_json("/predict", {"texts": ["goal"], "top_k": 99}).json()
    assert len(answer["predictions"][0]["top_k"]) == 3


def test_health_and_model(server, saved_model) -> None:
    health = server.client.request("GET", "/health")
    assert health.status == 200 and health.json() == {"status": "ok", "model": "gfb-max",
                                                      "labels": 3}
    info = server.client.request("GET", "/model").json()
    config = json.loads((saved_model / "config.json").read_text(encoding="utf-8"))
    assert info["labels"]["names"] == ["food", "sport", "tech"]
    assert info["model"] == config["model"] and info["graph"] == config["graph"]
    assert info["encoder"] is None and info["combined"] is None
    assert info["versions"]["saved_with"] == config["versions"]
    assert info["versions"]["serving"]["torch"] == package_versions()["torch"]
    assert info["limits"] == {"max_texts": 8, "max_bytes": 4096, "timeout": 30.0,
                              "max_connections": 64}


def test_the_page_is_one_self_contained_document(server) -> None:
    page = server.client.request("GET", "/")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    html = page.body.decode("utf-8")
    assert "<script>" in html and "<style>" in html and 'fetch("predict"' in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing external
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", html)
    assert '"labels": ["food", "sport", "tech"]' in html


JSON = {"Content-Type": "application/json"}
#: (what the client did, body, headers, status, words of the error)
MISTAKES = [
    ("not JSON", b'{"texts": [', JSON, 400, "not valid JSON"),
    ("not UTF-8", b'{"texts": ["caf\xe9"]}', JSON, 400, "not valid JSON"),
    ("nested too deeply", b"[" * 1000 + b"]" * 1000, JSON, 400, "not valid JSON"),
    ("a list, not an object", b'["a"]', JSON, 422, "must be a JSON object"),
    ("no texts", b'{"top_k": 1}', JSON, 422, 'missing key "texts"'),
    ("a typo", b'{"text": ["a"]}', JSON, 422, "unknown key(s) 'text'"),
    ("one string", b'{"texts": "a"}', JSON, 422, "got one string"),
    ("a number", b'{"texts": 3}', JSON, 422, "got a number"),
    ("null item", b'{"texts": ["a", null]}', JSON, 422, '"texts"[1] must be a string, got null'),
    ("number item", b'{"texts": [1]}', JSON, 422, "got a number"),
    ("list item", b'{"texts": [["a"]]}', JSON, 422, "got a list"),
    ("lone surrogate", b'{"texts": ["\\ud800"]}', JSON, 422, "lone surrogate"),
    ("top_k 0", b'{"texts": ["a"], "top_k": 0}', JSON, 422, '"top_k" must be a whole number'),
    ("top_k text", b'{"texts": ["a"], "top_k": "2"}', JSON, 422, "got \"2\""),
    ("top_k true", b'{"texts": ["a"], "top_k": true}', JSON, 422, "got true"),
    ("top_k 1.5", b'{"texts": ["a"], "top_k": 1.5}', JSON, 422, "got 1.5"),
    ("too many texts", json.dumps({"texts": ["a"] * 9}).encode(), JSON, 413,
     "9 texts in one request, over the limit of 8"),
    ("body too large", json.dumps({"texts": ["a" * 5000]}).encode(), JSON, 413,
     "over the limit of 4096 bytes"),
    ("form data", b"texts=a", {"Content-Type": "application/x-www-form-urlencoded"}, 415,
     "Content-Type must be application/json"),
    ("no content type", b'{"texts": ["a"]}', {}, 415, "got 'none'"),
    ("text/plain", b'{"texts": ["a"]}', {"Content-Type": "text/plain"}, 415, "text/plain"),
]


@pytest.mark.parametrize("body, headers, status, words", [m[1:] for m in MISTAKES],
                         ids=[m[0] for m in MISTAKES])
def test_a_clients_mistake_is_a_4xx_json_error(server, body, headers, status, words) -> None:
    reply = server.client.request("POST", "/predict", body, headers)
    assert reply.status == status, reply.body
    assert reply.headers["content-type"] == "application/json"
    error = reply.json()
    assert error["status"] == status and words in error["error"], error
    assert "\n" not in error["error"]


def test_a_chunked_body_is_cut_off_at_the_limit(server) -> None:
    body = json.dumps({"texts": ["goal " * 200] * 8}).encode()
    assert len(body) > 4096
    reply = server.client.request("POST", "/predict", body, JSON, chunked=True)
    assert reply.status == 413 and "over the limit of 4096 bytes" in reply.json()["error"]
    small = json.dumps({"texts": ["goal match"]}).encode()  # chunked and within: answered
    assert server.client.request("POST", "/predict", small, JSON, chunked=True).status == 200


@pytest.mark.parametrize("method, path, status, words", [
    ("GET", "/predict", 405, "GET is not allowed on /predict (allowed: POST)"),
    ("POST", "/health", 405, "POST is not allowed on /health"),
    ("GET", "/nothing", 404, "no such path: /nothing"),
])
def test_wrong_paths_and_methods_are_json_errors(server, method, path, status, words) -> None:
    reply = server.client.request(method, path)
    assert reply.status == status and words in reply.json()["error"]


def test_a_fault_of_the_server_is_a_one_line_500(server, monkeypatch) -> None:
    def broken(texts, top_k):
        raise RuntimeError("boom")

    monkeypatch.setattr(server.service, "predict", broken)
    reply = server.client.post_json("/predict", {"texts": ["goal"]})
    assert reply.status == 500 and reply.json() == {
        "error": "internal error (RuntimeError); the server log has the traceback", "status": 500}
    monkeypatch.undo()  # and the server goes on answering
    assert server.client.post_json("/predict", {"texts": ["goal"]}).status == 200


def test_concurrent_requests_each_get_their_own_answer(server) -> None:
    expected = {t: server.client.post_json("/predict", {"texts": [t]}).json()["predictions"][0]
                for t in TEXTS}
    answers: dict[int, tuple[str, dict]] = {}

    def ask(i: int) -> None:
        text = TEXTS[i % len(TEXTS)]
        answers[i] = (text, server.client.post_json("/predict", {"texts": [text]}).json())

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(answers) == 16
    for text, answer in answers.values():
        assert answer["predictions"][0] == expected[text]


# ---- the verb ---------------------------------------------------------------------------------


def test_serve_without_the_extra_names_it(cli, saved_model, monkeypatch) -> None:
    _block(monkeypatch, "starlette")
    result = cli("serve", saved_model)
    assert result.status == 2
    assert result.err == "error: gfbgcn serve needs starlette: pip install 'gfbgcn[serve]'\n"


def test_serve_on_a_port_in_use_is_one_error_line(cli, saved_model) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        cli("serve", saved_model, "--port", port).assert_user_error(
            f"cannot listen on 127.0.0.1:{port}", "choose another --port")
    cli("serve", saved_model, "--host", "no-such-host.invalid").assert_user_error(
        "--host no-such-host.invalid: not an address to listen on")
    cli("serve", saved_model, "--port", "70000").assert_user_error("--port")


def test_the_command_serves_until_interrupted(saved_model, tmp_path) -> None:
    """``gfbgcn serve --port 0`` in its own process: it says where it listens, answers, and
    stops on SIGINT (Ctrl-C) as every verb does: uvicorn shuts down, then the interruption is
    the command's (``interrupted``, status 130), never a traceback."""
    from tests.serve.conftest import Client, need_the_extra

    need_the_extra()
    err = tmp_path / "stderr.txt"
    with open(err, "wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "gfbgcn", "serve", str(saved_model), "--port", "0",
             "--quiet", "--device", "cpu"], stdout=subprocess.DEVNULL, stderr=sink,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 180  # imports and the model load: bounded, not timed
        url = None
        while url is None and time.monotonic() < deadline and process.poll() is None:
            found = re.search(r"on (http://127\.0\.0\.1:\d+):", err.read_text())
            url = found.group(1) if found else None
            time.sleep(0.1)
        assert url is not None, err.read_text()
        client = Client(url)
        assert client.request("GET", "/health").json()["status"] == "ok"
        answer = client.post_json("/predict", {"texts": TEXTS[:1]}).json()
        assert answer["predictions"][0]["label"] in {"food", "sport", "tech"}
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=60)
    said = err.read_text()
    assert status == 130 and said.splitlines()[-1] == "interrupted", said
    assert "Traceback" not in said
