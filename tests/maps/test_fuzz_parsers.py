"""Fuzzing the file parsers: random and mutated input may only raise maps.errors.MapError.

Any other exception (IndexError, ValueError, UnicodeDecodeError, struct.error, ...) escaping
a loader is a bug: the CLI would crash with a traceback instead of one line and status 2.
Example counts are modest so the suite stays fast on 2 cores.
"""

from __future__ import annotations

import gzip
import lzma
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maps.errors import MapError
from maps.formats.dimacs import load_dimacs, load_pace
from maps.formats.geojson import load_geojson
from maps.formats.gpkg import load_gpkg
from maps.formats.graphml import load_graphml
from tests.maps.gpkg_files import write_gpkg

FIX = Path(__file__).resolve().parents[1] / "fixtures"
# SIGNPOST_FUZZ_EXAMPLES=2000 runs a longer, randomised search (CI: 40, fixed examples).
_N = int(os.environ.get("SIGNPOST_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=_N,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize="SIGNPOST_FUZZ_EXAMPLES" not in os.environ,
)

VALID = {
    "gr": (FIX / "dimacs" / "tiny.gr").read_bytes(),
    "co": (FIX / "dimacs" / "tiny.co").read_bytes(),
    "pace": lzma.decompress((FIX / "dimacs" / "tiny.gr.xz").read_bytes()),
    "graphml": (FIX / "graphml" / "osmnx_small.graphml").read_bytes(),
    "geojson": (FIX / "vector" / "small.geojson").read_bytes(),
}


def _gpkg_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "v.gpkg"
        write_gpkg(p, [([[10, 50], [10.001, 50], [10.002, 50.001]], {"highway": "primary"}),
                       ([[10.001, 50], [10.001, 50.002]], {"oneway": "yes"})])  # fmt: skip
        return p.read_bytes()


VALID["gpkg"] = _gpkg_bytes()


@st.composite
def mutated(draw, base: bytes) -> bytes:
    """The valid file with a few byte flips, insertions, deletions or a truncation."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "dup"]))
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] = draw(st.sampled_from(list(b"-0123456789 \nax.,<>/\"'[]{}\x00\xff")))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[i : i + draw(st.integers(1, 16))]
        elif op == "truncate":
            del data[i:]
        else:
            j = draw(st.integers(i, min(len(data), i + 40)))
            data[i:i] = data[i:j]
    return bytes(data)


def _run(loader, data: bytes, name: str, **kw) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(data)
        try:
            loader(p, **kw)
        except MapError:
            pass


# ---- DIMACS / PACE -------------------------------------------------------------------------
@SETTINGS
@given(st.binary(max_size=400))
def test_dimacs_random_bytes(data) -> None:
    _run(load_dimacs, data, "r.gr")


@SETTINGS
@given(mutated(VALID["gr"]))
def test_dimacs_mutated(data) -> None:
    _run(load_dimacs, data, "m.gr")


@SETTINGS
@given(mutated(VALID["co"]))
def test_dimacs_mutated_co(data) -> None:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "g.gr").write_bytes(VALID["gr"])
        (Path(d) / "g.co").write_bytes(data)
        try:
            load_dimacs(Path(d) / "g.gr")
        except MapError:
            pass


@SETTINGS
@given(mutated(gzip.compress(VALID["gr"])))
def test_dimacs_mutated_gz(data) -> None:
    _run(load_dimacs, data, "z.gr.gz")


@SETTINGS
@given(mutated(VALID["pace"]))
def test_pace_mutated(data) -> None:
    _run(load_pace, lzma.compress(data), "p.gr.xz")


@SETTINGS
@given(st.binary(max_size=300))
def test_pace_random_bytes(data) -> None:
    _run(load_pace, data, "p.gr.xz")


# ---- GraphML -------------------------------------------------------------------------------
@SETTINGS
@given(mutated(VALID["graphml"]))
def test_graphml_mutated(data) -> None:
    _run(load_graphml, data, "m.graphml", profile="walk")


@SETTINGS
@given(st.binary(max_size=300))
def test_graphml_random_bytes(data) -> None:
    _run(load_graphml, data, "r.graphml")


# ---- GeoJSON / GeoPackage ------------------------------------------------------------------
@SETTINGS
@given(mutated(VALID["geojson"]))
def test_geojson_mutated(data) -> None:
    _run(load_geojson, data, "m.geojson", profile="drive")


@SETTINGS
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda ch: st.lists(ch, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "features", "geometry", "coordinates", "properties",
                         "geometries", "crs", "highway", "oneway", "id"]), ch, max_size=4),
    max_leaves=20,
))  # fmt: skip
def test_geojson_random_structures(obj) -> None:
    import json

    try:
        text = json.dumps(obj)
    except (ValueError, TypeError):
        return
    _run(load_geojson, text.encode(), "s.geojson")


@SETTINGS
@given(mutated(VALID["gpkg"]))
def test_gpkg_mutated(data) -> None:
    _run(load_gpkg, data, "m.gpkg")


@SETTINGS
@given(st.binary(max_size=300))
def test_gpkg_blob_random(data) -> None:
    """Random geometry blobs inside a valid GeoPackage."""
    import sqlite3

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "b.gpkg"
        p.write_bytes(VALID["gpkg"])
        con = sqlite3.connect(p)
        blob = b"GP\x00\x01\xe6\x10\x00\x00" + data  # LE header, SRS 4326, no envelope
        con.execute("UPDATE roads SET geom = ? WHERE fid = 1", (blob,))
        con.commit()
        con.close()
        try:
            load_gpkg(p)
        except MapError:
            pass


# ---- OGR sources and GeoParquet (the gis extra) -------------------------------------------
def _gis_bytes(ext: str) -> bytes | None:
    try:
        import pyarrow  # noqa: F401
        import pyogrio  # noqa: F401
    except ImportError:
        return None
    from tests.maps.gis_files import grid_lines, project, write_lines

    lines, props = grid_lines()
    with tempfile.TemporaryDirectory() as d:
        p = write_lines(Path(d) / f"v.{ext}", project(lines, "EPSG:3857"), props,
                        crs="EPSG:3857")
        return p.read_bytes()


for _ext in ("fgb", "gml", "parquet"):
    VALID[_ext] = _gis_bytes(_ext)


def _fuzz_gis(ext: str):
    import pytest

    if VALID[ext] is None:
        pytest.skip("needs the gis extra")
    from maps.formats.ogr import load_ogr

    @SETTINGS
    @given(data=mutated(VALID[ext]))
    def check(data) -> None:
        _run(load_ogr, data, f"m.{ext}")

    check()


def test_flatgeobuf_mutated() -> None:
    _fuzz_gis("fgb")


def test_gml_mutated() -> None:
    _fuzz_gis("gml")


def test_geoparquet_mutated() -> None:
    _fuzz_gis("parquet")
