"""The peer rows of ``signpost bench matrix`` (scipy, RoutingKit's CCH, pandana), each run
in a child process (issue 26): a peer that crashes (a C++ ``std::terminate``), refuses the
map (an exception) or runs past its timeout becomes a row saying so, and the other rows
stand.

The parent writes the job (graph arrays, sources, targets, budget) into a folder and runs
``python -m app.bench.peers PEER FOLDER`` with a timeout; the child writes ``matrix.npy``
(int64 [K, T], -1 unreachable), ``done.npy`` (rows finished) and ``result.json``
(status, reason, ``prep_s``/``customize_s``/``query_s``, notes). :func:`run_peer` turns
whatever came back into a :class:`PeerResult`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from osutil.children import forked_pool

PEERS = ("scipy", "cch", "pandana")
SCIPY_CHUNK = 8  # sources per scipy worker task
PANDANA_PAIRS = 1 << 20  # origin-destination pairs per pandana call


@dataclass
class PeerResult:
    """What came back from one peer's child process."""

    status: str  # ok, budget, skipped, refused, crashed, timeout
    reason: str = ""
    times: dict = field(default_factory=dict)  # prep_s, customize_s, query_s
    note: str = ""
    matrix: np.ndarray | None = None
    done: np.ndarray | None = None  # bool [K]: rows the peer finished

    @property
    def rows_done(self) -> int:
        return 0 if self.done is None else int(self.done.sum())


def run_peer(name: str, folder: Path, g, src: np.ndarray, tgt: np.ndarray, *, workers: int,
             budget_s: float, timeout_s: float, lat=None, lon=None) -> PeerResult:
    """Run peer ``name`` on (g, src, tgt) in a child process; never raises for the peer."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in ("matrix.npy", "done.npy", "result.json"):
        (folder / f).unlink(missing_ok=True)
    coords: dict[str, Any] = {} if lat is None else {"lat": np.asarray(lat, np.float64),
                                     "lon": np.asarray(lon, np.float64)}
    np.savez(folder / "job.npz", indptr=g.indptr, indices=g.indices, weights=g.weights,
             src=src, tgt=tgt, workers=workers, budget_s=budget_s, **coords)
    cmd = [sys.executable, "-m", "app.bench.peers", name, os.fspath(folder)]
    root = Path(__file__).resolve().parents[2]  # the child imports this checkout's packages
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.fspath(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return _partial(folder, PeerResult("timeout", f"no answer within {timeout_s:.0f} s "
                                                      "(child killed)"))
    res = _read(folder)
    if p.returncode < 0:  # killed by a signal: a C++ terminate is SIGABRT
        sig = signal.Signals(-p.returncode).name
        return _partial(folder, PeerResult("crashed", f"{sig}: {_last_line(p.stderr)}"))
    if res is None:
        return PeerResult("crashed", f"exit status {p.returncode}: {_last_line(p.stderr)}")
    return res


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    tail = [ln for ln in lines if "what()" in ln or "Error" in ln] or lines
    return tail[-1][:300] if tail else "no message"


def _read(folder: Path) -> PeerResult | None:
    try:
        meta = json.loads((folder / "result.json").read_text())
    except (OSError, ValueError):
        return None
    return _partial(folder, PeerResult(meta["status"], meta.get("reason", ""),
                                       meta.get("times", {}), meta.get("note", "")))


def _partial(folder: Path, res: PeerResult) -> PeerResult:
    """Attach the rows a peer finished (also after a timeout: they were written in place)."""
    try:
        res.done = np.load(folder / "done.npy", mmap_mode="r").astype(bool)
        res.matrix = np.load(folder / "matrix.npy", mmap_mode="r")
    except (OSError, ValueError):
        res.done = res.matrix = None
    return res


# ---- the child side -----------------------------------------------------------------------
class _Job:
    def __init__(self, folder: Path):
        z = np.load(folder / "job.npz")
        self.folder = folder
        self.indptr, self.indices, self.weights = z["indptr"], z["indices"], z["weights"]
        self.n = int(self.indptr.shape[0] - 1)
        self.src, self.tgt = z["src"], z["tgt"]
        self.workers = int(z["workers"])
        self.budget_s = float(z["budget_s"])
        self.deadline = time.perf_counter() + self.budget_s
        self.lat = z["lat"] if "lat" in z else None
        self.lon = z["lon"] if "lon" in z else None
        k, t = len(self.src), len(self.tgt)
        self.out = np.lib.format.open_memmap(folder / "matrix.npy", "w+", np.int64, (k, t))
        self.out[:] = -1
        self.done = np.lib.format.open_memmap(folder / "done.npy", "w+", np.uint8, (k,))

    def begin_queries(self) -> None:
        """The budget covers the queries: preprocessing is timed apart (and bounded by the
        parent's timeout)."""
        self.deadline = time.perf_counter() + self.budget_s

    def tails(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))

    def over(self) -> bool:
        return time.perf_counter() > self.deadline


_JOB: dict = {}  # the scipy job, set before the fork: its workers inherit it


def _scipy_chunk(lo: int, hi: int) -> None:
    from scipy.sparse.csgraph import dijkstra

    from gpu_core.reference import scipy_rows

    j = _JOB
    d = dijkstra(j["mat"], directed=True, indices=j["src"][lo:hi])
    j["out"][lo:hi] = scipy_rows(d[:, j["tgt"]])
    j["done"][lo:hi] = 1


def peer_scipy(job: _Job) -> dict:
    """scipy's Dijkstra on ``workers`` forked processes writing into the shared matrix."""
    from gpu_core.graph import CSRGraph
    from gpu_core.reference import scipy_csr

    g = CSRGraph(job.indptr, job.indices, job.weights)
    _JOB.update(mat=scipy_csr(g), src=job.src, tgt=job.tgt, out=job.out, done=job.done)
    k = len(job.src)
    status = "ok"
    t0 = time.perf_counter()
    with forked_pool(max(1, job.workers)) as ex:
        pending = {ex.submit(_scipy_chunk, lo, min(lo + SCIPY_CHUNK, k))
                   for lo in range(0, k, SCIPY_CHUNK)}
        while pending:
            finished, pending = wait(pending, timeout=max(0.0, job.deadline - time.perf_counter()),
                                     return_when=FIRST_COMPLETED)
            for f in finished:
                f.result()
            if job.over() and pending:
                for f in pending:
                    f.cancel()
                status = "budget"
                break
    return {"status": status, "times": {"query_s": time.perf_counter() - t0},
            "note": f"{job.workers} processes"}


def _cch_order(rk, job: _Job, tail: list, head: list) -> tuple[list, str]:
    """Inertial flow with coordinates; without them METIS nested dissection (pymetis,
    the ``bench`` extra) on the symmetrised graph, else RoutingKit's degree order (its
    fill-in overflows the CCH's 2^32 arcs on country-sized maps: the child then crashes
    and the row says so)."""
    if (job.lat is not None and job.lon is not None and np.isfinite(job.lat).all()
            and np.isfinite(job.lon).all()):
        return rk.compute_order_inertial(job.n, tail, head, job.lat.astype(np.float32).tolist(),
                                         job.lon.astype(np.float32).tolist()), "inertial"
    try:
        import pymetis
    except ImportError:
        return rk.compute_order_degree(job.n, tail, head), "degree (no coordinates)"
    t, h = np.asarray(tail, np.int64), np.asarray(head, np.int64)
    keep = t != h
    a, b = np.concatenate([t[keep], h[keep]]), np.concatenate([h[keep], t[keep]])
    pair = np.unique(a * job.n + b)
    xadj = np.zeros(job.n + 1, np.int64)
    np.cumsum(np.bincount(pair // job.n, minlength=job.n), out=xadj[1:])
    # pymetis's stub says Sequence[int]; it returns (perm, iperm)
    got: Any = pymetis.nested_dissection(pymetis.CSRAdjacency(xadj, pair % job.n))
    perm, _ = got
    return [int(x) for x in perm], "METIS nested dissection (no coordinates)"


def peer_cch(job: _Job) -> dict:
    """RoutingKit's CCH (``routingkit-cch``): order + CCH, customization, then one-to-many
    queries (``CCHOneToMany``, one per thread) timed apart."""
    import routingkit_cch as rk

    tail, head = job.tails().tolist(), job.indices.tolist()
    t0 = time.perf_counter()
    order, how = _cch_order(rk, job, tail, head)
    cch = rk.CCH(order, tail, head, False)
    t1 = time.perf_counter()
    metric = rk.CCHMetric(cch, job.weights.tolist())
    t2 = time.perf_counter()
    job.begin_queries()
    targets = job.tgt.tolist()
    k, nthreads = len(job.src), max(1, job.workers)

    def part(w: int) -> None:
        q = rk.CCHOneToMany(metric, targets)
        for i in range(w, k, nthreads):
            if job.over():
                return
            job.out[i] = [-1 if d is None else d for d in q.distances_from(int(job.src[i]))]
            job.done[i] = 1

    with ThreadPoolExecutor(nthreads) as ex:
        list(ex.map(part, range(nthreads)))
    t3 = time.perf_counter()
    return {"status": "ok" if job.done.all() else "budget",
            "times": {"prep_s": t1 - t0, "customize_s": t2 - t1, "query_s": t3 - t2},
            "note": f"order: {how}; {nthreads} threads"}


def peer_pandana(job: _Job) -> dict:
    """pandana's contraction hierarchy: ``Network`` (its CH build) then
    ``shortest_path_lengths`` over every (source, target) pair, rows in blocks. Its
    coordinates only serve its spatial look-ups: zeros when the map has none."""
    import pandas as pd
    from pandana import Network

    t0 = time.perf_counter()
    tail = job.tails()
    x = job.lon if job.lon is not None and np.isfinite(job.lon).all() else np.zeros(job.n)
    y = job.lat if job.lat is not None and np.isfinite(job.lat).all() else np.zeros(job.n)
    w = pd.DataFrame({"w": job.weights.astype(np.float64)})
    net = Network(pd.Series(x), pd.Series(y), pd.Series(tail), pd.Series(job.indices), w,
                  twoway=False)
    t1 = time.perf_counter()
    job.begin_queries()
    k, t = len(job.src), len(job.tgt)
    rows = max(1, PANDANA_PAIRS // max(1, t))
    for r0 in range(0, k, rows):
        if job.over():
            break
        r1 = min(k, r0 + rows)
        a = np.repeat(job.src[r0:r1], t)
        b = np.tile(job.tgt, r1 - r0)
        lens = np.asarray(net.shortest_path_lengths(a, b), np.float64).reshape(r1 - r0, t)
        # pandana keeps thousandths in unsigned 32 bits: 4294967.295 means unreachable
        job.out[r0:r1] = np.where(lens >= 4294967.295, -1, np.rint(lens)).astype(np.int64)
        job.done[r0:r1] = 1
    t2 = time.perf_counter()
    return {"status": "ok" if job.done.all() else "budget",
            "times": {"prep_s": t1 - t0, "query_s": t2 - t1},
            "note": "CH built by pandana.Network"}


def main(argv: list[str]) -> int:
    """Child entry: ``PEER FOLDER``; exit 0 with result.json (also for a refusal)."""
    import warnings

    name, folder = argv[0], Path(argv[1])
    fn = {"scipy": peer_scipy, "cch": peer_cch, "pandana": peer_pandana}[name]
    job = _Job(folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fn(job)
    except ImportError as exc:
        res = {"status": "skipped", "reason": f"{exc.name or exc} not installed "
                                              "(pip install '.[bench]')"}
    except Exception as exc:  # the peer refused this map: the row says why
        res = {"status": "refused", "reason": f"{type(exc).__name__}: {exc}"[:300]}
    job.out.flush()
    job.done.flush()
    (folder / "result.json").write_text(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
