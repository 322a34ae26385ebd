"""The exact-greedy kernel comparison's outputs for ``signpost bench billboards``: the
per-K table with the kernels' agreement, and the time-vs-K figure."""

from __future__ import annotations

import numpy as np

from osutil.atomic import atomic_paths


def kernel_table(name: str, g, mode: str, nsrc: int, kernels: list, results: dict,
                  k_max: int) -> str | None:
    """Print the cumulative time per K of every kernel and whether they agree; the
    summary line comparing their time per round (None: nothing finished)."""
    print(f"{'K':>3} " + " ".join(f"{k:>15}" for k in kernels) + "   (cumulative s, "
          f"{nsrc} sources/round)")
    for i in range(k_max):
        cells = []
        for k in kernels:
            cum = results[k][1]
            cells.append(f"{cum[i]:>15.3f}" if i < len(cum) else f"{'-':>15}")
        print(f"{i + 1:>3} " + " ".join(cells))
    done = {k: v for k, v in results.items() if v[0] is not None}
    if len(done) > 1:  # every finished kernel must pick the same sites
        ref = next(iter(done.values()))[0]
        same = all(list(r.sites) == list(ref.sites) for r, _ in done.values())
        print(f"sites agree across kernels: {same}")
    per_round = {k: (v[1][-1] / len(v[1])) for k, v in results.items() if len(v[1])}
    if per_round:
        best = min(per_round, key=lambda k: per_round[k])
        ratio = ", ".join(f"{k} {per_round[k] / per_round[best]:.2f}x" for k in per_round)
        line = (f"billboards {name} ({g.num_nodes}n/{g.num_arcs}a, {mode}, {nsrc} src): "
                f"s/round {', '.join(f'{k}={v:.3f}' for k, v in per_round.items())}; "
                f"fastest {best}; time vs fastest: {ratio}")
        print(line)
        return line
    return None


def plot_times(fig: dict, device: str, path: str) -> None:
    """Time against K per graph and kernel (paper 002's figure 4), when matplotlib is there."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = sorted({n for n, _ in fig})
        f, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4), squeeze=False)
        for ax, nm in zip(axes[0], names, strict=True):
            for (n2, kern), cum in fig.items():
                if n2 == nm and len(cum):
                    ax.plot(np.arange(1, len(cum) + 1), cum, marker="o", label=kern)
            ax.set_title(nm)
            ax.set_xlabel("K")
            ax.set_ylabel("time (s)")
            ax.legend()
        f.suptitle(f"Greedy billboards, time vs K ({device})")
        f.tight_layout()
        with atomic_paths([path]) as (tmp,):
            f.savefig(tmp, dpi=90)
    except ImportError:
        pass
