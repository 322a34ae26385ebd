"""Public face of the vertex-program layer: the three programs, their results, validation
and the backend choice (``cpu``: the numba engine; ``cupy``: the CUDA engine of
``cuda.py``, lists in the paper's randomised-insertion mode; ``auto``: the GPU when
``resolve_backend("auto")`` finds one)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..backend import BACKENDS, resolve_backend
from ..errors import GpuCoreError, InvalidArgumentError
from ..graph import CSRGraph, GraphLike
from ..keys import UNREACHABLE
from ..validate import check_vertex
from .common import SUPERSTEP_DTYPE

SuperstepCallback = Callable[[np.void], None]  # one SUPERSTEP_DTYPE row per superstep
CancelCheck = Callable[[], bool]

# framework: the Borůvka vertex program; direct: the direct Borůvka kernels on the GPU, the
# Kruskal oracle on the CPU (same edge set: Kruskal's tie rule); kruskal: the oracle on the
# CPU whatever the backend. "boruvka" is the framework's former name.
METHODS_MST = ("framework", "direct", "kruskal")
MST_ALIASES = {"boruvka": "framework"}


def _empty_telemetry() -> np.ndarray:
    return np.zeros(0, SUPERSTEP_DTYPE)


@dataclass
class BellmanFordResult:
    dist: np.ndarray  # int64; UNREACHABLE (-1) where the source does not reach
    supersteps: int
    backend: str
    telemetry: np.ndarray = field(default_factory=_empty_telemetry)
    elapsed_s: float = 0.0
    note: str = ""


@dataclass
class PageRankResult:
    rank: np.ndarray  # float64[n], sums to 1
    iterations: int  # power iterations done
    delta: float  # L1 change of the last iteration
    converged: bool  # delta < tol * n within max_iter
    supersteps: int
    backend: str
    method: str = "framework"  # or "direct"
    telemetry: np.ndarray = field(default_factory=_empty_telemetry)
    elapsed_s: float = 0.0
    note: str = ""


@dataclass
class MSTResult:
    """A minimum spanning forest: edge i joins tails[i] < heads[i] with weights[i],
    listed in Kruskal's order (weight, smaller vertex, larger vertex)."""

    tails: np.ndarray  # int32
    heads: np.ndarray  # int32
    weights: np.ndarray  # int64
    total_weight: int
    components: int  # connected components of the undirected graph (isolated nodes too)
    supersteps: int
    backend: str
    method: str = "framework"  # framework | direct | kruskal (METHODS_MST)
    rounds: int = 0
    telemetry: np.ndarray = field(default_factory=_empty_telemetry)
    elapsed_s: float = 0.0
    note: str = ""

    @property
    def num_edges(self) -> int:
        return int(self.tails.shape[0])


def choose_backend(backend: str) -> tuple[str, str]:
    """(backend, note): 'cpu' or 'cupy' (BackendUnavailableError when CuPy or a device is
    missing for an explicit 'cupy'); 'auto' takes the GPU when one is usable."""
    if backend not in BACKENDS:
        raise InvalidArgumentError(
            f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}"
        )
    return resolve_backend(backend), ""


MAX_ITER = 10**6  # PageRank iterations: converges long before on any graph


def check_pagerank_args(damping: float, tol: float, max_iter: int) -> None:
    if not 0.0 < damping < 1.0:  # also refuses NaN
        raise InvalidArgumentError(f"damping {damping!r} is outside (0, 1)")
    if not tol >= 0.0:
        raise InvalidArgumentError(f"tolerance {tol!r} is negative (give 0 or more)")
    if int(max_iter) < 1:
        raise InvalidArgumentError(f"max_iter {max_iter!r} is below 1")
    if int(max_iter) > MAX_ITER:
        raise InvalidArgumentError(f"max_iter {max_iter!r} is above {MAX_ITER:,}")


@contextlib.contextmanager
def _on_device(what: str, backend: str = "cupy") -> Iterator[None]:
    """CuPy's allocation failures as GpuOutOfMemoryError (nothing to do on the CPU)."""
    if backend != "cupy":
        yield
        return
    from ..device.memory import oom_as_typed

    with oom_as_typed(f"the {what} vertex program"):
        yield


def _run(engine, st, active, *, limit: int, on_superstep, cancel) -> np.ndarray:
    tel = engine.run(st, active, max_supersteps=limit, on_superstep=on_superstep,
                     cancel=cancel)
    if engine.stopped_by == "limit":
        raise GpuCoreError(f"{engine.p.name} did not finish in {limit} supersteps")
    return tel


def bellman_ford(
    graph: GraphLike,
    source: int,
    *,
    backend: str = "auto",
    combiner: bool = True,
    on_superstep: SuperstepCallback | None = None,
    cancel: CancelCheck | None = None,
) -> BellmanFordResult:
    """Distances from ``source`` by the Pregel Bellman-Ford of the paper's Figure 2
    (equal to ``gpu_core.sssp.sssp(graph, source).dist``). ``combiner``: keep only each
    vertex's smallest incoming candidate (on the GPU an atomicMin slot per vertex; False:
    every message listed, as in the paper)."""
    from .cpu import Engine
    from .cpu_programs import INF, bellman_ford_program

    g = CSRGraph.from_any(graph)
    n = g.num_nodes
    source = check_vertex(source, n, "source")
    be, note = choose_backend(backend)
    t0 = time.perf_counter()
    if be == "cupy":
        from .cuda_programs import bellman_ford_cuda

        with _on_device("Bellman-Ford"):
            dist, tel, steps = bellman_ford_cuda(g, source, combiner=combiner,
                                                 on_superstep=on_superstep, cancel=cancel)
        return BellmanFordResult(dist, steps, be, tel, time.perf_counter() - t0, note)
    eng = Engine(bellman_ford_program(), n, g.arc_sources(), g.indices, g.weights,
                 use_combiner=combiner)
    dist = np.full(n, INF, np.int64)
    active = np.zeros(n, dtype=bool)
    active[source] = True
    tel = _run(eng, (dist, np.array([source], np.int64)), active, limit=n + 2,
               on_superstep=on_superstep, cancel=cancel)
    dist[dist == INF] = UNREACHABLE
    return BellmanFordResult(dist, eng.supersteps, be, tel, time.perf_counter() - t0, note)


def pagerank(
    graph: GraphLike,
    *,
    damping: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
    backend: str = "auto",
    method: str = "framework",
    combiner: bool = True,
    on_superstep: SuperstepCallback | None = None,
    cancel: CancelCheck | None = None,
) -> PageRankResult:
    """networkx.pagerank(G, weight=None) of the map's simple digraph (parallel arcs once,
    self-loops are out-arcs, dangling rank spread over all nodes), stopping when the L1
    change < tol * n or after max_iter iterations (then ``converged`` is False).
    ``method="direct"`` runs the plain CSR power iteration instead of the framework.
    ``combiner``: sum each vertex's incoming shares as they arrive (on the GPU an
    atomicAdd slot per vertex; False: every share listed, as in the paper)."""
    from .cpu import Engine
    from .cpu_programs import PageRankMaster, pagerank_program
    from .direct import pagerank_csr

    check_pagerank_args(damping, tol, max_iter)
    if method not in ("framework", "direct"):
        raise InvalidArgumentError(f"unknown method {method!r}; choose framework or direct")
    g = CSRGraph.from_any(graph, allow_negative=True)  # PageRank reads no weight
    n = g.num_nodes
    be, note = choose_backend(backend)
    t0 = time.perf_counter()
    if n == 0:
        return PageRankResult(np.zeros(0), 0, 0.0, True, 0, be, method, note=note)
    if method == "direct":
        if be == "cupy":
            from .direct_cuda import pagerank_direct_cuda as direct
        else:
            direct = pagerank_csr
        with _on_device("PageRank", be):
            x, it, delta, conv = direct(g, damping, tol, int(max_iter))
        return PageRankResult(x, it, delta, conv, 0, be, method,
                              elapsed_s=time.perf_counter() - t0, note=note)
    if be == "cupy":
        from .cuda_programs import pagerank_cuda
        from .direct_cuda import simple_arcs

        tails, heads = simple_arcs(g)  # cached per graph

        with _on_device("PageRank"):
            x, master, tel, steps = pagerank_cuda(
                tails, heads, n, damping, float(tol), int(max_iter), graph=g,
                combiner=combiner, on_superstep=on_superstep, cancel=cancel)
        return PageRankResult(x, master.iterations, master.delta, master.converged, steps,
                              be, method, tel, time.perf_counter() - t0, note)
    pairs = np.unique(g.arc_sources().astype(np.int64) * n + g.indices, axis=None)
    tails, heads = pairs // n, pairs % n
    outdeg = np.bincount(tails, minlength=n).astype(np.int64)
    master = PageRankMaster(n, float(tol), int(max_iter))
    eng = Engine(pagerank_program(master), n, tails, heads, np.zeros_like(tails),
                 use_combiner=combiner)
    x = np.full(n, 1.0 / n)
    st = (x, outdeg, np.array([damping, 1.0 / n]))
    tel = _run(eng, st, np.ones(n, dtype=bool), limit=int(max_iter) + 2,
               on_superstep=on_superstep, cancel=cancel)
    return PageRankResult(x, master.iterations, master.delta, master.converged,
                          eng.supersteps, be, method, tel, time.perf_counter() - t0, note)


def minimum_spanning_forest(
    graph: GraphLike,
    *,
    backend: str = "auto",
    method: str = "framework",
    on_superstep: SuperstepCallback | None = None,
    cancel: CancelCheck | None = None,
) -> MSTResult:
    """Minimum spanning forest of the undirected graph (edge {u, v} weighs the lightest
    arc between them either way), ties broken as Kruskal on (weight, smaller vertex,
    larger vertex) so the edge set is unique and every method gives the same one.
    ``method="framework"`` runs the parallel Borůvka vertex program (topology edits,
    pointer jumping); ``"direct"`` the direct Borůvka kernels on the GPU (``direct.cu``)
    or the Kruskal oracle on the CPU; ``"kruskal"`` the oracle on the CPU."""
    from .direct import kruskal_mask, undirected_edges

    method = MST_ALIASES.get(method, method)
    if method not in METHODS_MST:
        raise InvalidArgumentError(f"unknown method {method!r}; choose one of {', '.join(METHODS_MST)}")
    # any sign: every method compares edges by their rank in the (w, a, b) order sorted
    # here (int64), never by a weight packed into a key or summed
    g = CSRGraph.from_any(graph, allow_negative=True)
    n = g.num_nodes
    be, note = choose_backend(backend)
    t0 = time.perf_counter()
    if be == "cupy":
        from .direct_cuda import cached_undirected_edges

        a, b, w = cached_undirected_edges(g)
    else:
        a, b, w = undirected_edges(g)
    k = a.shape[0]
    tel = _empty_telemetry()
    supersteps = rounds = 0
    if method == "kruskal" or (method == "direct" and be == "cpu"):
        if be == "cupy":  # said only when the GPU was asked for by name
            be = "cpu"
            note = "kruskal (the direct oracle) runs on the CPU" if backend == "cupy" else ""
        keep = kruskal_mask(n, a, b).astype(bool) if k else np.zeros(0, bool)
    elif method == "direct":
        from .direct_cuda import boruvka_direct_cuda

        with _on_device("direct Borůvka"):
            keep, rounds = boruvka_direct_cuda(g)
    elif be == "cupy":
        from .cuda_programs import boruvka_cuda

        with _on_device("Borůvka"):
            keep, master, tel, supersteps = boruvka_cuda(
                n, a, b, graph=g, on_superstep=on_superstep, cancel=cancel)
        rounds = master.rounds
    else:
        keep, tel, supersteps, rounds = _boruvka_cpu(n, a, b, on_superstep, cancel)
    ta, hb, wt = a[keep], b[keep], w[keep]
    return MSTResult(
        tails=ta.astype(np.int32), heads=hb.astype(np.int32), weights=wt,
        total_weight=int(wt.sum()), components=n - int(ta.shape[0]),
        supersteps=supersteps, backend=be, method=method, rounds=rounds, telemetry=tel,
        elapsed_s=time.perf_counter() - t0, note=note,
    )


def _boruvka_cpu(n: int, a, b, on_superstep, cancel):
    """The Borůvka vertex program on the CPU engine: (keep mask, telemetry, supersteps,
    rounds)."""
    from .cpu import Engine
    from .cpu_programs import BoruvkaMaster, boruvka_program

    k = a.shape[0]
    master = BoruvkaMaster()
    ranks = np.arange(k, dtype=np.int64)
    eng = Engine(boruvka_program(master), n, np.r_[a, b], np.r_[b, a], np.r_[ranks, ranks])
    in_forest = np.zeros(max(k, 1), np.uint8)
    st = (np.arange(n, dtype=np.int64), np.ones(n, np.uint8), np.zeros(n, np.uint8),
          in_forest)
    limit = 64 * (8 + 2 * max(n, 2).bit_length())
    tel = _run(eng, st, np.ones(n, dtype=bool), limit=limit, on_superstep=on_superstep,
               cancel=cancel)
    return in_forest[:k].astype(bool), tel, eng.supersteps, master.rounds


def telemetry_csv(rows: np.ndarray) -> str:
    """CSV text (header superstep,active,messages,arcs,time_us) of a telemetry array."""
    lines = ["superstep,active,messages,arcs,time_us"]
    lines += [f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.3f}" for r in rows.tolist()]
    return "\n".join(lines) + "\n"

