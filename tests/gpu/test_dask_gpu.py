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


def test_local_cuda_cluster_matrix_and_billboards_equal_one_process(tmp_path):
    from app.jobs import billboards, matrix
    from app.jobs.distributed import connect
    from gpu_core.multi_source import open_npy_memmap
    from maps.generate import generate

    net = generate("kanto", 20000, seed=4)
    rng = np.random.default_rng(2)
    opts = matrix.MatrixOptions(tuple(rng.integers(0, net.num_nodes, 300).tolist()),
                                tuple(rng.integers(0, net.num_nodes, 200).tolist()),
                                "cupy", index="off")
    want = np.vstack([b for _, b in matrix.iter_rows(net, opts)])
    bo = billboards.BillboardsOptions(3, backend="cupy", method="sampled", epsilon=0.2,
                                      index="off")
    ref = billboards.run(net, bo).billboards
    fixed = billboards.BillboardsOptions(4, backend="cupy", method="sampled", epsilon=0.2,
                                         index="off", fixed=(5, 900), seed=3)
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
