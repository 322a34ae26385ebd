"""What a tool's ``stage`` (its representative screen, ``app.gui.screens``) uses to act
as a user would: well spread road points, and whether the window is idle."""

from __future__ import annotations

import numpy as np


def spread_points(win, k: int) -> list[tuple[float, float]]:
    """``k`` well spread road points of the map (x, y metres): nodes nearest to spots on
    the diagonal of the map's central box."""
    net = win.net
    _, label = net.components()
    main = np.argmax(np.bincount(label))  # points on the main network: every pair reachable
    ok = np.isfinite(net.x) & np.isfinite(net.y) & (label == main)
    xs, ys = net.x[ok], net.y[ok]
    qx = np.quantile(xs, np.linspace(0.2, 0.8, k))
    qy = np.quantile(ys, np.linspace(0.25, 0.75, k))
    out = []
    for a, b in zip(qx, qy, strict=True):
        i = int(np.argmin(np.hypot(xs - a, ys - b)))
        out.append((float(xs[i]), float(ys[i])))
    return out


def idle(win) -> bool:
    """No job in the worker and no search waiting to be drawn."""
    return not win.compute.busy() and win._search_job not in win._handlers
