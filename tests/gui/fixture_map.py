"""A small synthetic road + rail map for the GUI tests (built in memory, no file needed).

A 30 x 20 street grid about 100 m apart near Helsinki, with three road classes, one-way
arcs both ways, curved inner geometry on some arcs, a rail line with two stations joined
to the streets by transfer arcs, and a detached island of two nodes (unreachable).
"""

from __future__ import annotations

import numpy as np

from maps.geo.projection import to_lonlat
from maps.model.build import build_network
from maps.model.network import KIND_RAIL, KIND_ROAD, KIND_TRANSFER, RoadNetwork

COLS, ROWS = 30, 20
STEP_M = 100.0
ORIGIN = (24.94, 60.17)


def fixture_network(seed: int = 7) -> RoadNetwork:
    rng = np.random.default_rng(seed)
    n_grid = COLS * ROWS
    gx, gy = np.meshgrid(np.arange(COLS) * STEP_M, np.arange(ROWS) * STEP_M)
    x = list(gx.ravel() + rng.uniform(-15, 15, n_grid))
    y = list(gy.ravel() + rng.uniform(-15, 15, n_grid))
    tails, heads, cls, kind, geom = [], [], [], [], []
    names = ["primary", "secondary", "residential", "rail"]

    def add(u, v, c, k=KIND_ROAD, g=None):
        for a, b, gg in ((u, v, g), (v, u, None if g is None else g[::-1])):
            tails.append(a)
            heads.append(b)
            cls.append(c)
            kind.append(k)
            geom.append(gg)

    for r in range(ROWS):
        for c in range(COLS):
            u = r * COLS + c
            c_cls = 0 if r % 10 == 0 else (1 if r % 5 == 0 else 2)
            if c + 1 < COLS:
                v = u + 1
                g = None
                if (r + c) % 7 == 0:  # a bent street: one inner point off the straight line
                    g = np.array([[(x[u] + x[v]) / 2, (y[u] + y[v]) / 2 + 20.0]])
                add(u, v, c_cls, g=g)
            if r + 1 < ROWS:
                add(u, u + COLS, 0 if c % 10 == 0 else 2)
    # Rail: a diagonal line of 6 nodes, stations at both ends joined to the street grid.
    rail0 = len(x)
    for i in range(6):
        x.append(150.0 + i * 500.0)
        y.append(350.0 + i * 250.0)
    for i in range(5):
        add(rail0 + i, rail0 + i + 1, 3, KIND_RAIL)
    for st in (rail0, rail0 + 5):
        near = int(np.argmin(np.hypot(np.array(x[:n_grid]) - x[st], np.array(y[:n_grid]) - y[st])))
        add(st, near, 2, KIND_TRANSFER)
    # Island: two nodes 600 m beyond the grid's east edge, joined only to each other.
    isl = len(x)
    x += [COLS * STEP_M + 600.0, COLS * STEP_M + 700.0]
    y += [500.0, 500.0]
    add(isl, isl + 1, 2)

    x = np.array(x)
    y = np.array(y)
    lon, lat = to_lonlat(x, y, ORIGIN)
    tails = np.array(tails)
    heads = np.array(heads)
    lengths = np.hypot(x[heads] - x[tails], y[heads] - y[tails])
    w = np.maximum(np.round(lengths * 10), 1).astype(np.int64)  # decimetres
    return build_network(
        tails=tails, heads=heads, weights=w, node_ids=np.arange(len(x)) + 1000,
        unit="dm", profile="length", lon=lon, lat=lat, origin=ORIGIN,
        edge_kind=np.array(kind), edge_class=np.array(cls), class_names=names,
        geometry=geom, name="fixture grid",
    )
