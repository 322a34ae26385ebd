"""Issue 27: every tool usable at 1024 × 700 (and 1600 × 1000). Each tool's screen is set
up as a user would (``app.gui.screens.stage``) and must have no clipped text, no elided
dock tab, no widget squeezed below its size, no overlapping widgets, no chart axis title
longer than its axis, no map overlay over another (``app.gui.layout_check``)."""

from __future__ import annotations

import pytest

from app.gui.screens import SIZES, TOOL_ORDER, stage, tool_problems


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("tool", TOOL_ORDER)
def test_tool_screen_has_nothing_clipped(qtbot, window, tool, size):
    window.resize(*size)
    window.default_layout()
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=3000)

    def wait(pred, timeout_s):
        qtbot.waitUntil(pred, timeout=int(timeout_s * 1000))

    stage(window, tool, wait)
    qtbot.wait(100)
    assert window.dock(tool).isVisible() and not window.dock(tool).visibleRegion().isEmpty()
    found = tool_problems(window, tool)
    assert found == [], "\n".join(found)
