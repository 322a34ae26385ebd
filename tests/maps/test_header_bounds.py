"""Counts and sizes a file cannot back are refused before anything is allocated (issue 40,
item 11): a 2 KB ``.gr.xz`` claiming 200M nodes (its comments decompress to megabytes, so
the old node-per-16-bytes check passed), arc counts no file of that size holds, and OSM XML
whose decompressed size needs more memory than the host has free."""

from __future__ import annotations

import bz2
import lzma

import pytest

from maps.errors import MapFormatError
from maps.formats import dimacs
from maps.load import load_map
from tests.conftest import FIXTURES


def _xz_bomb(tmp_path, p_line: str, body: str = "") -> str:
    data = ("c " + "x" * 998 + "\n") * 13_000 + p_line + "\n" + body  # 13 MB of comments
    path = tmp_path / "bomb.gr.xz"
    path.write_bytes(lzma.compress(data.encode(), preset=9))
    assert path.stat().st_size < 4096
    return str(path)


def test_a_small_gr_xz_claiming_200m_nodes_is_refused_before_allocation(tmp_path):
    path = _xz_bomb(tmp_path, "p tw 200000000 1", "1 2\n")
    data = dimacs.read_bytes(path)
    with pytest.raises(MapFormatError, match=r"node count 200,000,000 is implausible.*1 edges"):
        dimacs._parse_pace(data, path)  # before: (200M, ...) returned, then 5.6 GB allocated
    with pytest.raises(MapFormatError, match="bomb.gr.xz:13001: node count 200,000,000"):
        load_map(path, profile=None, use_cache=False)


def test_a_dimacs_p_line_whose_arcs_the_file_cannot_hold(tmp_path):
    path = tmp_path / "big.gr"
    path.write_text("p sp 5 100000\na 1 2 3\n")
    with pytest.raises(MapFormatError, match=r"big\.gr:1: arc count 100,000 is more than a "
                                             r"file of 22 bytes can hold \(at most 2\)"):
        dimacs._parse_gr(path.read_bytes(), str(path))
    many = _xz_bomb(tmp_path, "p sp 20000000 1", "a 1 2 3\n")  # 20M nodes, one arc
    with pytest.raises(MapFormatError, match="node count 20,000,000 is implausible"):
        dimacs._parse_gr(dimacs.read_bytes(many), many)


def test_real_files_still_load(tmp_path):
    assert load_map(str(FIXTURES / "dimacs" / "tiny.gr.xz"), profile=None,
                    use_cache=False).num_nodes > 0


def test_compressed_osm_xml_is_bounded_by_what_it_holds(tmp_path, monkeypatch):
    import osutil.memory

    xml = (FIXTURES / "osm" / "small.osm").read_bytes()
    packed = tmp_path / "city.osm.bz2"
    packed.write_bytes(bz2.compress(xml))
    from maps.source import decompressed_size_estimate

    assert decompressed_size_estimate(str(packed)) == len(xml)
    # free memory between 12.6x the compressed size and 12.6x the XML: refused, one line
    free = int(12.6 * (packed.stat().st_size + len(xml)) / 2)
    monkeypatch.setattr(osutil.memory, "available_memory", lambda: free)
    with pytest.raises(MapFormatError, match=r"city\.osm\.bz2: holds about .* GB of OSM XML, "
                                             r"whose load needs about"):
        load_map(str(packed), use_cache=False)
    monkeypatch.setattr(osutil.memory, "available_memory", lambda: 100 * len(xml))
    assert load_map(str(packed), use_cache=False).num_nodes > 0
