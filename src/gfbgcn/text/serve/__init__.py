"""Serving a saved text model over HTTP (``gfbgcn serve``, the ``serve`` extra).

:mod:`~gfbgcn.text.serve.service` holds the rules and answers without the web framework;
:mod:`~gfbgcn.text.serve.app` is the Starlette application around them;
:mod:`~gfbgcn.text.serve.page` the page at ``/``; :func:`~gfbgcn.text.serve.run.serve_model`
loads a model and runs the server on uvicorn.
"""
