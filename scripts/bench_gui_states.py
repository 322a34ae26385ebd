"""The heavy window states of `signpost bench gui` alone (issue 42): isochrone polygons and
the field/view exports on the generated Kanto-sized map at the given sizes, offscreen.

    QT_QPA_PLATFORM=offscreen python scripts/bench_gui_states.py 300000 1427876

Prints the table of ``app.bench.gui_states.states_table`` (docs/perf/gui_states.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(sizes: list[str]) -> int:
    from app.bench.gui import _qapp

    _qapp()
    from app.bench.gui_states import measure_states, states_table
    from maps.generate import generate

    rows: list[dict] = []
    for n in map(int, sizes or ["300000"]):
        net = generate("kanto", n, seed=1)
        rows += measure_states(net, f"kanto {net.num_nodes:,} nodes / {net.num_arcs:,} arcs")
        del net
    print(states_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
