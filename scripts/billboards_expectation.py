"""Write the exact greedy's sites and gains on a map as JSON (floats as hex: bit for bit),
for ``tests/core/test_billboards_sample.py``. Run it with the code to be kept as the
reference on ``PYTHONPATH`` (e.g. an older commit unpacked by ``git archive``)::

    git archive d2fe593 gpu_core maps app resources | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python scripts/billboards_expectation.py \
        maps/samples/helsinki.osm.pbf 5 tests/fixtures/billboards/helsinki_k5.json d2fe593
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    """Usage: MAP K OUT.json LABEL (the label says which code produced it)."""
    from gpu_core.betweenness import place_billboards
    from gpu_core.graph import CSRGraph
    from maps.load import load_map

    path, k, out, label = argv[0], int(argv[1]), argv[2], argv[3]
    g = CSRGraph.from_any(load_map(path))
    r = place_billboards(g, k, mode="weighted", backend="cpu", method="exact")
    doc = {
        "generated_by": f"scripts/billboards_expectation.py with the code of {label}",
        "map": path, "k": k, "mode": "weighted", "nodes": g.num_nodes, "arcs": g.num_arcs,
        "sites": [int(v) for v in r.sites],
        "gains": [float(x).hex() for x in r.gains],
        "pairs": [float(x).hex() for x in r.pairs],
        "base_group_betweenness": float(r.base_group_betweenness).hex(),
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
