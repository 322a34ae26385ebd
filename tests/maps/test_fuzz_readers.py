"""Fuzzing the readers test_fuzz_parsers.py does not cover: the .spn cache, point files
(CSV and GeoJSON), area files, and compressed maps (.gr.xz/.bz2, .graphml.gz). Random
bytes and truncated or mutated valid files may only raise maps.errors.MapError."""

from __future__ import annotations

import bz2
import gzip
import lzma
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maps.cache import read_cache, write_cache
from maps.errors import MapError
from maps.formats.dimacs import load_dimacs
from maps.formats.graphml import load_graphml
from maps.load import load_map
from maps.points.resolve import read_demand, read_points, read_table
from tests.maps.test_fuzz_parsers import SETTINGS, VALID, mutated

FIX = Path(__file__).resolve().parents[1] / "fixtures"
NET = load_map(FIX / "dimacs" / "tiny.gr", use_cache=False)


def _spn_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        write_cache(NET, Path(d) / "t.spn")
        return (Path(d) / "t.spn").read_bytes()


SPN = _spn_bytes()


def _try(fn, data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / name
        p.write_bytes(data)
        try:
            fn(str(p))
        except MapError:
            pass


@st.composite
def truncated(draw, base: bytes) -> bytes:
    return base[: draw(st.integers(0, len(base)))]


@SETTINGS
@given(st.one_of(mutated(SPN), truncated(SPN), st.binary(max_size=200)))
def test_spn_cache(data) -> None:
    _try(read_cache, data, "f.spn")


POINTS_CSV = b"lon,lat\n139.7,35.68\n139.701,35.681\n"
POINTS_NODE = b"node\n1\n2\n3\n"
POINTS_GEOJSON = (b'{"type":"FeatureCollection","features":[{"type":"Feature","geometry":'
                  b'{"type":"Point","coordinates":[139.7,35.68]}}]}')
DEMAND = b"node,weight\n1,2\n3,0.5\n"


@SETTINGS
@given(st.one_of(mutated(POINTS_CSV), mutated(POINTS_NODE), truncated(POINTS_CSV),
                 st.binary(max_size=100)))
def test_point_csv(data) -> None:
    _try(lambda p: read_points(p, NET, max_distance_m=float("inf")), data, "p.csv")


@SETTINGS
@given(st.one_of(mutated(POINTS_GEOJSON), truncated(POINTS_GEOJSON)))
def test_point_geojson(data) -> None:
    _try(read_table, data, "p.geojson")
    _try(lambda p: read_points(p, NET, max_distance_m=float("inf")), data, "p.geojson")


@SETTINGS
@given(st.one_of(mutated(DEMAND), truncated(DEMAND), st.binary(max_size=60)))
def test_demand(data) -> None:
    _try(lambda p: read_demand(p, NET), data, "d.csv")


AREA = b'{"type":"Polygon","coordinates":[[[139.69,35.67],[139.71,35.67],[139.71,35.69],[139.69,35.67]]]}'


@SETTINGS
@given(st.one_of(mutated(AREA), truncated(AREA)))
def test_area(data) -> None:
    pytest.importorskip("shapely")
    from maps.points.areas import read_area

    _try(read_area, data, "a.geojson")


@SETTINGS
@given(st.sampled_from([lzma.compress, bz2.compress, gzip.compress]), st.data())
def test_compressed_maps(pack, data) -> None:
    packed = pack(VALID["gr"])
    raw = data.draw(st.one_of(mutated(packed), truncated(packed)))
    _try(load_dimacs, raw, "c.gr")
    g = gzip.compress(VALID["graphml"])
    _try(load_graphml, data.draw(st.one_of(mutated(g), truncated(g))), "c.graphml.gz")
