"""`gfbgcn serve`: answer HTTP requests with a model saved by `train --save` (the ``serve``
extra: Starlette on uvicorn).

The model is loaded once, before the server listens; then ``POST /predict`` classifies a batch
of texts as ``gfbgcn predict`` would, ``GET /health`` and ``GET /model`` describe the server and
the model, and ``/`` is a page to try it in a browser (:mod:`gfbgcn.text.serve`).  It listens
on ``127.0.0.1`` unless ``--host`` says otherwise: the API has no authentication, so opening it
to a network is the user's explicit choice.
"""

from __future__ import annotations

import argparse
import sys

from gfbgcn.cli.options import add_saved_model_arguments
from gfbgcn.cli.runtime.argtypes import float_in, input_directory, int_in


def serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn serve``."""
    from gfbgcn.text.serve.service import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_TEXTS,
        DEFAULT_TIMEOUT,
    )

    parser.add_argument("model_dir", type=input_directory, metavar="MODEL_DIR",
                        help="directory written by gfbgcn train ... --save")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (127.0.0.1: this machine only; 0.0.0.0: "
                        "every interface, with no authentication)")
    parser.add_argument("--port", type=int_in(0, 65535), default=8000,
                        help="TCP port (8000; 0: any free port, printed)")
    parser.add_argument("--max-texts", type=int_in(1), default=DEFAULT_MAX_TEXTS, metavar="N",
                        help=f"most texts in one request ({DEFAULT_MAX_TEXTS}; more: 413)")
    parser.add_argument("--max-bytes", type=int_in(1), default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"largest request body in bytes ({DEFAULT_MAX_BYTES}; more: 413)")
    parser.add_argument("--timeout", type=float_in(0, 3600, low_open=True),
                        default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"seconds a client has to send a request's head, and again its "
                        f"body ({DEFAULT_TIMEOUT:g}; in (0, 3600]; later: 408 and closed)")
    parser.add_argument("--max-connections", type=int_in(1), default=DEFAULT_MAX_CONNECTIONS,
                        metavar="N", help=f"connections open at once ({DEFAULT_MAX_CONNECTIONS}; "
                        ">= 1; more: 503 and closed)")
    parser.add_argument("--quiet", action="store_true",
                        help="log no line per request, only warnings and errors")
    add_saved_model_arguments(parser)


def serve(args: argparse.Namespace) -> int:
    """Load the model, listen, answer until interrupted."""
    from gfbgcn.cli.runtime.device import device_from_args
    from gfbgcn.core.extras import require

    # the extra first: without it, nothing else is worth doing (one line naming it)
    require("starlette", "serve", "gfbgcn serve")
    require("uvicorn", "serve", "gfbgcn serve")
    from gfbgcn.text.predict.saved import load_model_and_config
    from gfbgcn.text.serve.run import address_of, bind
    from gfbgcn.text.serve.run import serve as run_server
    from gfbgcn.text.serve.service import Limits, ModelService

    device = device_from_args(args)
    sock = bind(args.host, args.port)  # before the model loads: a port in use fails at once
    try:
        model, config = load_model_and_config(args.model_dir, self_embedding=args.self_embedding,
                                              device=device, encoder=args.encoder)
        service = ModelService(model, config, args.model_dir,
                               limits=Limits(args.max_texts, args.max_bytes, args.timeout,
                                             args.max_connections),
                               batch_size=args.predict_batch, device=str(device))
        url = address_of(sock)
        print(f"serving {config['model']['name']} ({len(service.label_names)} labels) from "
              f"{args.model_dir} on {url}: POST /predict, GET /health, GET /model, the page at "
              f"{url}/ (Ctrl-C stops it)", file=sys.stderr, flush=True)
        run_server(service, sock, log_level="warning" if args.quiet else "info",
                   access_log=not args.quiet)
    finally:
        sock.close()
    return 0
