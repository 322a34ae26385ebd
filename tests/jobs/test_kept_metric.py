"""The kept metric persists beside the index (issue 41): a closure in a new process (the
CLI's ``matrix --close``) re-customizes only the edges it reaches, from one memory-mapped
file (``cch-kept-<topology key>.bin``) that holds the topology, the metric and the
unpruned hierarchy it patches: the topology's ``.npz`` is not read, nothing is made first."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from app.jobs import index, kept_metric, mapped_arrays, matrix
from maps.generate import generate


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(index, "_RECENT", type(index._RECENT)())
    return tmp_path


def _new_process():
    """What a new process has: no topology in memory (they are read from the files)."""
    index._RECENT.clear()


def _closed(net, seed: int):
    from app.jobs.edits import apply_edits, parse_close

    r = np.random.default_rng(seed)
    tails = np.repeat(np.arange(net.num_nodes), np.diff(net.indptr))
    arcs = r.integers(0, net.num_arcs, 3)
    specs = [f"nodes:{net.node_ids[tails[a]]},{net.node_ids[net.indices[a]]}" for a in arcs]
    edited, changed = apply_edits(net, [parse_close(s) for s in specs], backend="cpu")
    assert changed > 0
    return edited


def _both(edited, src, tgt):
    got = matrix.run(edited, matrix.MatrixOptions(src, tgt, backend="cpu", index="on"))
    want = matrix.run(edited, matrix.MatrixOptions(src, tgt, backend="cpu", index="off"))
    np.testing.assert_array_equal(got.matrix, want.matrix)
    return got


def _full(edited, src, tgt) -> np.ndarray:
    """The matrix of a full customization of ``edited`` over the unedited map's topology
    (read from its ``.npz``; no kept metric reused)."""
    from gpu_core.hierarchy import Topology, customize
    from gpu_core.hierarchy.api import iter_rows

    base = str(edited.meta["index_topology"])
    t = Topology.load(index.topology_path(base), key=base)
    h = customize(t, edited, reuse=False)
    assert h.customized == "full"
    return np.vstack([b for _, b in iter_rows(h, np.asarray(src), np.asarray(tgt), "cpu")])


def test_a_new_process_patches_the_mapped_hierarchy(cache, monkeypatch):
    pytest.importorskip("pymetis")
    from gpu_core.hierarchy import Topology

    net = generate("grid", 2500, seed=6)
    assert index.hierarchy_for(net, policy="on")[1].source == "built"
    (path,) = cache.glob("cch-kept-*.bin")
    assert not list(cache.glob("cch-metric-*.npz"))
    meta, arrays = mapped_arrays.read(os.fspath(path))
    assert meta["format"] == kept_metric.KEPT_FORMAT and meta["family"] == "weights"
    assert {"h.up_w", "t.by_sweep", "m.up", "t.up_nb"} <= set(arrays)
    src, tgt = (1, 50, 900, 2000), (3, 77, 1500)

    loads = []
    real = Topology.load.__func__

    def counted(cls, *a, **k):  # the topology comes from the kept file, not its .npz
        loads.append(a)
        return real(cls, *a, **k)

    monkeypatch.setattr(Topology, "load", classmethod(counted))
    before = path.read_bytes()
    for seed in (1, 2):
        _new_process()
        edited = _closed(net, seed)
        got = _both(edited, src, tgt)
        assert got.stats["index"] == "customized", got.stats
        assert got.stats["index_customized"].startswith("partial"), got.stats  # was "full"
        assert loads == []
        np.testing.assert_array_equal(got.matrix, _full(edited, src, tgt))
        loads.clear()
    assert path.read_bytes() == before  # updated in place in memory, never on disk


def _entry(path, name: str) -> tuple[int, int]:
    """(file offset, bytes) of the array ``name`` of a kept file."""
    raw = path.read_bytes()
    n0 = len(mapped_arrays.MAGIC)
    (hlen,) = mapped_arrays._LEN.unpack_from(raw, n0)
    head = json.loads(raw[n0 + 8:n0 + 8 + hlen])
    start = -(-(n0 + 8 + hlen + 4) // mapped_arrays.ALIGN) * mapped_arrays.ALIGN
    (e,) = [e for e in head["arrays"] if e["name"] == name]
    nbytes = int(np.prod(e["shape"])) * np.dtype(e["dtype"]).itemsize
    return start + e["offset"], nbytes


def _damage(path, how: str) -> None:
    raw = bytearray(path.read_bytes())
    if how == "truncate":
        del raw[len(raw) // 2:]
    elif how in ("flip_metric", "flip_hierarchy", "flip_topology"):
        at, nbytes = _entry(path, {"flip_metric": "m.up", "flip_hierarchy": "h.up_w",
                                   "flip_topology": "t.dn_edge"}[how])
        raw[at + nbytes // 2] ^= 0x10
    elif how == "flip_header":
        raw[len(mapped_arrays.MAGIC) + 20] ^= 0x01
    elif how in ("other_topology", "other_format"):
        meta, arrays = mapped_arrays.read(os.fspath(path))
        meta = dict(meta)
        if how == "other_topology":
            meta["key"] = "someone-else"
        else:
            meta["format"] = kept_metric.KEPT_FORMAT + 1
        arrays = {k: np.array(v) for k, v in arrays.items()}
        os.unlink(path)
        mapped_arrays.write(os.fspath(path), arrays, meta)
        return
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("damage", ["truncate", "flip_metric", "flip_hierarchy",
                                    "flip_topology", "flip_header", "other_topology",
                                    "other_format"])
def test_a_bad_kept_file_is_removed_and_customization_is_full(cache, damage):
    pytest.importorskip("pymetis")
    net = generate("grid", 900, seed=3)
    index.hierarchy_for(net, policy="on")
    (path,) = cache.glob("cch-kept-*.bin")
    _damage(path, damage)
    stamp = path.stat()
    _new_process()
    edited = _closed(net, 4)
    got = _both(edited, (1, 2), (5, 9))
    assert got.stats["index_customized"] == "full", got.stats
    # removed, and written anew from the (full) customization: a valid file again
    assert path.stat().st_ino != stamp.st_ino or path.stat().st_mtime_ns != stamp.st_mtime_ns
    meta, _ = mapped_arrays.read(os.fspath(path))
    assert meta["key"] == path.name[len("cch-kept-"):-len(".bin")]
    _new_process()
    got = _both(_closed(net, 5), (1, 2), (5, 9))
    assert got.stats["index_customized"].startswith("partial"), got.stats


def test_another_map_never_reads_it_and_new_weights_stay_exact(cache):
    pytest.importorskip("pymetis")
    a = generate("grid", 900, seed=3)
    b = generate("grid", 1600, seed=3)
    index.hierarchy_for(a, policy="on")
    index.hierarchy_for(b, policy="on")
    assert len(list(cache.glob("cch-kept-*.bin"))) == 2  # one per topology key
    # the same roads with other weights: the same topology key, so the same file; the
    # metric's graph is compared row by row, so the answer is exact either way
    w = a.weights.copy()
    w[::7] += 5
    from dataclasses import replace

    reweighted = replace(a, weights=w)
    _new_process()
    got = _both(_closed(reweighted, 6), (1, 2, 300), (5, 9, 800))
    assert got.stats["index"] == "customized", got.stats


def test_the_older_metric_file_is_read_once_and_rewritten(cache):
    pytest.importorskip("pymetis")
    net = generate("grid", 900, seed=3)
    index.hierarchy_for(net, policy="on")
    (path,) = cache.glob("cch-kept-*.bin")
    tkey = path.name[len("cch-kept-"):-len(".bin")]
    meta, a = mapped_arrays.read(os.fspath(path))
    np.savez(kept_metric.metric_path(tkey), topology=np.array(tkey),
             **{k: np.array(a[f"m.{k}"]) for k in ("base_up", "base_down", "up", "down",
                                                   "indptr", "indices", "weights")})
    del a
    os.unlink(path)
    _new_process()
    got = _both(_closed(net, 7), (1, 2), (5, 9))
    assert got.stats["index_customized"].startswith("partial"), got.stats
    assert path.exists() and not os.path.exists(kept_metric.metric_path(tkey))


def test_mapped_arrays_round_trip_and_damage(tmp_path):
    arrays = {"a": np.arange(10, dtype=np.int64), "b": np.array([1, -2, 3], np.int32),
              "empty": np.zeros(0, np.int64), "bytes": np.arange(13, dtype=np.uint8),
              "grid": np.arange(12, dtype=np.int64).reshape(3, 4) * (1 << 40)}
    path = tmp_path / "x.bin"
    mapped_arrays.write(os.fspath(path), arrays, {"k": "v"})
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]  # no temporary left
    meta, got = mapped_arrays.read(os.fspath(path))
    assert meta == {"k": "v"}
    for k, v in arrays.items():
        np.testing.assert_array_equal(got[k], v)
        assert got[k].dtype == v.dtype and got[k].flags.writeable
    raw = path.read_bytes()
    got["a"][0] = 99  # a private page: the file keeps its bytes
    assert path.read_bytes() == raw
    del got
    for name in arrays:  # every byte of every array is covered
        at, nbytes = _entry(path, name)
        for i in range(nbytes):
            bad = bytearray(raw)
            bad[at + i] ^= 0x80
            path.write_bytes(bytes(bad))
            with pytest.raises(ValueError):
                mapped_arrays.read(os.fspath(path))
    for cut in (5, len(raw) // 2, len(raw) - 1):
        path.write_bytes(raw[:cut])
        with pytest.raises(ValueError):
            mapped_arrays.read(os.fspath(path))


def test_rows_fit_agrees_with_every_arcs_edge(cache):
    """``inputs.rows_fit`` (the differing rows looked up) says what ``slots_for`` (every
    arc looked up) says: closures and re-weightings fit, a road between far vertices
    does not; too many differing rows: None (the caller looks every arc up)."""
    pytest.importorskip("pymetis")
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import slots_for
    from gpu_core.hierarchy.inputs import rows_fit

    net = generate("grid", 900, seed=3)
    index.hierarchy_for(net, policy="on")
    (path,) = cache.glob("cch-kept-*.bin")
    _new_process()
    t = index._cached_topology(path.name[len("cch-kept-"):-len(".bin")])
    ki = kept_metric.kept(t).inputs
    g0 = CSRGraph.from_any(net)
    tails = np.repeat(np.arange(g0.num_nodes), np.diff(g0.indptr))
    r = np.random.default_rng(1)
    seen = set()
    for trial in range(30):
        src, dst, w = list(tails), list(g0.indices), list(g0.weights)
        for _ in range(int(r.integers(1, 4))):
            if trial % 3 == 0:  # a new arc, near or far
                a = int(r.integers(0, g0.num_nodes))
                b = int(r.integers(0, g0.num_nodes)) if trial % 2 else int(dst[a])
                src.append(a), dst.append(b), w.append(7)
            else:  # a closure
                k = int(r.integers(0, len(src)))
                del src[k], dst[k], w[k]
        g = CSRGraph.from_edges(g0.num_nodes, src, dst, w)
        want = not isinstance(slots_for(t, g), str)
        assert rows_fit(t, ki, g) is want, trial
        seen.add(want)
    assert seen == {True, False}
    many = CSRGraph.from_edges(g0.num_nodes, tails, g0.indices, g0.weights + 1)
    assert rows_fit(t, ki, many) is None


def test_the_same_process_keeps_its_topology_after_writing_the_file(cache, monkeypatch):
    """The file written after a build (or the map's own customization) names the
    topology in memory (its new stamp): the same process's closures map nothing."""
    pytest.importorskip("pymetis")
    net = generate("grid", 900, seed=3)
    index.hierarchy_for(net, policy="on")
    reads = []
    real = mapped_arrays.read
    monkeypatch.setattr(mapped_arrays, "read", lambda *a, **k: reads.append(a) or real(*a, **k))
    for seed in (8, 9):
        got = _both(_closed(net, seed), (1, 2), (5, 9))
        assert got.stats["index_customized"].startswith("partial"), got.stats
    assert reads == [] and len(index._RECENT) == 1
    _new_process()
    _both(_closed(net, 10), (1, 2), (5, 9))
    assert len(reads) == 1


def test_sparse_arrays_read_the_same_after_their_pages_are_dropped(tmp_path):
    arrays = {"a": np.arange(5000, dtype=np.int64), "b": np.arange(3, dtype=np.int32),
              "c": np.arange(70000, dtype=np.int32)}
    path = os.fspath(tmp_path / "x.bin")
    mapped_arrays.write(path, arrays, {})
    _, got = mapped_arrays.read(path, sparse=("a", "c", "absent"))
    for k, v in arrays.items():
        np.testing.assert_array_equal(got[k], v)
