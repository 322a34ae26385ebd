"""``--dask``: matrices and sampled billboards on a Dask cluster give the bytes (sites, gains)
of one process, also when a worker dies mid-run; an unreachable scheduler, Ctrl-C and a
missing Dask each end cleanly with no output file.
(Over 500 lines: one local cluster per module, started once for every case.)

One LocalCluster of 2 worker processes serves the module (tests pass its address, as a
user passes ``tcp://HOST:PORT``); one test starts its own through ``--dask local:2``.
"""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import sys
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from app.cli import main  # noqa: E402

N, F, T = 3000, 37, 23  # map nodes, origins, destinations


@pytest.fixture(scope="module")
def cluster():
    from app.jobs.distributed import local_cluster_config

    with local_cluster_config():  # as connect() starts them: a kill loses no broadcast data
        lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0")
    client = distributed.Client(lc)
    client.wait_for_workers(2)
    yield lc, client
    client.close()
    lc.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask")
    assert main(["-q", "generate", "kanto", "-n", str(N), "--seed", "5",
                 "--out", str(d / "k.gr")]) == 0
    rng = np.random.default_rng(7)
    for name, count in (("a.csv", F), ("b.csv", T)):
        ids = rng.integers(1, N + 1, count)
        (d / name).write_text("node\n" + "".join(f"{i}\n" for i in ids))
    return d


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def matrix(files, out, *extra):
    return main(["-q", "matrix", str(files / "k.gr"), "--from", str(files / "a.csv"), "--to",
                 str(files / "b.csv"), "--out", str(out), "--backend", "cpu", *extra])


@pytest.mark.parametrize("cache", [True, False], ids=["file-by-path", "shipped"])
def test_matrix_same_bytes_on_two_workers(files, cluster, tmp_path, capsys, cache):
    addr = cluster[0].scheduler_address
    opt = [] if cache else ["--no-cache"]
    for ext, how in (("csv", "rows shipped to the client"), ("npy", "rows written by workers")):
        assert matrix(files, tmp_path / f"one.{ext}", *opt) == 0
        assert matrix(files, tmp_path / f"two.{ext}", *opt, "--dask", addr, "--chunk", "5") == 0
        assert (tmp_path / f"one.{ext}").read_bytes() == (tmp_path / f"two.{ext}").read_bytes()
        out = capsys.readouterr().out
        assert "2 Dask workers" in out and how in out
        assert ("read from its file" if cache else "shipped once") in out
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == [
        "one.csv", "one.npy", "two.csv", "two.npy"]  # no temporary left


def test_matrix_npy_rows_shipped_where_workers_do_not_see_it(files, cluster, tmp_path,
                                                             capsys, monkeypatch):
    """Workers that cannot see the output's folder (another host): the rows come to the
    client and are written there, the same bytes."""
    from app.jobs import distributed as dist

    seen = []

    def nowhere(client, path):
        seen.append(path)
        return False

    monkeypatch.setattr(dist, "workers_see", nowhere)
    addr = cluster[0].scheduler_address
    assert matrix(files, tmp_path / "one.npy") == 0
    assert matrix(files, tmp_path / "two.npy", "--dask", addr, "--chunk", "4") == 0
    assert (tmp_path / "one.npy").read_bytes() == (tmp_path / "two.npy").read_bytes()
    assert seen and "rows shipped to the client" in capsys.readouterr().out


def test_matrix_npy_written_by_workers_one_killed(files, cluster, tmp_path):
    """The workers write the .npy in place; SIGKILL one once the first block is written:
    its blocks are written again elsewhere, the file is one process's byte for byte."""
    from app.jobs import matrix as mjob
    from gpu_core.multi_source import open_npy_memmap
    from maps.load import load_map

    client = cluster[1]
    _await_two_workers(client)
    net = load_map(str(files / "k.gr"))
    rng = np.random.default_rng(3)
    opts = mjob.MatrixOptions(tuple(rng.integers(0, N, 60).tolist()),
                              tuple(rng.integers(0, N, 40).tolist()), "cpu", chunk=1,
                              index="off")
    want = np.vstack([b for _, b in mjob.iter_rows(net, opts)]).astype(np.int32)
    path = str(tmp_path / "m.npy")
    mm = open_npy_memmap(path, (60, 40), np.int32)
    mm.flush()
    del mm
    stats: dict = {}
    write = mjob.npy_by_workers(net, opts, client, path, stats=stats)
    assert write is not None
    pids = client.run(os.getpid)
    killed: list = []

    def on_block(done, count):
        if not killed:
            killed.append(next(iter(pids.values())))
            os.kill(killed[0], signal.SIGKILL)

    assert write(on_block) == int((want < 0).sum())
    np.testing.assert_array_equal(np.load(path), want)
    np.save(tmp_path / "one.npy", want)
    assert (tmp_path / "one.npy").read_bytes() == open(path, "rb").read()
    assert stats["dask_output"] == "rows written by workers" and stats["dask_blocks"] == 60
    # the per-worker breakdown: a surviving worker computed, wrote and flushed rows
    kinds = [set(b) for b in stats["dask_busy"].values()]
    assert any({"rows", "write", "sync", "tasks"} <= k for k in kinds), stats["dask_busy"]
    # with the searches' own numbers apart from the seconds (here: no index, scipy)
    counts = [b["counts"] for b in stats["dask_busy"].values() if "counts" in b]
    assert counts and all(c.get("variant") == "scipy" for c in counts), stats["dask_busy"]
    _await_two_workers(client, killed[0])


def test_ctrl_c_npy_written_by_workers_leaves_no_file(files, cluster, tmp_path, monkeypatch):
    from app.jobs import distributed as dist

    real = dist.ordered_results

    def interrupted(*a, **kw):
        it = real(*a, **kw)
        yield next(it)
        it.throw(KeyboardInterrupt)  # what Ctrl-C does there: cancel, re-raise

    monkeypatch.setattr(dist, "ordered_results", interrupted)
    out = tmp_path / "m.npy"
    assert matrix(files, out, "--dask", cluster[0].scheduler_address, "--chunk", "3") == 130
    assert not any(p.name.startswith("m.npy") for p in tmp_path.iterdir())


def test_matrix_with_closures_on_two_workers(files, cluster, tmp_path, capsys):
    """An edited map is not its cache file: the workers get the edited arrays."""
    addr = cluster[0].scheduler_address
    close = ["--close", "arc:1,2", "--close", "nodes:2,3"]
    assert matrix(files, tmp_path / "one.csv", *close) == 0
    assert matrix(files, tmp_path / "two.csv", *close, "--dask", addr, "--chunk", "9") == 0
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    assert "shipped once" in capsys.readouterr().out


def test_matrix_local_cluster_of_two(files, tmp_path, capsys):
    assert matrix(files, tmp_path / "one.npy") == 0
    assert matrix(files, tmp_path / "two.npy", "--dask", "local:2") == 0
    assert "2 Dask workers (LocalCluster" in capsys.readouterr().out
    np.testing.assert_array_equal(np.load(tmp_path / "one.npy"), np.load(tmp_path / "two.npy"))


def test_sampled_billboards_same_sites_and_gains(files, cluster, capsys):
    base = ["-q", "billboards", str(files / "k.gr"), "-k", "4", "--method", "sampled",
            "--epsilon", "0.3", "--seed", "11", "--backend", "cpu", "--json",
            "--sampling", "fixed"]  # the workers draw the fixed plan (issue 43)
    got = []
    for extra in ([], ["--dask", cluster[0].scheduler_address]):
        assert main(base + extra) == 0
        got.append(json.loads(capsys.readouterr().out))
    one, two = got
    assert two["dask"]["workers"] == 2 and two["dask"]["blocks"] >= 2
    assert two["dask"]["paths"] == "paths kept on workers"
    assert len(two["dask"]["rounds_s"]) == 4
    busy = two["dask"]["busy"]  # where each worker's time went: drawing, then the rounds
    assert len(busy) == 2 and all({"draw", "rounds", "tasks"} <= set(b) for b in busy.values())
    assert all(b["tasks"] >= b["draw"] for b in busy.values())
    assert one["sites"] == two["sites"]
    for key in ("gains", "group_betweenness", "coverage", "pairs"):
        assert one[key] == two[key], key


def test_progressive_billboards_on_dask_same_rounds_sites_and_bounds(files, cluster, capsys):
    """The default progressive plan with ``--dask`` (the fixed plan only, before): each
    round's blocks on the workers, the greedy here: the samples, bound at stop, sites and
    gains of one process."""
    base = ["-q", "billboards", str(files / "k.gr"), "-k", "4", "--method", "sampled",
            "--epsilon", "0.1", "--seed", "11", "--backend", "cpu", "--json"]
    got = []
    for extra in ([], ["--dask", cluster[0].scheduler_address]):
        assert main(base + extra) == 0
        got.append(json.loads(capsys.readouterr().out))
    one, two = got
    assert one["sampling"] == two["sampling"] == "progressive"
    assert two["dask"]["paths"] == "progressive rounds, paths shipped to the client"
    assert two["dask"]["workers"] == 2 and two["dask"]["blocks"] >= 4  # rounds x workers
    assert one["samples"] < one["sample_bound"]  # it stopped before the fixed bound
    for key in ("sites", "gains", "group_betweenness", "coverage", "pairs", "samples",
                "epsilon_at_stop", "stopped_by"):
        assert one[key] == two[key], key


def test_progressive_rounds_any_block_size_with_preview(cluster):
    """Rounds drawn in blocks of 7 sample numbers on the workers (finishing in any
    order), a preview block first: the partial results and the final result of one
    process."""
    from app.jobs.dask_draws import RoundsDraw
    from gpu_core.betweenness import BillboardResult
    from gpu_core.betweenness import billboards as gen
    from maps.generate import generate

    net = generate("kanto", 800, seed=2)
    kw = dict(mode="weighted", backend="cpu", method="sampled", epsilon=0.08, seed=3,
              sampling="progressive", preview=64)

    def run(**more):
        evs = list(gen(net, 3, **kw, **more))
        partial = [ev.partial for ev in evs if getattr(ev, "partial", None) is not None]
        return partial, evs[-1]

    ref_partial, ref = run()
    draw = RoundsDraw(cluster[1], net, backend="cpu", mode="weighted", block=7)
    partial, res = run(draw=draw)
    assert isinstance(res, BillboardResult) and res.sampling == "progressive"
    assert len(ref_partial) >= 2 and draw.blocks > 2 * len(ref_partial)
    assert [p.stopped_by for p in partial] == [p.stopped_by for p in ref_partial]
    for got, want in zip([*partial, res], [*ref_partial, ref], strict=True):
        assert got.samples == want.samples
        assert list(got.sites) == list(want.sites)
        np.testing.assert_array_equal(got.gains, want.gains)
        assert got.epsilon_at_stop == want.epsilon_at_stop


@pytest.mark.parametrize("kind", ["KeptDraw", "SampledDraw"])
def test_sampled_draw_any_block_size_and_order(cluster, kind):
    """Blocks of 7 sample numbers (finishing in any order) give the one-process result,
    the paths kept on the workers or shipped here."""
    from app.jobs import billboards, dask_draws
    from gpu_core.betweenness import billboards as gen
    from gpu_core.betweenness import place_billboards
    from maps.generate import generate

    net = generate("kanto", 800, seed=2)
    client = cluster[1]
    ref = place_billboards(net, 3, mode="weighted", backend="cpu", method="sampled",
                           epsilon=0.4, seed=3)
    draw = getattr(dask_draws, kind)(client, net, backend="cpu", mode="weighted", block=7)
    *_, res = gen(net, 3, mode="weighted", backend="cpu", method="sampled", epsilon=0.4,
                  seed=3, draw=draw)
    assert draw.blocks > 2
    assert list(res.sites) == list(ref.sites)
    np.testing.assert_array_equal(res.gains, ref.gains)
    assert billboards.DEFAULT_MODE == "weighted"
    if kind == "KeptDraw":
        assert len(draw.round_s) == 3 and draw.redrawn == 0
        draw.close()


def _await_two_workers(client, dead=None, timeout: float = 60) -> None:
    """Until the cluster has two live workers again, none of them ``dead`` (the scheduler
    may still list a killed one for a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pids = client.run(os.getpid)
        except (OSError, TimeoutError):
            pids = {}
        if len(pids) == 2 and dead not in pids.values():
            return
        assert time.monotonic() < deadline, pids
        time.sleep(0.2)


def _kept_run(client, net, k, kw, kill_after=None):
    """The sampled greedy with the paths kept on the workers; each round's summed counts
    recorded; ``kill_after``: SIGKILL the worker holding block 0 after that many rounds
    ("draw": once block 0 is drawn, while the others are)."""
    from app.jobs.dask_draws import KeptDraw
    from gpu_core.betweenness import billboards as gen

    draw = KeptDraw(client, net, backend="cpu", mode="weighted", block=5)
    seen, real, real_draw = [], draw.counts, draw.draw_kept

    def kill_owner_of_block_0():
        pid = client.run(os.getpid, workers=[draw.owner[0]])[draw.owner[0]]
        os.kill(pid, signal.SIGKILL)
        draw.killed = pid

    def counts(chosen):
        if kill_after is not None and len(chosen) == kill_after:
            kill_owner_of_block_0()
        seen.append(real(chosen))
        return seen[-1]

    def draw_kept(plan, in_r):
        for i, item in enumerate(real_draw(plan, in_r)):
            if kill_after == "draw" and i == 0:
                kill_owner_of_block_0()
            yield item

    draw.counts, draw.draw_kept = counts, draw_kept
    try:
        *_, res = gen(net, k, mode="weighted", backend="cpu", method="sampled", epsilon=0.5,
                      seed=4, draw=draw, **kw)
    finally:
        draw.close()
    return res, seen, draw


def test_kept_paths_many_rounds_with_ties_fixed_and_candidates(cluster):
    """K rounds well past the point where gains tie (equal maxima, then all zero): each
    round's pick and gain equal one process's, with fixed sites and a candidate mask."""
    from gpu_core.betweenness import place_billboards
    from maps.generate import generate

    net = generate("kanto", 150, seed=3)
    cand = np.ones(net.num_nodes, dtype=bool)
    cand[::3] = False
    kw = {"fixed": [7, 40], "candidates": cand}
    k = 30
    ref = place_billboards(net, k, mode="weighted", backend="cpu", method="sampled",
                           epsilon=0.5, seed=4, **kw)
    res, seen, draw = _kept_run(cluster[1], net, k, kw)
    assert len(seen) == k and draw.blocks > 2
    assert list(res.sites) == list(ref.sites)
    for key in ("gains", "group_betweenness", "coverage", "pairs"):
        np.testing.assert_array_equal(getattr(res, key), getattr(ref, key), err_msg=key)
    assert res.base_group_betweenness == ref.base_group_betweenness
    elig = cand.copy()
    elig[kw["fixed"]] = False
    ties = 0
    for site, cnt in zip(res.sites, seen, strict=True):
        top = cnt[elig].max()
        ties += int((cnt[elig] == top).sum() > 1)
        assert site == np.flatnonzero(elig & (cnt == top))[0]  # smallest index of the best
        elig[site] = False
    assert ties >= 2  # the tie rule was exercised


@pytest.mark.parametrize("when", [2, "draw"], ids=["after-two-rounds", "while-drawing"])
def test_kept_paths_worker_killed(cluster, when):
    """SIGKILL the worker keeping block 0 after two greedy rounds, or while the blocks are
    being drawn: its blocks are drawn again where the next task lands, replay the chosen
    sites, and the result is one process's."""
    from gpu_core.betweenness import place_billboards
    from maps.generate import generate

    client = cluster[1]
    _await_two_workers(client)
    net = generate("kanto", 400, seed=6)
    ref = place_billboards(net, 5, mode="weighted", backend="cpu", method="sampled",
                           epsilon=0.5, seed=4, fixed=[3])
    res, seen, draw = _kept_run(client, net, 5, {"fixed": [3]}, kill_after=when)
    # the lost worker's blocks went to another worker (or its restart), drawn again there;
    # while drawing, Dask may already have re-run some draw tasks elsewhere
    assert draw.moved + draw.redrawn > 0
    assert draw.redrawn > 0 or when == "draw"
    assert list(res.sites) == list(ref.sites)
    np.testing.assert_array_equal(res.gains, ref.gains)
    _await_two_workers(client, draw.killed)


def test_worker_killed_mid_run_same_bytes(files, cluster):
    """SIGKILL one worker process once the first block is in: its blocks run elsewhere
    (the nanny restarts it) and the rows are those of one process."""
    from app.jobs import matrix as mjob
    from maps.load import load_map

    client = cluster[1]
    _await_two_workers(client)
    net = load_map(str(files / "k.gr"))
    rng = np.random.default_rng(1)
    opts = mjob.MatrixOptions(tuple(rng.integers(0, N, 60).tolist()),
                              tuple(rng.integers(0, N, 40).tolist()), "cpu", chunk=1,
                              index="off")
    want = np.vstack([b for _, b in mjob.iter_rows(net, opts)])
    pids = client.run(os.getpid)
    stats: dict = {}
    rows, killed = [], None
    for r0, block in mjob.iter_rows(net, opts, client=client, stats=stats):
        if killed is None:
            killed = next(iter(pids.values()))
            os.kill(killed, signal.SIGKILL)
        rows.append((r0, block))
    assert [r0 for r0, _ in rows] == list(range(60))
    np.testing.assert_array_equal(np.vstack([b for _, b in rows]), want)
    _await_two_workers(client, killed)  # it did die mid-run
    assert stats["dask_blocks"] == 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_one_line_exit_2_no_file(files, tmp_path, capsys, monkeypatch):
    from app.jobs import distributed as dist

    monkeypatch.setattr(dist, "CONNECT_TIMEOUT_S", 3.0)
    addr = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    assert matrix(files, tmp_path / "m.csv", "--dask", addr) == 2
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and addr in err[0] and "cannot reach" in err[0]
    assert os.listdir(tmp_path) == ["cache"] or not (tmp_path / "m.csv").exists()
    assert not any(p.name.startswith("m.csv") for p in tmp_path.iterdir())


def test_ctrl_c_leaves_no_file(files, cluster, tmp_path, monkeypatch):
    from app.cli import matrix_out

    calls = {"n": 0}
    real = matrix_out.CsvRows.lines

    def interrupt(self, r0, block):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, r0, block)

    monkeypatch.setattr(matrix_out.CsvRows, "lines", interrupt)
    out = tmp_path / "m.csv"
    assert matrix(files, out, "--dask", cluster[0].scheduler_address, "--chunk", "3") == 130
    assert not any(p.name.startswith("m.csv") for p in tmp_path.iterdir())


def test_interrupt_cancels_outstanding_blocks(cluster):
    from app.jobs.distributed import ordered_results

    client = cluster[1]
    futures = []

    def submit(i, key):
        fut = client.submit(time.sleep, 0.5 if i else 0, key=key)
        futures.append(fut)
        return fut

    it = ordered_results(client, submit, 6, window=6)
    assert next(it)[0] == 0
    with pytest.raises(KeyboardInterrupt):
        it.throw(KeyboardInterrupt)
    outstanding = [f for f in futures[1:]]
    deadline = time.monotonic() + 10
    while any(f.status not in ("cancelled", "finished") for f in outstanding):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert any(f.status == "cancelled" for f in outstanding)


def test_without_dask_says_how_to_install(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    assert matrix(files, tmp_path / "m.csv", "--dask", "local") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'signpost[dask]'" in err[0]
    assert not (tmp_path / "m.csv").exists()


@pytest.mark.parametrize("spec", ["lokal", "local:0", "local:x", "host"])
def test_bad_spec_one_line(files, tmp_path, capsys, spec):
    assert matrix(files, tmp_path / "m.csv", "--dask", spec) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and repr(spec) in err[0]


def test_billboards_dask_needs_sampled(files, capsys):
    assert main(["-q", "billboards", str(files / "k.gr"), "-k", "2", "--dask", "local"]) == 2
    assert "--method sampled" in capsys.readouterr().err


def test_parse_spec():
    from app.jobs.distributed import parse_spec

    assert parse_spec("local") == ("local", None)
    assert parse_spec("local:3") == ("local", 3)
    assert parse_spec("10.0.0.5:8786") == ("tcp://10.0.0.5:8786", None)
    assert parse_spec("tcp://h:1") == ("tcp://h:1", None)


def test_matrix_parquet_same_bytes_on_two_workers(files, cluster, tmp_path, monkeypatch):
    """Issue 24: Parquet with --dask is one process's file byte for byte (row groups of
    whole origins, whatever the blocks); small groups here so that there are several."""
    pytest.importorskip("pyarrow")
    from app.cli import matrix_out

    monkeypatch.setattr(matrix_out, "ROWS_PER_GROUP", 5 * T)  # 5 origins a group
    addr = cluster[0].scheduler_address
    assert matrix(files, tmp_path / "one.parquet", "--chunk", "7") == 0
    assert matrix(files, tmp_path / "two.parquet", "--dask", addr, "--chunk", "3") == 0
    one, two = (tmp_path / "one.parquet").read_bytes(), (tmp_path / "two.parquet").read_bytes()
    assert one == two
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(tmp_path / "one.parquet").metadata
    assert meta.num_row_groups == -(-F // 5) and meta.num_rows == F * T


@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_npy_data_offset_finds_the_rows(tmp_path, version):
    """The workers' pwrite lands where numpy reads the rows, whatever the header version."""
    from app.jobs.npy_rows import npy_data_offset, pwrite_all

    path = tmp_path / "m.npy"
    with open(path, "wb") as fh:
        np.lib.format.write_array(fh, np.zeros((3, 4), np.int32), version=version)
    fd = os.open(path, os.O_WRONLY)
    try:
        row = np.arange(4, dtype=np.int32) + 7
        pwrite_all(fd, memoryview(row).cast("B"), npy_data_offset(str(path)) + 2 * 16)
    finally:
        os.close(fd)
    got = np.load(path)
    np.testing.assert_array_equal(got[2], row)
    assert not got[:2].any()


@pytest.mark.parametrize("total,width,workers", [(230191, 1024, 1), (230191, 1024, 2),
                                                 (230191, 1024, 4), (30000, 1024, 4),
                                                 (788, 1, 2), (1, 1, 4), (5, 1, 8)])
def test_split_rows_busiest_worker_least(total, width, workers):
    """Blocks are whole batches, and no split of up to 8 blocks a worker leaves the busiest
    worker 1% fewer batches (brute force over every block size)."""
    from app.jobs.distributed import split_rows

    rows = split_rows(total, width, workers)
    assert rows % width == 0
    units = -(-total // width)

    def blocks(per: int) -> int:
        return math.ceil(units / per)

    def busiest(per: int) -> int:
        return math.ceil(blocks(per) / workers) * per

    every = [busiest(per) for per in range(1, units + 1) if blocks(per) <= 8 * workers]
    assert busiest(rows // width) <= min(every) * 1.01


def _worker_settings() -> tuple:
    import dask

    return (os.environ.get("MALLOC_TRIM_THRESHOLD_"),
            dask.config.get("distributed.worker.profile.enabled"))


def test_local_cluster_workers_share_the_cores_without_profiler():
    """``--dask local:2``: each worker's numba pool gets half the cores (not all of them,
    twice over), no statistical profiler, and glibc's adaptive mmap threshold."""
    from app.jobs.dask_address import _cores
    from app.jobs.dask_worker import share_cores
    from app.jobs.distributed import connect, ship_map
    from maps.generate import generate

    with connect("local:2", "cpu") as cl:
        got = set(cl.client.run(_worker_settings).values())
        ship = ship_map(cl.client, generate("grid", 100, seed=1), "cpu")
        threads = cl.client.gather([cl.client.submit(share_cores, ship.ref, pure=False,
                                                     workers=[w]) for w in ship.workers])
    assert got == {(None, False)}
    assert threads == [max(1, _cores() // 2)] * 2


class _Runs:
    """A client whose ``run`` answers each worker's value (or raises ``fails``)."""

    def __init__(self, answers: dict, fails: Exception | None = None):
        self.answers, self.fails = answers, fails

    def run(self, fn, *args):
        if self.fails is not None:
            raise self.fails
        return dict(self.answers)


@pytest.mark.parametrize("answers,fails,want", [
    ({"a": 256, "b": 224}, None, 224),  # the narrowest worker's sweep
    ({"a": 0, "b": 192}, None, 192),  # a worker without an index on a GPU says 0
    ({"a": 0}, None, 1024),  # none can say: a sweep's most
    ({}, OSError("worker lost"), 1024),
])
def test_sweep_unit_is_the_narrowest_workers_sweep(answers, fails, want):
    from app.jobs.dask_worker import MapRef
    from app.jobs.distributed import GPU_MIN_BLOCK_INDEX, Shipment, split_rows, sweep_unit

    ship = Shipment(MapRef("k", None, None, "cupy"), None, None)
    unit = sweep_unit(_Runs(answers, fails), ship, 10000)
    assert unit == want and (want != 1024 or unit == GPU_MIN_BLOCK_INDEX)
    # 10,000 rows on two 224-wide workers: 23 sweeps the busiest, not 5 blocks of 1,024 (25)
    if unit == 224:
        assert split_rows(10000, unit, 2) // unit == 23


def test_sweep_width_without_an_index_or_a_gpu_is_zero():
    from app.jobs.dask_worker import MapRef, sweep_width, worker_map
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import graph_key

    g = CSRGraph.from_any(CSRGraph(np.array([0, 1, 1]), np.array([1]), np.array([3])))
    ref = MapRef(graph_key(g), None, None, "cpu")
    worker_map(ref, g, None)
    assert sweep_width(ref, 5) == 0
    assert sweep_width(MapRef("not loaded", None, None, "cupy"), 5) == 0


def test_ship_map_gives_the_clients_device_copies_back(cluster, monkeypatch):
    """The client frees its route index's GPU copies, and those of the topologies it
    keeps, before the workers load theirs: a local cluster's first worker shares the
    client's GPU, and its sweep width is what that GPU has free (``hierarchy.device_copies``)."""
    import gpu_core.hierarchy.api as hapi
    from app.jobs import index
    from app.jobs.distributed import ship_map
    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import build_hierarchy
    from maps.generate import generate

    released: list[tuple] = []
    monkeypatch.setattr(hapi, "release_device", lambda *held: released.append(held))
    kept = object()  # a topology the index module keeps
    monkeypatch.setattr(index, "_RECENT", {("topo", 1, 2): kept})
    g = CSRGraph.from_any(generate("grid", 400, seed=2))
    h = build_hierarchy(g)
    ship = ship_map(cluster[1], g, "cpu", h)
    assert released == [(h, kept)] and len(ship.workers) == 2
    ship_map(cluster[1], g, "cpu")
    assert released[1] == (kept,)  # no index shipped: the kept topologies still
