"""A throwaway PostgreSQL cluster for the tests (and for benchmarking by hand).

``initdb`` into a temporary folder, started with a Unix socket in that folder and no TCP
(``listen_addresses=''``), trust authentication, fsync off (nothing here must survive).
PostgreSQL refuses to run as root, so under root (CI) the server runs as the
``postgres`` user Debian's packages create (``runuser``); the folder is made its own.
:func:`skip_reason` says why the tests cannot run (packages absent).

By hand::

    python -m tests.postgis.cluster start /tmp/pg   # prints the URI of database signpost
    python -m tests.postgis.cluster stop /tmp/pg
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DB = "signpost"
EXTENSIONS = ("postgis", "pgrouting")


def bin_dir() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).parent if which else None


def _extension_files(bins: Path) -> list[str]:
    share = bins.parent.parent.parent.parent / "share" / "postgresql" / bins.parent.name
    return [e for e in EXTENSIONS if not (share / "extension" / f"{e}.control").exists()]


def skip_reason() -> str | None:
    """Why a cluster cannot be started here (None: it can)."""
    bins = bin_dir()
    if bins is None:
        return ("PostgreSQL is not installed (Debian: apt-get install postgresql-15 "
                "postgresql-15-postgis-3 postgresql-15-pgrouting)")
    missing = _extension_files(bins)
    if missing:
        return f"PostgreSQL extension(s) {', '.join(missing)} not installed"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg 3 is not installed (pip install 'signpost[postgis]')"
    return None


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def _run(cmd: list[str], timeout: float) -> None:
    r = subprocess.run(_as_server_user(cmd), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed ({r.returncode}): {r.stderr.strip()[-800:]}")


def uri(folder: str | os.PathLike, db: str = DB) -> str:
    """The URI of database ``db`` of the cluster in ``folder`` (socket, user postgres)."""
    return f"postgresql://postgres@/{db}?host={os.fspath(folder)}"


def start(folder: str | os.PathLike | None = None, timeout: float = 60) -> Path:
    """Start a cluster in ``folder`` (a new temporary one if None) with database
    :data:`DB` holding PostGIS and pgRouting; returns the folder (socket inside)."""
    bins = bin_dir()
    if bins is None:
        raise RuntimeError(skip_reason() or "no PostgreSQL")
    root = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="signpost-pg-"))
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
    data = root / "data"
    _run([str(bins / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
          "-E", "UTF8", "--locale=C", "--no-sync"], timeout)
    opts = (f"-c listen_addresses='' -c unix_socket_directories={root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_wal_size=4GB")
    _run([str(bins / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "server.log"),
          "-w", "-t", str(int(timeout)), "start"], timeout + 10)
    import psycopg

    with psycopg.connect(uri(root, "postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {DB}")
    with psycopg.connect(uri(root), autocommit=True) as conn:
        for ext in EXTENSIONS:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext} CASCADE")
    return root


def stop(folder: str | os.PathLike, timeout: float = 30, remove: bool = True) -> None:
    """Stop the cluster in ``folder`` (fast shutdown, then immediate) and remove it."""
    bins = bin_dir()
    data = Path(folder) / "data"
    if bins is not None and (data / "postmaster.pid").exists():
        for mode in ("fast", "immediate"):
            try:
                _run([str(bins / "pg_ctl"), "-D", str(data), "-m", mode, "-w", "-t",
                      str(int(timeout)), "stop"], timeout + 10)
                break
            except (RuntimeError, subprocess.TimeoutExpired):
                continue
    if remove:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    what, where = sys.argv[1], sys.argv[2]
    if what == "start":
        print(uri(start(where)))
    else:
        stop(where, remove=False)
