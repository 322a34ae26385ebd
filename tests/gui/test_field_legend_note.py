"""Issue 42: with the distance field shown, ticking the isochrone polygons drew the band
legend again; its note ("4 bands (of 5 asked) ...") stayed in the legend's layout each
time, and the legend's box grew across the whole canvas, a dark strip over the map."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


def test_the_band_legend_keeps_one_note_and_its_size_when_drawn_again(qtbot):
    from app.gui.overlays import FieldLegend

    view = pg.GraphicsLayoutWidget()
    qtbot.addWidget(view)
    vb = view.addViewBox()
    legend = FieldLegend(vb, lambda v, unit: f"{v:,.0f}")
    edges = np.array([0, 2_000_000, 4_000_000, 6_000_000, 8_000_000])
    colours = np.array([[0, 0, 255], [0, 255, 0], [255, 128, 0], [200, 0, 0]])
    sizes = []
    for _ in range(3):  # the field, then the polygons ticked on, then off
        legend.show_bands(edges, colours, "", asked=5)
        notes = [it for it in legend.bands.childItems()
                 if isinstance(it, pg.LabelItem) and "asked" in it.text]
        assert len(notes) == 1 and legend.bands.layout.rowCount() == 5
        sizes.append((legend.bands.geometry().width(), legend.bands.geometry().height()))
    assert sizes[0] == sizes[1] == sizes[2]
    legend.show_bands(edges, colours, "", asked=4)  # as many as asked: no note at all
    assert not [it for it in legend.bands.childItems()
                if isinstance(it, pg.LabelItem) and "asked" in it.text]
    assert legend.bands.geometry().height() < sizes[0][1]
