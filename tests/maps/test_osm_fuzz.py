"""Fuzz the .osm (XML) input of the OSM loader: bad bytes give MapError, nothing else."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maps.errors import MapError
from maps.formats.osm import load_osm
from tests.conftest import FIXTURES

VALID = (FIXTURES / "osm" / "small.osm").read_bytes()
PROFILES = st.sampled_from(["length", "walk", "drive", "multimodal"])

# Fragments that steer random input towards the parser's interesting paths.
PIECES = [
    b'<osm version="0.6">', b"</osm>", b'<node id="1" lat="50" lon="10"/>',
    b'<node id="2" lat="95" lon="10"/>', b'<node id="-3" lat="50.001" lon="-190"/>',
    b'<way id="7">', b"</way>", b'<nd ref="1"/>', b'<nd ref="2"/>', b'<nd ref="x"/>',
    b'<tag k="highway" v="residential"/>', b'<tag k="railway" v="rail"/>',
    b'<tag k="oneway" v="-1"/>', b'<tag k="railway" v="station"/>',
    b'<node id="99999999999999999999" lat="1" lon="1"/>', b"<relation id='1'>", b"\x00",
    b"&amp;", b"<!--", b"-->", b"<?xml version='1.0'?>",
]  # fmt: skip


def check(data: bytes, profile: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "fuzz.osm"
        p.write_bytes(data)
        try:
            net = load_osm(p, profile=profile)
        except MapError:
            return
        net.validate()  # whatever loads must be a valid network
        assert net.weights.min() >= 1


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=400), PROFILES)
def test_random_bytes(data, profile):
    check(data, profile)


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=30), PROFILES)
def test_random_fragments(pieces, profile):
    check(b"".join(pieces), profile)


@FUZZ
@given(
    st.integers(0, len(VALID)),
    st.lists(
        st.tuples(st.integers(0, len(VALID) - 1), st.binary(min_size=1, max_size=3)),
        max_size=4,
    ),
    PROFILES,
)
def test_mutated_valid_file(cut, edits, profile):
    data = bytearray(VALID[:cut] if cut < len(VALID) else VALID)
    for pos, b in edits:
        if pos < len(data):
            data[pos : pos + len(b)] = b
    check(bytes(data), profile)
