"""``scopeflow serve``: TF Serving's REST API for a SavedModel, on uvicorn.

    scopeflow serve DIR [--port 8501] [--model_name default] [--host 127.0.0.1]
        [--enable_batching [--max_batch_size 32] [--batch_timeout_micros 1000]
         [--num_batch_threads 1] | --batching_parameters_file FILE]

DIR is TF Serving's model base path (numeric version folders, the highest served) or a
SavedModel itself (served as version 1). The flags keep tensorflow_model_server's names
(``--rest_api_port`` is ``--port``); ``--host 0.0.0.0`` listens on every interface.
"""

from __future__ import annotations

import logging

from scopeflow.platform.cli_conventions import EXIT_OK, epilog, fail
from scopeflow.saved_model.serving.app import make_app
from scopeflow.saved_model.serving.model import BatchingOptions, ServedModel


def _serve(args) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as e:
        return fail("serve", f"{e}: `scopeflow serve` needs starlette and uvicorn: "
                    "pip install 'scopeflow[serve]'")
    try:
        batching = None
        if args.batching_parameters_file:
            batching = BatchingOptions.from_file(args.batching_parameters_file)
        elif args.enable_batching:
            batching = BatchingOptions(args.max_batch_size, args.batch_timeout_micros,
                                       args.num_batch_threads)
        tags = [t.strip() for t in args.tag_set.split(",") if t.strip()]
        model = ServedModel(args.dir, args.model_name, tags=tags,
                            num_threads=args.num_threads, batching=batching)
    except (OSError, ValueError, RuntimeError) as e:
        return fail("serve", e)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    print(f"scopeflow serve: model {model.name!r} version {model.version} from "
          f"{model.path}; REST API at http://{args.host}:{args.port}/v1/models/{model.name}"
          + (f" (batching up to {batching.max_batch_size} rows)" if batching else ""),
          flush=True)
    try:
        uvicorn.run(make_app(model, args.max_body_bytes), host=args.host, port=args.port,
                    log_level=args.log_level, access_log=args.log_level == "debug")
    finally:
        model.close()
    return EXIT_OK


def add_parser(subparsers):
    """Adds ``serve`` to the ``scopeflow`` command line."""
    p = subparsers.add_parser(
        "serve", help="answer TF Serving's REST API for a SavedModel",
        description=__doc__.split("\n\n")[0],
        epilog=epilog("the SavedModel could not be loaded or the port not opened",
                      signals="130 interrupted (Ctrl-C), 143 terminated (SIGTERM), "
                      "each after a clean shutdown"))
    p.add_argument("dir", help="the model base path (numeric version folders) or a "
                   "SavedModel directory")
    p.add_argument("--port", "--rest_api_port", type=int, default=8501,
                   help="the REST API's port (TF Serving's default 8501)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (0.0.0.0: every interface)")
    p.add_argument("--model_name", default="default",
                   help="the NAME in /v1/models/NAME (TF Serving's default 'default')")
    p.add_argument("--tag_set", default="serve", help="the MetaGraphDef's tags, "
                   "comma-separated")
    p.add_argument("--enable_batching", action="store_true",
                   help="merge concurrent requests into one run along axis 0")
    p.add_argument("--max_batch_size", type=int, default=32,
                   help="rows in a merged run at most (with --enable_batching)")
    p.add_argument("--batch_timeout_micros", type=int, default=1000,
                   help="how long a batch waits for more requests, in microseconds")
    p.add_argument("--num_batch_threads", type=int, default=1,
                   help="merged runs in parallel")
    p.add_argument("--batching_parameters_file",
                   help="TF Serving's text BatchingParameters (implies batching)")
    p.add_argument("--num_threads", type=int, default=None,
                   help="threads that parse requests and run the graph (default: "
                   "min(8, CPUs))")
    p.add_argument("--max_body_bytes", type=int, default=64 << 20,
                   help="larger request bodies are refused with 413 (default 64 MiB)")
    p.add_argument("--log_level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn's log level ('debug' also logs each request)")
    p.set_defaults(func=_serve)
