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


def fit_legend(plot, legend, *, hide: bool) -> None:
    """``legend`` in one column, or in two where one is taller than ``plot``. ``hide``:
    hidden (its names in the plot's tooltip) where it fits neither way and holds more than
    two entries, instead of running over the plot's edge (wide tick labels, "2e+07" µs
    when a first run's compilation makes a phase seconds long, leave two columns too
    little width)."""
    vb = plot.getViewBox()
    for cols in (1, 2):
        if legend.columnCount != cols:
            legend.setColumnCount(cols)
            legend.updateSize()
        if len(legend.items) <= 2 or legend.boundingRect().height() <= vb.height() - 8:
            break
    if not hide:
        return
    r = legend.boundingRect()
    fits = r.width() <= vb.width() - 8 and r.height() <= vb.height() - 8
    legend.setVisible(bool(legend.items) and (fits or len(legend.items) <= 2))
    plot.setToolTip("" if legend.isVisible() else
                    "phases: " + ", ".join(lbl.text for _s, lbl in legend.items))
