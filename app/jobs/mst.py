"""Minimum spanning forest of a map (seed 003's Borůvka vertex program, or direct)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

import numpy as np

from app.jobs.common import CancelCheck, Progress, report

if TYPE_CHECKING:
    from gpu_core.programs import MSTResult as Forest


@dataclass(frozen=True)
class MSTOptions:
    backend: str = "auto"  # auto | cpu | cupy
    method: str = "framework"  # framework (the Borůvka vertex program, with its superstep
    # telemetry) | direct (direct Borůvka on the GPU, Kruskal on the CPU) | kruskal


@dataclass
class MSTResult:
    forest: Forest  # node indices, weights, telemetry
    from_ids: np.ndarray  # source-file ids of each edge's smaller-index end
    to_ids: np.ndarray  # ... and of its other end
    unit: str
    nodes: int
    compile_s: float = 0.0  # kernels compiled / loaded before the (timed) run

    @property
    def edges(self) -> int:
        return self.forest.num_edges


# on_superstep(row): one gpu_core.programs.SUPERSTEP_DTYPE row, as each superstep ends
SuperstepSink = Callable[[np.void], None]


def superstep_reporter(progress: Progress | None, what: str,
                       on_superstep: SuperstepSink | None = None):
    """An on_superstep callback turning telemetry rows into progress messages (and
    handing each row on to ``on_superstep``, e.g. the GUI's live chart)."""
    if progress is None and on_superstep is None:
        return None

    def on_row(row) -> None:
        report(progress, None, f"{what}: superstep {int(row['superstep'])}, "
                               f"{int(row['active'])} active, {int(row['messages'])} messages")
        if on_superstep is not None:
            on_superstep(row)

    return on_row


def write_csv(fh: TextIO, res: MSTResult) -> None:
    """The forest as CSV ``from_id,to_id,weight`` (`signpost mst --out F.csv`)."""
    fh.write("from_id,to_id,weight\n")
    rows = zip(res.from_ids.tolist(), res.to_ids.tolist(), res.forest.weights.tolist(),
               strict=True)
    fh.write("".join(f"{a},{b},{w}\n" for a, b, w in rows))


def write_geojson(fh: TextIO, net, res: MSTResult) -> None:
    """The forest as GeoJSON LineStrings (`signpost mst --out F.geojson`)."""
    f = res.forest
    lon = np.round(net.lon, 7).tolist()
    lat = np.round(net.lat, 7).tolist()
    feats = [
        {"type": "Feature",
         "geometry": {"type": "LineString", "coordinates": [[lon[u], lat[u]], [lon[v], lat[v]]]},
         "properties": {"from_id": a, "to_id": b, "weight": w}}
        for u, v, a, b, w in zip(f.tails.tolist(), f.heads.tolist(), res.from_ids.tolist(),
                                 res.to_ids.tolist(), f.weights.tolist(), strict=True)
    ]
    json.dump({"type": "FeatureCollection", "features": feats}, fh)
    fh.write("\n")


def run(net, opts: MSTOptions, *, progress: Progress | None = None,
        cancel: CancelCheck | None = None,
        on_superstep: SuperstepSink | None = None) -> MSTResult:
    from app.jobs.warm_up import warm
    from gpu_core.programs import minimum_spanning_forest

    report(progress, 0.0, "minimum spanning forest: loading the kernels")
    compile_s = warm("mst", opts.backend, opts.method)
    report(progress, 0.0, "minimum spanning forest")
    forest = minimum_spanning_forest(
        net, backend=opts.backend, method=opts.method,
        on_superstep=superstep_reporter(progress, "MST", on_superstep), cancel=cancel)
    labels = net.node_labels()
    report(progress, 1.0, f"{forest.num_edges} forest edges")
    return MSTResult(forest, labels[forest.tails], labels[forest.heads], net.unit,
                     net.num_nodes, compile_s)
