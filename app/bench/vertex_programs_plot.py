"""Seed 003's Figures 5-8 as PNG from the rows of ``signpost bench vertex-programs``.

Figures 5-7: one group of bars per graph (the paper's x axis), one bar per implementation,
seconds on a log axis (as the paper's, which span 100x). Figure 8: time against |V| for the
scaling graphs, one panel per program, one line per implementation. The one-time
"(once, host)" preparation rows stay in the CSV only. Without matplotlib nothing is drawn
(the CSV has every number).
"""

from __future__ import annotations

from pathlib import Path

OVER_CAP = "over cap"  # vertex_programs.OVER_CAP (the check column of a capped row)

FIGURES = (  # (file, program, title)
    ("fig5_mst.png", "mst", "Seed 003 Figure 5: parallel Borůvka (MST)"),
    ("fig6_bellman_ford.png", "bf", "Seed 003 Figure 6: Bellman-Ford from the vertex of "
                                    "largest out-degree"),
    ("fig7_pagerank.png", "pagerank", "Seed 003 Figure 7: PageRank, fixed iterations"),
)
FIG8 = "fig8_scaling.png"
PROGRAM_NAMES = {"mst": "Borůvka MST", "bf": "Bellman-Ford", "pagerank": "PageRank"}


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return None
    return plt


def _seconds(row: dict) -> float:
    return max(float(row["median_ms"]) / 1e3, 1e-6)  # log axis: no zero bars


def _bars(plt, rows: list[dict], title: str, path: Path, device: str) -> None:
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    impls = list(dict.fromkeys(r["implementation"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(graphs) + 2), 4.8))
    width = 0.8 / max(len(impls), 1)
    over: list[bool] = []
    for j, impl in enumerate(impls):
        xs, ys = [], []
        for i, gname in enumerate(graphs):
            hit = [r for r in rows if r["graph"] == gname and r["implementation"] == impl]
            if hit:
                xs.append(i + (j - (len(impls) - 1) / 2) * width)
                ys.append(_seconds(hit[0]))
                over.append(hit[0]["check"] == OVER_CAP)
        bars = ax.bar(xs, ys, width, label=impl)
        for bar, capped in zip(bars, over, strict=True):
            if capped:  # stopped by --time-cap: the bar is a lower bound
                bar.set_hatch("//")
                ax.annotate(">", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", fontsize=7)
        over = []
    ax.set_xticks(range(len(graphs)), graphs, rotation=15, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("time (s, median)")
    ax.set_title(f"{title}\n{device} (CPU rows: its host); hatched '>': stopped at the "
                 "time cap", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _scaling(plt, rows: list[dict], path: Path, device: str) -> None:
    progs = [p for p in ("mst", "bf", "pagerank") if any(r["program"] == p for r in rows)]
    fig, axes = plt.subplots(1, max(len(progs), 1), figsize=(5 * max(len(progs), 1), 4.2),
                             squeeze=False)
    for ax, prog in zip(axes[0], progs, strict=False):
        sub = [r for r in rows if r["program"] == prog]
        for impl in dict.fromkeys(r["implementation"] for r in sub):
            pts = sorted((int(r["nodes"]), _seconds(r), r["check"] == OVER_CAP) for r in sub
                         if r["implementation"] == impl)
            line = ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=impl)
            capped = [p for p in pts if p[2]]  # lower bounds: open triangles
            if capped:
                ax.plot([p[0] for p in capped], [p[1] for p in capped], "^", ms=7,
                        mfc="none", color=line[0].get_color())
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("|V| (|E| = 16|V|)")
        ax.set_ylabel("time (s, median)")
        ax.set_title(PROGRAM_NAMES[prog], fontsize=10)
        ax.legend(fontsize=7)
    fig.suptitle(f"Seed 003 Figure 8: scaling, random graphs ({device}; open triangle: "
                 "stopped at the time cap)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_figures(table: list[dict], out: Path, device: str = "") -> list[Path]:
    """The PNGs of Figures 5-8 that ``table`` has rows for; the paths written."""
    plt = _pyplot()
    if plt is None:
        return []
    written = []
    table = [r for r in table if "(once, host)" not in r["implementation"]]  # CSV only
    fixed = [r for r in table if r["kind"] != "scaling"]
    for name, prog, title in FIGURES:
        rows = [r for r in fixed if r["program"] == prog]
        if rows:
            _bars(plt, rows, title, out / name, device)
            written.append(out / name)
    scaled = [r for r in table if r["kind"] == "scaling"]
    if scaled:
        _scaling(plt, scaled, out / FIG8, device)
        written.append(out / FIG8)
    return written
