"""Negative arc weights on the CUDA backend (biased unsigned keys, the phase-n bound):
every label-correcting strategy equals the reference and the CPU backend bit for bit,
phases included; negative cycles raise the same NegativeCycleError as on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.errors import NegativeCycleError, NegativeWeightsError
from gpu_core.graph import CSRGraph
from gpu_core.reference import reference_sssp
from gpu_core.sssp import SSSPOptions, sssp
from gpu_core.sssp.registry import NEGATIVE_STRATEGIES, REGISTRY

cupy = pytest.importorskip("cupy")

pytestmark = pytest.mark.gpu

VARIANTS = [(s, SSSPOptions()) for s in NEGATIVE_STRATEGIES] + [
    ("adaptive", SSSPOptions(adaptive_signal="time")),
    ("adaptive", SSSPOptions(frontier_fraction=0.0, adaptive_launch_phases=3)),
    ("adaptive", SSSPOptions(adaptive_fused=True)),
]


def _potential_graph(seed: int, n: int, m: int) -> CSRGraph:
    r = np.random.default_rng(seed)
    t, h = r.integers(0, n, m), r.integers(0, n, m)
    p = r.integers(-500, 501, n)
    return CSRGraph.from_edges(n, t, h, r.integers(0, 100, m) + p[t] - p[h])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("strategy", "opts"), VARIANTS)
def test_matches_reference_and_cpu(seed, strategy, opts) -> None:
    n = [1, 7, 60, 400, 2000, 5000][seed]
    g = _potential_graph(seed, n, 4 * n)
    src = [0] if seed % 2 else [0, n // 2, n - 1]
    key, dist, pred = reference_sssp(g, src)
    gpu = sssp(g, src, strategy=strategy, backend="cupy", options=opts)
    cpu = sssp(g, src, strategy=strategy, backend="cpu", options=opts)
    np.testing.assert_array_equal(gpu.key, key)
    np.testing.assert_array_equal(gpu.dist, dist)
    np.testing.assert_array_equal(gpu.pred, pred)
    if opts.adaptive_signal != "time":
        np.testing.assert_array_equal(gpu.phases.rows["frontier"], cpu.phases.rows["frontier"])
        np.testing.assert_array_equal(gpu.phases.rows["edges"], cpu.phases.rows["edges"])
    with_target = sssp(g, src, strategy=strategy, backend="cupy", options=opts, target=n - 1)
    np.testing.assert_array_equal(with_target.dist, dist)


@pytest.mark.parametrize(("strategy", "opts"), VARIANTS)
def test_negative_cycle_same_arc_as_cpu(strategy, opts) -> None:
    r = np.random.default_rng(3)
    n = 300
    t, h = r.integers(0, n, 4 * n), r.integers(0, n, 4 * n)
    g = CSRGraph.from_edges(n, t, h, r.integers(-20, 200, 4 * n))
    with pytest.raises(NegativeCycleError) as cpu:
        sssp(g, 0, strategy=strategy, backend="cpu", options=opts)
    with pytest.raises(NegativeCycleError) as gpu:
        sssp(g, 0, strategy=strategy, backend="cupy", options=opts)
    assert gpu.value.arc == cpu.value.arc and gpu.value.cycle == cpu.value.cycle


@pytest.mark.parametrize("strategy", [s.name for s in REGISTRY if not s.negative_weights])
def test_dijkstra_like_refuse_on_the_gpu(strategy) -> None:
    g = CSRGraph.from_edges(2, [0], [1], [-1])
    with pytest.raises(NegativeWeightsError):
        sssp(g, 0, strategy=strategy, backend="cupy")
