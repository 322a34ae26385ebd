"""The .spn format and the load cache: round trips, keys, silent rebuilds."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from maps import cache as C
from maps.cache import cached, read_cache, write_cache
from maps.errors import MapFormatError
from maps.formats.graphml import load_graphml
from maps.generate import generate
from maps.load import load_map

FIX = Path(__file__).resolve().parents[1] / "fixtures"
ARRAYS = (
    "indptr", "indices", "weights", "x", "y", "lon", "lat", "node_ids", "edge_kind",
    "edge_class", "edge_length", "edge_source_id", "geom_indptr", "geom_xy",
)  # fmt: skip


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(d))
    return d


def assert_same(a, b) -> None:
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None:
            assert y is None, name
            continue
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    for name in ("unit", "profile", "class_names", "origin", "name"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("which", ["kanto", "graphml"])
def test_round_trip_every_array(tmp_path, which) -> None:
    if which == "kanto":
        net = generate("kanto", n=3000, seed=2, rail_lines=2)
    else:
        net = load_graphml(FIX / "graphml" / "osmnx_small.graphml", profile="walk")
        assert net.geom_indptr is not None and net.geom_xy.shape[0] > 0
    p = tmp_path / "m.spn"
    write_cache(net, p)
    back = read_cache(p)
    assert_same(net, back)
    assert back.meta["generator" if which == "kanto" else "format"] == net.meta[
        "generator" if which == "kanto" else "format"
    ]
    back.weights[0] += 1  # arrays are writable (not views of a read-only buffer)
    # load_map reads an explicit .spn
    assert_same(net, load_map(p))


def test_cached_builds_once_and_rebuilds_on_change(tmp_path, cache_dir) -> None:
    src = tmp_path / "g.gr"
    src.write_text("p sp 3 2\na 1 2 5\na 2 3 7\n")
    calls = []

    def build():
        from maps.formats.dimacs import load_dimacs

        calls.append(1)
        return load_dimacs(src)

    a = cached(src, {"profile": "file"}, build)
    b = cached(src, {"profile": "file"}, build)
    assert len(calls) == 1 and a.meta["cache_hit"] is False and b.meta["cache_hit"] is True
    assert_same(a, b)
    assert b.source_path == str(src)
    assert len(list(cache_dir.glob("*.spn"))) == 1
    # Other options: another entry.
    cached(src, {"profile": "file", "seed": 2}, build)
    assert len(calls) == 2
    # New content: rebuilt, new weights.
    src.write_text("p sp 3 2\na 1 2 6\na 2 3 7\n")
    c = cached(src, {"profile": "file"}, build)
    assert len(calls) == 3 and sorted(c.weights.tolist()) == [6, 7]
    # A new .co companion changes the key too.
    (tmp_path / "g.co").write_text("p aux sp co 3\nv 1 1 1\nv 2 2 2\nv 3 3 3\n")
    d = cached(src, {"profile": "file"}, build)
    assert len(calls) == 4 and d.has_coordinates


def _entry(cache_dir: Path) -> Path:
    (e,) = list(cache_dir.glob("*.spn"))
    return e


@pytest.mark.parametrize("damage", ["truncate", "flip_payload", "flip_header", "garbage", "version",
                                    "empty"])  # fmt: skip
def test_corrupt_entry_is_rebuilt_silently(tmp_path, cache_dir, damage) -> None:
    src = tmp_path / "tiny.gr"
    shutil.copy(FIX / "dimacs" / "tiny.gr", src)
    ref = load_map(src)
    entry = _entry(cache_dir)
    raw = bytearray(entry.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) - 100]
    elif damage == "flip_payload":
        raw[-70] ^= 0xFF
    elif damage == "flip_header":
        raw[40] ^= 0x01
    elif damage == "garbage":
        raw = bytearray(os.urandom(len(raw)))
    elif damage == "version":
        raw[16] = 99
    else:
        raw = bytearray()
    entry.write_bytes(bytes(raw))
    with pytest.raises(MapFormatError, match=str(entry.name)):
        read_cache(entry)
    net = load_map(src)  # no error: rebuilt
    assert net.meta["cache_hit"] is False
    assert_same(ref, net)
    assert load_map(src).meta["cache_hit"] is True  # and the entry is good again


def test_wrong_key_entry_is_not_used(tmp_path, cache_dir) -> None:
    src = tmp_path / "tiny.gr"
    shutil.copy(FIX / "dimacs" / "tiny.gr", src)
    load_map(src)
    entry = _entry(cache_dir)
    # Put another map's (valid) .spn under this key: its stored key differs, so rebuild.
    write_cache(generate("ring", n=5), entry, key="something else")
    net = load_map(src)
    assert net.meta["cache_hit"] is False and net.num_arcs == 8


def test_unwritable_cache_dir_still_loads(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(blocker / "sub"))
    net = load_map(FIX / "dimacs" / "tiny.gr")
    assert net.num_arcs == 8


def test_default_cache_dir(monkeypatch) -> None:
    monkeypatch.delenv("SIGNPOST_CACHE_DIR", raising=False)
    assert C.cache_dir() == Path.home() / ".cache" / "signpost"


def test_explicit_spn_errors(tmp_path) -> None:
    p = tmp_path / "x.spn"
    p.write_bytes(b"hello")
    with pytest.raises(MapFormatError, match=r"x\.spn: not a valid Signpost \.spn file"):
        load_map(p)
    with pytest.raises(MapFormatError, match="no such file"):
        load_map(tmp_path / "missing.spn")


def test_crafted_header_rejected(tmp_path) -> None:
    """A header whose arrays do not fit the network is refused, never half-loaded."""
    import json
    import struct
    import zlib

    net = generate("ring", n=4)
    p = tmp_path / "r.spn"
    write_cache(net, p)
    raw = p.read_bytes()
    magic, ver, hlen, crc, _ = C._PRE.unpack(raw[:32])
    header = json.loads(raw[32 : 32 + hlen])
    header["arrays"][1]["shape"] = [999]  # indices longer than the payload allows
    hb = json.dumps(header).encode()
    hb += b" " * (-(len(hb) + 32) % 64)
    payload = raw[32 + hlen :]
    p.write_bytes(struct.pack("<16sIIII", magic, ver, len(hb), crc, zlib.crc32(hb)) + hb + payload)
    with pytest.raises(MapFormatError, match="indices"):
        read_cache(p)


def test_loader_code_change_invalidates(tmp_path, monkeypatch) -> None:
    src = tmp_path / "tiny.gr"
    shutil.copy(FIX / "dimacs" / "tiny.gr", src)
    k1 = C.cache_key(str(src), {"a": 1})
    assert C.cache_key(str(src), {"a": 1}) == k1
    assert C.cache_key(str(src), {"a": 2}) != k1
    monkeypatch.setattr(C, "code_fingerprint", lambda: "edited loader")
    assert C.cache_key(str(src), {"a": 1}) != k1
