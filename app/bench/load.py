"""``signpost bench load``: map loading (first and cached) and CPU route time per map.

For each map: the load without the cache (``load_map(..., use_cache=False)``, median of
``--repeat``), the first cached load (build + write the ``.spn`` entry into a fresh
temporary cache directory), the cached load (median of ``--repeat``), then route times on
the CPU: scipy's Dijkstra from ``--sources`` random sources (median per source) and one
``gpu_core.sssp(backend="cpu")`` search (numba compiled beforehand on a tiny graph).
Default maps: the bundled sample map (skipped when it or osmium is missing) and the
generated Kanto-sized map (``maps.generate.kanto``), written to a temporary ``.gr`` + ``.co``
first so its text loading is measured too.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from app.bench import MAP_COLS
from osutil.atomic import atomic_open

DOC = Path(__file__).resolve().parents[2] / "docs" / "perf" / "maps_load.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", action="append", default=None, metavar="M",
                   help="map file to measure (repeatable); default: the sample map and kanto")
    p.add_argument("--repeat", type=int, default=3, help="loads per measurement (median)")
    p.add_argument("--sources", type=int, default=3, help="scipy Dijkstra sources per map")
    p.add_argument("--kanto-nodes", type=int, default=None,
                   help="nodes of the generated Kanto map (default 1,428,025)")
    p.add_argument("--no-kanto", action="store_true", help="leave the generated map out")
    p.add_argument("--kanto", action="store_true",
                   help="measure the generated map even when --map is given")
    p.add_argument("--strategy", default="auto", help="gpu_core.sssp strategy for the CPU run")
    p.add_argument("--doc", default=None, metavar="FILE.md",
                   help=f"write the table as Markdown here (default with --write-doc: {DOC})")
    p.add_argument("--write-doc", action="store_true", help=f"write the table to {DOC}")
    p.add_argument("--seed", type=int, default=1, help="seed of the generated map and sources")
    p.add_argument("--no-bf-phases", dest="bf_phases", action="store_false",
                   help="skip the extra 'conventional' search that counts Bellman-Ford phases")


T = TypeVar("T")


def _median_time(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    times: list[float] = []
    while True:
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= repeat or times[-1] > 30:
            break  # (over 30 s: a slow map, one measurement is enough)
    return statistics.median(times), out


def _warm_up_sssp(strategy: str) -> None:
    from gpu_core.sssp import sssp
    from maps.generate import grid

    sssp(grid(64, seed=1), 0, strategy=strategy, backend="cpu")


def measure(path: str, args, label: str, extra: dict | None = None) -> dict:
    from scipy.sparse.csgraph import dijkstra

    from gpu_core.sssp import sssp
    from maps.load import load_map

    row = {"map": label, **(extra or {})}
    t, net = _median_time(lambda: load_map(path, use_cache=False), args.repeat)
    row.update(nodes=net.num_nodes, arcs=net.num_arcs, load_s=t)
    with tempfile.TemporaryDirectory(prefix="signpost-bench-cache-") as cdir:
        old = os.environ.get("SIGNPOST_CACHE_DIR")
        os.environ["SIGNPOST_CACHE_DIR"] = cdir
        try:
            t0 = time.perf_counter()
            load_map(path)
            row["first_cached_s"] = time.perf_counter() - t0
            t, cnet = _median_time(lambda: load_map(path), args.repeat)
            row["cached_s"] = t
            row["speedup"] = row["load_s"] / max(t, 1e-9)
            assert cnet.meta.get("cache_hit"), "the cached load did not hit the cache"
            row["spn_mb"] = sum(f.stat().st_size for f in Path(cdir).glob("*.spn")) / 1e6
        finally:
            if old is None:
                os.environ.pop("SIGNPOST_CACHE_DIR", None)
            else:
                os.environ["SIGNPOST_CACHE_DIR"] = old
    rng = np.random.default_rng(args.seed)
    srcs = rng.integers(0, net.num_nodes, size=max(1, args.sources))
    mat = net.to_scipy()
    times = []
    for s in srcs.tolist():
        t0 = time.perf_counter()
        dijkstra(mat, directed=True, indices=s)
        times.append(time.perf_counter() - t0)
    row["scipy_ms"] = statistics.median(times) * 1e3
    t0 = time.perf_counter()
    res = sssp(net, int(srcs[0]), strategy=args.strategy, backend="cpu")
    row["sssp_cpu_ms"] = (time.perf_counter() - t0) * 1e3
    row["phases"] = len(res.phases.rows)
    if args.bf_phases:
        # Seed 001's conventional (Bellman-Ford style) search: how many phases this map needs.
        t0 = time.perf_counter()
        bf = sssp(net, int(srcs[0]), strategy="conventional", backend="cpu")
        row["bf_ms"] = (time.perf_counter() - t0) * 1e3
        row["bf_phases"] = len(bf.phases.rows)
    return row


COLS = [
    *MAP_COLS,
    ("load_s", "load (s)", "{:.2f}"),
    ("first_cached_s", "load+cache write (s)", "{:.2f}"),
    ("cached_s", "cached load (s)", "{:.3f}"),
    ("speedup", "load / cached", "{:.0f}x"),
    ("spn_mb", ".spn MB", "{:.1f}"),
    ("scipy_ms", "scipy Dijkstra (ms)", "{:.1f}"),
    ("sssp_cpu_ms", "sssp cpu (ms)", "{:.1f}"),
    ("phases", "phases", "{}"),
    ("bf_ms", "conventional cpu (ms)", "{:.0f}"),
    ("bf_phases", "conv. phases", "{}"),
    ("gen_s", "generate (s)", "{:.2f}"),
    ("write_s", "write .gr+.co (s)", "{:.2f}"),
]


def _cell(row: dict, key: str, fmt: str) -> str:
    v = row.get(key)
    return "-" if v is None else fmt.format(v)


def table(rows: list[dict]) -> tuple[str, str]:
    """(plain text, Markdown) tables of the rows."""
    cells = [[h for _, h, _ in COLS]] + [[_cell(r, k, f) for k, _, f in COLS] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLS))]
    text = "\n".join("  ".join(c[i].rjust(widths[i]) for i in range(len(COLS))) for c in cells)
    md = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(COLS)]
    md += ["| " + " | ".join(c) + " |" for c in cells[1:]]
    return text, "\n".join(md)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, no GPU used"


def run(args) -> int:
    from app.progress import step
    from maps.errors import MapError

    rows: list[dict] = []
    _warm_up_sssp(args.strategy)
    maps = list(args.map or [])
    if not args.map:
        try:
            import osmium  # noqa: F401  (the sample is an .osm.pbf)

            from maps.samples import SAMPLE_MAP

            if Path(SAMPLE_MAP).exists():
                maps.append(str(SAMPLE_MAP))
        except ImportError as exc:
            print(f"(sample map skipped: {exc})")
    for m in maps:
        print(f"measuring {m} ...", flush=True)
        try:
            with step(f"measuring {os.path.basename(m)}") as p:
                p(None, "loading (first and cached) and routing")
                rows.append(measure(m, args, os.path.basename(m)))
        except MapError as exc:
            print(f"  skipped: {exc}")
    if (args.kanto or not args.map) and not args.no_kanto:
        from maps.generate import KANTO_DEFAULT_NODES, kanto
        from maps.outputs.dimacs import write_dimacs

        n = args.kanto_nodes or KANTO_DEFAULT_NODES
        with tempfile.TemporaryDirectory(prefix="signpost-bench-kanto-") as d:
            print(f"generating kanto ({n:,} nodes) ...", flush=True)
            t0 = time.perf_counter()
            net = kanto(n, seed=args.seed)
            gen_s = time.perf_counter() - t0
            gr = os.path.join(d, "kanto.gr")
            t0 = time.perf_counter()
            write_dimacs(net, gr)
            write_s = time.perf_counter() - t0
            del net
            print(f"  generated in {gen_s:.2f} s, .gr + .co written in {write_s:.2f} s", flush=True)
            extra = {"gen_s": gen_s, "write_s": write_s}
            rows.append(measure(gr, args, "kanto (generated)", extra))
    text, md = table(rows)
    print()
    print(text)
    doc = args.doc or (str(DOC) if args.write_doc else None)
    if doc:
        cmd = "signpost bench load " + " ".join(
            a for a in (
                *(f"--map {m}" for m in (args.map or [])),
                f"--repeat {args.repeat}",
                f"--sources {args.sources}",
                f"--kanto-nodes {args.kanto_nodes}" if args.kanto_nodes else "",
                "--kanto" if args.kanto and args.map else "",
            ) if a
        )  # fmt: skip
        Path(doc).parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(doc, "w") as fh:
            fh.write(_doc_text(cmd, md))
        print(f"\nwrote {doc}")
    return 0


def _doc_text(cmd: str, md: str) -> str:
    return f"""# Map loading: first load, cached load, CPU route time

Measured by `{cmd}` on {machine()}
({time.strftime("%Y-%m-%d", time.gmtime())}).

- **load**: `load_map(path, use_cache=False)`: parse + build the CSR (median of the
  repeats).
- **load+cache write**: the first `load_map(path)` with an empty cache directory (builds,
  then writes the `.spn` entry).
- **cached load**: `load_map(path)` again: hash the source file (BLAKE2b) + read the
  `.spn` (median).
- **scipy Dijkstra**: `scipy.sparse.csgraph.dijkstra` from random sources (median per
  source); **sssp cpu**: one `gpu_core.sssp(..., backend="cpu")` search (numba, compiled
  beforehand, strategy `auto`), with its phase count; **conventional**: one search with
  seed 001's conventional strategy (Bellman-Ford phases) and its phase count.
- **generate / write**: `maps.generate.kanto` and `write_dimacs` (.gr + .co) times.

The development machine is shared with other jobs, so single timings vary by tens of
percent; the ratios within one row (load vs cached load) are the point. PACE graphs
(`.gr.xz`) are weighted with seed 1 (`maps.formats.dimacs.pace_weights`).

{md}
"""
