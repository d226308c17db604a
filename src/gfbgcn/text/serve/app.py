"""The ASGI application of ``gfbgcn serve``, on Starlette (the ``serve`` extra).

Routes: ``GET /`` (the page, :mod:`gfbgcn.text.serve.page`), ``POST /predict``, ``GET
/health``, ``GET /model``.  Every answer is JSON but the page; every error is ``{"error":
message, "status": code}`` with its status: 4xx for what a client got wrong (the rules are
:mod:`gfbgcn.text.serve.service`'s), 404 and 405 for a wrong path or method, and 500 only
for a fault of the server itself (answered in one line; uvicorn logs its traceback).

A request's body is read no further than ``max_bytes``: a declared ``Content-Length`` over the
limit is refused before anything is read, a chunked body as soon as it passes the limit.
The model runs in a worker thread, so a long batch does not stop ``/health`` from answering.
"""

from __future__ import annotations

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

    async def _body(self, request: Any) -> bytes:
        """The request's body, read no further than the limit."""
        limits = self.service.limits
        check_declared_size(request.headers.get("content-length"), limits)
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_bytes:
                raise body_too_large(limits)
            chunks.append(chunk)
        return b"".join(chunks)

    async def predict(self, request: Any) -> Any:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import JSONResponse

        try:
            check_content_type(request.headers.get("content-type"))
            body = await self._body(request)
            texts, top_k = parse_predict_request(body, self.service.limits,
                                                 len(self.service.label_names))
        except RequestError as err:
            return _error(err.status, err.message)
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
