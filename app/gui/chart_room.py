"""Room for a chart's legend above its data (issue 42: phase-chart legends sat on the
curves at 1024 × 700): the y range grows at the top by the share of the plot the legend
covers, so no point is drawn under it."""

from __future__ import annotations

MAX_SHARE = 0.85  # a legend taller than this share of its plot gets no more room


def make_room(plot, legend, lo: float | None = None, hi: float | None = None) -> tuple | None:
    """Set ``plot``'s y range to [lo, hi] (default: its items' bounds) plus headroom for
    ``legend`` (top corner); returns the range set, or None when nothing was changed."""
    vb = plot.getViewBox()
    h = float(vb.height())
    if not legend.isVisible() or not legend.items or h <= 0:
        return None
    if lo is None or hi is None:
        bounds = vb.childrenBounds()
        if bounds is None or bounds[1] is None:
            return None
        lo, hi = min(0.0, float(bounds[1][0])), float(bounds[1][1])
    span = max(hi - lo, 1e-9)
    share = min((legend.boundingRect().height() + 10.0) / h, MAX_SHARE)
    top = hi + span * share / (1.0 - share)
    vb.setYRange(lo, top, padding=0)
    return lo, top
