"""Where a full customization goes (issue 26, "the index in seconds"): the route index of a
map built step by step, the customization on the host's cores and on the device side by
side in one process (same topology, same weights), each step timed, the two Hierarchies
compared array by array.

    python scripts/profile_customize.py NE.gr.xz            # a map file
    python scripts/profile_customize.py gen:kanto:24000000  # a generated map (nodes)
    options: --no-cpu (device only), --no-prune, --no-device
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _graph(spec: str):
    from gpu_core.graph import CSRGraph

    if spec.startswith("gen:"):
        from maps.generate import generate

        _, kind, *rest = spec.split(":")
        return CSRGraph.from_any(generate(kind, int(rest[0]) if rest else None, seed=1))
    from maps.load import load_map

    return CSRGraph.from_any(load_map(spec))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("map")
    ap.add_argument("--no-cpu", action="store_true", help="skip the host's customization")
    ap.add_argument("--no-device", action="store_true", help="skip the device's")
    ap.add_argument("--no-prune", action="store_true", help="basic customization only")
    a = ap.parse_args()
    t00 = time.perf_counter()

    def say(*x) -> None:
        print(f"[{time.perf_counter() - t00:7.1f} s]", *x, flush=True)

    from gpu_core.hierarchy import cch

    g = _graph(a.map)
    say(f"map: {g.num_nodes:,} nodes, {g.num_arcs:,} arcs")
    t = cch.build_topology(g)
    say(f"topology: order {t.order_s:.2f} s, chordal {t.topology_s:.2f} s", t.summary())
    prune = not a.no_prune
    out = {}
    if not a.no_device:
        import cupy as cp

        from gpu_core.hierarchy import metric_cuda

        # compile and warm the kernels on a small map first
        w = _graph("gen:kanto:20000")
        tw = cch.build_topology(w)
        metric_cuda.customize_full_device(tw, w, prune=prune)
        steps: dict[str, float] = {}
        orig = {k: getattr(metric_cuda, k) for k in ("_device", "_basic", "_perfect", "_host")}

        def timed(name):
            f = orig[name]

            def run(*x, **k):
                t0 = time.perf_counter()
                r = f(*x, **k)
                cp.cuda.runtime.deviceSynchronize()
                steps[name] = steps.get(name, 0.0) + time.perf_counter() - t0
                return r
            return run

        for k in orig:
            setattr(metric_cuda, k, timed(k))
        t0 = time.perf_counter()
        h = cch.customize(t, g, backend="cupy", prune=prune, reuse=False) if (
            t.edges >= cch.DEVICE_MIN_EDGES) else None
        if h is None:
            cch.DEVICE_MIN_EDGES = 0
            h = cch.customize(t, g, backend="cupy", prune=prune, reuse=False)
        out["device"] = h
        say(f"device customization {time.perf_counter() - t0:.2f} s: "
            + ", ".join(f"{k.strip('_')} {v:.2f}" for k, v in steps.items() if k != "_device")
            + f" (topology upload and tiles {steps.get('_device', 0):.2f})")
        for k, f in orig.items():
            setattr(metric_cuda, k, f)
    if not a.no_cpu:
        t0 = time.perf_counter()
        h = cch.customize(t, g, backend="cpu", prune=prune, reuse=False)
        out["cpu"] = h
        say(f"host customization {time.perf_counter() - t0:.2f} s")
    if len(out) == 2:
        same = all(np.array_equal(getattr(out["device"], f), getattr(out["cpu"], f)) for f in (
            "rank_of", "up_ptr", "up_dst", "up_w", "down_ptr", "down_src", "down_w",
            "level_ptr"))
        say(f"device and host Hierarchies equal: {same}")
    h = out.get("device") or out.get("cpu")
    if h is not None:
        say(f"index: {int(h.up_ptr[-1]) + int(h.down_ptr[-1]):,} arcs, "
            f"{h.level_ptr.shape[0] - 1} levels; build {t.order_s + t.topology_s:.1f} s "
            f"+ customization")


if __name__ == "__main__":
    main()
