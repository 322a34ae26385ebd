"""The ``signpost`` command line.

Each sub-command lives in its own module of this package with a ``register(sub)``
function that adds its parser and sets ``func``. Errors of bad input (``maps.MapError``,
``gpu_core.GpuCoreError``, ``CliError``) print one line and exit with status 2; nothing
here imports Qt (the ``gui`` command imports it when run).
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

# Sub-command modules, in the order `signpost --help` lists them.
COMMANDS = ("info", "route", "sssp", "isochrones", "billboards", "matrix", "mst", "pagerank", "generate", "bench", "gui")


class CliError(Exception):
    """A usage error found after parsing (bad combination of options, unwritable file)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="signpost",
        description="Signpost: shortest routes, billboards and live algorithm charts on road/rail maps.",
    )
    parser.add_argument("--version", action="version", version="signpost 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"app.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"app.cli.{name}":
                continue  # command not built yet
            raise
        mod.register(sub)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that commands clean up (temporary files) the same way."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    previous = None
    if args.command != "gui" and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _dispatch(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _dispatch(args: argparse.Namespace) -> int:
    from gpu_core.errors import GpuCoreError
    from maps.errors import MapError

    try:
        rc = args.func(args)
    except (MapError, GpuCoreError, CliError) as exc:
        print(f"signpost {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, _Terminated)
        print(f"signpost {args.command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:
        return 0
    return int(rc or 0)
