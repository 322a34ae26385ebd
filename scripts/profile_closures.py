"""Where a closure-to-ready goes (issue 26): 10 random closures a draw on a map's kept
metric, each step of the partial re-customization timed (changed rows, the kept copy of
the graph, the update (on the host, or on the device: update_device), the patch and its passes,
the device lists).

    python scripts/profile_closures.py NE.gr.xz [cpu|cupy|cupy-host] [topology.npz]

``cupy-host``: the cupy backend with the update on the host's cores (as before the
device's update), the rest as ``cupy``.
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])


def main() -> None:
    import bench_index_build as bench

    from gpu_core.graph import CSRGraph
    from gpu_core.hierarchy import cch, inputs, partial, patch
    from gpu_core.hierarchy.partial import prepare
    from maps.load import load_map

    backend = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    if backend == "cupy-host":
        backend = "cupy"
        partial.PARTIAL_DEVICE_MIN_EDGES = 1 << 62
    spent: dict[str, float] = {}

    def sync() -> None:
        if backend == "cupy":
            import cupy as cp

            cp.cuda.runtime.deviceSynchronize()

    def wrap(mod, name: str) -> None:
        f = getattr(mod, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            r = f(*a, **k)
            sync()
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t0
            return r

        setattr(mod, name, timed)

    for mod, name in ((partial, "update"), (partial, "patch_hierarchy"),
                      (inputs, "changed_inputs"), (patch, "_rewrite"), (patch, "_shift")):
        wrap(mod, name)
    if backend == "cupy":
        from gpu_core.hierarchy import patch_cuda

        wrap(patch_cuda, "follow")
        from gpu_core.hierarchy import partial_cuda

        wrap(partial_cuda, "update_device")
    wrap(inputs.KeptInputs, "of")
    g = CSRGraph.from_any(load_map(sys.argv[1]))
    t = bench._topology(g, sys.argv[3] if len(sys.argv) > 3 else "")
    cch.customize(t, g, backend=backend)
    prepare(t, backend)
    for seed in range(1, 9):
        g2 = CSRGraph.from_any(bench._closed(g, 10, 100 + seed))
        cch.customize(t, g, backend=backend)  # back to the map's metric
        spent.clear()
        s, h2 = bench._ready(t, g2, backend, False)
        print(f"draw {seed}: ready {1e3 * s:.1f} ms, {h2.customized}: "
              + ", ".join(f"{k} {1e3 * v:.1f}" for k, v in spent.items()), flush=True)


if __name__ == "__main__":
    main()
