"""The sampled method's CUDA modules compiled ahead on threads (issue 41) on a real GPU:
every thread ends, each module is then served from memory, and a placement through the
job (which starts them) gives the CPU's sites."""

from __future__ import annotations

import pytest

cp = pytest.importorskip("cupy")

pytestmark = pytest.mark.gpu


def test_sampling_modules_compile_ahead_then_serve():
    from gpu_core.betweenness.cuda import compile_sampling_ahead
    from gpu_core.device import kernels

    compile_sampling_ahead(indexed=True)
    for th in list(kernels._ahead.values()):
        th.join(300)
    assert kernels._ahead == {}
    names = {key[1].rsplit("/", 1)[-1] for key in kernels._functions}
    assert {"betweenness.cu", "sample_walk.cu", "phast.cu", "upward.cu"} <= names


def test_job_with_modules_ahead_equals_cpu():
    from app.jobs import billboards
    from maps.generate import generate

    net = generate("kanto", 3000, seed=5)
    kw = dict(method="sampled", epsilon=0.1, seed=2)
    gpu = billboards.run(net, billboards.BillboardsOptions(4, backend="cupy", **kw))
    cpu = billboards.run(net, billboards.BillboardsOptions(4, backend="cpu", **kw))
    assert gpu.billboards.sites.tolist() == cpu.billboards.sites.tolist()
    assert gpu.billboards.samples == cpu.billboards.samples


def test_warm_select_then_device_round_equals_host_round():
    """The greedy's kernels warmed on made-up samples (``progressive.warm_select``), then a
    round on the device gives the host's sites, bounds and gains."""
    import numpy as np

    from gpu_core.betweenness.progressive import _round, warm_select

    warm_select(cp)
    rng = np.random.default_rng(7)
    n, L = 500, 400
    es = np.repeat(np.arange(L, dtype=np.int64), 6)
    ev = rng.integers(0, n, es.shape[0]).astype(np.int32)
    elig, in_r = np.ones(n, bool), np.zeros(n, bool)
    in_r[3] = True
    a = b = np.ones(n)
    args = (L, n, 5, elig, in_r, a, b, float(n), float(n), [L // 2, L // 2], 2.0, 0.1)
    host = _round(np, es, ev, *args)
    dev = _round(cp, cp.asarray(es), cp.asarray(ev), *args)
    assert dev.sites.tolist() == host.sites.tolist()
    assert dev.epsilon_at_stop == host.epsilon_at_stop
    np.testing.assert_array_equal(dev.gains, host.gains)
