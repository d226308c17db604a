"""The ASGI application of ``gfbgcn serve``, on Starlette (the ``serve`` extra).

Routes: ``GET /`` (the page, :mod:`gfbgcn.text.serve.page`), ``POST /predict``, ``GET
/health``, ``GET /model``.  Every answer is JSON but the page; every error is ``{"error":
message, "status": code}`` with its status: 4xx for what a client got wrong (the rules are
:mod:`gfbgcn.text.serve.service`'s), 404 and 405 for a wrong path or method, and 500 only
for a fault of the server itself (answered in one line; uvicorn logs its traceback).

A request's body is read no further than ``max_bytes``: a declared ``Content-Length`` over the
limit is refused before anything is read, a chunked body as soon as it passes the limit; and
no longer than ``timeout`` seconds (then ``408``: a client sending a byte at a time holds
nothing for long; the request's head has its own deadline, :mod:`.connections`).  A client
that goes away before its body is sent is dropped quietly (no answer is possible, and it is no
fault of the server's).  The JSON is parsed and the model run in worker threads, so neither a
large body nor a long batch stops ``/health`` from answering; at most :data:`PARSERS` bodies
are parsed at once, which bounds the memory their parsed values take.
"""

from __future__ import annotations

import asyncio
from typing import Any

from gfbgcn.core.extras import require
from gfbgcn.text.serve.page import page_html
from gfbgcn.text.serve.service import (
    ModelService,
    RequestError,
    body_too_large,
    body_too_slow,
    check_content_type,
    check_declared_size,
    parse_predict_request,
)

#: Request bodies parsed at once (each in a worker thread): a body of 4 MiB of short strings
#: may take ten times its size as Python objects while parsed.
PARSERS = 2


def build_app(service: ModelService) -> Any:
    """The Starlette application answering for ``service``'s model."""
    require("starlette", "serve", "gfbgcn serve")
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    h = _Handlers(service)
    routes = [Route("/", h.index, methods=["GET"]),
              Route("/predict", h.predict, methods=["POST"]),
              Route("/health", h.health, methods=["GET"]),
              Route("/model", h.model, methods=["GET"])]
    return Starlette(routes=routes, exception_handlers={HTTPException: h.http_error,
                                                        Exception: h.server_error})


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Any:
    """The JSON answer of every error: ``{"error": message, "status": status}``."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message, "status": status}, status_code=status,
                        headers=headers)


class _Handlers:
    """The endpoints of one service (Starlette's request and response objects are ``Any`` here:
    starlette is imported only once the extra is known to be installed)."""

    def __init__(self, service: ModelService) -> None:
        self.service = service
        self.page = page_html(service.label_names, model_name=service.config["model"]["name"],
                              multi_label=bool(service.config["labels"]["multi_label"]))
        self._parsing = asyncio.Semaphore(PARSERS)  # bound to the server's loop on first use

    async def _body(self, request: Any) -> bytes:
        """The request's body, read no further than the limit and for no longer than the
        deadline."""
        limits = self.service.limits
        check_declared_size(request.headers.get("content-length"), limits)
        chunks, size = [], 0

        async def read() -> None:
            nonlocal size
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.max_bytes:
                    raise body_too_large(limits)
                chunks.append(chunk)

        try:
            await asyncio.wait_for(read(), limits.timeout)
        except asyncio.TimeoutError:
            raise body_too_slow(limits) from None
        return b"".join(chunks)

    async def predict(self, request: Any) -> Any:
        from starlette.concurrency import run_in_threadpool
        from starlette.requests import ClientDisconnect
        from starlette.responses import JSONResponse, Response

        try:
            check_content_type(request.headers.get("content-type"))
            body = await self._body(request)
            async with self._parsing:
                texts, top_k = await run_in_threadpool(
                    parse_predict_request, body, self.service.limits,
                    len(self.service.label_names))
        except RequestError as err:
            return _error(err.status, err.message)
        except ClientDisconnect:  # gone before its body was sent: nobody to answer
            return Response(status_code=400)
        return JSONResponse(await run_in_threadpool(self.service.predict, texts, top_k))

    async def health(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        return JSONResponse(self.service.health())

    async def model(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        return JSONResponse(self.service.info())

    async def index(self, request: Any) -> Any:
        from starlette.responses import HTMLResponse

        return HTMLResponse(self.page)

    async def http_error(self, request: Any, exc: Any) -> Any:
        """Starlette's own 404 and 405 (and any other HTTP error) as JSON."""
        headers = dict(exc.headers or {})  # 405 says which methods are allowed
        path, method = request.url.path, request.method
        if exc.status_code == 404:
            message = f"no such path: {path} (paths: /, /predict, /health, /model)"
        elif exc.status_code == 405:
            allowed = f" (allowed: {headers['Allow']})" if "Allow" in headers else ""
            message = f"{method} is not allowed on {path}{allowed}"
        else:
            message = str(exc.detail)
        return _error(exc.status_code, message, headers)

    async def server_error(self, request: Any, exc: Exception) -> Any:
        """A fault of the server itself, answered in one line (Starlette raises it again
        afterwards, so uvicorn logs it with its traceback)."""
        return _error(500, f"internal error ({type(exc).__name__}); the server log has the "
                           "traceback")
