"""Helpers of the GUI tests: clicking the map through real mouse events."""

from __future__ import annotations

from PySide6.QtCore import Qt


def mouse_click_map(qtbot, window, x: float, y: float, button=Qt.MouseButton.LeftButton) -> None:
    """Press and release the mouse on the canvas at map point (x, y) metres."""
    canvas = window.canvas
    pos = canvas.view_to_widget(x, y)
    qtbot.mouseClick(canvas.viewport(), button, pos=pos)


def run_search_to(qtbot, window, src, dst, timeout=20000):
    """Left-click src, right-click dst (map metres), wait for the route (or its failure)."""
    with qtbot.waitSignal(window.searchFinished, timeout=timeout):
        mouse_click_map(qtbot, window, *src)
    mouse_click_map(qtbot, window, *dst, button=Qt.MouseButton.RightButton)
