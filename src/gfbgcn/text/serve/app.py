"""The ASGI application of ``gfbgcn serve``, on Starlette (the ``serve`` extra).

Routes: ``GET /`` (the page, :mod:`gfbgcn.text.serve.page`), ``POST /predict``, ``GET
/health``, ``GET /model``.  Every answer is JSON but the page; every error is ``{"error":
message, "status": code}`` with its status: 4xx for what a client got wrong (the rules are
:mod:`gfbgcn.text.serve.service`'s), 404 and 405 for a wrong path or method, and 500 only
for a fault of the server itself (logged with its traceback, answered in one line).

The body of a request is read at most ``max_bytes`` at a time: a declared ``Content-Length``
over the limit is refused before anything is read, a chunked body as soon as it passes it.
The model runs in a worker thread, so a long batch does not stop ``/health`` from answering.
"""

from __future__ import annotations

import logging
from typing import Any

from gfbgcn.core.extras import require
from gfbgcn.text.serve.page import page_html
from gfbgcn.text.serve.service import (
    ModelService,
    RequestError,
    body_too_large,
    check_content_type,
    check_declared_size,
    parse_predict_request,
)

_LOG = logging.getLogger("gfbgcn.serve")


def build_app(service: ModelService) -> Any:
    """The Starlette application answering for ``service``'s model."""
    require("starlette", "serve", "gfbgcn serve")
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    def error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        return JSONResponse({"error": message, "status": status}, status_code=status,
                            headers=headers)

    async def read_body(request: Request) -> bytes:
        check_declared_size(request.headers.get("content-length"), service.limits)
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > service.limits.max_bytes:
                raise body_too_large(service.limits)
            chunks.append(chunk)
        return b"".join(chunks)

    async def predict(request: Request) -> Response:
        try:
            check_content_type(request.headers.get("content-type"))
            body = await read_body(request)
            texts, top_k = parse_predict_request(body, service.limits, len(service.label_names))
        except RequestError as err:
            return error(err.status, err.message)
        return JSONResponse(await run_in_threadpool(service.predict, texts, top_k))

    async def health(request: Request) -> Response:
        return JSONResponse(service.health())

    async def model(request: Request) -> Response:
        return JSONResponse(service.info())

    page = page_html(service.label_names, model_name=service.config["model"]["name"],
                     multi_label=bool(service.config["labels"]["multi_label"]))

    async def index(request: Request) -> Response:
        return HTMLResponse(page)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        headers = dict(exc.headers or {})  # 405 says which methods are allowed
        message = {404: f"no such path: {request.url.path} (paths: /, /predict, /health, "
                        "/model)",
                   405: f"{request.method} is not allowed on {request.url.path}"
                        + (f" (allowed: {headers['Allow']})" if "Allow" in headers else "")}
        return error(exc.status_code, message.get(exc.status_code, str(exc.detail)), headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        _LOG.error("error answering %s %s", request.method, request.url.path, exc_info=exc)
        return error(500, f"internal error ({type(exc).__name__}); the server log has the "
                          "traceback")

    routes = [Route("/", index, methods=["GET"]), Route("/predict", predict, methods=["POST"]),
              Route("/health", health, methods=["GET"]), Route("/model", model, methods=["GET"])]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                        Exception: server_error})
