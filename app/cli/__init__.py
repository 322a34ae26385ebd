"""The ``signpost`` command line.

Each sub-command lives in its own module of this package with a ``register(sub)``
function that adds its parser and sets ``func``. Errors of bad input (``maps.MapError``,
``gpu_core.GpuCoreError``, ``CliError``) print one line and exit with status 2; nothing
here imports Qt (the ``gui`` command imports it when run).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from typing import NoReturn

from app.cli.errors import CliError  # noqa: F401  (re-exported: app.cli.CliError)

# Sub-command modules, in the order `signpost --help` lists them.
COMMANDS = ("info", "route", "sssp", "isochrones", "billboards", "matrix", "mst", "pagerank", "generate", "cache", "bench", "gui")


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors never print a password (issue 40)."""

    def error(self, message: str) -> NoReturn:
        from osutil.secrets import redact

        super().error(redact(message))


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``signpost`` parser. With ``argv``, only the command it names is built (its
    module imported); the others are listed by their one-line help (``app.cli._commands``),
    so ``signpost info`` does not import the matrix code and every benchmark. Without
    ``argv`` every command is built."""
    from app.cli._commands import command_named, help_of

    named = None if argv is None else command_named(argv, COMMANDS)
    parser = _Parser(
        prog="signpost",
        description="Signpost: shortest routes, billboards and live algorithm charts on road/rail maps.",
    )
    parser.add_argument("--version", action="version", version=f"signpost {version()}")
    add_output_arguments(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if argv is not None and name != named:
            sub.add_parser(name, help=help_of(name))  # listed in --help, not imported
            continue
        try:
            mod = importlib.import_module(f"app.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"app.cli.{name}":
                continue  # command not built yet
            raise
        mod.register(sub)
    return parser


def version() -> str:
    """The installed package's version, else the one ``pyproject.toml`` names (a checkout
    run with PYTHONPATH), else "unknown"."""
    from importlib import metadata
    from pathlib import Path

    try:
        return metadata.version("signpost")
    except metadata.PackageNotFoundError:
        pass
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        tomllib = None
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
        if tomllib is not None:
            return str(tomllib.loads(text)["project"]["version"])
        import re

        m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return m.group(1) if m else "unknown"
    except (OSError, KeyError, ValueError):
        return "unknown"


def add_output_arguments(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    """-q/--quiet and -v/--verbose, on ``signpost`` itself and on every sub-command (a
    sub-command's copy leaves the value alone when not given, so ``signpost -v route``
    and ``signpost route -v`` both work)."""
    kw = {} if top else {"default": argparse.SUPPRESS}
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr",
                   **({"default": False} if top else kw))
    p.add_argument("-v", "--verbose", action="count",
                   help="log what is done on stderr (-v steps, -vv details)",
                   **({"default": 0} if top else kw))


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that commands clean up (temporary files) the same way."""


def _on_sigterm(signum, frame):
    raise _Terminated()


# machines of at most this many cores: numba's idle OpenMP threads sleep (see below)
QUIET_OMP_MAX_CORES = 4


def quiet_omp_waits() -> None:
    """On a machine of few cores, numba's OpenMP threads sleep when idle instead of
    spinning (``OMP_WAIT_POLICY=passive`` unless set; read when numba starts them): a
    thread spinning after a parallel region takes a core from the work that follows (the
    billboards' search threads: sample map K=5 on 2 idle cores 1.85-1.93 s -> 1.62-1.70 s).
    The app sets it always (``app.gui``); on many cores spinning keeps barriers quick."""
    if (os.cpu_count() or 1) <= QUIET_OMP_MAX_CORES:
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")


def main(argv: list[str] | None = None) -> int:
    quiet_omp_waits()
    parser = build_parser(sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    _hide_passwords(args)
    from app import progress

    progress.configure(quiet=args.quiet, verbose=args.verbose)
    previous = None
    if args.command != "gui" and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _dispatch(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _hide_passwords(args: argparse.Namespace) -> None:
    """A database URI in MAP or --out keeps its password only in ``args.<name>_uri``
    (``_common.secret`` reads it); ``args.<name>``, which messages print, loses it."""
    from maps.postgis.conn import is_db_uri, redact

    for name in ("map", "out"):
        value = getattr(args, name, None)
        if isinstance(value, str) and is_db_uri(value):
            setattr(args, f"{name}_uri", value)
            setattr(args, name, redact(value))


def _names_as_bytes() -> None:
    """File names that are not UTF-8 (decoded by Python with surrogate escapes) are printed
    back as the bytes they were, instead of crashing the print."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and getattr(stream, "encoding", "").lower().replace(
                "-", "") == "utf8":
            stream.reconfigure(errors="surrogateescape")


def _dispatch(args: argparse.Namespace) -> int:
    from app.cli._atomic import command_outputs
    from gpu_core.errors import GpuCoreError
    from maps.errors import MapError
    from osutil.secrets import redact

    _names_as_bytes()
    try:
        with command_outputs(args):  # --out: never an input; --if-exists for files too
            rc = args.func(args)
    except (MapError, GpuCoreError, CliError) as exc:
        print(f"signpost {args.command}: error: {redact(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a last resort: the checks before the work should have said why
        from osutil.memory import is_out_of_memory

        if not is_out_of_memory(exc):
            raise
        print(f"signpost {args.command}: error: out of memory ({type(exc).__name__}); "
              "ask for less work (fewer cutoffs, samples or points)", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, _Terminated)
        print(f"signpost {args.command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130
    return int(rc or 0)
