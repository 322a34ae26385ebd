"""DIMACS .gr/.co and PACE .gr.xz loading, writing, and errors with file + line."""

from __future__ import annotations

import gzip
import lzma
import shutil
from pathlib import Path

import numpy as np
import pytest

from maps.errors import MapError, MapFormatError, ProfileError, UnknownFormatError
from maps.formats.dimacs import (
    _parse_gr,
    _parse_gr_slow,
    load_dimacs,
    load_pace,
    pace_weights,
)
from maps.load import load_map
from maps.outputs.dimacs import format_int_rows, write_dimacs

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "dimacs"


def arcs_of(net) -> list[tuple[int, int, int]]:
    """(tail id, head id, weight) of every arc."""
    ids = net.node_ids
    return list(
        zip(
            ids[net.arc_sources()].tolist(),
            ids[net.indices].tolist(),
            net.weights.tolist(),
            strict=True,
        )
    )


def test_tiny_gr_counts_weights_duplicates(tmp_path) -> None:
    shutil.copy(FIX / "tiny.gr", tmp_path / "tiny.gr")  # without its .co
    net = load_dimacs(tmp_path / "tiny.gr")
    net.validate()
    assert net.num_nodes == 5 and net.num_arcs == 8
    assert net.unit == "unit" and net.profile == "file"
    assert net.node_ids.tolist() == [1, 2, 3, 4, 5]
    assert sorted(arcs_of(net)) == sorted(
        [(1, 2, 7), (1, 2, 9), (2, 1, 7), (2, 3, 0), (3, 4, 100), (4, 1, 2147483647),
         (1, 3, 15), (3, 5, 1)]
    )  # fmt: skip
    # No .co: coordinates unknown.
    assert np.isnan(net.lon).all() and np.isnan(net.lat).all()
    assert (net.x == 0).all() and (net.y == 0).all()
    # edge_source_id is the arc's line number: "a 3 5 1" is on line 12.
    i = net.arc_between(2, 4)
    assert net.edge_source_id[i] == 12


def test_tiny_gr_with_co() -> None:
    net = load_dimacs(FIX / "tiny.gr")
    assert net.has_coordinates
    np.testing.assert_allclose(net.lon, [139.7, 139.701, 139.701, 139.7, 139.702])
    np.testing.assert_allclose(net.lat, [35.68, 35.68, 35.681, 35.681, 35.682])
    # Projected metres: node 2 lies ~90 m east of node 1.
    assert 85 < net.x[1] - net.x[0] < 95
    assert net.meta["coordinates"].endswith("tiny.co")


def test_gz_and_co_gz(tmp_path) -> None:
    (tmp_path / "g.gr.gz").write_bytes(gzip.compress((FIX / "tiny.gr").read_bytes()))
    (tmp_path / "g.co.gz").write_bytes(gzip.compress((FIX / "tiny.co").read_bytes()))
    net = load_dimacs(tmp_path / "g.gr.gz")
    ref = load_dimacs(FIX / "tiny.gr")
    assert sorted(arcs_of(net)) == sorted(arcs_of(ref))
    np.testing.assert_allclose(net.lon, ref.lon)


def test_negative_coordinates(tmp_path) -> None:
    (tmp_path / "ny.gr").write_text("p sp 2 1\na 1 2 5\n")
    co = "p aux sp co 2\nv 1 -73530767 41085396\nv 2 -73530538 41086098\n"
    (tmp_path / "ny.co").write_text(co)
    net = load_dimacs(tmp_path / "ny.gr")
    np.testing.assert_allclose(net.lon, [-73.530767, -73.530538])
    np.testing.assert_allclose(net.lat, [41.085396, 41.086098])


def test_fast_and_slow_parsers_agree() -> None:
    rng = np.random.default_rng(3)
    n, m = 50, 400
    t, h = rng.integers(1, n + 1, m), rng.integers(1, n + 1, m)
    w = rng.integers(0, 2**31, m)
    lines = ["c x", f"p sp {n} {m}"] + [f"a {a} {b} {c}" for a, b, c in zip(t, h, w, strict=True)]
    data = ("\n".join(lines) + "\n").encode()
    n1, a1, l1 = _parse_gr(data, "x.gr")
    n2, a2, l2 = _parse_gr_slow(data, "x.gr")
    assert n1 == n2 == n
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_array_equal(a1, np.column_stack([t, h, w]))
    # A comment between arcs, CRLF endings and blank lines leave the fast path; same result.
    odd = data.replace(b"\na 1", b"\nc mid\n\na 1", 1).replace(b"\n", b"\r\n")
    n3, a3, _ = _parse_gr(odd, "x.gr")
    np.testing.assert_array_equal(a3, a1)


def _write(tmp_path, text: str, name: str = "bad.gr") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


GOOD_HEAD = "c line 1\nc line 2\np sp 4 5\n"


@pytest.mark.parametrize(
    ("body", "line", "needle"),
    [
        ("a 1 2 3\na 2 3 4\na 3 4 5\na 4 1 -2147483648\na 1 3 1\n", 7,
         "weight -2147483648 is below -2147483647"),
        ("a 1 2 3\na 1 x 3\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "'x'"),
        ("a 1 2 3\na 1 2\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "expected 'a U V W'"),
        ("a 1 2 3\na 1 9 3\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "head 9"),
        ("a 0 2 3\na 1 2 3\na 3 4 5\na 4 1 6\na 1 3 1\n", 4, "tail 0"),
        ("a 1 2 3\na 1 2 2147483648\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "2147483648"),
        ("a 1 2 3\na 1 2 3.5\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "'3.5'"),
        ("a 1 2 3\nb 1 2 3\na 3 4 5\na 4 1 6\na 1 3 1\n", 5, "unknown line type"),
        ("a 1 2 3\na 3 4 5\na 4 1 6\na 1 3 1\n", 3, "announces 5 arcs but the file has 4"),
        ("a 1 2 3\na 3 4 5\na 4 1 6\na 1 3 1\na 1 3 1\na 2 2 2\n", 3, "has 6"),
    ],
)
def test_bad_gr_names_file_and_line(tmp_path, body, line, needle) -> None:
    p = _write(tmp_path, GOOD_HEAD + body)
    with pytest.raises(MapFormatError) as exc:
        load_dimacs(p)
    msg = str(exc.value)
    assert f"{p}:{line}:" in msg, msg
    assert needle in msg, msg
    assert exc.value.line == line


def test_negative_weights_load(tmp_path) -> None:
    # negative integer arcs are taken (only the label-correcting strategies search them);
    # the fast path and the line parser agree, also with a comment between arcs
    text = "c a\nc b\np sp 3 3\na 1 2 1\na 2 3 -66\na 3 1 -4\n"
    n, fast, _ = _parse_gr(text.encode(), "x.gr")
    n2, slow, _ = _parse_gr(text.replace("a 2 3", "c mid\na 2 3").encode(), "x.gr")
    assert n == n2 == 3
    np.testing.assert_array_equal(fast, slow)
    assert fast[:, 2].tolist() == [1, -66, -4]
    net = load_dimacs(_write(tmp_path, text))
    assert net.has_negative and sorted(net.weights.tolist()) == [-66, -4, 1]
    assert not load_dimacs(_write(tmp_path, "p sp 2 1\na 1 2 0\n", "ok.gr")).has_negative


def test_missing_p_line(tmp_path) -> None:
    p = _write(tmp_path, "c hello\na 1 2 3\n")
    with pytest.raises(MapFormatError, match=r":2: arc before the 'p sp N M' line"):
        load_dimacs(p)
    p = _write(tmp_path, "c only comments\nc here\n", "c.gr")
    with pytest.raises(MapFormatError, match=r"c\.gr:2: missing 'p sp N M' line"):
        load_dimacs(p)


def test_pace_file_named_gr_is_explained(tmp_path) -> None:
    p = _write(tmp_path, "p tw 2 1\n1 2\n")
    with pytest.raises(MapFormatError, match="PACE"):
        load_dimacs(p)


def test_truncated_gz(tmp_path) -> None:
    blob = gzip.compress(("p sp 3 2\na 1 2 3\na 2 3 4\n" * 50).encode())
    p = tmp_path / "t.gr.gz"
    p.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(MapFormatError, match=r"t\.gr\.gz: truncated or corrupt"):
        load_dimacs(p)


def test_bad_co(tmp_path) -> None:
    _write(tmp_path, "p sp 2 1\na 1 2 5\n", "g.gr")
    _write(tmp_path, "p aux sp co 2\nv 1 10 20\nv 3 10 20\n", "g.co")
    with pytest.raises(MapFormatError, match=r"g\.co:3: node id 3"):
        load_dimacs(tmp_path / "g.gr")
    _write(tmp_path, "p aux sp co 2\nv 1 10 20\n", "g.co")
    with pytest.raises(MapFormatError, match="1 of 2 nodes have no coordinates"):
        load_dimacs(tmp_path / "g.gr")


def test_unknown_extension_and_profile(tmp_path) -> None:
    p = _write(tmp_path, "p sp 1 0\n", "map.txt")
    with pytest.raises(UnknownFormatError, match=r"map\.txt"):
        load_map(p)
    with pytest.raises(ProfileError):
        load_map(FIX / "tiny.gr", profile="walk", use_cache=False)


def test_write_round_trip(tmp_path) -> None:
    ref = load_dimacs(FIX / "tiny.gr")
    out = tmp_path / "out.gr"
    written = write_dimacs(ref, out)
    assert [Path(w).name for w in written] == ["out.gr", "out.co"]
    back = load_dimacs(out)
    for name in ("indptr", "indices", "weights", "node_ids"):
        np.testing.assert_array_equal(getattr(back, name), getattr(ref, name))
    np.testing.assert_allclose(back.lon, ref.lon, atol=1e-6)
    np.testing.assert_allclose(back.lat, ref.lat, atol=1e-6)
    # Compressed output reads back too.
    write_dimacs(ref, tmp_path / "z.gr.gz")
    assert (tmp_path / "z.co.gz").exists()
    np.testing.assert_array_equal(load_dimacs(tmp_path / "z.gr.gz").weights, ref.weights)


def test_format_int_rows_matches_python() -> None:
    rng = np.random.default_rng(0)
    cols = [rng.integers(-(10**12), 10**12, 200), rng.integers(0, 10, 200), np.zeros(200, int)]
    got = format_int_rows("v", cols).decode()
    want = "".join(f"v {a} {b} {c}\n" for a, b, c in zip(*cols, strict=True))
    assert got == want
    assert format_int_rows("", [np.array([5, -12])]) == b"5\n-12\n"


# ---- PACE ----------------------------------------------------------------------------------
def test_pace_tiny_both_directions_same_weight() -> None:
    net = load_pace(FIX / "tiny.gr.xz", seed=5)
    net.validate()
    assert net.num_nodes == 4 and net.num_arcs == 8
    w = pace_weights(4, 5)
    roads = [(1, 2), (2, 3), (3, 4), (4, 1)]
    got = arcs_of(net)
    for i, (u, v) in enumerate(roads):
        assert (u, v, w[i]) in got and (v, u, w[i]) in got
    assert net.meta["weight_seed"] == 5
    assert ((net.weights >= 1) & (net.weights <= 1000)).all()
    # Documented stream: numpy default_rng(seed).integers(1, 1001, size=M, dtype=int64).
    np.testing.assert_array_equal(w, np.random.default_rng(5).integers(1, 1001, 4, dtype=np.int64))
    # Another seed, other weights; same seed, same weights.
    assert not np.array_equal(load_pace(FIX / "tiny.gr.xz", seed=6).weights, net.weights)
    np.testing.assert_array_equal(load_pace(FIX / "tiny.gr.xz", seed=5).weights, net.weights)


def test_pace_through_load_map_uses_seed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    a = load_map(FIX / "tiny.gr.xz", seed=2)
    b = load_map(FIX / "tiny.gr.xz", seed=2)  # from the cache
    c = load_map(FIX / "tiny.gr.xz", seed=3, use_cache=False)
    assert b.meta.get("cache_hit") is True
    np.testing.assert_array_equal(a.weights, b.weights)
    assert a.meta["weight_seed"] == 2 and c.meta["weight_seed"] == 3


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("p tw 3 2\n1 2\n2 4\n", 3, "node 4"),
        ("p tw 3 2\n1 2\n2\n", 3, "expected 'U V'"),
        ("p tw 3 3\n1 2\n2 3\n", 1, "announces 3 edges but the file has 2"),
        ("1 2\n", 1, "missing p line"),
        ("c x\np sp 3 2\n1 2\n", 2, "expected 'p tw N M'"),
        ("p tw 3 2\n1 2\n2 -3\n", 3, "-3"),
    ],
)
def test_bad_pace(tmp_path, text, line, needle) -> None:
    p = tmp_path / "bad.gr.xz"
    p.write_bytes(lzma.compress(text.encode()))
    with pytest.raises(MapFormatError) as exc:
        load_pace(p)
    assert f"bad.gr.xz:{line}:" in str(exc.value) and needle in str(exc.value), str(exc.value)


def test_truncated_xz(tmp_path) -> None:
    blob = lzma.compress(b"p tw 3 2\n1 2\n2 3\n" * 100)
    p = tmp_path / "t.gr.xz"
    p.write_bytes(blob[:-20])
    with pytest.raises(MapFormatError, match="truncated or corrupt"):
        load_pace(p)


def test_cancel(tmp_path) -> None:
    with pytest.raises(MapError, match="cancelled"):
        load_dimacs(FIX / "tiny.gr", cancel=lambda: True)
    with pytest.raises(MapError, match="cancelled"):
        load_pace(FIX / "tiny.gr.xz", cancel=lambda: True)
    seen = []
    load_dimacs(FIX / "tiny.gr", progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


# ---- the shared real maps ----------------------------------------------------------------
@pytest.mark.slow
def test_shared_ne_and_fla(shared_maps) -> None:
    for name, n, roads in (("NE.gr.xz", 1_524_453, 1_934_010), ("FLA.gr.xz", 1_070_376, 1_343_951)):
        p = shared_maps / name
        if not p.exists():
            pytest.skip(f"{name} is absent")
        net = load_pace(p, seed=1)
        assert net.num_nodes == n and net.num_arcs == 2 * roads
        assert net.weights.min() >= 1 and net.weights.max() <= 1000
        # The arc u->v and v->u of every road carry the same weight: the matrix is symmetric.
        a = net.to_scipy()
        assert abs(a - a.T).max() == 0


def test_implausible_node_count(tmp_path) -> None:
    p = _write(tmp_path, "p sp 2000000000 1\na 1 2 3\n")
    with pytest.raises(MapFormatError, match=r"bad\.gr:1: node count 2,000,000,000 is implausible"):
        load_dimacs(p)


def test_write_removes_stale_co(tmp_path) -> None:
    from maps.generate import generate

    write_dimacs(load_dimacs(FIX / "tiny.gr"), tmp_path / "m.gr")
    assert (tmp_path / "m.co").exists()
    write_dimacs(generate("ring", n=7), tmp_path / "m.gr")  # no coordinates
    assert not (tmp_path / "m.co").exists()
    assert load_dimacs(tmp_path / "m.gr").num_nodes == 7
