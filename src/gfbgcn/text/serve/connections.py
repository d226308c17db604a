"""The server's HTTP connections: how many it keeps open and how long a client may take to ask.

uvicorn's own HTTP/1.1 protocol (h11) waits for a request's head as long as a client keeps the
connection open, and accepts as many connections as the operating system lets it: a client
that sends its headers a byte a minute, or opens thousands of idle connections, holds the
server's descriptors and memory for ever.  The protocol here is uvicorn's with two bounds
(:class:`~gfbgcn.text.serve.service.Limits`):

* **a deadline for each request's head**: a connection must deliver a complete request line
  and headers within ``timeout`` seconds of being opened or of its previous answer; otherwise
  it is answered ``408`` (when it had started a request) and closed.  (The body has its own
  deadline, in the application: :mod:`gfbgcn.text.serve.app`.)
* **a cap on open connections**: the connection past ``max_connections`` is answered ``503``
  at once and closed, so memory is bounded by ``max_connections`` bodies of ``max_bytes``.

Both answers are the server's one-line JSON errors, as is the ``400`` of a request that is not
HTTP/1.1 at all (a malformed request line or header, an unfinished head over 16 KiB), which uvicorn
would answer in plain text.  uvicorn's internals used here (its h11
protocol's ``connection_made``, ``data_received``, ``handle_events``, ``on_response_complete``
and ``cycle``) are those of the uvicorn pinned in ``constraints.txt``; the server's tests
exercise each over raw sockets.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from gfbgcn.core.extras import require
from gfbgcn.text.serve.service import Limits

__all__ = ["error_bytes", "guarded_protocol"]

_REASONS = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}


def error_bytes(status: int, message: str, extra: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 answer carrying the server's JSON error, closing the connection."""
    body = json.dumps({"error": message, "status": status}).encode("utf-8")
    headers = {"content-type": "application/json", "content-length": str(len(body)),
               "connection": "close", **(extra or {})}
    head = f"HTTP/1.1 {status} {_REASONS[status]}\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items())
    return head.encode("latin-1") + b"\r\n" + body


#: The base of :class:`_Guards` for type checkers: it is mixed into uvicorn's protocol, whose
#: methods it extends, only once the ``serve`` extra is known to be installed.
_Protocol: Any = object


class _Guards(_Protocol):
    """One connection, bounded in count and in the time its requests' heads take (mixed into
    uvicorn's h11 protocol by :func:`guarded_protocol`, which sets ``limits``)."""

    limits: Limits

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._heard = False  # bytes received since the deadline was set

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            transport.write(error_bytes(503, (
                f"the server has {self.limits.max_connections} connections open, its limit "
                "(--max-connections); retry shortly"), {"retry-after": "1"}))
            transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_deadline()  # a request's head has arrived: the body's turn

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (
                self.cycle is None or self.cycle.response_complete):
            self._await_head()

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse: the JSON error, and the connection closed."""
        self._cancel_deadline()
        self.transport.write(error_bytes(400, (
            "not a valid HTTP/1.1 request (a malformed request line, header or chunk, or "
            "an unfinished head over 16 KiB)")))
        self.transport.close()

    def _await_head(self) -> None:
        self._cancel_deadline()
        self._heard = False
        self._head_deadline = self.loop.call_later(self.limits.timeout, self._head_late)

    def _cancel_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        """No whole request head within the deadline: a 408 to a client that had begun one
        (and whose response would not interleave with another), then close."""
        import h11

        self._head_deadline = None
        if self.transport.is_closing():
            return
        idle = self.conn.our_state is h11.IDLE and self.conn.their_state is h11.IDLE
        if self._heard and idle:
            self.transport.write(error_bytes(408, (
                f"the request's head (its line and headers) did not arrive within "
                f"{self.limits.timeout:g} s (--timeout)")))
        self.transport.close()


def guarded_protocol(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol class with ``limits``' deadline for a request's head and its cap
    on open connections (see the module docstring); pass it as uvicorn's ``http``."""
    require("uvicorn", "serve", "gfbgcn serve")
    from uvicorn.protocols.http.h11_impl import H11Protocol

    return type("GuardedProtocol", (_Guards, H11Protocol), {"limits": limits})
