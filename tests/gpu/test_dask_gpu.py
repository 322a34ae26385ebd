"""``--dask local`` on a GPU machine: a LocalCUDACluster (dask-cuda) of one worker gives the
one-process GPU matrix and sampled billboards."""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")
pytest.importorskip("distributed")
pytest.importorskip("dask_cuda")
pytestmark = pytest.mark.gpu


def test_local_cuda_cluster_matrix_and_billboards_equal_one_process():
    from app.jobs import billboards, matrix
    from app.jobs.distributed import connect
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
    with connect("local:1", "cupy") as cl:
        assert cl.kind == "LocalCUDACluster" and cl.backend == "cupy"
        stats: dict = {}
        got = np.vstack([b for _, b in matrix.iter_rows(net, opts, client=cl.client,
                                                         stats=stats)])
        res = billboards.run(net, bo, client=cl.client).billboards
    assert stats["backend"] == "cupy"
    np.testing.assert_array_equal(got, want)
    assert list(res.sites) == list(ref.sites)
    np.testing.assert_array_equal(res.gains, ref.gains)
