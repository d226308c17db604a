"""Running the server: a listening socket, and uvicorn answering on it with the application of
:mod:`gfbgcn.text.serve.app`.

The socket is bound here rather than by uvicorn so that an address in use or not allowed is one
error line (:class:`~gfbgcn.core.errors.OptionError`, exit status 2) instead of uvicorn's log
and exit, and so that port 0 (any free port) can be told to the user and to tests.
"""

from __future__ import annotations

import socket
from typing import Any

from gfbgcn.core.errors import OptionError
from gfbgcn.core.extras import require
from gfbgcn.text.serve.app import build_app
from gfbgcn.text.serve.connections import guarded_protocol
from gfbgcn.text.serve.service import ModelService


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (IPv4 or IPv6, as ``host`` resolves; port 0:
    a free one); an :class:`OptionError` naming the address where that fails."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as err:
        raise OptionError("{0} {host}: not an address to listen on ({reason})", "host",
                          host=host, reason=getattr(err, "strerror", None) or err) from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # restart without waiting
        sock.bind(address)
        sock.listen(2048)
    except OSError as err:
        sock.close()
        raise OptionError("cannot listen on {host}:{port} ({reason}); choose another {0}",
                          "port", host=host, port=port, reason=err.strerror or err) from None
    return sock


def address_of(sock: socket.socket) -> str:
    """``http://host:port`` of a listening socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def make_server(service: ModelService, *, log_level: str = "info",
                access_log: bool = True) -> Any:
    """A uvicorn server (not started) for ``service``'s application; ``server.run(sockets=
    [sock])`` serves until ``server.should_exit`` is set or the process is interrupted."""
    uvicorn = require("uvicorn", "serve", "gfbgcn serve")
    # http: uvicorn's h11 protocol with a deadline for each request's head and a cap on open
    # connections (gfbgcn.text.serve.connections)
    config = uvicorn.Config(build_app(service), port=0, log_level=log_level,
                            access_log=access_log, lifespan="off", server_header=False,
                            timeout_graceful_shutdown=5, http=guarded_protocol(service.limits))
    return uvicorn.Server(config)


def serve(service: ModelService, sock: socket.socket, *, log_level: str = "info",
          access_log: bool = True) -> None:
    """Answer on ``sock`` (already listening: a client that connects early waits in its
    queue) until interrupted (Ctrl-C, SIGTERM)."""
    make_server(service, log_level=log_level, access_log=access_log).run(sockets=[sock])
