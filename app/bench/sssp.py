"""``signpost bench sssp``: SSSP strategies per source vs scipy's Dijkstra; seed 001 Fig. 6/8.

    signpost bench sssp --map gen:kanto --sources 10 --backend cupy --out bench_out/

Per strategy: median wall time per source of the whole ``gpu_core.sssp.sssp`` call (device
set-up of the search, every phase, the predecessor pass and the copy of dist/pred back to
host memory; the device graph is built once, outside the timing, by a warm-up run), the
median phase count, edges relaxed, MTEPS (edges relaxed / median time) and the speedup over
scipy's Dijkstra measured in the same run on the same sources. Every result is checked
against scipy (exit status 1 on a mismatch). Writes ``sssp_table.csv``,
``fig6_phases.csv/.png`` (per-phase time and updated vertices of conventional / selection /
adaptive for one source) and ``fig8_threshold.csv/.png`` (adaptive time vs the switch
threshold) into ``--out``. Strategy names may carry the adaptive signal:
``adaptive:time`` (seed 001) or ``adaptive:frontier``.

Imports only numpy/scipy/gpu_core/maps (and matplotlib when present): it runs on the GPU
machine, which has no Qt, shapely or osmium.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from osutil.atomic import atomic_open, atomic_paths


def _default_strategies() -> tuple[str, ...]:
    """Every registered strategy, with its benchmark variants (adaptive:time, ...)."""
    from gpu_core.sssp.registry import BENCH_STRATEGIES

    return BENCH_STRATEGIES


# seed 001 Figure 8: switch-up thresholds swept (µs); switch-down = up · 330/350 as in seed 001
FIG8_THRESHOLDS_US = (10, 15, 20, 25, 30, 40, 50, 70, 100, 150, 250, 350, 600, 1000)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", required=True,
                   help="map file (.gr.xz PACE, .gr, .spn, OSM, ...) or gen:KIND[:N] (gen:kanto)")
    p.add_argument("--sources", type=int, default=10, help="random sources (seeded)")
    p.add_argument("--strategies", default=",".join(_default_strategies()),
                   help="comma-separated; adaptive:time / adaptive:frontier pick the signal")
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cupy"))
    p.add_argument("--seed", type=int, default=1, help="seed of the sources and generators")
    p.add_argument("--out", default="bench_out", help="folder for CSV/PNG")
    p.add_argument("--budget-s", type=float, default=20.0,
                   help="stop timing a strategy after this many seconds (fewer sources)")
    p.add_argument("--no-figures", action="store_true", help="skip Figures 6 and 8")
    p.add_argument("--fig8-sources", type=int, default=3)
    p.add_argument("--auto-sweep", action="store_true",
                   help="also time auto over local_rounds x blocks_per_sm (cupy only)")
    p.add_argument("--index", nargs="?", const="cache", default=None, metavar="FILE.npz",
                   help="add the auto+index row (searches through the key route index): "
                        "from FILE.npz (built and saved there when missing), else the "
                        "cache folder's (built once)")
    p.add_argument("--adaptive-sweep", action="store_true",
                   help="also time adaptive (frontier) vs frontier_fraction, with one and two"
                        " grid barriers per phase (cupy only)")


def _load(spec: str, seed: int):
    """(graph, label) of a map file or gen:KIND[:N]."""
    if spec.startswith("gen:"):
        from maps.generate import generate

        parts = spec.split(":")
        n = int(parts[2]) if len(parts) > 2 else None
        return generate(parts[1], n=n, seed=seed), spec
    path = Path(spec)
    if path.name.endswith((".gr.xz", ".gr.gz")) and path.exists():
        from maps.formats.dimacs import load_pace

        try:
            return load_pace(path, seed=1), f"{path.name} (PACE, weights 1..1000 seed 1)"
        except Exception:  # a real DIMACS .gr.gz: the general loader knows it
            pass
    from app.progress import step
    from maps.load import load_map

    with step(f"loading {path.name}") as p:
        return load_map(path, use_cache=False, progress=p), path.name


def _parse_strategy(spec: str):
    from gpu_core.errors import InvalidArgumentError
    from gpu_core.sssp import SSSPOptions
    from gpu_core.sssp.registry import get

    name, _, signal = spec.partition(":")
    try:
        get(name)
    except InvalidArgumentError as exc:  # one line, exit 2 (the CLI prints it)
        raise InvalidArgumentError(f"--strategies {spec!r}: {exc}") from None
    opts = SSSPOptions(adaptive_signal=signal) if signal else SSSPOptions()
    return name, opts


def _scipy_times(g, sources) -> tuple[list[float], list[np.ndarray]]:
    from gpu_core.reference import scipy_distances

    times, dists = [], []
    for s in sources:
        t0 = time.perf_counter()
        d = scipy_distances(g, np.array([s], dtype=np.int32))
        times.append(time.perf_counter() - t0)
        dists.append(d)
    return times, dists


def _time_strategy(g, sources, name, opts, backend, ref_dists, budget_s):
    """Per-source times (s) of the backend's run() (the search, the predecessor pass and
    dist/pred back in host memory), phases, edges, summed phase times, mismatching sources,
    and the median wall time of the public sssp() call on up to 3 sources (it adds the
    host-side split of keys into dist/hops)."""
    from app.progress import track
    from gpu_core.errors import CancelledError
    from gpu_core.keys import key_space_for
    from gpu_core.sssp import run_backend, sssp

    ks = key_space_for(g.weights, g.num_nodes)
    # one search may not run past the budget (eval_dijkstra settles ~2 vertices per phase
    # on road maps: hundreds of thousands of phases): cancel it and report the strategy
    deadline = {"t": time.perf_counter() + budget_s}

    def too_long() -> bool:
        return time.perf_counter() > deadline["t"]

    try:
        sssp(g, int(sources[0]), strategy=name, backend=backend, options=opts,
             cancel=too_long)  # warm-up
    except CancelledError:
        return None
    times, phases, edges, kernel_us, bad = [], [], [], [], []
    spent = 0.0
    for s, ref in track(list(zip(sources, ref_dists, strict=False)), f"sssp {name}",
                       unit="sources"):
        src = np.array([s], dtype=np.int32)
        t0 = time.perf_counter()
        deadline["t"] = t0 + budget_s
        try:
            key, _pred, log = run_backend(backend, g, src, name, opts, ks, cancel=too_long)
        except CancelledError:
            break
        dt = time.perf_counter() - t0
        times.append(dt)
        phases.append(len(log))
        edges.append(log.total_edges)
        kernel_us.append(log.total_time_us)
        if not np.array_equal(ks.split(key)[0], ref):
            bad.append(int(s))
        spent += dt
        if spent > budget_s:
            break
    if not times:
        return None
    api = []
    for s in sources[: min(3, len(times))]:
        t0 = time.perf_counter()
        sssp(g, int(s), strategy=name, backend=backend, options=opts)
        api.append(time.perf_counter() - t0)
    return times, phases, edges, kernel_us, bad, statistics.median(api)


def _fig6(g, source, backend, out: Path) -> None:
    from gpu_core.sssp import SSSPOptions, sssp

    runs = {}
    for label, name, opts in (
        ("conventional", "conventional", SSSPOptions()),
        ("selection", "selection", SSSPOptions()),
        ("adaptive_time", "adaptive", SSSPOptions(adaptive_signal="time")),
        ("adaptive_frontier", "adaptive", SSSPOptions(adaptive_signal="frontier")),
    ):
        sssp(g, source, strategy=name, backend=backend, options=opts)  # warm-up
        runs[label] = sssp(g, source, strategy=name, backend=backend, options=opts).phases
    k = len(runs["conventional"])
    with atomic_open(out / "fig6_phases.csv", "w") as fh:
        w = csv.writer(fh)
        w.writerow(["phase", "updated_vertices"] + [f"{lab}_time_us" for lab in runs]
                   + ["adaptive_time_mode", "adaptive_frontier_mode"])
        for i in range(k):
            w.writerow([i, int(runs["conventional"].rows["frontier"][i])]
                       + [f"{runs[lab].rows['time_us'][i]:.2f}" for lab in runs]
                       + [runs["adaptive_time"].mode_names()[i],
                          runs["adaptive_frontier"].mode_names()[i]])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return
    fig, ax = plt.subplots(figsize=(10, 5))
    x = np.arange(k)
    for lab, style in zip(runs, ("-", "-", "--", ":"), strict=True):
        ax.plot(x, runs[lab].rows["time_us"], style, lw=0.8, label=lab)
    ax.set_yscale("log")
    ax.set_xlabel("phase")
    ax.set_ylabel("phase time (µs, host-measured)")
    ax2 = ax.twinx()
    ax2.plot(x, runs["conventional"].rows["frontier"], color="grey", lw=0.6, alpha=0.6,
             label="updated vertices")
    ax2.set_ylabel("updated vertices")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("Seed 001 Figure 6: per-phase time and updated vertices (one source)")
    fig.tight_layout()
    with atomic_paths([out / "fig6_phases.png"]) as (tmp,):
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def _fig8(g, sources, backend, out: Path, conv_median_s: float | None) -> list[tuple]:
    from gpu_core.sssp import SSSPOptions, sssp

    rows = []
    for up in FIG8_THRESHOLDS_US:
        opts = SSSPOptions(adaptive_signal="time", switch_up_us=float(up),
                           switch_down_us=float(up) * 330.0 / 350.0)
        sssp(g, int(sources[0]), strategy="adaptive", backend=backend, options=opts)
        ts = []
        for s in sources:
            t0 = time.perf_counter()
            sssp(g, int(s), strategy="adaptive", backend=backend, options=opts)
            ts.append(time.perf_counter() - t0)
        rows.append((up, statistics.median(ts)))
    fr = SSSPOptions(adaptive_signal="frontier")
    ts = []
    for s in sources:
        t0 = time.perf_counter()
        sssp(g, int(s), strategy="adaptive", backend=backend, options=fr)
        ts.append(time.perf_counter() - t0)
    fr_med = statistics.median(ts)
    with atomic_open(out / "fig8_threshold.csv", "w") as fh:
        w = csv.writer(fh)
        w.writerow(["switch_up_us", "switch_down_us", "adaptive_time_ms",
                    "conventional_ms", "adaptive_frontier_ms"])
        for up, t in rows:
            w.writerow([up, f"{up * 330 / 350:.1f}", f"{t * 1e3:.3f}",
                        f"{conv_median_s * 1e3:.3f}" if conv_median_s else "",
                        f"{fr_med * 1e3:.3f}"])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return rows
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r[0] for r in rows], [r[1] * 1e3 for r in rows], "o-", label="adaptive (time signal)")
    if conv_median_s:
        ax.axhline(conv_median_s * 1e3, color="red", ls="--", label="conventional")
    ax.axhline(fr_med * 1e3, color="green", ls=":", label="adaptive (frontier signal)")
    ax.set_xscale("log")
    ax.set_xlabel("switch-up threshold (µs; down = up·330/350)")
    ax.set_ylabel("median time per source (ms)")
    ax.set_title("Seed 001 Figure 8: adaptive time vs threshold")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_paths([out / "fig8_threshold.png"]) as (tmp,):
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
    return rows


def _auto_sweep(g, sources, out: Path) -> None:
    from gpu_core.keys import key_space_for
    from gpu_core.sssp import AutoTuning, SSSPOptions, run_backend, sssp

    ks = key_space_for(g.weights, g.num_nodes)
    nf = dict(schedule="nearfar")
    configs: list[dict[str, Any]] = [
        {},  # the defaults (schedule by_weights)
        dict(nf),
        dict(nf, local_rounds=32, local_queue=256),
        dict(nf, stage=False),
        dict(nf, delta_factor=8.0),
        dict(nf, delta_factor=32.0),
        dict(schedule="bf"),
        dict(schedule="bf", bf_local_rounds=16, local_queue=256),
    ]
    rows = []
    for cfg in configs:
        opts = SSSPOptions(auto=AutoTuning(**cfg))
        sssp(g, int(sources[0]), strategy="auto", backend="cupy", options=opts)
        ts, ph, ed, dev = [], [], [], []
        for s in sources:
            t0 = time.perf_counter()
            _key, _pred, log = run_backend("cupy", g, np.array([s], np.int32), "auto", opts,
                                           ks)
            ts.append(time.perf_counter() - t0)
            ph.append(len(log))
            ed.append(log.total_edges)
            dev.append(log.total_time_us)
        label = " ".join(f"{k}={v}" for k, v in cfg.items()) or "defaults"
        rows.append((label, statistics.median(ts) * 1e3, statistics.median(dev) / 1e3,
                     statistics.median(ph), statistics.median(ed)))
        print(f"  auto {label}: run {rows[-1][1]:.2f} ms (device {rows[-1][2]:.2f} ms, "
              f"{rows[-1][3]:.0f} phases, {rows[-1][4] / 1e6:.2f} M edges)", flush=True)
    with atomic_open(out / "auto_sweep.csv", "w") as fh:
        w = csv.writer(fh)
        w.writerow(["config", "run_ms", "device_ms", "phases", "edges"])
        for r in rows:
            w.writerow([r[0], f"{r[1]:.3f}", f"{r[2]:.3f}", r[3], r[4]])


def _adaptive_sweep(g, sources, out: Path, conv_median_s: float | None) -> None:
    """adaptive (frontier signal) run() time vs frontier_fraction, for both device
    variants: one grid barrier per phase (fused, the default) and two (UPDATE pass)."""
    from gpu_core.keys import key_space_for
    from gpu_core.sssp import SSSPOptions, run_backend

    ks = key_space_for(g.weights, g.num_nodes)
    rows = []
    for fused in (True, False):
        for frac in (0.0, 0.005, 0.02, 0.05, 0.2, 1.0):
            opts = SSSPOptions(adaptive_signal="frontier", frontier_fraction=frac,
                               adaptive_fused=fused)
            src0 = np.array([sources[0]], np.int32)
            run_backend("cupy", g, src0, "adaptive", opts, ks)  # warm-up
            ts, full = [], []
            for s in sources:
                t0 = time.perf_counter()
                _k, _p, log = run_backend("cupy", g, np.array([s], np.int32), "adaptive",
                                          opts, ks)
                ts.append(time.perf_counter() - t0)
                full.append(int((log.rows["mode"] == 0).sum()))
            med = statistics.median(ts)
            ratio = conv_median_s / med if conv_median_s else float("nan")
            rows.append((int(fused), frac, med * 1e3, statistics.median(full), ratio))
            print(f"  adaptive:frontier fused={int(fused)} fraction={frac:g}: "
                  f"{med * 1e3:.2f} ms ({rows[-1][3]:.0f} full phases, x{ratio:.2f} conv)",
                  flush=True)
    with atomic_open(out / "adaptive_sweep.csv", "w") as fh:
        w = csv.writer(fh)
        w.writerow(["fused", "frontier_fraction", "run_ms", "full_phases", "x_conventional"])
        for r in rows:
            w.writerow([r[0], r[1], f"{r[2]:.3f}", r[3], f"{r[4]:.3f}"])


def run(args: argparse.Namespace) -> int:
    from gpu_core.backend import describe_backend, resolve_backend
    from gpu_core.graph import CSRGraph
    from gpu_core.reference import reference_sssp

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    backend = resolve_backend(args.backend)
    t0 = time.perf_counter()
    net, label = _load(args.map, args.seed)
    g = CSRGraph.from_any(net)
    wlo = int(g.weights.min()) if g.num_arcs else 0
    whi = int(g.weights.max()) if g.num_arcs else 0
    print(f"map {label}: {g.num_nodes:,} nodes, {g.num_arcs:,} arcs, weights {wlo}..{whi}"
          f" (loaded in {time.perf_counter() - t0:.1f} s)")
    print(f"backend {backend}: {describe_backend(backend)}")
    rng = np.random.default_rng(args.seed)
    sources = rng.integers(0, g.num_nodes, max(1, args.sources))
    sc_times, ref_dists = _scipy_times(g, sources)
    sc_med = statistics.median(sc_times)
    print(f"scipy Dijkstra: median {sc_med * 1e3:.1f} ms per source ({len(sources)} sources)")
    # one full reference (dist + pred) check per strategy on the first source
    _, _, ref_pred = reference_sssp(g, int(sources[0]))

    from gpu_core.sssp import sssp

    table = []
    failed = False
    for spec in [s for s in args.strategies.split(",") if s]:
        name, opts = _parse_strategy(spec)
        got = _time_strategy(g, sources, name, opts, backend, ref_dists, args.budget_s)
        if got is None:
            print(f"  {spec:22s} one search takes longer than --budget-s {args.budget_s:g} s:"
                  " cancelled, not timed")
            continue
        res0 = sssp(g, int(sources[0]), strategy=name, backend=backend, options=opts)
        if not (np.array_equal(res0.dist, ref_dists[0]) and np.array_equal(res0.pred, ref_pred)):
            print(f"MISMATCH {spec}: dist/pred differ from the reference on source {sources[0]}")
            failed = True
        times, phases, edges, kern, bad, api = got
        if bad:
            print(f"MISMATCH {spec}: dist differs from scipy on sources {bad[:5]}")
            failed = True
        med = statistics.median(times)
        e_med = statistics.median(edges)
        row = {
            "strategy": spec,
            "sources": len(times),
            "median_ms": med * 1e3,
            "phases": statistics.median(phases),
            "edges": e_med,
            "mteps": e_med / med / 1e6,
            "speedup_vs_scipy": statistics.median(sc_times[: len(times)]) / med,
            "phase_time_sum_ms": statistics.median(kern) / 1e3,
            "sssp_api_ms": api * 1e3,
        }
        table.append(row)
        print(f"  {spec:22s} {row['median_ms']:9.2f} ms  {row['phases']:8.0f} phases  "
              f"{row['edges'] / 1e6:8.2f} M edges  {row['mteps']:8.1f} MTEPS  "
              f"x{row['speedup_vs_scipy']:6.1f} vs scipy  phases-sum {row['phase_time_sum_ms']:7.2f}"
              f" ms  sssp() {row['sssp_api_ms']:7.2f} ms  (n={row['sources']})", flush=True)
    if args.index:
        from .sssp_index import index_row

        row, ok = index_row(g, sources, backend, ref_dists, ref_pred, args.index, args.budget_s)
        row["speedup_vs_scipy"] = statistics.median(sc_times[: row["sources"]]) / (
            row["median_ms"] / 1e3)
        if not ok:
            print("MISMATCH auto+index: dist/pred differ from the reference")
            failed = True
        table.append(row)
        print(f"  {'auto+index':22s} {row['median_ms']:9.2f} ms  {row['phases']:8.0f} phases  "
              f"{row['edges'] / 1e6:8.2f} M edges  x{row['speedup_vs_scipy']:6.1f} vs scipy  "
              f"(n={row['sources']})", flush=True)
    with atomic_open(out / "sssp_table.csv", "w") as fh:
        w = csv.DictWriter(fh, fieldnames=list(table[0]) if table else ["strategy"])
        w.writeheader()
        for r in table:
            w.writerow(r)
    by = {r["strategy"]: r for r in table}
    conv = by.get("conventional")
    if not args.no_figures and (backend == "cupy" or g.num_nodes < 300_000):
        _fig6(g, int(sources[0]), backend, out)
        _fig8(g, sources[: max(1, args.fig8_sources)], backend, out,
              conv["median_ms"] / 1e3 if conv else None)
    if args.auto_sweep and backend == "cupy":
        _auto_sweep(g, sources[: min(len(sources), 5)], out)
    if args.adaptive_sweep and backend == "cupy":
        _adaptive_sweep(g, sources[: min(len(sources), 3)], out,
                        conv["median_ms"] / 1e3 if conv else None)
    # one summary line (scripts/gpu_part_sssp.sh collects it)
    parts = [f"map={label.split(' ')[0]}", f"n={g.num_nodes}", f"scipy={sc_med * 1e3:.1f}ms"]
    for k in ("auto", "auto+index"):
        if k in by:
            a = by[k]
            parts.append(f"{k}={a['median_ms']:.2f}ms(x{a['speedup_vs_scipy']:.0f})")
    for k in ("adaptive:frontier", "adaptive:time", "adaptive"):
        if k in by and conv:
            parts.append(f"{k}/conv={conv['median_ms'] / by[k]['median_ms']:.2f}x")
    parts.append("verify=" + ("FAIL" if failed else "ok"))
    print("SUMMARY " + " ".join(parts))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":  # python -m app.bench.sssp ... (no CLI dispatcher needed)
    ap = argparse.ArgumentParser(prog="bench sssp")
    add_arguments(ap)
    raise SystemExit(run(ap.parse_args()))
