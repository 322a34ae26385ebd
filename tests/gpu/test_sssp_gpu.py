"""CUDA backend of the SSSP engine: every strategy against the reference and the CPU backend.

dist and pred must equal ``gpu_core.reference.reference_sssp`` and the CPU backend bit for
bit; the per-phase frontier/edges telemetry must equal the CPU backend's for every strategy
but ``auto``. Skipped without CuPy or a CUDA device (tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpu_core.errors import CancelledError, GpuOutOfMemoryError
from gpu_core.graph import CSRGraph
from gpu_core.reference import reference_sssp
from gpu_core.sssp import REGISTRY, STRATEGIES, AutoTuning, SSSPOptions, sssp
from tests.core.families import FAMILIES, road_grid

cupy = pytest.importorskip("cupy")

pytestmark = pytest.mark.gpu

ALL = STRATEGIES
# strategies whose phases are the algorithm's own: frontier/arcs equal on both backends
SAME_PHASES = {s.name for s in REGISTRY if s.phases}
REPO = Path(__file__).resolve().parents[2]

# adaptive variants: seed 001's time signal, our frontier signal set to switch often, and
# a time signal that switches on every phase (both thresholds pushed to the extremes)
ADAPTIVE_OPTS = {
    "time": SSSPOptions(adaptive_signal="time"),
    "frontier": SSSPOptions(adaptive_signal="frontier", frontier_fraction=0.05),
    "time_full": SSSPOptions(adaptive_signal="time", switch_up_us=0.0, switch_down_us=-1.0),
}


def _check_vs_reference(g, src, res) -> None:
    _, dist, pred = reference_sssp(g, src)
    np.testing.assert_array_equal(res.dist, dist)
    np.testing.assert_array_equal(res.pred, pred)


def _same(a, b, *, telemetry: bool, modes: bool = False) -> None:
    np.testing.assert_array_equal(a.dist, b.dist)
    np.testing.assert_array_equal(a.pred, b.pred)
    np.testing.assert_array_equal(a.hops, b.hops)
    if telemetry:
        np.testing.assert_array_equal(a.phases.rows["frontier"], b.phases.rows["frontier"])
        np.testing.assert_array_equal(a.phases.rows["edges"], b.phases.rows["edges"])
    if modes:
        np.testing.assert_array_equal(a.phases.rows["mode"], b.phases.rows["mode"])


@pytest.mark.parametrize("strategy", ALL)
@pytest.mark.parametrize("name,make", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_families_match_reference_and_cpu(name, make, strategy):
    g = make(seed=3)
    gpu = sssp(g, 0, strategy=strategy, backend="cupy")
    assert gpu.backend == "cupy"
    _check_vs_reference(g, 0, gpu)
    cpu = sssp(g, 0, strategy=strategy, backend="cpu")
    # adaptive's default time signal reads each backend's own clock: modes may differ
    _same(gpu, cpu, telemetry=strategy in SAME_PHASES,
          modes=strategy in SAME_PHASES and strategy != "adaptive")
    if strategy in SAME_PHASES:
        assert gpu.phases.total_edges == cpu.phases.total_edges
    assert len(gpu.phases) >= 1 or g.num_arcs == 0


@pytest.mark.parametrize("variant", sorted(ADAPTIVE_OPTS))
@pytest.mark.parametrize("name,make", FAMILIES[:6], ids=[f[0] for f in FAMILIES[:6]])
def test_adaptive_signals(name, make, variant):
    g = make(seed=5)
    opts = ADAPTIVE_OPTS[variant]
    gpu = sssp(g, 0, strategy="adaptive", backend="cupy", options=opts)
    _check_vs_reference(g, 0, gpu)
    cpu = sssp(g, 0, strategy="adaptive", backend="cpu", options=opts)
    # the time signal reads each backend's own clock: modes may differ, values may not
    _same(gpu, cpu, telemetry=True, modes=variant != "time")


def test_adaptive_really_switches():
    g = road_grid(60, 60, seed=2)
    opts = ADAPTIVE_OPTS["frontier"]
    res = sssp(g, 0, strategy="adaptive", backend="cupy", options=opts)
    names = set(res.phases.mode_names())
    assert {"selection", "conventional", "switch"} <= names, names
    _check_vs_reference(g, 0, res)


@pytest.mark.parametrize("fused", (False, True), ids=("two_barriers", "fused"))
@pytest.mark.parametrize("per_launch", (1, 3, 1024))
@pytest.mark.parametrize("fraction", (0.0, 0.02, 0.05, 1.0))
def test_adaptive_on_device_launch_split(per_launch, fraction, fused):
    # adaptive (frontier) runs on the device in launches of adaptive_launch_phases phases;
    # the mode and lists carried from one launch to the next must not change anything
    # (both kernels: adaptive_device, and adaptive_fused with double-buffered keys)
    g = road_grid(45, 45, seed=12)
    opts = SSSPOptions(adaptive_signal="frontier", frontier_fraction=fraction,
                       adaptive_launch_phases=per_launch, adaptive_fused=fused)
    for src in (0, [3, 1500, 2000]):
        gpu = sssp(g, src, strategy="adaptive", backend="cupy", options=opts)
        _check_vs_reference(g, src, gpu)
        cpu = sssp(g, src, strategy="adaptive", backend="cpu", options=opts)
        _same(gpu, cpu, telemetry=True, modes=True)


def test_auto_workspace_reuse():
    # auto keeps its device arrays with the graph: back-to-back searches from different
    # sources (and a target search in between) must each be exact
    g = road_grid(70, 70, seed=13)
    for src in (0, 4899, [7, 2500], 1234, 0):
        res = sssp(g, src, strategy="auto", backend="cupy")
        _check_vs_reference(g, src, res)
        sssp(g, src, strategy="auto", backend="cupy", target=100)


@pytest.mark.parametrize("strategy", ALL)
def test_multi_source(strategy):
    g = road_grid(40, 50, seed=4)
    src = [0, 17, 999, 1999, 17]
    res = sssp(g, src, strategy=strategy, backend="cupy")
    _check_vs_reference(g, src, res)
    cpu = sssp(g, src, strategy=strategy, backend="cpu")
    _same(res, cpu, telemetry=strategy in SAME_PHASES)


@pytest.mark.parametrize("strategy", ALL)
def test_target_early_exit(strategy):
    g = road_grid(50, 50, seed=6)
    t = 1234
    full = sssp(g, 0, strategy=strategy, backend="cupy")
    res = sssp(g, 0, strategy=strategy, backend="cupy", target=t)
    cpu = sssp(g, 0, strategy=strategy, backend="cpu", target=t)
    kt = full.dist[t]
    assert res.dist[t] == kt
    # reported vertices (key <= key[t]: cost, then hops) are exact; all cheaper ones reported
    rep = res.dist >= 0
    np.testing.assert_array_equal(res.dist[rep], full.dist[rep])
    np.testing.assert_array_equal(res.pred[rep], full.pred[rep])
    cheaper = (full.dist >= 0) & (full.dist < kt)
    assert rep[cheaper].all()
    assert not rep[full.dist > kt].any()
    np.testing.assert_array_equal(res.dist, cpu.dist)
    np.testing.assert_array_equal(res.pred, cpu.pred)
    if strategy in SAME_PHASES:
        np.testing.assert_array_equal(res.phases.rows["frontier"], cpu.phases.rows["frontier"])
        assert len(res.phases) <= len(full.phases)


@pytest.mark.parametrize("strategy", ALL)
def test_cancel_and_on_phase(strategy):
    # several launches: auto and adaptive poll cancel / feed on_phase between them
    opts = SSSPOptions(auto=AutoTuning(launch_phases=2), adaptive_launch_phases=2)
    g = road_grid(30, 30, seed=7)
    polls = {"n": 0}

    def cancel_on_second_poll() -> bool:
        polls["n"] += 1
        return polls["n"] >= 2

    with pytest.raises(CancelledError):
        sssp(g, 0, strategy=strategy, backend="cupy", options=opts,
             cancel=cancel_on_second_poll)
    chunks = []
    res = sssp(g, 0, strategy=strategy, backend="cupy", options=opts, on_phase=chunks.append,
               cancel=lambda: False)
    assert chunks, "on_phase was never called"
    got = np.concatenate([c.rows for c in chunks])
    np.testing.assert_array_equal(got["frontier"], res.phases.rows["frontier"])
    np.testing.assert_array_equal(got["phase"], np.arange(len(res.phases)))


def test_cancel_before_start_auto():
    g = road_grid(10, 10, seed=1)
    with pytest.raises(CancelledError):
        sssp(g, 0, strategy="auto", backend="cupy", cancel=lambda: True)


@pytest.mark.parametrize("strategy", ("conventional", "auto"))
def test_simulated_oom(monkeypatch, strategy):
    from gpu_core.device import memory

    g = road_grid(20, 20, seed=8)  # a fresh graph: no cached device copy
    # Blocks cached by CuPy's pool count as reusable: earlier tests leave plenty there.
    cupy.get_default_memory_pool().free_all_blocks()
    monkeypatch.setattr(memory, "free_memory", lambda: (1 << 20, 80 << 30))
    with pytest.raises(GpuOutOfMemoryError):
        sssp(g, 0, strategy=strategy, backend="cupy")


def test_cupy_allocation_failure_is_typed(monkeypatch):
    from gpu_core.sssp.cuda import context

    g = road_grid(20, 20, seed=9)
    real = context.Ctx.alloc

    def failing(self, shape, dtype, what):
        if what == "predecessors":
            raise cupy.cuda.memory.OutOfMemoryError(8 * int(np.prod(shape)), 0)
        return real(self, shape, dtype, what)

    monkeypatch.setattr(context.Ctx, "alloc", failing)
    with pytest.raises(GpuOutOfMemoryError):
        sssp(g, 0, strategy="selection", backend="cupy")


def test_auto_without_cooperative_launch():
    opts = SSSPOptions(auto=AutoTuning(cooperative=False, batch_phases=7))
    g = road_grid(40, 40, seed=10)
    res = sssp(g, [0, 5], strategy="auto", backend="cupy", options=opts)
    _check_vs_reference(g, [0, 5], res)


@pytest.mark.parametrize(
    "tuning",
    [
        {"schedule": "bf", "bf_local_rounds": 1, "launch_phases": 3},
        {"schedule": "bf", "bf_local_rounds": 4, "launch_phases": 5, "local_queue": 32},
        {"schedule": "nearfar", "local_rounds": 1, "launch_phases": 2, "delta_factor": 0.5},
        {"schedule": "nearfar", "local_rounds": 8, "buckets": 2, "delta_factor": 1.0},
        {"schedule": "nearfar", "local_rounds": 16, "buckets": 4, "delta_factor": 0.1},
        {"schedule": "nearfar", "local_rounds": 8, "delta_factor": 64.0, "blocks_per_sm": 8},
        {"schedule": "nearfar", "local_rounds": 32, "block": 1024, "lanes": 2,
         "blocks_per_sm": 1, "precheck": False, "buckets": 3, "delta_factor": 0.3},
        {"schedule": "bf", "bf_local_rounds": 64, "block": 512, "lanes": 1, "precheck": False},
        {"schedule": "nearfar", "local_rounds": 64, "local_queue": 64, "delta_factor": 2.0},
        {"schedule": "by_weights", "local_queue": 128},
        {"schedule": "nearfar", "stage": False, "buckets": 3, "delta_factor": 0.5},
    ],
    ids=lambda t: "-".join(f"{k}={v}" for k, v in t.items()),
)
def test_auto_tunings(tuning):
    opts = SSSPOptions(auto=AutoTuning(**tuning))
    g = road_grid(80, 80, seed=11)
    for src in (3, [5, 6000]):
        res = sssp(g, src, strategy="auto", backend="cupy", options=opts)
        _check_vs_reference(g, src, res)
        t = 4321
        tr = sssp(g, src, strategy="auto", backend="cupy", target=t, options=opts)
        cpu = sssp(g, src, strategy="auto", backend="cpu", target=t)
        np.testing.assert_array_equal(tr.dist, cpu.dist)
        np.testing.assert_array_equal(tr.pred, cpu.pred)
    for _name, make in FAMILIES:
        g = make(seed=2)
        res = sssp(g, 0, strategy="auto", backend="cupy", options=opts)
        _check_vs_reference(g, 0, res)


def test_worker_thread_selects_device():
    import threading

    g = road_grid(30, 30, seed=12)
    out = {}

    def work():
        with cupy.cuda.Device(0):
            out["res"] = sssp(g, 0, strategy="auto", backend="cupy")

    th = threading.Thread(target=work)
    th.start()
    th.join()
    _check_vs_reference(g, 0, out["res"])


def test_unsorted_rows_eval():
    # rows not sorted by weight: eval_dijkstra must still find the lightest live arc
    r = np.random.default_rng(13)
    n, m = 300, 1500
    t = np.sort(r.integers(0, n, m))
    h = r.integers(0, n, m)
    w = r.integers(0, 50, m)
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, t + 1, 1)
    g = CSRGraph(np.cumsum(indptr).astype(np.int32), h.astype(np.int32), w.astype(np.int32))
    for strategy in ("eval_dijkstra", "delta", "auto"):
        res = sssp(g, [0, 1], strategy=strategy, backend="cupy")
        _check_vs_reference(g, [0, 1], res)


@pytest.mark.parametrize("strategy", ALL)
def test_large_road_grid(strategy):
    g = road_grid(320, 320, seed=14)  # ~100K nodes
    src = 160 * 320 + 160
    res = sssp(g, src, strategy=strategy, backend="cupy")
    _check_vs_reference(g, src, res)
    if strategy in ("delta", "bellman_ford_queue"):
        cpu = sssp(g, src, strategy=strategy, backend="cpu")
        _same(res, cpu, telemetry=True)


def _big_maps():
    out = []
    ne = REPO / ".gpu_maps" / "NE.gr.xz"
    if ne.exists():
        out.append(("NE", ne))
    out.append(("kanto200k", None))
    return out


@pytest.mark.parametrize("name,path", _big_maps(), ids=[m[0] for m in _big_maps()])
def test_big_map_auto_and_adaptive(name, path):
    if path is None:
        from maps.generate import generate

        g = generate("kanto", n=200_000, seed=1)
    else:
        from maps.formats.dimacs import load_pace

        g = load_pace(path, seed=1)
    g = CSRGraph.from_any(g)
    src = np.random.default_rng(15).integers(0, g.num_nodes, 2)
    for s in src:
        _, dist, pred = reference_sssp(g, int(s))
        for strategy in ("auto", "adaptive", "delta"):
            res = sssp(g, int(s), strategy=strategy, backend="cupy",
                       options=SSSPOptions(adaptive_signal="frontier"))
            np.testing.assert_array_equal(res.dist, dist)
            np.testing.assert_array_equal(res.pred, pred)
