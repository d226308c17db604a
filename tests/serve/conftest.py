"""Fixtures of the server's tests: saved models (trained once by ``gfbgcn train``), a server
answering for one on a free localhost port in a background thread, and a plain HTTP client."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.robustness.conftest import (  # noqa: F401 (fixtures)
    cli,
    saved_model,
    saved_multi_label_model,
)


def need_the_extra() -> None:
    """Skip, with the reason, where the serve extra is not installed (make test installs it)."""
    for module in ("starlette", "uvicorn"):
        pytest.importorskip(module, reason="the serve extra is not installed: pip install "
                                           "'gfbgcn[serve]'")


@dataclass
class Reply:
    """An HTTP answer: status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """Requests to one server with the standard library's HTTP client (one connection each)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.url, self.host, self.port = url, parts.hostname or "", parts.port or 80

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None, chunked: bool = False) -> Reply:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            payload: Any = body
            if chunked and body is not None:  # no Content-Length: the server counts
                payload = iter([body[i:i + 1024] for i in range(0, len(body), 1024)])
            conn.request(method, path, body=payload, headers=headers or {},
                         encode_chunked=chunked)
            answer = conn.getresponse()
            return Reply(answer.status, {k.lower(): v for k, v in answer.getheaders()},
                         answer.read())
        finally:
            conn.close()

    def post_json(self, path: str, value: Any) -> Reply:
        return self.request("POST", path, json.dumps(value).encode(),
                            {"Content-Type": "application/json"})


@dataclass
class Running:
    """A server answering in this process: its client and its service."""

    client: Client
    service: Any


def start(model_dir: Path, **limits: float) -> Iterator[Running]:
    """Serve ``model_dir`` on a free localhost port in a background thread until the fixture
    ends; ``limits``: the fields of :class:`~gfbgcn.text.serve.service.Limits`."""
    need_the_extra()
    from gfbgcn.text.predict.saved import load_model_and_config
    from gfbgcn.text.serve.run import address_of, bind, make_server
    from gfbgcn.text.serve.service import Limits, ModelService

    model, config = load_model_and_config(model_dir, device="cpu")
    service = ModelService(model, config, model_dir, limits=Limits(**limits))
    sock = bind("127.0.0.1", 0)
    server = make_server(service, log_level="warning", access_log=False)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a bound on the wait, not a timed assertion
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Running(Client(address_of(sock)), service)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture(scope="module")
def server(saved_model) -> Iterator[Running]:  # noqa: F811 (the imported fixture)
    """The small single-label model served with small limits (8 texts, 4 KiB a request)."""
    yield from start(saved_model, max_texts=8, max_bytes=4096)


@pytest.fixture(scope="module")
def multi_label_server(saved_multi_label_model) -> Iterator[Running]:  # noqa: F811
    yield from start(saved_multi_label_model)
