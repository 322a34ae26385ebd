"""Issue 42, item 8: at 1024 × 700 the billboards dock showed 1 of 5 result rows and the
SB-vs-k chart was below the fold even at 1600 × 1000."""

from __future__ import annotations

import pytest

from app.gui.layout_check import problems
from app.gui.screens import SIZES, stage


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_five_rows_and_the_chart_in_view(qtbot, window, size):
    window.resize(*size)
    window.default_layout()
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=3000)

    def wait(pred, timeout_s):
        qtbot.waitUntil(pred, timeout=int(timeout_s * 1000))

    stage(window, "billboards", wait)
    qtbot.wait(100)
    panel = window.tools["billboards"].panel
    assert panel.table.rowCount() == 5
    area = window.dock("billboards").widget()
    fold = area.viewport().height()
    inner = area.widget()
    table_bottom = panel.table.mapTo(inner, panel.table.rect().bottomLeft()).y()
    chart_bottom = panel.plot.mapTo(inner, panel.plot.rect().bottomLeft()).y()
    assert table_bottom <= fold, f"rows end at {table_bottom} px, the dock shows {fold}"
    assert chart_bottom <= fold, f"the chart ends at {chart_bottom} px, the dock shows {fold}"
    assert panel.plot.height() >= panel.plot.minimumHeight()
    assert not [p for p in problems(window.dock("billboards")) if "below the fold" in p]
