"""A real PostgreSQL for the database tests: one throwaway cluster per session
(``tests/postgis/cluster.py``: initdb into a temporary folder, Unix socket only, run as
``postgres`` under root), stopped and removed at the end even when tests fail. Every test
here skips, naming what is missing, when PostgreSQL, PostGIS or pgRouting are absent."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.postgis import cluster

SAMPLE = Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf"


@pytest.fixture(scope="session")
def pg() -> str:
    """The URI (no table) of database ``signpost`` in the session's cluster."""
    why = cluster.skip_reason()
    if why:
        pytest.skip(why)
    root = None
    try:
        root = cluster.start(timeout=60)
        yield cluster.uri(root)
    finally:
        if root is not None:
            cluster.stop(root)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Each test's load cache in its own folder (hits and misses are asserted)."""
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def table(base: str, name: str) -> str:
    return f"{base}&table={name}"


def sql(base: str, query: str, params=()):
    """Rows of ``query`` (autocommit) — the tests' oracle queries."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else None


@pytest.fixture(scope="session")
def grid_table(pg) -> tuple[str, object]:
    """A generated grid (integer weights 1..1000) written as a pgRouting table in UTM
    zone 54N (EPSG:32654), and the network it came from."""
    from maps.generate import grid
    from maps.postgis.write import write_network

    net = grid(900, seed=5)
    write_network(net, table(pg, "grid_utm"), srid=32654)
    return table(pg, "grid_utm"), net


@pytest.fixture(scope="session")
def helsinki(pg) -> str:
    """The bundled Helsinki map loaded by osm2pgrouting (its .osm.pbf written as .osm
    XML first: osm2pgrouting reads only that); the URI of its ``ways`` table."""
    if shutil.which("osm2pgrouting") is None:
        pytest.skip("osm2pgrouting is not installed (Debian: apt-get install osm2pgrouting)")
    import osmium

    host = pg.rsplit("host=", 1)[1]
    xml = Path(host) / "helsinki.osm"  # the cluster's folder: the server user reads it
    writer = osmium.SimpleWriter(str(xml))

    class Copy(osmium.SimpleHandler):
        def node(self, n):
            writer.add_node(n)

        def way(self, w):
            writer.add_way(w)

        def relation(self, r):
            writer.add_relation(r)

    Copy().apply_file(str(SAMPLE))
    writer.close()
    os.chmod(xml, 0o644)
    cmd = ["osm2pgrouting", "-f", str(xml), "-d", cluster.DB, "-U", "postgres", "-h", host,
           "--clean"]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return table(pg, "ways")
