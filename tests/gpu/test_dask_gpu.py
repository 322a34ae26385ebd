"""``--dask local`` on a GPU machine: a LocalCUDACluster (dask-cuda, one worker per GPU)
gives the one-process GPU matrix (rows shipped, or written into the .npy by the workers)
and sampled billboards (paths kept on the workers, or shipped)."""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")
pytest.importorskip("distributed")
pytest.importorskip("dask_cuda")
pytestmark = pytest.mark.gpu


def _one_process(nodes: int, seed: int, sources: int, targets: int, index: str):
    """A generated map; a matrix job of random ``sources`` x ``targets`` and sampled
    billboards (K = 3, eps = 0.2), each with one process's answer."""
    from app.jobs import billboards, matrix
    from maps.generate import generate

    net = generate("kanto", nodes, seed=seed)
    rng = np.random.default_rng(seed - 2)
    opts = matrix.MatrixOptions(tuple(rng.integers(0, net.num_nodes, sources).tolist()),
                                tuple(rng.integers(0, net.num_nodes, targets).tolist()),
                                "cupy", index=index)
    want = np.vstack([b for _, b in matrix.iter_rows(net, opts)])
    bo = billboards.BillboardsOptions(3, backend="cupy", method="sampled", epsilon=0.2,
                                      index=index, sampling="fixed")
    return net, opts, want, bo, billboards.run(net, bo).billboards


def test_local_cuda_cluster_matrix_and_billboards_equal_one_process(tmp_path):
    from app.jobs import billboards, matrix
    from app.jobs.distributed import connect
    from gpu_core.multi_source import open_npy_memmap

    net, opts, want, bo, ref = _one_process(20000, 4, 300, 200, "off")
    fixed = billboards.BillboardsOptions(4, backend="cupy", method="sampled", epsilon=0.2,
                                         index="off", fixed=(5, 900), seed=3,
                                         sampling="fixed")
    ref_fixed = billboards.run(net, fixed).billboards
    path = str(tmp_path / "m.npy")
    with connect("local", "cupy") as cl:
        assert cl.kind == "LocalCUDACluster" and cl.backend == "cupy"
        assert cl.workers == cp.cuda.runtime.getDeviceCount()
        stats: dict = {}
        got = np.vstack([b for _, b in matrix.iter_rows(net, opts, client=cl.client,
                                                         stats=stats)])
        narrow = int(np.asarray(net.weights, np.int64).sum()) <= np.iinfo(np.int32).max
        mm = open_npy_memmap(path, want.shape, np.int32 if narrow else np.int64)
        mm.flush()
        del mm
        wstats: dict = {}
        write = matrix.npy_by_workers(net, opts, cl.client, path, stats=wstats)
        assert write is not None
        assert write(None) == int((want < 0).sum())
        runs = [billboards.run(net, bo, client=cl.client, keep_paths=keep)
                for keep in (True, False)]
        kept_fixed = billboards.run(net, fixed, client=cl.client)
    assert stats["backend"] == "cupy" and wstats["dask_output"] == "rows written by workers"
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.load(path), want)
    for done in runs + [kept_fixed]:
        r = ref if done is not kept_fixed else ref_fixed
        assert list(done.billboards.sites) == list(r.sites), done.dask["paths"]
        np.testing.assert_array_equal(done.billboards.gains, r.gains)
    assert runs[0].dask["paths"] == "paths kept on workers"


def test_local_cuda_cluster_through_the_route_index_cuts_blocks_in_whole_sweeps(
        tmp_path, monkeypatch):
    """With the route index the workers sweep (GPHAST), a block is whole sweeps of the
    narrowest worker's width (``dask_worker.sweep_width``), and the matrix and the
    sampled billboards equal one process's."""
    from app.jobs import billboards, matrix
    from app.jobs.dask_worker import MapRef, sweep_width, worker_map
    from app.jobs.distributed import connect
    from app.jobs.index import hierarchy_for
    from gpu_core.hierarchy import graph_key
    from gpu_core.hierarchy.cuda import batch_width

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path))  # the workers read it too
    net, opts, want, bo, ref = _one_process(30000, 6, 2500, 150, "on")
    with connect("local", "cupy") as cl:
        stats: dict = {}
        got = np.vstack([b for _, b in matrix.iter_rows(net, opts, client=cl.client,
                                                         stats=stats)])
        done = billboards.run(net, bo, client=cl.client, keep_paths=True)
        widths = [int(w) for w in cl.client.run(
            sweep_width, MapRef(graph_key(net), None, None, "cupy"), 150).values()]
    np.testing.assert_array_equal(got, want)
    assert list(done.billboards.sites) == list(ref.sites)
    np.testing.assert_array_equal(done.billboards.gains, ref.gains)
    assert all(w > 0 and w % 32 == 0 for w in widths)
    assert stats["dask_block_rows"] % min(widths) == 0
    # the width a worker reports is the sweep's for the memory free where it runs
    h, _ = hierarchy_for(net, policy="on", backend="cupy")
    here = MapRef(graph_key(net), None, None, "cupy")
    worker_map(here, net, h)
    assert sweep_width(here, 150) == batch_width(h.n, 150, 1 << 30)
