"""``--dask local|local:N|tcp://HOST:PORT`` of ``signpost matrix`` and ``signpost billboards``:
the option, the cluster it names (``app.jobs.distributed``) and its one-line errors."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator

from app.cli import CliError

DASK_HELP = (
    "run on a Dask cluster: local (one worker per GPU, or per core on the CPU), local:N "
    "(N workers, at most one per GPU or core) or tcp://HOST:PORT (a running 'dask "
    "scheduler' without TLS; no other scheme); needs signpost[dask]"
)
# distributed's loggers: -q leaves only their errors (a Ctrl-C otherwise prints WARNING
# lines of closing comms and nannies, here and in the worker processes)
DASK_LOGGERS = ("distributed", "tornado", "bokeh")


def add_dask_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dask", default=None, metavar="local|local:N|tcp://HOST:PORT",
                   help=DASK_HELP)


@contextlib.contextmanager
def cluster(args: argparse.Namespace) -> Iterator[object | None]:
    """The ``app.jobs.distributed.Cluster`` of ``args.dask`` (None without the option),
    closed at the end; a cluster that cannot be had is a CliError (exit 2)."""
    if getattr(args, "dask", None) is None:
        yield None
        return
    from app.jobs.distributed import DistributedError, connect

    if getattr(args, "quiet", False):
        quiet_dask()
    try:
        cl = connect(args.dask, args.backend)
    except DistributedError as exc:
        raise CliError(str(exc)) from None
    for note in cl.notes:
        print(f"note: {note}", file=sys.stderr)
    try:
        yield cl
    except DistributedError as exc:
        raise CliError(str(exc)) from None
    finally:
        cl.close()


def quiet_dask() -> None:
    """Only errors from distributed, in this process and the worker processes it starts
    (they read ``DASK_LOGGING__*`` when they import distributed)."""
    for name in DASK_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
        os.environ[f"DASK_LOGGING__{name.upper()}"] = "error"


def describe(cl, shipped: str) -> str:
    """'2 workers (LocalCluster, started in 1.26 s); map read from its file on each worker,
    loaded in 0.31, 0.29 s'."""
    return f"{cl.workers} Dask workers ({cl.kind}, started in {cl.start_s:.2f} s); {shipped}"
