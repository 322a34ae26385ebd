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
