"""The map's result layers, as a GIS user expects them: each tool's results (route,
distance field, isochrones, billboard sites, OD points, spanning forest, PageRank, edits)
are a named layer that can be shown, hidden and cleared (View → Layers and the toolbar's
Layers button), instead of piling up under every later tool.

A hidden layer stays hidden while its tool redraws it; a tool that makes a *new* result
shows its layer again (:meth:`Layers.shown`), as a new layer appears in QGIS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QMenu


@dataclass
class Layer:
    """``items()``: the canvas items drawing it now; ``clear()``: drop its result (None:
    it cannot be cleared here, e.g. edits, which the Edit tool undoes)."""

    name: str
    items: Callable[[], list]
    clear: Callable[[], None] | None = None
    toggle: Callable[[bool], None] | None = None  # instead of item visibility


class Layers:
    """The registry of the window's layers and their show / hide state."""

    def __init__(self, window):
        self.win = window
        self.layers: dict[str, Layer] = {}
        self.hidden: set[str] = set()

    def add(self, layer: Layer) -> None:
        self.layers[layer.name] = layer

    def visible(self, name: str) -> bool:
        return name not in self.hidden

    def set_visible(self, name: str, on: bool) -> None:
        """Show or hide layer ``name``."""
        (self.hidden.discard if on else self.hidden.add)(name)
        self.apply(name)

    def shown(self, name: str) -> None:
        """A tool drew a new result on layer ``name``: it is shown."""
        if name in self.hidden:
            self.set_visible(name, True)

    def apply(self, name: str | None = None) -> None:
        """Set the items' visibility from the show / hide state (one layer or all)."""
        for layer in ([self.layers[name]] if name else self.layers.values()):
            on = layer.name not in self.hidden
            if layer.toggle is not None:
                layer.toggle(on)
                continue
            for it in layer.items():
                if it is not None:
                    it.setVisible(on)

    def clear(self, name: str) -> None:
        layer = self.layers[name]
        if layer.clear is not None:
            layer.clear()

    def _clearer(self, name: str) -> Callable[[], None]:
        """A menu action's slot: clear layer ``name``."""
        return lambda: self.clear(name)

    def clear_all(self) -> None:
        """Clear every result layer (the map, its edits and the tools' settings stay)."""
        for layer in self.layers.values():
            if layer.clear is not None:
                layer.clear()

    def fill_menu(self, menu: QMenu) -> None:
        """The Layers menu: a check box per layer, a Clear per clearable one, Clear all."""
        menu.clear()
        for layer in self.layers.values():
            a = menu.addAction(layer.name)
            a.setCheckable(True)
            a.setChecked(self.visible(layer.name))
            a.toggled.connect(lambda on, n=layer.name: self.set_visible(n, on))
        menu.addSeparator()
        clear = menu.addMenu("Clear")
        for layer in self.layers.values():
            if layer.clear is not None:
                clear.addAction(layer.name, self._clearer(layer.name))
        menu.addAction("Clear all results", self.clear_all)


def build_layers(win) -> Layers:
    """The window's layers: each tool's (``Tool.result_layers``, in ``TOOLS`` order), then the
    map's own road classes."""
    canvas = win.canvas
    layers = Layers(win)
    for tool in win.tools.values():
        for layer in tool.result_layers():
            layers.add(layer)
    layers.add(Layer("Road classes", lambda: [*canvas.road_items.values(), canvas.legend]))
    return layers
