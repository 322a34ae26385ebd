"""A GUI tool is one file and one line in ``TOOLS`` (issue 38): its dock, its layers in
View → Layers and its screen come from the class, with no list elsewhere to edit."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

import app.gui.main_window as main_window
import app.gui.screens  # noqa: F401  (TOOL_ORDER read before a test adds a tool)
from app.gui.layers import Layer
from app.gui.tools import TOOLS
from app.gui.tools.base import Tool


class CountTool(Tool):
    """A made-up tool: a label, one layer (the roads it would mark), a screen."""

    name = "count"
    title = "Count"
    staged = False

    def widget(self):
        return QLabel("nodes")

    def result_layers(self) -> list:
        return [Layer("Counted roads", lambda: [], lambda: None)]

    def stage(self, wait) -> None:
        type(self).staged = True


@pytest.fixture()
def with_count_tool(monkeypatch):
    monkeypatch.setattr(main_window, "TOOLS", (*TOOLS, CountTool))
    monkeypatch.setattr("app.gui.tools.TOOLS", (*TOOLS, CountTool))


def test_a_new_tool_needs_no_other_list(with_count_tool, make_window, fixture_net):
    from app.gui.screens import _tool_order, stage

    win = make_window(fixture_net)
    assert isinstance(win.tools["count"], CountTool)
    assert win.dock("count").widget() is not None
    names = list(win.layers.layers)
    assert "Counted roads" in names and names[-1] == "Road classes"
    assert _tool_order()[-1] == "count"
    stage(win, "count", lambda pred, timeout: None)
    assert CountTool.staged


def test_every_tool_declares_its_layers_and_screen(window):
    from app.gui.screens import TOOL_ORDER

    assert TOOL_ORDER == tuple(t.name for t in TOOLS)
    declared = [layer.name for tool in window.tools.values() for layer in tool.result_layers()]
    assert list(window.layers.layers) == [*declared, "Road classes"]
    for cls in TOOLS:
        assert cls.stage is not Tool.stage, f"{cls.__name__} has no screen"
